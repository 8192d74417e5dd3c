/*
 * MPI_THREAD_MULTIPLE, dynamic processes: NT threads per rank (first argument, default 3)
 * call MPI_Comm_spawn on MPI_COMM_SELF at the same moment, two children each. Every
 * parent process then meets several children's rank 0 at once over the context that the
 * two-process communicators of dynamic processes share: each message must reach the
 * thread whose children sent it. Each thread then sends its children its (rank, thread)
 * pair, they check it against the argument they were started with, sum it over their
 * world and send it back, so a message given to the wrong thread or job shows.
 */
#include "mt.h"

#include <stdlib.h>

#define KIDS 2

static char *self_path;

static void *body(void *p)
{
    mt_arg_t *a = p;
    int t = a->id, errs[KIDS];
    char arg[32];
    snprintf(arg, sizeof(arg), "%d", t_rank * 100 + t);
    char *argv[] = { arg, NULL };
    MPI_Comm inter;
    pthread_barrier_wait(a->shared);
    int rc = MPI_Comm_spawn(self_path, argv, KIDS, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, errs);
    MPI_OK(rc);
    for (int i = 0; i < KIDS; i++)
        CHECK(errs[i] == MPI_SUCCESS, "thread %d: errcode %d is %d", t, i, errs[i]);
    int rsize = -1;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == KIDS, "thread %d: %d children, expected %d", t, rsize, KIDS);
    int who = t_rank * 100 + t;
    for (int k = 0; k < KIDS; k++)
        MPI_OK(MPI_Send(&who, 1, MPI_INT, k, 7, inter));
    for (int k = 0; k < KIDS; k++) {
        int back[2] = { -1, -1 };
        MPI_Status st;
        MPI_OK(MPI_Recv(back, 2, MPI_INT, MPI_ANY_SOURCE, 8, inter, &st));
        CHECK(back[0] == st.MPI_SOURCE && back[1] == KIDS * who,
              "thread %d: child %d answered (%d, %d), expected (%d, %d)", t, st.MPI_SOURCE,
              back[0], back[1], st.MPI_SOURCE, KIDS * who);
    }
    MPI_OK(MPI_Comm_disconnect(&inter));
    return NULL;
}

static void child(MPI_Comm parent, int argc, char **argv)
{
    t_begin("child");
    CHECK(argc == 2, "a child got %d arguments", argc);
    int want = atoi(argv[1]), got = -1, sum = -1;
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE));
    CHECK(got == want, "child %d started for %d got %d from its parent", t_rank, want, got);
    MPI_OK(MPI_Allreduce(&got, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int back[2] = { t_rank, sum };
    MPI_OK(MPI_Send(back, 2, MPI_INT, 0, 8, parent));
    MPI_OK(MPI_Comm_disconnect(&parent));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        child(parent, argc, argv);
        t_finish();
        return 0;
    }
    t_begin("thread_spawn");
    int nt = argc > 1 ? atoi(argv[1]) : 3;
    CHECK(nt >= 1 && nt <= MT_MAX, "thread count %d", nt);
    self_path = argv[0];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)nt);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    mt_run(nt, body, &start);
    pthread_barrier_destroy(&start);
    t_finish();
    return 0;
}
