/*
 * Received rendezvous data is defined memory: each rank in turn sends the next one a message
 * of a rendezvous size into a fresh buffer (lone ones of 64-512 KiB and one of 1 MiB, which shm
 * copies with the sender's help: the sender writes part of the receiver's buffer with
 * process_vm_writev; RDMA lands data the same unseen way) and waits in MPI_Recv, free to help. The receiver branches on every byte. Run under valgrind by test/asan/run, where
 * data a peer wrote without valgrind being told shows as uninitialised (the cooperative copy's
 * half did: valgrind/p2p_basic failed in CI when the helper came in time); elsewhere it checks
 * the data.
 */
#include <stdlib.h>
#include "check.h"

int main(int argc, char **argv)
{
    static const size_t lens[] = { 100000, 400000, 1 << 20 };
    t_init(&argc, &argv);
    t_begin("defined");
    if (t_size == 1) {
        t_finish();
        return 0;
    }
    for (unsigned k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        size_t n = lens[k];
        for (int src = 0; src < t_size; src++) {
            int dst = (src + 1) % t_size, ack = 0;
            if (t_rank == src) {
                unsigned char *buf = malloc(n);
                CHECK(buf, "out of memory");
                t_fill(buf, src, n);
                MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, dst, 7, MPI_COMM_WORLD));
                MPI_OK(MPI_Recv(&ack, 1, MPI_INT, dst, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                free(buf);
            } else if (t_rank == dst) {
                unsigned char *buf = malloc(n); /* fresh: undefined to valgrind until received */
                CHECK(buf, "out of memory");
                MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, src, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                size_t at = t_verify(buf, src, n); /* a branch on every byte */
                CHECK(at == n, "%zu bytes from rank %d: byte %zu differs", n, src, at);
                MPI_OK(MPI_Send(&ack, 1, MPI_INT, src, 8, MPI_COMM_WORLD));
                free(buf);
            }
        }
    }
    t_finish();
    return 0;
}
