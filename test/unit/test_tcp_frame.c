/*
 * Unit test of the tcp transport's framing (transports/tcp/tcp_frame.c).
 *
 * A stream of frames of assorted sizes (empty, odd, 8-aligned, larger than
 * the bulk threshold) is built through the send queue, then fed to the
 * reassembly buffer split at every possible point, in one-byte pieces, and in
 * random pieces; every frame must come out whole, in order, with its header
 * 8-byte aligned. Also: the send queue against a FIFO model under random
 * appends and partial consumes, and malformed headers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "transports/tcp/tcp_frame.h"
#include "transports/transport.h"

#define MAX_HDR 256
#define MAX_LEN (128u << 10)

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: unit/tcp_frame ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    exit(1);
}

#define CHECK(cond, ...)       \
    do {                       \
        if (!(cond))           \
            fail(__VA_ARGS__); \
    } while (0)

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct spec {
    unsigned id;
    size_t hdr_len, len;
    unsigned char seed;
} spec_t;

static unsigned char byte_of(const spec_t *s, size_t i, int in_hdr)
{
    return (unsigned char)(s->seed + i * 7 + (in_hdr ? 101 : 0));
}

/* Builds the stream of frames sp[0..n) by appending them to a send queue
 * (with random partial consumes, as a socket would take them). */
static unsigned char *build_stream(const spec_t *sp, int n, size_t *total)
{
    tp_tcp_txq_t q = { 0 };
    size_t cap = 0, out = 0;
    for (int i = 0; i < n; i++)
        cap += tp_tcp_frame_size(sp[i].hdr_len, sp[i].len);
    unsigned char *stream = malloc(cap);
    CHECK(stream, "out of memory");
    for (int i = 0; i < n; i++) {
        unsigned char *hdr = malloc(sp[i].hdr_len + 1), *pay = malloc(sp[i].len + 1);
        for (size_t k = 0; k < sp[i].hdr_len; k++)
            hdr[k] = byte_of(&sp[i], k, 1);
        for (size_t k = 0; k < sp[i].len; k++)
            pay[k] = byte_of(&sp[i], k, 0);
        struct iovec iov[TP_TCP_FRAME_IOV];
        tp_tcp_frame_hdr_t fh;
        int cnt = tp_tcp_frame_iov(iov, &fh, sp[i].id, hdr, sp[i].hdr_len, pay, sp[i].len);
        size_t fsize = 0;
        for (int k = 0; k < cnt; k++)
            fsize += iov[k].iov_len;
        CHECK(fsize == tp_tcp_frame_size(sp[i].hdr_len, sp[i].len), "frame %d: iov size %zu", i,
              fsize);
        /* A socket that took a prefix of the frame directly: queue the rest. */
        size_t skip = tp_tcp_txq_bytes(&q) == 0 ? next_rand() % (fsize + 1) : 0;
        if (skip) {
            size_t off = 0;
            for (int k = 0; k < cnt && off < skip; k++) {
                size_t take = iov[k].iov_len < skip - off ? iov[k].iov_len : skip - off;
                memcpy(stream + out, iov[k].iov_base, take);
                out += take;
                off += take;
            }
        }
        CHECK(tp_tcp_txq_append(&q, iov, cnt, skip) == 0, "append failed");
        free(hdr);
        free(pay);
        /* Drain a random part of the queue, through its iovecs. */
        size_t take = next_rand() % (tp_tcp_txq_bytes(&q) + 1);
        if (i == n - 1)
            take = tp_tcp_txq_bytes(&q);
        struct iovec qv[2];
        int qn = tp_tcp_txq_iov(&q, qv);
        size_t left = take;
        for (int k = 0; k < qn && left; k++) {
            size_t t = qv[k].iov_len < left ? qv[k].iov_len : left;
            memcpy(stream + out, qv[k].iov_base, t);
            out += t;
            left -= t;
        }
        tp_tcp_txq_consume(&q, take);
    }
    CHECK(tp_tcp_txq_bytes(&q) == 0 && out == cap, "stream built %zu of %zu bytes", out, cap);
    tp_tcp_txq_free(&q);
    *total = cap;
    return stream;
}

