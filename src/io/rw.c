/*
 * One data access, whatever the call: the user's items become one
 * contiguous stream (the buffer itself when the memory type is contiguous,
 * else a packed copy), the view turns the stream's position into file runs,
 * and the runs go to the independent path (posix.c); collective calls go to
 * icoll.c, which uses collective buffering (twophase.c) where it pays.
 *
 * Atomic mode (MPI_File_set_atomicity): each access holds an fcntl lock on
 * the span of its runs, shared for reads and exclusive for writes, so
 * concurrent accesses to overlapping bytes see each other whole or not at
 * all. Collective calls then take the independent path under the lock (an
 * aggregator writing for many ranks could not keep them apart).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/datatype.h"
#include "core/errors.h"
#include "core/external32.h"
#include "io/io.h"

int io_x32_check(MPI_File fh, MPI_Datatype dt, const char *what)
{
    /* the view maps stream bytes to file bytes with native sizes, so a type whose elements
     * change size in external32 (MPI_LONG, MPI_UNSIGNED_LONG, MPI_WCHAR: all smaller, so
     * the total tells) would need the whole view re-laid-out: refused instead */
    size_t x;
    int rc = core_x32_size(dt, 1, &x);
    if (rc == 0 && x == dt->size)
        return 0;
    snprintf(fh->last_error, sizeof(fh->last_error),
             "the %s holds elements whose external32 size differs from their native size "
             "(MPI_LONG, MPI_UNSIGNED_LONG, MPI_WCHAR) or that external32 cannot describe: "
             "rdmpi's external32 views convert only same-size elements",
             what);
    return CORE_EDATAREP;
}

int io_stream_pack(MPI_File fh, char *data, const void *buf, int count, MPI_Datatype dt)
{
    if (!fh->x32) {
        core_dt_pack(data, buf, (size_t)count, dt);
        return 0;
    }
    char *tmp = malloc(dt->size * (size_t)count);
    if (!tmp)
        return CORE_ENOMEM;
    core_dt_pack(tmp, buf, (size_t)count, dt);
    int rc = core_x32_encode(dt, (size_t)count, tmp, data);
    free(tmp);
    return rc;
}

int io_stream_unpack(MPI_File fh, void *buf, int count, MPI_Datatype dt, char *data,
                     MPI_Offset got)
{
    if (!fh->x32) {
        core_dt_unpack(buf, (size_t)count, dt, data, (size_t)got);
        return 0;
    }
    size_t all = dt->size * (size_t)count;
    char *tmp = malloc(all ? all : 1);
    if (!tmp)
        return CORE_ENOMEM;
    memset(data + got, 0, all - (size_t)got);   /* past the end of the file */
    int rc = core_x32_decode(dt, (size_t)count, data, tmp);
    if (!rc)
        core_dt_unpack(buf, (size_t)count, dt, tmp, (size_t)got);
    free(tmp);
    return rc;
}

/* Whether the runs are sorted and apart (a read-only view may overlap itself). */
int io_pieces_sorted(const io_piece_t *p, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (p[i].off < p[i - 1].off + p[i - 1].len)
            return 0;
    return 1;
}

int io_access_indep(MPI_File fh, int write, int sieve, const io_piece_t *p, size_t n,
                    char *data, MPI_Offset nbytes, MPI_Offset *bytes)
{
    int rc, urc = 0;
    MPI_Offset lo = n ? p[0].off : 0, hi = lo;
    for (size_t i = 0; i < n; i++) {
        if (p[i].off < lo)
            lo = p[i].off;
        if (p[i].off + p[i].len > hi)
            hi = p[i].off + p[i].len;
    }
    if (fh->atomic && n && (rc = io_lock(fh, write, lo, hi - lo)) != 0)
        return rc;
    if (write) {
        rc = io_indep_write(fh, p, n, data, fh->atomic, sieve);
        *bytes = nbytes;
    } else {
        rc = io_indep_read(fh, p, n, data, bytes, sieve);
    }
    if (fh->atomic && n)
        urc = io_unlock(fh, lo, hi - lo);
    return rc ? rc : urc;
}

/* The part of the stream an independent access with a non-contiguous memory type packs at
 * a time: large enough that the system calls per chunk cost little beside the copy, small
 * enough that the temporary stays a few MiB whatever the access's size. */
enum { IO_CHUNK = 4 << 20 };

