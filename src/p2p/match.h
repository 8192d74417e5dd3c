/*
 * Matching queues of one context: receives posted in order, and messages
 * that arrived before their receive (unexpected), in arrival order. Each
 * transport delivers a peer's messages in order, so scanning both lists from
 * the head gives MPI's non-overtaking order, including for MPI_ANY_SOURCE.
 * Every function below is called with the queue's lock held (p2p_mq_lock).
 */
#ifndef RDMPI_P2P_MATCH_H
#define RDMPI_P2P_MATCH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "core/group.h"
#include "core/request.h"

#define P2P_MAX_RKEY 64

/* A message that arrived before its receive was posted. */
typedef struct p2p_unexp {
    struct p2p_unexp *next;
    int src, tag;           /* communicator rank and tag */
    int world_src;
    int proto;              /* P2P_PROTO_EAGER or P2P_PROTO_RNDV */
    uint32_t flags;         /* P2P_F_* from the header */
    size_t len;             /* message length */
    uint64_t sreq;          /* sender's request (sync ack, rendezvous) */
    uint64_t raddr;         /* rendezvous: sender's buffer */
    uint32_t rkey_len;
    uint8_t rkey[P2P_MAX_RKEY];
    void *data;             /* eager: copy of the payload */
    size_t cap;             /* eager: bytes the copy may hold (0: not one p2p keeps for reuse,
                             * p2p_unexp_release) */
} p2p_unexp_t;

typedef struct p2p_mq {
    MPI_Request posted_head, posted_tail;
    p2p_unexp_t *unexp_head, *unexp_tail;
    /* Several communicators share this context (the two-process ones of dynamic processes,
     * one per other job this process meets, perhaps from several threads at once): the
     * sender's world rank, not only the rank it claims, says which one a message is for. */
    int by_world;
    /* M, the matching lock of this context (ARCHITECTURE.md, "Threads"): both queues, and
     * nothing else, around the queue operations alone: what a thread takes off a queue is
     * its own, delivered after unlocking. A leaf but for the request table's lock. Taken
     * only once a thread has used the queues outside the critical section G (`outside`,
     * set inside G, never cleared): until then G alone guards them, so a program whose
     * receives all run inside G (MPI_Recv, collectives) pays one load and a branch. */
    pthread_mutex_t lock;
    int outside;
} p2p_mq_t;

/* Inside G: takes M if the queues are used outside G too; returns what p2p_mq_unlock
 * needs (the flag cannot change while G is held). Outside G (after p2p_mq_go_outside):
 * takes M. */
static inline int p2p_mq_lock(p2p_mq_t *mq)
{
    if (__builtin_expect(!__atomic_load_n(&mq->outside, __ATOMIC_RELAXED), 1))
        return 0;
    pthread_mutex_lock(&mq->lock);
    return 1;
}

static inline void p2p_mq_unlock(p2p_mq_t *mq, int locked)
{
    if (locked)
        pthread_mutex_unlock(&mq->lock);
}

static inline int p2p_match(int want_src, int want_tag, int src, int tag)
{
    return (want_src == MPI_ANY_SOURCE || want_src == src) &&
           (want_tag == MPI_ANY_TAG || want_tag == tag);
}

/* Whether a message from world rank world_src that says it comes from communicator rank
 * src may be what posted receive r (which matched src) takes: a receive from one source
 * knows that source's world rank (r->world_peer, set when posted); an MPI_ANY_SOURCE one
 * holds its communicator's group while posted. */
static inline int p2p_src_ok(MPI_Request r, int src, int world_src)
{
    if (r->peer != MPI_ANY_SOURCE)
        return r->world_peer == world_src;
    return r->any_group && src >= 0 && src < r->any_group->size &&
           r->any_group->ranks[src] == world_src;
}

/* What p2p_mq_take_posted returns for a message that lies about its source. */
#define P2P_MQ_FORGED ((MPI_Request)(uintptr_t)1)

/* Removes and returns the first posted receive that matches (src, tag), or NULL. With
 * world_src >= 0, the sender's world rank: if the receive that matches shows src is not
 * that rank (p2p_src_ok), it stays posted and P2P_MQ_FORGED is returned; on a by_world
 * queue such a receive belongs to another communicator and the search goes on. */
MPI_Request p2p_mq_take_posted_scan(p2p_mq_t *mq, int src, int tag, int world_src);
static inline MPI_Request p2p_mq_take_posted(p2p_mq_t *mq, int src, int tag, int world_src)
{
    /* The common case inline: the first posted receive is for exactly this source and tag,
     * from that world rank (p2p_src_ok of a receive from one source), the one the scan
     * would take; the call and its scan were ~45 instructions of each 8-byte arrival
     * (callgrind, osu_mbw_mr). */
    MPI_Request r = mq->posted_head;
    if (__builtin_expect(r != NULL, 1) && r->peer == src && r->tag == tag &&
        r->world_peer == world_src) {
        mq->posted_head = r->next;
        if (mq->posted_tail == r)
            mq->posted_tail = NULL;
        r->next = NULL;
        return r;
    }
    return p2p_mq_take_posted_scan(mq, src, tag, world_src);
}
/* The receive p2p_mq_take_posted would take (or P2P_MQ_FORGED), left posted. */
MPI_Request p2p_mq_find_posted(p2p_mq_t *mq, int src, int tag, int world_src);
static inline void p2p_mq_post(p2p_mq_t *mq, MPI_Request req)
{
    req->next = NULL;
    if (mq->posted_tail)
        mq->posted_tail->next = req;
    else
        mq->posted_head = req;
    mq->posted_tail = req;
}
/* Removes req from the posted queue; 1 if it was there. */
int p2p_mq_unpost(p2p_mq_t *mq, MPI_Request req);
/* First unexpected message matching (src, tag), removed when take is set. On a by_world
 * queue only messages whose sender is the rank they claim in peers (the receiving
 * communicator's group) match; peers is not read on other queues and may be NULL. */
p2p_unexp_t *p2p_mq_find_unexp(p2p_mq_t *mq, int src, int tag, int take, MPI_Group peers);
/* Removes and returns the unexpected message that world rank world_src sent as its request
 * sreq (nonzero: only a synchronous eager message or an RTS carries one; others have 0)
 * with source rank src and tag, or NULL (none, or a receive took it already). */
p2p_unexp_t *p2p_mq_take_unexp_sent(p2p_mq_t *mq, int world_src, uint64_t sreq, int src,
                                     int tag);
void p2p_mq_push_unexp(p2p_mq_t *mq, p2p_unexp_t *u);

#endif
