/*
 * rdmpi_rma_win: the time to create and free a window, at any rank count. Each iteration is one
 * MPI_Win_create (of a buffer allocated once, outside the loop) or MPI_Win_allocate of the size,
 * then MPI_Win_free, on MPI_COMM_WORLD; a barrier before the timed loop. The figure is the
 * slowest rank's time per create+free pair (both are collective, so the slowest rank is what an
 * application waits for), the mean over the iterations and, as perftest's t_typical, the median
 * of the per-iteration times (a descheduled iteration does not move it).
 *
 *   -s BYTES   window size per rank (default 1 MiB)
 *   -i N       timed iterations (default 200), -x N warm-up iterations (default 10)
 *   --kind=create|allocate|both (default both: each kind in turn, one row each)
 *
 * Standard MPI only: the same source builds with any MPI's mpicc.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One create (allocate = 0) or allocate + free of size bytes. */
static void create_free(int allocate, MPI_Aint size, void *buf)
{
    MPI_Win win;
    void *mem;

    if (allocate)
        MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    else
        MPI_Win_create(buf, size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_free(&win);
}

/* Runs one kind; rank 0 prints its row. */
static void run_kind(int allocate, MPI_Aint size, void *buf, int iters, int warmup, int rank)
{
    double *lap = malloc((size_t)iters * sizeof(*lap));
    double *maxlap = malloc((size_t)iters * sizeof(*maxlap));
    double total = 0, maxtotal = 0;

    if (!lap || !maxlap)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < warmup; i++)
        create_free(allocate, size, buf);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++) {
        double t0 = MPI_Wtime();
        create_free(allocate, size, buf);
        lap[i] = MPI_Wtime() - t0;
        total += lap[i];
    }
    /* The per-iteration maximum over the ranks: the pair's collective time. */
    MPI_Reduce(lap, maxlap, iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&total, &maxtotal, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(maxlap, (size_t)iters, sizeof(*maxlap), cmp_double);
        printf("%-9s %10ld %14.2f %14.2f\n", allocate ? "allocate" : "create", (long)size,
               maxtotal / iters * 1e6, maxlap[iters / 2] * 1e6);
        fflush(stdout);
    }
    free(lap);
    free(maxlap);
}

int main(int argc, char **argv)
{
    long size = 1 << 20;
    int iters = 200, warmup = 10, kinds = 3, rank, nranks;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc)
            size = atol(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-x") && i + 1 < argc)
            warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--kind=create"))
            kinds = 1;
        else if (!strcmp(argv[i], "--kind=allocate"))
            kinds = 2;
        else if (!strcmp(argv[i], "--kind=both"))
            kinds = 3;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: %s [-s bytes] [-i iters] [-x warmup] "
                        "[--kind=create|allocate|both]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (size < 0 || iters < 1 || warmup < 0) {
        if (rank == 0)
            fprintf(stderr, "%s: bad -s, -i or -x\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    char *buf = malloc(size ? (size_t)size : 1);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 1, (size_t)size);
    if (rank == 0) {
        printf("# rdmpi_rma_win: window create+free, %d ranks, %d iterations\n", nranks, iters);
        printf("# Kind            Size      Mean (us)    Median (us)\n");
    }
    if (kinds & 1)
        run_kind(0, (MPI_Aint)size, buf, iters, warmup, rank);
    if (kinds & 2)
        run_kind(1, (MPI_Aint)size, buf, iters, warmup, rank);
    free(buf);
    MPI_Finalize();
    return 0;
}
