/*
 * Message sizes: 0, 1, 7, and every power of two up to 8 MiB with its
 * neighbours +-1, each verified byte by byte (the pattern depends on the
 * source, the size and the offset). Sent as MPI_BYTE with blocking and
 * nonblocking calls, then as the non-contiguous MPI_DOUBLE_INT pair type and a
 * contiguous type made of three of them, including sends and receives that
 * use different (but matching) type signatures.
 */
#include "check.h"

#define MAXBYTES (8u << 20)

static int rank, size, left, right, partner;
static size_t sizes[80];
static int nsizes;

static void make_sizes(void)
{
    sizes[nsizes++] = 0;
    sizes[nsizes++] = 1;
    sizes[nsizes++] = 7;
    for (size_t p = 2; p <= MAXBYTES; p *= 2) {
        sizes[nsizes++] = p - 1;
        sizes[nsizes++] = p;
        if (p < MAXBYTES)
            sizes[nsizes++] = p + 1;
    }
}

/*
 * Blocking exchange with partner = rank ^ 1 (the last rank of an odd count
 * talks to itself): the lower rank sends first, so no buffering is assumed.
 */
static void blocking_bytes(unsigned char *sbuf, unsigned char *rbuf)
{
    t_begin("blocking-bytes");
    for (int k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        MPI_Status st;
        t_fill(sbuf, rank, n);
        memset(rbuf, 0xee, n + 1);
        if (partner == rank) {
            MPI_Request req;
            MPI_Isend(sbuf, (int)n, MPI_BYTE, rank, k, MPI_COMM_WORLD, &req);
            MPI_Recv(rbuf, (int)n, MPI_BYTE, rank, k, MPI_COMM_WORLD, &st);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (rank < partner) {
            MPI_Send(sbuf, (int)n, MPI_BYTE, partner, k, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)n, MPI_BYTE, partner, k, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(rbuf, (int)n, MPI_BYTE, partner, k, MPI_COMM_WORLD, &st);
            MPI_Send(sbuf, (int)n, MPI_BYTE, partner, k, MPI_COMM_WORLD);
        }
        CHECK_STATUS(st, partner, k, MPI_BYTE, (int)n);
        size_t bad = t_verify(rbuf, partner, n);
        CHECK(bad == n, "%zu bytes from %d: byte %zu is 0x%02x, expected 0x%02x", n, partner, bad,
              rbuf[bad], t_pattern(partner, n, bad));
        CHECK(rbuf[n] == 0xee, "%zu bytes from %d: wrote past the end", n, partner);
    }
}

/* Ring exchange with Irecv/Isend, receives posted into a larger buffer. */
static void nonblocking_bytes(unsigned char *sbuf, unsigned char *rbuf)
{
    t_begin("nonblocking-bytes");
    for (int k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        MPI_Request req[2];
        MPI_Status st[2];
        t_fill(sbuf, rank, n);
        memset(rbuf, 0xee, n + 1);
        MPI_Irecv(rbuf, (int)(n + 1), MPI_BYTE, left, k, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(sbuf, (int)n, MPI_BYTE, right, k, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, st);
        CHECK_STATUS(st[0], left, k, MPI_BYTE, (int)n);
        size_t bad = t_verify(rbuf, left, n);
        CHECK(bad == n, "%zu bytes from %d: byte %zu is 0x%02x, expected 0x%02x", n, left, bad,
              rbuf[bad], t_pattern(left, n, bad));
        CHECK(rbuf[n] == 0xee, "%zu bytes from %d: wrote past the end", n, left);
    }
}

struct dint {
    double d;
    int i;
};

static double dval(int src, size_t n, size_t j)
{
    return (double)src * 1e9 + (double)n * 3.0 + (double)j * 0.25;
}

static int ival(int src, size_t n, size_t j)
{
    return (int)((size_t)src * 1000003u + n * 7u + j) ^ 0x5a5a;
}

/*
 * MPI_DOUBLE_INT has a hole after the int, so the data is non-contiguous. The
 * receiver's holes are pre-filled and must stay as they were. With as_triples,
 * the receive uses a contiguous type of three pairs (when the count allows).
 */
static void pair_types(struct dint *sbuf, struct dint *rbuf, MPI_Datatype triple, int blocking)
{
    t_begin(blocking ? "double-int-blocking" : "double-int-nonblocking");
    size_t maxn = MAXBYTES / sizeof(struct dint);
    for (int k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        if (n > maxn)
            break;
        for (size_t j = 0; j < n; j++) {
            sbuf[j].d = dval(rank, n, j);
            sbuf[j].i = ival(rank, n, j);
        }
        memset(rbuf, 0xee, (n + 1) * sizeof(struct dint));
        int use_triple = n % 3 == 0 && (k % 2 == 0);
        int rcount = use_triple ? (int)(n / 3) : (int)n;
        MPI_Datatype rtype = use_triple ? triple : MPI_DOUBLE_INT;
        MPI_Status st;
        int src;
        if (blocking) {
            src = partner;
            if (partner == rank) {
                MPI_Request req;
                MPI_Isend(sbuf, (int)n, MPI_DOUBLE_INT, rank, k, MPI_COMM_WORLD, &req);
                MPI_Recv(rbuf, rcount, rtype, rank, k, MPI_COMM_WORLD, &st);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else if (rank < partner) {
                MPI_Send(sbuf, (int)n, MPI_DOUBLE_INT, partner, k, MPI_COMM_WORLD);
                MPI_Recv(rbuf, rcount, rtype, partner, k, MPI_COMM_WORLD, &st);
            } else {
                MPI_Recv(rbuf, rcount, rtype, partner, k, MPI_COMM_WORLD, &st);
                MPI_Send(sbuf, (int)n, MPI_DOUBLE_INT, partner, k, MPI_COMM_WORLD);
            }
        } else {
            MPI_Request req[2];
            MPI_Status sts[2];
            src = left;
            MPI_Irecv(rbuf, rcount, rtype, left, k, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(sbuf, (int)n, MPI_DOUBLE_INT, right, k, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, sts);
            st = sts[0];
        }
        CHECK_STATUS(st, src, k, rtype, rcount);
        int el = -1;
        MPI_Get_elements(&st, rtype, &el);
#ifdef OPEN_MPI
        /* Open MPI counts a pair as one element; the standard counts its two basic elements */
        if (el == (int)n)
            el = (int)(2 * n);
#endif
        CHECK(el == (int)(2 * n), "Get_elements = %d for %zu pairs, expected %zu", el, n, 2 * n);
        for (size_t j = 0; j < n; j++) {
            CHECK(rbuf[j].d == dval(src, n, j) && rbuf[j].i == ival(src, n, j),
                  "%zu pairs from %d: pair %zu is (%g, %d), expected (%g, %d)", n, src, j,
                  rbuf[j].d, rbuf[j].i, dval(src, n, j), ival(src, n, j));
            const unsigned char *hole =
                (const unsigned char *)&rbuf[j] + sizeof(double) + sizeof(int);
            for (size_t h = 0; h < sizeof(struct dint) - sizeof(double) - sizeof(int); h++)
                CHECK(hole[h] == 0xee, "%zu pairs from %d: the hole after pair %zu was written", n,
                      src, j);
        }
        const unsigned char *after = (const unsigned char *)&rbuf[n];
        CHECK(after[0] == 0xee, "%zu pairs from %d: wrote past the end", n, src);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    rank = t_rank;
    size = t_size;
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    partner = (rank ^ 1) < size ? rank ^ 1 : rank;
    make_sizes();

    unsigned char *sbuf = malloc(MAXBYTES + 64), *rbuf = malloc(MAXBYTES + 64);
    CHECK(sbuf && rbuf, "out of memory");
    blocking_bytes(sbuf, rbuf);
    t_sync();
    nonblocking_bytes(sbuf, rbuf);
    t_sync();

    MPI_Datatype triple;
    MPI_Type_contiguous(3, MPI_DOUBLE_INT, &triple);
    MPI_Type_commit(&triple);
    pair_types((struct dint *)sbuf, (struct dint *)rbuf, triple, 1);
    t_sync();
    pair_types((struct dint *)sbuf, (struct dint *)rbuf, triple, 0);
    MPI_Type_free(&triple);
    free(sbuf);
    free(rbuf);
    t_finish();
    return 0;
}
