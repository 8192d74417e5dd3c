/*
 * The benchmarks' shared command line, rank-count check, buffers and OSU-format output
 * (see bench_util.h). Every rank parses the same argv, so every rank reaches the same verdict;
 * only rank 0 speaks.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_util.h"

#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_MIN_SIZE ((size_t)1)
#define DEFAULT_MAX_SIZE ((size_t)4 << 20)
/* MPI counts are int; 1 GiB keeps the doubling loop and byte counts far from overflow. */
#define MAX_SIZE ((size_t)1 << 30)
#define DEFAULT_WINDOW 64
#define MAX_WINDOW 65536

static void usage(const struct bench_spec *spec)
{
    printf("Usage: %s [options]\n"
           "  -m [MIN:]MAX  message sizes in bytes: MIN, doubling, up to MAX (default %d:%zu);\n"
           "                K, M and G mean 2^10, 2^20 and 2^30; size 0 runs only if MIN is 0\n"
           "  -i ITERS      timed iterations per size (default %d, %d above %d bytes)\n"
           "  -x WARMUP     untimed warmup iterations per size (default %d, %d above %d bytes)\n",
           spec->prog, spec->from_zero ? 0 : 1, DEFAULT_MAX_SIZE, spec->iters_small,
           spec->iters_large,
           BENCH_LARGE_SIZE, spec->warmup_small, spec->warmup_large, BENCH_LARGE_SIZE);
    if (spec->has_window)
        printf("  -W WINDOW     messages in flight per iteration (default %d)\n", DEFAULT_WINDOW);
    if (spec->has_median)
        printf("  -t            also print the median of the per-iteration times (perftest's\n"
               "                t_typical), which the host's scheduling noise moves less than the mean\n");
    printf("  -h            this help\n");
    if (spec->usage)
        fputs(spec->usage, stdout);
    if (spec->ranks == BENCH_RANKS_TWO)
        printf("Runs on exactly 2 ranks.\n");
    else
        printf("Runs on an even number of ranks: rank i sends to rank i + N/2.\n");
}

/* Reports a command-line or launch error once and ends this process; never returns. */
static _Noreturn void die(const struct bench_opts *o, int show_hint, const char *fmt, ...)
{
    if (o->rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "%s: ", o->spec->prog);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        if (show_hint)
            fprintf(stderr, "Try '%s -h' for usage.\n", o->spec->prog);
    }
    MPI_Finalize();
    exit(1);
}

/* A size in bytes with an optional K/M/G suffix; 0 on success, -1 if malformed or too large. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v, mult = 1;

    if (*s < '0' || *s > '9')
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
    if (*end != '\0' || v > MAX_SIZE / mult)
        return -1;
    *out = (size_t)(v * mult);
    return 0;
}

static int parse_int(const char *s, int min, int max, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < min || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

/* -m MAX, MIN:MAX, MIN: or :MAX; an omitted bound keeps its default. */
static void parse_sizes(struct bench_opts *o, const char *arg)
{
    const char *colon = strchr(arg, ':');
    char min_text[64];
    int min_given = 0;

    if (colon) {
        size_t n = (size_t)(colon - arg);
        if (n >= sizeof(min_text))
            die(o, 1, "-m: bad minimum size in '%s'", arg);
        memcpy(min_text, arg, n);
        min_text[n] = '\0';
        if (n > 0) {
            if (parse_size(min_text, &o->min_size))
                die(o, 1, "-m: bad minimum size '%s' (a byte count up to 1G)", min_text);
            min_given = 1;
        }
        arg = colon + 1;
    }
    if (*arg != '\0' && parse_size(arg, &o->max_size))
        die(o, 1, "-m: bad maximum size '%s' (a byte count up to 1G)", arg);
    if (colon && !min_given && *arg == '\0')
        die(o, 1, "-m: give MAX, MIN:MAX, MIN: or :MAX");
    /* "-m 0" asks for size 0 alone rather than an empty range. */
    if (!colon && o->max_size < o->min_size)
        o->min_size = o->max_size;
    if (o->min_size > o->max_size)
        die(o, 1, "-m: minimum size %zu is above maximum size %zu", o->min_size, o->max_size);
}

