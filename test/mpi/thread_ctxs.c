/*
 * MPI_THREAD_MULTIPLE, threads that send and receive on distinct communicators at once
 * (2 ranks; nt threads per rank, first argument, default 4): each thread t of a rank
 * exchanges messages with the peer's thread t on a communicator of its own, with every way a
 * receive meets its message: posted before it arrives (the progress engine matches it),
 * posted after it arrived (the receive takes it off the unexpected queue), from a specific
 * source and from MPI_ANY_SOURCE, from a standard send, from a synchronous one (the receive
 * answers an ACK) and with a message above the eager limit (rendezvous), while the other
 * threads do the same on their communicators. MPI_Irecv posts under its context's matching
 * lock outside the library's critical section (ARCHITECTURE.md, "Threads"): under
 * ThreadSanitizer (test/tsan) this is what checks that lock against the handlers.
 * Every payload says which thread, round and message it is; every status is checked.
 */
#include "mt.h"

#define ROUNDS 200
#define K 8
#define BIG (256 * 1024 / (int)sizeof(int)) /* above every transport's eager limit */

static int nt = 4;
static MPI_Comm comms[MT_MAX];

static int value(int rank, int t, int round, int i)
{
    return ((rank * MT_MAX + t) * ROUNDS + round) * K + i;
}

/* Round r of thread t on comm c: K small messages each way (the receives posted before the
 * peer sends on even rounds, after a handshake that says the peer's sends are out on odd
 * ones), mode and source chosen by round. */
static void small_round(int t, MPI_Comm c, int r)
{
    int peer = 1 - t_rank, rbuf[K], sbuf[K];
    MPI_Request rq[K], sq[K];
    int early = r % 2 == 0, any = r % 3 == 0, sync = r % 5 == 1;
    if (early)
        for (int i = 0; i < K; i++) {
            rbuf[i] = -1;
            MPI_OK(MPI_Irecv(&rbuf[i], 1, MPI_INT, any ? MPI_ANY_SOURCE : peer, i, c, &rq[i]));
        }
    for (int i = 0; i < K; i++) {
        sbuf[i] = value(t_rank, t, r, i);
        if (sync)
            MPI_OK(MPI_Issend(&sbuf[i], 1, MPI_INT, peer, i, c, &sq[i]));
        else
            MPI_OK(MPI_Isend(&sbuf[i], 1, MPI_INT, peer, i, c, &sq[i]));
    }
    if (!early) {
        /* The peer's messages are on their way: our receives mostly find them unexpected.
         * A zero-byte exchange on another tag orders nothing, but gives them time. */
        MPI_OK(MPI_Sendrecv(NULL, 0, MPI_INT, peer, K, NULL, 0, MPI_INT, peer, K, c,
                            MPI_STATUS_IGNORE));
        for (int i = K - 1; i >= 0; i--) { /* in reverse: a search past the queue's head */
            rbuf[i] = -1;
            MPI_OK(MPI_Irecv(&rbuf[i], 1, MPI_INT, any ? MPI_ANY_SOURCE : peer, i, c, &rq[i]));
        }
    }
    MPI_Status st[K];
    MPI_OK(MPI_Waitall(K, rq, st));
    MPI_OK(MPI_Waitall(K, sq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < K; i++) {
        CHECK(rbuf[i] == value(peer, t, r, i), "thread %d round %d message %d: got %d, not %d",
              t, r, i, rbuf[i], value(peer, t, r, i));
        CHECK(st[i].MPI_SOURCE == peer && st[i].MPI_TAG == i,
              "thread %d round %d message %d: status (%d, %d)", t, r, i, st[i].MPI_SOURCE,
              st[i].MPI_TAG);
    }
}

/* A rendezvous message each way, the receive posted first or last by round. */
static void big_round(int t, MPI_Comm c, int r, int *in, int *out)
{
    int peer = 1 - t_rank;
    MPI_Request rq, sq;
    for (int i = 0; i < BIG; i++) {
        out[i] = value(t_rank, t, r, 0) + i;
        in[i] = -1;
    }
    if (r % 2 == 0)
        MPI_OK(MPI_Irecv(in, BIG, MPI_INT, peer, K + 1, c, &rq));
    MPI_OK(MPI_Isend(out, BIG, MPI_INT, peer, K + 1, c, &sq));
    if (r % 2 == 1)
        MPI_OK(MPI_Irecv(in, BIG, MPI_INT, peer, K + 1, c, &rq));
    MPI_Status st;
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == BIG && st.MPI_SOURCE == peer, "thread %d big round %d: %d ints from %d", t,
          r, count, st.MPI_SOURCE);
    for (int i = 0; i < BIG; i++)
        if (in[i] != value(peer, t, r, 0) + i) {
            CHECK(0, "thread %d big round %d: element %d is %d, not %d", t, r, i, in[i],
                  value(peer, t, r, 0) + i);
            break;
        }
}

static void *body(void *p)
{
    mt_arg_t *a = p;
    int t = a->id;
    int *in = malloc(BIG * sizeof(int)), *out = malloc(BIG * sizeof(int));
    CHECK(in && out, "out of memory");
    for (int r = 0; r < ROUNDS; r++) {
        small_round(t, comms[t], r);
        if (r % 40 == 7)
            big_round(t, comms[t], r, in, out);
    }
    free(in);
    free(out);
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    t_begin("thread_ctxs");
    if (argc > 1)
        nt = atoi(argv[1]);
    if (t_size != 2)
        t_skip("needs 2 ranks");
    CHECK(nt >= 1 && nt <= MT_MAX, "%d threads (1 to %d)", nt, MT_MAX);
    for (int t = 0; t < nt; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    mt_run(nt, body, NULL);
    for (int t = 0; t < nt; t++)
        MPI_OK(MPI_Comm_free(&comms[t]));
    t_finish();
    return 0;
}
