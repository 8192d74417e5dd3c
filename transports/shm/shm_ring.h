/*
 * A single-producer, single-consumer ring of variable-length records in
 * shared memory: the queue that carries shm active messages from one local
 * rank to another.
 *
 * Shared layout: a 128-byte control block holding the consumer's index
 * (alone on its lines, so the producer's writes never bounce it), followed
 * by `size` bytes of data (a power of two). Each record is
 *
 *   u64 header {u32 payload length, u8 am id, u8 header length, u8 type, 0}
 *   AM header, padded to 8 bytes
 *   payload, padded to 8 bytes
 *
 * Records are packed, not cache-line aligned: measured on a 2-core EPYC,
 * ping-pong latency was no better with 64-byte alignment (the next slot is
 * often in the line the consumer already holds) and packing uses fewer lines
 * when small messages stream.
 *
 * A record never straddles the end of the data: a pad record (type PAD,
 * length = bytes to skip) fills the tail and the record goes at offset 0.
 *
 * The producer publishes a record by storing its header word last (release);
 * the consumer polls the header word at its own index (acquire), so one
 * message costs one cache-line transfer and an empty ring costs one load.
 * Stale bytes from an earlier lap can never look like a header because the
 * producer zeroes the header slot after each record before publishing it:
 * the slot at the producer's index is always zero. That needs 8 bytes of
 * slack, so at most size - 8 bytes of records are queued at once.
 *
 * The producer's and consumer's private state (indexes, cached copy of the
 * consumer index) lives in process memory, not in the ring. Indexes are
 * 64-bit byte counts that never wrap in practice.
 *
 * A zero-filled ring (fresh tmpfs pages) is a valid empty ring.
 *
 * The consumer trusts nothing in the ring: the producer is another process
 * that can write any bytes there at any time. It reads a record's header word
 * once and checks it (tp_shm_rec_decode) so the record lies within the ring
 * and does not straddle its end; the bytes of the record itself may still
 * change under the handler, which therefore copies what it checks.
 */
#ifndef RDMPI_TP_SHM_RING_H
#define RDMPI_TP_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "core/copy.h"
#include "core/errors.h"

#define TP_SHM_RING_CTRL 128  /* bytes of control block before the data */
#define TP_SHM_RING_REC_HDR 8 /* bytes of record header */
#define TP_SHM_RING_ALIGN 8   /* record alignment */
#define TP_SHM_RING_MIN 256   /* smallest data size accepted */

typedef struct tp_shm_ring {
    _Atomic uint64_t tail; /* consumer index: written by the consumer only */
    char pad[TP_SHM_RING_CTRL - sizeof(uint64_t)];
    /* data follows */
} tp_shm_ring_t;

/* Producer side, private to the sending process. */
typedef struct tp_shm_prod {
    tp_shm_ring_t *ring;
    uint8_t *data;
    uint64_t size, mask;
    uint64_t head;       /* bytes ever written, pads included */
    uint64_t tail_cache; /* last consumer index seen */
    uint64_t keep;       /* offset past which a record goes back to 0 if it can (prod_keep);
                          * UINT64_MAX: none */
} tp_shm_prod_t;

/* Consumer side, private to the receiving process. */
typedef struct tp_shm_cons {
    tp_shm_ring_t *ring;
    uint8_t *data;
    uint64_t size, mask;
    uint64_t tail;    /* bytes consumed, including the record being looked at */
    uint64_t cur_len; /* length of the record peek returned, 0 if none */
} tp_shm_cons_t;

/* A record handed out in place by peek; valid until release. */
typedef struct tp_shm_rec {
    unsigned id;
    const void *hdr;
    size_t hdr_len;
    const void *payload; /* 8-byte aligned */
    size_t len;
} tp_shm_rec_t;

/* Bytes of shared memory a ring with `size` data bytes occupies. */
static inline size_t tp_shm_ring_footprint(size_t size)
{
    return TP_SHM_RING_CTRL + size;
}

/* Bytes a record with these header and payload lengths takes in the ring. */
static inline uint64_t tp_shm_ring_record_len(size_t hdr_len, size_t len)
{
    uint64_t n = TP_SHM_RING_REC_HDR + ((hdr_len + 7) & ~(uint64_t)7) + len;
    return (n + TP_SHM_RING_ALIGN - 1) & ~(uint64_t)(TP_SHM_RING_ALIGN - 1);
}

/* Largest record (header and padding included) a ring of `size` accepts;
 * anything up to this fits eventually, wherever the producer index is. */
static inline size_t tp_shm_ring_max_record(size_t size)
{
    return size / 2;
}

/* Largest payload that fits in one record along with a hdr_len-byte header. */
size_t tp_shm_ring_max_payload(size_t size, size_t hdr_len);

