/*
 * Unit test of the shm ring (transports/shm/shm_ring.c).
 *
 * In one process: argument checks, exactly-full rings, EBUSY, pad records at
 * the wrap, and a random push/pop interleaving checked against a FIFO model.
 * Across two processes (fork, anonymous shared mapping): a producer pushes
 * millions of records of random sizes through a small and a larger ring and
 * the consumer checks order and every byte.
 *
 * `test_shm_ring --bench` instead measures the one-way latency of an 8-byte
 * ping-pong between two processes over two rings.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "transports/shm/shm_ring.h"

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: unit/shm_ring ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    exit(1);
}

#define CHECK(cond, ...)          \
    do {                          \
        if (!(cond))              \
            fail(__VA_ARGS__);    \
    } while (0)

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Record number `seq` of a stream is fully determined by (seed, seq). */
typedef struct spec {
    unsigned id;
    size_t hlen, plen;
    uint64_t r;
} spec_t;

static spec_t make_spec(uint64_t seed, uint64_t seq, size_t ring_size)
{
    spec_t s;
    s.r = mix(seed ^ mix(seq));
    s.id = s.r & 0xff;
    s.hlen = (s.r >> 8) % 65;
    size_t maxp = tp_shm_ring_max_payload(ring_size, s.hlen);
    unsigned kind = (s.r >> 16) % 100;
    size_t p;
    if (kind < 75)
        p = (s.r >> 24) % 65;
    else if (kind < 99)
        p = (s.r >> 24) % 1025;
    else if ((s.r >> 56) & 1)
        p = maxp;
    else
        p = (s.r >> 24) % (maxp + 1);
    s.plen = p > maxp ? maxp : p;
    return s;
}

/* Record contents are windows of one random pattern, so producing and
 * checking them run at memcpy/memcmp speed. */
#define PAT_WINDOWS (1u << 20)
static uint8_t pat[PAT_WINDOWS + (1u << 20)];

static void init_pattern(void)
{
    for (size_t i = 0; i < sizeof(pat); i += 8) {
        uint64_t v = mix(i);
        memcpy(pat + i, &v, 8);
    }
}

static void fill(uint8_t *buf, size_t n, uint64_t r)
{
    memcpy(buf, pat + r % PAT_WINDOWS, n);
}

static int check_bytes(const uint8_t *buf, size_t n, uint64_t r)
{
    return memcmp(buf, pat + r % PAT_WINDOWS, n) == 0;
}

static uint8_t hbuf[256], pbuf[1 << 20];

static void fill_spec(const spec_t *s)
{
    fill(hbuf, s->hlen, s->r);
    fill(pbuf, s->plen, s->r >> 7);
}

static int push_filled(tp_shm_prod_t *p, const spec_t *s)
{
    return tp_shm_ring_push(p, s->id, hbuf, s->hlen, pbuf, s->plen);
}

static void check_rec(const tp_shm_rec_t *rec, const spec_t *s, uint64_t seq)
{
    CHECK(rec->id == s->id && rec->hdr_len == s->hlen && rec->len == s->plen,
          "record %llu: got id %u hlen %zu len %zu, want %u %zu %zu", (unsigned long long)seq,
          rec->id, rec->hdr_len, rec->len, s->id, s->hlen, s->plen);
    CHECK(((uintptr_t)rec->payload & 7) == 0, "record %llu: payload not 8-byte aligned",
          (unsigned long long)seq);
    CHECK(check_bytes(rec->hdr, s->hlen, s->r), "record %llu: header bytes differ",
          (unsigned long long)seq);
    CHECK(check_bytes(rec->payload, s->plen, s->r >> 7), "record %llu: payload bytes differ",
          (unsigned long long)seq);
}

static void *map_shared(size_t len)
{
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED, "mmap %zu bytes failed", len);
    return m;
}

