/*
 * Cooperative single copy. A large get (the rendezvous of a big message)
 * is cut into chunks that both ends copy at once: the receiver reads chunks
 * with process_vm_readv while the sender, told by a HELP record, writes
 * other chunks with process_vm_writev from inside its progress. Chunks are
 * claimed from a counter in the pair's slot of the segment, so whoever is
 * present does the work: a sender busy computing simply contributes nothing,
 * and the copy still finishes. One process's CMA copy runs at a fraction of
 * memcpy speed (page pinning); two of them nearly double the bandwidth.
 *
 * Help is asked only where it is likely free: not when the node has more
 * ranks than cores, nor from a peer that is running a copy of its own.
 *
 * The claim and done counters carry a generation number in their upper 32
 * bits: a helper that arrives late, after the slot was reused, fails its
 * claim instead of touching the new transfer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "core/log.h"
#include "core/memcheck.h"
#include "transports/shm/shm.h"

#define COOP_CHUNK ((uint64_t)256 << 10) /* process_vm_* peaks near this size */
#define COOP_CHUNK_MIN ((uint64_t)32 << 10)

typedef struct coop_help {
    uint32_t slot, gen;
    int32_t pid;       /* the requester, whose buffer the helper writes */
    uint32_t reserved;
    uint64_t dst;      /* requester's buffer */
    uint64_t src;      /* helper's own buffer */
    uint64_t len;
} coop_help_t;

/* The chunk of a copy of len bytes, a function of len alone (both sides compute it). Below
 * 2 COOP_CHUNK, halves (whole pages), so that a helper that is there takes one: a 256 KiB
 * ping-pong copied as one 256 KiB read took 13.8-16.5 us (P50 of osu_latency -z at load
 * 30), as two halves 8.5-9.0 (Open MPI 13.1-16.6). */
static inline uint64_t chunk_of(uint64_t len)
{
    if (len >= 2 * COOP_CHUNK)
        return COOP_CHUNK;
    uint64_t half = ((len / 2) + 4095) & ~(uint64_t)4095;
    return half > COOP_CHUNK_MIN ? half : COOP_CHUNK_MIN;
}

static inline uint64_t nchunks_of(uint64_t len)
{
    uint64_t c = chunk_of(len);
    return (len + c - 1) / c;
}

/* Claims the next chunk of generation gen: its index, or -1 when none is left. */
static int64_t claim(tp_shm_coop_slot_t *sl, uint32_t gen, uint64_t n)
{
    uint64_t v = atomic_load_explicit(&sl->claim, memory_order_acquire);
    for (;;) {
        if ((uint32_t)(v >> 32) != gen || (v & 0xffffffffu) >= n)
            return -1;
        if (atomic_compare_exchange_weak_explicit(&sl->claim, &v, v + 1, memory_order_acq_rel,
                                                  memory_order_acquire))
            return (int64_t)(v & 0xffffffffu);
    }
}

/* Copies chunk i between local and remote memory of pid. */
static int copy_chunk(pid_t pid, uint8_t *local, uint64_t remote, uint64_t len, uint64_t i,
                      int write)
{
    uint64_t c = chunk_of(len);
    uint64_t off = i * c;
    uint64_t n = len - off < c ? len - off : c;
    while (n > 0) {
        struct iovec l = {.iov_base = local + off, .iov_len = n};
        struct iovec r = {.iov_base = (void *)(uintptr_t)(remote + off), .iov_len = n};
        ssize_t k = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return errno ? errno : EFAULT;
        off += (uint64_t)k;
        n -= (uint64_t)k;
    }
    return 0;
}

/* The helper's side: copy chunks until none is left (called from progress). The request
 * comes from the requester's ring: its slot must be one of the pair's, and the process it
 * has us write to must be the requester itself. (The source address is our own buffer as
 * the requester read it from our RTS; a requester that names another address of ours only
 * gets bytes it could read itself, CMA being allowed both ways.) */
int tp_shm_coop_help(tp_shm_iface_t *s, int lsrc, const void *hdr, size_t hdr_len)
{
    coop_help_t h;
    if (hdr_len != sizeof(h))
        return core_wire_reject(s->rt, "copy request of %zu bytes", hdr_len);
    memcpy(&h, hdr, sizeof(h));
    if (h.slot >= TP_SHM_COOP_SLOTS)
        return core_wire_reject(s->rt, "copy request for slot %u (of %d)", h.slot,
                                TP_SHM_COOP_SLOTS);
    if (!s->coop)
        return 0; /* no CMA here: the requester copies alone */
    if (h.pid != tp_shm_peer_pid(s, lsrc))
        return core_wire_reject(s->rt, "copy request into pid %d, not the requester's",
                                (int)h.pid);
    if (h.len == 0 || h.len > PTRDIFF_MAX)
        return core_wire_reject(s->rt, "copy request of %llu bytes", (unsigned long long)h.len);
    tp_shm_coop_slot_t *sl = tp_shm_seg_coop(s, lsrc, s->me, h.slot);
    uint64_t n = nchunks_of(h.len);
    int64_t i;
    /* Not counted as a copy of ours (tp_shm_copying): the next request of a requester we
     * help would find us busy and go alone (osu_bw 512 KiB: 21.9 against 31.4 GB/s). */
    while ((i = claim(sl, h.gen, n)) >= 0) {
        int err = copy_chunk(h.pid, (uint8_t *)(uintptr_t)h.src, h.dst, h.len, (uint64_t)i, 1);
        if (err)
            core_fatal("shm: writing part of a message to local rank %d (pid %d) failed: %s",
                       lsrc, (int)h.pid, strerror(err));
        atomic_fetch_add_explicit(&sl->done, 1, memory_order_release);
    }
    return 0;
}

