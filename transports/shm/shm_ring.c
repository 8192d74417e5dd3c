/*
 * The shm ring: a single-producer, single-consumer queue of variable-length
 * records in shared memory. The format and the ordering argument are in
 * shm_ring.h; this file is pure (no logging, no runtime) so the unit test
 * can drive it over an anonymous shared mapping.
 */
#include <string.h>
#include "transports/shm/shm_ring.h"

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the shm ring needs lock-free 64-bit atomics");
_Static_assert(sizeof(tp_shm_ring_t) == TP_SHM_RING_CTRL, "ring control block size");

enum { REC_DATA = 1, REC_PAD = 2 };

#define ALIGN8(x) (((x) + 7) & ~(uint64_t)7)

static inline _Atomic uint64_t *slot_at(uint8_t *data, uint64_t off)
{
    return (_Atomic uint64_t *)(void *)(data + off);
}

static inline uint64_t rec_header(uint64_t len, unsigned id, size_t hdr_len, unsigned type)
{
    return len | (uint64_t)id << 32 | (uint64_t)hdr_len << 40 | (uint64_t)type << 48;
}

size_t tp_shm_ring_max_payload(size_t size, size_t hdr_len)
{
    size_t fixed = TP_SHM_RING_REC_HDR + ALIGN8(hdr_len);
    size_t max = tp_shm_ring_max_record(size) & ~(size_t)(TP_SHM_RING_ALIGN - 1);
    return max > fixed ? max - fixed : 0;
}

static int size_ok(size_t size)
{
    return size >= TP_SHM_RING_MIN && (size & (size - 1)) == 0 && size <= UINT32_MAX;
}

int tp_shm_ring_init(void *mem, size_t size)
{
    if (!size_ok(size))
        return CORE_EINVAL;
    tp_shm_ring_t *r = mem;
    memset(r, 0, sizeof(*r));
    atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
    /* The slot at index 0 must read as "no record". */
    atomic_store_explicit(slot_at((uint8_t *)mem + TP_SHM_RING_CTRL, 0), 0, memory_order_release);
    return 0;
}

int tp_shm_prod_init(tp_shm_prod_t *p, void *mem, size_t size)
{
    if (!size_ok(size))
        return CORE_EINVAL;
    p->ring = mem;
    p->data = (uint8_t *)mem + TP_SHM_RING_CTRL;
    p->size = size;
    p->mask = size - 1;
    p->tail_cache = atomic_load_explicit(&p->ring->tail, memory_order_acquire);
    p->head = p->tail_cache;
    p->keep = UINT64_MAX;
    return 0;
}

void tp_shm_prod_keep(tp_shm_prod_t *p, size_t bytes)
{
    p->keep = bytes >= p->size ? UINT64_MAX : bytes < 64 ? 64 : bytes;
}

int tp_shm_cons_init(tp_shm_cons_t *c, void *mem, size_t size)
{
    if (!size_ok(size))
        return CORE_EINVAL;
    c->ring = mem;
    c->data = (uint8_t *)mem + TP_SHM_RING_CTRL;
    c->size = size;
    c->mask = size - 1;
    c->tail = atomic_load_explicit(&c->ring->tail, memory_order_relaxed);
    c->cur_len = 0;
    return 0;
}

/* Copies n bytes; the few bytes of a small message's header and payload without a call to
 * memcpy (a quarter of the instructions of a 1-8 byte send went to two such calls). */
static inline __attribute__((always_inline)) void copy_in(uint8_t *dst, const void *src, size_t n)
{
    const uint8_t *p = src;
    uint64_t a, b, c, d;
    if (n >= 8 && n <= 32) { /* overlapping words: [0,8) [n-8,n), and [8,16) [n-16,n-8) */
        memcpy(&a, p, 8);
        memcpy(&b, p + n - 8, 8);
        if (n > 16) {
            memcpy(&c, p + 8, 8);
            memcpy(&d, p + n - 16, 8);
            memcpy(dst + 8, &c, 8);
            memcpy(dst + n - 16, &d, 8);
        }
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t x, y;
        memcpy(&x, p, 4);
        memcpy(&y, p + n - 4, 4);
        memcpy(dst, &x, 4);
        memcpy(dst + n - 4, &y, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++)
            dst[i] = p[i];
    } else {
        memcpy(dst, src, n);
    }
}

/*
 * Room check: `need` bytes past head must be free, where need covers the
 * pad (if the record wraps), the record and the zeroed slot after it. The
 * consumer's index is read from shared memory only when the cached copy says
 * the ring is too full.
 */
static inline int has_room(tp_shm_prod_t *p, uint64_t need)
{
    if (p->head + need - p->tail_cache <= p->size)
        return 1;
    p->tail_cache = atomic_load_explicit(&p->ring->tail, memory_order_acquire);
    return p->head + need - p->tail_cache <= p->size;
}

