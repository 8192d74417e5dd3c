/*
 * Passive target: rank 0 computes for COMPUTE seconds without any MPI call
 * while the other ranks lock its window, put, get and fetch-and-add. With
 * operations handled at the target (rdmpi's first data path, every
 * transport), those operations complete once rank 0 enters MPI again; the
 * program checks that they all complete correctly, and prints how long the
 * origins' epochs took (they span the compute phase: see README,
 * "One-sided communication"). The counter must end at exactly
 * (n - 1) x ITER and each origin's Put/Get pair must see its own data.
 */
#include <time.h>
#include "check.h"

#define ITER 50
#define COMPUTE 1.0

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    long *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate((MPI_Aint)(n + 1) * sizeof(long), sizeof(long), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i <= n; i++)
        mem[i] = 0;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    t_begin("passive");
    double t0 = now();
    if (me == 0) {
        /* no MPI call here: a busy loop the compiler cannot drop */
        volatile double x = 0;
        while (now() - t0 < COMPUTE)
            for (int i = 0; i < 10000; i++)
                x += i * 1e-9;
    } else {
        long one = 1, old;
        for (int i = 0; i < ITER; i++) {
            long v = me * 1000 + i, back = -1;
            MPI_OK(MPI_Win_lock(i % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, 0, 0, win));
            MPI_OK(MPI_Put(&v, 1, MPI_LONG, 0, me, 1, MPI_LONG, win));
            MPI_OK(MPI_Win_flush(0, win));
            MPI_OK(MPI_Get(&back, 1, MPI_LONG, 0, me, 1, MPI_LONG, win));
            MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win));
            MPI_OK(MPI_Win_unlock(0, win));
            CHECK(back == v, "Get after Put gave %ld, expected %ld", back, v);
        }
    }
    double took = now() - t0;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        CHECK(mem[0] == (long)(n - 1) * ITER, "counter %ld, expected %ld", mem[0],
              (long)(n - 1) * ITER);
        for (int r = 1; r < n; r++)
            CHECK(mem[r] == r * 1000 + ITER - 1, "slot %d holds %ld", r, mem[r]);
    } else if (me == 1) {
        printf("rma_passive: origin epochs took %.2f s while the target computed %.2f s\n", took,
               COMPUTE);
    }
    MPI_OK(MPI_Win_free(&win));
    t_finish();
    return 0;
}
