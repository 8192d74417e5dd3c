/*
 * The origin's direct paths to a target of its node: SHM (the target's part
 * of the node segment is mapped here: copies and CPU atomics) and CMA (the
 * target's MPI_Win_create memory, one process_vm_writev/readv per
 * operation). The operation was checked and its target memory flattened
 * (origin.c); each path completes it before returning, so flush, unlock,
 * fence and complete have nothing to wait for on these targets.
 * SELF: a rank's operations on its own window memory (not in a segment, not
 * dynamic) are the same copies and atomics, on the memory itself, once no
 * message to itself is pending (accumulates stay in order).
 * rma_shm_fast is the SHM, SELF and CMA path of the commonest operation, a
 * Put or Get of one run to one run, taken straight from the MPI call: no
 * argument record, no segment list, one memcpy (CMA: one system call). A
 * dynamic window's node ranks are reached by CMA too once the target's region
 * table (published in its control block, read by CMA when it changed) says
 * the memory is attached; otherwise the target checks, as with messages.
 * rma_shm_fop_fast and rma_shm_acc_fast are the SHM path of the atomics and
 * accumulates of predefined types from the call: the same rma_atomic_acc and
 * rma_atomic_cas as rma_shm_op and as the target applying messages (off-node
 * origins, rdmpi_rma_path=message), so all of them may meet on one location;
 * an origin takes the SHM path for every accumulate to a target or for none,
 * so its accumulates to one location stay in order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "rma/rma.h"
#include "core/datatype.h"
#include "core/log.h"
#include "core/op.h"

/* The packed bytes of count items of dt in buf, without a copy when they are one run. */
static const uint8_t *origin_bytes(const void *buf, int count, MPI_Datatype dt, size_t tbytes,
                                   uint8_t **tmp)
{
    *tmp = NULL;
    if (dt->nblocks == 1 && (count <= 1 || dt->extent == (MPI_Aint)dt->size))
        return (const uint8_t *)buf + dt->blocks[0].off;
    *tmp = malloc(tbytes);
    if (*tmp)
        core_dt_pack(*tmp, buf, (size_t)count, dt);
    return *tmp;
}

/* Where tbytes of result go: straight into buf when it is one run, else a buffer that
 * result_done unpacks. */
static uint8_t *result_bytes(void *buf, int count, MPI_Datatype dt, size_t tbytes,
                             uint8_t **tmp)
{
    *tmp = NULL;
    if (dt->nblocks == 1 && (count <= 1 || dt->extent == (MPI_Aint)dt->size))
        return (uint8_t *)buf + dt->blocks[0].off;
    *tmp = malloc(tbytes);
    return *tmp;
}

static void result_done(void *buf, int count, MPI_Datatype dt, uint8_t *tmp, size_t tbytes)
{
    if (tmp) {
        core_dt_unpack(buf, (size_t)count, dt, tmp, tbytes);
        free(tmp);
    }
}

/* The operation on target memory mem mapped here (acc: its accumulate lock, NULL: only this
 * rank applies accumulates to it). */
static int direct_op(const rma_args_t *a, const rma_segs_t *v, size_t tbytes, uint8_t *mem,
                     uint32_t *acc)
{
    if (tbytes == 0)
        return 0;
    uint8_t *otmp = NULL, *rtmp = NULL, *res = NULL;
    const uint8_t *src = NULL;
    int has_origin = a->kind == RMA_PUT || a->kind == RMA_ACC ||
                     (a->kind == RMA_GACC && a->op != MPI_NO_OP);
    int fetch = a->kind == RMA_GET || a->kind == RMA_GACC;
    if (has_origin && !(src = origin_bytes(a->obuf, a->ocount, a->odt, tbytes, &otmp)))
        return CORE_ENOMEM;
    if (fetch && !(res = result_bytes(a->rbuf, a->rcount, a->rdt, tbytes, &rtmp))) {
        free(otmp);
        return CORE_ENOMEM;
    }
    int rc = 0;
    MPI_Datatype elem = a->kind >= RMA_ACC ? rma_wire_elem_type(a->tdt->basic) : NULL;
    if (a->kind == RMA_CAS) {
        /* one element (check_args), the compare value in cbuf */
        uint8_t old[64];
        rma_atomic_cas(mem + v->s[0].disp, a->obuf, a->cbuf, old, elem->size, acc);
        memcpy(a->rbuf, old, elem->size);
        return 0;
    }
    size_t off = 0;
    for (size_t i = 0; i < v->n && rc == 0; i++) {
        uint8_t *t = mem + v->s[i].disp;
        size_t len = v->s[i].len;
        switch (a->kind) {
        case RMA_PUT:
            memcpy(t, src + off, len);
            break;
        case RMA_GET:
            memcpy(res + off, t, len);
            break;
        default:
            rc = rma_atomic_acc(t, src ? src + off : NULL, res ? res + off : NULL, len, elem,
                                a->op, acc);
            break;
        }
        off += len;
    }
    free(otmp);
    if (fetch)
        result_done(a->rbuf, a->rcount, a->rdt, rtmp, tbytes);
    return rc;
}

