/*
 * A decoded OP piece applied to the window's memory at the target: the check
 * that its segments lie in the window (or in memory attached to a dynamic
 * window), then the copy, read, accumulate or compare-and-swap. Pure
 * functions of the window and the message (the fuzz target runs them).
 */
#include <stdlib.h>
#include <string.h>
#include "rma/rma.h"
#include "core/datatype.h"
#include "core/op.h"

/* Applies an accumulate of n bytes at dst: through an aligned copy, since window memory
 * and the payload need not be aligned for the element type. */
static int acc_apply(const rma_op_msg_t *m, uint8_t *dst, const uint8_t *src, size_t n,
                     uint8_t *tmp_in, uint8_t *tmp_out)
{
    memcpy(tmp_in, src, n);
    memcpy(tmp_out, dst, n);
    if (m->elem == MPI_C_BOOL) {
        /* A byte other than 0 or 1 (from a peer, or in the window) is no valid _Bool: read
         * as C reads an integer in a condition. */
        for (size_t i = 0; i < n; i++) {
            tmp_in[i] = tmp_in[i] != 0;
            tmp_out[i] = tmp_out[i] != 0;
        }
    }
    int rc = core_op_apply(m->aop, tmp_in, tmp_out, (int)(n / m->elem->size), m->elem);
    if (rc == 0)
        memcpy(dst, tmp_out, n);
    return rc;
}

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
    uint8_t *tmp = NULL;
    if (m->h.kind == RMA_ACC || m->h.kind == RMA_GACC) {
        size_t big = 0;
        for (uint32_t i = 0; i < m->h.nseg; i++) {
            rma_seg_t s = rma_wire_seg(m, i);
            big = s.len > big ? s.len : big;
        }
        tmp = malloc(2 * big + 2 * esz);
        if (!tmp)
            return CORE_ENOMEM;
    }
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
            memcpy(out + off, p, s.len);
            /* fall through */
        case RMA_ACC:
            rc = acc_apply(m, p, m->data + off, s.len, tmp, tmp + s.len);
            break;
        case RMA_CAS:
            memcpy(out, p, esz);
            if (memcmp(p, m->data + esz, esz) == 0)
                memcpy(p, m->data, esz);
            break;
        }
        off += s.len;
    }
    free(tmp);
    return rc;
}

