/*
 * Fuzz target: the tcp transport's reassembly of frames from its byte stream
 * (transports/tcp/tcp_frame.c), as a peer's socket would deliver them.
 *
 * Input: one byte choosing how the stream is cut into reads (the read
 * sizes cycle through a small table, as a socket returns short reads), then
 * the stream. The stream is fed twice: cut as chosen, and in the largest
 * pieces rx_space offers, and a third time cut as chosen with every large
 * payload of ids 0-7 read to a place of its own (tp_tcp_rx_direct), every
 * other one refused a place. Properties: every frame returned lies inside the
 * bytes received or its place (each of its bytes is read, so ASan sees any
 * overread), its header is 8-byte aligned and within the limits, and all
 * three give the same frames and the same verdict on a malformed header.
 */
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "fuzz.h"
#include "transports/tcp/tcp_frame.h"

#define MAX_HDR 256             /* TP_TCP_MAX_AM_HDR */
#define MAX_LEN (20u << 10)     /* above the 16 KiB bulk threshold, so both paths run */

typedef struct result {
    uint64_t sum;               /* of every frame's id, lengths and bytes, in order */
    unsigned frames;
    int err;                    /* the stream was refused as malformed */
} result_t;

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x100000001b3ull;
}

/* place: the frame's payload was read to that place (NULL: into the buffer); its headers
 * stay in the buffer, which holds only them then. */
static void take_frame(result_t *res, const tp_tcp_rx_t *rx, const tp_tcp_frame_t *f,
                       const char *place, size_t hdr_end)
{
    const char *lo = rx->buf, *hi = rx->buf + (place ? hdr_end : rx->end);
    const char *h = f->hdr, *p = f->payload;
    FUZZ_CHECK(f->hdr_len <= MAX_HDR && f->len <= MAX_LEN);
    FUZZ_CHECK(((uintptr_t)h & 7) == 0);
    FUZZ_CHECK(h >= lo && h + f->hdr_len <= hi);
    FUZZ_CHECK(place ? p == place : p >= h + f->hdr_len && p + f->len <= hi);
    uint64_t s = mix(mix(mix(res->sum, f->id), f->hdr_len), f->len);
    for (size_t i = 0; i < f->hdr_len; i++)
        s = mix(s, (uint8_t)h[i]);
    for (size_t i = 0; i < f->len; i++)
        s = mix(s, (uint8_t)p[i]);
    res->sum = s;
    res->frames++;
}

/* Reads of a placed payload, cut as the table says; returns the new position. */
static size_t feed_placed(tp_tcp_rx_t *rx, const uint8_t *s, size_t pos, size_t n,
                          const unsigned *cuts, unsigned ncuts, unsigned *k, result_t *res)
{
    char *place = rx->dst;
    while (pos < n) {
        struct iovec iov[2];
        int niov = tp_tcp_rx_direct_iov(rx, iov);
        FUZZ_CHECK(niov > 0);
        size_t take = n - pos, room = 0;
        for (int i = 0; i < niov; i++)
            room += iov[i].iov_len;
        unsigned cut = ncuts ? cuts[(*k)++ % ncuts] : 0;
        if (take > room)
            take = room;
        if (cut && take > cut)
            take = cut;
        for (size_t left = take, i = 0; left; i++) { /* as recvmsg fills them */
            size_t c = left < iov[i].iov_len ? left : iov[i].iov_len;
            memcpy(iov[i].iov_base, s + pos + take - left, c);
            left -= c;
        }
        pos += take;
        if (tp_tcp_rx_direct_commit(rx, take)) {
            size_t hdr_end = rx->end;
            tp_tcp_frame_t f;
            tp_tcp_rx_direct_take(rx, &f);
            FUZZ_CHECK(rx->dst == NULL);
            take_frame(res, rx, &f, place, hdr_end);
            free(place);
            break;
        }
    }
    return pos; /* a stream that ends inside the payload leaves rx->dst to feed */
}

/* Feeds the stream in reads no larger than the cut table says (0: as large
 * as offered); direct: payloads may be read to a place (see above). */