static void test_args(void)
{
    static uint64_t mem[(TP_SHM_RING_CTRL + 1024) / 8] __attribute__((aligned(64)));
    tp_shm_prod_t p;
    CHECK(tp_shm_ring_init(mem, 1000) == CORE_EINVAL, "init accepted a size that is not 2^n");
    CHECK(tp_shm_ring_init(mem, 128) == CORE_EINVAL, "init accepted a tiny ring");
    CHECK(tp_shm_ring_init(mem, 1024) == 0, "init failed");
    CHECK(tp_shm_prod_init(&p, mem, 1024) == 0, "prod_init failed");
    CHECK(tp_shm_ring_push(&p, 1, hbuf, 256, NULL, 0) == CORE_EINVAL, "hdr_len 256 accepted");
    CHECK(tp_shm_ring_push(&p, 256, NULL, 0, NULL, 0) == CORE_EINVAL, "id 256 accepted");
    size_t maxp = tp_shm_ring_max_payload(1024, 8);
    CHECK(tp_shm_ring_push(&p, 1, hbuf, 8, pbuf, maxp + 1) == CORE_EINVAL,
          "payload above max_payload accepted");
    CHECK(tp_shm_ring_push(&p, 1, hbuf, 8, pbuf, 1 << 30) == CORE_EINVAL, "huge payload accepted");
    CHECK(tp_shm_ring_push(&p, 1, hbuf, 8, pbuf, maxp) == 0, "max_payload record refused");
}

/* Fill a 1 KiB ring exactly (size - 8 bytes of records), see EBUSY, then make
 * the producer wrap behind a pad and check the consumer skips it. */
static void test_full_and_wrap(void)
{
    static uint64_t mem[(TP_SHM_RING_CTRL + 1024) / 8] __attribute__((aligned(64)));
    tp_shm_prod_t p;
    tp_shm_cons_t c;
    tp_shm_rec_t rec;
    tp_shm_ring_init(mem, 1024);
    tp_shm_prod_init(&p, mem, 1024);
    tp_shm_cons_init(&c, mem, 1024);
    CHECK(tp_shm_ring_record_len(0, 0) == 8 && tp_shm_ring_record_len(8, 48) == 64 &&
              tp_shm_ring_record_len(8, 49) == 72 && tp_shm_ring_record_len(1, 0) == 16,
          "record_len");
    CHECK(tp_shm_ring_peek(&c, &rec, NULL) == 0 && tp_shm_ring_empty(&c), "new ring not empty");
    CHECK(tp_shm_ring_drained(&p), "new ring not drained");

    /* 127 empty records of 8 bytes = 1016 = size - 8: exactly full. */
    for (int i = 0; i < 127; i++)
        CHECK(tp_shm_ring_push(&p, (unsigned)i, NULL, 0, NULL, 0) == 0, "push %d of 127", i);
    CHECK(tp_shm_ring_push(&p, 0, NULL, 0, NULL, 0) == CORE_EBUSY, "push into a full ring");
    CHECK(!tp_shm_ring_drained(&p), "full ring says drained");
    for (int i = 0; i < 127; i++) {
        CHECK(tp_shm_ring_peek(&c, &rec, NULL) == 1 && rec.id == (unsigned)i && rec.len == 0 &&
                  rec.hdr_len == 0, "pop %d of 127", i);
        tp_shm_ring_release(&c);
    }
    CHECK(tp_shm_ring_peek(&c, &rec, NULL) == 0, "drained ring not empty");
    CHECK(tp_shm_ring_drained(&p), "ring not drained after popping everything");

    /* Head is at 1016: a 24-byte record must wrap behind an 8-byte pad. */
    CHECK(tp_shm_ring_push(&p, 7, hbuf, 3, pbuf, 8) == 0, "wrapping push");
    CHECK(tp_shm_ring_peek(&c, &rec, NULL) == 1 && rec.id == 7 && rec.hdr_len == 3 && rec.len == 8,
          "record after pad");
    CHECK((uint8_t *)rec.hdr == c.data + 8, "wrapped record not at offset 0");
    tp_shm_ring_release(&c);
    CHECK(tp_shm_ring_drained(&p), "not drained after wrap");

    /* Head and tail are at offset 24. Records of 200 bytes (8 + 8-byte header
     * + 184) end exactly at the end of the data, then 16 more bytes at offset
     * 0 make 1016 queued bytes: full. */
    for (int i = 0; i < 5; i++)
        CHECK(tp_shm_ring_push(&p, 10 + i, hbuf, 8, pbuf, 184) == 0, "200-byte push %d", i);
    CHECK(tp_shm_ring_push(&p, 15, hbuf, 8, NULL, 0) == 0, "16-byte push at offset 0");
    CHECK(tp_shm_ring_push(&p, 0, NULL, 0, NULL, 0) == CORE_EBUSY, "push into a full ring (2)");
    /* Freeing one 200-byte record makes room for exactly one more. */
    CHECK(tp_shm_ring_peek(&c, &rec, NULL) == 1 && rec.id == 10 && rec.len == 184, "pop 200-byte record");
    tp_shm_ring_release(&c);
    CHECK(tp_shm_ring_push(&p, 16, hbuf, 8, pbuf, 185) == CORE_EBUSY, "208 bytes fit in 200");
    CHECK(tp_shm_ring_push(&p, 16, hbuf, 8, pbuf, 184) == 0, "200 bytes do not fit in 200");
    CHECK(tp_shm_ring_push(&p, 0, NULL, 0, NULL, 0) == CORE_EBUSY, "push into a full ring (3)");
    for (unsigned want = 11; want <= 16; want++) {
        CHECK(tp_shm_ring_peek(&c, &rec, NULL) == 1 && rec.id == want, "pop record %u", want);
        tp_shm_ring_release(&c);
    }
    CHECK(tp_shm_ring_peek(&c, &rec, NULL) == 0 && tp_shm_ring_drained(&p), "not empty at the end");
}

