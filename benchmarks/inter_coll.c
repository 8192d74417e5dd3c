/*
 * Inter-collectives against the intracommunicator collective of the same total size: the job's
 * ranks are split into two halves (even and odd world ranks), joined by an intercommunicator;
 * for each size, Bcast, Allreduce and Alltoall run on MPI_COMM_WORLD and on the
 * intercommunicator, and the table gives both times (microseconds per call: on each rank the
 * best of 7 loops' averages over the timed iterations, averaged over the ranks) and their ratio
 * (inter / intra).
 *
 * The same total size: Bcast, `size` bytes from one root to every other rank (inter: from rank
 * 0 of one group to the whole other group, which is every rank that receives); Allreduce,
 * `size` bytes of MPI_FLOAT summed (inter: each group gets the sum of the other group's);
 * Alltoall, `size` bytes to every peer (inter: every remote rank, half as many peers; the bytes
 * each rank sends are per pair the same). Standard MPI only: builds with any MPI's mpicc.
 *
 * Usage: rdmpi_inter_coll [-m max_size] [-i iterations]; an even number of ranks (4 expected).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BCAST, ALLREDUCE, ALLTOALL, NOPS };
#define REPS 7
static const char *const op_names[NOPS] = { "Bcast", "Allreduce", "Alltoall" };

/* One call of op on comm (inter: this rank's group is `group`, 0 or 1). */
static void run(int op, MPI_Comm comm, int inter, int group, int rank, char *sbuf, char *rbuf,
                size_t size)
{
    int n = (int)size;
    switch (op) {
    case BCAST:
        if (!inter)
            MPI_Bcast(sbuf, n, MPI_CHAR, 0, comm);
        else if (group == 0)
            MPI_Bcast(sbuf, n, MPI_CHAR, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, comm);
        else
            MPI_Bcast(sbuf, n, MPI_CHAR, 0, comm);
        break;
    case ALLREDUCE:
        MPI_Allreduce(sbuf, rbuf, n / 4, MPI_FLOAT, MPI_SUM, comm);
        break;
    case ALLTOALL:
        MPI_Alltoall(sbuf, n, MPI_CHAR, rbuf, n, MPI_CHAR, comm);
        break;
    }
}

static double time_op(int op, MPI_Comm comm, int inter, int group, int rank, char *sbuf,
                      char *rbuf, size_t size, int iters, MPI_Comm world)
{
    int warm = iters / 10 + 2;
    for (int i = 0; i < warm; i++)
        run(op, comm, inter, group, rank, sbuf, rbuf, size);
    /* The best of REPS timed loops: on a shared or oversubscribed machine an average over one
     * loop measures the scheduler as much as the collective. */
    double t = 1e300, sum;
    for (int rep = 0; rep < REPS; rep++) {
        MPI_Barrier(world);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            run(op, comm, inter, group, rank, sbuf, rbuf, size);
        double ti = (MPI_Wtime() - t0) / iters * 1e6;
        if (ti < t)
            t = ti;
    }
    MPI_Allreduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, world);
    int np;
    MPI_Comm_size(world, &np);
    return sum / np;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t max = 1 << 18;
    int iters = 200, c;
    while ((c = getopt(argc, argv, "m:i:")) != -1) {
        if (c == 'm')
            max = strtoul(optarg, NULL, 0);
        else if (c == 'i')
            iters = atoi(optarg);
    }
    if (np < 2 || np % 2 || max < 4 || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "%s: an even number of ranks, -m >= 4, -i >= 1\n", argv[0]);
        MPI_Finalize();
        return 1;
    }
    int group = rank % 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, group, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - group, 99, &inter);
    int lrank;
    MPI_Comm_rank(local, &lrank);
    char *sbuf = malloc(max * np), *rbuf = malloc(max * np);
    if (!sbuf || !rbuf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(sbuf, 1, max * np);
    memset(rbuf, 0, max * np);
    if (rank == 0)
        printf("# %d ranks, intercommunicator of two groups of %d\n"
               "# %-10s %10s %14s %14s %8s\n", np, np / 2, "collective", "size", "intra (us)",
               "inter (us)", "ratio");
    for (int op = 0; op < NOPS; op++)
        for (size_t size = 4; size <= max; size *= 8) {
            int it = size >= 65536 ? (iters / 10 > 10 ? iters / 10 : 10) : iters;
            double ta = time_op(op, MPI_COMM_WORLD, 0, group, lrank, sbuf, rbuf, size, it,
                                MPI_COMM_WORLD);
            double te = time_op(op, inter, 1, group, lrank, sbuf, rbuf, size, it,
                                MPI_COMM_WORLD);
            if (rank == 0)
                printf("  %-10s %10zu %14.2f %14.2f %8.2f\n", op_names[op], size, ta, te,
                       te / ta);
        }
    free(sbuf);
    free(rbuf);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
