/*
 * Alltoall(v/w) with all messages in flight at once, in windows of
 * COLL_A2A_WINDOW peers (receives from r + i, sends to r - i, so no rank is
 * everyone's first target). About alpha + n beta when the network keeps up:
 * the choice for medium blocks, where pairwise exchange waits on each step
 * and Bruck's extra copies cost more than latency.
 */
#include "collectives/coll_impl.h"

#define COLL_A2A_WINDOW 32

void coll_alltoall_linear(coll_sched_t *s, const coll_grp_t *g, const coll_layout_t *sl,
                          const coll_layout_t *rl)
{
    int n = g->n, r = g->me;
    coll_layout_t copy;
    int own = sl->buf != MPI_IN_PLACE;   /* the own block still to copy */
    if (!own) {
        if (coll_alltoall_inplace_src(s, rl, n, &copy))
            return;
        sl = &copy;
    }
    for (int first = 1; first < n || own; first += COLL_A2A_WINDOW) {
        int last = first + COLL_A2A_WINDOW < n ? first + COLL_A2A_WINDOW : n;
        for (int i = first; i < last; i++) {
            int from = (r + i) % n;
            coll_sched_recv(s, lay_ptr(rl, from), (size_t)lay_count(rl, from), lay_dt(rl, from),
                            grp_peer(g, from));
        }
        for (int i = first; i < last; i++) {
            int to = (r - i + n) % n;
            coll_sched_send(s, lay_ptr(sl, to), (size_t)lay_count(sl, to), lay_dt(sl, to),
                            grp_peer(g, to));
        }
        if (own) {   /* while the first window's messages travel */
            coll_sched_copy(s, lay_ptr(sl, r), (size_t)lay_count(sl, r), lay_dt(sl, r),
                            lay_ptr(rl, r), (size_t)lay_count(rl, r), lay_dt(rl, r));
            own = 0;
        }
        coll_sched_fence(s);
    }
    coll_sched_fence(s);
}
