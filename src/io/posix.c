/*
 * The POSIX back end: whole reads and writes (pread/pwrite loop over short
 * transfers and EINTR), byte-range locks, and independent access to a list
 * of file runs with data sieving.
 *
 * Data sieving: many small runs close together cost one system call each;
 * instead the span holding a group of them (at most ind_rd_buffer_size or
 * ind_wr_buffer_size bytes) is read in one call and the runs copied out, or
 * for a write read, patched and written back. A sieved write rewrites the
 * bytes between the runs, so it holds a write lock on the span meanwhile:
 * another rank's write to those bytes would otherwise be lost. Groups
 * without holes are written directly and need no lock. Locks are fcntl
 * byte-range locks, which NFS supports through its lock manager; a file
 * system without them gives MPI_ERR_IO naming the call, and
 * romio_ds_write=disable avoids them for non-atomic access.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "core/errors.h"
#include "io/io.h"

int io_pwrite_all(MPI_File fh, const void *data, size_t len, MPI_Offset off)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = pwrite(fh->fd, p, len, off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return io_fail(fh, errno, "pwrite");
        }
        p += w;
        off += w;
        len -= (size_t)w;
    }
    return 0;
}

int io_pread_all(MPI_File fh, void *data, size_t len, MPI_Offset off, size_t *got)
{
    char *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(fh->fd, p + done, len - done, off + (MPI_Offset)done);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return io_fail(fh, errno, "pread");
        }
        if (r == 0)
            break;   /* end of file */
        done += (size_t)r;
    }
    *got = done;
    return 0;
}

/* Entries per pwritev/preadv: Linux's IOV_MAX (which the headers show only with
 * _XOPEN_SOURCE) */
enum { IOV_BATCH = 1024 };

/* Advances the vector past done bytes (a short transfer); returns the new first entry. */
static struct iovec *iov_skip(struct iovec *iov, int *cnt, size_t done)
{
    while (*cnt > 0 && done >= iov->iov_len) {
        done -= iov->iov_len;
        iov++;
        (*cnt)--;
    }
    if (*cnt > 0) {
        iov->iov_base = (char *)iov->iov_base + done;
        iov->iov_len -= done;
    }
    return iov;
}

int io_pwritev_all(MPI_File fh, struct iovec *iov, int cnt, MPI_Offset off)
{
    while (cnt > 0) {
        ssize_t w = pwritev(fh->fd, iov, cnt > IOV_BATCH ? IOV_BATCH : cnt, off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return io_fail(fh, errno, "pwritev");
        }
        off += w;
        iov = iov_skip(iov, &cnt, (size_t)w);
    }
    return 0;
}

int io_preadv_all(MPI_File fh, struct iovec *iov, int cnt, MPI_Offset off, size_t *got)
{
    size_t done = 0;
    while (cnt > 0) {
        ssize_t r = preadv(fh->fd, iov, cnt > IOV_BATCH ? IOV_BATCH : cnt, off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return io_fail(fh, errno, "preadv");
        }
        if (r == 0)
            break;   /* end of file */
        off += r;
        done += (size_t)r;
        iov = iov_skip(iov, &cnt, (size_t)r);
    }
    *got = done;
    return 0;
}

static int set_lock(MPI_File fh, short type, MPI_Offset off, MPI_Offset len)
{
    struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = off, .l_len = len };
    while (fcntl(fh->fd, F_SETLKW, &fl) != 0) {
        if (errno == EINTR)
            continue;
        int e = errno;
        io_fail(fh, e, "fcntl(F_SETLKW)");
        size_t l = strlen(fh->last_error);
        snprintf(fh->last_error + l, sizeof(fh->last_error) - l,
                 " (byte-range locks are needed for atomic mode and sieved writes; on NFS "
                 "the lock manager must run)");
        return CORE_EFILEIO;
    }
    return 0;
}

int io_lock(MPI_File fh, int write, MPI_Offset off, MPI_Offset len)
{
    /* a read lock needs read access to the file, a write lock write access */
    return set_lock(fh, write ? F_WRLCK : F_RDLCK, off, len);
}

int io_unlock(MPI_File fh, MPI_Offset off, MPI_Offset len)
{
    return set_lock(fh, F_UNLCK, off, len);
}

int io_can_read(MPI_File fh)
{
    int fl = fcntl(fh->fd, F_GETFL);
    return fl >= 0 && (fl & O_ACCMODE) != O_WRONLY;
}

