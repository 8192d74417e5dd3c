/*
 * Messages at the edges of the eager protocol: every size next to a limit the transports
 * use (4k, 16k, the shm eager limit for few local ranks, a quarter of a shm ring, the
 * largest ring) and one byte either side, so a message one byte over a limit takes the
 * other protocol than its neighbour. For each size: a stream in which eager and
 * rendezvous messages alternate on one tag (MPI_ANY_SOURCE receives, half of them posted
 * late so the messages wait unexpected) must arrive in send order; a strided type whose
 * packed size crosses each limit; the synchronous, ready and buffered modes; and a
 * receive one element short, which must fail with MPI_ERR_TRUNCATE, write nothing past its
 * buffer, and leave the next message intact.
 */
#include "check.h"

static int rank, size, partner;

static const size_t edges[] = { 4096, 16384, 32768, 65536, 131072, 262144, 524288 };
#define NEDGES (sizeof(edges) / sizeof(edges[0]))
#define MAXN (524288 + 64)

/* One byte under, at and over each edge, in an order that alternates large and small. */
static size_t sizes[3 * NEDGES + 2];
static int nsizes;

static void make_sizes(void)
{
    sizes[nsizes++] = 0;
    for (unsigned i = 0; i < NEDGES; i++) {
        sizes[nsizes++] = edges[NEDGES - 1 - i] + 1;
        sizes[nsizes++] = edges[i] - 1;
        sizes[nsizes++] = edges[(i + 3) % NEDGES];
    }
    sizes[nsizes++] = 1;
}

/* Each rank streams every size to its partner on one tag before the partner receives
 * half of them; the pattern of message k depends on k, so a reordering shows. */
