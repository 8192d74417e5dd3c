/*
 * Test of the whole shm transport between forked processes, with a
 * stand-in bootstrap (a key-value table and a barrier in an anonymous
 * shared mapping) in place of PMIx.
 *
 * Four "ranks" of an eight-rank job share a node (world ranks 5, 2, 7, 0):
 * every rank streams messages of mixed sizes to every other one, handlers
 * reply from inside progress (re-entrant am_send), order and contents are
 * checked per source, flush drains, the segment name is gone from /dev/shm
 * once everyone attached, and CMA get/put move 64 MiB when permitted. A
 * second job runs with RDMPI_SHM_CMA=0 and a tiny explicit ring size.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/bootstrap.h"
#include "core/log.h"
#include "transports/shm/shm.h"

/* The transport layer (tp.c) is not linked: its locked send under MULTIPLE is the plain one
 * here (each rank of this test is one thread). */
int tp_am_send_shared(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len)
{
    return tp_am_send_locked(ep, id, hdr, hdr_len, payload, len);
}

extern const tp_component_t tp_shm_component;

#define NLOCAL 4
#define WORLD 8
static const int local_ranks[NLOCAL] = {5, 2, 7, 0};

/* ---- stand-ins for the rest of the library -------------------------------- */

int core_log_level = CORE_LOG_WARN;
/* The handler table the transports layer would own (iface->am points here). */
static tp_am_entry_t tp_am_table[TP_AM_MAX];

/* No message in this test is malformed: a refusal fails it. */
int core_wire_reject(core_runtime_t *rt, const char *fmt, ...)
{
    va_list ap;
    (void)rt;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return CORE_EPROTO;
}

void core_wire_fail(core_runtime_t *rt, int peer, const char *tp, const char *what,
                    const char *why)
{
    (void)rt;
    fprintf(stderr, "FAIL: rank %d sent a malformed %s over %s: %s\n", peer, what, tp,
            why ? why : "?");
    abort();
}

void tp_am_refused(tp_iface_t *iface, int peer, unsigned id, int rc)
{
    fprintf(stderr, "FAIL: rank %d sent a malformed message %u over %s: %d\n", peer, id,
            iface->name, rc);
    abort();
}

/* Bridges to other jobs' processes (shm_bridge.c) are not opened here. */
const tp_ops_t tp_shm_bridge_ops;
int tp_shm_bridge_open(core_runtime_t *rt, tp_iface_t **iface_p)
{
    (void)rt;
    (void)iface_p;
    return CORE_EUNSUPPORTED;
}
int tp_shm_bridge_reachable(tp_iface_t *iface, int peer)
{
    (void)iface;
    (void)peer;
    return 0;
}

void core_log_emit(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "test_shm_iface[%d] %s: ", (int)getpid(), level == 0 ? "error" : "log");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* The library ends the job on unrecoverable errors; here the test fails. */
void core_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "test_shm_iface[%d] fatal: ", (int)getpid());
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

typedef struct kv {
    char key[32];
    size_t len;
    char val[512];
} kv_t;

typedef struct shared {
    pthread_barrier_t barrier;
    int cma_denied;
    kv_t kv[WORLD][4];
} shared_t;

static shared_t *sh;

int core_boot_put(core_runtime_t *rt, const char *key, const void *val, size_t len, int local_only)
{
    (void)local_only;
    for (int i = 0; i < 4; i++) {
        kv_t *e = &sh->kv[rt->rank][i];
        if (e->key[0] == '\0' || strcmp(e->key, key) == 0) {
            snprintf(e->key, sizeof(e->key), "%s", key);
            memcpy(e->val, val, len);
            e->len = len;
            return 0;
        }
    }
    return CORE_ENOMEM;
}

int core_boot_get(core_runtime_t *rt, int rank, const char *key, void **val, size_t *len)
{
    (void)rt;
    for (int i = 0; i < 4; i++) {
        kv_t *e = &sh->kv[rank][i];
        if (strcmp(e->key, key) == 0) {
            *val = malloc(e->len);
            memcpy(*val, e->val, e->len);
            *len = e->len;
            return 0;
        }
    }
    return CORE_ENOTFOUND;
}

/* ---- the test ------------------------------------------------------------- */

