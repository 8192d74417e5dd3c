/*
 * What the collective benchmarks share: the command line (-m, -i, -x, -f, -t, -h), buffers, the
 * timing loops and output in the OSU micro-benchmarks' format (osu_allreduce, osu_iallreduce...),
 * so that rdmpi's, Open MPI's and MPICH's numbers read, and parse, the same way. Each benchmark
 * file describes one collective by a coll_bench: how to run it blocking and how to start it
 * nonblocking. Standard MPI only: the same sources build with any MPI's mpicc.
 *
 * Reductions add MPI_CHARs with MPI_SUM by default, as OSU 7.4's do (earlier OSU releases and
 * this project's earlier benchmarks added MPI_FLOATs: -T mpi_float); sizes are bytes.
 * Blocking, as OSU's osu_<coll> measures (warm-up iterations, then each call timed alone and
 * followed by an untimed MPI_Barrier; 1000 iterations and 100 warm-up up to 8 KiB, 100 and 10
 * above): for each size, the average over the timed iterations of one call, averaged over the
 * ranks (-f adds the minimum and maximum over ranks). Nonblocking (built with
 * -DCOLL_BENCH_NONBLOCKING), as OSU's osu_i<coll>: first the pure communication time (start +
 * wait, an untimed barrier after each), then start, compute for this rank's own pure time (in -t
 * slices, each followed by one MPI_Test; default 0: no test, as OSU), wait, barrier: the overall,
 * compute and pure times averaged over the ranks, and overlap = 100 - 100 (overall - (compute -
 * time in MPI_Test)) / pure from those averages, at least 0.
 */
#ifndef RDMPI_COLL_UTIL_H
#define RDMPI_COLL_UTIL_H

#include <mpi.h>
#include <stddef.h>

#ifndef COLL_BENCH_NONBLOCKING
#define COLL_BENCH_NONBLOCKING 0
#endif

/* Buffers of one benchmark, allocated for the largest size. */
struct coll_bufs {
    char *sbuf, *rbuf;   /* page-aligned, nranks * max_size bytes each */
    int rank, nranks;
    MPI_Datatype type;   /* a typed benchmark's element type (-T; MPI_CHAR as OSU 7.4) */
    size_t tsize;        /* its size in bytes */
};

struct coll_bench {
    const char *name;     /* "Allreduce": titles and program names ("rdmpi_allreduce") */
    int has_size;         /* 0: barrier (one row, no size column) */
    int typed;            /* takes -T: sizes are multiples of the type's size (reductions) */
    /* Runs the collective on size bytes (per rank or per block, as OSU counts them). */
    void (*run)(struct coll_bufs *b, size_t size);
    /* Starts it nonblocking. */
    void (*start)(struct coll_bufs *b, size_t size, MPI_Request *req);
};

/* Runs the benchmark; returns the exit status for main. */
int coll_bench_main(int argc, char **argv, const struct coll_bench *bench, int nonblocking);

#endif
