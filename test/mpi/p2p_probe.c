/*
 * Probing: Probe/Iprobe report the envelope and size of a pending message
 * without receiving it; Mprobe/Improbe take a message out of the matching
 * queue so no other receive can steal it, and Mrecv/Imrecv receive exactly
 * that message; MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC.
 */
#include "check.h"

static int rank, size, left, right;

static void probe_then_recv(void)
{
    t_begin("probe");
    static const int lens[] = {0, 3, 1000, 300000};
    MPI_Request sreq[4];
    int *out = malloc(sizeof(int) * 300000);
    for (int i = 0; i < 300000; i++)
        out[i] = rank * 10 + i;
    for (int k = 0; k < 4; k++)
        MPI_Isend(out, lens[k], MPI_INT, right, 100 + k, MPI_COMM_WORLD, &sreq[k]);
    /* probe in reverse order with a wildcard source and the exact tag */
    for (int k = 3; k >= 0; k--) {
        MPI_Status st;
        MPI_Probe(MPI_ANY_SOURCE, 100 + k, MPI_COMM_WORLD, &st);
        CHECK_STATUS(st, left, 100 + k, MPI_INT, lens[k]);
        /* probing twice sees the same message */
        MPI_Probe(left, 100 + k, MPI_COMM_WORLD, &st);
        CHECK_STATUS(st, left, 100 + k, MPI_INT, lens[k]);
        int n;
        MPI_Get_count(&st, MPI_INT, &n);
        int *in = malloc(sizeof(int) * (size_t)n + 1);
        MPI_Recv(in, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
        CHECK_STATUS(st, left, 100 + k, MPI_INT, lens[k]);
        for (int i = 0; i < n; i++)
            CHECK(in[i] == left * 10 + i, "length %d element %d is %d", n, i, in[i]);
        free(in);
    }
    MPI_Waitall(4, sreq, MPI_STATUSES_IGNORE);

    t_begin("iprobe");
    int flag = 1;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, 199, MPI_COMM_WORLD, &flag, &st);
    CHECK(!flag, "Iprobe found a message that nobody sent");
    MPI_Isend(out, 77, MPI_INT, right, 110, MPI_COMM_WORLD, &sreq[0]);
    do
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    while (!flag);
    CHECK_STATUS(st, left, 110, MPI_INT, 77);
    int *in = malloc(sizeof(int) * 77);
    MPI_Recv(in, 77, MPI_INT, left, 110, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in[76] == left * 10 + 76, "element 76 is %d", in[76]);
    MPI_Wait(&sreq[0], MPI_STATUS_IGNORE);
    free(in);
    free(out);
}

/*
 * Two messages with the same envelope, A then B. Mprobe takes A; a receive
 * posted afterwards must get B; Mrecv then gets A.
 */
