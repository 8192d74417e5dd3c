/*
 * The whole verbs transport between forked processes on one RDMA device,
 * with a stand-in bootstrap (a key-value table and a barrier in a shared
 * mapping) in place of PMIx. Skipped when the machine has no RDMA device
 * (test/rxe runs it inside a Soft-RoCE guest).
 *
 * Three ranks, in several jobs (ud, rc, hybrid, hybrid with one RC peer at
 * most, and with 10% of the UD packets dropped and tiny packets): every
 * rank streams messages of mixed sizes to the others, handlers reply from
 * inside progress (re-entrant am_send), order and content are checked per
 * source (a third of them go to a handler that takes pieces: over UD the
 * large ones arrive packet by packet); then every rank reads (get) and writes (put) the others' buffers,
 * by RDMA where there is an RC connection and by copies through active
 * messages otherwise, and reads a buffer that cannot be registered (read
 * only), which must be copied; flush drains; close says goodbye.
 * Two more jobs break an RC connection on purpose (a read with a wrong
 * remote key; messages to a rank that died) and check that the fatal error
 * names the peer rank, its host, the QP and the completion status in words.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "core/bootstrap.h"
#include "core/log.h"
#include "core/progress.h"
#include "transports/verbs/verbs.h"

/* The transport layer (tp.c) is not linked: its locked send under MULTIPLE is the plain one
 * here (each rank of this test is one thread). */
int tp_am_send_shared(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len)
{
    return tp_am_send_locked(ep, id, hdr, hdr_len, payload, len);
}

extern const tp_component_t tp_verbs_component;

#define WORLD 3
static uint32_t NMSG = 1500; /* per ordered pair; VERBS_IFACE_NMSG overrides */
#define BIG ((1u << 20) + 13)

/* ---- stand-ins for the rest of the library ---- */

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
/* Only processes of other jobs are ever lost, and every rank here is of one job. */
void tp_peer_lost(tp_iface_t *iface, int peer)
{
    fprintf(stderr, "FAIL: rank %d reported lost over %s\n", peer, iface->name);
    abort();
}

core_runtime_t *core_rt;

void core_log_emit(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "test_verbs_iface[%d] %s: ", (int)getpid(), level == 0 ? "error" : "log");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* Set by the error jobs: a fatal error is expected, and its message must
 * contain every one of these words (a NULL ends the list). */
static const char *fatal_want[6];
static void fatal_expected(const char *msg);

void core_fatal(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (fatal_want[0])
        fatal_expected(msg); /* does not return */
    fprintf(stdout, "FAIL: unit/verbs_iface[%d] fatal: %s\n", (int)getpid(), msg);
    fflush(stdout);
    _exit(1);
}

double core_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *core_rank_host(core_runtime_t *rt, int rank)
{
    (void)rt;
    (void)rank;
    return "localhost";
}

typedef struct kv {
    char key[32];
    size_t len;
    char val[128];
} kv_t;

typedef struct shared {
    pthread_barrier_t barrier;
    int arrived;   /* progress_barrier */
    int fatal_seen; /* error jobs: the expected fatal error happened */
    kv_t kv[WORLD][2];
} shared_t;

static shared_t *sh;

int core_boot_put(core_runtime_t *rt, const char *key, const void *val, size_t len, int local_only)
{
    (void)local_only;
    kv_t *e = &sh->kv[rt->rank][0];
    if (len > sizeof(e->val))
        return CORE_ENOMEM;
    snprintf(e->key, sizeof(e->key), "%s", key);
    memcpy(e->val, val, len);
    e->len = len;
    return 0;
}

int core_boot_get(core_runtime_t *rt, int rank, const char *key, void **val, size_t *len)
{
    (void)rt;
    kv_t *e = &sh->kv[rank][0];
    if (strcmp(e->key, key) != 0)
        return CORE_ENOTFOUND;
    *val = malloc(e->len);
    memcpy(*val, e->val, e->len);
    *len = e->len;
    return 0;
}

int core_boot_get_now(core_runtime_t *rt, int rank, const char *key, void **val, size_t *len)
{
    return core_boot_get(rt, rank, key, val, len); /* one job: everything is there */
}

/* ---- the test ---- */

/* AM_PIECES: the stream's messages too (every third), to a handler that also takes pieces. */
enum { AM_DATA = 3, AM_REPLY = 4, AM_KEYS = 5, AM_PUTDONE = 6, AM_PIECES = 7 };

typedef struct msg_hdr {
    uint32_t seq, from;
} msg_hdr_t;

typedef struct keys_hdr {
    uint64_t src, dst, ro;
    uint8_t src_key[32], dst_key[32], ro_key[32];
} keys_hdr_t;

