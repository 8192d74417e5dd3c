/*
 * Helpers shared by the self-checking MPI test programs in test/mpi: a failed
 * check prints "rank R: <test>: <what differed> (file:line)" on stderr and
 * aborts the job with status 1. Programs use standard MPI only, so they also
 * run against any other MPI implementation (t_transport_is asks rdmpi's extension
 * rdmpi_peer_transport when built against rdmpi). A program that cannot test what it is for
 * in this setting says so with t_skip.
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

/* Ends a program that cannot test what it is for here (every rank calls it, after t_init):
 * rank 0 prints "SKIP: <why>", which test/mpi/run reports as a skip, not a pass. */
static inline void t_skip(const char *why)
{
    if (t_rank == 0) {
        printf("SKIP: %s\n", why);
        fflush(stdout);
    }
    t_finish();
    exit(0);
}

/* Whether this rank's messages to rank peer of MPI_COMM_WORLD travel over the transport named
 * want (1) or another (0, its name in got, MPI_MAX_OBJECT_NAME bytes). Only rdmpi can say
 * (its extension rdmpi_peer_transport); with another MPI this is 0 and got says so. */
static inline int t_transport_is(int peer, const char *want, char *got)
{
#ifdef RDMPI
    int len = 0;
    MPI_OK(rdmpi_peer_transport(MPI_COMM_WORLD, peer, got, &len));
    return strcmp(got, want) == 0;
#else
    (void)peer;
    (void)want;
    snprintf(got, MPI_MAX_OBJECT_NAME, "an MPI other than rdmpi, which cannot say which");
    return 0;
#endif
}

/* With RDMPI_TEST_PEER_TRANSPORT=<name> set (tests of a transport between jobs): every
 * process of the other group of intercommunicator inter is reached over that transport.
 * Collective over inter (both groups call it; low: this group comes first in the merge,
 * which rdmpi_peer_transport needs: it takes ranks of an intracommunicator). Without the
 * setting, or with an MPI other than rdmpi, it does nothing. */
static inline void t_check_remote_transport(MPI_Comm inter, int low)
{
    const char *want = getenv("RDMPI_TEST_PEER_TRANSPORT");
    if (!want || !*want)
        return;
#ifdef RDMPI
    MPI_Comm merged;
    int lsize, rsize, mrank, len = 0;
    char got[MPI_MAX_OBJECT_NAME];
    MPI_OK(MPI_Comm_size(inter, &lsize));
    MPI_OK(MPI_Comm_remote_size(inter, &rsize));
    MPI_OK(MPI_Intercomm_merge(inter, !low, &merged));
    MPI_OK(MPI_Comm_rank(merged, &mrank));
    int first = low ? lsize : 0; /* the other group's ranks in merged */
    for (int r = first; r < first + rsize; r++) {
        MPI_OK(rdmpi_peer_transport(merged, r, got, &len));
        CHECK(!strcmp(got, want), "merged rank %d reaches merged rank %d (the other job) over "
              "%s, not %s", mrank, r, got, want);
    }
    MPI_OK(MPI_Comm_free(&merged));
#else
    (void)inter;
    (void)low;
#endif
}

/* Skips the program unless every rank's messages to each of its peers[] (n of them) go over
 * the transport want, saying which rank reaches which over what instead. Collective. */
static inline void t_require_transport(const char *want, const int *peers, int n)
{
    char got[MPI_MAX_OBJECT_NAME], why[MPI_MAX_OBJECT_NAME + 128] = "";
    int ok = 1;
    for (int i = 0; i < n && ok; i++)
        if (!t_transport_is(peers[i], want, got)) {
            ok = 0;
            snprintf(why, sizeof(why), "rank %d reaches rank %d over %s, not %s", t_rank,
                     peers[i], got, want);
        }
    if (t_all(ok))
        return;
    /* rank 0 says why: its own reason, else the first other rank's that has one */
    int from = ok ? -1 : 0;
    if (t_rank == 0) {
        for (int r = 1; r < t_size; r++) {
            int bad;
            MPI_Recv(&bad, 1, MPI_INT, r, 4, t_sync_comm, MPI_STATUS_IGNORE);
            if (bad && from < 0)
                from = r;
        }
        for (int r = 1; r < t_size; r++)
            MPI_Send(&from, 1, MPI_INT, r, 5, t_sync_comm);
        if (from > 0)
            MPI_Recv(why, (int)sizeof(why), MPI_CHAR, from, 6, t_sync_comm, MPI_STATUS_IGNORE);
    } else {
        int bad = !ok;
        MPI_Send(&bad, 1, MPI_INT, 0, 4, t_sync_comm);
        MPI_Recv(&from, 1, MPI_INT, 0, 5, t_sync_comm, MPI_STATUS_IGNORE);
        if (from == t_rank)
            MPI_Send(why, (int)sizeof(why), MPI_CHAR, 0, 6, t_sync_comm);
    }
    t_skip(why);
}

/* Checks the transport between this process and every rank of the remote group of inter, whose
 * processes belong to another job (spawned, parents, connected): shm when both are on one host
 * and RDMPI_TRANSPORTS allows shm (a bridge between the jobs, docs/dynamic.md), else tcp or
 * verbs (t_check_remote_transport says which, when a test asks).
 * Processor names, exchanged here, say who shares a host. Collective over inter (both sides
 * call it at the same point). Only rdmpi can say which transport: elsewhere it checks nothing. */
static inline void t_check_inter_transports(MPI_Comm inter)
{
    int rsize, len = 0;
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_OK(MPI_Comm_remote_size(inter, &rsize));
    MPI_OK(MPI_Get_processor_name(mine, &len));
    char *theirs = calloc((size_t)rsize, MPI_MAX_PROCESSOR_NAME);
    MPI_Request *rq = calloc(2 * (size_t)rsize, sizeof(*rq));
    CHECK(theirs && rq, "out of memory");
    for (int r = 0; r < rsize; r++) {
        MPI_OK(MPI_Irecv(theirs + (size_t)r * MPI_MAX_PROCESSOR_NAME, MPI_MAX_PROCESSOR_NAME,
                         MPI_CHAR, r, 32100, inter, &rq[r]));
        MPI_OK(MPI_Isend(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r, 32100, inter,
                         &rq[rsize + r]));
    }
    MPI_OK(MPI_Waitall(2 * rsize, rq, MPI_STATUSES_IGNORE));
#ifdef RDMPI
    const char *allowed = getenv("RDMPI_TRANSPORTS");
    const char *fail = getenv("RDMPI_TEST_SHM_BRIDGE_FAIL"); /* a bridge made to fail */
    int shm = (!allowed || strstr(allowed, "shm")) && (!fail || !strcmp(fail, "none"));
    for (int r = 0; r < rsize; r++) {
        char got[MPI_MAX_OBJECT_NAME];
        int same = !strcmp(mine, theirs + (size_t)r * MPI_MAX_PROCESSOR_NAME);
        /* off the bridge: verbs where it is open (the guest), else tcp */
        const char *want = same && shm ? "shm" : "tcp or verbs";
        MPI_OK(rdmpi_peer_transport(inter, r, got, &len));
        CHECK(same && shm ? !strcmp(got, "shm") : !strcmp(got, "tcp") || !strcmp(got, "verbs"),
              "rank %d of the other job (on %s, this one on %s) is reached over %s, not %s", r,
              theirs + (size_t)r * MPI_MAX_PROCESSOR_NAME, mine, got, want);
    }
#endif
    free(theirs);
    free(rq);
}

#endif
