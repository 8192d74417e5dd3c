/*
 * What the point-to-point benchmarks share: the command line (-m, -i, -x, -W, -t, -h), the rank-count
 * check, page-aligned buffers, a median, and output in the OSU micro-benchmarks' format, so that rdmpi's,
 * Open MPI's and MPICH's numbers read, and parse, the same way. Standard MPI only: the same sources
 * build with any MPI's mpicc.
 */
#ifndef RDMPI_BENCH_UTIL_H
#define RDMPI_BENCH_UTIL_H

#include <stddef.h>

/* Sizes above this use the "large" iteration and warmup counts (OSU's LARGE_MESSAGE_SIZE). */
#define BENCH_LARGE_SIZE 8192
#define BENCH_DATA_TAG 1
#define BENCH_ACK_TAG 2

enum bench_ranks {
    BENCH_RANKS_TWO,  /* exactly two ranks */
    BENCH_RANKS_EVEN, /* any even number of ranks: first half sends to second half */
};

/* What a benchmark is; each benchmark file has one, as constant data. */
struct bench_spec {
    const char *prog;    /* "rdmpi_latency", for messages */
    const char *title;   /* "Latency Test", printed as "# rdmpi Latency Test v1.0" */
    const char *columns; /* the column header line, OSU's spelling */
    enum bench_ranks ranks;
    int has_window; /* accepts -W; window-based benchmarks also print pairs/window for EVEN */
    int has_median; /* accepts -t: a second column, the median of the per-iteration times */
    int from_zero;  /* the default sizes start at 0 (osu_latency's do), else at 1 */
    int iters_small, warmup_small;
    int iters_large, warmup_large;
    const char *usage;   /* the program's own options for -h (NULL: none) */
};

/* What this run does: the spec's defaults, overridden by the command line. */
struct bench_opts {
    const struct bench_spec *spec;
    size_t min_size, max_size;
    int iters, warmup; /* -1: the spec's default for the size */
    int window;
    int median; /* -t given */
    int rank, nranks;
};

/*
 * Initializes MPI, parses the command line and checks the number of ranks. On -h, or on a bad
 * argument or rank count (reported once, by rank 0), it finalizes MPI and exits the process, with
 * status 0 and 1 respectively. Otherwise rank 0 prints the header and the caller runs.
 */
void bench_start(int *argc, char ***argv, const struct bench_spec *spec, struct bench_opts *o);

/* Finalizes MPI; the value to return from main. */
int bench_finish(void);

/* Sizes run from min_size doubling up to max_size; after 0 comes 1. */
size_t bench_next_size(size_t size);

int bench_iters(const struct bench_opts *o, size_t size);
int bench_warmup(const struct bench_opts *o, size_t size);

/* The median of n values (n >= 1); reorders them. */
double bench_median(double *v, int n);

/* A page-aligned buffer of at least one byte, written once so its pages exist before timing.
 * Aborts the job if the memory is not there. Release with free(). */
void *bench_alloc(const struct bench_opts *o, size_t bytes);

/* Writes the first size bytes of the send buffer ('a') and of the receive buffer ('b'), as OSU
 * does before each size: the pages a size uses have just been written by this rank's core when its
 * warm-up starts, whichever size ran before. Either buffer may be NULL. */
void bench_touch(void *sbuf, void *rbuf, size_t size);

/* One output row, printed and flushed by rank 0 only (a run cut short keeps its finished rows). */
void bench_row(const struct bench_opts *o, size_t size, double value);
void bench_row2(const struct bench_opts *o, size_t size, double value1, double value2);

#endif