static void mprobe_no_steal(int nonblocking, int len)
{
    t_begin(nonblocking ? "improbe-imrecv" : "mprobe-mrecv");
    int *a = malloc(sizeof(int) * (size_t)len), *b = malloc(sizeof(int) * (size_t)len);
    int *ra = malloc(sizeof(int) * (size_t)len), *rb = malloc(sizeof(int) * (size_t)len);
    for (int i = 0; i < len; i++) {
        a[i] = rank * 1000 + i;
        b[i] = -(rank * 1000 + i) - 1;
    }
    MPI_Request sreq[2];
    MPI_Isend(a, len, MPI_INT, right, 120, MPI_COMM_WORLD, &sreq[0]);
    MPI_Isend(b, len, MPI_INT, right, 120, MPI_COMM_WORLD, &sreq[1]);

    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    if (nonblocking) {
        int flag = 0;
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    } else {
        MPI_Mprobe(left, 120, MPI_COMM_WORLD, &msg, &st);
    }
    CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "no message handle");
    CHECK_STATUS(st, left, 120, MPI_INT, len);

    /* the matched message is gone from the queue: a receive gets B */
    MPI_Status st2;
    MPI_Recv(rb, len, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st2);
    CHECK_STATUS(st2, left, 120, MPI_INT, len);
    CHECK(rb[0] == -(left * 1000) - 1, "the receive after Mprobe got %d (message A stolen?)",
          rb[0]);
    int flag = 1;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "Iprobe still sees the message taken by Mprobe");

    if (nonblocking) {
        MPI_Request rreq;
        MPI_Imrecv(ra, len, MPI_INT, &msg, &rreq);
        CHECK(msg == MPI_MESSAGE_NULL, "Imrecv did not set the message to MPI_MESSAGE_NULL");
        MPI_Wait(&rreq, &st);
    } else {
        MPI_Mrecv(ra, len, MPI_INT, &msg, &st);
        CHECK(msg == MPI_MESSAGE_NULL, "Mrecv did not set the message to MPI_MESSAGE_NULL");
    }
    CHECK_STATUS(st, left, 120, MPI_INT, len);
    for (int i = 0; i < len; i++) {
        CHECK(ra[i] == left * 1000 + i, "message A element %d is %d", i, ra[i]);
        CHECK(rb[i] == -(left * 1000 + i) - 1, "message B element %d is %d", i, rb[i]);
    }
    MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE);
    free(a);
    free(b);
    free(ra);
    free(rb);
}

static void mprobe_proc_null(void)
{
    t_begin("mprobe-proc-null");
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    int buf = 3, n = -1;
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL) did not give MPI_MESSAGE_NO_PROC");
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0,
          "Mprobe status (%d, %d, %d)", st.MPI_SOURCE, st.MPI_TAG, n);
    MPI_OK(MPI_Mrecv(&buf, 1, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "Mrecv(MPI_MESSAGE_NO_PROC) left message %p", (void *)msg);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && buf == 3, "Mrecv(MPI_MESSAGE_NO_PROC): source %d",
          st.MPI_SOURCE);

    int flag = 0;
    MPI_OK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(MPI_PROC_NULL): flag %d", flag);
    MPI_Request req;
    MPI_OK(MPI_Imrecv(&buf, 1, MPI_INT, &msg, &req));
    MPI_OK(MPI_Wait(&req, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv(MPI_MESSAGE_NO_PROC) status source %d",
          st.MPI_SOURCE);
}

/* Everyone sends to rank 0, which takes messages by Mprobe in any order. */
static void mprobe_any_source(void)
{
    t_begin("mprobe-any-source");
    int v = rank * 5;
    MPI_Request req;
    MPI_Isend(&v, 1, MPI_INT, 0, 130, MPI_COMM_WORLD, &req);
    if (rank == 0) {
        MPI_Message *msgs = malloc(sizeof(MPI_Message) * (size_t)size);
        int *src = malloc(sizeof(int) * (size_t)size);
        for (int i = 0; i < size; i++) {
            MPI_Status st;
            MPI_Mprobe(MPI_ANY_SOURCE, 130, MPI_COMM_WORLD, &msgs[i], &st);
            src[i] = st.MPI_SOURCE;
        }
        /* receive them in reverse order of probing */
        int seen = 0;
        for (int i = size - 1; i >= 0; i--) {
            int r;
            MPI_Status st;
            MPI_Mrecv(&r, 1, MPI_INT, &msgs[i], &st);
            CHECK(st.MPI_SOURCE == src[i] && r == src[i] * 5, "message %d: source %d value %d", i,
                  st.MPI_SOURCE, r);
            seen |= 1 << src[i];
        }
        CHECK(seen == (1 << size) - 1, "sources seen 0x%x", seen);
        free(msgs);
        free(src);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    rank = t_rank;
    size = t_size;
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    probe_then_recv();
    t_sync();
    mprobe_no_steal(0, 10);
    t_sync();
    mprobe_no_steal(1, 10);
    t_sync();
    mprobe_no_steal(0, 200000);
    t_sync();
    mprobe_no_steal(1, 200000);
    t_sync();
    mprobe_proc_null();
    mprobe_any_source();
    t_finish();
    return 0;
}
