/*
 * Nonblocking point-to-point and the completion calls: Waitall, Waitany,
 * Waitsome, Testall, Testany, Testsome (with MPI_REQUEST_NULL entries in the
 * arrays, and arrays of only null requests), Wait/Test on a null request,
 * MPI_Request_free of an active send, MPI_Request_get_status (which leaves
 * the request alive), and 1000 outstanding requests to one peer.
 */
#include "check.h"

static int rank, size, left, right;

static void check_empty_status(const MPI_Status *st, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && n == 0,
          "%s: status (source %d, tag %d, count %d) is not empty", what, st->MPI_SOURCE,
          st->MPI_TAG, n);
}

static void null_requests(void)
{
    t_begin("null-requests");
    MPI_Request r = MPI_REQUEST_NULL,
                arr[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[3];
    int flag = 0, idx = 5, outcount = 5, idxs[3];
    MPI_OK(MPI_Wait(&r, &st));
    check_empty_status(&st, "Wait(MPI_REQUEST_NULL)");
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(flag, "Test(MPI_REQUEST_NULL) flag false");
    check_empty_status(&st, "Test(MPI_REQUEST_NULL)");
    MPI_OK(MPI_Waitany(3, arr, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "Waitany on null requests gave index %d", idx);
    check_empty_status(&st, "Waitany(all null)");
    flag = 0;
    MPI_OK(MPI_Testany(3, arr, &idx, &flag, &st));
    CHECK(flag && idx == MPI_UNDEFINED, "Testany on null requests: flag %d index %d", flag, idx);
    MPI_OK(MPI_Waitsome(3, arr, &outcount, idxs, sts));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome on null requests gave outcount %d", outcount);
    MPI_OK(MPI_Testsome(3, arr, &outcount, idxs, sts));
    CHECK(outcount == MPI_UNDEFINED, "Testsome on null requests gave outcount %d", outcount);
    MPI_OK(MPI_Waitall(3, arr, sts));
    flag = 0;
    MPI_OK(MPI_Testall(3, arr, &flag, sts));
    CHECK(flag, "Testall on null requests: flag false");
    MPI_OK(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
    flag = 0;
    MPI_OK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag, "Request_get_status(MPI_REQUEST_NULL) flag false");
    check_empty_status(&st, "Request_get_status(MPI_REQUEST_NULL)");
}

/*
 * Every rank sends one message to every rank (itself included); receives are
 * posted into an array with MPI_REQUEST_NULL holes and completed with the
 * given method. Returns after checking each message exactly once.
 */
enum method { WAITANY, WAITSOME, TESTANY, TESTSOME, TESTALL, WAITALL };
static const char *method_name[] = {"waitany",  "waitsome", "testany",
                                    "testsome", "testall",  "waitall"};

static void all_to_all(enum method m, int len)
{
    t_begin(method_name[m]);
    int nreq = 2 * size + 1; /* null, recv, null, recv, ..., null */
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * (size_t)nreq);
    MPI_Request *sreq = malloc(sizeof(MPI_Request) * (size_t)size);
    MPI_Status *sts = malloc(sizeof(MPI_Status) * (size_t)nreq);
    int *idx = malloc(sizeof(int) * (size_t)nreq);
    int **in = malloc(sizeof(int *) * (size_t)size);
    int *out = malloc(sizeof(int) * (size_t)len);
    int *done = calloc((size_t)nreq, sizeof(int));
    for (int i = 0; i < len; i++)
        out[i] = rank * 1000 + i;
    for (int i = 0; i < nreq; i++)
        rreq[i] = MPI_REQUEST_NULL;
    for (int p = 0; p < size; p++) {
        in[p] = malloc(sizeof(int) * (size_t)len);
        MPI_Irecv(in[p], len, MPI_INT, p, 60 + m, MPI_COMM_WORLD, &rreq[2 * p + 1]);
    }
    for (int p = 0; p < size; p++)
        MPI_Isend(out, len, MPI_INT, p, 60 + m, MPI_COMM_WORLD, &sreq[p]);

    int ndone = 0, flag, n, k;
    MPI_Status st;
    while (ndone < size) {
        switch (m) {
        case WAITANY:
            MPI_Waitany(nreq, rreq, &k, &st);
            CHECK(k != MPI_UNDEFINED, "Waitany returned MPI_UNDEFINED with %d pending",
                  size - ndone);
            CHECK(k % 2 == 1 && !done[k], "Waitany returned index %d", k);
            CHECK(rreq[k] == MPI_REQUEST_NULL, "completed request %d not set to null", k);
            done[k] = 1;
            sts[k] = st;
            ndone++;
            break;
        case TESTANY:
            MPI_Testany(nreq, rreq, &k, &flag, &st);
            if (!flag) {
                CHECK(k == MPI_UNDEFINED, "Testany flag false but index %d", k);
                break;
            }
            CHECK(k != MPI_UNDEFINED && k % 2 == 1 && !done[k], "Testany returned index %d", k);
            done[k] = 1;
            sts[k] = st;
            ndone++;
            break;
        case WAITSOME:
        case TESTSOME: {
            MPI_Status some[64];
            if (m == WAITSOME)
                MPI_Waitsome(nreq, rreq, &n, idx, some);
            else
                MPI_Testsome(nreq, rreq, &n, idx, some);
            CHECK(n != MPI_UNDEFINED && n >= (m == WAITSOME), "outcount %d with %d pending", n,
                  size - ndone);
            for (int i = 0; i < n; i++) {
                k = idx[i];
                CHECK(k >= 0 && k < nreq && k % 2 == 1 && !done[k], "returned index %d", k);
                CHECK(rreq[k] == MPI_REQUEST_NULL, "completed request %d not set to null", k);
                done[k] = 1;
                sts[k] = some[i];
                ndone++;
            }
            break;
        }
        case TESTALL:
            MPI_Testall(nreq, rreq, &flag, sts);
            if (flag) {
                for (int p = 0; p < size; p++)
                    done[2 * p + 1] = 1;
                ndone = size;
            }
            break;
        case WAITALL:
            MPI_Waitall(nreq, rreq, sts);
            for (int p = 0; p < size; p++)
                done[2 * p + 1] = 1;
            ndone = size;
            break;
        }
    }
    for (int p = 0; p < size; p++) {
        CHECK_STATUS(sts[2 * p + 1], p, 60 + m, MPI_INT, len);
        for (int i = 0; i < len; i++)
            CHECK(in[p][i] == p * 1000 + i, "from %d element %d is %d", p, i, in[p][i]);
        free(in[p]);
    }
    for (int i = 0; i < nreq; i++)
        CHECK(rreq[i] == MPI_REQUEST_NULL, "request %d not null at the end", i);
    MPI_Waitall(size, sreq, MPI_STATUSES_IGNORE);
    free(rreq);
    free(sreq);
    free(sts);
    free(idx);
    free(in);
    free(out);
    free(done);
}

/* MPI_Request_free on an active send: the message is still delivered. */
static void free_active_send(void)
{
    t_begin("request-free-send");
    static int out[100000];
    int *in = malloc(sizeof(out));
    for (int i = 0; i < 100000; i++)
        out[i] = rank + i;
    for (int len = 1; len <= 100000; len *= 100) {
        MPI_Request req;
        MPI_Isend(out, len, MPI_INT, right, 70, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        CHECK(req == MPI_REQUEST_NULL, "Request_free did not set the handle to null");
        MPI_Status st;
        MPI_Recv(in, len, MPI_INT, left, 70, MPI_COMM_WORLD, &st);
        CHECK_STATUS(st, left, 70, MPI_INT, len);
        for (int i = 0; i < len; i++)
            CHECK(in[i] == left + i, "length %d element %d is %d", len, i, in[i]);
        /* the freed send's buffer may be reused only once we know it arrived */
        int ack = 1;
        MPI_Request areq;
        MPI_Isend(&ack, 1, MPI_INT, left, 71, MPI_COMM_WORLD, &areq);
        MPI_Recv(&ack, 1, MPI_INT, right, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&areq, MPI_STATUS_IGNORE);
    }
    free(in);
}

/* MPI_Type_free right after starting the operations: MPI says the pending
 * operations still use the type (the library must keep it alive). The
 * receive is posted before the sender sends (and for the large size the
 * sender is rendezvous), so the type is used after the free on both sides.
 * (Only contiguous derived types exist so far: a type of n ints.) */
static void free_type_while_pending(void)
{
    t_begin("type-free-pending");
    for (int n = 3; n <= 300000; n *= 100) {
        int *out = malloc((size_t)n * sizeof(int)), *in = malloc((size_t)(n + 1) * sizeof(int));
        for (int i = 0; i < n; i++) {
            out[i] = rank * 7 + i;
            in[i] = -1;
        }
        in[n] = -2;
        MPI_Datatype t;
        MPI_Type_contiguous(n, MPI_INT, &t);
        MPI_Type_commit(&t);
        MPI_Request rreq, sreq;
        MPI_Irecv(in, 1, t, left, 73, MPI_COMM_WORLD, &rreq);
        MPI_Type_free(&t);
        CHECK(t == MPI_DATATYPE_NULL, "Type_free did not set the handle to null");
        t_sync();
        MPI_Type_contiguous(n, MPI_INT, &t);
        MPI_Datatype d;
        MPI_Type_dup(t, &d);
        MPI_Type_free(&t);
        MPI_Type_commit(&d);
        MPI_Isend(out, 1, d, right, 73, MPI_COMM_WORLD, &sreq);
        MPI_Type_free(&d);
        /* churn the allocator so a freed type's memory would be reused */
        for (int k = 0; k < 4; k++) {
            MPI_Datatype junk;
            MPI_Type_contiguous(k + 2, MPI_DOUBLE, &junk);
            MPI_Type_commit(&junk);
            MPI_Type_free(&junk);
        }
        MPI_Status st;
        MPI_Wait(&rreq, &st);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        int count = -1;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == n, "n=%d: received %d ints", n, count);
        for (int i = 0; i < n; i++)
            CHECK(in[i] == left * 7 + i, "n=%d: element %d is %d, expected %d", n, i, in[i],
                  left * 7 + i);
        CHECK(in[n] == -2, "n=%d: the receive wrote past its type", n);
        free(out);
        free(in);
        t_sync();
    }
}

/* Request_get_status polls without freeing; a later Wait still gives the status. */
static void get_status(void)
{
    t_begin("request-get-status");
    int v = rank + 5, r = -1, flag = 0;
    MPI_Request rreq, sreq;
    MPI_Status st;
    MPI_Irecv(&r, 1, MPI_INT, left, 72, MPI_COMM_WORLD, &rreq);
    MPI_OK(MPI_Request_get_status(rreq, &flag, &st));
    /* nothing has been sent yet by anyone with tag 72 */
    CHECK(!flag, "Request_get_status reports an unsent message as complete");
    t_sync();
    MPI_Isend(&v, 1, MPI_INT, right, 72, MPI_COMM_WORLD, &sreq);
    do {
        MPI_OK(MPI_Request_get_status(rreq, &flag, &st));
    } while (!flag);
    CHECK(rreq != MPI_REQUEST_NULL, "Request_get_status freed the request");
    CHECK_STATUS(st, left, 72, MPI_INT, 1);
    CHECK(r == left + 5, "received %d", r);
    MPI_OK(MPI_Request_get_status(rreq, &flag, &st));
    CHECK(flag, "second Request_get_status not complete");
    MPI_Status st2;
    MPI_Wait(&rreq, &st2);
    CHECK(rreq == MPI_REQUEST_NULL, "Wait did not free the request");
    CHECK_STATUS(st2, left, 72, MPI_INT, 1);
    do {
        MPI_OK(MPI_Request_get_status(sreq, &flag, MPI_STATUS_IGNORE));
    } while (!flag);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
}

/* 1000 outstanding sends and receives to one peer, tags cycling over 7 values. */
static void many_outstanding(int prepost)
{
    t_begin(prepost ? "many-outstanding-preposted" : "many-outstanding");
    enum { N = 1000 };
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * N);
    int *out = malloc(sizeof(int) * N * 4), *in = malloc(sizeof(int) * N * 4);
    for (int i = 0; i < N * 4; i++) {
        out[i] = rank * 100000 + i;
        in[i] = -1;
    }
    /* message i has i % 4 + 1 ints at offset 4 * i */
    if (prepost) {
        for (int i = 0; i < N; i++)
            MPI_Irecv(in + 4 * i, 4, MPI_INT, left, i % 7, MPI_COMM_WORLD, &req[N + i]);
        t_sync();
    }
    for (int i = 0; i < N; i++)
        MPI_Isend(out + 4 * i, i % 4 + 1, MPI_INT, right, i % 7, MPI_COMM_WORLD, &req[i]);
    if (!prepost)
        for (int i = 0; i < N; i++)
            MPI_Irecv(in + 4 * i, 4, MPI_INT, left, i % 7, MPI_COMM_WORLD, &req[N + i]);
    MPI_Status *sts = malloc(sizeof(MPI_Status) * 2 * N);
    MPI_Waitall(2 * N, req, sts);
    for (int i = 0; i < N; i++) {
        CHECK_STATUS(sts[N + i], left, i % 7, MPI_INT, i % 4 + 1);
        for (int j = 0; j < i % 4 + 1; j++)
            CHECK(in[4 * i + j] == left * 100000 + 4 * i + j, "message %d element %d is %d", i, j,
                  in[4 * i + j]);
    }
    free(sts);
    free(req);
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
    null_requests();
    for (int m = WAITANY; m <= WAITALL; m++) {
        all_to_all((enum method)m, 10);
        all_to_all((enum method)m, 50000);
        t_sync();
    }
    free_active_send();
    t_sync();
    free_type_while_pending();
    get_status();
    t_sync();
    many_outstanding(0);
    t_sync();
    many_outstanding(1);
    t_finish();
    return 0;
}
