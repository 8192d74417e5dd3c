/*
 * Persistent requests: Send_init/Recv_init started many times with Start and
 * Startall, the buffer contents changing between starts; Wait on an inactive
 * persistent request; Ssend_init, Bsend_init, Rsend_init; a wildcard
 * Recv_init; eager and rendezvous sizes.
 */
#include "check.h"

static int rank, size, left, right;

static void ring_loop(int len, int iters, int use_startall)
{
    t_begin(use_startall ? "startall-ring" : "start-ring");
    int *out = malloc(sizeof(int) * (size_t)len), *in = malloc(sizeof(int) * (size_t)len);
    MPI_Request req[2];
    MPI_Status st[2];
    MPI_Recv_init(in, len, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Send_init(out, len, MPI_INT, right, 1, MPI_COMM_WORLD, &req[1]);

    /* an inactive persistent request completes at once with an empty status */
    int flag = 0;
    MPI_OK(MPI_Wait(&req[0], &st[0]));
    CHECK(req[0] != MPI_REQUEST_NULL, "Wait on an inactive persistent request freed it");
    MPI_OK(MPI_Test(&req[1], &flag, &st[1]));
    CHECK(flag, "Test on an inactive persistent request: flag false");

    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < len; i++)
            out[i] = rank * 1000 + it * 7 + i;
        in[0] = in[len - 1] = -1;
        if (use_startall) {
            MPI_OK(MPI_Startall(2, req));
            MPI_OK(MPI_Waitall(2, req, st));
        } else {
            MPI_OK(MPI_Start(&req[0]));
            MPI_OK(MPI_Start(&req[1]));
            MPI_OK(MPI_Wait(&req[1], &st[1]));
            MPI_OK(MPI_Wait(&req[0], &st[0]));
        }
        CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL,
              "completion freed a persistent request");
        CHECK_STATUS(st[0], left, 1, MPI_INT, len);
        for (int i = 0; i < len; i++)
            CHECK(in[i] == left * 1000 + it * 7 + i, "length %d iteration %d element %d is %d", len,
                  it, i, in[i]);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL,
          "Request_free did not null the handles");
    free(out);
    free(in);
}

/* Persistent sends in the other modes, received by a persistent wildcard receive. */
static void modes(void)
{
    t_begin("persistent-modes");
    enum { ITERS = 20 };
#ifdef OPEN_MPI
    const int LEN =
        100; /* Open MPI 4.1 resends stale data from a restarted Bsend_init above eager size */
#else
    const int LEN = 5000;
#endif
    int bufsize = LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    void *battach = malloc((size_t)bufsize);
    MPI_Buffer_attach(battach, bufsize);
    int *out = malloc(sizeof(int) * (size_t)LEN), *in = malloc(sizeof(int) * (size_t)LEN);
    MPI_Request sreq[3], rreq;
    MPI_Ssend_init(out, LEN, MPI_INT, right, 10, MPI_COMM_WORLD, &sreq[0]);
    MPI_Bsend_init(out, LEN, MPI_INT, right, 11, MPI_COMM_WORLD, &sreq[1]);
    MPI_Rsend_init(out, LEN, MPI_INT, right, 12, MPI_COMM_WORLD, &sreq[2]);
    MPI_Recv_init(in, LEN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq);
    for (int it = 0; it < ITERS; it++) {
        int m = it % 3;
        for (int i = 0; i < LEN; i++)
            out[i] = rank + it * 100 + i;
        MPI_Start(&rreq);
        /* the receive is posted everywhere before any ready-mode send starts */
        if (m == 2)
            t_sync();
        MPI_Start(&sreq[m]);
        MPI_Status st;
        MPI_Wait(&sreq[m], MPI_STATUS_IGNORE);
        if (m == 1)
            out[0] = -5; /* buffered: the copy was taken at Start */
        MPI_Wait(&rreq, &st);
        CHECK_STATUS(st, left, 10 + m, MPI_INT, LEN);
        for (int i = 0; i < LEN; i++)
            CHECK(in[i] == left + it * 100 + i, "iteration %d (mode %d) element %d is %d", it, m, i,
                  in[i]);
        /* nobody may start the next receive's match before this one is done */
        t_sync();
    }
    for (int i = 0; i < 3; i++)
        MPI_Request_free(&sreq[i]);
    MPI_Request_free(&rreq);
    void *det;
    int detsize;
    MPI_Buffer_detach(&det, &detsize);
    CHECK(det == battach, "detach returned another buffer");
    free(battach);
    free(out);
    free(in);
}

/*
 * Persistent Ssend_init must also be synchronous: the receiver only starts
 * its receive after a message the sender sends when its tests are done.
 */
static void ssend_init_sync(void)
{
    t_begin("ssend-init-synchronous");
    int partner = (rank ^ 1) < size ? rank ^ 1 : rank;
    int v = rank, r = -1, go = 1, flag;
    MPI_Request sreq, rreq;
    if (partner == rank) {
        MPI_Ssend_init(&v, 1, MPI_INT, rank, 20, MPI_COMM_WORLD, &sreq);
        MPI_Recv_init(&r, 1, MPI_INT, rank, 20, MPI_COMM_WORLD, &rreq);
        for (int it = 0; it < 3; it++) {
            MPI_Start(&sreq);
            for (int i = 0; i < 100; i++) {
                MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE);
                CHECK(!flag, "iteration %d: Ssend_init to self complete without a receive", it);
            }
            MPI_Start(&rreq);
            MPI_Wait(&rreq, MPI_STATUS_IGNORE);
            MPI_Wait(&sreq, MPI_STATUS_IGNORE);
            CHECK(r == rank, "received %d", r);
        }
        MPI_Request_free(&rreq);
        MPI_Request_free(&sreq);
    } else if (rank < partner) {
        MPI_Ssend_init(&v, 1, MPI_INT, partner, 20, MPI_COMM_WORLD, &sreq);
        for (int it = 0; it < 3; it++) {
            MPI_Start(&sreq);
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.02) {
                MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE);
                CHECK(!flag, "iteration %d: Ssend_init complete before the receive was posted", it);
            }
            MPI_Send(&go, 1, MPI_INT, partner, 21, MPI_COMM_WORLD);
            MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&sreq);
    } else {
        MPI_Recv_init(&r, 1, MPI_INT, partner, 20, MPI_COMM_WORLD, &rreq);
        for (int it = 0; it < 3; it++) {
            MPI_Recv(&go, 1, MPI_INT, partner, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Start(&rreq);
            MPI_Wait(&rreq, MPI_STATUS_IGNORE);
            CHECK(r == partner, "received %d", r);
        }
        MPI_Request_free(&rreq);
    }
}

/* A persistent receive freed while inactive, and a request freed after its last Wait. */
static void free_inactive(void)
{
    t_begin("free-inactive");
    int buf[4];
    MPI_Request req;
    for (int i = 0; i < 100; i++) {
        MPI_Recv_init(buf, 4, MPI_INT, left, 30, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        MPI_Send_init(buf, 4, MPI_INT, right, 30, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    rank = t_rank;
    size = t_size;
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    ring_loop(1, 500, 1);
    t_sync();
    ring_loop(1000, 100, 0);
    t_sync();
    ring_loop(256 * 1024, 10, 1);
    t_sync();
    modes();
    t_sync();
    ssend_init_sync();
    t_sync();
    free_inactive();
    t_finish();
    return 0;
}