/* Random interleaving of pushes and pops against a model that tracks byte
 * positions: a push must succeed exactly when the record (behind a pad if it
 * would cross the end) plus 8 bytes of slack fits in the free space. */
/* keep: 0, or the producer's tp_shm_prod_keep, modelled too (records go back to offset 0
 * early when they can, the kept part doubles when they cannot, and nothing is written past
 * it); pct: percent of steps that push. */
static void test_model(size_t keep, unsigned pct)
{
    enum { SIZE = 4096, MAXQ = SIZE / 8 };
    static uint64_t mem[(TP_SHM_RING_CTRL + SIZE) / 8] __attribute__((aligned(64)));
    tp_shm_prod_t p;
    tp_shm_cons_t c;
    tp_shm_rec_t rec;
    memset(mem, 0, sizeof(mem));
    tp_shm_ring_init(mem, SIZE);
    tp_shm_prod_init(&p, mem, SIZE);
    tp_shm_cons_init(&c, mem, SIZE);
    uint64_t kept = UINT64_MAX, early = 0, grown = 0;
    size_t spec_size = keep ? 1024 : SIZE; /* records of up to half of that */
    if (keep) {
        tp_shm_prod_keep(&p, keep);
        kept = keep;
    }
    uint64_t pushed = 0, popped = 0, busy = 0, pads = 0, head = 0, tail = 0;
    uint64_t ends[MAXQ]; /* position after each queued record */
    for (uint64_t step = 0; step < 400000; step++) {
        uint64_t r = mix(step * 7 + 1 + keep);
        if (r % 100 < pct) {
            spec_t s = make_spec(42, pushed, spec_size);
            uint64_t rlen = tp_shm_ring_record_len(s.hlen, s.plen);
            uint64_t off = head % SIZE, to_end = SIZE - off;
            uint64_t pad = rlen > to_end ? to_end : 0;
            if (!pad && off + rlen + 8 > kept) {
                if (off != 0 && head + to_end + rlen + 8 - tail <= SIZE) {
                    pad = to_end;
                    early++;
                } else {
                    while (off + rlen + 8 > kept)
                        kept = kept >= SIZE / 2 ? UINT64_MAX : kept * 2;
                    grown++;
                }
            }
            int fits = head + pad + rlen + 8 - tail <= SIZE;
            fill_spec(&s);
            int rc = push_filled(&p, &s);
            CHECK(rc == (fits ? 0 : CORE_EBUSY), "push %llu returned %d, model says %s",
                  (unsigned long long)pushed, rc, fits ? "fits" : "busy");
            if (!fits) {
                busy++;
                continue;
            }
            uint64_t end = (pad ? 0 : off) + rlen + 8; /* the zeroed slot after the record */
            CHECK(kept == UINT64_MAX || end <= kept, "record %llu ends at %llu, past %llu kept",
                  (unsigned long long)pushed, (unsigned long long)end,
                  (unsigned long long)kept);
            pads += pad != 0;
            head += pad + rlen;
            ends[pushed % MAXQ] = head;
            pushed++;
        } else {
            int got = tp_shm_ring_peek(&c, &rec, NULL);
            CHECK(got == (popped < pushed), "peek says %d with %llu queued", got,
                  (unsigned long long)(pushed - popped));
            CHECK(tp_shm_ring_empty(&c) == (popped == pushed) || got,
                  "empty() disagrees with peek");
            if (!got)
                continue;
            spec_t s = make_spec(42, popped, spec_size);
            check_rec(&rec, &s, popped);
            tp_shm_ring_release(&c);
            tail = ends[popped % MAXQ];
            popped++;
            CHECK(tp_shm_ring_drained(&p) == (popped == pushed), "drained() disagrees");
        }
    }
    CHECK(popped > 100000 && pads > 1000 && (keep == 0 || grown > 0) &&
              (pct < 50 ? early > 1000 : busy > 1000),
          "model test too weak (busy %llu, pads %llu, early %llu, popped %llu)",
          (unsigned long long)busy, (unsigned long long)pads, (unsigned long long)early,
          (unsigned long long)popped);
    printf("PASS: unit/shm_ring model, keep %zu, %u%% pushes (busy %llu, pads %llu, early %llu, "
           "grown %llu)\n", keep, pct, (unsigned long long)busy, (unsigned long long)pads,
           (unsigned long long)early, (unsigned long long)grown);
}