static int slot_finished(tp_shm_coop_slot_t *sl, uint32_t gen, uint64_t n)
{
    uint64_t d = atomic_load_explicit(&sl->done, memory_order_acquire);
    return d == (((uint64_t)gen << 32) | n);
}

int tp_shm_coop_get(tp_shm_ep_t *e, void *local, size_t len, uint64_t raddr, pid_t pid,
                    tp_comp_t *comp)
{
    tp_shm_iface_t *s = tp_shm_iface(e->base.iface);
    /* More ranks than cores: no core is idle to help; the helper we wake takes one from a
     * rank that had its own copy to do (OSU 7.4 osu_alltoall 1 MiB, 4 ranks on 2 cores:
     * 1030 us with help, 799 without, Open MPI 763; 8 ranks 5406 against 4435, 5107). */
    if (!s->coop || s->rt->oversubscribed)
        return CORE_EUNSUPPORTED;
    /* A peer that is copying already (its own receive, as both of osu_bibw's ranks do) has
     * no core to spare: its chunks would only come later, written into lines of ours from
     * its cache. Each reads its own then (OSU 7.4 osu_bibw, medians of 5, load average 8-10,
     * 2026-12-07: 4 MiB 26.8 GB/s against 20.7 with help, Open MPI 26.2; 2 MiB 29.5 against
     * 23.4, Open MPI 25.2). */
    if (atomic_load_explicit(tp_shm_seg_copying(s, e->lpeer), memory_order_relaxed))
        return CORE_EUNSUPPORTED;
    tp_shm_coop_job_t *job = NULL;
    uint32_t k;
    for (k = 0; k < TP_SHM_COOP_SLOTS; k++)
        if (!s->coop[e->lpeer * TP_SHM_COOP_SLOTS + k].busy) {
            job = &s->coop[e->lpeer * TP_SHM_COOP_SLOTS + k];
            break;
        }
    if (!job)
        return CORE_EUNSUPPORTED;
    tp_shm_coop_slot_t *sl = tp_shm_seg_coop(s, s->me, e->lpeer, k);
    uint32_t gen = ++s->coop_gen;
    uint64_t n = nchunks_of(len);
    atomic_store_explicit(&sl->done, (uint64_t)gen << 32, memory_order_relaxed);
    atomic_store_explicit(&sl->claim, (uint64_t)gen << 32, memory_order_release);
    coop_help_t h = {k, gen, (int32_t)getpid(), 0, (uint64_t)(uintptr_t)local, raddr, len};
    /* No room for the request: the copy just runs alone. The ring's producer side is shared
     * with threads sending outside G (S(peer), transport.h). */
    tp_send_lock(s->base.layer, e->base.peer);
    (void)tp_shm_ring_push(&e->prod, TP_SHM_ID_COOP, &h, sizeof(h), NULL, 0);
    tp_send_unlock(s->base.layer, e->base.peer);
    int64_t i;
    tp_shm_copying(s, 1);
    while ((i = claim(sl, gen, n)) >= 0) {
        int err = copy_chunk(pid, local, raddr, len, (uint64_t)i, 0);
        if (err) {
            tp_shm_copying(s, -1);
            core_error("shm: reading a message from local rank %d (pid %d) failed: %s", e->lpeer,
                       (int)pid, strerror(err));
            return CORE_EIO;
        }
        atomic_fetch_add_explicit(&sl->done, 1, memory_order_release);
    }
    tp_shm_copying(s, -1);
    if (slot_finished(sl, gen, n)) {
        CORE_MEM_DEFINED(local, len); /* the helper's chunks came by its process_vm_writev */
        return 0;
    }
    /* The helper still copies its last chunks: finish from progress. */
    job->busy = 1;
    job->gen = gen;
    job->nchunks = n;
    job->comp = comp;
    job->local = local;
    job->len = len;
    s->coop_pending++;
    return CORE_INPROGRESS;
}

int tp_shm_coop_progress(tp_shm_iface_t *s)
{
    int events = 0;
    for (int p = 0; p < s->nlocal && s->coop_pending; p++)
        for (uint32_t k = 0; k < TP_SHM_COOP_SLOTS; k++) {
            tp_shm_coop_job_t *job = &s->coop[p * TP_SHM_COOP_SLOTS + k];
            if (!job->busy || !slot_finished(tp_shm_seg_coop(s, s->me, p, k), job->gen,
                                             job->nchunks))
                continue;
            job->busy = 0;
            s->coop_pending--;
            events++;
            CORE_MEM_DEFINED(job->local, job->len);
            job->comp->done(job->comp, 0);
        }
    return events;
}
