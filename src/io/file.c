/*
 * Opening, closing and deleting files, and the calls on a whole file (size,
 * preallocation, sync, atomicity, hints). Collective calls agree on one
 * outcome: rank 0 acts first where the file system must see one action
 * (creating with O_EXCL, truncating, removing), and a failure anywhere is
 * made everyone's with a reduction, so no rank keeps a file the others
 * failed to open.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "core/comm.h"
#include "core/datatype.h"
#include "core/errors.h"
#include "core/handle.h"
#include "core/info.h"
#include "core/info_ops.h"
#include "io/io.h"
#include "io/twophase.h"

int io_errno_code(int e, const char *op, const char *path, char *why, size_t whylen)
{
    if (why)
        snprintf(why, whylen, "%s(\"%s\"): %s", op, path, strerror(e));
    switch (e) {
    case ENOENT: case ENOTDIR: return CORE_ENOFILE;
    case EACCES: case EPERM: return CORE_EACCESS;
    case EEXIST: return CORE_EEXIST;
    case ENOSPC: return CORE_ENOSPACE;
#ifdef EDQUOT
    case EDQUOT: return CORE_EQUOTA;
#endif
    case EROFS: return CORE_EROFS;
    case ENAMETOOLONG: case EISDIR: case ELOOP: return CORE_EBADFILE;
    case ENOMEM: return CORE_ENOMEM;
    case ETXTBSY: case EBUSY: return CORE_EFILEINUSE;
    default: return CORE_EFILEIO;
    }
}

int io_fail(MPI_File fh, int e, const char *op)
{
    return io_errno_code(e, op, fh->path, fh->last_error, sizeof(fh->last_error));
}

/* The same value on every rank, or CORE_ENOTSAME everywhere. */
static int agree(MPI_File fh, long long v)
{
    long long mm[2] = { v, -v }, r[2];
    if (PMPI_Allreduce(mm, r, 2, MPI_LONG_LONG, MPI_MAX, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    return r[0] == v && -r[1] == v ? 0 : CORE_ENOTSAME;
}

/* The worst (most negative) of the ranks' codes. */
static int worst(MPI_Comm comm, int rc)
{
    int all;
    if (PMPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    return all;
}

static int open_flags(int amode)
{
    int f = amode & MPI_MODE_RDONLY ? O_RDONLY : O_RDWR;
    return f;
}

/* Rank 0 creates the file (O_EXCL is one test, made once); the others open it after. */
static int open_fd(MPI_File fh, const char *path, int amode, char *why, size_t whylen)
{
    int flags = open_flags(amode);
    int rc = 0;
    if (fh->rank == 0) {
        int f = flags | (amode & MPI_MODE_CREATE ? O_CREAT : 0) | (amode & MPI_MODE_EXCL ? O_EXCL : 0);
        fh->fd = open(path, f, fh->hints.file_perm);
        /* write-only: rdmpi asks for read access too (sieved and collective writes read
         * around the holes they fill); without it those write the runs one by one */
        if (fh->fd < 0 && errno == EACCES && (amode & MPI_MODE_WRONLY))
            fh->fd = open(path, (f & ~O_RDWR) | O_WRONLY, fh->hints.file_perm);
        if (fh->fd < 0)
            rc = io_errno_code(errno, "open", path, why, whylen);
    }
    if (PMPI_Bcast(&rc, 1, MPI_INT, 0, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    if (rc) {
        if (fh->rank != 0)
            snprintf(why, whylen, "open(\"%s\") failed on rank 0", path);
        return rc;
    }
    if (fh->rank != 0) {
        fh->fd = open(path, flags);
        if (fh->fd < 0 && errno == EACCES && (amode & MPI_MODE_WRONLY))
            fh->fd = open(path, O_WRONLY);
        if (fh->fd < 0)
            rc = io_errno_code(errno, "open", path, why, whylen);
    }
    int all = worst(fh->comm, rc);
    if (all && !rc) {
        snprintf(why, whylen, "open(\"%s\") failed on another rank", path);
        close(fh->fd);
        fh->fd = -1;
    }
    return all;
}

/* The name of the shared file pointer's lock file: beside the file (so every node sees
 * it where the file is shared), unique to this open (rank 0's pid and open count). */
static int shfp_name(MPI_File fh, const char *path)
{
    char name[4096] = "";
    if (fh->rank == 0) {
        char *d = strdup(path), *b = strdup(path);
        if (!d || !b) {
            free(d);
            free(b);
            return CORE_ENOMEM;
        }
        snprintf(name, sizeof(name), "%s/.%s.rdmpi-shfp.%ld.%u", dirname(d), basename(b),
                 (long)getpid(), io_rt()->nopen++);
        free(d);
        free(b);
    }
    if (PMPI_Bcast(name, sizeof(name), MPI_CHAR, 0, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    name[sizeof(name) - 1] = 0;
    return io_shfp_setup(fh, name);
}

/* Rank 0's hints become everyone's. */
static int share_hints(MPI_File fh)
{
    if (PMPI_Bcast(&fh->hints, sizeof(fh->hints), MPI_BYTE, 0, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    return 0;
}

/* Whether the file lives on a file system of this node's kernel (its page cache is the file
 * for every rank of the node) rather than a network or cluster file system: 2 for tmpfs and
 * ramfs (memory only, no blocks behind the pages), 1 for a local disk file system, else 0. */
static int local_fs(int fd)
{
    /* the magic numbers of linux/magic.h: tmpfs, ramfs; ext2/3/4, xfs, btrfs, f2fs */
    static const unsigned long mem[] = { 0x01021994UL, 0x858458f6UL };
    static const unsigned long disk[] = { 0xEF53UL, 0x58465342UL, 0x9123683EUL, 0xF2F52010UL };
    struct statfs sf;
    if (fstatfs(fd, &sf) != 0)
        return 0;
    for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++)
        if ((unsigned long)sf.f_type == mem[i])
            return 2;
    for (size_t i = 0; i < sizeof(disk) / sizeof(disk[0]); i++)
        if ((unsigned long)sf.f_type == disk[i])
            return 1;
    return 0;
}

/* rdmpi_cb_push as MPI_File_get_info shows it: whether the node-shared windows were made. */
static int push_info(MPI_File fh, MPI_Info info)
{
    return core_info_set(info, "rdmpi_cb_push", fh->cb_shbase ? "enable" : "disable") != 0
               ? CORE_ENOMEM
               : 0;
}

static int setup(MPI_File fh, const char *path, int amode, MPI_Info info, char *why,
                 size_t whylen)
{
    int rc = agree(fh, amode);
    if (rc) {
        snprintf(why, whylen, "amode %#x differs between ranks", amode);
        return rc;
    }
    io_hints_default(&fh->hints);
    if ((rc = core_info_create(&fh->info)) != 0)
        return rc;
    if ((rc = io_hints_parse(&fh->hints, info, fh->info)) != 0)
        return rc;
    if ((rc = share_hints(fh)) != 0)
        return rc;
    if ((rc = open_fd(fh, path, amode, why, whylen)) != 0)
        return rc;
    struct stat st;
    if (fstat(fh->fd, &st) != 0)
        return io_errno_code(errno, "fstat", path, why, whylen);
    /* st_blksize is what the file system wants writes aligned to; agree on rank 0's */
    long long bs = st.st_blksize > 0 ? st.st_blksize : 4096;
    if (PMPI_Bcast(&bs, 1, MPI_LONG_LONG, 0, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    fh->blksize = bs;
    /* local for every rank, or treated as shared; ranks on several nodes each see their
     * node's file there, which no aggregator of another node can reach */
    int loc = local_fs(fh->fd), all;
    if (PMPI_Allreduce(&loc, &all, 1, MPI_INT, MPI_MIN, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    fh->local = all;
    fh->cb_nodes_set = fh->hints.cb_nodes > 0;
    if ((rc = io_aggregators(fh)) != 0)
        return rc;
    fh->hints.cb_nodes = fh->naggr;
    if ((rc = io_hints_export(&fh->hints, fh->blksize, fh->info)) != 0)
        return rc;
    if ((rc = shfp_name(fh, path)) != 0)
        return rc;
    if ((rc = io_push_setup(fh)) != 0 || (rc = push_info(fh, fh->info)) != 0)
        return rc;
    if (amode & MPI_MODE_APPEND) {
        /* both pointers start at the end (the view is bytes from 0 until set_view) */
        fh->fp = st.st_size;
        if (fh->rank == 0)
            rc = io_shfp_set(fh, st.st_size);
        rc = worst(fh->comm, rc);
    }
    return rc;
}

int io_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, MPI_File *out, char *why,
            size_t whylen)
{
    MPI_File fh = core_handle_alloc(&core_handles.file, sizeof(*fh));
    if (!fh)
        return CORE_ENOMEM;
    fh->fd = -1;
    fh->shfp_fd = -1;
    fh->amode = amode;
    fh->etype = fh->ftype = MPI_BYTE;
    strcpy(fh->datarep, "native");
    int rc = CORE_ENOMEM;
    if (!(fh->path = strdup(path)))
        goto err_free;
    if (PMPI_Comm_dup(comm, &fh->comm) != MPI_SUCCESS) {
        rc = CORE_EINTERN;
        goto err_free;
    }
    PMPI_Comm_set_errhandler(fh->comm, MPI_ERRORS_RETURN);
    fh->rank = fh->comm->rank;
    fh->size = fh->comm->size;
    if ((rc = setup(fh, path, amode, info, why, whylen)) != 0)
        goto err_close;
    io_runtime_t *io = io_rt();
    fh->errh = io->file_null_errh ? io->file_null_errh : MPI_ERRORS_RETURN;
    core_errhandler_retain(fh->errh);
    *out = fh;
    return 0;

err_close:
    io_push_free(fh);   /* the steps after it agree on failure: every rank gets here */
    if (fh->fd >= 0)
        close(fh->fd);
    io_shfp_teardown(fh);
    free(fh->shfp_path);
    free(fh->aggr);
    if (fh->info)
        core_info_destroy(fh->info);
    PMPI_Comm_free(&fh->comm);
err_free:
    free(fh->path);
    core_handle_free(&core_handles.file, fh);
    return rc;
}

int io_close(MPI_File fh)
{
    io_drain(fh);
    io_push_free(fh);
    int rc = 0;
    if (close(fh->fd) != 0)
        rc = io_fail(fh, errno, "close");
    io_shfp_teardown(fh);
    /* everyone has closed before rank 0 removes anything */
    if (PMPI_Barrier(fh->comm) != MPI_SUCCESS && !rc)
        rc = CORE_EINTERN;
    if (fh->rank == 0) {
        unlink(fh->shfp_path);   /* absent when no shared-pointer call was made */
        if ((fh->amode & MPI_MODE_DELETE_ON_CLOSE) && unlink(fh->path) != 0 && !rc)
            rc = io_fail(fh, errno, "unlink");
    }
    io_forget(fh);
    io_twophase_free(fh);
    core_dt_release(fh->etype);
    core_dt_release(fh->ftype);
    core_errhandler_release(fh->errh);
    core_info_destroy(fh->info);
    PMPI_Comm_free(&fh->comm);
    free(fh->shfp_path);
    free(fh->aggr);
    free(fh->path);
    core_handle_free(&core_handles.file, fh);
    return rc;
}

int io_delete(const char *path, char *why, size_t whylen)
{
    if (unlink(path) != 0)
        return io_errno_code(errno, "unlink", path, why, whylen);
    return 0;
}

/* Rank 0 changes the size; all learn its result. prealloc: only grow, allocating blocks. */
int io_set_size(MPI_File fh, MPI_Offset size, int prealloc)
{
    io_drain(fh);
    int rc = agree(fh, size);
    if (rc) {
        snprintf(fh->last_error, sizeof(fh->last_error), "size %lld differs between ranks",
                 (long long)size);
        return rc;
    }
    if (fh->rank == 0) {
        struct stat st;
        if (fstat(fh->fd, &st) != 0)
            rc = io_fail(fh, errno, "fstat");
        else if (prealloc && size > st.st_size) {
            int e = posix_fallocate(fh->fd, 0, size);
            if (e == EOPNOTSUPP || e == EINVAL)   /* the file system cannot: extend it */
                e = ftruncate(fh->fd, size) != 0 ? errno : 0;
            if (e)
                rc = io_fail(fh, e, "posix_fallocate");
        } else if (!prealloc && ftruncate(fh->fd, size) != 0)
            rc = io_fail(fh, errno, "ftruncate");
    }
    if (PMPI_Bcast(&rc, 1, MPI_INT, 0, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    if (rc && fh->rank != 0)
        snprintf(fh->last_error, sizeof(fh->last_error), "resizing \"%s\" failed on rank 0",
                 fh->path);
    return rc;
}

int io_get_size(MPI_File fh, MPI_Offset *size)
{
    struct stat st;
    if (fstat(fh->fd, &st) != 0)
        return io_fail(fh, errno, "fstat");
    *size = st.st_size;
    return 0;
}

int io_set_info(MPI_File fh, MPI_Info info)
{
    io_drain(fh);
    io_hints_t h = fh->hints;
    MPI_Info used;
    int rc = core_info_create(&used);
    if (rc)
        return rc;
    int cb_nodes = h.cb_nodes;
    h.cb_nodes = 0;
    if ((rc = io_hints_parse(&h, info, used)) != 0)
        goto out;
    int given = h.cb_nodes > 0;
    if (!h.cb_nodes)
        h.cb_nodes = cb_nodes;
    fh->hints = h;
    fh->cb_nodes_set |= given;
    if ((rc = share_hints(fh)) != 0)
        goto out;
    int remake = fh->hints.cb_nodes != fh->naggr || io_tp_cbsize(fh) != fh->cb_shcb ||
                 fh->hints.cb_push == IO_DISABLE || fh->hints.cb_write == IO_DISABLE ||
                 !fh->cb_shbase;
    if (remake)
        io_push_free(fh);   /* made again below for the new aggregators and size */
    if (fh->hints.cb_nodes != fh->naggr && (rc = io_aggregators(fh)) != 0)
        goto out;
    fh->hints.cb_nodes = fh->naggr;
    if (remake && (rc = io_push_setup(fh)) != 0)
        goto out;
    if ((rc = io_hints_export(&fh->hints, fh->blksize, used)) != 0 ||
        (rc = push_info(fh, used)) != 0)
        goto out;
    core_info_destroy(fh->info);
    fh->info = used;
    return 0;
out:
    core_info_destroy(used);
    return rc;
}

int io_sync(MPI_File fh)
{
    io_drain(fh);
    int rc = 0;
    if (fsync(fh->fd) != 0 && errno != EINVAL && errno != EROFS)
        rc = io_fail(fh, errno, "fsync");
    /* sync is collective: what one rank wrote is on storage before any rank goes on */
    if (PMPI_Barrier(fh->comm) != MPI_SUCCESS && !rc)
        rc = CORE_EINTERN;
    return rc;
}

int io_set_atomicity(MPI_File fh, int flag)
{
    io_drain(fh);
    int rc = agree(fh, flag != 0);
    if (rc) {
        snprintf(fh->last_error, sizeof(fh->last_error), "flag differs between ranks");
        return rc;
    }
    fh->atomic = flag != 0;
    return 0;
}