static void check_frame(const spec_t *s, const tp_tcp_frame_t *f, int idx)
{
    CHECK(f->id == s->id && f->hdr_len == s->hdr_len && f->len == s->len,
          "frame %d: got id %u hdr %zu len %zu, want %u %zu %zu", idx, f->id, f->hdr_len, f->len,
          s->id, s->hdr_len, s->len);
    CHECK(((uintptr_t)f->hdr & 7) == 0, "frame %d: header not 8-byte aligned", idx);
    const unsigned char *h = f->hdr, *p = f->payload;
    for (size_t k = 0; k < s->hdr_len; k++)
        CHECK(h[k] == byte_of(s, k, 1), "frame %d: header byte %zu", idx, k);
    for (size_t k = 0; k < s->len; k++)
        CHECK(p[k] == byte_of(s, k, 0), "frame %d: payload byte %zu", idx, k);
}

/* Feeds stream through rx in pieces cut at the given points (sorted, ending
 * with total), no piece larger than rx_space offers, and checks every frame.
 * Returns the number of reads it took. */
static int feed(const unsigned char *stream, const size_t *cuts, int ncuts,
                const spec_t *sp, int n)
{
    tp_tcp_rx_t rx;
    tp_tcp_rx_init(&rx, MAX_HDR, MAX_LEN);
    size_t pos = 0;
    int got = 0, reads = 0;
    for (int c = 0; c < ncuts; c++) {
        while (pos < cuts[c]) {
            void *p;
            size_t room;
            CHECK(tp_tcp_rx_space(&rx, &p, &room) == 0, "rx_space failed at %zu", pos);
            CHECK(room > 0, "rx_space offered no room at %zu", pos);
            size_t k = cuts[c] - pos < room ? cuts[c] - pos : room;
            memcpy(p, stream + pos, k);
            tp_tcp_rx_commit(&rx, k);
            pos += k;
            reads++;
            tp_tcp_frame_t f;
            int rc;
            while ((rc = tp_tcp_rx_next(&rx, &f)) == 1) {
                CHECK(got < n, "more frames than sent");
                check_frame(&sp[got], &f, got);
                got++;
            }
            CHECK(rc == 0, "rx_next error at %zu", pos);
        }
    }
    CHECK(got == n, "got %d of %d frames", got, n);
    CHECK(rx.start == rx.end, "%zu bytes left over", rx.end - rx.start);
    tp_tcp_rx_free(&rx);
    return reads;
}

/* Feeds the stream split once at every point, in one-byte pieces, and split
 * twice (the second cut stepping through what follows a random first). */
static void split_everywhere(const spec_t *sp, int n, const char *what)
{
    size_t total;
    unsigned char *stream = build_stream(sp, n, &total);
    for (size_t cut = 0; cut <= total; cut++) {
        size_t cuts[2] = { cut, total };
        feed(stream, cuts, 2, sp, n);
    }
    size_t *cuts = malloc(total * sizeof(*cuts));
    for (size_t i = 0; i < total; i++)
        cuts[i] = i + 1;
    feed(stream, cuts, (int)total, sp, n);
    free(cuts);
    for (int r = 0; r < 10; r++) {
        size_t a = next_rand() % (total + 1);
        for (size_t b = a; b <= total; b += 1 + next_rand() % 16) {
            size_t c3[3] = { a, b, total };
            feed(stream, c3, 3, sp, n);
        }
    }
    free(stream);
    printf("PASS: unit/tcp_frame %s (%d frames, %zu bytes, split at every point)\n", what, n,
           total);
}

static void test_splits(void)
{
    /* Every shape of small frame: header and payload empty, odd, aligned. */
    static const size_t hl[] = { 0, 1, 7, 8, 16, 108, 256 };
    static const size_t pl[] = { 0, 1, 5, 8, 64, 1000 };
    spec_t sp[64];
    int n = 0;
    for (size_t i = 0; i < sizeof(hl) / sizeof(hl[0]); i++)
        for (size_t k = 0; k < sizeof(pl) / sizeof(pl[0]); k += 1 + (i % 2))
            sp[n++] = (spec_t){ (unsigned)(n % 16), hl[i], pl[k], (unsigned char)n };
    sp[n++] = (spec_t){ TP_TCP_CTRL_ID, 16, 0, 3 };
    split_everywhere(sp, n, "small frames");
    /* Bulk frames (read up to their end) between small ones. */
    spec_t big[] = { { 1, 8, 3, 1 },      { 3, 16, 17001, 2 }, { 0, 24, 0, 3 },
                     { 3, 16, 16385, 4 }, { 5, 1, 9, 5 } };
    split_everywhere(big, 5, "bulk and small frames");
}