int rma_shm_op(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, size_t tbytes)
{
    rma_peer_t *p = &win->peers[a->target];
    return direct_op(a, v, tbytes, p->mem, &p->ctl->acc);
}

int rma_self_usable(MPI_Win win, int target)
{
    return target == win->rank && win->flavor != MPI_WIN_FLAVOR_DYNAMIC && !win->force_msg &&
           win->peers[target].path != RMA_PATH_SHM && win->peers[target].pending == 0;
}

int rma_self_op(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, size_t tbytes)
{
    return direct_op(a, v, tbytes, win->base, rma_acc_lock(win));
}

/* Whether [addr, addr + len) lies in one region rank r of dynamic window win has attached,
 * by the table it publishes in its control block (read here by CMA when it changed). 0: not
 * known to (the general path asks the target, which reports MPI_ERR_RMA_RANGE). */
static int dyn_attached(rma_peer_t *p, uint64_t addr, size_t len)
{
    uint64_t gen = __atomic_load_n(&p->ctl->regions_gen, __ATOMIC_ACQUIRE);
    if (gen & 1)
        return 0;   /* being changed now */
    if (gen != p->rcache_gen) {
        uint64_t n = __atomic_load_n(&p->ctl->nregions, __ATOMIC_RELAXED);
        uint64_t at = __atomic_load_n(&p->ctl->regions_addr, __ATOMIC_RELAXED);
        if (n > (1u << 20))
            return 0;
        rma_region_t *t = n ? malloc((size_t)n * sizeof(*t)) : NULL;
        if (n && !t)
            return 0;
        struct iovec loc = { t, (size_t)n * sizeof(*t) };
        struct iovec rem = { (void *)(uintptr_t)at, loc.iov_len };
        if (n && process_vm_readv(p->pid, &loc, 1, &rem, 1, 0) != (ssize_t)loc.iov_len) {
            free(t);
            return 0;
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&p->ctl->regions_gen, __ATOMIC_RELAXED) != gen) {
            free(t);   /* changed while read: maybe torn */
            return 0;
        }
        free(p->rcache);
        p->rcache = t;
        p->nrcache = (size_t)n;
        p->rcache_gen = gen;
    }
    for (size_t i = 0; i < p->nrcache; i++) {
        const rma_region_t *g = &p->rcache[i];
        if (addr >= g->base && addr - g->base <= g->len && len <= g->len - (addr - g->base))
            return 1;
    }
    return 0;
}

/* A contiguous Put or Get to a node rank's attached memory of a dynamic window: one
 * process_vm_writev/readv. CORE_EUNSUPPORTED: not known attached, or not moved whole (the
 * general path takes it). */
static int dyn_fast(MPI_Win win, int put, void *buf, int count, MPI_Datatype dt, int target,
                    MPI_Aint tdisp, int tcount, MPI_Datatype tdt)
{
    rma_peer_t *p = &win->peers[target];
    if (!p->ctl || win->force_msg || !core_dt_is_contig(dt) || !core_dt_is_contig(tdt) ||
        !rma_access_ok(win, target))
        return CORE_EUNSUPPORTED;
    size_t bytes = (size_t)count * dt->size;
    MPI_Aint d;
    if (bytes != (size_t)tcount * tdt->size ||
        __builtin_add_overflow(tdisp, tdt->blocks[0].off, &d))
        return CORE_EUNSUPPORTED;
    if (bytes == 0)
        return 0;
    if (!dyn_attached(p, (uint64_t)d, bytes))
        return CORE_EUNSUPPORTED;
    uint8_t *o = (uint8_t *)buf + dt->blocks[0].off;
    struct iovec loc = { o, bytes }, rem = { (void *)(uintptr_t)(uint64_t)d, bytes };
    ssize_t got = put ? process_vm_writev(p->pid, &loc, 1, &rem, 1, 0)
                      : process_vm_readv(p->pid, &loc, 1, &rem, 1, 0);
    return got == (ssize_t)bytes ? 0 : CORE_EUNSUPPORTED;
}