int tp_shm_ring_push(tp_shm_prod_t *p, unsigned id, const void *hdr, size_t hdr_len,
                     const void *payload, size_t len)
{
    if (hdr_len > 255 || id > 255 || len > p->size)
        return CORE_EINVAL;
    uint64_t hpad = ALIGN8(hdr_len);
    uint64_t rlen = tp_shm_ring_record_len(hdr_len, len);
    if (rlen > tp_shm_ring_max_record(p->size))
        return CORE_EINVAL;

    uint64_t off = p->head & p->mask;
    uint64_t to_end = p->size - off;
    int wrap = rlen > to_end;
    if (__builtin_expect(!wrap && off + rlen + TP_SHM_RING_REC_HDR > p->keep, 0)) {
        /* Back to the start if the consumer has left it (a pad at off is valid: off > 0
         * here unless the record alone is larger than what is kept); else on, with room
         * kept for the backlog. */
        if (off != 0 && has_room(p, to_end + rlen + TP_SHM_RING_REC_HDR))
            wrap = 1;
        else
            while (off + rlen + TP_SHM_RING_REC_HDR > p->keep)
                p->keep = p->keep >= p->size / 2 ? UINT64_MAX : p->keep * 2;
    }
    if (!has_room(p, (wrap ? to_end : 0) + rlen + TP_SHM_RING_REC_HDR))
        return CORE_EBUSY;

    uint64_t roff = wrap ? 0 : off;
    uint8_t *rec = p->data + roff;
    copy_in(rec + TP_SHM_RING_REC_HDR, hdr, hdr_len);
    copy_in(rec + TP_SHM_RING_REC_HDR + hpad, payload, len);
    /* Keep "the slot at head is zero" true for the index after this record. */
    atomic_store_explicit(slot_at(p->data, (roff + rlen) & p->mask), 0, memory_order_relaxed);

    uint64_t h = rec_header(len, id, hdr_len, REC_DATA);
    if (wrap) {
        /* The consumer reaches offset 0 only through the pad, so the record
         * header can be plain; the pad's release store publishes both. */
        atomic_store_explicit(slot_at(p->data, 0), h, memory_order_relaxed);
        atomic_store_explicit(slot_at(p->data, off), rec_header(to_end, 0, 0, REC_PAD),
                              memory_order_release);
        p->head += to_end + rlen;
    } else {
        atomic_store_explicit(slot_at(p->data, off), h, memory_order_release);
        p->head += rlen;
    }
    return 0;
}

int tp_shm_ring_drained(tp_shm_prod_t *p)
{
    if (p->tail_cache == p->head)
        return 1;
    p->tail_cache = atomic_load_explicit(&p->ring->tail, memory_order_acquire);
    return p->tail_cache == p->head;
}

/* Inline in peek: it runs once per message. off is the consumer's own index (in the ring,
 * 8-byte aligned); only h comes from the producer. */
static inline __attribute__((always_inline)) int rec_decode(uint64_t h, uint64_t off,
                                                            uint64_t size, tp_shm_rec_t *rec,
                                                            uint64_t *rlen)
{
    uint64_t len = h & 0xffffffffu;
    uint64_t type = h >> 48; /* the type byte and the top byte, which must be 0 */
    if (__builtin_expect(type == REC_DATA, 1)) {
        size_t hdr_len = h >> 40 & 0xff;
        uint64_t n = tp_shm_ring_record_len(hdr_len, len); /* no overflow: len < 2^32 */
        if (n > tp_shm_ring_max_record(size) || n > size - off)
            return CORE_EPROTO;
        rec->id = h >> 32 & 0xff;
        rec->hdr_len = hdr_len;
        rec->len = len;
        *rlen = n;
        return 1;
    }
    /* A pad fills the tail after the last record that fit, never a whole lap. */
    if (type != REC_PAD || off == 0 || len != size - off || (h >> 32 & 0xffff) != 0)
        return CORE_EPROTO;
    *rlen = len;
    return 2;
}

int tp_shm_rec_decode(uint64_t h, uint64_t off, uint64_t size, tp_shm_rec_t *rec, uint64_t *rlen)
{
    if (off >= size || (off & (TP_SHM_RING_ALIGN - 1)) != 0)
        return CORE_EPROTO;
    return rec_decode(h, off, size, rec, rlen);
}

int tp_shm_ring_peek(tp_shm_cons_t *c, tp_shm_rec_t *rec, uint64_t *bad)
{
    for (;;) {
        uint64_t off = c->tail & c->mask;
        uint8_t *slot = c->data + off;
        /* Read once: the producer may write the word again after we checked it. */
        uint64_t h = atomic_load_explicit(slot_at(slot, 0), memory_order_acquire);
        if (h == 0)
            return 0;
        uint64_t rlen;
        int kind = rec_decode(h, off, c->size, rec, &rlen);
        if (kind == 2) {
            c->tail += rlen;
            continue;
        }
        if (kind != 1) {
            if (bad)
                *bad = h;
            return CORE_EPROTO;
        }
        rec->hdr = slot + TP_SHM_RING_REC_HDR;
        rec->payload = slot + TP_SHM_RING_REC_HDR + ALIGN8(rec->hdr_len);
        c->cur_len = rlen;
        return 1;
    }
}

void tp_shm_ring_release(tp_shm_cons_t *c)
{
    c->tail += c->cur_len;
    c->cur_len = 0;
    /* Release: our reads of the record happen before the producer reuses it. */
    atomic_store_explicit(&c->ring->tail, c->tail, memory_order_release);
}