static void parse_args(struct bench_opts *o, int argc, char **argv)
{
    const struct bench_spec *spec = o->spec;
    int c;

    opterr = 0;
    while ((c = getopt(argc, argv, ":m:i:x:W:th")) != -1) {
        switch (c) {
        case 'm':
            parse_sizes(o, optarg);
            break;
        case 'i':
            if (parse_int(optarg, 1, INT_MAX, &o->iters))
                die(o, 1, "-i: iterations must be a whole number >= 1, not '%s'", optarg);
            break;
        case 'x':
            if (parse_int(optarg, 0, INT_MAX, &o->warmup))
                die(o, 1, "-x: warmup must be a whole number >= 0, not '%s'", optarg);
            break;
        case 'W':
            if (!spec->has_window)
                die(o, 1, "-W: this benchmark has no window");
            if (parse_int(optarg, 1, MAX_WINDOW, &o->window))
                die(o, 1, "-W: window must be a whole number from 1 to %d, not '%s'", MAX_WINDOW,
                    optarg);
            break;
        case 't':
            if (!spec->has_median)
                die(o, 1, "-t: this benchmark has no per-iteration median");
            o->median = 1;
            break;
        case 'h':
            if (o->rank == 0)
                usage(spec);
            MPI_Finalize();
            exit(0);
        case ':':
            die(o, 1, "option -%c needs a value", optopt);
            break;
        default:
            die(o, 1, "unknown option -%c", optopt);
        }
    }
    if (optind < argc)
        die(o, 1, "unexpected argument '%s'", argv[optind]);
}

static void check_ranks(const struct bench_opts *o)
{
    if (o->spec->ranks == BENCH_RANKS_TWO && o->nranks != 2)
        die(o, 0, "needs exactly 2 ranks, but the job has %d: launch it with -n 2", o->nranks);
    if (o->spec->ranks == BENCH_RANKS_EVEN && (o->nranks < 2 || o->nranks % 2 != 0))
        die(o, 0, "needs an even number of ranks (2 or more: the first half sends to the "
                  "second half), but the job has %d", o->nranks);
}

void bench_start(int *argc, char ***argv, const struct bench_spec *spec, struct bench_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->spec = spec;
    o->min_size = spec->from_zero ? 0 : DEFAULT_MIN_SIZE;
    o->max_size = DEFAULT_MAX_SIZE;
    o->iters = -1;
    o->warmup = -1;
    o->window = DEFAULT_WINDOW;

    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o->nranks);
    parse_args(o, *argc, *argv);
    check_ranks(o);

    if (o->rank != 0)
        return;
    printf("# rdmpi %s v1.0\n", spec->title);
    if (spec->ranks == BENCH_RANKS_EVEN && spec->has_window)
        printf("# [ pairs: %d ] [ window size: %d ]\n", o->nranks / 2, o->window);
    if (o->median)
        printf("%s%18s\n", spec->columns, "Median (us)");
    else
        printf("%s\n", spec->columns);
    fflush(stdout);
}

int bench_finish(void)
{
    MPI_Finalize();
    return 0;
}

size_t bench_next_size(size_t size)
{
    return size == 0 ? 1 : size * 2;
}

int bench_iters(const struct bench_opts *o, size_t size)
{
    if (o->iters >= 0)
        return o->iters;
    return size > BENCH_LARGE_SIZE ? o->spec->iters_large : o->spec->iters_small;
}

int bench_warmup(const struct bench_opts *o, size_t size)
{
    if (o->warmup >= 0)
        return o->warmup;
    return size > BENCH_LARGE_SIZE ? o->spec->warmup_large : o->spec->warmup_small;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void *bench_alloc(const struct bench_opts *o, size_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    void *p = NULL;
    int rc;

    if (bytes == 0)
        bytes = 1;
    rc = posix_memalign(&p, page > 0 ? (size_t)page : 4096, bytes);
    if (rc != 0) {
        fprintf(stderr, "%s: rank %d: cannot allocate %zu bytes: %s\n", o->spec->prog, o->rank,
                bytes, strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 'a' + o->rank % 26, bytes);
    return p;
}

void bench_touch(void *sbuf, void *rbuf, size_t size)
{
    if (sbuf)
        memset(sbuf, 'a', size);
    if (rbuf)
        memset(rbuf, 'b', size);
}

void bench_row(const struct bench_opts *o, size_t size, double value)
{
    if (o->rank != 0)
        return;
    printf("%-10zu%18.2f\n", size, value);
    fflush(stdout);
}

void bench_row2(const struct bench_opts *o, size_t size, double value1, double value2)
{
    if (o->rank != 0)
        return;
    printf("%-10zu%18.2f%18.2f\n", size, value1, value2);
    fflush(stdout);
}
