/* Per-peer request queues (peerq.h). */
#include <stdlib.h>
#include "core/errors.h"
#include "p2p/peerq.h"

int p2p_peerq_init(p2p_peerq_t *q, int nranks)
{
    q->head = calloc((size_t)nranks, sizeof(*q->head));
    q->tail = calloc((size_t)nranks, sizeof(*q->tail));
    q->active = calloc((size_t)nranks, sizeof(*q->active));
    q->slot = malloc(sizeof(*q->slot) * (size_t)nranks);
    q->nactive = 0;
    q->nranks = nranks;
    if (!q->head || !q->tail || !q->active || !q->slot)
        return CORE_ENOMEM;
    for (int w = 0; w < nranks; w++)
        q->slot[w] = -1;
    return 0;
}

void p2p_peerq_fini(p2p_peerq_t *q)
{
    free(q->head);
    free(q->tail);
    free(q->active);
    free(q->slot);
    *q = (p2p_peerq_t){ 0 };
}

static void deactivate(p2p_peerq_t *q, int w)
{
    int i = q->slot[w], last = q->active[--q->nactive];
    q->active[i] = last;
    q->slot[last] = i;
    q->slot[w] = -1;
}

void p2p_peerq_push(p2p_peerq_t *q, int w, MPI_Request s)
{
    s->next = NULL;
    if (q->tail[w]) {
        q->tail[w]->next = s;
    } else {
        q->head[w] = s;
        q->slot[w] = q->nactive;
        q->active[q->nactive++] = w;
    }
    q->tail[w] = s;
}

MPI_Request p2p_peerq_pop(p2p_peerq_t *q, int w)
{
    MPI_Request s = q->head[w];
    if (!s)
        return NULL;
    q->head[w] = s->next;
    if (!s->next) {
        q->tail[w] = NULL;
        deactivate(q, w);
    }
    s->next = NULL;
    return s;
}

int p2p_peerq_remove(p2p_peerq_t *q, int w, MPI_Request s)
{
    for (MPI_Request prev = NULL, r = q->head[w]; r; prev = r, r = r->next) {
        if (r != s)
            continue;
        if (!prev)
            return p2p_peerq_pop(q, w) != NULL;
        prev->next = r->next;
        if (q->tail[w] == r)
            q->tail[w] = prev;
        s->next = NULL;
        return 1;
    }
    return 0;
}
