/*
 * The collective benchmarks' command line, buffers, timing loops and OSU-format output (see
 * coll_util.h). Every rank parses the same argv, so every rank reaches the same verdict; only
 * rank 0 prints.
 */
#define _POSIX_C_SOURCE 200809L

#include "coll_util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LARGE_SIZE 8192
#define MAX_SIZE ((size_t)1 << 28)

struct opts {
    size_t min_size, max_size;
    int iters, warmup;   /* -1: by size */
    int full;            /* -f: min and max over ranks too */
    int tests;           /* -t: MPI_Test calls while computing (nonblocking) */
    MPI_Datatype type;   /* -T: a typed benchmark's element type */
    size_t tsize;
};

static int rank, nranks;

static _Noreturn void die(const char *prog, const char *fmt, const char *arg)
{
    if (rank == 0) {
        fprintf(stderr, "%s: ", prog);
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\nTry '%s -h' for usage.\n", prog);
    }
    MPI_Finalize();
    exit(1);
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v, mult = 1;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': mult = 1ull << 10; end++; break;
    case 'm': case 'M': mult = 1ull << 20; end++; break;
    case 'g': case 'G': mult = 1ull << 30; end++; break;
    default: return -1;
    }
    if (*end || v > MAX_SIZE / mult)
        return -1;
    *out = (size_t)(v * mult);
    return 0;
}

static int parse_int(const char *s, int min, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

static void usage(const char *prog, const struct coll_bench *b, int nb)
{
    printf("Usage: %s [options]\n", prog);
    if (b->has_size)
        printf("  -m [MIN:]MAX  message sizes in bytes: MIN, doubling, up to MAX (default 1:1M);\n"
               "                K, M and G mean 2^10, 2^20 and 2^30\n");
    if (b->typed)
        printf("  -T TYPE       element type: mpi_char (default, as OSU 7.4), mpi_int or\n"
               "                mpi_float (reductions); sizes below one element are skipped\n");
    printf("  -i ITERS      timed iterations per size (default 1000, 100 above %d bytes)\n"
           "  -x WARMUP     untimed iterations per size (default 100, 10 above %d bytes)\n"
           "  -f            also the minimum and maximum latency over the ranks\n",
           LARGE_SIZE, LARGE_SIZE);
    if (nb)
        printf("  -t CALLS      MPI_Test calls during the computation (default 0, as OSU)\n");
    printf("  -h            this help\nRuns on any number of ranks.\n");
}

static void parse(int argc, char **argv, const struct coll_bench *b, int nb, struct opts *o)
{
    const char *prog = argv[0];
    int c;
    o->min_size = 1;
    o->type = MPI_CHAR;
    o->tsize = 1;
    o->max_size = (size_t)1 << 20;
    o->iters = o->warmup = -1;
    o->full = 0;
    o->tests = 0;
    opterr = 0;
    while ((c = getopt(argc, argv, ":m:i:x:ft:T:h")) != -1) {
        switch (c) {
        case 'm': {
            char *colon = strchr(optarg, ':');
            if (colon) {
                *colon = '\0';
                if (*optarg && parse_size(optarg, &o->min_size))
                    die(prog, "-m: bad minimum size '%s'", optarg);
                if (colon[1] && parse_size(colon + 1, &o->max_size))
                    die(prog, "-m: bad maximum size '%s'", colon + 1);
            } else if (parse_size(optarg, &o->max_size)) {
                die(prog, "-m: bad size '%s'", optarg);
            } else if (o->max_size < o->min_size) {
                o->min_size = o->max_size;
            }
            break;
        }
        case 'i':
            if (parse_int(optarg, 1, &o->iters))
                die(prog, "-i: a whole number >= 1, not '%s'", optarg);
            break;
        case 'x':
            if (parse_int(optarg, 0, &o->warmup))
                die(prog, "-x: a whole number >= 0, not '%s'", optarg);
            break;
        case 'f': o->full = 1; break;
        case 'T':
            /* OSU's spelling, so that the same options run both. */
            if (b->typed && strcmp(optarg, "mpi_char") == 0)
                o->type = MPI_CHAR, o->tsize = 1;
            else if (b->typed && strcmp(optarg, "mpi_int") == 0)
                o->type = MPI_INT, o->tsize = sizeof(int);
            else if (b->typed && strcmp(optarg, "mpi_float") == 0)
                o->type = MPI_FLOAT, o->tsize = sizeof(float);
            else
                die(prog, "-T: mpi_char, mpi_int or mpi_float (reductions only), not '%s'", optarg);
            break;
        case 't':
            if (!nb || parse_int(optarg, 0, &o->tests))
                die(prog, "-t: a whole number >= 0 (nonblocking benchmarks only), not '%s'",
                    optarg);
            break;
        case 'h':
            if (rank == 0)
                usage(prog, b, nb);
            MPI_Finalize();
            exit(0);
        case ':': die(prog, "option -%s needs a value", (char[]){ (char)optopt, 0 });
        default: die(prog, "unknown option -%s", (char[]){ (char)optopt, 0 });
        }
    }
    if (optind < argc)
        die(prog, "unexpected argument '%s'", argv[optind]);
    if (o->min_size > o->max_size)
        die(prog, "-m: the minimum size is above the maximum%s", "");
}

static void *alloc(size_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    void *p = NULL;
    if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, bytes ? bytes : 1)) {
        fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 1, bytes ? bytes : 1);   /* small floats: sums stay finite */
    return p;
}