/* Producer in a child, consumer here; returns the number of EBUSY pushes. */
static uint64_t stream(size_t size, uint64_t nrec, uint64_t seed)
{
    void *mem = map_shared(tp_shm_ring_footprint(size) + 64);
    volatile uint64_t *busy_out = (uint64_t *)((uint8_t *)mem + tp_shm_ring_footprint(size));
    tp_shm_ring_init(mem, size);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork failed");
    if (pid == 0) {
        tp_shm_prod_t p;
        uint64_t busy = 0;
        tp_shm_prod_init(&p, mem, size);
        for (uint64_t i = 0; i < nrec; i++) {
            spec_t s = make_spec(seed, i, size);
            int rc;
            fill_spec(&s);
            /* Yield now and then: on a loaded machine the consumer may be
             * waiting for this CPU. */
            while ((rc = push_filled(&p, &s)) == CORE_EBUSY)
                if (++busy % 64 == 0)
                    sched_yield();
            if (rc != 0)
                _exit(2);
        }
        while (!tp_shm_ring_drained(&p))
            sched_yield();
        *busy_out = busy;
        _exit(0);
    }
    tp_shm_cons_t c;
    tp_shm_rec_t rec;
    tp_shm_cons_init(&c, mem, size);
    for (uint64_t i = 0; i < nrec; i++) {
        for (unsigned spin = 1; !tp_shm_ring_peek(&c, &rec, NULL); spin++)
            if (spin % 64 == 0)
                sched_yield();
        spec_t s = make_spec(seed, i, size);
        check_rec(&rec, &s, i);
        tp_shm_ring_release(&c);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "producer exited badly (status %d)", st);
    CHECK(tp_shm_ring_peek(&c, &rec, NULL) == 0, "extra record after the stream");
    uint64_t busy = *busy_out;
    munmap(mem, tp_shm_ring_footprint(size) + 64);
    return busy;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set); /* best effort */
}

/* One round: `iters` ping-pongs of an 8-byte payload with an hlen-byte
 * header; returns the one-way latency in microseconds. */