/* Makes mem (tp_shm_ring_footprint(size) bytes) an empty ring. Only needed
 * for memory that is not known to be zero. size: a power of two >= 64. */
int tp_shm_ring_init(void *mem, size_t size);

/* Attach to a ring from either side; the ring must be empty or the side's
 * state must start where the ring's index is (both 0 for a fresh ring). */
int tp_shm_prod_init(tp_shm_prod_t *p, void *mem, size_t size);
int tp_shm_cons_init(tp_shm_cons_t *c, void *mem, size_t size);


/* The record format's pieces, for tp_shm_ring_push (inline: one push per message sent). */
enum { TP_SHM_REC_DATA = 1, TP_SHM_REC_PAD = 2 };
#define TP_SHM_ALIGN8(x) (((x) + 7) & ~(uint64_t)7)

static inline _Atomic uint64_t *tp_shm_ring_slot(uint8_t *data, uint64_t off)
{
    return (_Atomic uint64_t *)(void *)(data + off);
}

static inline uint64_t tp_shm_ring_rec_header(uint64_t len, unsigned id, size_t hdr_len,
                                              unsigned type)
{
    return len | (uint64_t)id << 32 | (uint64_t)hdr_len << 40 | (uint64_t)type << 48;
}

/*
 * Room check: `need` bytes past head must be free, where need covers the
 * pad (if the record wraps), the record and the zeroed slot after it. The
 * consumer's index is read from shared memory only when the cached copy says
 * the ring is too full.
 */
static inline int tp_shm_ring_has_room(tp_shm_prod_t *p, uint64_t need)
{
    if (p->head + need - p->tail_cache <= p->size)
        return 1;
    p->tail_cache = atomic_load_explicit(&p->ring->tail, memory_order_acquire);
    return p->head + need - p->tail_cache <= p->size;
}

/* Keeps the producer's records in the ring's first `bytes` while the consumer keeps up: a
 * record that would end past them goes to offset 0 (after a pad to the end, as at the end
 * of a lap) when the consumer has left that place, so a ring that never holds a backlog
 * touches only its first pages, whatever its size (each first touch of a page costs a
 * fault, each page kept warm a cache footprint). When the consumer has not left it, the
 * record goes on past, and the kept part doubles (up to the whole ring): a backlog gets
 * the room it needs. The default (prod_init) is the whole ring. */
void tp_shm_prod_keep(tp_shm_prod_t *p, size_t bytes);

/* tp_shm_ring_push for a record its caller has checked fits (hdr_len and id at most 255,
 * the record at most max_record: shm_am_send's limits, TP_SHM_MAX_AM_HDR and a max_am of a
 * quarter of the ring, imply them). The checks done twice were ~12 instructions of each
 * 8-byte send (callgrind, osu_mbw_mr). 0 or CORE_EBUSY. */
static inline int tp_shm_ring_push_fit(tp_shm_prod_t *p, unsigned id, const void *hdr,
                                       size_t hdr_len, const void *payload, size_t len)
{
    uint64_t hpad = TP_SHM_ALIGN8(hdr_len);
    uint64_t rlen = tp_shm_ring_record_len(hdr_len, len);
    uint64_t off = p->head & p->mask;
    uint64_t to_end = p->size - off;
    int wrap = rlen > to_end;
    if (__builtin_expect(!wrap && off + rlen + TP_SHM_RING_REC_HDR > p->keep, 0)) {
        /* Back to the start if the consumer has left it (a pad at off is valid: off > 0
         * here unless the record alone is larger than what is kept); else on, with room
         * kept for the backlog. */
        if (off != 0 && tp_shm_ring_has_room(p, to_end + rlen + TP_SHM_RING_REC_HDR))
            wrap = 1;
        else
            while (off + rlen + TP_SHM_RING_REC_HDR > p->keep)
                p->keep = p->keep >= p->size / 2 ? UINT64_MAX : p->keep * 2;
    }
    if (!tp_shm_ring_has_room(p, (wrap ? to_end : 0) + rlen + TP_SHM_RING_REC_HDR))
        return CORE_EBUSY;

    uint64_t roff = wrap ? 0 : off;
    uint8_t *rec = p->data + roff;
    core_copy_small(rec + TP_SHM_RING_REC_HDR, hdr, hdr_len);
    core_copy_small(rec + TP_SHM_RING_REC_HDR + hpad, payload, len);
    /* Keep "the slot at head is zero" true for the index after this record. */
    atomic_store_explicit(tp_shm_ring_slot(p->data, (roff + rlen) & p->mask), 0,
                          memory_order_relaxed);

    uint64_t h = tp_shm_ring_rec_header(len, id, hdr_len, TP_SHM_REC_DATA);
    if (wrap) {
        /* The consumer reaches offset 0 only through the pad, so the record
         * header can be plain; the pad's release store publishes both. */
        atomic_store_explicit(tp_shm_ring_slot(p->data, 0), h, memory_order_relaxed);
        atomic_store_explicit(tp_shm_ring_slot(p->data, off),
                              tp_shm_ring_rec_header(to_end, 0, 0, TP_SHM_REC_PAD),
                              memory_order_release);
        p->head += to_end + rlen;
    } else {
        atomic_store_explicit(tp_shm_ring_slot(p->data, off), h, memory_order_release);
        p->head += rlen;
    }
    return 0;
}

