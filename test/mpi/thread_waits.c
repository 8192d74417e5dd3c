/*
 * MPI_THREAD_MULTIPLE, blocked waits on distinct communicators while other threads send
 * (the progress engine driven outside the critical section: ARCHITECTURE.md, "Threads").
 * nt threads per rank (first argument, default 4, at most 8), any number of ranks >= 2.
 * Thread t of every rank has a communicator of its own and exchanges with thread t of the
 * rank before and after it in a ring, R rounds. In each round, on its own communicator:
 * 1. a receive posted with MPI_Irecv from the rank before, waited for with MPI_Wait after
 *    the thread sent to the rank after (so the contexts are used outside G);
 * 2. a blocking MPI_Recv from the rank before, which the sender delays on odd ranks (the
 *    receiver blocks first, and another thread's engine must deliver to it);
 * 3. a window of W receives with MPI_ANY_TAG completed by MPI_Waitall, against W sends
 *    with increasing tags, mixing eager and rendezvous sizes: the order per sender
 *    (non-overtaking) shows in the tags and in the data;
 * 4. MPI_Ssend / MPI_Recv (synchronous: its ACK is handled inside G);
 * 5. a receive posted with MPI_Irecv and completed by polling MPI_Test (a pass of the engine
 *    outside G when it is free), against a blocking MPI_Send.
 * Every payload encodes (sender rank, thread, round, index); counts are summed over all
 * ranks and threads at the end and checked against what was sent.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mt.h"

#define R 200
#define W 8
#define BIG 20000 /* ints: 80 KB, past every transport's eager limit */

static int nt = 4;
static MPI_Comm comms[MT_MAX];
static atomic_long received, sent;

static int val(int rank, int t, int round, int k, int j)
{
    return ((rank * MT_MAX + t) * R + round) * 1000 + k * 50 + (j & 31);
}

static void fill(int *buf, int n, int rank, int t, int round, int k)
{
    for (int j = 0; j < n; j++)
        buf[j] = val(rank, t, round, k, j);
}

static void check_buf(const int *buf, int n, int rank, int t, int round, int k, const char *what)
{
    for (int j = 0; j < n; j++)
        CHECK(buf[j] == val(rank, t, round, k, j), "%s: thread %d round %d item %d: element %d "
              "is %d, not %d", what, t, round, k, j, buf[j], val(rank, t, round, k, j));
}