static struct {
    core_runtime_t rt;
    tp_iface_t *iface;
    const char *job;
    uint32_t next_seq[WORLD];
    int replies, putdone;
    int keys_seen;
    keys_hdr_t keys[WORLD];
    int comps;
    struct {
        uint32_t seq;
        size_t got;
        int open;
    } piecing[WORLD];  /* the message from each source arriving in pieces */
    int pieced;        /* messages that came in pieces */
} t;

#define CHECK(cond, ...)                                                                \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stdout, "FAIL: unit/verbs_iface/%s rank %d: ", t.job, t.rt.rank);   \
            fprintf(stdout, __VA_ARGS__);                                               \
            fprintf(stdout, " (%s:%d)\n", __FILE__, __LINE__);                          \
            fflush(stdout);                                                             \
            _exit(1);                                                                   \
        }                                                                               \
    } while (0)

static size_t msg_len(uint32_t seq, int from, size_t max)
{
    uint32_t r = (seq * 2654435761u) ^ ((uint32_t)from * 40503u);
    size_t len = r % 100 < 85 ? r % 64 : r % 100 < 97 ? r % 3000 : max;
    return len > max ? max : len;
}

static uint8_t msg_byte(uint32_t seq, int from, size_t i)
{
    return (uint8_t)(seq * 7 + (uint32_t)from * 13 + i);
}

static uint8_t big_byte(int owner, size_t i)
{
    return (uint8_t)((i * 31) ^ (i >> 9) ^ (uint32_t)owner * 101u);
}

static tp_ep_t *ep_to(int world)
{
    tp_ep_t *ep;
    CHECK(tp_verbs_component.reachable(t.iface, world), "rank %d not reachable", world);
    CHECK(t.iface->ops->ep_create(t.iface, world, &ep) == 0, "ep_create(%d)", world);
    return ep;
}

/* Three ranks may share fewer cores (and the kernel's rxe work): yield
 * when idle, as the library's wait loop does when oversubscribed. */
static void progress(void)
{
    if (tp_progress(t.iface) == 0)
        sched_yield();
}

/* A barrier that keeps progress going: a peer may need our acks to finish
 * its flush. */
static void progress_barrier(void)
{
    __atomic_add_fetch(&sh->arrived, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&sh->arrived, __ATOMIC_SEQ_CST) < WORLD)
        progress();
}

static void send_ctl(int to, unsigned id, const void *hdr, size_t len)
{
    int rc;
    while ((rc = tp_am_send(ep_to(to), id, hdr, len, NULL, 0)) == CORE_EBUSY)
        progress();
    CHECK(rc == 0, "control am_send to %d: %d", to, rc);
}

static int on_data(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                    size_t len)
{
    msg_hdr_t h;
    CHECK(hdr_len == sizeof(h), "data header length %zu", hdr_len);
    memcpy(&h, hdr, sizeof(h));
    CHECK((int)h.from == src, "src %d but header says %u", src, h.from);
    CHECK(h.seq == t.next_seq[src], "from %d: seq %u, want %u (lost or reordered)", src, h.seq,
          t.next_seq[src]);
    t.next_seq[src]++;
    CHECK(len == msg_len(h.seq, src, t.iface->caps.max_am), "from %d seq %u: length %zu", src,
          h.seq, len);
    const uint8_t *p = payload;
    for (size_t i = 0; i < len; i++)
        CHECK(p[i] == msg_byte(h.seq, src, i), "from %d seq %u: byte %zu differs", src, h.seq, i);
    if (h.seq % 50 == 0) {
        /* From inside a handler: it may say busy, then this reply is skipped. */
        int rc = tp_am_send(ep_to(src), AM_REPLY, &h, sizeof(h), NULL, 0);
        CHECK(rc == 0 || rc == CORE_EBUSY, "reply from a handler: %d", rc);
    }
    return 0;
}

/* A message of the stream in pieces: in order, each piece right after the one before, the
 * header the same every time, the bytes right, the pieces adding up to the length. */
