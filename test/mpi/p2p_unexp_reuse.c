/*
 * Large eager messages that arrive before their receives, round after round: p2p keeps the
 * copies of such messages (8 KiB to 256 KiB) for the next ones instead of freeing them
 * (src/p2p/recv.c, unexp_alloc), so a copy is used again for a message of another size,
 * smaller or larger than the one it held. Each round every rank sends its partner messages
 * of mixed sizes whose contents depend on the round, lets them arrive (a spin that drives
 * progress), then receives them in another order than they came (so the copies go back in
 * another order), one of them through MPI_Mprobe/MPI_Mrecv, and checks every byte: a copy
 * handed out too small, or still holding an earlier message, shows.
 */
#include "check.h"

static const size_t sizes[] = { 8192,  65536, 100000, 12000, 200000, 65528,
                                131072, 8191, 40000,  262144, 9000, 150000 };
#define NMSG (sizeof(sizes) / sizeof(sizes[0]))
#define ROUNDS 6

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int partner = (t_rank ^ 1) < t_size ? t_rank ^ 1 : t_rank;
    unsigned char *sbuf[NMSG], *rbuf = malloc(262144 + 64);
    CHECK(rbuf, "out of memory");
    for (unsigned k = 0; k < NMSG; k++)
        CHECK((sbuf[k] = malloc(sizes[k])), "out of memory");

    t_begin("unexpected-reuse");
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Request sreq[NMSG];
        for (unsigned k = 0; k < NMSG; k++) {
            t_fill(sbuf[k], t_rank * 1000 + round * 16 + (int)k, sizes[k]);
            MPI_OK(MPI_Isend(sbuf[k], (int)sizes[k], MPI_BYTE, partner, 100 + (int)k,
                             MPI_COMM_WORLD, &sreq[k]));
        }
        t_spin(0.02, MPI_COMM_WORLD); /* they arrive before their receives */
        for (unsigned i = 0; i < NMSG; i++) {
            /* odd rounds from the last, even ones every 5th (5 and 12 are coprime) */
            unsigned k = round & 1 ? NMSG - 1 - i : (i * 5) % NMSG;
            MPI_Status st;
            memset(rbuf, 0xa5, sizes[k] + 64);
            if (i == 3) {
                MPI_Message msg;
                MPI_OK(MPI_Mprobe(partner, 100 + (int)k, MPI_COMM_WORLD, &msg, &st));
                MPI_OK(MPI_Mrecv(rbuf, (int)sizes[k], MPI_BYTE, &msg, &st));
            } else {
                MPI_OK(MPI_Recv(rbuf, (int)sizes[k], MPI_BYTE, partner, 100 + (int)k,
                                MPI_COMM_WORLD, &st));
            }
            CHECK_STATUS(st, partner, 100 + (int)k, MPI_BYTE, (int)sizes[k]);
            size_t bad = t_verify(rbuf, partner * 1000 + round * 16 + (int)k, sizes[k]);
            CHECK(bad == sizes[k], "round %d, message %u (%zu bytes): byte %zu differs", round,
                  k, sizes[k], bad);
            for (int j = 0; j < 64; j++)
                CHECK(rbuf[sizes[k] + (size_t)j] == 0xa5,
                      "round %d, message %u: written past its %zu bytes", round, k, sizes[k]);
        }
        MPI_OK(MPI_Waitall((int)NMSG, sreq, MPI_STATUSES_IGNORE));
        t_sync();
    }
    for (unsigned k = 0; k < NMSG; k++)
        free(sbuf[k]);
    free(rbuf);
    t_finish();
    return 0;
}
