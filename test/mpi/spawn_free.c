/*
 * The end of a connection between two jobs: parents and spawned children free or
 * disconnect the intercommunicator (or leave it to MPI_Finalize) in different orders, and
 * one side finalizes while the other still works (it must not hang there, nor make the
 * other side fail). Both jobs must exit 0. The mode is the program's argument:
 *   free        both sides MPI_Comm_free, then finalize
 *   disconnect  both sides MPI_Comm_disconnect, then finalize
 *   early       the children finalize at once (no free); the parents keep computing with
 *               MPI calls for a while, then free and finalize
 *   late        the parents free and finalize at once; the children keep computing, then
 *               free and finalize
 *   unmatched   the parents' rank 0 starts a synchronous and a rendezvous send to child 0,
 *               which finalizes without receiving them: both fail with MPI_ERR_OTHER (rdmpi;
 *               MPI leaves it undefined) instead of waiting forever
 * In each mode a message goes both ways first (the connection is up). Each side times its
 * MPI_Finalize: ending a connection to a job still running must not wait for it.
 * Standard MPI, except in "early": a send to a child that has finalized must fail, and so
 * must receives and probes waiting for it (MPI leaves both undefined; rdmpi reports them
 * with MPI_ERR_OTHER rather than waiting forever): a receive posted before the child left,
 * and MPI_Recv, MPI_Probe and MPI_ANY_SOURCE receives posted after.
 */
#include <time.h>
#include <unistd.h>
#include "check.h"

#define NCHILD 2
#define BUSY 1.5        /* seconds the other side keeps working */
#define FINALIZE_MAX 1.0 /* seconds a finalize may take while the other side works */

/* One message each way between rank 0 of each side. */
static void ping(MPI_Comm inter, int parent_side)
{
    int rank, v = 0;
    MPI_Comm_rank(inter, &rank);
    if (rank != 0)
        return;
    if (parent_side) {
        v = 42;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 1, inter));
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 2, inter, MPI_STATUS_IGNORE));
        CHECK(v == 43, "parent got %d back", v);
    } else {
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE));
        CHECK(v == 42, "child got %d", v);
        v = 43;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 2, inter));
    }
}

/* Work that keeps calling MPI (progress) within this side for BUSY seconds. */
static void keep_busy(void)
{
    double until = MPI_Wtime() + BUSY;
    while (MPI_Wtime() < until) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        usleep(1000);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* MPI_Finalize, which must not wait for the other job when fast is set. */
static void timed_finalize(int fast, const char *who)
{
    t_begin("finalize");
    MPI_OK(MPI_Comm_free(&t_sync_comm));
    double t0 = now();
    MPI_OK(MPI_Finalize());
    double dt = now() - t0;
    if (fast && dt > FINALIZE_MAX) {
        fprintf(stderr, "FAIL: %s's MPI_Finalize took %.2f s while the other job worked\n",
                who, dt);
        exit(1);
    }
}

/* Is rc the error class of an operation waiting for a process that has left? */
static void check_lost(int rc, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "%s from a finalized child: error class %d (rc %d), expected "
          "MPI_ERR_OTHER", what, cls, rc);
}

/* The children have finalized without sending anything: receives and probes waiting for
 * them fail (pending: an MPI_Irecv posted while they still ran). */
static void recv_from_finalized(MPI_Comm inter, MPI_Request pending)
{
    int v = 0, child = t_rank % NCHILD;
    MPI_Status st;
    t_begin("receive posted before the child finalized");
    st.MPI_ERROR = MPI_SUCCESS;
    check_lost(MPI_Wait(&pending, &st), "MPI_Wait on an MPI_Irecv");
    CHECK(pending == MPI_REQUEST_NULL, "the failed request was not freed");
    t_begin("receives posted after the child finalized");
    check_lost(MPI_Recv(&v, 1, MPI_INT, child, 5, inter, MPI_STATUS_IGNORE), "MPI_Recv");
    check_lost(MPI_Probe(child, 5, inter, MPI_STATUS_IGNORE), "MPI_Probe");
    MPI_Request r;
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &r));
    check_lost(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait on an MPI_ANY_SOURCE MPI_Irecv");
    check_lost(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, inter, MPI_STATUS_IGNORE),
               "MPI_Probe(MPI_ANY_SOURCE)");
}

