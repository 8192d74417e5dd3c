/*
 * MPI_THREAD_MULTIPLE, many threads sending to the same peers on one communicator at once
 * (nt threads per rank, first argument, default 4; m messages per thread and peer, second
 * argument, default 2000). Thread t of every rank sends its stream of m messages (tag t) to
 * every other rank, mixing the ways a send goes: MPI_Isend and MPI_Send of eager messages
 * (under MULTIPLE these run outside the library's critical section, under the peer's send
 * lock: ARCHITECTURE.md, "Threads"), MPI_Issend, and a message above every eager limit now
 * and then (rendezvous, inside the critical section), so that one thread's stream goes
 * through both paths. Nobody receives until every thread has sent everything: the
 * transports' channels fill up and sends wait in the send queue, which a later send of the
 * same thread must not overtake. Then thread t receives the stream of tag t from each peer
 * (MPI_Recv, MPI_Irecv with MPI_Wait, MPI_Irecv with MPI_Test) and checks that it comes in
 * the order it was sent. No message is exchanged before the streams start but the
 * communicator's duplication, so at 3 ranks and more some threads reach a peer first at the
 * same time (endpoint creation). Under ThreadSanitizer (test/tsan) this checks the send
 * locks against the progress engine.
 */
#include <stdlib.h>
#include "mt.h"

#define BIG (256 * 1024 / (int)sizeof(int)) /* above every transport's eager limit */
#define BIG_EVERY 97                        /* message i % BIG_EVERY == 5 is big */

static int nt = 4, m = 2000;
static MPI_Comm comm;

static int is_big(int i)
{
    return i % BIG_EVERY == 5;
}

static void *stream(void *argp)
{
    mt_arg_t *a = argp;
    int t = a->id, np = t_size - 1;
    MPI_Request *rq = malloc(sizeof(*rq) * (size_t)m * (size_t)(np ? np : 1));
    int *small = malloc(sizeof(int) * 2 * (size_t)m * (size_t)(np ? np : 1));
    int nbig = m / BIG_EVERY + 1, nrq = 0, kb = 0;
    int *big = malloc(sizeof(int) * (size_t)BIG * (size_t)nbig);
    int *rbig = malloc(sizeof(int) * (size_t)BIG);
    CHECK(rq && small && big && rbig, "out of memory");
    for (int i = 0; i < m; i++) {
        int *b = NULL;
        if (is_big(i)) {
            b = &big[(size_t)kb++ * BIG];
            for (int k = 0; k < BIG; k++)
                b[k] = k;
            b[0] = t;
            b[1] = i;
            b[BIG - 1] = i;
        }
        for (int d = 1; d <= np; d++) {
            int peer = (t_rank + d) % t_size;
            if (b) {
                MPI_OK(MPI_Isend(b, BIG, MPI_INT, peer, t, comm, &rq[nrq++]));
                continue;
            }
            int *s = &small[2 * (size_t)nrq];
            s[0] = t;
            s[1] = i;
            if (i % 3 == 1) { /* blocking: completes once the message left (eager) */
                MPI_OK(MPI_Send(s, 2, MPI_INT, peer, t, comm));
                rq[nrq++] = MPI_REQUEST_NULL;
            } else if (i % 11 == 4) {
                MPI_OK(MPI_Issend(s, 2, MPI_INT, peer, t, comm, &rq[nrq++]));
            } else {
                MPI_OK(MPI_Isend(s, 2, MPI_INT, peer, t, comm, &rq[nrq++]));
            }
        }
    }
    for (int d = 1; d <= np; d++) {
        int src = (t_rank - d + t_size) % t_size;
        for (int i = 0; i < m; i++) {
            int r[2] = { -1, -1 }, *buf = is_big(i) ? rbig : r, n = is_big(i) ? BIG : 2;
            MPI_Status st;
            if (i % 3 == 0) {
                MPI_OK(MPI_Recv(buf, n, MPI_INT, src, t, comm, &st));
            } else {
                MPI_Request q;
                MPI_OK(MPI_Irecv(buf, n, MPI_INT, src, t, comm, &q));
                if (i % 3 == 1) {
                    MPI_OK(MPI_Wait(&q, &st));
                } else {
                    int flag = 0;
                    while (!flag)
                        MPI_OK(MPI_Test(&q, &flag, &st));
                    CHECK(q == MPI_REQUEST_NULL, "MPI_Test left the request live");
                }
            }
            int count = -1;
            MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
            CHECK(st.MPI_SOURCE == src && st.MPI_TAG == t && count == n,
                  "thread %d, message %d from rank %d: status source %d tag %d count %d", t, i,
                  src, st.MPI_SOURCE, st.MPI_TAG, count);
            CHECK(buf[0] == t && buf[1] == i,
                  "thread %d: message %d from rank %d came as message %d of thread %d "
                  "(overtaken)", t, i, src, buf[1], buf[0]);
            if (n == BIG)
                CHECK(buf[BIG - 1] == i && buf[2] == 2 && buf[BIG - 2] == BIG - 2,
                      "thread %d: big message %d from rank %d corrupted", t, i, src);
        }
    }
    MPI_OK(MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < nrq; k++)
        CHECK(rq[k] == MPI_REQUEST_NULL, "MPI_Waitall left request %d live", k);
    free(rq);
    free(small);
    free(big);
    free(rbig);
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (argc > 1)
        nt = atoi(argv[1]);
    if (argc > 2)
        m = atoi(argv[2]);
    CHECK(nt >= 1 && nt <= MT_MAX && m >= 1, "usage: thread_sendorder [threads [messages]]");
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    mt_run(nt, stream, NULL);
    MPI_OK(MPI_Comm_free(&comm));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == 0)
        printf("thread_sendorder: %d threads, %d messages per thread and peer, in order\n", nt,
               m);
    MPI_Finalize();
    return 0;
}
