/*
 * Matching queues (see match.h). Plain singly linked lists: the common case
 * is a short queue whose head matches.
 */
#include "p2p/match.h"

/* Takes r, which follows prev (NULL: r is the head), out of the posted queue. */
static void unlink_posted(p2p_mq_t *mq, MPI_Request prev, MPI_Request r)
{
    if (prev)
        prev->next = r->next;
    else
        mq->posted_head = r->next;
    if (mq->posted_tail == r)
        mq->posted_tail = prev;
    r->next = NULL;
}

/* The same for u in the unexpected queue. */
static void unlink_unexp(p2p_mq_t *mq, p2p_unexp_t *prev, p2p_unexp_t *u)
{
    if (prev)
        prev->next = u->next;
    else
        mq->unexp_head = u->next;
    if (mq->unexp_tail == u)
        mq->unexp_tail = prev;
    u->next = NULL;
}

/* The first posted receive that matches (src, tag), with the one before it in *prevp;
 * P2P_MQ_FORGED when it is claimed from a world rank that cannot send it (p2p_src_ok). */
static MPI_Request scan_posted(p2p_mq_t *mq, int src, int tag, int world_src, MPI_Request *prevp)
{
    MPI_Request prev = NULL;
    for (MPI_Request r = mq->posted_head; r; prev = r, r = r->next) {
        if (!p2p_match(r->peer, r->tag, src, tag))
            continue;
        if (world_src >= 0 && !p2p_src_ok(r, src, world_src)) {
            if (mq->by_world)
                continue;
            return P2P_MQ_FORGED;
        }
        *prevp = prev;
        return r;
    }
    return NULL;
}

MPI_Request p2p_mq_take_posted_scan(p2p_mq_t *mq, int src, int tag, int world_src)
{
    MPI_Request prev = NULL;
    MPI_Request r = scan_posted(mq, src, tag, world_src, &prev);
    if (r && r != P2P_MQ_FORGED)
        unlink_posted(mq, prev, r);
    return r;
}

MPI_Request p2p_mq_find_posted(p2p_mq_t *mq, int src, int tag, int world_src)
{
    MPI_Request prev;
    return scan_posted(mq, src, tag, world_src, &prev);
}

int p2p_mq_unpost(p2p_mq_t *mq, MPI_Request req)
{
    MPI_Request prev = NULL;
    for (MPI_Request r = mq->posted_head; r; prev = r, r = r->next) {
        if (r != req)
            continue;
        unlink_posted(mq, prev, r);
        return 1;
    }
    return 0;
}

p2p_unexp_t *p2p_mq_find_unexp(p2p_mq_t *mq, int src, int tag, int take, MPI_Group peers)
{
    p2p_unexp_t *prev = NULL;
    for (p2p_unexp_t *u = mq->unexp_head; u; prev = u, u = u->next) {
        if (!p2p_match(src, tag, u->src, u->tag))
            continue;
        if (mq->by_world && (u->src >= peers->size || peers->ranks[u->src] != u->world_src))
            continue;
        if (take) {
            unlink_unexp(mq, prev, u);
        }
        return u;
    }
    return NULL;
}

p2p_unexp_t *p2p_mq_take_unexp_sent(p2p_mq_t *mq, int world_src, uint64_t sreq, int src,
                                     int tag)
{
    p2p_unexp_t *prev = NULL;
    for (p2p_unexp_t *u = mq->unexp_head; u; prev = u, u = u->next) {
        if (u->world_src != world_src || u->sreq != sreq || u->src != src || u->tag != tag)
            continue;
        unlink_unexp(mq, prev, u);
        return u;
    }
    return NULL;
}

void p2p_mq_push_unexp(p2p_mq_t *mq, p2p_unexp_t *u)
{
    u->next = NULL;
    if (mq->unexp_tail)
        mq->unexp_tail->next = u;
    else
        mq->unexp_head = u;
    mq->unexp_tail = u;
}