static int on_piece(void *arg, int src, const void *hdr, size_t hdr_len, size_t off,
                     const void *data, size_t n, size_t len)
{
    msg_hdr_t h;
    CHECK(hdr_len == sizeof(h), "piece: header length %zu", hdr_len);
    memcpy(&h, hdr, sizeof(h));
    CHECK((int)h.from == src, "piece: src %d but header says %u", src, h.from);
    if (!t.piecing[src].open) {
        CHECK(off == 0, "from %d seq %u: first piece at offset %zu", src, h.seq, off);
        CHECK(h.seq == t.next_seq[src], "from %d: seq %u in pieces, want %u", src, h.seq,
              t.next_seq[src]);
        CHECK(len == msg_len(h.seq, src, t.iface->caps.max_am), "from %d seq %u: length %zu",
              src, h.seq, len);
        t.piecing[src].open = 1;
        t.piecing[src].seq = h.seq;
        t.piecing[src].got = 0;
    }
    CHECK(h.seq == t.piecing[src].seq, "from %d: a piece of seq %u inside seq %u", src, h.seq,
          t.piecing[src].seq);
    CHECK(off == t.piecing[src].got && off + n <= len, "from %d seq %u: piece [%zu, +%zu) after "
          "%zu of %zu bytes", src, h.seq, off, n, t.piecing[src].got, len);
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++)
        CHECK(p[i] == msg_byte(h.seq, src, off + i), "from %d seq %u: byte %zu differs", src,
              h.seq, off + i);
    t.piecing[src].got += n;
    if (t.piecing[src].got == len) {
        t.piecing[src].open = 0;
        t.next_seq[src]++;
        t.pieced++;
    }
    return 0;
}

static int on_reply(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                     size_t len)
{
    CHECK(hdr_len == sizeof(msg_hdr_t) && len == 0, "bad reply");
    t.replies++;
    return 0;
}

static int on_keys(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                    size_t len)
{
    CHECK(hdr_len == sizeof(keys_hdr_t), "keys header length %zu", hdr_len);
    memcpy(&t.keys[src], hdr, sizeof(keys_hdr_t));
    t.keys_seen++;
    return 0;
}

static int on_putdone(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                       size_t len)
{
    t.putdone++;
    return 0;
}

typedef struct my_comp {
    tp_comp_t base;
    int fired;
} my_comp_t;

static void comp_done(tp_comp_t *c, int status)
{
    my_comp_t *m = (my_comp_t *)c;
    CHECK(status == 0, "a get/put completed with status %d", status);
    CHECK(!m->fired, "a completion fired twice");
    m->fired = 1;
    t.comps++;
}

static void stream(void)
{
    uint32_t sent[WORLD] = { 0 };
    int all;
    size_t max = t.iface->caps.max_am;
    uint8_t *buf = malloc(max);
    CHECK(buf, "out of memory");
    do {
        all = 1;
        for (int d = 0; d < WORLD; d++) {
            if (d == t.rt.rank || sent[d] == NMSG)
                continue;
            all = 0;
            msg_hdr_t h = { sent[d], (uint32_t)t.rt.rank };
            size_t len = msg_len(h.seq, t.rt.rank, max);
            for (size_t i = 0; i < len; i++)
                buf[i] = msg_byte(h.seq, t.rt.rank, i);
            int rc = tp_am_send(ep_to(d), h.seq % 3 == 1 ? AM_PIECES : AM_DATA, &h, sizeof(h),
                                buf, len);
            CHECK(rc == 0 || rc == CORE_EBUSY, "am_send: %d", rc);
            if (rc == 0)
                sent[d]++;
        }
        progress();
    } while (!all);
    for (int d = 0; d < WORLD; d++)
        while (d != t.rt.rank && t.next_seq[d] < NMSG)
            progress();
    free(buf);
}

/* ---- device atomics (TP_CAP_ATOMIC: rc and hybrid on rxe) ---- */

#define ATOMS 10 /* fetch-and-adds of 1 each rank does on each other rank's word */

typedef struct at_comp {
    tp_comp_t base;
    int fired, status;
} at_comp_t;

static void at_done(tp_comp_t *c, int status)
{
    at_comp_t *a = (at_comp_t *)c;
    CHECK(!a->fired, "an atomic's completion fired twice");
    a->fired = 1;
    a->status = status;
}

static int atomic_wait(tp_ep_t *ep, int op, uint64_t operand, uint64_t compare, uint64_t *res,
                       tp_memh_t *m, uint64_t raddr, const void *key)
{
    at_comp_t c = { { at_done }, 0, 0 };
    int rc;
    while ((rc = tp_atomic(ep, op, operand, compare, res, m, raddr, key, &c.base)) == CORE_EBUSY)
        progress();
    if (rc == CORE_INPROGRESS) {
        while (!c.fired)
            progress();
        rc = c.status;
    }
    return rc;
}

/* The word each rank offers for atomics: 8-byte aligned, in its own part of dst, which no
 * put writes. */
static uint64_t atomic_word(uint64_t dst, int rank)
{
    return (dst + (uint64_t)rank * BIG + 7) & ~(uint64_t)7;
}

