/*
 * The one table of RDMPI_* variables. Adding a knob means adding a row here
 * and a field to core_config_t; rdmpi_info lists them all.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "core/log.h"

extern char **environ;

#define OFF(f) offsetof(core_config_t, f)

static const char *const log_levels[] = { "error", "warn", "info", "debug", NULL };
static const char *const yield_modes[] = { "auto", "always", "never", NULL };
static const char *const verbs_modes[] = { "ud", "rc", "hybrid", NULL };
static const char *const rndv_protos[] = { "read", "write", "pipelined", NULL };

static const core_config_row_t rows[] = {
    { "RDMPI_LOG_LEVEL", CORE_CFG_ENUM, "warn",
      "messages to print: error, warn, info, debug", OFF(log_level), 0, log_levels },
    { "RDMPI_TRANSPORTS", CORE_CFG_STRING, "self,shm,verbs,tcp",
      "transports allowed, in order of preference", OFF(transports),
      sizeof(((core_config_t *)0)->transports), NULL },
    { "RDMPI_SHM_EAGER_LIMIT", CORE_CFG_SIZE, "16k",
      "largest message sent eagerly (copied through the ring) within a node",
      OFF(shm_eager_limit), 0, NULL },
    { "RDMPI_SHM_RING_SIZE", CORE_CFG_SIZE, "0",
      "bytes per ring between two ranks of a node (0: sized from the rank count)",
      OFF(shm_ring_size), 0, NULL },
    { "RDMPI_SHM_CMA", CORE_CFG_BOOL, "1",
      "single-copy large messages with process_vm_readv (0: pipelined copy)", OFF(shm_cma), 0,
      NULL },
    { "RDMPI_RNDV_PROTO", CORE_CFG_ENUM, "read",
      "rendezvous of large messages: read (the receiver reads the sender's buffer: RDMA read, "
      "CMA), write (the sender writes into the receiver's buffer once it is matched), "
      "pipelined (copied in chunks through active messages); a transport that cannot do the "
      "one asked uses the other zero-copy one, else pipelined", OFF(rndv_proto), 0, rndv_protos },
    { "RDMPI_RNDV_FRAG_SIZE", CORE_CFG_SIZE, "0",
      "chunk size of the pipelined rendezvous (transports without RDMA get); 0: the "
      "transport's preferred size (tcp 512k, others 64k)", OFF(rndv_frag_size), 0, NULL },
    { "RDMPI_SPIN_COUNT", CORE_CFG_INT, "50000",
      "progress polls before a blocked call starts yielding the CPU", OFF(spin_count), 0, NULL,
      0, INT_MAX },
    { "RDMPI_YIELD", CORE_CFG_ENUM, "auto",
      "yield the CPU while waiting: auto (at once when oversubscribed), always, never",
      OFF(yield_mode), 0, yield_modes },
    { "RDMPI_WAIT_WARN", CORE_CFG_DOUBLE, "60",
      "seconds a blocking call may wait before it reports where it is stuck (0: never)",
      OFF(wait_warn), 0, NULL, 0, 1e9 },
    { "RDMPI_WAIT_SLEEP", CORE_CFG_DOUBLE, "-1",
      "seconds a blocked call polls without result before it sleeps until a message arrives "
      "(only when every transport in use can wake it: self, verbs); 0: never sleep; -1: "
      "0.0001 when the node has more ranks than cores (and RDMPI_YIELD is not never), else never",
      OFF(wait_sleep), 0, NULL, -1, 1e9 },
    { "RDMPI_VERBS_DEVICE", CORE_CFG_STRING, "",
      "RDMA device and port to use, \"name[:port]\" (empty: the one nearest to the rank's cores)",
      OFF(verbs_device), sizeof(((core_config_t *)0)->verbs_device), NULL },
    { "RDMPI_VERBS_GID_INDEX", CORE_CFG_INT, "-1",
      "RoCE GID table index (-1: the RoCE v2 IPv4-mapped GID, found by querying the table)",
      OFF(verbs_gid_index), 0, NULL, -1, 65535 },
    { "RDMPI_VERBS_MODE", CORE_CFG_ENUM, "hybrid",
      "verbs connections: ud (datagrams only), rc (connected QP per peer), hybrid (UD, and RC "
      "for peers that exchange large or many messages)", OFF(verbs_mode), 0, verbs_modes },
    { "RDMPI_VERBS_MAX_RC", CORE_CFG_INT, "64",
      "hybrid mode: most RC connections per process (others stay on UD)", OFF(verbs_max_rc), 0,
      NULL, 0, INT_MAX },
    { "RDMPI_VERBS_RC_MSGS", CORE_CFG_INT, "16",
      "hybrid mode: messages to a peer before it gets an RC connection (RDMA reads connect at "
      "once)", OFF(verbs_rc_msgs), 0, NULL, 0, INT_MAX },
    { "RDMPI_VERBS_EAGER_LIMIT", CORE_CFG_SIZE, "8k",
      "largest message sent eagerly over RDMA (larger ones: rendezvous)", OFF(verbs_eager_limit),
      0, NULL },
    { "RDMPI_VERBS_MTU", CORE_CFG_SIZE, "0",
      "largest UD packet, 256..4096 (0: the port's active MTU)", OFF(verbs_mtu), 0, NULL, 0,
      65536 },
    { "RDMPI_VERBS_PEER_TIMEOUT", CORE_CFG_DOUBLE, "30",
      "seconds a peer may leave packets unacknowledged before it is reported dead",
      OFF(verbs_peer_timeout), 0, NULL, 0, 1e9 },
    { "RDMPI_VERBS_UD_WINDOW", CORE_CFG_INT, "256",
      "UD packets in flight per peer, unacknowledged (the sequence numbers are 16 bits)",
      OFF(verbs_ud_window), 0, NULL, 2, 32767 },
    { "RDMPI_VERBS_UD_RTO", CORE_CFG_DOUBLE, "0.01",
      "smallest UD retransmission timeout in seconds (it adapts to the round trip, doubles on "
      "every expiry, up to 1 s)", OFF(verbs_ud_rto), 0, NULL, 0, 10 },
    { "RDMPI_VERBS_UD_DROP", CORE_CFG_DOUBLE, "0",
      "testing: fraction of outgoing UD packets dropped on purpose (0..0.5); as many again are "
      "held back and sent after the next packet (reordered)", OFF(verbs_ud_drop), 0,
      NULL, 0, 0.5 },
    { "RDMPI_VERBS_RQ_SIZE", CORE_CFG_INT, "512",
      "receive buffers of the UD queue and of the RC shared receive queue (capped by the device)",
      OFF(verbs_rq_size), 0, NULL, 1, 1 << 20 },
    { "RDMPI_VERBS_RC_CREDITS", CORE_CFG_INT, "32",
      "RC messages a rank may send to one peer before the peer returns credits",
      OFF(verbs_rc_credits), 0, NULL, 1, 65535 },
    { "RDMPI_VERBS_RC_TIMEOUT", CORE_CFG_INT, "18",
      "RC ack timeout exponent: 4.096 us * 2^value per try, 7 tries (18: about 1 s)",
      OFF(verbs_rc_timeout), 0, NULL, 0, 31 },
    { "RDMPI_VERBS_FP_PEERS", CORE_CFG_INT, "16",
      "RDMA-write eager fast path: RC peers per process whose small messages are written "
      "straight into a ring of this process's memory that it polls, instead of sent (0: "
      "none; not offered by a rank that sleeps while it waits, see RDMPI_WAIT_SLEEP)",
      OFF(verbs_fp_peers), 0, NULL, 0, INT_MAX },
    { "RDMPI_VERBS_FP_SLOTS", CORE_CFG_INT, "32",
      "RDMA-write fast path: messages in flight per peer (slots of its ring)",
      OFF(verbs_fp_slots), 0, NULL, 0, 65535 },
    { "RDMPI_VERBS_FP_SIZE", CORE_CFG_SIZE, "2k",
      "RDMA-write fast path: bytes per slot (larger messages are sent, in order with the "
      "written ones)", OFF(verbs_fp_size), 0, NULL, 0, 1 << 20 },
    { "RDMPI_VERBS_RCACHE", CORE_CFG_BOOL, "1",
      "keep rendezvous buffers registered between messages (0: register per message); on only "
      "when the memory hooks that see every free/munmap/madvise/brk install and self-test",
      OFF(verbs_rcache), 0, NULL },
    { "RDMPI_VERBS_RCACHE_MAX", CORE_CFG_SIZE, "1G",
      "registration cache: most bytes kept registered while unused (least recently used go "
      "first; at most half of the locked-memory limit unless root)", OFF(verbs_rcache_max), 0, NULL },
    { "RDMPI_VERBS_RCACHE_ENTRIES", CORE_CFG_INT, "1024",
      "registration cache: most regions kept registered", OFF(verbs_rcache_entries), 0, NULL, 0,
      INT_MAX },
    { "RDMPI_TCP_IF", CORE_CFG_STRING, "",
      "tcp: interfaces (eth0) or networks (10.1.0.0/16) to use, comma separated; empty: the "
      "first non-loopback IPv4 interface that is up, else loopback", OFF(tcp_if),
      sizeof(((core_config_t *)0)->tcp_if), NULL },
    { "RDMPI_TCP_EAGER_LIMIT", CORE_CFG_SIZE, "64k",
      "largest message sent eagerly over tcp (larger ones: pipelined rendezvous)",
      OFF(tcp_eager_limit), 0, NULL },
    { "RDMPI_TCP_QUEUE_LIMIT", CORE_CFG_SIZE, "1M",
      "tcp: bytes queued for one peer when its socket is full before sends wait",
      OFF(tcp_queue_limit), 0, NULL },
    { "RDMPI_TCP_SOCKBUF", CORE_CFG_SIZE, "0",
      "tcp: socket send and receive buffer size (0: the kernel's autotuning)",
      OFF(tcp_sockbuf), 0, NULL },
    /* Read by collectives/select.c at coll_init: force one algorithm ("auto": the table). */
    { "RDMPI_COLL_BARRIER", CORE_CFG_EXTERNAL, "auto",
      "barrier algorithm: auto, dissemination, two_level", 0, 0, NULL },
    { "RDMPI_COLL_BCAST", CORE_CFG_EXTERNAL, "auto",
      "bcast algorithm: auto, binomial, scatter_ring, scatter_recursive_doubling, two_level",
      0, 0, NULL },
    { "RDMPI_COLL_REDUCE", CORE_CFG_EXTERNAL, "auto",
      "reduce algorithm: auto, binomial, reduce_scatter_gather, two_level (commutative ops "
      "only)", 0, 0, NULL },
    { "RDMPI_COLL_ALLREDUCE", CORE_CFG_EXTERNAL, "auto",
      "allreduce algorithm: auto, recursive_doubling, rabenseifner, ring (commutative ops "
      "only), reduce_bcast, two_level (commutative ops only)", 0, 0, NULL },
    { "RDMPI_COLL_GATHER", CORE_CFG_EXTERNAL, "auto",
      "gather algorithm: auto, binomial, linear", 0, 0, NULL },
    { "RDMPI_COLL_GATHERV", CORE_CFG_EXTERNAL, "auto",
      "gatherv algorithm: auto, linear", 0, 0, NULL },
    { "RDMPI_COLL_SCATTER", CORE_CFG_EXTERNAL, "auto",
      "scatter algorithm: auto, binomial, linear", 0, 0, NULL },
    { "RDMPI_COLL_SCATTERV", CORE_CFG_EXTERNAL, "auto",
      "scatterv algorithm: auto, linear", 0, 0, NULL },
    { "RDMPI_COLL_ALLGATHER", CORE_CFG_EXTERNAL, "auto",
      "allgather algorithm: auto, recursive_doubling, bruck, ring", 0, 0, NULL },
    { "RDMPI_COLL_ALLGATHERV", CORE_CFG_EXTERNAL, "auto",
      "allgatherv algorithm: auto, recursive_doubling, bruck, ring", 0, 0, NULL },
    { "RDMPI_COLL_ALLTOALL", CORE_CFG_EXTERNAL, "auto",
      "alltoall algorithm: auto, pairwise, linear, bruck", 0, 0, NULL },
    { "RDMPI_COLL_ALLTOALLV", CORE_CFG_EXTERNAL, "auto",
      "alltoallv algorithm: auto, pairwise, linear", 0, 0, NULL },
    { "RDMPI_COLL_ALLTOALLW", CORE_CFG_EXTERNAL, "auto",
      "alltoallw algorithm: auto, pairwise, linear", 0, 0, NULL },
    { "RDMPI_COLL_REDUCE_SCATTER", CORE_CFG_EXTERNAL, "auto",
      "reduce_scatter algorithm: auto, recursive_halving, pairwise (commutative ops only)", 0,
      0, NULL },
    { "RDMPI_COLL_REDUCE_SCATTER_BLOCK", CORE_CFG_EXTERNAL, "auto",
      "reduce_scatter_block algorithm: auto, recursive_halving, pairwise (commutative ops "
      "only)", 0, 0, NULL },
    { "RDMPI_COLL_SCAN", CORE_CFG_EXTERNAL, "auto",
      "scan algorithm: auto, recursive_doubling, linear", 0, 0, NULL },
    { "RDMPI_COLL_EXSCAN", CORE_CFG_EXTERNAL, "auto",
      "exscan algorithm: auto, recursive_doubling, linear", 0, 0, NULL },
    { "RDMPI_COLL_SIM_PPN", CORE_CFG_EXTERNAL, "0",
      "testing: pretend every N consecutive ranks form a node, so the two_level collectives "
      "run on one machine (0: the real node layout)", 0, 0, NULL },
    /* Read by the launcher, listed here so they are known and documented. */
    { "RDMPI_TIMEOUT", CORE_CFG_EXTERNAL, "0",
      "rdmpirun: seconds before the job is killed (same as --timeout)", 0, 0, NULL },
    { "RDMPI_TEST_LARGE", CORE_CFG_EXTERNAL, "0",
      "test suite: 1 runs the 2 GiB message test", 0, 0, NULL },
    { "RDMPI_TEST_ENV", CORE_CFG_EXTERNAL, "",
      "test suite: VAR=VALUE pairs applied to every MPI test run", 0, 0, NULL },
    { "RDMPI_TEST_TIMEOUT", CORE_CFG_EXTERNAL, "60",
      "test suite: seconds per MPI test run", 0, 0, NULL },
    { "RDMPI_TEST_TIMEOUT_SCALE", CORE_CFG_EXTERNAL, "1",
      "test suite: factor applied to every MPI test timeout (slow machines)", 0, 0, NULL },
    { "RDMPI_TEST_NPS", CORE_CFG_EXTERNAL, "",
      "test suite: rank counts every MPI test line runs at instead of its own (max: the "
      "largest of its own)", 0, 0, NULL },
    { "RDMPI_TEST_MIN_NP", CORE_CFG_EXTERNAL, "1",
      "test suite: MPI test runs with fewer ranks are skipped", 0, 0, NULL },
    { "RDMPI_TEST_BINDIR", CORE_CFG_EXTERNAL, "",
      "test suite: where built MPI test programs are kept and reused", 0, 0, NULL },
    { "RDMPI_TEST_MPICC", CORE_CFG_EXTERNAL, "",
      "test suite: another MPI's compiler wrapper", 0, 0, NULL },
    { "RDMPI_TEST_MPIRUN", CORE_CFG_EXTERNAL, "",
      "test suite: another launcher (or rdmpirun with host options)", 0, 0, NULL },
    { "RDMPI_LAUNCHER", CORE_CFG_EXTERNAL, "",
      "set by rdmpirun in every rank's environment", 0, 0, NULL },
};