static volatile double sink;

/* Computes for usec microseconds in `tests` equal slices, each followed by one MPI_Test (in one
 * piece, with no test, when tests is 0: OSU's default); returns the seconds spent in MPI_Test. */
static double compute(double usec, int tests, MPI_Request *req)
{
    double slice = tests > 0 ? usec / tests : usec, in_test = 0, x = 1.0;
    int done = 0;

    for (int k = 0; k < (tests > 0 ? tests : 1); k++) {
        double t0 = MPI_Wtime();
        while ((MPI_Wtime() - t0) * 1e6 < slice)
            for (int i = 0; i < 50; i++)
                x = x * 1.0000001 + 1e-9;
        if (tests > 0) {
            double t1 = MPI_Wtime();
            MPI_Test(req, &done, MPI_STATUS_IGNORE);
            in_test += MPI_Wtime() - t1;
        }
    }
    sink = x;
    return in_test;
}

/* Average, minimum and maximum of a per-rank time over the ranks, at rank 0. */
static void over_ranks(double t, double *avg, double *min, double *max)
{
    MPI_Reduce(&t, avg, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t, min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t, max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    *avg /= nranks;
}

static void row_start(const struct coll_bench *b, size_t size)
{
    if (b->has_size)
        printf("%-10zu", size);
}

static void bench_blocking(const struct coll_bench *b, struct coll_bufs *bufs,
                           const struct opts *o, size_t size)
{
    int iters = o->iters > 0 ? o->iters : size > LARGE_SIZE ? 100 : 1000;
    int warmup = o->warmup >= 0 ? o->warmup : size > LARGE_SIZE ? 10 : 100;
    double total = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < warmup + iters; i++) {
        double t0 = MPI_Wtime();
        b->run(bufs, size);
        double t1 = MPI_Wtime();
        /* As OSU does: an untimed barrier after each call, so every call starts with all ranks
         * entering together (and no rank's early exit from one call hides in the next one's
         * time). The barrier benchmark itself has none: it would time two barriers. */
        if (b->has_size)
            MPI_Barrier(MPI_COMM_WORLD);
        if (i >= warmup)
            total += t1 - t0;
    }
    double avg, min, max;
    over_ranks(total * 1e6 / iters, &avg, &min, &max);
    if (rank != 0)
        return;
    row_start(b, size);
    printf("%18.2f", avg);
    if (o->full)
        printf("%18.2f%18.2f%12d", min, max, iters);
    printf("\n");
    fflush(stdout);
}