static void test_random(void)
{
    for (int round = 0; round < 20; round++) {
        int n = 1 + (int)(next_rand() % 100);
        spec_t *sp = malloc((size_t)n * sizeof(*sp));
        for (int i = 0; i < n; i++) {
            uint64_t r = next_rand();
            size_t len = r % 4 == 0 ? next_rand() % MAX_LEN : next_rand() % 200;
            sp[i] = (spec_t){ (unsigned)(r >> 8) % 16, (r >> 16) % (MAX_HDR + 1), len,
                              (unsigned char)(r >> 40) };
        }
        size_t total;
        unsigned char *stream = build_stream(sp, n, &total);
        int ncuts = 1 + (int)(next_rand() % 200);
        size_t *cuts = malloc((size_t)(ncuts + 1) * sizeof(*cuts));
        for (int i = 0; i < ncuts; i++)
            cuts[i] = next_rand() % (total + 1);
        cuts[ncuts++] = total;
        for (int i = 1; i < ncuts; i++) /* insertion sort: few cuts */
            for (int k = i; k > 0 && cuts[k - 1] > cuts[k]; k--) {
                size_t t = cuts[k];
                cuts[k] = cuts[k - 1];
                cuts[k - 1] = t;
            }
        feed(stream, cuts, ncuts, sp, n);
        size_t all[1] = { total }; /* as fast as rx_space allows */
        feed(stream, all, 1, sp, n);
        free(cuts);
        free(stream);
        free(sp);
    }
    printf("PASS: unit/tcp_frame random streams and pieces\n");
}

/* Large frames are read up to their end plus the next header, so a stream
 * of them needs one read per frame and never moves their bytes. */
static void test_bulk(void)
{
    spec_t sp[32];
    for (int i = 0; i < 32; i++)
        sp[i] = (spec_t){ 3, 16, 65536, (unsigned char)i };
    size_t total;
    unsigned char *stream = build_stream(sp, 32, &total);
    size_t all[1] = { total };
    int reads = feed(stream, all, 1, sp, 32);
    CHECK(reads <= 32 + 1, "bulk stream took %d reads for 32 frames", reads);
    free(stream);
    printf("PASS: unit/tcp_frame bulk frames (%d reads for 32 frames)\n", reads);
}

