/*
 * Frames, the send queue and reassembly of the tcp transport (see
 * tcp_frame.h). Pure code: test/unit/test_tcp_frame.c feeds it streams split
 * at every point.
 */
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "transports/transport.h"
#include "transports/tcp/tcp_frame.h"

#define TXQ_MIN_CAP (64u << 10)
#define RX_MIN_CAP (32u << 10)
#define RX_BULK_FRAME (16u << 10) /* larger frames are read up to their end, never moved */
#define RX_MIN_READ (8u << 10)    /* room offered for a read of small frames */
/* After a large frame, the next read takes this much when payloads may go to a place: the
 * frame header and a handler header of up to 24 bytes (DATA's 16), so that a large frame's
 * place is asked for after one read, not two. */
#define RX_HDR_READ 32u

static const char zero_pad[8];

int tp_tcp_frame_iov(struct iovec *iov, tp_tcp_frame_hdr_t *fh, unsigned id, const void *hdr,
                     size_t hdr_len, const void *payload, size_t len)
{
    int n = 0;
    fh->len = (uint32_t)len;
    fh->id = (uint16_t)id;
    fh->hdr_len = (uint16_t)hdr_len;
    iov[n++] = (struct iovec){ fh, sizeof(*fh) };
    if (hdr_len)
        iov[n++] = (struct iovec){ (void *)hdr, hdr_len };
    if (tp_tcp_pad8(hdr_len) != hdr_len)
        iov[n++] = (struct iovec){ (void *)zero_pad, tp_tcp_pad8(hdr_len) - hdr_len };
    if (len)
        iov[n++] = (struct iovec){ (void *)payload, len };
    if (tp_tcp_pad8(len) != len)
        iov[n++] = (struct iovec){ (void *)zero_pad, tp_tcp_pad8(len) - len };
    return n;
}

int tp_tcp_txq_iov(const tp_tcp_txq_t *q, struct iovec *iov)
{
    if (q->len == 0)
        return 0;
    size_t first = q->cap - q->head < q->len ? q->cap - q->head : q->len;
    iov[0] = (struct iovec){ q->buf + q->head, first };
    if (first == q->len)
        return 1;
    iov[1] = (struct iovec){ q->buf, q->len - first };
    return 2;
}