const core_config_row_t *core_config_table(size_t *n)
{
    *n = sizeof(rows) / sizeof(rows[0]);
    return rows;
}

int core_config_parse_size(const char *s, size_t *out)
{
    char *end;
    /* strtoull would also take blanks and a sign, and "-1" as its largest value. */
    if (!isdigit((unsigned char)*s))
        return CORE_EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0)
        return CORE_EINVAL;
    unsigned long long mult = 1;
    switch (tolower((unsigned char)*end)) {
    case 'k': mult = 1ull << 10; end++; break;
    case 'm': mult = 1ull << 20; end++; break;
    case 'g': mult = 1ull << 30; end++; break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || v > SIZE_MAX / mult)
        return CORE_EINVAL;
    *out = (size_t)(v * mult);
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on"))
        *out = 1;
    else if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") ||
             !strcasecmp(s, "off"))
        *out = 0;
    else
        return CORE_EINVAL;
    return 0;
}

static int in_bounds(const core_config_row_t *r, double v)
{
    return (r->min == 0 && r->max == 0) || (v >= r->min && v <= r->max);
}

/* Stores the text value s into the row's field; CORE_EINVAL leaves it alone. */
static int set_value(core_config_t *cfg, const core_config_row_t *r, const char *s)
{
    char *field = (char *)cfg + r->offset;
    char *end;
    switch (r->type) {
    case CORE_CFG_BOOL:
        return parse_bool(s, (int *)field);
    case CORE_CFG_INT: {
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || *end || errno || v < INT_MIN || v > INT_MAX || !in_bounds(r, (double)v))
            return CORE_EINVAL;
        *(int *)field = (int)v;
        return 0;
    }
    case CORE_CFG_DOUBLE: {
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || *end || errno || !isfinite(v) || !in_bounds(r, v))
            return CORE_EINVAL;
        *(double *)field = v;
        return 0;
    }
    case CORE_CFG_SIZE: {
        size_t v;
        if (core_config_parse_size(s, &v) || !in_bounds(r, (double)v))
            return CORE_EINVAL;
        *(size_t *)field = v;
        return 0;
    }
    case CORE_CFG_STRING:
        if (strlen(s) >= r->size)
            return CORE_EINVAL;
        strcpy(field, s);
        return 0;
    case CORE_CFG_ENUM:
        for (int i = 0; r->choices[i]; i++)
            if (!strcasecmp(s, r->choices[i])) {
                *(int *)field = i;
                return 0;
            }
        return CORE_EINVAL;
    case CORE_CFG_EXTERNAL:
        return 0;
    }
    return CORE_EINVAL;
}