static void test_malformed(void)
{
    tp_tcp_rx_t rx;
    tp_tcp_rx_init(&rx, MAX_HDR, MAX_LEN);
    tp_tcp_frame_hdr_t bad[2] = { { MAX_LEN + 1, 0, 0 }, { 0, 0, MAX_HDR + 1 } };
    for (int i = 0; i < 2; i++) {
        void *p;
        size_t room;
        CHECK(tp_tcp_rx_space(&rx, &p, &room) == 0 && room >= sizeof(bad[i]), "rx_space");
        memcpy(p, &bad[i], sizeof(bad[i]));
        tp_tcp_rx_commit(&rx, sizeof(bad[i]));
        tp_tcp_frame_t f;
        CHECK(tp_tcp_rx_next(&rx, &f) == CORE_EPROTO, "malformed header %d accepted", i);
        CHECK(tp_tcp_rx_space(&rx, &p, &room) == CORE_EPROTO, "rx_space after malformed %d", i);
        rx.start = rx.end = 0;
    }
    tp_tcp_rx_free(&rx);
    /* The pure decoder: handler ids that are neither an AM id nor the control id. */
    tp_tcp_frame_t f;
    size_t size;
    unsigned ids[] = { TP_AM_MAX, 255, 0xfffe };
    for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        tp_tcp_frame_hdr_t fh = { 0, (uint16_t)ids[i], 0 };
        CHECK(tp_tcp_frame_decode(&fh, sizeof(fh), MAX_HDR, MAX_LEN, &f, &size) == CORE_EPROTO,
              "handler id %u accepted", ids[i]);
    }
    tp_tcp_frame_hdr_t ok[2] = { { 0, 3, 0 }, { 0, TP_TCP_CTRL_ID, 0 } };
    for (int i = 0; i < 2; i++)
        CHECK(tp_tcp_frame_decode(&ok[i], sizeof(ok[i]), MAX_HDR, MAX_LEN, &f, &size) == 1 &&
                  f.id == ok[i].id && size == sizeof(ok[i]),
              "good frame %d refused", i);
    /* Random headers over random bytes: anything accepted lies within what was given. */
    unsigned char buf[1024];
    for (int i = 0; i < 200000; i++) {
        for (size_t j = 0; j < 16; j++)
            buf[j] = (unsigned char)next_rand();
        tp_tcp_frame_hdr_t fh;
        memcpy(&fh, buf, sizeof(fh));
        fh.len &= (i & 1) ? 0x3ff : 0xffffffffu;
        fh.hdr_len &= (i & 2) ? 0xff : 0xffff;
        fh.id &= (i & 4) ? 0xf : 0xffff;
        memcpy(buf, &fh, sizeof(fh));
        size_t have = (size_t)(next_rand() % sizeof(buf));
        int rc = tp_tcp_frame_decode(buf, have, MAX_HDR, MAX_LEN, &f, &size);
        CHECK(rc == 0 || rc == 1 || rc == CORE_EPROTO, "decode returned %d", rc);
        if (rc == 1)
            CHECK(size <= have && f.hdr_len <= MAX_HDR && f.len <= MAX_LEN &&
                      (const unsigned char *)f.payload + f.len <= buf + have &&
                      (f.id < TP_AM_MAX || f.id == TP_TCP_CTRL_ID),
                  "random frame %d decoded outside its bytes", i);
    }
    printf("PASS: unit/tcp_frame malformed headers rejected\n");
}

/* The send queue against a byte FIFO model, through wraps and growth. */
static void test_txq(void)
{
    tp_tcp_txq_t q = { 0 };
    size_t mcap = 1u << 24, mhead = 0, mtail = 0;
    unsigned char *model = malloc(mcap), *src = malloc(300000);
    unsigned char counter = 0;
    for (int step = 0; step < 20000; step++) {
        if (next_rand() % 2) {
            int n = 1 + (int)(next_rand() % 3);
            struct iovec iov[3];
            size_t sum = 0;
            for (int i = 0; i < n; i++) {
                size_t len = next_rand() % (step % 100 == 0 ? 100000 : 3000);
                iov[i] = (struct iovec){ src + sum, len };
                for (size_t k = 0; k < len; k++)
                    src[sum + k] = counter++;
                sum += len;
            }
            size_t skip = next_rand() % 4 == 0 ? next_rand() % (sum + 1) : 0;
            CHECK(tp_tcp_txq_append(&q, iov, n, skip) == 0, "append");
            CHECK(mtail + sum - skip <= mcap, "model overflow");
            memcpy(model + mtail, src + skip, sum - skip);
            mtail += sum - skip;
        } else {
            size_t take = next_rand() % (tp_tcp_txq_bytes(&q) + 1);
            struct iovec qv[2];
            int qn = tp_tcp_txq_iov(&q, qv);
            size_t off = 0;
            for (int k = 0; k < qn && off < take; k++) {
                size_t t = qv[k].iov_len < take - off ? qv[k].iov_len : take - off;
                CHECK(memcmp(qv[k].iov_base, model + mhead + off, t) == 0, "queue bytes differ");
                off += t;
            }
            tp_tcp_txq_consume(&q, take);
            mhead += take;
            if (mhead == mtail)
                mhead = mtail = 0;
        }
        CHECK(tp_tcp_txq_bytes(&q) == mtail - mhead, "queue holds %zu, model %zu",
              tp_tcp_txq_bytes(&q), mtail - mhead);
        if (mtail > mcap / 2) { /* keep the model small: drain all */
            tp_tcp_txq_consume(&q, tp_tcp_txq_bytes(&q));
            mhead = mtail = 0;
        }
    }
    tp_tcp_txq_free(&q);
    free(model);
    free(src);
    printf("PASS: unit/tcp_frame send queue matches a FIFO model\n");
}

int main(void)
{
    test_txq();
    test_malformed();
    test_bulk();
    test_splits();
    test_random();
    return 0;
}
