/*
 * MPI_Comm_spawn time: a job of one rank spawns N copies of this program, again and again, and
 * prints how long each spawn took until every child was reachable. What a master/worker code
 * waits for is not the return of MPI_Comm_spawn alone (an MPI may return before its children
 * finished MPI_Init) but a first collective with them, so each spawn is timed from the call to
 * the end of an MPI_Barrier on the new intercommunicator; the children then disconnect and
 * finalize, and the parent disconnects before the next spawn, so the runs do not pile up.
 *
 * Output: one line per spawn (the first is the cold one: the launcher starts processes of a new
 * job for the first time) and a summary line "spawn N: first F ms, median M ms, best B ms".
 * Standard MPI only: builds with any MPI's mpicc. The launcher must allow N more processes
 * (rdmpirun and Open MPI's mpirun: --host localhost:N+1, or --oversubscribe where it is enough).
 *
 * Usage: rdmpi_spawn [-n children] [-r repeats]   (defaults 4 and 5)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int child(MPI_Comm parent)
{
    MPI_Barrier(parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    int n = 4, reps = 5, opt;
    MPI_Comm parent;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        return child(parent);
    while ((opt = getopt(argc, argv, "n:r:h")) != -1) {
        switch (opt) {
        case 'n': n = atoi(optarg); break;
        case 'r': reps = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: %s [-n children] [-r repeats]\n", argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (n < 1 || reps < 1 || reps > 1000) {
        fprintf(stderr, "%s: -n must be >= 1 and -r between 1 and 1000\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Every rank of the parent job takes part in the spawn (rank 0 is the root and prints). */
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (t == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < reps; i++) {
        MPI_Comm ic;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                       MPI_ERRCODES_IGNORE);
        MPI_Barrier(ic);
        t[i] = (MPI_Wtime() - t0) * 1e3;
        MPI_Comm_disconnect(&ic);
        if (rank == 0)
            printf("spawn %d children, %d: %.2f ms\n", n, i + 1, t[i]);
        fflush(stdout);
    }
    if (rank == 0) {
        double first = t[0];
        int m = reps > 1 ? reps - 1 : 1;
        double *rest = reps > 1 ? t + 1 : t;
        qsort(rest, (size_t)m, sizeof(double), cmp_double);
        double med = m % 2 ? rest[m / 2] : (rest[m / 2 - 1] + rest[m / 2]) / 2;
        printf("spawn %d: first %.2f ms, median %.2f ms, best %.2f ms\n", n, first, med, rest[0]);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
