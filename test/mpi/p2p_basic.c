/*
 * Basic point-to-point: a token ring and all-pairs exchanges with blocking
 * MPI_Send/MPI_Recv, self-sends, zero-byte messages, MPI_PROC_NULL as source
 * and destination of every call, wildcard receives with their status, and
 * MPI_Get_count / MPI_Get_elements.
 */
#include "check.h"

static int rank, size;

static void token_ring(void)
{
    static const int lens[] = {1, 1000, 100000}; /* ints: eager and rendezvous sizes */
    t_begin("ring");
    if (size == 1)
        return; /* a ring of one is a self-send, tested below */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (unsigned k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        int n = lens[k];
        int *buf = malloc(sizeof(int) * (size_t)n);
        MPI_Status st;
        if (rank == 0) {
            for (int i = 0; i < n; i++)
                buf[i] = i;
            MPI_Send(buf, n, MPI_INT, right, 7, MPI_COMM_WORLD);
            MPI_Recv(buf, n, MPI_INT, left, 7, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(buf, n, MPI_INT, left, 7, MPI_COMM_WORLD, &st);
            for (int i = 0; i < n; i++)
                buf[i] += rank;
            MPI_Send(buf, n, MPI_INT, right, 7, MPI_COMM_WORLD);
        }
        CHECK_STATUS(st, left, 7, MPI_INT, n);
        if (rank == 0) {
            int sum = size * (size - 1) / 2;
            for (int i = 0; i < n; i++)
                CHECK(buf[i] == i + sum, "length %d: element %d is %d, expected %d", n, i, buf[i],
                      i + sum);
        }
        free(buf);
    }
}

/*
 * Every pair exchanges once, each rank visiting peers in increasing order; the
 * lexicographically smallest unfinished pair can always proceed, so blocking
 * calls cannot deadlock whatever the message size.
 */
static void all_pairs(void)
{
    static const int lens[] = {0, 3, 70000};
    t_begin("all-pairs");
    for (unsigned k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        size_t n = (size_t)lens[k];
        unsigned char *sbuf = malloc(n + 1), *rbuf = malloc(n + 1);
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            MPI_Status st;
            t_fill(sbuf, rank, n);
            memset(rbuf, 0, n + 1);
            if (rank < p) {
                MPI_Send(sbuf, (int)n, MPI_BYTE, p, 100 + rank, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)n, MPI_BYTE, p, 100 + p, MPI_COMM_WORLD, &st);
            } else {
                MPI_Recv(rbuf, (int)n, MPI_BYTE, p, 100 + p, MPI_COMM_WORLD, &st);
                MPI_Send(sbuf, (int)n, MPI_BYTE, p, 100 + rank, MPI_COMM_WORLD);
            }
            CHECK_STATUS(st, p, 100 + p, MPI_BYTE, (int)n);
            size_t bad = t_verify(rbuf, p, n);
            CHECK(bad == n, "%zu bytes from %d differ at offset %zu", n, p, bad);
        }
        free(sbuf);
        free(rbuf);
    }
}

