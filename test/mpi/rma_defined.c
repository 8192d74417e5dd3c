/*
 * Window memory a peer wrote is defined memory: windows over fresh malloc'd memory
 * (MPI_Win_create, and memory attached to a dynamic window) receive Puts from the previous
 * rank, under fence and under passive-target locks, and their owner branches on every byte.
 * On one node shm reaches such memory with the origin's process_vm_writev, over verbs the NIC
 * writes it: neither is a system call of the target's that valgrind could see, so run under
 * valgrind (test/asan/run) the target would be told its window holds uninitialised bytes
 * unless the library says otherwise; elsewhere the test checks the data.
 */
#include <stdlib.h>
#include "check.h"

static void check_from(const unsigned char *buf, int src, size_t n, const char *what)
{
    size_t at = t_verify(buf, src, n); /* a branch on every byte */
    CHECK(at == n, "%s: %zu bytes from rank %d: byte %zu differs", what, n, src, at);
}

int main(int argc, char **argv)
{
    static const size_t lens[] = { 4096, 100000, 1 << 20 };
    t_init(&argc, &argv);
    t_begin("rma_defined");
    int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size;
    for (unsigned k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        size_t n = lens[k];
        unsigned char *src = malloc(n), *mem = malloc(n); /* mem: undefined to valgrind */
        CHECK(src && mem, "out of memory");
        t_fill(src, t_rank, n);

        /* active target: fence, Put into the next rank's window, fence */
        MPI_Win win;
        MPI_OK(MPI_Win_create(mem, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_OK(MPI_Win_fence(0, win));
        MPI_OK(MPI_Put(src, (int)n, MPI_BYTE, next, 0, (int)n, MPI_BYTE, win));
        MPI_OK(MPI_Win_fence(0, win));
        check_from(mem, prev, n, "fence");
        MPI_OK(MPI_Win_free(&win));

        /* passive target: the owner learns of the Put only from a barrier */
        unsigned char *mem2 = malloc(n);
        CHECK(mem2, "out of memory");
        MPI_OK(MPI_Win_create(mem2, (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
        MPI_OK(MPI_Put(src, (int)n, MPI_BYTE, next, 0, (int)n, MPI_BYTE, win));
        MPI_OK(MPI_Win_unlock(next, win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
        check_from(mem2, prev, n, "lock");
        MPI_OK(MPI_Win_unlock(t_rank, win));
        MPI_OK(MPI_Win_free(&win));
        free(mem2);

        /* dynamic window: fresh memory attached, its address sent to the previous rank */
        unsigned char *mem3 = malloc(n);
        CHECK(mem3, "out of memory");
        MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_OK(MPI_Win_attach(win, mem3, (MPI_Aint)n));
        MPI_Aint mine, theirs;
        MPI_OK(MPI_Get_address(mem3, &mine));
        MPI_OK(MPI_Sendrecv(&mine, 1, MPI_AINT, prev, 5, &theirs, 1, MPI_AINT, next, 5,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Win_lock_all(0, win));
        MPI_OK(MPI_Put(src, (int)n, MPI_BYTE, next, theirs, (int)n, MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(next, win));
        MPI_OK(MPI_Win_unlock_all(win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_sync(win));
        check_from(mem3, prev, n, "dynamic");
        MPI_OK(MPI_Win_detach(win, mem3));
        MPI_OK(MPI_Win_free(&win));
        free(mem3);
        free(mem);
        free(src);
    }
    t_finish();
    return 0;
}
