/*
 * rdmpi_mem_scale: memory per process after MPI_Init and after every rank has exchanged a
 * message with every other rank (all N-1 connections made), for the scale model (docs/scale.md).
 * Each rank reads its own /proc/self/smaps_rollup (Linux >= 4.14): Rss, and Pss split into
 * anonymous (private heap, stacks, library data), file-backed (libraries; and a shared-memory
 * transport whose segment is a file mapping, as Open MPI's backing files can be) and tmpfs shared
 * memory (rdmpi's shm segment), each page counted 1/k in each of the k processes mapping it, so
 * what the node holds for the job is the sum of the Pss. Rank 0 prints the average and the maximum over the ranks, in KiB,
 * one row per phase, and the slowest rank's MPI_Init time. Standard MPI only: the same source
 * builds with any MPI's mpicc, so the peers are measured the same way.
 *
 * The connection pattern is a shifted exchange: in step d (1..N-1) rank r sends 8 bytes to
 * r + d and receives from r - d (mod N), so every ordered pair carries one message, a few in
 * flight per rank at a time.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { F_RSS, F_PSS, F_PSS_ANON, F_PSS_FILE, F_PSS_SHMEM, F_COUNT };

static const char *const field_names[F_COUNT] = { "Rss:", "Pss:", "Pss_Anon:", "Pss_File:",
                                                   "Pss_Shmem:" };

/* The fields of smaps_rollup, in KiB; -1 where the kernel does not have them. */
static void read_rollup(double *kib)
{
    char line[256];
    FILE *f = fopen("/proc/self/smaps_rollup", "r");

    for (int i = 0; i < F_COUNT; i++)
        kib[i] = -1;
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        for (int i = 0; i < F_COUNT; i++) {
            size_t n = strlen(field_names[i]);
            if (strncmp(line, field_names[i], n) == 0)
                kib[i] = strtod(line + n, NULL);
        }
    }
    fclose(f);
}

static void report(const char *phase, int rank, int nranks)
{
    double mine[F_COUNT], sum[F_COUNT], max[F_COUNT];

    read_rollup(mine);
    MPI_Reduce(mine, sum, F_COUNT, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, max, F_COUNT, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    printf("%-10s %6d", phase, nranks);
    for (int i = 0; i < F_COUNT; i++)
        printf(" %10.0f", sum[i] / nranks);
    printf(" %10.0f %10.0f\n", max[F_RSS], max[F_PSS]);
    fflush(stdout);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int rank, nranks;
    double t0 = now();

    MPI_Init(&argc, &argv);
    double init = now() - t0, slowest;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Reduce(&init, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("# MPI_Init of the slowest rank: %.3f s\n", slowest);
        printf("# %-8s %6s %10s %10s %10s %10s %10s %10s %10s\n", "phase", "ranks", "Rss", "Pss",
               "Pss_Anon", "Pss_File", "Pss_Shmem", "max_Rss", "max_Pss");
        printf("# (KiB per process: averages over the ranks, then the maxima)\n");
    }
    report("init", rank, nranks);

    char out[8] = "payload", in[8];
    for (int d = 1; d < nranks; d++) {
        int to = (rank + d) % nranks, from = (rank - d + nranks) % nranks;
        MPI_Sendrecv(out, 8, MPI_CHAR, to, 7, in, 8, MPI_CHAR, from, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (memcmp(in, out, 8) != 0) {
            fprintf(stderr, "rank %d: wrong payload from rank %d\n", rank, from);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    report("connected", rank, nranks);
    MPI_Finalize();
    return 0;
}