#define NMSG 10000 /* per ordered pair */

enum { AM_DATA = 3, AM_REPLY = 4, AM_RKEY = 5 };

typedef struct msg_hdr {
    uint32_t seq;
    uint32_t from;
} msg_hdr_t;

typedef struct rkey_hdr {
    uint64_t addr;
    uint64_t len;
    uint8_t rkey[8];
} rkey_hdr_t;

static struct {
    core_runtime_t rt;
    tp_iface_t *iface;
    uint32_t next_seq[WORLD]; /* expected next seq from each world rank */
    int replies, pending_replies[WORLD];
    int rkeys_seen;
    rkey_hdr_t rkey_from[WORLD];
    int failed;
} t;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stdout, "FAIL: unit/shm_iface rank %d: ", t.rt.rank);        \
            fprintf(stdout, __VA_ARGS__);                                        \
            fprintf(stdout, "\n");                                               \
            fflush(stdout);                                                      \
            _exit(1);                                                            \
        }                                                                        \
    } while (0)

static size_t msg_len(uint32_t seq, int from, size_t max)
{
    uint32_t r = (seq * 2654435761u) ^ ((uint32_t)from * 40503u);
    size_t len = r % 100 < 90 ? r % 80 : r % 100 < 99 ? r % 5000 : max;
    return len > max ? max : len;
}

static uint8_t msg_byte(uint32_t seq, int from, size_t i)
{
    return (uint8_t)(seq * 7 + (uint32_t)from * 13 + i);
}

static tp_ep_t *ep_to(int world)
{
    tp_ep_t *ep;
    CHECK(tp_shm_component.reachable(t.iface, world), "rank %d not reachable", world);
    CHECK(t.iface->ops->ep_create(t.iface, world, &ep) == 0, "ep_create(%d)", world);
    CHECK(ep->peer == world, "ep->peer %d, want %d", ep->peer, world);
    return ep;
}

static int on_data(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                    size_t len)
{
    (void)arg;
    msg_hdr_t h;
    CHECK(hdr_len == sizeof(h), "data header length %zu", hdr_len);
    memcpy(&h, hdr, sizeof(h));
    CHECK((int)h.from == src, "src %d but header says %u", src, h.from);
    CHECK(h.seq == t.next_seq[src], "from %d: seq %u, want %u", src, h.seq, t.next_seq[src]);
    t.next_seq[src]++;
    CHECK(len == msg_len(h.seq, src, t.iface->caps.max_am), "from %d seq %u: length %zu", src,
          h.seq, len);
    const uint8_t *p = payload;
    for (size_t i = 0; i < len; i++)
        CHECK(p[i] == msg_byte(h.seq, src, i), "from %d seq %u: byte %zu differs", src, h.seq, i);
    /* Every 100th message is acknowledged from inside the handler. */
    if (h.seq % 100 == 0) {
        int rc = tp_am_send(ep_to(src), AM_REPLY, &h, sizeof(h), NULL, 0);
        CHECK(rc == 0 || rc == CORE_EBUSY, "reply am_send: %d", rc);
        if (rc == CORE_EBUSY)
            t.pending_replies[src]++;
    }
    return 0;
}

static int on_reply(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                     size_t len)
{
    (void)arg;
    (void)src;
    (void)hdr;
    (void)payload;
    CHECK(hdr_len == sizeof(msg_hdr_t) && len == 0, "bad reply");
    t.replies++;
    return 0;
}

static int on_rkey(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                    size_t len)
{
    (void)arg;
    (void)payload;
    CHECK(hdr_len == sizeof(rkey_hdr_t) && len == 0, "bad rkey message");
    memcpy(&t.rkey_from[src], hdr, sizeof(rkey_hdr_t));
    t.rkeys_seen++;
    return 0;
}

/* Four ranks on however few cores: yield when there is nothing to do. */
static void poll_once(void)
{
    if (tp_progress(t.iface) == 0)
        sched_yield();
}

static void send_retry(tp_ep_t *ep, unsigned id, const void *hdr, size_t hlen, const void *p,
                       size_t len)
{
    int rc;
    while ((rc = tp_am_send(ep, id, hdr, hlen, p, len)) == CORE_EBUSY)
        poll_once();
    CHECK(rc == 0, "am_send: %d", rc);
}