int io_access_indep_mem(MPI_File fh, int write, int sieve, io_piece_t *p, size_t n,
                        io_cursor_t *c, MPI_Offset nbytes, MPI_Offset *bytes)
{
    *bytes = 0;
    if (n == 0 || nbytes == 0)
        return 0;
    MPI_Offset csz = nbytes < IO_CHUNK ? nbytes : IO_CHUNK;
    char *chunk = malloc((size_t)csz);
    if (!chunk)
        return CORE_ENOMEM;
    int rc = 0, urc = 0;
    MPI_Offset lo = p[0].off, hi = lo;
    for (size_t i = 0; i < n; i++) {
        if (p[i].off < lo)
            lo = p[i].off;
        if (p[i].off + p[i].len > hi)
            hi = p[i].off + p[i].len;
    }
    /* atomic mode: one lock over the whole access, not one per chunk */
    if (fh->atomic && (rc = io_lock(fh, write, lo, hi - lo)) != 0) {
        free(chunk);
        return rc;
    }
    size_t i = 0;
    MPI_Offset ioff = 0;   /* the stream offset of run i */
    for (MPI_Offset cs = 0; cs < nbytes && !rc; cs += csz) {
        MPI_Offset ce = cs + csz < nbytes ? cs + csz : nbytes;
        while (i < n && ioff + p[i].len <= cs) {
            ioff += p[i].len;
            i++;
        }
        size_t k = i;
        MPI_Offset koff = ioff;
        while (k < n && koff < ce) {
            koff += p[k].len;
            k++;
        }
        /* the runs [i, k) cut to the chunk's bytes in place (and put back after) */
        io_piece_t first = p[i], last = p[k - 1];
        p[i].off += cs - ioff;
        p[i].len -= cs - ioff;
        p[k - 1].len -= koff - ce;
        if (write) {
            io_cursor_pack(c, chunk, cs, (size_t)(ce - cs));
            rc = io_indep_write(fh, p + i, k - i, chunk, fh->atomic, sieve);
        } else {
            MPI_Offset got = 0;
            rc = io_indep_read(fh, p + i, k - i, chunk, &got, sieve);
            if (!rc) {
                io_cursor_unpack(c, chunk, cs, (size_t)got);
                *bytes += got;
            }
            if (!rc && got < ce - cs)
                ce = nbytes;   /* the end of the file: a read stops there */
        }
        p[i] = first;
        p[k - 1] = last;
        if (ce == nbytes)
            break;
    }
    if (fh->atomic)
        urc = io_unlock(fh, lo, hi - lo);
    free(chunk);
    if (write && !rc)
        *bytes = nbytes;
    return rc ? rc : urc;
}

int io_access(MPI_File fh, int write, int coll, MPI_Offset pos, void *buf, int count,
              MPI_Datatype dt, MPI_Offset *bytes)
{
    if (coll)
        return io_coll_access(fh, write, pos, buf, count, dt, bytes);
    MPI_Offset nbytes = (MPI_Offset)count * (MPI_Offset)dt->size;
    MPI_Offset es = (MPI_Offset)fh->etype->size;
    *bytes = 0;
    if (nbytes % es != 0) {
        snprintf(fh->last_error, sizeof(fh->last_error),
                 "%lld bytes are not a whole number of etypes (%lld bytes each)",
                 (long long)nbytes, (long long)es);
        return CORE_ETYPE;
    }
    if (fh->x32 && nbytes > 0) {
        int rc = io_x32_check(fh, dt, "memory datatype");
        if (rc)
            return rc;
    }
    /* an external32 view converts a copy: the user's buffer stays as it is; a native
     * non-contiguous type goes through the buffer a chunk at a time */
    int contig = (core_dt_is_contig(dt) && !fh->x32) || nbytes == 0;
    io_piece_t *p = NULL;
    size_t n;
    if (!contig && !fh->x32) {
        int rc = io_view_pieces(fh, pos * es, nbytes, &p, &n);
        if (!rc) {
            io_cursor_t c;
            io_cursor_init(&c, buf, (size_t)count, dt);
            rc = io_access_indep_mem(fh, write, 1, p, n, &c, nbytes, bytes);
        }
        free(p);
        return rc;
    }
    char *data = contig ? buf : malloc((size_t)nbytes);
    if (!contig && !data)
        return CORE_ENOMEM;
    int rc = 0;
    if (write && !contig)
        rc = io_stream_pack(fh, data, buf, count, dt);
    if (!rc)
        rc = io_view_pieces(fh, pos * es, nbytes, &p, &n);
    if (!rc)
        rc = io_access_indep(fh, write, 1, p, n, data, nbytes, bytes);
    free(p);
    if (!rc && !write && !contig)
        rc = io_stream_unpack(fh, buf, count, dt, data, *bytes);
    if (!contig)
        free(data);
    return rc;
}
