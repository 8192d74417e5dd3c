/*
 * rdmpi_mt: multi-threaded point to point between two ranks, standard MPI only (the same
 * source builds with any MPI's mpicc; rdmpi-compare-mt runs it side by side).
 *   -m lat   (default) T pairs of threads ping-pong 8-byte (-s) messages, each pair on its
 *            own duplicate of MPI_COMM_WORLD (as OSU's osu_latency_mt, but with a
 *            communicator per pair); prints the mean one-way latency over all pairs.
 *   -m rate  T threads per rank stream windows of 64 (-w) nonblocking 8-byte sends to the
 *            peer's thread of the same index (receiver answers each window with an ack);
 *            prints the total messages per second.
 *   -T n     threads (pairs) per rank, 1..16 (default 1)
 *   -S       MPI_Init_thread(MPI_THREAD_SINGLE) instead of MULTIPLE (only with -T 1): the
 *            baseline for the cost of MULTIPLE granted
 *   -i n     timed iterations per thread (default 20000 lat, 2000 windows rate); -x warmup
 * Output: "# mode threads provided" then "<threads> <value>".
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAXT = 16 };

static int rank, nthreads = 1, iters = -1, warmup = -1, size = 8, window = 64, rate_mode;
static MPI_Comm comms[MAXT];
static double results[MAXT];
static pthread_barrier_t start_line;

static void *lat_thread(void *arg)
{
    int t = (int)(long)arg, peer = 1 - rank;
    char *buf = calloc(1, (size_t)size + 1);
    MPI_Comm c = comms[t];
    double t0 = 0;
    pthread_barrier_wait(&start_line);
    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, size, MPI_CHAR, peer, 1, c);
            MPI_Recv(buf, size, MPI_CHAR, peer, 1, c, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_CHAR, peer, 1, c, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_CHAR, peer, 1, c);
        }
    }
    results[t] = (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
    free(buf);
    return NULL;
}

static void *rate_thread(void *arg)
{
    int t = (int)(long)arg, peer = 1 - rank;
    char *buf = calloc((size_t)window, (size_t)size + 1);
    MPI_Request *r = malloc(sizeof(*r) * (size_t)window);
    MPI_Comm c = comms[t];
    double t0 = 0;
    char ack = 0;
    pthread_barrier_wait(&start_line);
    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        for (int k = 0; k < window; k++) {
            if (rank == 0)
                MPI_Isend(buf + (size_t)k * (size_t)size, size, MPI_CHAR, peer, 1, c, &r[k]);
            else
                MPI_Irecv(buf + (size_t)k * (size_t)size, size, MPI_CHAR, peer, 1, c, &r[k]);
        }
        MPI_Waitall(window, r, MPI_STATUSES_IGNORE);
        if (rank == 0)
            MPI_Recv(&ack, 1, MPI_CHAR, peer, 2, c, MPI_STATUS_IGNORE);
        else
            MPI_Send(&ack, 1, MPI_CHAR, peer, 2, c);
    }
    results[t] = (double)iters * window / (MPI_Wtime() - t0);
    free(r);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    int single = 0, opt, provided = -1, nranks;
    while ((opt = getopt(argc, argv, "m:T:Si:x:s:w:")) != -1) {
        switch (opt) {
        case 'm': rate_mode = !strcmp(optarg, "rate"); break;
        case 'T': nthreads = atoi(optarg); break;
        case 'S': single = 1; break;
        case 'i': iters = atoi(optarg); break;
        case 'x': warmup = atoi(optarg); break;
        case 's': size = atoi(optarg); break;
        case 'w': window = atoi(optarg); break;
        default: fprintf(stderr, "usage: %s [-m lat|rate] [-T n] [-S] [-i n] [-x n] [-s bytes] [-w n]\n", argv[0]); return 1;
        }
    }
    if (nthreads < 1 || nthreads > MAXT || (single && nthreads != 1) || size < 1 || window < 1) {
        fprintf(stderr, "rdmpi_mt: bad arguments (-T 1..%d; -S needs -T 1)\n", MAXT);
        return 1;
    }
    if (iters < 0)
        iters = rate_mode ? 2000 : 20000;
    if (warmup < 0)
        warmup = iters / 10;
    MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2 || (!single && provided != MPI_THREAD_MULTIPLE)) {
        if (rank == 0)
            fprintf(stderr, "rdmpi_mt: needs 2 ranks and MPI_THREAD_MULTIPLE (got %d)\n", provided);
        MPI_Finalize();
        return 1;
    }
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_barrier_init(&start_line, NULL, (unsigned)nthreads);
    MPI_Barrier(MPI_COMM_WORLD);
    if (nthreads == 1) {
        (rate_mode ? rate_thread : lat_thread)((void *)0L);
    } else {
        pthread_t th[MAXT];
        for (int t = 0; t < nthreads; t++)
            pthread_create(&th[t], NULL, rate_mode ? rate_thread : lat_thread, (void *)(long)t);
        for (int t = 0; t < nthreads; t++)
            pthread_join(th[t], NULL);
    }
    double v = 0;
    for (int t = 0; t < nthreads; t++)
        v += results[t];
    if (!rate_mode)
        v /= nthreads;
    if (rank == 0) {
        printf("# %s threads=%d provided=%d size=%d\n", rate_mode ? "msgs/s" : "latency_us",
               nthreads, provided, size);
        printf("%d %.3f\n", nthreads, rate_mode ? v : v);
    }
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&comms[t]);
    pthread_barrier_destroy(&start_line);
    MPI_Finalize();
    return 0;
}