int rma_shm_fast(MPI_Win win, int put, void *buf, int count, MPI_Datatype dt, int target,
                 MPI_Aint tdisp, int tcount, MPI_Datatype tdt)
{
    if (target < 0)
        return CORE_EUNSUPPORTED;
    const rma_peer_t *p = &win->peers[target];
    uint8_t *mem = p->mem;
    int cma = 0;
    if (p->path != RMA_PATH_SHM) {
        if (target == win->rank && rma_self_usable(win, target))
            mem = win->base;
        else if (p->path == RMA_PATH_CMA)
            cma = 1;
        else if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC && p->pid)
            return dyn_fast(win, put, buf, count, dt, target, tdisp, tcount, tdt);
        else   /* RDMA, messages: not here, and cheaply so */
            return CORE_EUNSUPPORTED;
    }
    if (!core_dt_is_contig(dt) || !core_dt_is_contig(tdt) || !rma_access_ok(win, target))
        return CORE_EUNSUPPORTED;
    /* Both sides one run: the bytes must agree and the run lie in the target's part (the
     * general path reports what is wrong otherwise). */
    size_t bytes = (size_t)count * dt->size;
    MPI_Aint d;
    if (bytes != (size_t)tcount * tdt->size || __builtin_mul_overflow(tdisp, p->disp_unit, &d) ||
        __builtin_add_overflow(d, tdt->blocks[0].off, &d) || d < 0 || (uint64_t)d > p->size ||
        bytes > p->size - (uint64_t)d)
        return CORE_EUNSUPPORTED;
    if (bytes == 0)
        return 0;
    uint8_t *o = (uint8_t *)buf + dt->blocks[0].off;
    if (cma) {
        /* one run each side: one system call; anything short of all of it (refused, a
         * partial move) is redone by rma_cma_op, which knows what to do about it */
        struct iovec loc = { o, bytes }, rem = { (void *)(uintptr_t)(p->addr + (uint64_t)d), bytes };
        ssize_t got = put ? process_vm_writev(p->pid, &loc, 1, &rem, 1, 0)
                          : process_vm_readv(p->pid, &loc, 1, &rem, 1, 0);
        return got == (ssize_t)bytes ? 0 : CORE_EUNSUPPORTED;
    }
    if (put)
        memcpy(mem + d, o, bytes);
    else
        memcpy(o, mem + d, bytes);
    return 0;
}

/* One process_vm_* call moves at most IOV_MAX segments; runs longer than the kernel takes
 * at once come back short and are continued. */
#define CMA_IOV 64

int rma_cma_op(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, size_t tbytes)
{
    rma_peer_t *p = &win->peers[a->target];
    if (a->kind != RMA_PUT && a->kind != RMA_GET)
        return CORE_EUNSUPPORTED;
    if (tbytes == 0)
        return 0;
    int put = a->kind == RMA_PUT;
    uint8_t *tmp = NULL, *buf;
    if (put)
        buf = (uint8_t *)origin_bytes(a->obuf, a->ocount, a->odt, tbytes, &tmp);
    else
        buf = result_bytes(a->rbuf, a->rcount, a->rdt, tbytes, &tmp);
    if (!buf)
        return CORE_ENOMEM;
    size_t si = 0, so = 0, off = 0;
    int rc = 0;
    while (si < v->n) {
        struct iovec rem[CMA_IOV];
        int n = 0;
        size_t want = 0;
        for (size_t k = si, ko = so; k < v->n && n < CMA_IOV; k++, ko = 0) {
            rem[n].iov_base = (void *)(uintptr_t)(p->addr + v->s[k].disp + ko);
            rem[n].iov_len = v->s[k].len - ko;
            want += rem[n++].iov_len;
        }
        struct iovec loc = { buf + off, want };
        ssize_t got = put ? process_vm_writev(p->pid, &loc, 1, rem, (unsigned long)n, 0)
                          : process_vm_readv(p->pid, &loc, 1, rem, (unsigned long)n, 0);
        if (got <= 0) {
            if (off == 0 && (errno == EPERM || errno == ESRCH || errno == ENOSYS)) {
                /* Not permitted after all (ptrace policy): messages from now on. */
                core_info("RMA: CMA to rank %d refused (%s): using messages", a->target,
                          strerror(errno));
                p->path = RMA_PATH_MSG;
                rc = CORE_EUNSUPPORTED;
            } else {
                core_error("RMA: CMA %s rank %d failed: %s", put ? "to" : "from", a->target,
                           got < 0 ? strerror(errno) : "nothing moved");
                rc = CORE_EIO;
            }
            break;
        }
        off += (size_t)got;
        /* advance the segments by what moved */
        size_t left = (size_t)got;
        while (left > 0 && si < v->n) {
            size_t seg_left = v->s[si].len - so;
            if (left >= seg_left) {
                left -= seg_left;
                si++;
                so = 0;
            } else {
                so += left;
                left = 0;
            }
        }
    }
    if (put)
        free(tmp);
    else if (rc == 0)
        result_done(a->rbuf, a->rcount, a->rdt, tmp, tbytes);
    else
        free(tmp);
    return rc;
}

