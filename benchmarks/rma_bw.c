/*
 * rdmpi_rma_bw: one-sided bandwidth between two ranks. Rank 0 is the origin, rank 1 the target
 * of a window from MPI_Win_allocate. Inside one lock of the target, rank 0 issues -W (64)
 * Puts (--op=put, the default) or Gets (--op=get) of the size, all at the window's start (the
 * memory of a run stays that of one message, as in OSU's osu_put_bw), then one
 * MPI_Win_flush; bandwidth = bytes moved / time, in MB/s (1e6 bytes), as OSU's osu_put_bw.
 * Standard MPI only: the same source builds with any MPI's mpicc.
 */
#include "bench_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct bench_spec spec = {
    .prog = "rdmpi_rma_bw",
    .title = "One-sided Bandwidth Test",
    .columns = "# Size      Bandwidth (MB/s)",
    .ranks = BENCH_RANKS_TWO,
    .has_window = 1,
    .iters_small = 1000, .warmup_small = 10,
    .iters_large = 100, .warmup_large = 5,
};

/* Takes --op=put|get out of argv (bench_start parses the rest); 1 for get. */
static int own_args(int *argc, char **argv)
{
    int out = 1, get = 0;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--op=get"))
            get = 1;
        else if (!strcmp(argv[i], "--op=put"))
            get = 0;
        else if (!strncmp(argv[i], "--op=", 5)) {
            fprintf(stderr, "rdmpi_rma_bw: unknown %s (put or get)\n", argv[i]);
            exit(1);
        } else
            argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    return get;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    int get = own_args(&argc, argv);

    bench_start(&argc, &argv, &spec, &o);
    char *buf = bench_alloc(&o, o.max_size);
    char *mem;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)o.max_size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, o.max_size);
    MPI_Barrier(MPI_COMM_WORLD);

    for (size_t size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
        int iters = bench_iters(&o, size), warmup = bench_warmup(&o, size);
        double t = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (o.rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            for (int i = 0; i < warmup + iters; i++) {
                if (i == warmup)
                    t = MPI_Wtime();
                for (int w = 0; w < o.window; w++) {
                    if (get)
                        MPI_Get(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
                    else
                        MPI_Put(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
                }
                MPI_Win_flush(1, win);
            }
            t = MPI_Wtime() - t;
            MPI_Win_unlock(1, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        bench_row(&o, size, t > 0 ? (double)size * o.window * iters / t / 1e6 : 0);
    }
    MPI_Win_free(&win);
    free(buf);
    return bench_finish();
}
