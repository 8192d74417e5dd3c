/*
 * Unit test of the matching queues: posting order, wildcards, unexpected
 * order, removal from the middle, cancel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "p2p/match.h"

static int failures;
#define CHECK(name, cond)                                                      \
    do {                                                                       \
        if (cond)                                                              \
            printf("PASS: unit/match/%s\n", name);                             \
        else {                                                                 \
            printf("FAIL: unit/match/%s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond); \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static struct rdmpi_request reqs[8];

static MPI_Request recv_req(int i, int src, int tag)
{
    memset(&reqs[i], 0, sizeof(reqs[i]));
    reqs[i].peer = src;
    reqs[i].tag = tag;
    return &reqs[i];
}

static p2p_unexp_t *msg(int src, int tag)
{
    p2p_unexp_t *u = calloc(1, sizeof(*u));
    u->src = src;
    u->tag = tag;
    return u;
}

int main(void)
{
    p2p_mq_t mq;
    memset(&mq, 0, sizeof(mq));

    /* Posted receives match in posting order, wildcards included. */
    p2p_mq_post(&mq, recv_req(0, 1, 5));
    p2p_mq_post(&mq, recv_req(1, MPI_ANY_SOURCE, 5));
    p2p_mq_post(&mq, recv_req(2, 2, MPI_ANY_TAG));
    CHECK("posted_first_match", p2p_mq_take_posted(&mq, 2, 5, -1) == &reqs[1]);
    CHECK("posted_anytag", p2p_mq_take_posted(&mq, 2, 9, -1) == &reqs[2]);
    CHECK("posted_no_match", p2p_mq_take_posted(&mq, 3, 9, -1) == NULL);
    CHECK("posted_exact", p2p_mq_take_posted(&mq, 1, 5, -1) == &reqs[0]);
    CHECK("posted_empty", mq.posted_head == NULL && mq.posted_tail == NULL);

    /* Unposting from the middle keeps the rest in order (MPI_Cancel). */
    p2p_mq_post(&mq, recv_req(3, 0, 1));
    p2p_mq_post(&mq, recv_req(4, 0, 1));
    p2p_mq_post(&mq, recv_req(5, 0, 1));
    CHECK("unpost_middle", p2p_mq_unpost(&mq, &reqs[4]) == 1);
    CHECK("unpost_absent", p2p_mq_unpost(&mq, &reqs[4]) == 0);
    CHECK("unpost_order", p2p_mq_take_posted(&mq, 0, 1, -1) == &reqs[3] &&
                              p2p_mq_take_posted(&mq, 0, 1, -1) == &reqs[5]);
    p2p_mq_post(&mq, recv_req(6, 0, 2));
    CHECK("unpost_tail", p2p_mq_unpost(&mq, &reqs[6]) == 1 && mq.posted_tail == NULL);

    /* Unexpected messages are found in arrival order. */
    p2p_unexp_t *a = msg(1, 7), *b = msg(2, 7), *c = msg(1, 8);
    p2p_mq_push_unexp(&mq, a);
    p2p_mq_push_unexp(&mq, b);
    p2p_mq_push_unexp(&mq, c);
    CHECK("unexp_probe_keeps", p2p_mq_find_unexp(&mq, MPI_ANY_SOURCE, 7, 0, NULL) == a &&
                                   mq.unexp_head == a);
    CHECK("unexp_specific", p2p_mq_find_unexp(&mq, 1, 8, 1, NULL) == c && mq.unexp_tail == b);
    CHECK("unexp_anysource", p2p_mq_find_unexp(&mq, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, NULL) == a);
    CHECK("unexp_last", p2p_mq_find_unexp(&mq, 2, MPI_ANY_TAG, 1, NULL) == b);
    CHECK("unexp_empty", mq.unexp_head == NULL && mq.unexp_tail == NULL);
    free(a);
    free(b);
    free(c);

    /* A long queue: per-source order survives interleaving. */
    enum { N = 1000 };
    p2p_unexp_t *m[N];
    for (int i = 0; i < N; i++)
        p2p_mq_push_unexp(&mq, m[i] = msg(i % 3, i));
    int ok = 1;
    for (int i = 1; i < N; i += 3) {
        p2p_unexp_t *u = p2p_mq_find_unexp(&mq, 1, MPI_ANY_TAG, 1, NULL);
        ok &= u == m[i];
    }
    CHECK("unexp_per_source_order", ok);

    /* The sender's world rank must be the matched receive's: a forged source leaves the
     * receive posted. */
    memset(&mq, 0, sizeof(mq));
    int ranks[3] = { 4, 6, 9 };
    struct rdmpi_group g = { 1, 0, 3, 0, ranks };
    MPI_Request spec = recv_req(0, 1, 3), any = recv_req(1, MPI_ANY_SOURCE, 4);
    spec->world_peer = 6;
    any->any_group = &g;
    p2p_mq_post(&mq, spec);
    p2p_mq_post(&mq, any);
    CHECK("forged_specific", p2p_mq_take_posted(&mq, 1, 3, 9) == P2P_MQ_FORGED &&
                                 mq.posted_head == spec);
    CHECK("forged_any_out_of_range", p2p_mq_take_posted(&mq, 3, 4, 9) == P2P_MQ_FORGED);
    CHECK("forged_any_other_member", p2p_mq_take_posted(&mq, 0, 4, 9) == P2P_MQ_FORGED);
    CHECK("real_any", p2p_mq_take_posted(&mq, 2, 4, 9) == any);
    CHECK("real_specific", p2p_mq_take_posted(&mq, 1, 3, 6) == spec && mq.posted_head == NULL);

    /* A context several two-process communicators share (dynamic processes): a message is
     * for the receive whose peer sent it, and an unexpected one only for its sender's pair. */
    memset(&mq, 0, sizeof(mq));
    mq.by_world = 1;
    MPI_Request pa = recv_req(2, 1, 11), pb = recv_req(3, 1, 11);
    pa->world_peer = 6;
    pb->world_peer = 9;
    p2p_mq_post(&mq, pa);
    p2p_mq_post(&mq, pb);
    CHECK("by_world_second_pair", p2p_mq_take_posted(&mq, 1, 11, 9) == pb &&
                                      mq.posted_head == pa && mq.posted_tail == pa);
    CHECK("by_world_none", p2p_mq_take_posted(&mq, 1, 11, 7) == NULL);
    CHECK("by_world_first_pair", p2p_mq_take_posted(&mq, 1, 11, 6) == pa);
    int pair_a[2] = { 0, 6 }, pair_b[2] = { 0, 9 };
    struct rdmpi_group ga = { 1, 0, 2, 0, pair_a }, gb = { 1, 0, 2, 0, pair_b };
    p2p_unexp_t *ua = msg(1, 11), *ub = msg(1, 11), *bad = msg(5, 11);
    ua->world_src = 6;
    ub->world_src = 9;
    bad->world_src = 9;
    p2p_mq_push_unexp(&mq, bad);
    p2p_mq_push_unexp(&mq, ua);
    p2p_mq_push_unexp(&mq, ub);
    CHECK("by_world_unexp_own_pair", p2p_mq_find_unexp(&mq, 1, 11, 1, &gb) == ub &&
                                         p2p_mq_find_unexp(&mq, 1, 11, 0, &gb) == NULL);
    CHECK("by_world_unexp_any", p2p_mq_find_unexp(&mq, MPI_ANY_SOURCE, 11, 1, &ga) == ua);
    CHECK("by_world_unexp_out_of_range",
          p2p_mq_find_unexp(&mq, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, &ga) == NULL);
    free(ua);
    free(ub);
    free(bad);
    for (int i = 0; i < N; i++)
        free(m[i]);
    return failures ? 1 : 0;
}