static double pingpong(int iters, size_t hlen)
{
    const size_t size = 1 << 20;
    size_t fp = tp_shm_ring_footprint(size);
    uint8_t *mem = map_shared(2 * fp);
    tp_shm_ring_init(mem, size);
    tp_shm_ring_init(mem + fp, size);
    uint64_t msg = 0;
    uint8_t hdr[64] = {0};
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork failed");
    int child = pid == 0;
    pin(child ? 1 : 0);
    tp_shm_prod_t p;
    tp_shm_cons_t c;
    tp_shm_rec_t rec;
    tp_shm_prod_init(&p, mem + (child ? fp : 0), size);
    tp_shm_cons_init(&c, mem + (child ? 0 : fp), size);
    double t0 = 0;
    for (int i = -1000; i < iters; i++) {
        if (i == 0)
            t0 = now();
        if (!child) {
            msg = (uint64_t)i;
            while (tp_shm_ring_push(&p, 1, hdr, hlen, &msg, 8) != 0)
                ;
        }
        while (!tp_shm_ring_peek(&c, &rec, NULL))
            ;
        memcpy(&msg, rec.payload, 8);
        tp_shm_ring_release(&c);
        if (msg != (uint64_t)i)
            fail("bench: got message %llu, want %d", (unsigned long long)msg, i);
        if (child)
            while (tp_shm_ring_push(&p, 1, hdr, hlen, &msg, 8) != 0)
                ;
    }
    double t = now() - t0;
    if (child)
        _exit(0);
    waitpid(pid, NULL, 0);
    munmap(mem, 2 * fp);
    return t / iters / 2 * 1e6;
}

/* The floor: one atomic word bounced between the two processes. */
static double flag_pingpong(int iters)
{
    _Atomic uint64_t *w = map_shared(4096);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork failed");
    int child = pid == 0;
    pin(child ? 1 : 0);
    double t0 = now();
    for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
        if (!child) {
            atomic_store_explicit(&w[0], i, memory_order_release);
            while (atomic_load_explicit(&w[8], memory_order_acquire) != i)
                ;
        } else {
            while (atomic_load_explicit(&w[0], memory_order_acquire) != i)
                ;
            atomic_store_explicit(&w[8], i, memory_order_release);
        }
    }
    double t = now() - t0;
    if (child)
        _exit(0);
    waitpid(pid, NULL, 0);
    munmap((void *)w, 4096);
    return t / iters / 2 * 1e6;
}

static int bench(void)
{
    printf("bench: bare cache-line ping-pong (the machine's floor): one-way %.3f us\n",
           flag_pingpong(200000));
    const size_t hlens[] = {0, 32};
    for (unsigned k = 0; k < 2; k++) {
        double best = 1e9, sum = 0;
        const int runs = 5, iters = 200000;
        for (int r = 0; r < runs; r++) {
            double us = pingpong(iters, hlens[k]);
            sum += us;
            best = us < best ? us : best;
        }
        printf("bench: shm ring ping-pong, 8-byte payload + %zu-byte header: one-way %.3f us "
               "(best of %d x %d round trips; mean %.3f us)\n",
               hlens[k], best, runs, iters, sum / runs);
    }
    return 0;
}

/* A producer that scribbles: header words no producer following shm_ring.c could write
 * are refused by peek (CORE_EPROTO) and never make the consumer read outside the ring;
 * every word tp_shm_rec_decode accepts describes bytes within the ring. */
