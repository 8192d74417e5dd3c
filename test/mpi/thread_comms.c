/*
 * MPI_THREAD_MULTIPLE, threads on distinct communicators (2 ranks; nt threads per rank, first
 * argument, default 4, even).
 * 1. A thread blocked in MPI_Recv on communicator A, which nobody sends to yet, does not keep
 *    another thread's ping-pong on communicator B from finishing: on each rank thread 0
 *    waits on A while thread 1 ping-pongs N times on B with the peer's thread 1, then sends
 *    the count to the peer's thread 0 on A. The blocked receive must not have returned
 *    before that.
 * 2. Requests completed across threads: every thread posts K receives and K sends on its own
 *    communicator; then thread t completes the receives thread t+1 posted, with MPI_Waitany
 *    (even t) or MPI_Testsome (odd t), and its own sends with MPI_Waitall, all at once.
 */
#include <stdatomic.h>
#include "mt.h"

#define N 500
#define K 64
#define R 8

static int nt = 4;
static MPI_Comm comms[MT_MAX], comm_a, comm_b;
static atomic_int recv_returned, pingpong_done;
static MPI_Request rreqs[MT_MAX][K];
static int rbufs[MT_MAX][K];
static pthread_barrier_t bar;

static void blocked_pair(int t)
{
    int peer = 1 - t_rank;
    if (t == 0) {
        int v = -1;
        MPI_Status st;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, 7, comm_a, &st));
        CHECK(atomic_load(&pingpong_done), "the receive on A returned before this rank's ping-pong "
              "on B was over");
        CHECK(v == N + peer, "the receive on A got %d, not %d", v, N + peer);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 7, "status (%d, %d)", st.MPI_SOURCE,
              st.MPI_TAG);
        atomic_store(&recv_returned, 1);
        return;
    }
    if (t != 1)
        return;
    for (int i = 0; i < N; i++) {
        int out = i * 2 + t_rank, in = -1;
        if (t_rank == 0) {
            MPI_OK(MPI_Send(&out, 1, MPI_INT, peer, 3, comm_b));
            MPI_OK(MPI_Recv(&in, 1, MPI_INT, peer, 3, comm_b, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Recv(&in, 1, MPI_INT, peer, 3, comm_b, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Send(&out, 1, MPI_INT, peer, 3, comm_b));
        }
        CHECK(in == i * 2 + peer, "ping-pong %d on B got %d", i, in);
        /* The receive blocked on A is still waiting: nothing was sent to it. */
        CHECK(!atomic_load(&recv_returned), "the receive on A returned during the ping-pong");
    }
    /* Both ping-pongs are over before either side releases its blocked receive. The flag
     * goes up before the Sendrecv: the peer may send on A as soon as our half of it has
     * arrived, which can be before our own Sendrecv returns. */
    atomic_store(&pingpong_done, 1);
    MPI_OK(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 4, NULL, 0, MPI_INT, peer, 4, comm_b,
                        MPI_STATUS_IGNORE));
    int v = N + t_rank;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, 7, comm_a));
}

static void cross_complete(int t)
{
    int peer = 1 - t_rank;
    MPI_Comm c = comms[t];
    MPI_Request sreqs[K];
    int sbufs[K];
    for (int i = 0; i < K; i++) {
        rbufs[t][i] = -1;
        MPI_OK(MPI_Irecv(&rbufs[t][i], 1, MPI_INT, peer, i, c, &rreqs[t][i]));
    }
    pthread_barrier_wait(&bar); /* every thread's receives are posted */
    for (int i = 0; i < K; i++) {
        sbufs[i] = (t_rank * MT_MAX + t) * K + i;
        MPI_OK(MPI_Isend(&sbufs[i], 1, MPI_INT, peer, i, c, &sreqs[i]));
    }
    /* The receives of thread u, posted on comms[u] from the peer's thread u. */
    int u = (t + 1) % nt, done = 0;
    MPI_Request *rq = rreqs[u];
    while (done < K) {
        if (t % 2 == 0) {
            int idx = -1;
            MPI_Status st;
            MPI_OK(MPI_Waitany(K, rq, &idx, &st));
            CHECK(idx >= 0 && idx < K && rq[idx] == MPI_REQUEST_NULL, "MPI_Waitany index %d",
                  idx);
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == idx, "status (%d, %d) for %d",
                  st.MPI_SOURCE, st.MPI_TAG, idx);
            CHECK(rbufs[u][idx] == (peer * MT_MAX + u) * K + idx, "thread %d's receive %d got %d",
                  u, idx, rbufs[u][idx]);
            done++;
        } else {
            int n = 0, idx[K];
            MPI_Status sts[K];
            MPI_OK(MPI_Testsome(K, rq, &n, idx, sts));
            CHECK(n != MPI_UNDEFINED, "MPI_Testsome found no active request at %d of %d", done,
                  K);
            for (int j = 0; j < n; j++) {
                CHECK(sts[j].MPI_TAG == idx[j], "status tag %d for %d", sts[j].MPI_TAG, idx[j]);
                CHECK(rbufs[u][idx[j]] == (peer * MT_MAX + u) * K + idx[j],
                      "thread %d's receive %d got %d", u, idx[j], rbufs[u][idx[j]]);
            }
            done += n;
        }
    }
    MPI_OK(MPI_Waitall(K, sreqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < K; i++)
        CHECK(rq[i] == MPI_REQUEST_NULL && sreqs[i] == MPI_REQUEST_NULL, "request %d left", i);
}

static void *body(void *p)
{
    mt_arg_t *a = p;
    blocked_pair(a->id);
    pthread_barrier_wait(&bar);
    for (int r = 0; r < R; r++) {
        cross_complete(a->id);
        pthread_barrier_wait(&bar); /* the arrays are reused by the next round */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    t_begin("thread_comms");
    if (argc > 1)
        nt = atoi(argv[1]);
    if (t_size != 2) {
        t_skip("needs 2 ranks");
    }
    CHECK(nt >= 2 && nt <= MT_MAX && nt % 2 == 0, "%d threads (2 to %d, even)", nt, MT_MAX);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm_a));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm_b));
    for (int t = 0; t < nt; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    pthread_barrier_init(&bar, NULL, (unsigned)nt);
    mt_run(nt, body, NULL);
    pthread_barrier_destroy(&bar);
    CHECK(atomic_load(&recv_returned), "the receive on A never returned");
    for (int t = 0; t < nt; t++)
        MPI_OK(MPI_Comm_free(&comms[t]));
    MPI_OK(MPI_Comm_free(&comm_a));
    MPI_OK(MPI_Comm_free(&comm_b));
    t_finish();
    return 0;
}
