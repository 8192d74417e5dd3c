/*
 * MPI_THREAD_MULTIPLE, requests (nt threads per rank, first argument, default 4): receives
 * posted by several threads are completed by another one (MPI_Waitany over half of them,
 * MPI_Testsome over the rest) while the posting threads send; every thread cancels
 * receives of its own at the same time.
 */
#include "mt.h"

#define K 32

static int nt = 4;
static MPI_Request reqs[MT_MAX * K];
static int bufs[MT_MAX * K];
static pthread_barrier_t posted;

static void *body(void *p)
{
    mt_arg_t *a = p;
    int t = a->id;
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    if (t > 0)
        for (int i = 0; i < K; i++)
            MPI_OK(MPI_Irecv(&bufs[t * K + i], 1, MPI_INT, left, 1000 + t, MPI_COMM_WORLD,
                             &reqs[t * K + i]));
    pthread_barrier_wait(&posted);
    if (t > 0) {
        for (int i = 0; i < K; i++) {
            int v = t * K + i;
            MPI_OK(MPI_Send(&v, 1, MPI_INT, right, 1000 + t, MPI_COMM_WORLD));
            /* A receive cancelled before anything could match it. */
            int x;
            MPI_Request r;
            MPI_Status st;
            MPI_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5000 + t, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Cancel(&r));
            MPI_OK(MPI_Wait(&r, &st));
            int c = 0;
            MPI_Test_cancelled(&st, &c);
            CHECK(c, "thread %d: the receive was not cancelled", t);
        }
        return NULL;
    }
    /* Thread 0 completes the others' requests. */
    int total = (nt - 1) * K, done = 0;
    MPI_Request *rq = &reqs[K];
    for (int i = 0; i < total / 2; i++) {
        int idx = -1;
        MPI_Status st;
        MPI_OK(MPI_Waitany(total, rq, &idx, &st));
        CHECK(idx >= 0 && idx < total, "MPI_Waitany index %d", idx);
        CHECK(rq[idx] == MPI_REQUEST_NULL, "MPI_Waitany left the request");
        CHECK(bufs[K + idx] == K + idx, "buffer %d holds %d", K + idx, bufs[K + idx]);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 1000 + (K + idx) / K,
              "status (%d, %d)", st.MPI_SOURCE, st.MPI_TAG);
        done++;
    }
    while (done < total) {
        int outcount = 0, idx[MT_MAX * K];
        MPI_OK(MPI_Testsome(total, rq, &outcount, idx, MPI_STATUSES_IGNORE));
        CHECK(outcount != MPI_UNDEFINED, "MPI_Testsome found no active request");
        for (int i = 0; i < outcount; i++)
            CHECK(bufs[K + idx[i]] == K + idx[i], "buffer %d holds %d", K + idx[i],
                  bufs[K + idx[i]]);
        done += outcount;
    }
    for (int i = 0; i < total; i++)
        CHECK(rq[i] == MPI_REQUEST_NULL, "request %d still active", i);
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    t_begin("thread_reqs");
    if (argc > 1)
        nt = atoi(argv[1]);
    CHECK(nt >= 2 && nt <= MT_MAX, "%d threads (2 to %d)", nt, MT_MAX);
    pthread_barrier_init(&posted, NULL, (unsigned)nt);
    mt_run(nt, body, NULL);
    pthread_barrier_destroy(&posted);
    t_finish();
    return 0;
}
