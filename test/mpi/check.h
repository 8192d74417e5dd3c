/*
 * Helpers shared by the self-checking MPI test programs in test/mpi: a failed
 * check prints "rank R: <test>: <what differed> (file:line)" on stderr and
 * aborts the job with status 1. Programs use standard MPI only, so they also
 * run against any other MPI implementation.
 *
 * The test programs must not depend on collectives (those are tested by the
 * coll_* programs), so t_sync() is a barrier made of point-to-point messages
 * on a private duplicate of MPI_COMM_WORLD, which keeps its traffic apart from
 * the wildcard receives of the tests.
 */
#ifndef RDMPI_TEST_CHECK_H
#define RDMPI_TEST_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *t_name = "init";
static int t_rank = -1;
static int t_size = 0;
static MPI_Comm t_sync_comm = MPI_COMM_NULL;

static inline void t_begin(const char *name)
{
    t_name = name;
}

static inline void t_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

static inline void t_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "rank %d: %s: %s (%s:%d)\n", t_rank, t_name, msg, file, line);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* MPI_Abort does not return; this keeps the compiler sure of it */
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            t_fail(__FILE__, __LINE__, __VA_ARGS__);                                               \
    } while (0)

/* Checks that an MPI call returned MPI_SUCCESS (useful under MPI_ERRORS_RETURN). */
#define MPI_OK(call)                                                                               \
    do {                                                                                           \
        int t_rc_ = (call);                                                                        \
        if (t_rc_ != MPI_SUCCESS)                                                                  \
            t_fail(__FILE__, __LINE__, "%s returned %d", #call, t_rc_);                            \
    } while (0)

/* Checks the envelope of a received message. */
#define CHECK_STATUS(st, src, tag, dtype, count)                                                   \
    do {                                                                                           \
        int t_n_ = -7;                                                                             \
        MPI_Get_count(&(st), (dtype), &t_n_);                                                      \
        CHECK((st).MPI_SOURCE == (int)(src) && (st).MPI_TAG == (int)(tag) && t_n_ == (int)(count), \
              "status (source %d, tag %d, count %d), expected (%d, %d, %d)", (st).MPI_SOURCE,      \
              (st).MPI_TAG, t_n_, (int)(src), (int)(tag), (int)(count));                           \
    } while (0)

static inline void t_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    MPI_Comm_dup(MPI_COMM_WORLD, &t_sync_comm);
}

/* A barrier over MPI_COMM_WORLD's ranks from point-to-point messages. */
static inline void t_sync(void)
{
    int token = 0;
    if (t_rank == 0) {
        for (int r = 1; r < t_size; r++)
            MPI_Recv(&token, 1, MPI_INT, r, 0, t_sync_comm, MPI_STATUS_IGNORE);
        for (int r = 1; r < t_size; r++)
            MPI_Send(&token, 1, MPI_INT, r, 1, t_sync_comm);
    } else {
        MPI_Send(&token, 1, MPI_INT, 0, 0, t_sync_comm);
        MPI_Recv(&token, 1, MPI_INT, 0, 1, t_sync_comm, MPI_STATUS_IGNORE);
    }
}

/* Logical AND of ok over all ranks, from point-to-point messages. */
static inline int t_all(int ok)
{
    int v = ok;
    if (t_rank == 0) {
        for (int r = 1; r < t_size; r++) {
            int x;
            MPI_Recv(&x, 1, MPI_INT, r, 2, t_sync_comm, MPI_STATUS_IGNORE);
            v = v && x;
        }
        for (int r = 1; r < t_size; r++)
            MPI_Send(&v, 1, MPI_INT, r, 3, t_sync_comm);
    } else {
        MPI_Send(&v, 1, MPI_INT, 0, 2, t_sync_comm);
        MPI_Recv(&v, 1, MPI_INT, 0, 3, t_sync_comm, MPI_STATUS_IGNORE);
    }
    return v;
}

static inline void t_finish(void)
{
    t_name = "finalize";
    t_sync();
    MPI_Comm_free(&t_sync_comm);
    MPI_Finalize();
}

/* The byte expected at offset off of a message of size bytes from rank src. */
static inline unsigned char t_pattern(int src, size_t size, size_t off)
{
    uint32_t x = (uint32_t)off * 2654435761u;
    return (unsigned char)((x >> 13) ^ (uint32_t)src * 131u ^ (uint32_t)size ^
                           (uint32_t)(off >> 8));
}

static inline void t_fill(void *buf, int src, size_t size)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < size; i++)
        p[i] = t_pattern(src, size, i);
}

/* Returns the first offset where buf differs from the pattern, or size. */
static inline size_t t_verify(const void *buf, int src, size_t size)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < size; i++)
        if (p[i] != t_pattern(src, size, i))
            return i;
    return size;
}

/* Spins on MPI_Test-free progress for about sec seconds (MPI_Iprobe drives progress). */
static inline void t_spin(double sec, MPI_Comm comm)
{
    double t0 = MPI_Wtime();
    int flag;
    while (MPI_Wtime() - t0 < sec)
        MPI_Iprobe(MPI_ANY_SOURCE, 32000, comm, &flag, MPI_STATUS_IGNORE);
}

#endif