static int is_known(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (strlen(rows[i].name) == len && !strncmp(rows[i].name, name, len))
            return 1;
    return 0;
}

int core_config_load(core_config_t *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const core_config_row_t *r = &rows[i];
        if (r->type == CORE_CFG_EXTERNAL)
            continue;
        set_value(cfg, r, r->defval);
        const char *env = getenv(r->name);
        if (env && set_value(cfg, r, env) != 0) {
            char range[64] = "";
            if (r->min != 0 || r->max != 0)
                snprintf(range, sizeof(range), ", from %g to %g", r->min, r->max);
            core_warn("%s=\"%s\" is not a valid value (%s%s); using the default %s", r->name,
                      env, r->help, range, r->defval);
            set_value(cfg, r, r->defval);
        }
    }
    core_log_level = cfg->log_level;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "RDMPI_", 6) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (!is_known(*e, len))
            core_warn("unknown variable %.*s ignored (rdmpi_info lists the known ones)", (int)len,
                      *e);
    }
    return 0;
}

void core_config_format(const core_config_t *cfg, const core_config_row_t *r, char *buf,
                        size_t len, const char **origin)
{
    const char *field = (const char *)cfg + r->offset;
    const char *env = getenv(r->name);
    *origin = env ? "environment" : "default";
    switch (r->type) {
    case CORE_CFG_BOOL: snprintf(buf, len, "%s", *(const int *)field ? "1" : "0"); break;
    case CORE_CFG_INT: snprintf(buf, len, "%d", *(const int *)field); break;
    case CORE_CFG_DOUBLE: snprintf(buf, len, "%g", *(const double *)field); break;
    case CORE_CFG_SIZE: snprintf(buf, len, "%zu", *(const size_t *)field); break;
    case CORE_CFG_STRING: snprintf(buf, len, "%s", field); break;
    case CORE_CFG_ENUM: snprintf(buf, len, "%s", r->choices[*(const int *)field]); break;
    case CORE_CFG_EXTERNAL: snprintf(buf, len, "%s", env ? env : r->defval); break;
    }
}
