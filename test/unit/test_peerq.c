/*
 * Unit test of the per-peer request queues (src/p2p/peerq.c): order within a peer, the set of
 * peers with a queue, removal from the head, middle and tail, and a pass that empties queues
 * while it walks the set (sendq_progress, postq_progress).
 */
#include <stdio.h>
#include <string.h>
#include "p2p/peerq.h"

static int failures;
#define CHECK(name, cond)                                                      \
    do {                                                                       \
        if (cond)                                                              \
            printf("PASS: unit/peerq/%s\n", name);                             \
        else {                                                                 \
            printf("FAIL: unit/peerq/%s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond); \
            failures++;                                                        \
        }                                                                      \
    } while (0)

#define NR 16
static struct rdmpi_request reqs[64];

/* Whether rank w's queue holds exactly the requests want[0..n-1], in that order. */
static int holds(const p2p_peerq_t *q, int w, const int *want, int n)
{
    MPI_Request r = p2p_peerq_first(q, w);
    for (int i = 0; i < n; i++, r = r->next)
        if (r != &reqs[want[i]])
            return 0;
    return r == NULL && (n == 0 || q->tail[w] == &reqs[want[n - 1]]);
}

/* Whether the active set is exactly the ranks with a nonempty queue, each once. */
static int set_ok(const p2p_peerq_t *q)
{
    int seen[NR] = { 0 }, n = 0;
    for (int i = 0; i < q->nactive; i++) {
        int w = q->active[i];
        if (w < 0 || w >= NR || seen[w]++ || q->slot[w] != i || !q->head[w])
            return 0;
    }
    for (int w = 0; w < NR; w++)
        n += q->head[w] != NULL;
    return n == q->nactive;
}

int main(void)
{
    p2p_peerq_t q;
    CHECK("init", p2p_peerq_init(&q, NR) == 0 && p2p_peerq_empty(&q));

    p2p_peerq_push(&q, 3, &reqs[0]);
    p2p_peerq_push(&q, 7, &reqs[1]);
    p2p_peerq_push(&q, 3, &reqs[2]);
    p2p_peerq_push(&q, 3, &reqs[3]);
    CHECK("fifo per peer", holds(&q, 3, (int[]){ 0, 2, 3 }, 3) && holds(&q, 7, (int[]){ 1 }, 1));
    CHECK("set after push", q.nactive == 2 && set_ok(&q));

    CHECK("remove middle", p2p_peerq_remove(&q, 3, &reqs[2]) && holds(&q, 3, (int[]){ 0, 3 }, 2));
    CHECK("remove tail", p2p_peerq_remove(&q, 3, &reqs[3]) && holds(&q, 3, (int[]){ 0 }, 1));
    CHECK("remove absent", !p2p_peerq_remove(&q, 3, &reqs[1]) && !p2p_peerq_remove(&q, 5, &reqs[0]));
    p2p_peerq_push(&q, 3, &reqs[4]);
    CHECK("push after tail removal", holds(&q, 3, (int[]){ 0, 4 }, 2));
    CHECK("remove head", p2p_peerq_remove(&q, 3, &reqs[0]) && holds(&q, 3, (int[]){ 4 }, 1));
    CHECK("pop last leaves the set", p2p_peerq_pop(&q, 3) == &reqs[4] && holds(&q, 3, NULL, 0) &&
                                         q.nactive == 1 && set_ok(&q));
    CHECK("pop empty", p2p_peerq_pop(&q, 3) == NULL);
    CHECK("remove only one leaves the set",
          p2p_peerq_remove(&q, 7, &reqs[1]) && p2p_peerq_empty(&q) && set_ok(&q));

    /* A pass going down the set, emptying every other queue and adding a rank behind: each
     * rank present at the start is visited once, the one added is not. */
    for (int w = 0; w < 10; w++) {
        p2p_peerq_push(&q, w, &reqs[2 * w]);
        p2p_peerq_push(&q, w, &reqs[2 * w + 1]);
    }
    int visits[NR] = { 0 }, added = 0;
    for (int i = q.nactive; i-- > 0;) {
        int w = p2p_peerq_rank(&q, i);
        if (w < 0)
            continue;
        visits[w]++;
        if (w % 2 == 0)
            while (p2p_peerq_pop(&q, w))
                ;
        if (!added) {
            p2p_peerq_push(&q, 12, &reqs[40]);
            added = 1;
        }
    }
    int once = 1;
    for (int w = 0; w < 10; w++)
        once &= visits[w] == 1;
    CHECK("pass visits each once", once && visits[12] == 0);
    CHECK("pass leaves the set right", q.nactive == 6 && set_ok(&q) && holds(&q, 12, (int[]){ 40 }, 1) &&
                                           holds(&q, 5, (int[]){ 10, 11 }, 2));

    p2p_peerq_fini(&q);
    CHECK("fini", q.head == NULL && q.nactive == 0);
    return failures ? 1 : 0;
}
