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

enum { REC_DATA = TP_SHM_REC_DATA, REC_PAD = TP_SHM_REC_PAD };

#define ALIGN8 TP_SHM_ALIGN8

#define slot_at tp_shm_ring_slot

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

int tp_shm_ring_drained(tp_shm_prod_t *p)
{
    if (p->tail_cache == p->head)
        return 1;
    p->tail_cache = atomic_load_explicit(&p->ring->tail, memory_order_acquire);
    return p->tail_cache == p->head;
}

uint64_t tp_shm_ring_backlog(tp_shm_prod_t *p)
{
    if (p->tail_cache != p->head)
        p->tail_cache = atomic_load_explicit(&p->ring->tail, memory_order_acquire);
    return p->head - p->tail_cache;
}

int tp_shm_rec_decode(uint64_t h, uint64_t off, uint64_t size, tp_shm_rec_t *rec, uint64_t *rlen)
{
    if (off >= size || (off & (TP_SHM_RING_ALIGN - 1)) != 0)
        return CORE_EPROTO;
    return tp_shm_rec_decode_in(h, off, size, rec, rlen);
}

