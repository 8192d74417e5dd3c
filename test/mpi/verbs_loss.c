/*
 * Delivery under packet loss and reordering: with RDMPI_VERBS_UD_DROP=0.05
 * (5% of the outgoing UD packets of the verbs transport dropped on purpose,
 * and another 5% held back and sent after the next packet; set here unless
 * the environment says otherwise) and RDMPI_VERBS_MODE=ud (likewise),
 * every rank streams messages of mixed sizes (empty, single packet,
 * several packets, eager limit, pipelined rendezvous) to its right neighbour
 * in a ring, blocking and nonblocking, and checks that each arrives exactly
 * once, in order, with its content intact. Where verbs does not carry the ring's messages
 * (shm or tcp does, or another MPI runs it) the program says SKIP: the settings would do nothing.
 */
#include <stdlib.h>
#include "check.h"

#define ROUNDS 6
#define WINDOW 16

static const size_t sizes[] = { 8, 0, 1000, 3000, 8192, 1, 20000, 100, 70000, 4096, 250000, 12 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Message i: its number in the first 4 bytes (when it fits), then the pattern. */
static void fill(unsigned char *buf, int src, int i, size_t n)
{
    t_fill(buf, src * 1000 + i, n);
    if (n >= 4)
        memcpy(buf, &i, 4);
}

static void check(const unsigned char *buf, const MPI_Status *st, int src, int i, size_t n)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK((size_t)count == n, "message %d from rank %d has %d bytes, expected %zu (lost, "
          "duplicated or out of order?)", i, src, count, n);
    CHECK(st->MPI_TAG == i % 7, "message %d from rank %d has tag %d, expected %d", i, src,
          st->MPI_TAG, i % 7);
    if (n >= 4) {
        int seq;
        memcpy(&seq, buf, 4);
        CHECK(seq == i, "message %d from rank %d carries number %d", i, src, seq);
        for (size_t k = 4; k < n; k++)
            CHECK(buf[k] == t_pattern(src * 1000 + i, n, k),
                  "message %d (%zu bytes) from rank %d differs at byte %zu", i, n, src, k);
    }
}

/* Blocking: one message at a time each way, sendrecv around the ring. */
static void blocking(int right, int left, unsigned char *sbuf, unsigned char *rbuf)
{
    t_begin("loss-blocking");
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < (int)NSIZES; k++) {
            int i = r * (int)NSIZES + k;
            size_t n = sizes[(size_t)(k + r) % NSIZES];
            MPI_Status st;
            fill(sbuf, t_rank, i, n);
            MPI_OK(MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, right, i % 7, rbuf, 300000, MPI_BYTE,
                                left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            check(rbuf, &st, left, i, n);
        }
}

/* Nonblocking: WINDOW messages in flight each way, received with ANY_TAG,
 * so the order on the wire decides what matches what. */
static void windowed(int right, int left)
{
    t_begin("loss-window");
    unsigned char *s[WINDOW], *d[WINDOW];
    for (int w = 0; w < WINDOW; w++) {
        s[w] = malloc(300000);
        d[w] = malloc(300000);
        CHECK(s[w] && d[w], "out of memory");
    }
    for (int r = 0; r < ROUNDS; r++) {
        MPI_Request req[2 * WINDOW];
        MPI_Status st[2 * WINDOW];
        for (int w = 0; w < WINDOW; w++) {
            int i = r * WINDOW + w;
            MPI_OK(MPI_Irecv(d[w], 300000, MPI_BYTE, left, MPI_ANY_TAG, MPI_COMM_WORLD, &req[w]));
            size_t n = sizes[(size_t)i % NSIZES];
            fill(s[w], t_rank, i, n);
            MPI_OK(MPI_Isend(s[w], (int)n, MPI_BYTE, right, i % 7, MPI_COMM_WORLD,
                             &req[WINDOW + w]));
        }
        MPI_OK(MPI_Waitall(2 * WINDOW, req, st));
        for (int w = 0; w < WINDOW; w++) {
            int i = r * WINDOW + w;
            check(d[w], &st[w], left, i, sizes[(size_t)i % NSIZES]);
        }
    }
    for (int w = 0; w < WINDOW; w++) {
        free(s[w]);
        free(d[w]);
    }
}

/* A burst of small messages, all sent before any is received. */
static void burst(int right, int left)
{
    t_begin("loss-burst");
    enum { N = 300 };
    MPI_Request req[N];
    int out[N], in[N];
    for (int i = 0; i < N; i++) {
        out[i] = t_rank * 100000 + i;
        MPI_OK(MPI_Isend(&out[i], 1, MPI_INT, right, 5, MPI_COMM_WORLD, &req[i]));
    }
    for (int i = 0; i < N; i++) {
        MPI_OK(MPI_Recv(&in[i], 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(in[i] == left * 100000 + i, "small message %d from rank %d holds %d", i, left,
              in[i]);
    }
    MPI_OK(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
    setenv("RDMPI_VERBS_UD_DROP", "0.05", 0);
    setenv("RDMPI_VERBS_MODE", "ud", 0);
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int ring[2] = { right, left };
    t_begin("transport");
    t_require_transport("verbs", ring, 2);
    unsigned char *sbuf = malloc(300000), *rbuf = malloc(300000);
    CHECK(sbuf && rbuf, "out of memory");
    blocking(right, left, sbuf, rbuf);
    windowed(right, left);
    burst(right, left);
    free(sbuf);
    free(rbuf);
    t_finish();
    if (t_rank == 0)
        printf("verbs_loss: %d ranks, all messages delivered once, in order, intact\n", t_size);
    return 0;
}
