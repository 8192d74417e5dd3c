/*
 * Send modes: synchronous (MPI_Issend is not complete until the receiver has
 * posted a matching receive), ready (MPI_Rsend/MPI_Irsend into a receive the
 * sender knows is posted), buffered (MPI_Bsend/MPI_Ibsend with an attached
 * buffer, detach waiting for delivery, errors when the buffer is too small or
 * absent), MPI_Sendrecv and MPI_Sendrecv_replace.
 *
 * Ranks work in pairs (rank ^ 1); the last rank of an odd count pairs with
 * itself, which exercises the self path of every mode.
 */
#include "check.h"

static int rank, size, partner, left, right;

enum { TAG_DATA = 1, TAG_GO = 2, TAG_READY = 3, TAG_DONE = 4 };

/*
 * The sender starts an Issend and tests it for a while; the receiver does not
 * post the receive until it gets a "go" message, which the sender sends only
 * after its tests, so the Issend must not have completed by then.
 */
static void ssend_waits_for_match(size_t n)
{
    t_begin("ssend-not-complete-before-match");
    unsigned char *buf = malloc(n + 1), *rbuf = malloc(n + 1);
    int go = 1, flag;
    MPI_Request req, rreq;
    MPI_Status st;
    if (partner == rank) {
        t_fill(buf, rank, n);
        MPI_Issend(buf, (int)n, MPI_BYTE, rank, TAG_DATA, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 200; i++) {
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag, "Issend of %zu bytes to self complete before the receive was posted", n);
        }
        MPI_Irecv(rbuf, (int)n, MPI_BYTE, rank, TAG_DATA, MPI_COMM_WORLD, &rreq);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Wait(&rreq, &st);
        CHECK_STATUS(st, rank, TAG_DATA, MPI_BYTE, (int)n);
        CHECK(t_verify(rbuf, rank, n) == n, "data of %zu bytes corrupted", n);
    } else if (rank < partner) { /* sender */
        t_fill(buf, rank, n);
        MPI_Issend(buf, (int)n, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, &req);
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 0.05) {
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag, "Issend of %zu bytes complete before the receiver posted its receive", n);
        }
        MPI_Send(&go, 1, MPI_INT, partner, TAG_GO, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else { /* receiver */
        MPI_Recv(&go, 1, MPI_INT, partner, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(rbuf, (int)n, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, &st);
        CHECK_STATUS(st, partner, TAG_DATA, MPI_BYTE, (int)n);
        CHECK(t_verify(rbuf, partner, n) == n, "data of %zu bytes corrupted", n);
    }
    free(buf);
    free(rbuf);
}

/* Blocking Ssend into a receive the partner posts at some point. */
static void ssend_blocking(void)
{
    t_begin("ssend-blocking");
    int v = rank + 100, r = -1;
    MPI_Status st;
    if (partner == rank) {
        MPI_Request rreq;
        MPI_Irecv(&r, 1, MPI_INT, rank, TAG_DATA, MPI_COMM_WORLD, &rreq);
        MPI_Ssend(&v, 1, MPI_INT, rank, TAG_DATA, MPI_COMM_WORLD);
        MPI_Wait(&rreq, &st);
    } else if (rank < partner) {
        MPI_Ssend(&v, 1, MPI_INT, partner, TAG_DATA, MPI_COMM_WORLD);
        MPI_Recv(&r, 1, MPI_INT, partner, TAG_DATA, MPI_COMM_WORLD, &st);
    } else {
        MPI_Recv(&r, 1, MPI_INT, partner, TAG_DATA, MPI_COMM_WORLD, &st);
        MPI_Ssend(&v, 1, MPI_INT, partner, TAG_DATA, MPI_COMM_WORLD);
    }
    CHECK_STATUS(st, partner, TAG_DATA, MPI_INT, 1);
    CHECK(r == partner + 100, "got %d, expected %d", r, partner + 100);
}

/* The receiver posts, then tells the sender it is ready; Rsend and Irsend follow. */
static void rsend(size_t n)
{
    t_begin("rsend");
    unsigned char *buf = malloc(n + 1), *rbuf[2] = {malloc(n + 1), malloc(n + 1)};
    MPI_Request rreq[2], sreq;
    MPI_Status st[2];
    int ready = 1;
    t_fill(buf, rank, n);
    if (partner == rank) {
        MPI_Irecv(rbuf[0], (int)n, MPI_BYTE, rank, TAG_DATA, MPI_COMM_WORLD, &rreq[0]);
        MPI_Irecv(rbuf[1], (int)n, MPI_BYTE, rank, TAG_DATA + 10, MPI_COMM_WORLD, &rreq[1]);
        MPI_Rsend(buf, (int)n, MPI_BYTE, rank, TAG_DATA, MPI_COMM_WORLD);
        MPI_Irsend(buf, (int)n, MPI_BYTE, rank, TAG_DATA + 10, MPI_COMM_WORLD, &sreq);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        MPI_Waitall(2, rreq, st);
    } else if (rank < partner) {
        MPI_Recv(&ready, 1, MPI_INT, partner, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Rsend(buf, (int)n, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD);
        MPI_Irsend(buf, (int)n, MPI_BYTE, partner, TAG_DATA + 10, MPI_COMM_WORLD, &sreq);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    } else {
        MPI_Irecv(rbuf[0], (int)n, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, &rreq[0]);
        MPI_Irecv(rbuf[1], (int)n, MPI_BYTE, partner, TAG_DATA + 10, MPI_COMM_WORLD, &rreq[1]);
        MPI_Send(&ready, 1, MPI_INT, partner, TAG_READY, MPI_COMM_WORLD);
        MPI_Waitall(2, rreq, st);
    }
    if (partner == rank || rank > partner) {
        for (int i = 0; i < 2; i++) {
            CHECK_STATUS(st[i], partner, TAG_DATA + 10 * i, MPI_BYTE, (int)n);
            CHECK(t_verify(rbuf[i], partner, n) == n,
                  "ready-mode message %d of %zu bytes corrupted", i, n);
        }
    }
    free(buf);
    free(rbuf[0]);
    free(rbuf[1]);
}

/*
 * Buffered sends: everything goes through the attached buffer, so a rank can
 * Bsend to itself or to a partner that receives much later. Detach returns
 * the buffer only once every buffered message has been delivered.
 */
static void bsend(void)
{
    t_begin("bsend");
    enum { NMSG = 10, LEN = 3000 };
    int bufsize = NMSG * (LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD) + 1000;
    char *attached = malloc((size_t)bufsize);
    MPI_OK(MPI_Buffer_attach(attached, bufsize));
    int *msg = malloc(LEN * sizeof(int)), *in = malloc(LEN * sizeof(int));
    MPI_Request req;
    for (int i = 0; i < NMSG; i++) {
        for (int j = 0; j < LEN; j++)
            msg[j] = rank * 1000000 + i * 1000 + j;
        if (i % 2)
            MPI_OK(MPI_Bsend(msg, LEN, MPI_INT, right, 50 + i, MPI_COMM_WORLD));
        else {
            MPI_OK(MPI_Ibsend(msg, LEN, MPI_INT, right, 50 + i, MPI_COMM_WORLD, &req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE)); /* local completion only */
        }
        msg[0] = -1; /* the buffered copy must not see this */
    }
    /* receive in reverse tag order: every message is buffered, none blocks */
    for (int i = NMSG - 1; i >= 0; i--) {
        MPI_Status st;
        MPI_Recv(in, LEN, MPI_INT, left, 50 + i, MPI_COMM_WORLD, &st);
        CHECK_STATUS(st, left, 50 + i, MPI_INT, LEN);
        for (int j = 0; j < LEN; j++)
            CHECK(in[j] == left * 1000000 + i * 1000 + j, "message %d element %d is %d", i, j,
                  in[j]);
    }
    void *det = NULL;
    int detsize = 0;
    MPI_OK(MPI_Buffer_detach(&det, &detsize));
    CHECK(det == attached && detsize == bufsize, "detach returned %p/%d, attached %p/%d", det,
          detsize, (void *)attached, bufsize);

    /* detach waits for messages still in the buffer: attach, Bsend, detach, then receive */
    MPI_OK(MPI_Buffer_attach(attached, bufsize));
    for (int j = 0; j < LEN; j++)
        msg[j] = rank + j;
    MPI_OK(MPI_Bsend(msg, LEN, MPI_INT, right, 70, MPI_COMM_WORLD));
    MPI_Request rreq;
    MPI_Irecv(in, LEN, MPI_INT, left, 70, MPI_COMM_WORLD, &rreq);
    MPI_OK(MPI_Buffer_detach(&det, &detsize)); /* returns once the message has been sent */
    MPI_Wait(&rreq, MPI_STATUS_IGNORE);
    for (int j = 0; j < LEN; j++)
        CHECK(in[j] == left + j, "detach test: element %d is %d", j, in[j]);
    CHECK(det == attached, "second detach returned another buffer");
    free(attached);
    free(msg);
    free(in);
}

static void bsend_errors(void)
{
    t_begin("bsend-buffer-too-small");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* 1 MiB: too large for any eager path that might bypass the buffer */
    enum { BIG = 1 << 18 };
    int *big = calloc(BIG, sizeof(int));
    int cls = -1, rc;
    (void)rc, (void)cls, (void)big;

#ifndef OPEN_MPI /* Open MPI 4.1 stops delivering buffered sends after a failed one */
    rc = MPI_Bsend(big, BIG, MPI_INT, right, 80, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_BUFFER,
          "Bsend without an attached buffer returned %d (class %d), expected MPI_ERR_BUFFER", rc,
          cls);
#endif

    int bufsize = 100 + MPI_BSEND_OVERHEAD;
    char *small = malloc((size_t)bufsize);
    MPI_OK(MPI_Buffer_attach(small, bufsize));
#ifndef OPEN_MPI
    rc = MPI_Bsend(big, BIG, MPI_INT, right, 80, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_BUFFER,
          "Bsend of 1 MiB into a %d-byte buffer returned %d (class %d), expected "
          "MPI_ERR_BUFFER",
          bufsize, rc, cls);
    MPI_Request req;
    rc = MPI_Ibsend(big, BIG, MPI_INT, right, 80, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS) /* the error may also be reported at completion */
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_BUFFER,
          "Ibsend into a too small buffer gave %d (class %d), expected MPI_ERR_BUFFER", rc, cls);
#endif

    /* a message that fits still works after the failures */
    int v = rank, r = -1;
    MPI_OK(MPI_Bsend(&v, 1, MPI_INT, right, 81, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(&r, 1, MPI_INT, left, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(r == left, "got %d after the failed Bsends", r);
    void *det;
    int detsize;
    MPI_OK(MPI_Buffer_detach(&det, &detsize));
    CHECK(det == small && detsize == bufsize, "detach returned %p/%d", det, detsize);
    free(small);
    free(big);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void sendrecv(void)
{
    t_begin("sendrecv");
    /* different send and receive counts; the receive buffer is larger */
    for (int n = 1; n <= 200000; n *= 20) {
        int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)(n + 5));
        for (int i = 0; i < n; i++)
            out[i] = rank * 7 + i;
        MPI_Status st;
        MPI_OK(MPI_Sendrecv(out, n, MPI_INT, right, 90, in, n + 5, MPI_INT, left, 90,
                            MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, left, 90, MPI_INT, n);
        for (int i = 0; i < n; i++)
            CHECK(in[i] == left * 7 + i, "length %d: element %d is %d", n, i, in[i]);
        /* wildcard source and tag on the receive side */
        MPI_OK(MPI_Sendrecv(out, n, MPI_INT, right, 91, in, n, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                            MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, left, 91, MPI_INT, n);
        free(out);
        free(in);
    }

    t_begin("sendrecv-replace");
    for (int n = 1; n <= 200000; n *= 20) {
        int *buf = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            buf[i] = rank * 3 + i;
        MPI_Status st;
        /* shift around the ring size times: everyone ends with its own data */
        for (int s = 1; s <= size; s++) {
            MPI_OK(MPI_Sendrecv_replace(buf, n, MPI_INT, right, 92, left, 92, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, left, 92, MPI_INT, n);
            int from = (rank - s % size + size) % size;
            for (int i = 0; i < n; i++)
                CHECK(buf[i] == from * 3 + i, "length %d after %d shifts: element %d is %d", n, s,
                      i, buf[i]);
        }
        free(buf);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    rank = t_rank;
    size = t_size;
    partner = (rank ^ 1) < size ? rank ^ 1 : rank;
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;

    ssend_waits_for_match(0);
    ssend_waits_for_match(8);
    ssend_waits_for_match(1 << 20);
    t_sync();
    ssend_blocking();
    t_sync();
    rsend(4);
    rsend(200000);
    t_sync();
    bsend();
    t_sync();
    bsend_errors();
    t_sync();
    sendrecv();
    t_finish();
    return 0;
}