/* "unmatched": sends child 0 never receives (it finalizes once told to go). */
static int unmatched(MPI_Comm inter, int parent_side)
{
    int rank, go = 1;
    MPI_Comm_rank(inter, &rank);
    if (!parent_side) {
        if (rank == 0)
            MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE));
        return 1; /* the intercommunicator is left to MPI_Finalize */
    }
    if (rank == 0) {
        enum { BIG = 4 << 20 };
        char *big = calloc(BIG, 1);
        int small = 7;
        MPI_Request rq[2];
        CHECK(big, "out of memory");
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        t_begin("sends child 0 never receives");
        MPI_OK(MPI_Issend(&small, 1, MPI_INT, 0, 6, inter, &rq[0]));
        MPI_OK(MPI_Isend(big, BIG, MPI_CHAR, 0, 7, inter, &rq[1]));
        MPI_OK(MPI_Send(&go, 1, MPI_INT, 0, 8, inter));
        double t0 = MPI_Wtime();
        check_lost(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), "MPI_Issend's MPI_Wait");
        check_lost(MPI_Wait(&rq[1], MPI_STATUS_IGNORE), "a rendezvous MPI_Isend's MPI_Wait");
        CHECK(MPI_Wtime() - t0 < 30, "the sends took %.1f s to fail", MPI_Wtime() - t0);
        free(big);
    }
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    return 0;
}

static int side(MPI_Comm inter, const char *mode, int parent_side)
{
    t_check_remote_transport(inter, parent_side);
    ping(inter, parent_side);
    /* The goodbyes below travel that transport. Not in "early" and "late": their receives
     * from children never talked to (which connect first) must stay so. */
    if (strcmp(mode, "early") && strcmp(mode, "late"))
        t_check_inter_transports(inter);
    if (!strcmp(mode, "unmatched"))
        return unmatched(inter, parent_side);
    int first = parent_side ? !strcmp(mode, "late") : !strcmp(mode, "early");
    int second = parent_side ? !strcmp(mode, "early") : !strcmp(mode, "late");
    if (!strcmp(mode, "free")) {
        MPI_OK(MPI_Comm_free(&inter));
    } else if (!strcmp(mode, "disconnect")) {
        MPI_OK(MPI_Comm_disconnect(&inter));
    } else if (first) {
        if (parent_side)
            MPI_OK(MPI_Comm_free(&inter));
        /* the children of "early" leave their parent intercommunicator to MPI_Finalize */
    } else if (second) {
        MPI_Request pending = MPI_REQUEST_NULL;
        int pv = 0;
        if (parent_side) {
            MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
            MPI_OK(MPI_Irecv(&pv, 1, MPI_INT, t_rank % NCHILD, 4, inter, &pending));
        }
        keep_busy();
        if (parent_side)
            recv_from_finalized(inter, pending);
        if (parent_side) {
            /* The children have finalized: a send to one of them is an error (rdmpi says
             * so to the sender; MPI leaves it undefined), not a silent loss: at once for
             * rank 0, which is connected to child 0 and got its goodbye; for the others,
             * which never connected to their child, once the connection was refused (the
             * first send may be queued before that is known). */
            t_begin("send to a finalized process");
            int v = 1, child = t_rank % NCHILD;
            int rc = MPI_Send(&v, 1, MPI_INT, child, 3, inter);
            CHECK(t_rank > 0 || rc != MPI_SUCCESS, "a send to child 0 succeeded");
            if (rc == MPI_SUCCESS) {
                double until = MPI_Wtime() + 0.5;
                while (MPI_Wtime() < until)
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &v,
                               MPI_STATUS_IGNORE);
                CHECK(MPI_Send(&v, 1, MPI_INT, child, 3, inter) != MPI_SUCCESS,
                      "a second send to child %d that has finalized succeeded", child);
            }
        }
        /* (not MPI_Comm_disconnect: collective with a side that has left) */
        MPI_OK(MPI_Comm_free(&inter));
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    CHECK(inter == MPI_COMM_NULL || first, "the intercommunicator handle was not reset");
    /* Only this side: the other one may be gone already. */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    return first;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "free";
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        t_begin("child");
        int fast = side(parent, mode, 0);
        timed_finalize(fast, "a child");
        return 0;
    }
    t_begin("spawn");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char *args[] = { (char *)mode, NULL };
    MPI_Comm inter;
    int errs[NCHILD];
    int rc = MPI_Comm_spawn(argv[0], args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            errs);
    MPI_OK(rc);
    int fast = side(inter, mode, 1);
    timed_finalize(fast, "a parent");
    return 0;
}