/* Makes room for total more bytes: a new buffer holding the queue unwrapped. */
static int txq_grow(tp_tcp_txq_t *q, size_t total)
{
    size_t cap = q->cap ? q->cap : TXQ_MIN_CAP;
    while (cap - q->len < total)
        cap *= 2;
    char *buf = malloc(cap);
    if (!buf)
        return CORE_ENOMEM;
    struct iovec iov[2];
    size_t off = 0;
    for (int i = 0, n = tp_tcp_txq_iov(q, iov); i < n; i++) {
        memcpy(buf + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    free(q->buf);
    q->buf = buf;
    q->cap = cap;
    q->head = 0;
    return 0;
}

int tp_tcp_txq_append(tp_tcp_txq_t *q, const struct iovec *iov, int n, size_t skip)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (skip >= total)
        return 0;
    total -= skip;
    if (q->cap - q->len < total) {
        int rc = txq_grow(q, total);
        if (rc)
            return rc;
    }
    size_t pos = (q->head + q->len) % q->cap;
    for (int i = 0; i < n; i++) {
        const char *src = iov[i].iov_base;
        size_t len = iov[i].iov_len;
        if (skip >= len) {
            skip -= len;
            continue;
        }
        src += skip;
        len -= skip;
        skip = 0;
        while (len) {
            size_t room = q->cap - pos;
            size_t k = len < room ? len : room;
            memcpy(q->buf + pos, src, k);
            src += k;
            len -= k;
            pos = (pos + k) % q->cap;
        }
    }
    q->len += total;
    return 0;
}

void tp_tcp_txq_consume(tp_tcp_txq_t *q, size_t n)
{
    q->head = (q->head + n) % (q->cap ? q->cap : 1);
    q->len -= n;
    if (q->len == 0)
        q->head = 0;
}

void tp_tcp_txq_free(tp_tcp_txq_t *q)
{
    free(q->buf);
    memset(q, 0, sizeof(*q));
}

void tp_tcp_rx_init(tp_tcp_rx_t *rx, size_t max_hdr, size_t max_len)
{
    memset(rx, 0, sizeof(*rx));
    rx->max_hdr = max_hdr;
    rx->max_len = max_len;
}

void tp_tcp_rx_free(tp_tcp_rx_t *rx)
{
    free(rx->buf);
    rx->buf = NULL;
    rx->cap = rx->start = rx->end = 0;
}

int tp_tcp_frame_decode(const void *buf, size_t have, size_t max_hdr, size_t max_len,
                        tp_tcp_frame_t *f, size_t *size)
{
    tp_tcp_frame_hdr_t fh;
    if (have < sizeof(fh))
        return 0;
    memcpy(&fh, buf, sizeof(fh));
    if (fh.hdr_len > max_hdr || fh.len > max_len ||
        (fh.id >= TP_AM_MAX && fh.id != TP_TCP_CTRL_ID))
        return CORE_EPROTO;
    size_t n = tp_tcp_frame_size(fh.hdr_len, fh.len);
    *size = n;
    if (have < n)
        return 0;
    const char *base = buf;
    f->id = fh.id;
    f->hdr_len = fh.hdr_len;
    f->len = fh.len;
    f->hdr = base + sizeof(fh);
    f->payload = base + sizeof(fh) + tp_tcp_pad8(fh.hdr_len);
    return 1;
}

/* The size of the frame whose header starts the unparsed bytes, or 0 when
 * the header is malformed. */
static size_t pending_size(const tp_tcp_rx_t *rx)
{
    tp_tcp_frame_t f;
    size_t size = 0;
    int rc = tp_tcp_frame_decode(rx->buf + rx->start, sizeof(tp_tcp_frame_hdr_t), rx->max_hdr,
                                 rx->max_len, &f, &size);
    return rc < 0 ? 0 : size;
}

/* Bytes of the pending large frame up to the end of its handler header when its payload may
 * go to a place (its id is in direct_ids and no place was refused yet); else 0. Its frame
 * header is in and well formed. */
static size_t place_hdr_size(const tp_tcp_rx_t *rx)
{
    tp_tcp_frame_hdr_t fh;
    if (!rx->direct_ids || rx->no_place)
        return 0;
    memcpy(&fh, rx->buf + rx->start, sizeof(fh));
    if (fh.id >= TP_AM_MAX || !(rx->direct_ids >> fh.id & 1))
        return 0;
    return sizeof(fh) + tp_tcp_pad8(fh.hdr_len);
}

int tp_tcp_rx_space(tp_tcp_rx_t *rx, void **p, size_t *n)
{
    size_t have = rx->end - rx->start;
    if (have == 0)
        rx->start = rx->end = 0;
    size_t need = sizeof(tp_tcp_frame_hdr_t); /* bytes of the pending frame */
    if (have >= need && (need = pending_size(rx)) == 0)
        return CORE_EPROTO;
    size_t missing = need > have ? need - have : 0;
    int bulk = need > RX_BULK_FRAME;
    /* A bulk frame is read to its end plus the next frame's header, so the
     * next read knows its size; only those 8 bytes are ever moved. */
    if (bulk && missing)
        missing += sizeof(tp_tcp_frame_hdr_t);
    size_t want = bulk || missing > RX_MIN_READ ? missing : RX_MIN_READ;
    if (rx->cap - rx->end < want) {
        if (rx->start > 0) {
            memmove(rx->buf, rx->buf + rx->start, have);
            rx->start = 0;
            rx->end = have;
        }
        if (rx->cap - rx->end < want) {
            size_t cap = rx->cap ? rx->cap * 2 : RX_MIN_CAP;
            while (cap - rx->end < want)
                cap *= 2;
            char *buf = realloc(rx->buf, cap);
            if (!buf)
                return CORE_ENOMEM;
            rx->buf = buf;
            rx->cap = cap;
        }
    }
    *p = rx->buf + rx->end;
    *n = rx->cap - rx->end;
    size_t hsize = bulk && missing ? place_hdr_size(rx) : 0;
    if (hsize > have)
        *n = hsize - have; /* the handler header alone: its place is asked for next */
    else if (bulk && missing)
        *n = missing;
    else if (rx->bulk && have < sizeof(tp_tcp_frame_hdr_t))
        *n = (rx->direct_ids ? RX_HDR_READ : sizeof(tp_tcp_frame_hdr_t)) - have;
    return 0;
}

int tp_tcp_rx_next(tp_tcp_rx_t *rx, tp_tcp_frame_t *f)
{
    size_t size = 0;
    int rc = tp_tcp_frame_decode(rx->buf + rx->start, rx->end - rx->start, rx->max_hdr,
                                 rx->max_len, f, &size);
    if (rc != 1)
        return rc;
    rx->start += size;
    rx->bulk = size > RX_BULK_FRAME;
    rx->no_place = 0;
    return 1;
}

int tp_tcp_rx_direct(const tp_tcp_rx_t *rx, tp_tcp_frame_t *f, size_t *got)
{
    size_t have = rx->end - rx->start, size = 0;
    if (rx->dst || have < sizeof(tp_tcp_frame_hdr_t))
        return 0;
    /* Complete (1) or malformed (< 0) frames take the usual way. */
    if (tp_tcp_frame_decode(rx->buf + rx->start, have, rx->max_hdr, rx->max_len, f, &size) != 0)
        return 0;
    size_t hsize = place_hdr_size(rx);
    if (size <= RX_BULK_FRAME || hsize == 0 || have < hsize)
        return 0;
    tp_tcp_frame_hdr_t fh;
    memcpy(&fh, rx->buf + rx->start, sizeof(fh));
    if (have - hsize >= fh.len) /* only padding is missing */
        return 0;
    f->id = fh.id;
    f->hdr = rx->buf + rx->start + sizeof(fh);
    f->hdr_len = fh.hdr_len;
    f->payload = rx->buf + rx->start + hsize;
    f->len = fh.len;
    *got = have - hsize;
    return 1;
}

void tp_tcp_rx_place(tp_tcp_rx_t *rx, void *dst)
{
    tp_tcp_frame_t f;
    size_t got;
    if (!tp_tcp_rx_direct(rx, &f, &got))
        return;
    if (!dst) {
        rx->no_place = 1;
        return;
    }
    memcpy(dst, f.payload, got);
    rx->dst = dst;
    rx->dst_have = got;
    rx->dst_len = f.len;
    rx->pad_have = 0;
    rx->end -= got; /* the buffer keeps the headers only */
}

int tp_tcp_rx_direct_iov(tp_tcp_rx_t *rx, struct iovec *iov)
{
    int n = 0;
    size_t pad = tp_tcp_pad8(rx->dst_len) - rx->dst_len;
    if (rx->dst_have < rx->dst_len)
        iov[n++] = (struct iovec){ rx->dst + rx->dst_have, rx->dst_len - rx->dst_have };
    if (rx->pad_have < pad)
        iov[n++] = (struct iovec){ rx->pad + rx->pad_have, pad - rx->pad_have };
    return n;
}

int tp_tcp_rx_direct_commit(tp_tcp_rx_t *rx, size_t n)
{
    size_t k = rx->dst_len - rx->dst_have < n ? rx->dst_len - rx->dst_have : n;
    rx->dst_have += k;
    rx->pad_have += n - k;
    return rx->dst_have == rx->dst_len &&
           rx->pad_have == tp_tcp_pad8(rx->dst_len) - rx->dst_len;
}

void tp_tcp_rx_direct_take(tp_tcp_rx_t *rx, tp_tcp_frame_t *f)
{
    tp_tcp_frame_hdr_t fh;
    memcpy(&fh, rx->buf + rx->start, sizeof(fh));
    f->id = fh.id;
    f->hdr = rx->buf + rx->start + sizeof(fh); /* valid until the next tp_tcp_rx_space */
    f->hdr_len = fh.hdr_len;
    f->payload = rx->dst;
    f->len = rx->dst_len;
    rx->start = rx->end = 0;
    rx->dst = NULL;
    rx->dst_have = rx->dst_len = rx->pad_have = 0;
    rx->bulk = 1;
    rx->no_place = 0;
}

int tp_tcp_ctrl_decode(const void *hdr, size_t hdr_len, size_t len, int32_t from, int32_t to)
{
    if (len != 0)
        return CORE_EPROTO;
    if (hdr_len == sizeof(tp_tcp_ctrl_t)) {
        tp_tcp_ctrl_t m;
        memcpy(&m, hdr, sizeof(m));
        return m.type == TP_TCP_BYE && m.rank == from ? TP_TCP_BYE : CORE_EPROTO;
    }
    if (hdr_len != sizeof(tp_tcp_shm_ctrl_t))
        return CORE_EPROTO;
    tp_tcp_shm_ctrl_t m;
    memcpy(&m, hdr, sizeof(m));
    if (m.type < TP_TCP_SHM_OFFER || m.type > TP_TCP_SHM_WANT || m.from != from || m.to != to ||
        m.zero != 0)
        return CORE_EPROTO;
    return (int)m.type;
}