static void bench_nonblocking(const struct coll_bench *b, struct coll_bufs *bufs,
                              const struct opts *o, size_t size)
{
    int iters = o->iters > 0 ? o->iters : size > LARGE_SIZE ? 100 : 1000;
    int warmup = o->warmup >= 0 ? o->warmup : size > LARGE_SIZE ? 10 : 100;
    MPI_Request req;
    double pure = 0, overall = 0, comp = 0, test = 0;

    /* As OSU's osu_i<coll>: first the pure communication time (start + wait), each call followed
     * by an untimed barrier (not in the barrier benchmark's own loop, as there). */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < warmup + iters; i++) {
        double t0 = MPI_Wtime();
        b->start(bufs, size, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (i >= warmup)
            pure += MPI_Wtime() - t0;
        if (b->has_size)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    pure = pure * 1e6 / iters;
    /* Then start, compute for as long as this rank's own pure time, wait; a barrier after each. */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < warmup + iters; i++) {
        double t0 = MPI_Wtime();
        b->start(bufs, size, &req);
        double t1 = MPI_Wtime();
        double in_test = compute(pure, o->tests, &req);
        double t2 = MPI_Wtime();
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (i >= warmup) {
            overall += MPI_Wtime() - t0;
            comp += t2 - t1;
            test += in_test;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* Each time averaged over the ranks, and the overlap from the averages: the share of the pure
     * communication time that the computation (less the time in MPI_Test) hid, at least 0. */
    double a[4] = { overall * 1e6 / iters, comp * 1e6 / iters, pure, test * 1e6 / iters }, s[4];
    MPI_Reduce(a, s, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    for (int k = 0; k < 4; k++)
        s[k] /= nranks;
    double ov = s[2] > 0 ? 100.0 - 100.0 * (s[0] - (s[1] - s[3])) / s[2] : 0;
    row_start(b, size);
    printf("%18.2f%18.2f%18.2f%18.2f\n", s[0], s[1], s[2], ov < 0 ? 0 : ov);
    fflush(stdout);
}

int coll_bench_main(int argc, char **argv, const struct coll_bench *b, int nb)
{
    struct opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    parse(argc, argv, b, nb, &o);

    struct coll_bufs bufs = { NULL, NULL, rank, nranks, o.type, o.tsize };
    size_t bytes = (b->has_size ? o.max_size : 1) * (size_t)nranks;
    bufs.sbuf = alloc(bytes);
    bufs.rbuf = alloc(bytes);
    if (rank == 0) {
        printf("# rdmpi %s%s Latency Test v1.0\n", nb ? "Non-blocking " : "", b->name);
        printf("# Ranks: %d\n", nranks);
        if (b->typed)
            printf("# Datatype: %s.\n",
                   o.type == MPI_CHAR ? "MPI_CHAR" : o.type == MPI_INT ? "MPI_INT" : "MPI_FLOAT");
        const char *size_col = b->has_size ? "# Size    " : "# ";
        if (nb)
            printf("%s%18s%18s%18s%18s\n", size_col, "Overall(us)", "Compute(us)",
                   "Pure Comm.(us)", "Overlap(%)");
        else if (o.full)
            printf("%s%18s%18s%18s%12s\n", size_col, "Avg Latency(us)", "Min Latency(us)",
                   "Max Latency(us)", "Iterations");
        else
            printf("%s%18s\n", size_col, "Avg Latency(us)");
        fflush(stdout);
    }
    if (!b->has_size) {
        if (nb)
            bench_nonblocking(b, &bufs, &o, 0);
        else
            bench_blocking(b, &bufs, &o, 0);
    } else {
        for (size_t size = o.min_size; size <= o.max_size; size = size ? size * 2 : 1) {
            if (size % o.tsize || size == 0)
                continue;
            if (nb)
                bench_nonblocking(b, &bufs, &o, size);
            else
                bench_blocking(b, &bufs, &o, size);
        }
    }
    free(bufs.sbuf);
    free(bufs.rbuf);
    MPI_Finalize();
    return 0;
}
