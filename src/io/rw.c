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
#include "io/io.h"

/* Whether the runs are sorted and apart (a read-only view may overlap itself). */
int io_pieces_sorted(const io_piece_t *p, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (p[i].off < p[i - 1].off + p[i - 1].len)
            return 0;
    return 1;
}

int io_access_indep(MPI_File fh, int write, const io_piece_t *p, size_t n, char *data,
                    MPI_Offset nbytes, MPI_Offset *bytes)
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
        rc = io_indep_write(fh, p, n, data, fh->atomic);
        *bytes = nbytes;
    } else {
        rc = io_indep_read(fh, p, n, data, bytes);
    }
    if (fh->atomic && n)
        urc = io_unlock(fh, lo, hi - lo);
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
    int contig = core_dt_is_contig(dt) || nbytes == 0;
    char *data = contig ? buf : malloc((size_t)nbytes);
    if (!contig && !data)
        return CORE_ENOMEM;
    if (write && !contig)
        core_dt_pack(data, buf, (size_t)count, dt);
    io_piece_t *p;
    size_t n;
    int rc = io_view_pieces(fh, pos * es, nbytes, &p, &n);
    if (!rc)
        rc = io_access_indep(fh, write, p, n, data, nbytes, bytes);
    free(p);
    if (!rc && !write && !contig)
        core_dt_unpack(buf, (size_t)count, dt, data, (size_t)*bytes);
    if (!contig)
        free(data);
    return rc;
}