/* ATOMS fetch-and-adds on d's word, each fetching more than the last (others add in between),
 * then a compare-and-swap that cannot match: it changes nothing and fetches the word. With
 * RDMPI_VERBS_MAX_RC=1 a peer may have no RC connection: atomics are then refused. */
static void atomics(tp_ep_t *ep, int d, tp_memh_t *mlocal, uint8_t *local)
{
    uint64_t raddr = atomic_word(t.keys[d].dst, d), *res = (uint64_t *)(void *)local, prev = 0;
    int refused_ok = strstr(t.job, "MAX_RC=1") != NULL, rc;
    for (int i = 0; i < ATOMS; i++) {
        rc = atomic_wait(ep, TP_ATOMIC_FADD, 1, 0, res, mlocal, raddr, t.keys[d].dst_key);
        if (rc == CORE_EUNSUPPORTED && refused_ok)
            return;
        CHECK(rc == 0, "fetch-and-add at %d: %d", d, rc);
        CHECK(*res < (WORLD - 1) * ATOMS && (i == 0 || *res > prev),
              "fetch-and-add %d at %d fetched %llu after %llu", i, d, (unsigned long long)*res,
              (unsigned long long)prev);
        prev = *res;
    }
    rc = atomic_wait(ep, TP_ATOMIC_CSWAP, 77, UINT64_MAX, res, mlocal, raddr, t.keys[d].dst_key);
    CHECK(rc == 0 && *res > prev && *res <= (WORLD - 1) * ATOMS,
          "compare-and-swap at %d: %d, fetched %llu after %llu", d, rc,
          (unsigned long long)*res, (unsigned long long)prev);
}

/* A put of caps.put_inline bytes without a registration (lmemh NULL: inline) into d's own
 * slot of its dst, past its atomic word, at a place of this rank's, read back by a get; one
 * byte more without a registration is refused. */
static void put_inline(tp_ep_t *ep, int d, tp_memh_t *mlocal, uint8_t *local)
{
    size_t n = t.iface->caps.put_inline;
    uint64_t raddr = t.keys[d].dst + (uint64_t)d * BIG + 64 + (uint64_t)t.rt.rank * (n + 1);
    uint8_t *inl = malloc(n + 1);
    CHECK(inl && 64 + WORLD * (n + 1) <= BIG, "put_inline %zu: out of memory or too large", n);
    for (size_t i = 0; i <= n; i++)
        inl[i] = (uint8_t)(0x5a ^ i ^ (size_t)t.rt.rank);
    my_comp_t p = { { comp_done }, 0 }, g = { { comp_done }, 0 };
    int want = t.comps;
    int rc = tp_put(ep, inl, n, NULL, raddr, t.keys[d].dst_key, &p.base);
    CHECK(rc == 0 || rc == CORE_INPROGRESS, "inline put of %zu bytes without registration: %d",
          n, rc);
    want += rc == CORE_INPROGRESS;
    while (t.comps < want)
        progress();
    CHECK(tp_put(ep, inl, n + 1, NULL, raddr, t.keys[d].dst_key, &p.base) == CORE_EINVAL,
          "a put of %zu bytes without registration was not refused", n + 1);
    memset(local, 0, n);
    rc = tp_get(ep, local, n, mlocal, raddr, t.keys[d].dst_key, &g.base);
    CHECK(rc == 0 || rc == CORE_INPROGRESS, "get after the inline put: %d", rc);
    want = t.comps + (rc == CORE_INPROGRESS);
    while (t.comps < want)
        progress();
    for (size_t i = 0; i < n; i++)
        CHECK(local[i] == inl[i], "inline put to %d: byte %zu differs", d, i);
    free(inl);
}

