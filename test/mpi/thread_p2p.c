/*
 * MPI_THREAD_MULTIPLE, point to point: nt threads per rank at once (first argument, an even
 * number, default 4)
 *  - ring exchanges on MPI_COMM_WORLD (one tag per thread) and on a communicator of the
 *    thread's own, checking that one thread's messages arrive in order (non-overtaking);
 *  - blocking synchronous sends between two threads of the same process (each blocked call
 *    must let the other thread's call in);
 *  - MPI_Mprobe/MPI_Improbe + MPI_Mrecv with ANY_SOURCE on a tag per thread;
 *  - threads other than the main one checking MPI_Is_thread_main.
 */
#include "mt.h"

#define ITERS 200

static int nt = 4;
static MPI_Comm own[MT_MAX];

static void *body(void *p)
{
    mt_arg_t *a = p;
    int t = a->id, flag = 1;
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    MPI_Is_thread_main(&flag);
    CHECK(!flag, "MPI_Is_thread_main is true in thread %d", t);
    /* Rings, shared and own communicator. */
    for (int k = 0; k < 2; k++) {
        MPI_Comm c = k ? own[t] : MPI_COMM_WORLD;
        for (int i = 0; i < ITERS; i++) {
            int out[2] = { t, i }, in[2] = { -1, -1 };
            MPI_Request r;
            MPI_Status st;
            MPI_OK(MPI_Irecv(in, 2, MPI_INT, left, t, c, &r));
            MPI_OK(MPI_Send(out, 2, MPI_INT, right, t, c));
            MPI_OK(MPI_Wait(&r, &st));
            CHECK(in[0] == t && in[1] == i, "thread %d comm %d: got (%d, %d), expected (%d, %d)",
                  t, k, in[0], in[1], t, i);
            CHECK_STATUS(st, left, t, MPI_INT, 2);
        }
    }
    /* Two threads of this process: t sends to itself with Ssend, t^1 receives. */
    int peer_t = t ^ 1;
    for (int i = 0; i < 50; i++) {
        int v = t * 1000 + i, w = -1;
        if (t & 1) {
            MPI_OK(MPI_Recv(&w, 1, MPI_INT, t_rank, 100 + peer_t, own[0], MPI_STATUS_IGNORE));
            MPI_OK(MPI_Ssend(&v, 1, MPI_INT, t_rank, 100 + t, own[0]));
        } else {
            MPI_OK(MPI_Ssend(&v, 1, MPI_INT, t_rank, 100 + t, own[0]));
            MPI_OK(MPI_Recv(&w, 1, MPI_INT, t_rank, 100 + peer_t, own[0], MPI_STATUS_IGNORE));
        }
        CHECK(w == peer_t * 1000 + i, "self exchange thread %d: got %d, expected %d", t, w,
              peer_t * 1000 + i);
    }
    /* Matched probes: every rank sends ITERS/4 messages to every rank with tag 200 + t. */
    int n = ITERS / 4, got = 0, last[64];
    for (int r = 0; r < t_size && r < 64; r++)
        last[r] = -1;
    MPI_Request *sr = malloc(sizeof(*sr) * (size_t)n * (size_t)t_size);
    int *vals = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        vals[i] = i;
    for (int i = 0; i < n; i++)
        for (int r = 0; r < t_size; r++)
            MPI_OK(MPI_Isend(&vals[i], 1, MPI_INT, r, 200 + t, MPI_COMM_WORLD,
                             &sr[i * t_size + r]));
    while (got < n * t_size) {
        MPI_Message m;
        MPI_Status st;
        int v = -1, fl = 0;
        if (got & 1) {
            MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, 200 + t, MPI_COMM_WORLD, &fl, &m, &st));
            if (!fl)
                continue;
        } else {
            MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, 200 + t, MPI_COMM_WORLD, &m, &st));
        }
        CHECK(st.MPI_TAG == 200 + t, "thread %d probed tag %d", t, st.MPI_TAG);
        MPI_OK(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
        CHECK(m == MPI_MESSAGE_NULL, "MPI_Mrecv did not free the message");
        CHECK(v == last[st.MPI_SOURCE] + 1, "thread %d: from %d got %d after %d", t,
              st.MPI_SOURCE, v, last[st.MPI_SOURCE]);
        last[st.MPI_SOURCE] = v;
        got++;
    }
    MPI_OK(MPI_Waitall(n * t_size, sr, MPI_STATUSES_IGNORE));
    free(sr);
    free(vals);
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    t_begin("thread_p2p");
    CHECK(t_size <= 64, "at most 64 ranks");
    if (argc > 1)
        nt = atoi(argv[1]);
    CHECK(nt >= 2 && nt <= MT_MAX && nt % 2 == 0, "%d threads (an even number, 2 to %d)", nt,
          MT_MAX);
    for (int t = 0; t < nt; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &own[t]);
    mt_run(nt, body, NULL);
    for (int t = 0; t < nt; t++)
        MPI_Comm_free(&own[t]);
    t_finish();
    return 0;
}
