/*
 * MPI_THREAD_MULTIPLE, progress by trylock (2 ranks; nt threads per rank, first argument,
 * default 4): threads waiting for one request each, of which one drives the progress engine
 * and the others sleep until their request completes or the engine is free (core_wait_req).
 * Every round, each of rank 1's threads waits for its own message (MPI_Recv, or MPI_Irecv
 * and MPI_Wait, or MPI_Waitall of two receives), and rank 0's thread 0 sends the messages in
 * an order that turns each round (so the engine's own request completes first, last or
 * between the sleepers', and the engine is handed over while threads sleep), now and then
 * after a pause (so that the waiters are asleep, not spinning, when their message comes).
 * Each of rank 1's threads answers, and rank 0's threads wait for the answers, so rank 0's
 * threads sleep and hand the engine over as well. Every value is checked.
 */
#include <unistd.h>
#include "mt.h"

#define ROUNDS 300

static int nt = 4;
static MPI_Comm comm;
static pthread_barrier_t bar;

static void rank1_round(int t, int r)
{
    int v[2] = { -1, -1 }, want = r * MT_MAX + t;
    MPI_Status st;
    MPI_Request q[2];
    switch (r % 3) {
    case 0:
        MPI_OK(MPI_Recv(v, 1, MPI_INT, 0, t, comm, &st));
        break;
    case 1:
        MPI_OK(MPI_Irecv(v, 1, MPI_INT, 0, t, comm, &q[0]));
        MPI_OK(MPI_Wait(&q[0], &st));
        break;
    default: /* the message, and its second half on tag t + MT_MAX */
        MPI_OK(MPI_Irecv(&v[0], 1, MPI_INT, 0, t, comm, &q[0]));
        MPI_OK(MPI_Irecv(&v[1], 1, MPI_INT, 0, t + MT_MAX, comm, &q[1]));
        MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        CHECK(v[1] == -want, "round %d thread %d: second half %d, not %d", r, t, v[1], -want);
        st.MPI_SOURCE = 0;
        st.MPI_TAG = t;
        break;
    }
    CHECK(v[0] == want, "round %d thread %d got %d, not %d", r, t, v[0], want);
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == t, "round %d thread %d: status (%d, %d)", r, t,
          st.MPI_SOURCE, st.MPI_TAG);
    int back = want + 1;
    MPI_OK(MPI_Send(&back, 1, MPI_INT, 0, 2 * MT_MAX + t, comm));
}

static void rank0_round(int t, int r)
{
    if (t == 0)
        for (int k = 0; k < nt; k++) {
            /* turns every round; backwards on odd rounds */
            int u = r % 2 ? (r + nt - k) % nt : (r + k) % nt, v = r * MT_MAX + u, w = -v;
            if (r % 8 == 7)
                usleep(2000);
            MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, u, comm));
            if (r % 3 == 2)
                MPI_OK(MPI_Send(&w, 1, MPI_INT, 1, u + MT_MAX, comm));
        }
    int back = -1;
    MPI_OK(MPI_Recv(&back, 1, MPI_INT, 1, 2 * MT_MAX + t, comm, MPI_STATUS_IGNORE));
    CHECK(back == r * MT_MAX + t + 1, "round %d thread %d: answer %d, not %d", r, t, back,
          r * MT_MAX + t + 1);
}

static void *body(void *p)
{
    mt_arg_t *a = p;
    for (int r = 0; r < ROUNDS; r++) {
        (t_rank == 0 ? rank0_round : rank1_round)(a->id, r);
        pthread_barrier_wait(&bar);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    t_begin("thread_engine");
    if (argc > 1)
        nt = atoi(argv[1]);
    if (t_size != 2)
        t_skip("needs 2 ranks");
    CHECK(nt >= 1 && nt <= MT_MAX, "%d threads (1 to %d)", nt, MT_MAX);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    pthread_barrier_init(&bar, NULL, (unsigned)nt);
    mt_run(nt, body, NULL);
    pthread_barrier_destroy(&bar);
    MPI_OK(MPI_Comm_free(&comm));
    t_finish();
    return 0;
}
