/*
 * MPI_THREAD_MULTIPLE, a process of another job leaving while the rank's other threads work
 * outside the critical section. In each of ROUNDS rounds, thread 0 of every rank spawns a
 * child (over MPI_COMM_SELF), starts a synchronous and a rendezvous send to it that the
 * child never receives, and tells it to go: the child finalizes and leaves, and the rank's
 * lost-peer sweep must fail both sends (MPI_ERR_OTHER, as in spawn_free's "unmatched").
 * Meanwhile the other threads exchange windows of nonblocking messages with the other rank,
 * each on a communicator of its own (MPI_Isend, MPI_Irecv, MPI_Waitall: requests allocated,
 * handed out and freed outside the critical section), checking every message's contents,
 * until thread 0 of both ranks is done. The sweep used to read every request of the table,
 * those of the threads outside the section included (a race TSan reports); it now reads only
 * the exchanges under way with other jobs. Argument: the thread count (default 3, >= 2).
 */
#include "mt.h"

#include <stdlib.h>

#define ROUNDS 3
#define WINDOW 8
#define BIG (1 << 20) /* rendezvous over every transport */

static char *self_path;
static MPI_Comm comms[MT_MAX];
static int spawner_done; /* atomic accesses */

static void check_lost(int rc, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "%s to a child that left: error class %d (rc %d), expected "
          "MPI_ERR_OTHER", what, cls, rc);
}

static void spawner(void)
{
    char *big = calloc(BIG, 1);
    CHECK(big, "out of memory");
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Comm inter;
        int err = 0, go = 1, small = 7, back = -1;
        char *argv[] = { "child", NULL };
        MPI_OK(MPI_Comm_spawn(self_path, argv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                              &err));
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        MPI_OK(MPI_Recv(&back, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE)); /* it is up */
        CHECK(back == 42, "round %d: the child said %d, expected 42", round, back);
        MPI_Request rq[2];
        MPI_OK(MPI_Issend(&small, 1, MPI_INT, 0, 6, inter, &rq[0]));
        MPI_OK(MPI_Isend(big, BIG, MPI_CHAR, 0, 7, inter, &rq[1]));
        MPI_OK(MPI_Send(&go, 1, MPI_INT, 0, 8, inter));
        double t0 = MPI_Wtime();
        check_lost(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), "MPI_Issend");
        check_lost(MPI_Wait(&rq[1], MPI_STATUS_IGNORE), "a rendezvous MPI_Isend");
        CHECK(MPI_Wtime() - t0 < 30, "round %d: the sends took %.1f s to fail", round,
              MPI_Wtime() - t0);
        MPI_OK(MPI_Comm_free(&inter));
    }
    free(big);
    __atomic_store_n(&spawner_done, 1, __ATOMIC_RELAXED);
}

/* Windows of messages with the other rank on comms[id], until both ranks' spawners are
 * done (each message says whether the sender's is). */
static void worker(int id)
{
    MPI_Comm c = comms[id];
    int other = 1 - t_rank;
    int out[WINDOW][3], in[WINDOW][3];
    MPI_Request rq[2 * WINDOW];
    for (int round = 0;; round++) {
        int mine = __atomic_load_n(&spawner_done, __ATOMIC_RELAXED), theirs = 1;
        for (int i = 0; i < WINDOW; i++) {
            MPI_OK(MPI_Irecv(in[i], 3, MPI_INT, other, i, c, &rq[i]));
            out[i][0] = round;
            out[i][1] = i * 1000 + id;
            out[i][2] = mine;
            MPI_OK(MPI_Isend(out[i], 3, MPI_INT, other, i, c, &rq[WINDOW + i]));
        }
        MPI_OK(MPI_Waitall(2 * WINDOW, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < WINDOW; i++) {
            CHECK(in[i][0] == round && in[i][1] == i * 1000 + id,
                  "thread %d round %d message %d: got (%d, %d), expected (%d, %d)", id, round,
                  i, in[i][0], in[i][1], round, i * 1000 + id);
            theirs &= in[i][2];
        }
        if (mine && theirs)
            break;
    }
}

static void *body(void *p)
{
    mt_arg_t *a = p;
    if (a->id == 0)
        spawner();
    else
        worker(a->id);
    return NULL;
}

static void child(MPI_Comm parent)
{
    int go = 0, hello = 42;
    MPI_OK(MPI_Send(&hello, 1, MPI_INT, 0, 5, parent));
    MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 8, parent, MPI_STATUS_IGNORE));
    /* leaves with the two sends unreceived; the intercommunicator is left to MPI_Finalize */
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        t_begin("child");
        child(parent);
        t_finish();
        return 0;
    }
    t_begin("thread_lost");
    int nt = argc > 1 ? atoi(argv[1]) : 3;
    CHECK(nt >= 2 && nt <= MT_MAX, "thread count %d", nt);
    if (t_size != 2)
        t_skip("thread_lost runs with 2 ranks");
    self_path = argv[0];
    for (int i = 1; i < nt; i++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]));
    mt_run(nt, body, NULL);
    for (int i = 1; i < nt; i++)
        MPI_OK(MPI_Comm_free(&comms[i]));
    t_finish();
    return 0;
}
