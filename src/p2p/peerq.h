/*
 * Per-peer FIFO queues of requests, with the set of peers that have one: the send layer's
 * queue of first messages the transport could not take yet and its queue of eager messages a
 * transport keeps to write with the next ones. A pass over a queue costs the peers it holds,
 * not the messages: thousands of sends queued behind a full socket used to be walked at every
 * MPI_Test. Requests are linked through their `next`. Used under G only.
 */
#ifndef RDMPI_P2P_PEERQ_H
#define RDMPI_P2P_PEERQ_H

#include "core/request.h"

typedef struct p2p_peerq {
    MPI_Request *head, *tail; /* per world rank */
    int *active;              /* the ranks with a nonempty queue, in no order */
    int *slot;                /* per world rank: its index in active, or -1 */
    int nactive;
    int nranks;
} p2p_peerq_t;

int p2p_peerq_init(p2p_peerq_t *q, int nranks);
void p2p_peerq_fini(p2p_peerq_t *q);
/* Appends s to rank w's queue. */
void p2p_peerq_push(p2p_peerq_t *q, int w, MPI_Request s);
/* Takes the first request of rank w's queue out (NULL if empty). */
MPI_Request p2p_peerq_pop(p2p_peerq_t *q, int w);
/* Takes s out of rank w's queue; 1 if it was there. */
int p2p_peerq_remove(p2p_peerq_t *q, int w, MPI_Request s);

static inline int p2p_peerq_empty(const p2p_peerq_t *q)
{
    return q->nactive == 0;
}

static inline MPI_Request p2p_peerq_first(const p2p_peerq_t *q, int w)
{
    return q->head[w];
}

/*
 * Visits every rank with a queue: for (int i = q->nactive; i-- > 0;) with
 * p2p_peerq_rank(q, i) < 0 skipped. Going down, a rank whose queue empties (moving the last
 * one into its place) or one added behind (visited next pass) leaves the rest unvisited once.
 */
static inline int p2p_peerq_rank(const p2p_peerq_t *q, int i)
{
    return i < q->nactive ? q->active[i] : -1;
}

#endif