static void rdma(void)
{
    tp_iface_t *f = t.iface;
    uint8_t *src = malloc(BIG), *dst = calloc(1, (size_t)WORLD * BIG), *local = malloc(BIG);
    size_t ro_len = 3 * 4096 + 100;
    uint8_t *ro = mmap(NULL, ro_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(src && dst && local && ro != MAP_FAILED, "out of memory");
    for (size_t i = 0; i < BIG; i++)
        src[i] = big_byte(t.rt.rank, i);
    for (size_t i = 0; i < ro_len; i++)
        ro[i] = big_byte(t.rt.rank + 50, i);
    mprotect(ro, ro_len, PROT_READ); /* registration for remote writes must fail */
    tp_memh_t *msrc, *mdst, *mro, *mlocal;
    CHECK(f->ops->mem_reg(f, src, BIG, &msrc) == 0, "mem_reg src");
    CHECK(f->ops->mem_reg(f, dst, (size_t)WORLD * BIG, &mdst) == 0, "mem_reg dst");
    CHECK(f->ops->mem_reg(f, ro, ro_len, &mro) == 0, "mem_reg of read-only memory must succeed");
    CHECK(f->ops->mem_reg(f, local, BIG, &mlocal) == 0, "mem_reg local");
    keys_hdr_t k;
    memset(&k, 0, sizeof(k));
    k.src = (uintptr_t)src;
    k.dst = (uintptr_t)dst;
    k.ro = (uintptr_t)ro;
    CHECK(f->ops->rkey_pack(f, msrc, k.src_key) <= f->caps.max_rkey, "rkey too long");
    f->ops->rkey_pack(f, mdst, k.dst_key);
    f->ops->rkey_pack(f, mro, k.ro_key);
    for (int d = 0; d < WORLD; d++)
        if (d != t.rt.rank)
            send_ctl(d, AM_KEYS, &k, sizeof(k));
    while (t.keys_seen < WORLD - 1)
        progress();

    for (int d = 0; d < WORLD; d++) {
        if (d == t.rt.rank)
            continue;
        my_comp_t g = { { comp_done }, 0 }, p = { { comp_done }, 0 }, r = { { comp_done }, 0 };
        int want = t.comps;
        memset(local, 0, BIG);
        tp_ep_t *ep = ep_to(d);
        int rc = tp_get(ep, local, BIG, mlocal, t.keys[d].src, t.keys[d].src_key, &g.base);
        CHECK(rc == 0 || rc == CORE_INPROGRESS, "get: %d", rc);
        want += rc == CORE_INPROGRESS;
        rc = tp_put(ep, src, BIG, msrc, t.keys[d].dst + (uint64_t)t.rt.rank * BIG,
                    t.keys[d].dst_key, &p.base);
        CHECK(rc == 0 || rc == CORE_INPROGRESS, "put: %d", rc);
        want += rc == CORE_INPROGRESS;
        while (t.comps < want)
            progress();
        for (size_t i = 0; i < BIG; i++)
            CHECK(local[i] == big_byte(d, i), "get from %d: byte %zu differs", d, i);
        /* The read-only buffer has no hardware key: copied through messages. */
        memset(local, 0, ro_len);
        rc = tp_get(ep, local + 1, ro_len - 1, mlocal, t.keys[d].ro + 1, t.keys[d].ro_key, &r.base);
        CHECK(rc == 0 || rc == CORE_INPROGRESS, "get of read-only: %d", rc);
        want = t.comps + (rc == CORE_INPROGRESS);
        while (t.comps < want)
            progress();
        for (size_t i = 1; i < ro_len; i++)
            CHECK(local[i] == big_byte(d + 50, i), "copied get from %d: byte %zu differs", d, i);
        if (f->caps.flags & TP_CAP_ATOMIC)
            atomics(ep, d, mlocal, local);
        if (f->caps.put_inline > 0)
            put_inline(ep, d, mlocal, local);
        send_ctl(d, AM_PUTDONE, NULL, 0);
    }
    while (t.putdone < WORLD - 1)
        progress();
    /* every peer's atomics completed before it said PUTDONE */
    CHECK(!(f->caps.flags & TP_CAP_ATOMIC) || !strstr(t.job, "MODE=ud"),
          "device atomics offered in ud mode");
    CHECK((f->caps.flags & TP_CAP_ATOMIC) || strstr(t.job, "MODE=ud") ||
              vb_iface(f)->dev.attr.atomic_cap == IBV_ATOMIC_NONE,
          "the device has atomics, but the interface does not offer them");
    uint64_t word = *(volatile uint64_t *)(uintptr_t)atomic_word((uintptr_t)dst, t.rt.rank);
    CHECK(!(f->caps.flags & TP_CAP_ATOMIC) || strstr(t.job, "MAX_RC=1") ||
              word == (WORLD - 1) * ATOMS,
          "the atomic word ends at %llu, expected %d", (unsigned long long)word,
          (WORLD - 1) * ATOMS);
    for (int s = 0; s < WORLD; s++)
        for (size_t i = 0; s != t.rt.rank && i < BIG; i++)
            CHECK(dst[(size_t)s * BIG + i] == big_byte(s, i), "put from %d: byte %zu differs", s, i);
    f->ops->mem_dereg(f, msrc);
    f->ops->mem_dereg(f, mdst);
    f->ops->mem_dereg(f, mro);
    f->ops->mem_dereg(f, mlocal);
    free(src);
    free(dst);
    free(local);
    munmap(ro, ro_len);
}

/* ---- fatal errors: they must name the peer, its host, the QP and the cause ---- */

static void fatal_expected(const char *msg)
{
    for (int i = 0; fatal_want[i]; i++)
        if (!strstr(msg, fatal_want[i])) {
            fprintf(stdout, "FAIL: unit/verbs_iface/%s rank %d: the fatal error does not say "
                    "\"%s\": %s\n", t.job, t.rt.rank, fatal_want[i], msg);
            fflush(stdout);
            _exit(1);
        }
    printf("  rank %d, as expected: %s\n", t.rt.rank, msg);
    fflush(stdout);
    __atomic_store_n(&sh->fatal_seen, 1, __ATOMIC_SEQ_CST);
    _exit(0);
}

/* Rank 0 makes an error on its RC connection to rank 1: an RDMA read with a
 * wrong remote key (kind "rkey"), or messages to rank 1 after it died (kind
 * "dead": the transport retries, then gives up). Rank 0 must end with a
 * fatal error that names rank 1, its host, the QP and the status in words;
 * rank 1 may also end with one (its side of the connection broke) that
 * names rank 0. Nobody closes: the connection is broken. */
static void errors(const char *kind)
{
    static char peer_word[16];
    int dead = !strcmp(kind, "dead");
    size_t len = 1u << 20;
    uint8_t *buf = calloc(1, len);
    tp_memh_t *m;
    CHECK(buf, "out of memory");
    CHECK(t.iface->ops->mem_reg(t.iface, buf, len, &m) == 0 && m->mr, "mem_reg");
    /* Some messages both ways first: the RC connection comes up. */
    if (t.rt.rank <= 1) {
        int peer = 1 - t.rt.rank;
        keys_hdr_t k;
        memset(&k, 0, sizeof(k));
        k.src = (uintptr_t)buf;
        t.iface->ops->rkey_pack(t.iface, m, k.src_key);
        send_ctl(peer, AM_KEYS, &k, sizeof(k));
        while (t.keys_seen < 1)
            progress();
        /* Up, and what went on UD before acknowledged: messages now go on RC. */
        double t0 = core_wtime();
        while (((vb_peer_t *)ep_to(peer))->path != VB_PATH_RC) {
            progress();
            CHECK(core_wtime() - t0 < 60, "the RC connection to %d did not come up", peer);
        }
    }
    progress_barrier();
    if (t.rt.rank == 1) {
        if (dead) {
            printf("  rank 1 dies now\n");
            fflush(stdout);
            _exit(0);
        }
        snprintf(peer_word, sizeof(peer_word), "rank 0 ");
        fatal_want[0] = peer_word; /* if our side notices, it names the peer */
        fatal_want[1] = "QP ";
    }
    if (t.rt.rank == 0) {
        snprintf(peer_word, sizeof(peer_word), "rank 1 ");
        fatal_want[0] = peer_word;
        fatal_want[1] = "localhost";
        fatal_want[2] = "QP ";
        fatal_want[3] = ibv_wc_status_str(dead ? IBV_WC_RETRY_EXC_ERR : IBV_WC_REM_ACCESS_ERR);
        tp_ep_t *ep = ep_to(1);
        if (dead) {
            usleep(200000); /* rank 1's queue pair is gone */
            msg_hdr_t h = { 0, 0 };
            int rc;
            while ((rc = tp_am_send(ep, AM_REPLY, &h, sizeof(h), NULL, 0)) == CORE_EBUSY)
                progress();
            CHECK(rc == 0, "am_send to the dead rank: %d", rc);
        } else {
            vb_rkey_t bad;
            memcpy(&bad, t.keys[1].src_key, sizeof(bad));
            bad.rkey ^= 0x5a5a00u; /* a key rank 1 never handed out */
            my_comp_t g = { { comp_done }, 0 };
            int rc = tp_get(ep, buf, len, m, t.keys[1].src, &bad, &g.base);
            CHECK(rc == CORE_INPROGRESS, "get with a wrong key: %d", rc);
        }
        double t0 = core_wtime();
        while (core_wtime() - t0 < 60)
            progress();
        CHECK(0, "no fatal error within 60 s after %s", dead ? "rank 1 died" : "a read with a "
              "wrong remote key");
    }
    /* ranks 1 (rkey) and 2: wait until rank 0 has its error, then leave */
    double t0 = core_wtime();
    while (!__atomic_load_n(&sh->fatal_seen, __ATOMIC_SEQ_CST) && core_wtime() - t0 < 90)
        progress();
    _exit(0);
}

/* The registration cache, locally: a buffer inside a cached region shares
 * its registration (each mem_reg still has its own handle); munmap and
 * madvise(MADV_DONTNEED) kill the region at once, before anything is
 * mapped again at the address; a new registration there is a new region.
 * Without the cache every mem_reg has its own MR. */
static void rcache(void)
{
    vb_iface_t *s = vb_iface(t.iface);
    size_t len = 256u << 10;
    uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    tp_memh_t *a, *b;
    CHECK(p != MAP_FAILED, "mmap");
    memset(p, 1, len);
    CHECK(t.iface->ops->mem_reg(t.iface, p, len, &a) == 0 && a->mr, "mem_reg");
    CHECK(t.iface->ops->mem_reg(t.iface, p + 4096, 1000, &b) == 0 && b->mr, "mem_reg inside");
    CHECK(a->id != b->id, "two mem_reg calls share a handle id");
    if (!s->rcache) {
        CHECK(!a->region && !b->region && a->mr != b->mr, "no cache, yet registrations shared");
        t.iface->ops->mem_dereg(t.iface, a);
        t.iface->ops->mem_dereg(t.iface, b);
        munmap(p, len);
        return;
    }
    CHECK(a->region && a->region == b->region && a->mr == b->mr,
          "a buffer inside a cached region got a registration of its own");
    vb_region_t *r = a->region;
    t.iface->ops->mem_dereg(t.iface, a);
    t.iface->ops->mem_dereg(t.iface, b);
    CHECK(!r->dead, "an unused region died without a memory event");
    munmap(p, len);
    CHECK(r->dead, "munmap did not kill the cached region");
    uint8_t *q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                      -1, 0);
    CHECK(q == p, "mmap(MAP_FIXED)");
    CHECK(t.iface->ops->mem_reg(t.iface, q, len, &a) == 0 && a->region && !a->region->dead,
          "mem_reg after munmap + mmap");
    r = a->region;
    madvise(q, len, MADV_DONTNEED);
    CHECK(r->dead, "madvise(MADV_DONTNEED) did not kill the cached region");
    CHECK(t.iface->ops->mem_reg(t.iface, q, len, &b) == 0 && b->region != r && !b->region->dead,
          "a dead region was returned again");
    t.iface->ops->mem_dereg(t.iface, a);
    t.iface->ops->mem_dereg(t.iface, b);
    munmap(q, len);
    if (t.rt.rank == 0)
        printf("  registration cache: shared, killed by munmap and madvise, never reused\n");
    fflush(stdout);
}