static void self_send(void)
{
    t_begin("self-send");
    for (size_t n = 0; n <= (1u << 20); n = n ? n * 16 : 1) {
        unsigned char *sbuf = malloc(n + 1), *rbuf = calloc(n + 1, 1);
        MPI_Request req;
        MPI_Status st;
        t_fill(sbuf, rank, n);
        MPI_Isend(sbuf, (int)n, MPI_BYTE, rank, 5, MPI_COMM_WORLD, &req);
        MPI_Recv(rbuf, (int)n, MPI_BYTE, rank, 5, MPI_COMM_WORLD, &st);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(req == MPI_REQUEST_NULL, "Isend request not MPI_REQUEST_NULL after Wait");
        CHECK_STATUS(st, rank, 5, MPI_BYTE, (int)n);
        CHECK(t_verify(rbuf, rank, n) == n, "self-send of %zu bytes corrupted", n);

        /* receive posted first, then a blocking send to self */
        memset(rbuf, 0, n + 1);
        MPI_Irecv(rbuf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
        MPI_Send(sbuf, (int)n, MPI_BYTE, rank, 6, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        CHECK_STATUS(st, rank, 6, MPI_BYTE, (int)n);
        CHECK(t_verify(rbuf, rank, n) == n, "pre-posted self-send of %zu bytes corrupted", n);
        free(sbuf);
        free(rbuf);
    }
}

static void zero_bytes(void)
{
    t_begin("zero-byte");
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request req[3];
    MPI_Status st;
    int dummy = 42;
    /* count 0 with a NULL buffer, with a real buffer, and of a derived type */
    MPI_Isend(NULL, 0, MPI_BYTE, right, 11, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(&dummy, 0, MPI_INT, right, 12, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(NULL, 0, MPI_DOUBLE_INT, right, 13, MPI_COMM_WORLD, &req[2]);
    int rb = 99;
    MPI_Recv(&rb, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, left, 11, MPI_BYTE, 0);
    CHECK(rb == 99, "zero-byte receive wrote the buffer (%d)", rb);
    MPI_Recv(NULL, 0, MPI_INT, left, 12, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, left, 12, MPI_INT, 0);
    MPI_Recv(&rb, 1, MPI_INT, MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, left, 13, MPI_INT, 0);
    int elems = -1;
    MPI_Get_elements(&st, MPI_INT, &elems);
    CHECK(elems == 0, "Get_elements of a zero-byte message is %d", elems);
    MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
}

static void check_null_status(const MPI_Status *st, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && n == 0,
          "%s: status (source %d, tag %d, count %d), expected (MPI_PROC_NULL, MPI_ANY_TAG, 0)",
          what, st->MPI_SOURCE, st->MPI_TAG, n);
}

static void proc_null(void)
{
    t_begin("proc-null");
    int buf[4] = {1, 2, 3, 4};
    MPI_Status st;
    MPI_Request req;
    int flag;

    MPI_OK(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv");
    CHECK(buf[0] == 1 && buf[3] == 4, "Recv from MPI_PROC_NULL modified the buffer");

    MPI_OK(MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Wait(&req, &st));
    MPI_OK(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    flag = 0;
    MPI_OK(MPI_Test(&req, &flag, &st));
    CHECK(flag, "Irecv from MPI_PROC_NULL not complete at the first Test");
    check_null_status(&st, "Irecv+Test");

    MPI_OK(MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, buf, 4, MPI_INT, MPI_PROC_NULL, 1,
                        MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv both MPI_PROC_NULL");

    /* Sendrecv to a real peer, from MPI_PROC_NULL, and the reverse */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank * 10, in = -1;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 2, &in, 1, MPI_INT, MPI_PROC_NULL, 2,
                        MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv from MPI_PROC_NULL");
    CHECK(in == -1, "Sendrecv from MPI_PROC_NULL wrote the buffer");
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 2, &in, 1, MPI_INT, left, 2,
                        MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, left, 2, MPI_INT, 1);
    CHECK(in == left * 10, "Sendrecv received %d, expected %d", in, left * 10);

    int v = 5;
    MPI_OK(MPI_Sendrecv_replace(&v, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_PROC_NULL, 3, MPI_COMM_WORLD,
                                &st));
    check_null_status(&st, "Sendrecv_replace");
    CHECK(v == 5, "Sendrecv_replace with MPI_PROC_NULL changed the buffer to %d", v);

    MPI_OK(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Probe");
    flag = 0;
    MPI_OK(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag, "Iprobe(MPI_PROC_NULL) returned flag false");
    check_null_status(&st, "Iprobe");

    MPI_OK(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Issend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Rsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Bsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD)); /* no buffer needed */

    MPI_Request reqs[2];
    MPI_OK(MPI_Send_init(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[0]));
    MPI_OK(MPI_Recv_init(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[1]));
    for (int i = 0; i < 3; i++) {
        MPI_Status sts[2];
        MPI_OK(MPI_Startall(2, reqs));
        MPI_OK(MPI_Waitall(2, reqs, sts));
        check_null_status(&sts[1], "persistent Recv_init");
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
}

static void wildcards(void)
{
    t_begin("any-source-any-tag");
    /* everyone sends its rank to rank 0 with tag 20+rank; rank 0 sorts them out */
    int mine = rank * 3 + 1;
    MPI_Request req;
    MPI_Isend(&mine, 1, MPI_INT, 0, 20 + rank, MPI_COMM_WORLD, &req);
    if (rank == 0) {
        int *seen = calloc((size_t)size, sizeof(int));
        for (int i = 0; i < size; i++) {
            int v = -1;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int s = st.MPI_SOURCE;
            CHECK(s >= 0 && s < size, "MPI_SOURCE %d out of range", s);
            CHECK(!seen[s], "message from %d received twice", s);
            seen[s] = 1;
            CHECK_STATUS(st, s, 20 + s, MPI_INT, 1);
            CHECK(v == s * 3 + 1, "value %d from %d, expected %d", v, s, s * 3 + 1);
        }
        free(seen);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    t_sync();

    t_begin("any-source-fixed-tag");
    /* two messages per sender with tags 30 and 31; receive tag 31 first with ANY_SOURCE */
    int pair[2] = {rank, -rank};
    MPI_Request r2[2];
    MPI_Isend(&pair[0], 1, MPI_INT, 0, 30, MPI_COMM_WORLD, &r2[0]);
    MPI_Isend(&pair[1], 1, MPI_INT, 0, 31, MPI_COMM_WORLD, &r2[1]);
    if (rank == 0) {
        for (int tag = 31; tag >= 30; tag--) {
            int got = 0;
            for (int i = 0; i < size; i++) {
                int v;
                MPI_Status st;
                MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
                CHECK(st.MPI_TAG == tag, "tag %d, expected %d", st.MPI_TAG, tag);
                CHECK(v == (tag == 30 ? st.MPI_SOURCE : -st.MPI_SOURCE),
                      "value %d from %d with tag %d", v, st.MPI_SOURCE, tag);
                got |= 1 << st.MPI_SOURCE;
            }
            CHECK(got == (1 << size) - 1, "sources seen 0x%x", got);
        }
    }
    MPI_Waitall(2, r2, MPI_STATUSES_IGNORE);
    t_sync();

    t_begin("fixed-source-any-tag");
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Isend(&mine, 1, MPI_INT, right, 40 + rank, MPI_COMM_WORLD, &req);
    int v = -1;
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, left, 40 + left, MPI_INT, 1);
    CHECK(v == left * 3 + 1, "value %d", v);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void get_count(void)
{
    t_begin("get-count");
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double d[20];
    for (int i = 0; i < 10; i++)
        d[i] = rank + i * 0.5;
    MPI_Request req;
    MPI_Status st;
    MPI_Isend(d, 10, MPI_DOUBLE, right, 50, MPI_COMM_WORLD, &req);
    double r[20];
    MPI_Recv(r, 20, MPI_DOUBLE, left, 50, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int n;
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    CHECK(n == 10, "Get_count(MPI_DOUBLE) = %d, expected 10", n);
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == 80, "Get_count(MPI_BYTE) = %d, expected 80", n);
    MPI_Get_elements(&st, MPI_DOUBLE, &n);
    CHECK(n == 10, "Get_elements(MPI_DOUBLE) = %d, expected 10", n);
    MPI_Count nx = -1;
    MPI_Get_elements_x(&st, MPI_DOUBLE, &nx);
    CHECK(nx == 10, "Get_elements_x = %lld, expected 10", (long long)nx);
    for (int i = 0; i < 10; i++)
        CHECK(r[i] == left + i * 0.5, "element %d is %g", i, r[i]);

    /* 5 ints received as pairs of ints: 2.5 elements is MPI_UNDEFINED */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int five[5] = {1, 2, 3, 4, 5}, got[6];
    MPI_Isend(five, 5, MPI_INT, right, 51, MPI_COMM_WORLD, &req);
    MPI_Recv(got, 3, pair, left, 51, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Get_count(&st, pair, &n);
    CHECK(n == MPI_UNDEFINED, "Get_count of 5 ints as int pairs = %d, expected MPI_UNDEFINED", n);
    MPI_Get_elements(&st, pair, &n);
    CHECK(n == 5, "Get_elements of 5 ints as int pairs = %d, expected 5", n);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 5, "Get_count(MPI_INT) = %d, expected 5", n);
    for (int i = 0; i < 5; i++)
        CHECK(got[i] == i + 1, "element %d is %d", i, got[i]);
    MPI_Type_free(&pair);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    rank = t_rank;
    size = t_size;
    token_ring();
    t_sync();
    all_pairs();
    t_sync();
    self_send();
    t_sync();
    zero_bytes();
    t_sync();
    proc_null();
    t_sync();
    wildcards();
    t_sync();
    get_count();
    t_finish();
    return 0;
}
