/*
 * The configuration registry. Every RDMPI_* environment variable is one row
 * of the table in config.c (name, type, default, help) and lands in one
 * field of core_config_t, read once at init. rdmpi_info prints the table.
 */
#ifndef RDMPI_CORE_CONFIG_H
#define RDMPI_CORE_CONFIG_H

#include <stddef.h>

typedef struct core_config {
    int log_level;              /* RDMPI_LOG_LEVEL */
    char transports[128];       /* RDMPI_TRANSPORTS: allowed transports, comma list */
    size_t shm_eager_limit;     /* RDMPI_SHM_EAGER_LIMIT */
    size_t shm_ring_size;       /* RDMPI_SHM_RING_SIZE (0: sized from the node's rank count) */
    int shm_cma;                /* RDMPI_SHM_CMA: single copy through process_vm_readv */
    int rndv_proto;             /* RDMPI_RNDV_PROTO: CORE_RNDV_READ, _WRITE, _PIPELINED */
    size_t rndv_frag_size;      /* RDMPI_RNDV_FRAG_SIZE: pipelined rendezvous chunk */
    int spin_count;             /* RDMPI_SPIN_COUNT: polls before yielding the CPU */
    int yield_mode;             /* RDMPI_YIELD: auto, always, never */
    double wait_warn;           /* RDMPI_WAIT_WARN: seconds before a blocked call says so */
    double wait_sleep;          /* RDMPI_WAIT_SLEEP: idle seconds before sleeping (0: never) */
    /* verbs transport (transports/verbs) */
    char verbs_device[64];      /* RDMPI_VERBS_DEVICE: "name[:port]" ("": nearest to our cores) */
    int verbs_gid_index;        /* RDMPI_VERBS_GID_INDEX (-1: RoCE v2 IPv4-mapped, found) */
    int verbs_mode;             /* RDMPI_VERBS_MODE: CORE_VERBS_UD, _RC, _HYBRID */
    int verbs_max_rc;           /* RDMPI_VERBS_MAX_RC: RC connections per process (hybrid) */
    int verbs_rc_msgs;          /* RDMPI_VERBS_RC_MSGS: messages to a peer before hybrid uses RC */
    size_t verbs_eager_limit;   /* RDMPI_VERBS_EAGER_LIMIT */
    size_t verbs_mtu;           /* RDMPI_VERBS_MTU: UD packet size cap (0: the port's MTU) */
    double verbs_peer_timeout;  /* RDMPI_VERBS_PEER_TIMEOUT: seconds without acks = dead */
    int verbs_ud_window;        /* RDMPI_VERBS_UD_WINDOW: UD packets in flight per peer */
    double verbs_ud_rto;        /* RDMPI_VERBS_UD_RTO: smallest UD retransmission timeout */
    double verbs_ud_drop;       /* RDMPI_VERBS_UD_DROP: fault injection, outgoing UD loss */
    int verbs_rq_size;          /* RDMPI_VERBS_RQ_SIZE: UD receive queue and SRQ depth */
    int verbs_rc_credits;       /* RDMPI_VERBS_RC_CREDITS: RC sends in flight per peer */
    int verbs_rc_timeout;       /* RDMPI_VERBS_RC_TIMEOUT: IB ack timeout exponent */
    int verbs_fp_peers;         /* RDMPI_VERBS_FP_PEERS: RC peers with an RDMA-write ring */
    int verbs_fp_slots;         /* RDMPI_VERBS_FP_SLOTS: slots of each ring */
    size_t verbs_fp_size;       /* RDMPI_VERBS_FP_SIZE: bytes of each slot */
    int verbs_rcache;           /* RDMPI_VERBS_RCACHE: cache registrations (needs memory hooks) */
    size_t verbs_rcache_max;    /* RDMPI_VERBS_RCACHE_MAX: bytes the cache keeps registered */
    int verbs_rcache_entries;   /* RDMPI_VERBS_RCACHE_ENTRIES: regions the cache keeps */
    /* tcp transport (transports/tcp) */
    char tcp_if[128];           /* RDMPI_TCP_IF: interfaces or CIDRs ("": first non-loopback) */
    size_t tcp_eager_limit;     /* RDMPI_TCP_EAGER_LIMIT */
    size_t tcp_queue_limit;     /* RDMPI_TCP_QUEUE_LIMIT: queued bytes per peer before busy */
    size_t tcp_sockbuf;         /* RDMPI_TCP_SOCKBUF: SO_SNDBUF/SO_RCVBUF (0: autotuned) */
} core_config_t;

enum { CORE_YIELD_AUTO = 0, CORE_YIELD_ALWAYS, CORE_YIELD_NEVER };
enum { CORE_VERBS_UD = 0, CORE_VERBS_RC, CORE_VERBS_HYBRID };
enum { CORE_RNDV_READ = 0, CORE_RNDV_WRITE, CORE_RNDV_PIPELINED };

enum core_config_type { CORE_CFG_BOOL, CORE_CFG_INT, CORE_CFG_SIZE, CORE_CFG_STRING,
                        CORE_CFG_ENUM, CORE_CFG_DOUBLE, CORE_CFG_EXTERNAL };

typedef struct core_config_row {
    const char *name;
    enum core_config_type type;
    const char *defval;
    const char *help;
    size_t offset;             /* into core_config_t; unused for CORE_CFG_EXTERNAL */
    size_t size;               /* of a string field */
    const char *const *choices; /* CORE_CFG_ENUM: NULL-terminated names, value = index */
    double min, max;           /* INT, SIZE, DOUBLE: the values accepted (both 0: any that fits
                                  the field; a DOUBLE must be finite either way) */
} core_config_row_t;

/* Fills cfg from defaults and the environment; warns about unknown RDMPI_*
 * variables and bad values (the default is kept). */
int core_config_load(core_config_t *cfg);
/* The table and its length, for rdmpi_info. */
const core_config_row_t *core_config_table(size_t *n);
/* Formats a row's current value; *origin is "default" or "environment". */
void core_config_format(const core_config_t *cfg, const core_config_row_t *row, char *buf,
                        size_t len, const char **origin);
/* Parses sizes like "16384", "16k", "4M", "1G" (digits first: no sign or
 * blanks; a value that does not fit a size_t is refused). 0 or CORE_EINVAL. */
int core_config_parse_size(const char *s, size_t *out);

#endif
