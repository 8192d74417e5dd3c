/*
 * io_bw: MPI-IO write and read bandwidth of a shared file. Every rank moves
 * S bytes per call (S from 1 MiB to 64 MiB): "contig" puts rank r's block at
 * r*S; "strided" interleaves the ranks in blocks of B bytes (a vector
 * filetype), the pattern collective buffering is for. Rows: collective
 * write/read (MPI_File_write_at_all/read_at_all) of both patterns,
 * independent contiguous write/read (MPI_File_write_at/read_at), and "posix",
 * plain pwrite/pread of the same contiguous blocks without MPI-IO: the limit
 * of the file system. Bandwidth is all ranks' bytes over the slowest rank's
 * time, best of R repetitions (the file is synced with MPI_File_sync /
 * fsync inside the timed region for writes, so the page cache does not flatter
 * them... only when -s is given: by default the page cache is what is measured).
 * Standard MPI only, so the same source builds against any MPI
 * (benchmarks/rdmpi-compare-io runs rdmpi, Open MPI and MPICH side by side).
 *
 * Usage: io_bw [-d dir] [-m max MiB] [-f first MiB] [-b block bytes] [-r reps] [-s]
 *              [-a cb_nodes] [-H key=value]...
 * -f: the smallest size (sizes go up by 4x from it); -H: a file hint (info key) given at
 * every open, any number of times (e.g. -H rdmpi_cb_push=disable).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

static int rank, size, reps = 3, do_sync;
static long block = 8192;
static const char *cb_nodes; /* -a: the cb_nodes hint (aggregators), else the default */
static char *hints[16];      /* -H key=value */
static int nhints;

static double now(void)
{
    return MPI_Wtime();
}

/* The slowest rank's time of the best repetition. */
static double best(double *t)
{
    double b = 1e30;
    for (int i = 0; i < reps; i++) {
        double m;
        MPI_Allreduce(&t[i], &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (m < b)
            b = m;
    }
    return b;
}

static double run_mpiio(const char *path, long s, int strided, int coll, int write, char *buf)
{
    MPI_File fh;
    MPI_Info info = MPI_INFO_NULL;
    if (cb_nodes || nhints) {
        MPI_Info_create(&info);
        if (cb_nodes)
            MPI_Info_set(info, "cb_nodes", cb_nodes);
        for (int i = 0; i < nhints; i++) {
            char kv[256], *eq;
            snprintf(kv, sizeof(kv), "%s", hints[i]);
            if ((eq = strchr(kv, '=')) != NULL) {
                *eq = '\0';
                MPI_Info_set(info, kv, eq + 1);
            }
        }
    }
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    MPI_Datatype ft;
    MPI_Offset off = (MPI_Offset)rank * s;
    if (strided) {
        MPI_Type_vector((int)(s / block), (int)block, (int)(block * size), MPI_BYTE, &ft);
        MPI_Type_commit(&ft);
        MPI_File_set_view(fh, (MPI_Offset)rank * block, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        off = 0;
    }
    double t[16];
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        if (write && coll)
            MPI_File_write_at_all(fh, off, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
        else if (write)
            MPI_File_write_at(fh, off, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
        else if (coll)
            MPI_File_read_at_all(fh, off, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
        else
            MPI_File_read_at(fh, off, buf, (int)s, MPI_BYTE, MPI_STATUS_IGNORE);
        if (write && do_sync)
            MPI_File_sync(fh);
        t[i] = now() - t0;
    }
    if (strided)
        MPI_Type_free(&ft);
    MPI_File_close(&fh);
    return best(t);
}

static double run_posix(const char *path, long s, int write, char *buf)
{
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    double t[16];
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        long done = 0;
        while (done < s) {
            ssize_t n = write ? pwrite(fd, buf + done, (size_t)(s - done), (off_t)rank * s + done)
                              : pread(fd, buf + done, (size_t)(s - done), (off_t)rank * s + done);
            if (n <= 0)
                break;
            done += n;
        }
        if (write && do_sync)
            fsync(fd);
        t[i] = now() - t0;
    }
    close(fd);
    return best(t);
}

int main(int argc, char **argv)
{
    const char *dir = "/tmp";
    long maxmib = 64, firstmib = 1;
    int c;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((c = getopt(argc, argv, "d:m:f:b:r:sa:H:")) != -1) {
        if (c == 'd')
            dir = optarg;
        else if (c == 'm')
            maxmib = atol(optarg);
        else if (c == 'b')
            block = atol(optarg);
        else if (c == 'r')
            reps = atoi(optarg) < 1 ? 1 : atoi(optarg) > 16 ? 16 : atoi(optarg);
        else if (c == 's')
            do_sync = 1;
        else if (c == 'a')
            cb_nodes = optarg;
        else if (c == 'f')
            firstmib = atol(optarg) < 1 ? 1 : atol(optarg);
        else if (c == 'H' && nhints < 16)
            hints[nhints++] = optarg;
    }
    /* the file lives in a directory of its own, removed at the end */
    char tmpd[1024], path[1100];
    int ok = 1;
    if (rank == 0) {
        snprintf(tmpd, sizeof(tmpd), "%s/io_bw.XXXXXX", dir);
        ok = mkdtemp(tmpd) != NULL;
        if (!ok)
            perror("io_bw: mkdtemp");
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Bcast(tmpd, sizeof(tmpd), MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof(path), "%s/io_bw.dat", tmpd);
    char *buf = malloc((size_t)maxmib << 20);
    memset(buf, rank + 1, (size_t)maxmib << 20);
    if (rank == 0)
        printf("# io_bw: %d ranks, file %s, strided block %ld bytes, best of %d%s; MiB/s of all "
               "ranks\n# %-9s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n",
               size, path, block, reps, do_sync ? ", with sync" : "", "MiB/rank", "cw_contig",
               "cr_contig", "cw_strided", "cr_strided", "iw_contig", "ir_contig", "posix_w",
               "posix_r", "cw/posix", "iw/posix");
    for (long mib = firstmib; mib <= maxmib; mib *= 4) {
        long s = mib << 20;
        double r[8];
        r[0] = run_mpiio(path, s, 0, 1, 1, buf);
        r[1] = run_mpiio(path, s, 0, 1, 0, buf);
        r[2] = run_mpiio(path, s, 1, 1, 1, buf);
        r[3] = run_mpiio(path, s, 1, 1, 0, buf);
        r[4] = run_mpiio(path, s, 0, 0, 1, buf);
        r[5] = run_mpiio(path, s, 0, 0, 0, buf);
        r[6] = run_posix(path, s, 1, buf);
        r[7] = run_posix(path, s, 0, buf);
        if (rank == 0) {
            double total = (double)s * size / (1 << 20);
            printf("  %-9ld", mib);
            for (int i = 0; i < 8; i++)
                printf(" %10.0f", total / r[i]);
            printf(" %10.2f %10.2f\n", r[6] / r[2], r[6] / r[4]);
            fflush(stdout);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        rmdir(tmpd);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