static void flush_pending_replies(void)
{
    for (int w = 0; w < WORLD; w++)
        while (t.pending_replies[w] > 0) {
            msg_hdr_t h = {0, (uint32_t)t.rt.rank};
            if (tp_am_send(ep_to(w), AM_REPLY, &h, sizeof(h), NULL, 0) != 0)
                break;
            t.pending_replies[w]--;
        }
}

static void barrier(void)
{
    pthread_barrier_wait(&sh->barrier);
}

static void exchange(void)
{
    static uint8_t buf[1 << 20];
    uint32_t sent[NLOCAL] = {0};
    int me = t.rt.local_rank, done = 0;
    size_t max = t.iface->caps.max_am;
    CHECK(max < sizeof(buf), "max_am %zu larger than the test buffer", max);
    while (!done) {
        done = 1;
        for (int i = 0; i < NLOCAL; i++) {
            if (i == me || sent[i] == NMSG)
                continue;
            done = 0;
            msg_hdr_t h = {sent[i], (uint32_t)t.rt.rank};
            size_t len = msg_len(h.seq, t.rt.rank, max);
            for (size_t k = 0; k < len; k++)
                buf[k] = msg_byte(h.seq, t.rt.rank, k);
            int rc = tp_am_send(ep_to(local_ranks[i]), AM_DATA, &h, sizeof(h), buf, len);
            CHECK(rc == 0 || rc == CORE_EBUSY, "am_send: %d", rc);
            sent[i] += rc == 0;
        }
        poll_once();
        flush_pending_replies();
    }
    int want_replies = (NLOCAL - 1) * ((NMSG + 99) / 100);
    for (;;) {
        int in_done = 1;
        for (int i = 0; i < NLOCAL; i++)
            if (i != me && t.next_seq[local_ranks[i]] != NMSG)
                in_done = 0;
        flush_pending_replies();
        if (in_done && t.replies == want_replies)
            break;
        poll_once();
    }
    for (int i = 0; i < NLOCAL; i++) {
        if (i == me)
            continue;
        tp_ep_t *ep = ep_to(local_ranks[i]);
        while (t.iface->ops->flush(ep) == CORE_EBUSY)
            poll_once();
    }
}

static int get_status; /* 0 pending, 1 done, -1 failed */

static void on_get(tp_comp_t *comp, int status)
{
    get_status = status == 0 ? 1 : -1;
}

/* Each rank exposes a 64 MiB buffer to its right neighbor, which reads it
 * with get and writes it back transformed with put. A large get may finish
 * later (both ends copy it): progress until its completion fires. */
static void cma_test(void)
{
    const size_t len = 64u << 20;
    int me = t.rt.local_rank;
    int right = local_ranks[(me + 1) % NLOCAL], left = local_ranks[(me + NLOCAL - 1) % NLOCAL];
    uint64_t *mine = malloc(len), *theirs = malloc(len);
    CHECK(mine && theirs, "malloc");
    for (size_t i = 0; i < len / 8; i++)
        mine[i] = (uint64_t)t.rt.rank << 40 | i;
    tp_memh_t *memh;
    CHECK(t.iface->ops->mem_reg(t.iface, mine, len, &memh) == 0, "mem_reg");
    rkey_hdr_t rk = {(uint64_t)(uintptr_t)mine, len, {0}};
    size_t klen = t.iface->ops->rkey_pack(t.iface, memh, rk.rkey);
    CHECK(klen <= t.iface->caps.max_rkey && klen <= sizeof(rk.rkey), "rkey length %zu", klen);
    send_retry(ep_to(right), AM_RKEY, &rk, sizeof(rk), NULL, 0);
    while (t.rkeys_seen == 0)
        poll_once();

    rkey_hdr_t *from = &t.rkey_from[left];
    CHECK(from->len == len, "rkey message from the wrong rank");
    tp_ep_t *ep = ep_to(left);
    tp_comp_t comp = {on_get};
    int grc = tp_get(ep, theirs, len, NULL, from->addr, from->rkey, &comp);
    while (grc == CORE_INPROGRESS && get_status == 0)
        poll_once();
    CHECK(grc == 0 || (grc == CORE_INPROGRESS && get_status == 1), "get returned %d", grc);
    for (size_t i = 0; i < len / 8; i++)
        CHECK(theirs[i] == ((uint64_t)left << 40 | i), "get: word %zu differs", i);
    for (size_t i = 0; i < len / 8; i++)
        theirs[i] = ~theirs[i];
    CHECK(tp_put(ep, theirs, len, NULL, from->addr, from->rkey, NULL) == 0, "put");
    barrier(); /* every put has landed */
    for (size_t i = 0; i < len / 8; i++)
        CHECK(mine[i] == ~((uint64_t)t.rt.rank << 40 | i), "put: word %zu differs", i);
    /* A bad remote address fails cleanly. */
    core_log_level = -1; /* the failure is expected: keep stderr quiet */
    int rc = tp_get(ep, theirs, 4096, NULL, 8, from->rkey, NULL);
    core_log_level = CORE_LOG_WARN;
    CHECK(rc < 0 && rc != CORE_EBUSY, "get from address 8 returned %d", rc);
    t.iface->ops->mem_dereg(t.iface, memh);
    free(mine);
    free(theirs);
}