static void feed(const uint8_t *s, size_t n, const unsigned *cuts, unsigned ncuts, int direct,
                 result_t *res)
{
    tp_tcp_rx_t rx;
    size_t pos = 0;
    unsigned k = 0, asked = 0;
    memset(res, 0, sizeof(*res));
    tp_tcp_rx_init(&rx, MAX_HDR, MAX_LEN);
    rx.direct_ids = direct ? 0xffu : 0;
    while (pos < n) {
        void *p;
        size_t room, got;
        tp_tcp_frame_t df;
        if (tp_tcp_rx_direct(&rx, &df, &got)) {
            FUZZ_CHECK(df.id < 8 && got < df.len &&
                       tp_tcp_frame_size(df.hdr_len, df.len) > (16u << 10));
            tp_tcp_rx_place(&rx, asked++ % 2 ? NULL : malloc(df.len));
            if (rx.dst) {
                pos = feed_placed(&rx, s, pos, n, cuts, ncuts, &k, res);
                continue;
            }
            FUZZ_CHECK(!tp_tcp_rx_direct(&rx, &df, &got));
        }
        int rc = tp_tcp_rx_space(&rx, &p, &room);
        if (rc) {
            FUZZ_CHECK(rc == CORE_EPROTO);
            res->err = 1;
            break;
        }
        FUZZ_CHECK(room > 0);
        size_t take = n - pos < room ? n - pos : room;
        unsigned cut = ncuts ? cuts[k++ % ncuts] : 0;
        if (cut && take > cut)
            take = cut;
        memcpy(p, s + pos, take);
        tp_tcp_rx_commit(&rx, take);
        pos += take;
        tp_tcp_frame_t f;
        while ((rc = tp_tcp_rx_next(&rx, &f)) == 1)
            take_frame(res, &rx, &f, NULL, 0);
        if (rc) {
            FUZZ_CHECK(rc == CORE_EPROTO);
            res->err = 1;
            break;
        }
    }
    free(rx.dst); /* a stream that ended inside a placed payload */
    tp_tcp_rx_free(&rx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned table[] = { 1, 3, 8, 13, 64, 100, 4096, 0 };
    if (size < 1)
        return 0;
    unsigned cuts[4];
    for (int i = 0; i < 4; i++)
        cuts[i] = table[(data[0] >> (2 * i)) & 7];
    result_t a, b, c;
    feed(data + 1, size - 1, cuts, 4, 0, &a);
    feed(data + 1, size - 1, NULL, 0, 0, &b);
    feed(data + 1, size - 1, cuts, 4, 1, &c);
    /* Cut differently, a malformed header can be found before or after
     * the frames ahead of it, but never change them. */
    FUZZ_CHECK(a.err == b.err && a.err == c.err);
    if (!a.err)
        FUZZ_CHECK(a.frames == b.frames && a.sum == b.sum && a.frames == c.frames &&
                   a.sum == c.sum);
    return 0;
}

#ifdef FUZZ_SEEDS
/* One frame as the transport writes it (tp_tcp_frame_iov). */
static void put_frame(fuzz_buf_t *b, unsigned id, size_t hdr_len, size_t len, uint8_t fill)
{
    uint8_t hdr[MAX_HDR], *pay = malloc(len + 1);
    memset(hdr, fill, sizeof(hdr));
    memset(pay, fill ^ 0x5a, len + 1);
    struct iovec iov[TP_TCP_FRAME_IOV];
    tp_tcp_frame_hdr_t fh;
    int n = tp_tcp_frame_iov(iov, &fh, id, hdr, hdr_len, pay, len);
    for (int i = 0; i < n; i++)
        fuzz_put(b, iov[i].iov_base, iov[i].iov_len);
    free(pay);
}

void fuzz_make_seeds(void)
{
    fuzz_buf_t b = { 0 };
    /* p2p-sized headers (16, 24, 56 bytes), small and empty payloads. */
    fuzz_put_u8(&b, 0x00);
    put_frame(&b, 0, 16, 5, 1);
    put_frame(&b, 0, 24, 0, 2);
    put_frame(&b, 2, 24, 0, 3);
    put_frame(&b, 3, 16, 1000, 4);
    fuzz_seed("small-frames", b.p, b.len);
    /* A handshake control frame (16-byte header, no payload), then an AM. */
    b.len = 0;
    fuzz_put_u8(&b, 0x1b);
    put_frame(&b, TP_TCP_CTRL_ID, 16, 0, 7);
    put_frame(&b, 1, 56, 3, 8);
    fuzz_seed("ctrl-then-am", b.p, b.len);
    /* A bulk frame (past 16 KiB) between two small ones, read in odd pieces. */
    b.len = 0;
    fuzz_put_u8(&b, 0xe4);
    put_frame(&b, 0, 16, 7, 9);
    put_frame(&b, 3, 16, 17000, 10);
    put_frame(&b, 0, 16, 0, 11);
    fuzz_seed("bulk-frame", b.p, b.len);
    /* Large frames back to back (placed, then refused a place, then placed), odd lengths. */
    b.len = 0;
    fuzz_put_u8(&b, 0x9c);
    put_frame(&b, 3, 16, 17001, 13);
    put_frame(&b, 3, 16, 20000, 14);
    put_frame(&b, 5, 40, 16500, 15);
    put_frame(&b, 0, 16, 3, 16);
    fuzz_seed("placed-frames", b.p, b.len);
    /* Edge cases: the largest header and payload; one past them; a short stream. */
    b.len = 0;
    fuzz_put_u8(&b, 0x55);
    put_frame(&b, 15, MAX_HDR, 0, 12);
    fuzz_seed("max-hdr", b.p, b.len);
    b.len = 0;
    fuzz_put_u8(&b, 0x00);
    tp_tcp_frame_hdr_t fh = { MAX_LEN + 1, 0, 16 };
    fuzz_put(&b, &fh, sizeof(fh));
    fuzz_seed("too-long", b.p, b.len);
    b.len = 0;
    fuzz_put_u8(&b, 0x00);
    put_frame(&b, 0, 16, 5, 1);
    b.len -= 3;
    fuzz_seed("truncated", b.p, b.len);
    free(b.p);
}
#endif