static void test_malformed(void)
{
    enum { SIZE = 1024 };
    static _Alignas(64) uint8_t mem[TP_SHM_RING_CTRL + SIZE];
    tp_shm_cons_t c;
    tp_shm_prod_t p;
    tp_shm_rec_t rec;
    uint64_t bad = 0;
    const uint64_t DATA = (uint64_t)1 << 48, PAD = (uint64_t)2 << 48;
    struct {
        uint64_t off, word;
        const char *what;
    } cases[] = {
        { 0, 3ull << 48, "unknown record type" },
        { 0, DATA | 1ull << 56, "a non-zero top byte" },
        { 0, DATA | 600, "a record larger than half the ring" },
        { 0, DATA | 0xffffffffull, "a 4 GiB record" },
        { 1000, DATA | 32, "a record straddling the end" },
        { 0, PAD | SIZE, "a pad at offset 0" },
        { 512, PAD | 8, "a pad shorter than the tail" },
        { 512, PAD | 1024, "a pad past the end" },
        { 512, PAD | 512 | 5ull << 32, "a pad with an id" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memset(mem, 0, sizeof(mem));
        tp_shm_ring_init(mem, SIZE);
        tp_shm_cons_init(&c, mem, SIZE);
        c.tail = cases[i].off;
        memcpy(mem + TP_SHM_RING_CTRL + cases[i].off, &cases[i].word, 8);
        CHECK(tp_shm_ring_peek(&c, &rec, &bad) == CORE_EPROTO && bad == cases[i].word,
              "peek accepted %s", cases[i].what);
    }
    /* A good pad followed by a bad record at offset 0. */
    memset(mem, 0, sizeof(mem));
    tp_shm_ring_init(mem, SIZE);
    tp_shm_cons_init(&c, mem, SIZE);
    c.tail = 1000;
    uint64_t w = PAD | 24;
    memcpy(mem + TP_SHM_RING_CTRL + 1000, &w, 8);
    w = PAD | SIZE;
    memcpy(mem + TP_SHM_RING_CTRL, &w, 8);
    CHECK(tp_shm_ring_peek(&c, &rec, &bad) == CORE_EPROTO, "a pad after a pad accepted");
    /* A real record still goes through. */
    memset(mem, 0, sizeof(mem));
    tp_shm_ring_init(mem, SIZE);
    tp_shm_prod_init(&p, mem, SIZE);
    tp_shm_cons_init(&c, mem, SIZE);
    CHECK(tp_shm_ring_push(&p, 3, "hdr", 3, "payload", 7) == 0, "push");
    CHECK(tp_shm_ring_peek(&c, &rec, &bad) == 1 && rec.len == 7 && rec.hdr_len == 3,
          "a good record refused");
    /* Random words at random offsets. */
    uint64_t x = 1;
    for (int i = 0; i < 1000000; i++) {
        x = mix(x);
        uint64_t word = x, off = (mix(x + 1) % SIZE) & ~7ull;
        if (i & 1)
            word &= 0x0003ffffffffffffull; /* a valid type more often */
        if (i & 2)
            word &= 0xffffffffffff0fffull;
        uint64_t rlen = 0;
        int k = tp_shm_rec_decode(word, off, SIZE, &rec, &rlen);
        if (k == 1)
            CHECK(rlen >= 8 && off + rlen <= SIZE && rlen <= SIZE / 2 &&
                      8 + ((rec.hdr_len + 7) & ~7ull) + rec.len <= rlen,
                  "word 0x%016llx at %llu: a record outside the ring", (unsigned long long)word,
                  (unsigned long long)off);
        else if (k == 2)
            CHECK(off > 0 && off + rlen == SIZE, "word 0x%016llx at %llu: a bad pad",
                  (unsigned long long)word, (unsigned long long)off);
        else
            CHECK(k == CORE_EPROTO, "decode returned %d", k);
    }
    printf("PASS: unit/shm_ring malformed records refused\n");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--bench") == 0)
        return bench();
    alarm(60); /* a hung producer/consumer must not hang make check */
    init_pattern();
    double t0 = now();
    test_args();
    test_full_and_wrap();
    test_model(0, 55);
    test_model(1000, 35); /* a consumer that keeps up: the kept part stays small */
    test_model(512, 55);  /* a backlog: it grows */
    test_malformed();
    uint64_t busy_small = stream(1024, 1000000, 1);
    uint64_t busy_big = stream(64 << 10, 2000000, 2);
    printf("PASS: unit/shm_ring (3M records across processes, EBUSY %llu+%llu times, %.1f s)\n",
           (unsigned long long)busy_small, (unsigned long long)busy_big, now() - t0);
    return 0;
}