static int seg_exists(const char *name)
{
    char path[400];
    struct stat st;
    snprintf(path, sizeof(path), "/dev/shm%s", name);
    return stat(path, &st) == 0;
}

static void rank_main(int local_rank, int cma, size_t ring_size)
{
    core_runtime_t *rt = &t.rt;
    rt->local_rank = local_rank;
    rt->local_size = NLOCAL;
    rt->local_ranks = (int *)local_ranks;
    rt->rank = local_ranks[local_rank];
    rt->size = WORLD;
    snprintf(rt->hostname, sizeof(rt->hostname), "testhost");
    snprintf(rt->nspace, sizeof(rt->nspace), "test/shm_iface@%d", (int)getppid());
    tp_shm_config_t *cfg = core_config_add(&rt->cfg, &tp_shm_config_group);
    if (!cfg)
        abort();
    cfg->shm_eager_limit = 8192;
    cfg->shm_ring_size = ring_size;
    cfg->shm_cma = cma;
    tp_am_table[AM_DATA].cb = on_data;
    tp_am_table[AM_REPLY].cb = on_reply;
    tp_am_table[AM_RKEY].cb = on_rkey;

    CHECK(tp_shm_component.open(rt, &t.iface) == 0, "open");
    t.iface->am = tp_am_table;  /* what the transports layer sets at open */
    barrier(); /* the fence */
    CHECK(tp_shm_component.ready(t.iface) == 0, "ready");
    tp_shm_iface_t *s = tp_shm_iface(t.iface);
    barrier();
    CHECK(!seg_exists(s->seg.name), "%s still in /dev/shm after everyone attached", s->seg.name);
    CHECK(strcmp(t.iface->name, "shm") == 0 && t.iface->rt == rt, "iface name/rt");
    CHECK(!tp_shm_component.reachable(t.iface, rt->rank), "self reachable");
    CHECK(!tp_shm_component.reachable(t.iface, 1), "off-node rank reachable");
    size_t want_ring = ring_size ? ring_size : 1u << 20;
    CHECK(s->ring_size == want_ring, "ring size %zu, want %zu", s->ring_size, want_ring);
    const tp_caps_t *caps = &t.iface->caps;
    CHECK(caps->max_am == want_ring / 4 - 8 - TP_SHM_MAX_AM_HDR, "max_am %zu", caps->max_am);
    CHECK(caps->eager_limit == (8192 < caps->max_am ? 8192 : caps->max_am), "eager_limit");
    tp_shm_config_t auto_cfg = *cfg;
    auto_cfg.shm_eager_limit = 0; /* auto: smaller when single copy takes over */
    /* single copy: a 32nd of a ring of 256 KiB or more (few local ranks), else 4 KiB */
    CHECK(tp_shm_eager_limit(&auto_cfg, 1, 1u << 20, 1u << 20) == 32768 &&
              tp_shm_eager_limit(&auto_cfg, 1, 256u << 10, 1u << 20) == 8192 &&
              tp_shm_eager_limit(&auto_cfg, 1, 128u << 10, 1u << 20) == 4096 &&
              tp_shm_eager_limit(&auto_cfg, 1, 1u << 20, 16384) == 16384 &&
              tp_shm_eager_limit(&auto_cfg, 0, 1u << 20, 1u << 20) == 16384 &&
              tp_shm_eager_limit(&auto_cfg, 0, 1u << 20, 4096) == 4096 &&
              tp_shm_eager_limit(cfg, 0, 1u << 20, 1u << 20) == 8192,
          "auto eager limit");
    /* a drained ring: an 8th of a big ring, with single copy and the automatic limit only */
    CHECK(tp_shm_eager_idle_limit(&auto_cfg, 1, 1u << 20, 1u << 20) == 131072 &&
              tp_shm_eager_idle_limit(&auto_cfg, 1, 256u << 10, 1u << 20) == 32768 &&
              tp_shm_eager_idle_limit(&auto_cfg, 1, 128u << 10, 1u << 20) == 0 &&
              tp_shm_eager_idle_limit(&auto_cfg, 1, 1u << 20, 65536) == 65536 &&
              tp_shm_eager_idle_limit(&auto_cfg, 0, 1u << 20, 1u << 20) == 0 &&
              tp_shm_eager_idle_limit(cfg, 1, 1u << 20, 1u << 20) == 0,
          "eager limit of a drained ring");
    CHECK(caps->eager_idle_limit == 0, "eager_idle_limit %zu with RDMPI_SHM_EAGER_LIMIT set",
          caps->eager_idle_limit);
    CHECK(!!(caps->flags & TP_CAP_GET) == !!(caps->flags & TP_CAP_PUT), "GET without PUT");
    CHECK(cma || !(caps->flags & TP_CAP_GET), "CMA on with RDMPI_SHM_CMA=0");
    if (cma && !(caps->flags & TP_CAP_GET))
        sh->cma_denied = 1; /* not permitted here (Yama, seccomp): skip that part */
    static uint8_t big[1 << 20];
    /* Only the rings of peers that wrote to us are read (their senders bits), none yet. */
    CHECK(s->nin == 0, "%d incoming rings before anyone sent", s->nin);
    tp_ep_t *ep = ep_to(local_ranks[(local_rank + 1) % NLOCAL]);
    CHECK(tp_am_send(ep, AM_DATA, NULL, 0, big, caps->max_am + 1) == CORE_EINVAL, "oversize send");
    CHECK(tp_am_send(ep, TP_AM_MAX, NULL, 0, NULL, 0) == CORE_EINVAL, "bad id accepted");

    exchange();
    barrier();
    CHECK(s->nin == NLOCAL - 1, "%d incoming rings after everyone sent to us", s->nin);
    if (cma && !sh->cma_denied)
        cma_test();
    barrier();
    t.iface->ops->close(t.iface);
    _exit(0);
}