static int child(int rank, const char *env)
{
    t.job = env;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", env);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (eq) {
            *eq = '\0';
            setenv(tok, eq + 1, 1);
        }
    }
    core_config_add(&t.rt.cfg, &core_settings_group);
    t.rt.rank = rank;
    t.rt.size = WORLD;
    snprintf(t.rt.nspace, sizeof(t.rt.nspace), "test-verbs");
    snprintf(t.rt.hostname, sizeof(t.rt.hostname), "localhost");
    core_rt = &t.rt;
    tp_am_table[AM_DATA] = (tp_am_entry_t){ on_data, NULL };
    tp_am_table[AM_REPLY] = (tp_am_entry_t){ on_reply, NULL };
    tp_am_table[AM_KEYS] = (tp_am_entry_t){ on_keys, NULL };
    tp_am_table[AM_PUTDONE] = (tp_am_entry_t){ on_putdone, NULL };
    tp_am_table[AM_PIECES] = (tp_am_entry_t){ on_data, NULL, on_piece };
    int rc = tp_verbs_component.open(&t.rt, &t.iface);
    if (rc == 0)
        t.iface->am = tp_am_table;  /* what the transports layer sets at open */
    pthread_barrier_wait(&sh->barrier);
    if (rc == CORE_EUNSUPPORTED)
        return 77;
    CHECK(rc == 0, "open: %d", rc);
    CHECK(tp_verbs_component.ready(t.iface) == 0, "ready");
    if (getenv("VERBS_IFACE_ERROR"))
        errors(getenv("VERBS_IFACE_ERROR"));
    stream();
    /* UD cuts the stream's largest messages into packets; RC sends every message whole. */
    if (strstr(env, "MODE=ud"))
        CHECK(t.pieced > 0, "no message of the stream came in pieces over UD");
    /* Over RC the small messages are RDMA-written into the receiver's ring, unless that is off;
     * with a ring of two small slots most are sent, and the receiver puts both kinds in order. */
    if (strstr(env, "MODE=rc") && !strstr(env, "FP_PEERS=0"))
        CHECK(vb_iface(t.iface)->stats.fp_sent > 0, "no message was RDMA-written into a ring");
    if (strstr(env, "FP_PEERS=0"))
        CHECK(vb_iface(t.iface)->stats.fp_sent == 0, "%llu messages RDMA-written with the fast "
              "path off", (unsigned long long)vb_iface(t.iface)->stats.fp_sent);
    rdma();
    rcache();
    CHECK(t.replies > 0, "no reply sent from inside a handler arrived");
    for (int d = 0; d < WORLD; d++) {
        if (d == t.rt.rank)
            continue;
        tp_ep_t *ep = ep_to(d);
        double t0 = core_wtime();
        while (t.iface->ops->flush(ep) == CORE_EBUSY) {
            progress();
            CHECK(core_wtime() - t0 < 60, "flush to %d never finished", d);
        }
    }
    progress_barrier();
    /* Everything is acknowledged: every UD send buffer must come back to its
     * pool, none left waiting for a completion that never comes (UD sends
     * are signaled once per posted list). The fault injector keeps one. */
    vb_iface_t *s = vb_iface(t.iface);
    unsigned want = s->ud_pool.n - (s->hold.t != NULL);
    double t1 = core_wtime();
    while (s->ud_pool.nfree != want) {
        progress();
        CHECK(core_wtime() - t1 < 10, "%u of %u UD send buffers still out after all was "
              "acknowledged", want - s->ud_pool.nfree, want);
    }
    t.iface->ops->close(t.iface);
    return 0;
}