/* Copies one record into the ring. Returns 0 (buffers reusable),
 * CORE_EBUSY when there is no room now, CORE_EINVAL when the record can
 * never fit (hdr_len > 255, id > 255, or larger than max_record). Inline: the
 * call and the checks its caller repeats cost a small send more than the copy. */
static inline int tp_shm_ring_push(tp_shm_prod_t *p, unsigned id, const void *hdr,
                                   size_t hdr_len, const void *payload, size_t len)
{
    if (hdr_len > 255 || id > 255 || len > p->size ||
        tp_shm_ring_record_len(hdr_len, len) > tp_shm_ring_max_record(p->size))
        return CORE_EINVAL;
    return tp_shm_ring_push_fit(p, id, hdr, hdr_len, payload, len);
}

/* Whether everything pushed has been released by the consumer. */
int tp_shm_ring_drained(tp_shm_prod_t *p);
/* Bytes pushed that the consumer has not released yet (the cached index refreshed). */
uint64_t tp_shm_ring_backlog(tp_shm_prod_t *p);

/* Decodes the header word h of the record at byte offset off of a ring of
 * size data bytes (a power of two): 1 for a data record (rec's id, hdr_len
 * and len set, its bytes in the ring *rlen), 2 for a pad (*rlen bytes to
 * skip), CORE_EPROTO when no producer following this file could have written
 * it (unknown type, a record that straddles the end, is larger than
 * max_record, or a pad that does not fill the tail exactly). Pure: fuzzing
 * calls it directly. rec->hdr and rec->payload are not set. */
int tp_shm_rec_decode(uint64_t h, uint64_t off, uint64_t size, tp_shm_rec_t *rec, uint64_t *rlen);

/* tp_shm_rec_decode's work, inline in peek: it runs once per message. off is the
 * consumer's own index (in the ring, 8-byte aligned); only h comes from the producer. */
static inline __attribute__((always_inline)) int
tp_shm_rec_decode_in(uint64_t h, uint64_t off, uint64_t size, tp_shm_rec_t *rec, uint64_t *rlen)
{
    uint64_t len = h & 0xffffffffu;
    uint64_t type = h >> 48; /* the type byte and the top byte, which must be 0 */
    if (__builtin_expect(type == TP_SHM_REC_DATA, 1)) {
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
    if (type != TP_SHM_REC_PAD || off == 0 || len != size - off || (h >> 32 & 0xffff) != 0)
        return CORE_EPROTO;
    *rlen = len;
    return 2;
}

/* Looks at the oldest record without consuming it: 1 and *rec filled, 0
 * when the ring is empty, or CORE_EPROTO when the record is malformed
 * (*bad, if not NULL, gets its header word; the ring is then unusable).
 * Pads are skipped here. Call release before the next peek. Inline, as
 * release: one of each per message received. */
static inline int tp_shm_ring_peek(tp_shm_cons_t *c, tp_shm_rec_t *rec, uint64_t *bad)
{
    for (;;) {
        uint64_t off = c->tail & c->mask;
        uint8_t *slot = c->data + off;
        /* Read once: the producer may write the word again after we checked it. */
        uint64_t h = atomic_load_explicit(tp_shm_ring_slot(slot, 0), memory_order_acquire);
        if (h == 0)
            return 0;
        uint64_t rlen;
        int kind = tp_shm_rec_decode_in(h, off, c->size, rec, &rlen);
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
        rec->payload = slot + TP_SHM_RING_REC_HDR + TP_SHM_ALIGN8(rec->hdr_len);
        c->cur_len = rlen;
        return 1;
    }
}

/* Gives the record returned by peek back to the producer. */
static inline void tp_shm_ring_release(tp_shm_cons_t *c)
{
    c->tail += c->cur_len;
    c->cur_len = 0;
    /* Release: our reads of the record happen before the producer reuses it. */
    atomic_store_explicit(&c->ring->tail, c->tail, memory_order_release);
}

/* Cheap emptiness test for polling many rings: one load of one word. */
static inline int tp_shm_ring_empty(const tp_shm_cons_t *c)
{
    const _Atomic uint64_t *slot = (const _Atomic uint64_t *)(c->data + (c->tail & c->mask));
    return atomic_load_explicit(slot, memory_order_relaxed) == 0;
}

#endif