/* The runs p[i..*j) that fit in a window of w bytes from p[i].off; their span. */
static MPI_Offset group(const io_piece_t *p, size_t n, size_t i, MPI_Offset w, size_t *j)
{
    MPI_Offset lo = p[i].off, hi = p[i].off + p[i].len;
    size_t k = i + 1;
    while (k < n && p[k].off >= lo && p[k].off + p[k].len - lo <= w) {
        if (p[k].off + p[k].len > hi)
            hi = p[k].off + p[k].len;
        k++;
    }
    *j = k;
    return hi - lo;
}

/* Writes p[i..j) (span bytes from p[i].off) through buf: read, patch, write back. */
static int sieve_write(MPI_File fh, const io_piece_t *p, size_t i, size_t j, MPI_Offset span,
                       const char *data, char *buf, int locked)
{
    MPI_Offset lo = p[i].off, covered = 0;
    for (size_t k = i; k < j; k++)
        covered += p[k].len;
    int holes = covered != span;
    int rc = 0;
    if (holes && !locked && (rc = io_lock(fh, 1, lo, span)) != 0)
        return rc;
    if (holes) {
        size_t got;
        if ((rc = io_pread_all(fh, buf, (size_t)span, lo, &got)) != 0)
            goto out;
        memset(buf + got, 0, (size_t)span - got);
    }
    for (size_t k = i; k < j; k++) {
        memcpy(buf + (p[k].off - lo), data, (size_t)p[k].len);
        data += p[k].len;
    }
    rc = io_pwrite_all(fh, buf, (size_t)span, lo);
out:
    if (holes && !locked) {
        int urc = io_unlock(fh, lo, span);
        if (!rc)
            rc = urc;
    }
    return rc;
}

int io_indep_write(MPI_File fh, const io_piece_t *p, size_t n, const char *data, int locked,
                   int sieve)
{
    MPI_Offset w = fh->hints.ind_wr_buffer_size;
    int ds = sieve && n > 1 && fh->hints.ds_write != IO_DISABLE && io_can_read(fh);
    char *buf = NULL;
    int rc = 0;
    for (size_t i = 0; i < n && !rc;) {
        size_t j = i + 1;
        MPI_Offset span = ds ? group(p, n, i, w, &j) : p[i].len;
        if (j - i == 1) {
            rc = io_pwrite_all(fh, data, (size_t)p[i].len, p[i].off);
            data += p[i].len;
            i = j;
            continue;
        }
        if (!buf && !(buf = malloc((size_t)w))) {
            rc = CORE_ENOMEM;
            break;
        }
        rc = sieve_write(fh, p, i, j, span, data, buf, locked);
        for (size_t k = i; k < j; k++)
            data += p[k].len;
        i = j;
    }
    free(buf);
    return rc;
}

/* Bytes of the access before the end of the file eof (a read stops there). */
MPI_Offset io_bytes_before(const io_piece_t *p, size_t n, MPI_Offset eof)
{
    MPI_Offset b = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i].off >= eof)
            break;
        MPI_Offset in = eof - p[i].off;
        if (in < p[i].len)
            return b + in;
        b += p[i].len;
    }
    return b;
}

int io_indep_read(MPI_File fh, const io_piece_t *p, size_t n, char *data, MPI_Offset *bytes,
                  int sieve)
{
    if (n == 1) {
        size_t got;
        int rc = io_pread_all(fh, data, (size_t)p[0].len, p[0].off, &got);
        *bytes = (MPI_Offset)got;
        return rc;
    }
    MPI_Offset w = fh->hints.ind_rd_buffer_size;
    int ds = sieve && fh->hints.ds_read != IO_DISABLE;
    char *buf = NULL;
    int rc = 0;
    char *d = data;
    for (size_t i = 0; i < n && !rc;) {
        size_t j = i + 1, got;
        MPI_Offset span = ds ? group(p, n, i, w, &j) : p[i].len;
        if (j - i == 1) {
            rc = io_pread_all(fh, d, (size_t)p[i].len, p[i].off, &got);
            d += p[i].len;
            i = j;
            continue;
        }
        if (!buf && !(buf = malloc((size_t)w))) {
            rc = CORE_ENOMEM;
            break;
        }
        if ((rc = io_pread_all(fh, buf, (size_t)span, p[i].off, &got)) != 0)
            break;
        memset(buf + got, 0, (size_t)span - got);
        for (size_t k = i; k < j; k++) {
            memcpy(d, buf + (p[k].off - p[i].off), (size_t)p[k].len);
            d += p[k].len;
        }
        i = j;
    }
    free(buf);
    if (rc)
        return rc;
    struct stat st;
    if (fstat(fh->fd, &st) != 0)
        return io_fail(fh, errno, "fstat");
    *bytes = io_bytes_before(p, n, st.st_size);
    return 0;
}
