/*
 * Cancelling receives: a receive that nothing matches can be cancelled
 * (MPI_Test_cancelled true after completion) and does not take a message sent
 * later; a receive that has already matched or completed cannot be
 * (MPI_Test_cancelled false, data intact).
 */
#include "check.h"

static int rank, size, left, right;

static void cancel_unmatched(void)
{
    t_begin("cancel-unmatched");
    int buf = -1, flag = 0;
    MPI_Request req;
    MPI_Status st;
    /* specific source and tag */
    MPI_Irecv(&buf, 1, MPI_INT, left, 40, MPI_COMM_WORLD, &req);
    MPI_OK(MPI_Cancel(&req));
    MPI_OK(MPI_Wait(&req, &st));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "an unmatched Irecv was not cancelled");
    CHECK(buf == -1, "cancelled receive wrote %d", buf);

    /* wildcards, completed with Test instead of Wait */
    MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    MPI_OK(MPI_Cancel(&req));
    flag = 0;
    while (!flag)
        MPI_Test(&req, &flag, &st);
    flag = 0;
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "an unmatched wildcard Irecv was not cancelled");

    /* a message sent after the cancellation goes to the next receive */
    MPI_Irecv(&buf, 1, MPI_INT, left, 41, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "second unmatched Irecv was not cancelled");
    t_sync(); /* every rank has cancelled before anyone sends */
    int v = rank + 50;
    MPI_Request sreq;
    MPI_Isend(&v, 1, MPI_INT, right, 41, MPI_COMM_WORLD, &sreq);
    MPI_Recv(&buf, 1, MPI_INT, left, 41, MPI_COMM_WORLD, &st);
    CHECK(buf == left + 50, "receive after a cancelled one got %d", buf);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);

    /* cancelling an inactive-again persistent receive */
    MPI_Recv_init(&buf, 1, MPI_INT, left, 42, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "an unmatched persistent receive was not cancelled");
    CHECK(req != MPI_REQUEST_NULL, "Wait freed a cancelled persistent request");
    MPI_Request_free(&req);
}

static void cancel_completed(int len)
{
    t_begin("cancel-completed");
    int *out = malloc(sizeof(int) * (size_t)len), *in = malloc(sizeof(int) * (size_t)len);
    for (int i = 0; i < len; i++)
        out[i] = rank * 3 + i;
    MPI_Request req, sreq;
    MPI_Status st;
    int flag = 0;
    MPI_Irecv(in, len, MPI_INT, left, 43, MPI_COMM_WORLD, &req);
    MPI_Isend(out, len, MPI_INT, right, 43, MPI_COMM_WORLD, &sreq);
    do
        MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    while (!flag);
    MPI_OK(MPI_Cancel(&req));
    MPI_Wait(&req, &st);
    flag = 1;
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag, "length %d: a completed receive reported as cancelled", len);
    CHECK_STATUS(st, left, 43, MPI_INT, len);
    for (int i = 0; i < len; i++)
        CHECK(in[i] == left * 3 + i, "length %d element %d is %d", len, i, in[i]);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    free(out);
    free(in);
}

/*
 * The receive for A is posted before A and then B are sent by the same
 * sender; once B has been received, A has matched the earlier receive (the
 * messages of one sender are matched in order), so cancel must fail even if
 * A's data is still in flight.
 */
static void cancel_matched(int len)
{
    t_begin("cancel-matched");
    int *out = malloc(sizeof(int) * (size_t)len), *in = malloc(sizeof(int) * (size_t)len);
    for (int i = 0; i < len; i++)
        out[i] = rank * 5 + i;
    MPI_Request req, sreq[2];
    MPI_Status st;
    int flag, b = rank, rb = -1;
    MPI_Irecv(in, len, MPI_INT, left, 44, MPI_COMM_WORLD, &req);
    t_sync();
    MPI_Isend(out, len, MPI_INT, right, 44, MPI_COMM_WORLD, &sreq[0]);
    MPI_Isend(&b, 1, MPI_INT, right, 45, MPI_COMM_WORLD, &sreq[1]);
    MPI_Recv(&rb, 1, MPI_INT, left, 45, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_OK(MPI_Cancel(&req));
    MPI_Wait(&req, &st);
    flag = 1;
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag, "length %d: a matched receive was cancelled", len);
    CHECK_STATUS(st, left, 44, MPI_INT, len);
    for (int i = 0; i < len; i++)
        CHECK(in[i] == left * 5 + i, "length %d element %d is %d", len, i, in[i]);
    MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    rank = t_rank;
    size = t_size;
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    cancel_unmatched();
    t_sync();
    cancel_completed(1);
    cancel_completed(100000);
    t_sync();
    cancel_matched(1);
    t_sync();
    cancel_matched(100000);
    t_finish();
    return 0;
}