static void *run(void *p)
{
    mt_arg_t *a = p;
    int t = a->id;
    MPI_Comm c = comms[t];
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int *rbuf = malloc(W * BIG * sizeof(int)), *sbuf = malloc(W * BIG * sizeof(int));
    CHECK(rbuf && sbuf, "out of memory");
    unsigned seed = (unsigned)(t_rank * 131 + t);
    for (int i = 0; i < R; i++) {
        /* 1. Irecv, Send, Wait */
        int in[4], out[4];
        MPI_Request rq;
        MPI_Status st;
        MPI_OK(MPI_Irecv(in, 4, MPI_INT, left, 1, c, &rq));
        fill(out, 4, t_rank, t, i, 0);
        MPI_OK(MPI_Send(out, 4, MPI_INT, right, 1, c));
        atomic_fetch_add(&sent, 1);
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 1, "Wait status (%d, %d)", st.MPI_SOURCE,
              st.MPI_TAG);
        check_buf(in, 4, left, t, i, 0, "Irecv/Wait");
        atomic_fetch_add(&received, 1);

        /* 2. a blocking receive that waits for a delayed sender */
        if (t_rank % 2) {
            if (rand_r(&seed) % 4 == 0)
                usleep(200);
            fill(out, 4, t_rank, t, i, 1);
            MPI_OK(MPI_Send(out, 4, MPI_INT, right, 2, c));
            MPI_OK(MPI_Recv(in, 4, MPI_INT, left, 2, c, &st));
        } else {
            fill(out, 4, t_rank, t, i, 1);
            MPI_OK(MPI_Send(out, 4, MPI_INT, right, 2, c));
            MPI_OK(MPI_Recv(in, 4, MPI_INT, left, 2, c, &st));
        }
        atomic_fetch_add(&sent, 1);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 2, "Recv status (%d, %d)", st.MPI_SOURCE,
              st.MPI_TAG);
        check_buf(in, 4, left, t, i, 1, "Recv");
        atomic_fetch_add(&received, 1);

        /* 3. a window with MPI_ANY_TAG: tags and data in the order sent */
        MPI_Request reqs[2 * W];
        MPI_Status sts[2 * W];
        int big = i % 16 == 5; /* now and then a rendezvous-sized round */
        int n = big ? BIG : 1 + (i % 7);
        for (int k = 0; k < W; k++)
            MPI_OK(MPI_Irecv(rbuf + k * BIG, n, MPI_INT, left, MPI_ANY_TAG, c, &reqs[k]));
        for (int k = 0; k < W; k++) {
            fill(sbuf + k * BIG, n, t_rank, t, i, 2 + k);
            MPI_OK(MPI_Isend(sbuf + k * BIG, n, MPI_INT, right, 100 + k, c, &reqs[W + k]));
        }
        MPI_OK(MPI_Waitall(2 * W, reqs, sts));
        for (int k = 0; k < W; k++) {
            CHECK(sts[k].MPI_TAG == 100 + k, "window receive %d got tag %d (overtaken)", k,
                  sts[k].MPI_TAG);
            int cnt = -1;
            MPI_Get_count(&sts[k], MPI_INT, &cnt);
            CHECK(cnt == n, "window receive %d: %d ints, not %d", k, cnt, n);
            check_buf(rbuf + k * BIG, n, left, t, i, 2 + k, "window");
        }
        atomic_fetch_add(&sent, W);
        atomic_fetch_add(&received, W);

        /* 4. synchronous */
        if (i % 10 == 0) {
            fill(out, 4, t_rank, t, i, 19);
            if (t_rank % 2) {
                MPI_OK(MPI_Recv(in, 4, MPI_INT, left, 3, c, &st));
                MPI_OK(MPI_Ssend(out, 4, MPI_INT, right, 3, c));
            } else {
                MPI_OK(MPI_Ssend(out, 4, MPI_INT, right, 3, c));
                MPI_OK(MPI_Recv(in, 4, MPI_INT, left, 3, c, &st));
            }
            check_buf(in, 4, left, t, i, 19, "Ssend/Recv");
            atomic_fetch_add(&sent, 1);
            atomic_fetch_add(&received, 1);
        }

        /* 5. Irecv, Send, Test until complete */
        MPI_OK(MPI_Irecv(in, 4, MPI_INT, left, 4, c, &rq));
        fill(out, 4, t_rank, t, i, 20);
        MPI_OK(MPI_Send(out, 4, MPI_INT, right, 4, c));
        atomic_fetch_add(&sent, 1);
        for (int flag = 0; !flag;)
            MPI_OK(MPI_Test(&rq, &flag, &st));
        CHECK(rq == MPI_REQUEST_NULL, "MPI_Test left the request live");
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 4, "Test status (%d, %d)", st.MPI_SOURCE,
              st.MPI_TAG);
        check_buf(in, 4, left, t, i, 20, "Irecv/Test");
        atomic_fetch_add(&received, 1);
    }
    free(rbuf);
    free(sbuf);
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (argc > 1)
        nt = atoi(argv[1]);
    CHECK(nt >= 1 && nt <= MT_MAX, "thread count %d", nt);
    if (t_size < 2) {
        if (t_rank == 0)
            printf("SKIP: needs at least 2 ranks\n");
        MPI_Finalize();
        return 0;
    }
    for (int t = 0; t < nt; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    mt_run(nt, run, NULL);
    long counts[2] = { atomic_load(&sent), atomic_load(&received) }, total[2];
    MPI_OK(MPI_Allreduce(counts, total, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    long want = (long)t_size * nt * (R * (3 + W) + (R + 9) / 10);
    CHECK(counts[0] == counts[1], "rank %d sent %ld and received %ld", t_rank, counts[0],
          counts[1]);
    CHECK(total[0] == want && total[1] == want, "%ld sent and %ld received over all ranks, not "
          "%ld", total[0], total[1], want);
    for (int t = 0; t < nt; t++)
        MPI_OK(MPI_Comm_free(&comms[t]));
    MPI_Finalize();
    return 0;
}