static void ordered_stream(unsigned char **sbuf, unsigned char *rbuf)
{
    t_begin("ordered-stream");
    MPI_Request sreq[3 * NEDGES + 2];
    for (int k = 0; k < nsizes; k++) {
        t_fill(sbuf[k], rank * 1000 + k, sizes[k]);
        MPI_Isend(sbuf[k], (int)sizes[k], MPI_BYTE, partner, 7, MPI_COMM_WORLD, &sreq[k]);
    }
    /* let the first half arrive unexpected */
    t_spin(0.05, MPI_COMM_SELF);
    for (int k = 0; k < nsizes; k++) {
        MPI_Status st;
        memset(rbuf, 0xee, sizes[k] + 1);
        MPI_Recv(rbuf, MAXN, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
        CHECK_STATUS(st, partner, 7, MPI_BYTE, (int)sizes[k]);
        size_t bad = t_verify(rbuf, partner * 1000 + k, sizes[k]);
        CHECK(bad == sizes[k], "message %d (%zu bytes) from %d: byte %zu wrong (out of order?)",
              k, sizes[k], partner, bad);
        CHECK(rbuf[sizes[k]] == 0xee, "message %d: wrote past its end", k);
    }
    MPI_Waitall(nsizes, sreq, MPI_STATUSES_IGNORE);
}

/* A vector of ints (every other one) whose packed size is n bytes, received contiguous. */
static void strided(unsigned char *sbuf, unsigned char *rbuf)
{
    t_begin("strided");
    for (int k = 0; k < nsizes; k++) {
        int count = (int)(sizes[k] / sizeof(int));
        MPI_Datatype vec;
        MPI_Type_vector(count, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int *s = (int *)sbuf, *r = (int *)rbuf;
        for (int i = 0; i < count; i++) {
            s[2 * i] = rank * 1000003 + k * 7919 + i;
            s[2 * i + 1] = -1;
        }
        for (int i = 0; i <= count; i++)
            r[i] = -2;
        MPI_Request req;
        MPI_Status st;
        MPI_Irecv(r, count, MPI_INT, partner, 100 + k, MPI_COMM_WORLD, &req);
        MPI_Send(s, 1, vec, partner, 100 + k, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        CHECK_STATUS(st, partner, 100 + k, MPI_INT, count);
        for (int i = 0; i < count; i++)
            CHECK(r[i] == partner * 1000003 + k * 7919 + i, "%d ints: int %d is %d", count, i,
                  r[i]);
        CHECK(r[count] == -2, "%d ints: wrote past the end", count);
        MPI_Type_free(&vec);
    }
}

/* Ssend, Rsend (the receive is posted before a barrier) and Bsend of every size. */
static void modes(unsigned char *sbuf, unsigned char *rbuf)
{
    t_begin("modes");
    int bsize = MAXN + MPI_BSEND_OVERHEAD;
    void *attach = malloc((size_t)bsize);
    CHECK(attach, "out of memory");
    MPI_Buffer_attach(attach, bsize);
    for (int mode = 0; mode < 3; mode++) {
        for (int k = 0; k < nsizes; k++) {
            size_t n = sizes[k];
            int tag = 1000 + mode * 100 + k;
            MPI_Request req;
            MPI_Status st;
            t_fill(sbuf, rank + tag, n);
            memset(rbuf, 0xee, n + 1);
            MPI_Irecv(rbuf, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &req);
            MPI_Barrier(MPI_COMM_WORLD);
            if (mode == 0)
                MPI_Ssend(sbuf, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD);
            else if (mode == 1)
                MPI_Rsend(sbuf, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD);
            else
                MPI_Bsend(sbuf, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD);
            MPI_Wait(&req, &st);
            CHECK_STATUS(st, partner, tag, MPI_BYTE, (int)n);
            size_t bad = t_verify(rbuf, partner + tag, n);
            CHECK(bad == n, "mode %d, %zu bytes: byte %zu wrong", mode, n, bad);
            CHECK(rbuf[n] == 0xee, "mode %d, %zu bytes: wrote past the end", mode, n);
        }
    }
    MPI_Buffer_detach(&attach, &bsize);
    free(attach);
}

/* A receive one byte short of each size fails with MPI_ERR_TRUNCATE and writes nothing past
 * its buffer; a 1-byte message sent after it still arrives whole. */
static void truncation(unsigned char *sbuf, unsigned char *rbuf)
{
    t_begin("truncation");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        if (n == 0)
            continue;
        MPI_Request sreq[2];
        MPI_Status st;
        t_fill(sbuf, rank + k, n + 1);
        MPI_Isend(sbuf, (int)n, MPI_BYTE, partner, 3000 + k, MPI_COMM_WORLD, &sreq[0]);
        MPI_Isend(sbuf + n, 1, MPI_BYTE, partner, 3000 + k, MPI_COMM_WORLD, &sreq[1]);
        memset(rbuf, 0xee, n + 1);
        if (k & 1)
            t_spin(0.002, MPI_COMM_SELF); /* unexpected */
        int rc = MPI_Recv(rbuf, (int)n - 1, MPI_BYTE, partner, 3000 + k, MPI_COMM_WORLD, &st);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "%zu bytes into %zu: error class %d, expected truncate",
              n, n - 1, cls);
        CHECK(rbuf[n - 1] == 0xee, "%zu bytes into %zu: wrote past the buffer", n, n - 1);
        unsigned char one = 0;
        rc = MPI_Recv(&one, 1, MPI_BYTE, partner, 3000 + k, MPI_COMM_WORLD, &st);
        CHECK(rc == MPI_SUCCESS, "the message after a truncated one failed (%d)", rc);
        CHECK(one == t_pattern(partner + k, n + 1, n), "the message after a truncated one: 0x%02x",
              one);
        MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    rank = t_rank;
    size = t_size;
    partner = (rank ^ 1) < size ? rank ^ 1 : rank;
    make_sizes();

    unsigned char *sbufs[3 * NEDGES + 2];
    for (int k = 0; k < nsizes; k++) {
        sbufs[k] = malloc(sizes[k] + 1);
        CHECK(sbufs[k], "out of memory");
    }
    unsigned char *sbuf = malloc(2 * MAXN + 64), *rbuf = malloc(2 * MAXN + 64);
    CHECK(sbuf && rbuf, "out of memory");
    ordered_stream(sbufs, rbuf);
    t_sync();
    strided(sbuf, rbuf);
    t_sync();
    modes(sbuf, rbuf);
    t_sync();
    truncation(sbuf, rbuf);
    for (int k = 0; k < nsizes; k++)
        free(sbufs[k]);
    free(sbuf);
    free(rbuf);
    t_finish();
    return 0;
}