int rma_shm_fop_fast(MPI_Win win, const void *obuf, const void *cbuf, void *rbuf,
                     MPI_Datatype dt, int target, MPI_Aint tdisp, MPI_Op op)
{
    if (target < 0 || win->dev_atomics)
        return CORE_EUNSUPPORTED;
    rma_peer_t *p = &win->peers[target];
    if (p->path != RMA_PATH_SHM || !rma_access_ok(win, target))
        return CORE_EUNSUPPORTED;
    MPI_Datatype elem = rma_wire_elem_type(dt->basic);
    /* one element of a type the op is defined on (the general path reports the rest) */
    if (!elem || elem->size != dt->size || dt->size > 8 || dt->nblocks != 1 ||
        (cbuf ? !rma_wire_cas_kind(dt->basic) : !core_op_valid(op, elem)))
        return CORE_EUNSUPPORTED;
    MPI_Aint d;
    if (__builtin_mul_overflow(tdisp, p->disp_unit, &d) ||
        __builtin_add_overflow(d, dt->blocks[0].off, &d) || d < 0 || (uint64_t)d > p->size ||
        dt->size > p->size - (uint64_t)d)
        return CORE_EUNSUPPORTED;
    if (cbuf) {
        rma_atomic_cas(p->mem + d, obuf, cbuf, rbuf, dt->size, &p->ctl->acc);
        return 0;
    }
    const uint8_t *src = op == MPI_NO_OP ? NULL : (const uint8_t *)obuf + dt->blocks[0].off;
    return rma_atomic_acc(p->mem + d, src, (uint8_t *)rbuf + dt->blocks[0].off, dt->size, elem,
                          op, &p->ctl->acc);
}

int rma_shm_acc_fast(MPI_Win win, const void *obuf, int ocount, MPI_Datatype odt, void *rbuf,
                     int rcount, MPI_Datatype rdt, int target, MPI_Aint tdisp, int tcount,
                     MPI_Datatype tdt, MPI_Op op)
{
    if (target < 0 || win->dev_atomics)
        return CORE_EUNSUPPORTED;
    rma_peer_t *p = &win->peers[target];
    if (p->path != RMA_PATH_SHM || !rma_access_ok(win, target))
        return CORE_EUNSUPPORTED;
    /* one predefined type without holes on every side (pair types with holes, derived
     * types, mismatches: the general path, which also reports what is wrong) */
    MPI_Datatype elem = rma_wire_elem_type(tdt->basic);
    int fetch = rdt != NULL, reads_origin = !fetch || op != MPI_NO_OP;
    if (!(tdt->flags & CORE_DT_PREDEFINED) || !elem || elem->size != tdt->size ||
        tdt->nblocks != 1 || tdt->extent != (MPI_Aint)tdt->size ||
        (reads_origin && (odt != tdt || ocount != tcount)) ||
        (fetch && (rdt != tdt || rcount != tcount)) || !op->predefined ||
        op->kind == CORE_OP_USER || !core_op_valid(op, elem))
        return CORE_EUNSUPPORTED;
    size_t bytes;
    MPI_Aint d;
    if (__builtin_mul_overflow((size_t)tcount, tdt->size, &bytes) ||
        __builtin_mul_overflow(tdisp, p->disp_unit, &d) ||
        __builtin_add_overflow(d, tdt->blocks[0].off, &d) || d < 0 || (uint64_t)d > p->size ||
        bytes > p->size - (uint64_t)d)
        return CORE_EUNSUPPORTED;
    if (bytes == 0)
        return 0;
    /* the same per-element atomics (and lock for the rest) as rma_shm_op and the target's
     * message path: the three may update one location at once */
    const uint8_t *src = reads_origin ? (const uint8_t *)obuf + tdt->blocks[0].off : NULL;
    uint8_t *old = fetch ? (uint8_t *)rbuf + tdt->blocks[0].off : NULL;
    return rma_atomic_acc(p->mem + d, src, old, bytes, elem, op, &p->ctl->acc);
}
