/*
 * One very large message. By default 256 MiB of MPI_BYTE from rank 0 to rank
 * 1 (blocking) and back (nonblocking); with RDMPI_TEST_LARGE=1 at 2 ranks,
 * count = INT_MAX bytes (2 GiB - 1) from rank 0 to rank 1. With one rank the message
 * goes to self. Other ranks only wait. The receiver checks a sparse set of
 * positions (pre-set to wrong values) plus the first and last 4 KiB.
 */
#include <limits.h>
#include "check.h"

static uint64_t word_at(size_t w)
{
    return (uint64_t)(w + 1) * 0x9E3779B97F4A7C15ull;
}

static unsigned char expected(size_t i)
{
    uint64_t w = word_at(i / 8);
    unsigned char b[8];
    memcpy(b, &w, 8);
    return b[i % 8];
}

static void fill(unsigned char *buf, size_t n)
{
    size_t nw = n / 8;
    for (size_t w = 0; w < nw; w++) {
        uint64_t v = word_at(w);
        memcpy(buf + 8 * w, &v, 8);
    }
    for (size_t i = nw * 8; i < n; i++)
        buf[i] = expected(i);
}

/* Pre-sets (verify = 0) or checks each sparse position: every 1048573rd byte, both 4 KiB ends. */
static void for_positions(size_t n, unsigned char *buf, int verify, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (i == 4096 && n > 8192) {
            /* sparse middle, then jump to the last 4 KiB */
            for (size_t j = 4096; j < n - 4096; j += 1048573) {
                if (verify)
                    CHECK(buf[j] == expected(j), "%s: byte %zu is 0x%02x, expected 0x%02x", what, j,
                          buf[j], expected(j));
                else
                    buf[j] = (unsigned char)(expected(j) ^ 0x5a);
            }
            i = n - 4096;
        }
        if (verify)
            CHECK(buf[i] == expected(i), "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, buf[i],
                  expected(i));
        else
            buf[i] = (unsigned char)(expected(i) ^ 0x5a);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *env = getenv("RDMPI_TEST_LARGE");
    int large = env && !strcmp(env, "1") && t_size == 2;
    size_t n = large ? (size_t)INT_MAX : (size_t)256 << 20;
    int rank = t_rank, peer = t_size == 1 ? 0 : 1 - t_rank;
    if (rank == 0)
        printf("p2p_large: %zu bytes%s\n", n,
               large ? "" : " (RDMPI_TEST_LARGE=1 at 2 ranks sends 2 GiB - 1 bytes)");

    t_begin(large ? "int-max-bytes" : "256MiB");
    if (rank <= 1) {
        unsigned char *sbuf = NULL, *rbuf = NULL;
        if (rank == 0) {
            sbuf = malloc(n);
            CHECK(sbuf, "cannot allocate %zu bytes", n);
            fill(sbuf, n);
        }
        if (rank == 1 || t_size == 1) {
            rbuf = malloc(n);
            CHECK(rbuf, "cannot allocate %zu bytes", n);
            for_positions(n, rbuf, 0, "");
        }
        MPI_Status st;
        if (t_size == 1) {
            MPI_Request req;
            MPI_Irecv(rbuf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req);
            MPI_Send(sbuf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            MPI_Wait(&req, &st);
        } else if (rank == 0) {
            MPI_Send(sbuf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        } else {
            MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
        }
        if (rbuf) {
            CHECK_STATUS(st, 0, 1, MPI_BYTE, (int)n);
            MPI_Count nx = 0;
            MPI_Get_elements_x(&st, MPI_BYTE, &nx);
            CHECK(nx == (MPI_Count)n, "Get_elements_x = %lld, expected %zu", (long long)nx, n);
            for_positions(n, rbuf, 1, "rank 0 -> rank 1");
        }

        /* and back, nonblocking, in default mode only */
        if (!large) {
            MPI_Request req[2];
            int nreq = 0;
            if (rank == 1 || t_size == 1) {
                fill(rbuf, n);
                MPI_Isend(rbuf, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[nreq++]);
            }
            if (rank == 0) {
                for_positions(n, sbuf, 0, "");
                MPI_Irecv(sbuf, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[nreq++]);
            }
            MPI_Status sts[2];
            MPI_Waitall(nreq, req, sts);
            if (rank == 0) {
                CHECK_STATUS(sts[nreq - 1], peer, 2, MPI_BYTE, (int)n);
                for_positions(n, sbuf, 1, "rank 1 -> rank 0");
            }
        }
        free(sbuf);
        free(rbuf);
    }
    t_finish();
    return 0;
}
