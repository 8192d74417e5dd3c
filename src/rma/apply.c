/*
 * A decoded OP piece applied to the window's memory at the target: the check
 * that its segments lie in the window (or in memory attached to a dynamic
 * window), then the copy, read, accumulate or compare-and-swap (per element
 * atomically, atomic.c). Pure functions of the window and the message (the
 * fuzz target runs them).
 */
#include <stdlib.h>
#include <string.h>
#include "rma/rma.h"
#include "core/datatype.h"
#include "core/op.h"

/* Where the segments of a piece may lie in win: the window, or its attached regions. */
int rma_apply_check(MPI_Win win, const rma_op_msg_t *m, char *why, size_t why_len)
{
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return rma_wire_segs_fit(m, win->regions, win->nregions, why, why_len);
    rma_region_t r = { 0, (uint64_t)win->len };
    return rma_wire_segs_fit(m, &r, 1, why, why_len);
}

static uint8_t *seg_addr(MPI_Win win, uint64_t disp)
{
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return (uint8_t *)(uintptr_t)disp;
    return (uint8_t *)win->base + disp;
}

/* Applies the decoded piece m to win; fills out (m->h.len bytes) with the old contents
 * for GET, GACC and CAS. */
int rma_apply(MPI_Win win, const rma_op_msg_t *m, uint8_t *out)
{
    size_t esz = m->elem ? m->elem->size : 1;
    /* A window in a node segment is also updated in place by the node's ranks: the same
     * per-element atomics (and lock) as theirs. */
    uint32_t *acc = rma_acc_lock(win);
    size_t off = 0;
    int rc = 0;
    for (uint32_t i = 0; i < m->h.nseg && rc == 0; i++) {
        rma_seg_t s = rma_wire_seg(m, i);
        uint8_t *p = seg_addr(win, s.disp);
        switch (m->h.kind) {
        case RMA_PUT:
            memcpy(p, m->data + off, s.len);
            break;
        case RMA_GET:
            memcpy(out + off, p, s.len);
            break;
        case RMA_GACC:
        case RMA_ACC:
            rc = rma_atomic_acc(p, m->data + off, m->h.kind == RMA_GACC ? out + off : NULL,
                                s.len, m->elem, m->aop, acc);
            break;
        case RMA_CAS:
            rma_atomic_cas(p, m->data, m->data + esz, out, esz, acc);
            break;
        }
        off += s.len;
    }
    return rc;
}