static int run_job(int cma, size_t ring_size)
{
    memset(sh, 0, sizeof(*sh));
    pthread_barrierattr_t ba;
    pthread_barrierattr_init(&ba);
    pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&sh->barrier, &ba, NLOCAL);
    pid_t pids[NLOCAL];
    fflush(stdout);
    for (int i = 0; i < NLOCAL; i++) {
        pids[i] = fork();
        if (pids[i] == 0)
            rank_main(i, cma, ring_size);
    }
    int bad = 0;
    for (int i = 0; i < NLOCAL; i++) {
        int st;
        waitpid(pids[i], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            bad++;
    }
    pthread_barrier_destroy(&sh->barrier);
    return bad;
}

int main(void)
{
    alarm(120);
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        printf("FAIL: unit/shm_iface mmap: %s\n", strerror(errno));
        return 1;
    }
    if (run_job(1, 0) != 0) {
        printf("FAIL: unit/shm_iface (default rings, CMA on): a rank failed\n");
        return 1;
    }
    int cma_denied = sh->cma_denied;
    if (run_job(0, 8192) != 0) {
        printf("FAIL: unit/shm_iface (8 KiB rings, CMA off): a rank failed\n");
        return 1;
    }
    printf("PASS: unit/shm_iface (%d ranks, %d messages per pair, %s)\n", NLOCAL, NMSG,
           cma_denied ? "CMA not permitted here: get/put skipped" : "CMA get/put 64 MiB");
    return 0;
}
