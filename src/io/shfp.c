/*
 * The shared file pointer: one counter (in etypes of the current view) that
 * every rank of the file advances.
 *
 * Design: the counter lives in a small lock file beside the data file,
 * updated under an fcntl write lock (read-modify-write of 8 bytes). The
 * other design, a counter owned by one rank and served through messages,
 * needs that rank to make progress whenever another rank calls
 * MPI_File_write_shared, and rdmpi has no progress thread: a rank computing
 * (or blocked in a call on another communicator) would stall everyone's
 * independent shared-pointer I/O. The lock file needs only what the file
 * itself needs, a file system all ranks share, and works across nodes on
 * NFS (whose lock manager serves fcntl locks), at the cost of a few system
 * calls per access. The file is created on first use (an empty file reads as
 * 0), named after rank 0's pid and an open counter so two opens never share
 * one, and removed by rank 0 at MPI_File_close.
 *
 * The collective calls (read_ordered/write_ordered, seek_shared, set_view)
 * let rank 0 alone touch the counter and tell the others.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/datatype.h"
#include "core/errors.h"
#include "io/io.h"

int io_shfp_setup(MPI_File fh, const char *name)
{
    fh->shfp_path = strdup(name);
    fh->shfp_fd = -1;
    return fh->shfp_path ? 0 : CORE_ENOMEM;
}

void io_shfp_teardown(MPI_File fh)
{
    if (fh->shfp_fd >= 0)
        close(fh->shfp_fd);
    fh->shfp_fd = -1;
}

static int shfp_fail(MPI_File fh, int e, const char *op)
{
    int rc = io_errno_code(e, op, fh->shfp_path, fh->last_error, sizeof(fh->last_error));
    size_t l = strlen(fh->last_error);
    snprintf(fh->last_error + l, sizeof(fh->last_error) - l,
             " (the shared file pointer of \"%s\" is kept in this lock file beside it)", fh->path);
    return rc == CORE_ENOFILE || rc == CORE_EACCESS || rc == CORE_EROFS ? rc : CORE_EFILEIO;
}

static int lock(MPI_File fh, short type)
{
    struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 8 };
    while (fcntl(fh->shfp_fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR)
            return shfp_fail(fh, errno, "fcntl(F_SETLKW)");
    return 0;
}

/* Reads the counter, adds add (set: stores add instead), writes it back, all under the lock. */
static int update(MPI_File fh, MPI_Offset add, int set, MPI_Offset *old)
{
    if (fh->shfp_fd < 0) {
        fh->shfp_fd = open(fh->shfp_path, O_RDWR | O_CREAT, 0600);
        if (fh->shfp_fd < 0)
            return shfp_fail(fh, errno, "open");
    }
    int rc = lock(fh, F_WRLCK);
    if (rc)
        return rc;
    long long v = 0;
    ssize_t r;
    while ((r = pread(fh->shfp_fd, &v, sizeof(v), 0)) < 0 && errno == EINTR)
        ;
    if (r < 0)
        rc = shfp_fail(fh, errno, "pread");
    else if (r != (ssize_t)sizeof(v))
        v = 0;   /* new: the pointer starts at 0 */
    if (!rc && old)
        *old = v;
    if (!rc && (add || set)) {
        long long nv = set ? add : v + add;
        ssize_t w;
        while ((w = pwrite(fh->shfp_fd, &nv, sizeof(nv), 0)) < 0 && errno == EINTR)
            ;
        if (w != (ssize_t)sizeof(nv))
            rc = shfp_fail(fh, w < 0 ? errno : ENOSPC, "pwrite");
    }
    int urc = lock(fh, F_UNLCK);
    return rc ? rc : urc;
}

int io_shfp_fetch_add(MPI_File fh, MPI_Offset add, MPI_Offset *old)
{
    return update(fh, add, 0, old);
}

int io_shfp_set(MPI_File fh, MPI_Offset val)
{
    return update(fh, val, 1, NULL);
}

int io_ordered(MPI_File fh, int write, void *buf, int count, MPI_Datatype dt, MPI_Offset *bytes)
{
    io_drain(fh);
    long long mine = (long long)count * (long long)dt->size / (long long)fh->etype->size;
    long long *all = malloc((size_t)fh->size * sizeof(long long));
    if (!all)
        return CORE_ENOMEM;
    if (PMPI_Allgather(&mine, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, fh->comm) != MPI_SUCCESS) {
        free(all);
        return CORE_EINTERN;
    }
    long long before = 0, total = 0;
    for (int q = 0; q < fh->size; q++) {
        if (q < fh->rank)
            before += all[q];
        total += all[q];
    }
    free(all);
    MPI_Offset start = 0;
    long long v[2] = { 0, 0 };
    if (fh->rank == 0) {
        v[0] = io_shfp_fetch_add(fh, total, &start);
        v[1] = start;
    }
    if (PMPI_Bcast(v, 2, MPI_LONG_LONG, 0, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    if (v[0]) {
        if (fh->rank != 0)
            snprintf(fh->last_error, sizeof(fh->last_error),
                     "updating the shared file pointer of \"%s\" failed on rank 0", fh->path);
        return (int)v[0];
    }
    return io_access(fh, write, 1, v[1] + before, buf, count, dt, bytes);
}
