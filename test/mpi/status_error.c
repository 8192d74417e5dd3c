/*
 * The MPI_ERROR field of a status: MPI sets it only in the statuses of the multiple-completion
 * calls (Waitall, Testall, Waitsome, Testsome), and only when they return MPI_ERR_IN_STATUS.
 * Every other call that fills a status (Recv, Wait, Test, Waitany, Testany, Probe, Iprobe,
 * Mprobe, Improbe, Mrecv, Sendrecv, Request_get_status, the null-request and MPI_PROC_NULL
 * forms) leaves the caller's value as it was. A Waitall that fails puts every status's code
 * in its MPI_ERROR (MPI_SUCCESS for the operations that succeeded).
 */
#include "check.h"

#define MARK 0x5eed /* not an MPI error code: any write shows */

static void mark(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++)
        st[i].MPI_ERROR = MARK;
}

#define KEPT(st, what) CHECK((st).MPI_ERROR == MARK, "%s wrote MPI_ERROR = %d", what, (st).MPI_ERROR)

static void single_completions(int peer)
{
    t_begin("single");
    MPI_Status st;
    MPI_Request r;
    int out = t_rank, in = -1, flag;
    for (int k = 0; k < 8; k++)
        MPI_Send(&out, 1, MPI_INT, peer, 10 + k, MPI_COMM_WORLD);

    mark(&st, 1);
    MPI_Recv(&in, 1, MPI_INT, peer, 10, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 10 && in == peer, "Recv's status");
    KEPT(st, "MPI_Recv");

    mark(&st, 1);
    MPI_Irecv(&in, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    CHECK(st.MPI_TAG == 11, "Wait's status");
    KEPT(st, "MPI_Wait");

    mark(&st, 1);
    MPI_Irecv(&in, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, &r);
    do
        MPI_Test(&r, &flag, &st);
    while (!flag);
    CHECK(st.MPI_TAG == 12, "Test's status");
    KEPT(st, "MPI_Test");

    mark(&st, 1);
    MPI_Probe(peer, 13, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_TAG == 13, "Probe's status");
    KEPT(st, "MPI_Probe");
    mark(&st, 1);
    do
        MPI_Iprobe(peer, 13, MPI_COMM_WORLD, &flag, &st);
    while (!flag);
    KEPT(st, "MPI_Iprobe");
    MPI_Recv(&in, 1, MPI_INT, peer, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Message m;
    mark(&st, 1);
    MPI_Mprobe(peer, 14, MPI_COMM_WORLD, &m, &st);
    KEPT(st, "MPI_Mprobe");
    mark(&st, 1);
    MPI_Mrecv(&in, 1, MPI_INT, &m, &st);
    CHECK(st.MPI_TAG == 14 && in == peer, "Mrecv's status");
    KEPT(st, "MPI_Mrecv");

    mark(&st, 1);
    do
        MPI_Improbe(peer, 15, MPI_COMM_WORLD, &flag, &m, &st);
    while (!flag);
    KEPT(st, "MPI_Improbe");
    mark(&st, 1);
    MPI_Imrecv(&in, 1, MPI_INT, &m, &r);
    MPI_Wait(&r, &st);
    CHECK(st.MPI_TAG == 15, "Imrecv's status");
    KEPT(st, "MPI_Imrecv + MPI_Wait");

    int idx;
    mark(&st, 1);
    MPI_Irecv(&in, 1, MPI_INT, peer, 16, MPI_COMM_WORLD, &r);
    MPI_Waitany(1, &r, &idx, &st);
    CHECK(idx == 0 && st.MPI_TAG == 16, "Waitany's status");
    KEPT(st, "MPI_Waitany");

    mark(&st, 1);
    MPI_Irecv(&in, 1, MPI_INT, peer, 17, MPI_COMM_WORLD, &r);
    do
        MPI_Request_get_status(r, &flag, &st);
    while (!flag);
    KEPT(st, "MPI_Request_get_status");
    mark(&st, 1);
    do
        MPI_Testany(1, &r, &idx, &flag, &st);
    while (!flag);
    KEPT(st, "MPI_Testany");

    mark(&st, 1);
    MPI_Sendrecv(&out, 1, MPI_INT, peer, 18, &in, 1, MPI_INT, peer, 18, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_TAG == 18, "Sendrecv's status");
    KEPT(st, "MPI_Sendrecv");

    /* the empty statuses: a null request, MPI_PROC_NULL */
    r = MPI_REQUEST_NULL;
    mark(&st, 1);
    MPI_Wait(&r, &st);
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "empty status");
    KEPT(st, "MPI_Wait on MPI_REQUEST_NULL");
    mark(&st, 1);
    MPI_Recv(&in, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL status");
    KEPT(st, "MPI_Recv from MPI_PROC_NULL");
    mark(&st, 1);
    MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    KEPT(st, "MPI_Probe of MPI_PROC_NULL");
}

/* Waitall/Waitsome that succeed leave MPI_ERROR; one that fails (a truncated receive) sets
 * it in every status. */
static void multiple_completions(int peer)
{
    t_begin("multiple");
    MPI_Status st[2];
    MPI_Request r[2];
    int out[2] = { 1, 2 }, in[2];
    MPI_Send(out, 1, MPI_INT, peer, 20, MPI_COMM_WORLD);
    MPI_Send(out, 1, MPI_INT, peer, 21, MPI_COMM_WORLD);
    MPI_Irecv(&in[0], 1, MPI_INT, peer, 20, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &r[1]);
    mark(st, 2);
    MPI_OK(MPI_Waitall(2, r, st));
    KEPT(st[0], "a successful MPI_Waitall");
    KEPT(st[1], "a successful MPI_Waitall");

    int outcount, idx[2];
    MPI_Send(out, 1, MPI_INT, peer, 22, MPI_COMM_WORLD);
    MPI_Irecv(&in[0], 1, MPI_INT, peer, 22, MPI_COMM_WORLD, &r[0]);
    mark(st, 2);
    MPI_OK(MPI_Waitsome(1, r, &outcount, idx, st));
    CHECK(outcount == 1, "Waitsome's outcount %d", outcount);
    KEPT(st[0], "a successful MPI_Waitsome");

    /* 2 ints into room for 1: MPI_ERR_TRUNCATE in the second status */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Send(out, 1, MPI_INT, peer, 23, MPI_COMM_WORLD);
    MPI_Send(out, 2, MPI_INT, peer, 24, MPI_COMM_WORLD);
    MPI_Irecv(&in[0], 1, MPI_INT, peer, 23, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, peer, 24, MPI_COMM_WORLD, &r[1]);
    mark(st, 2);
    int rc = MPI_Waitall(2, r, st), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_IN_STATUS, "Waitall with a truncated receive returned class %d", cls);
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS, "the successful receive's MPI_ERROR is %d",
          st[0].MPI_ERROR);
    MPI_Error_class(st[1].MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "the truncated receive's MPI_ERROR has class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size < 2) {
        /* a self-message is as good as a peer's */
        single_completions(0);
        multiple_completions(0);
    } else if (t_rank < 2) {
        single_completions(1 - t_rank);
        multiple_completions(1 - t_rank);
    }
    t_finish();
    return 0;
}