/* Runs one job of WORLD forked ranks with env applied; 0 pass, 77 skip, 1 fail. */
static int job(const char *env)
{
    pthread_barrierattr_t a;
    memset(sh, 0, sizeof(*sh));
    pthread_barrierattr_init(&a);
    pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&sh->barrier, &a, WORLD);
    pid_t pid[WORLD];
    double t0 = core_wtime();
    fflush(stdout);
    for (int r = 0; r < WORLD; r++) {
        pid[r] = fork();
        if (pid[r] == 0) {
            alarm(600);
            _exit(child(r, env));
        }
    }
    int skip = 0, fail = 0;
    for (int r = 0; r < WORLD; r++) {
        int st;
        waitpid(pid[r], &st, 0);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
            skip++;
        else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fail++;
    }
    if (skip == WORLD) {
        printf("SKIP: unit/verbs_iface: no usable RDMA device here (the rxe suite runs it)\n");
        return 77;
    }
    if (fail || skip)
        printf("FAIL: unit/verbs_iface/%s (%d of %d ranks failed)\n", env, fail + skip, WORLD);
    else
        printf("PASS: unit/verbs_iface/%s (%.1f s)\n", env, core_wtime() - t0);
    return fail || skip;
}

/* With an argument, runs only the jobs whose settings contain it. */
int main(int argc, char **argv)
{
    static const char *const jobs[] = {
        "RDMPI_VERBS_MODE=ud",
        "RDMPI_VERBS_MODE=rc",
        "RDMPI_VERBS_MODE=rc RDMPI_VERBS_RCACHE=0",
        "RDMPI_VERBS_MODE=rc RDMPI_VERBS_FP_SLOTS=2 RDMPI_VERBS_FP_SIZE=128",
        "RDMPI_VERBS_MODE=rc RDMPI_VERBS_FP_PEERS=0",
        "RDMPI_VERBS_MODE=hybrid RDMPI_VERBS_RC_MSGS=40",
        "RDMPI_VERBS_MODE=hybrid RDMPI_VERBS_MAX_RC=1",
        "RDMPI_VERBS_MODE=ud RDMPI_VERBS_UD_DROP=0.1 RDMPI_VERBS_MTU=256",
        "RDMPI_VERBS_MODE=rc RDMPI_VERBS_UD_DROP=0.1",
        "RDMPI_VERBS_MODE=rc VERBS_IFACE_ERROR=rkey",
        "RDMPI_VERBS_MODE=rc VERBS_IFACE_ERROR=dead RDMPI_VERBS_RC_TIMEOUT=12 "
        "RDMPI_VERBS_PEER_TIMEOUT=90",
    };
    if (getenv("VERBS_IFACE_NMSG"))
        NMSG = (uint32_t)atoi(getenv("VERBS_IFACE_NMSG"));
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return 1;
    if (getenv("VERBS_IFACE_JOB")) /* one job with these settings, for debugging */
        return job(getenv("VERBS_IFACE_JOB")) == 1;
    int failed = 0;
    for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
        if (argc > 1 && !strstr(jobs[i], argv[1]))
            continue;
        int rc = job(jobs[i]);
        if (rc == 77)
            return 0;
        failed |= rc;
    }
    return failed;
}
