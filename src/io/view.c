/*
 * File views: which bytes of the file a rank sees. A view is a
 * displacement, an elementary type and a filetype tiled from the
 * displacement; the data a rank reads or writes fills the filetype's blocks
 * one after another. The datatype engine already keeps every type flattened
 * into its byte runs (core_dt_block_t, in type-map order), whatever
 * constructor made it (vector, indexed, struct, subarray, darray, resized),
 * so mapping view bytes to file bytes needs nothing but those runs and the
 * extent: view byte v lies in tile v / size, at data byte v % size of it.
 *
 * MPI requires a filetype's displacements to be non-negative and
 * nondecreasing, so the runs of an access come out sorted by file offset;
 * io_set_view checks this, since the independent and collective paths rely on
 * it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "core/datatype.h"
#include "core/errors.h"
#include "io/io.h"

/* A type of a view (etype or filetype) must have non-negative, nondecreasing
 * displacements, and no overlapping regions unless the file is read-only
 * (MPI-4.1 14.3). The error class is MPI_ERR_IO, as ROMIO gives and MPICH's
 * tests expect. */
static int check_shape(MPI_File fh, MPI_Datatype t, const char *what)
{
    int ro = (fh->amode & MPI_MODE_RDONLY) != 0;
    MPI_Offset end = 0, prev = 0;
    for (size_t i = 0; i < t->nblocks; i++) {
        const core_dt_block_t *b = &t->blocks[i];
        if (b->len == 0)
            continue;
        if (b->off < (ro ? prev : end) || b->off < 0) {
            snprintf(fh->last_error, sizeof(fh->last_error),
                     "the %s's displacements are negative, decrease or overlap (block %zu at "
                     "byte %ld)",
                     what, i, (long)b->off);
            return CORE_EFILEIO;
        }
        prev = b->off;
        if (b->off + (MPI_Offset)b->len > end)
            end = b->off + (MPI_Offset)b->len;
    }
    if (!ro && t->size && end - t->blocks[0].off > t->extent) {
        snprintf(fh->last_error, sizeof(fh->last_error),
                 "the %s's tiles overlap (its data spans %lld bytes, its extent is %ld)", what,
                 (long long)(end - t->blocks[0].off), (long)t->extent);
        return CORE_EFILEIO;
    }
    return 0;
}

static int check_filetype(MPI_File fh, MPI_Datatype et, MPI_Datatype ft)
{
    if (et->size == 0 || ft->size % et->size != 0) {
        snprintf(fh->last_error, sizeof(fh->last_error),
                 "the filetype's size (%zu) is not a multiple of the etype's (%zu)", ft->size,
                 et->size);
        return CORE_ETYPE;
    }
    int rc = check_shape(fh, et, "etype");
    return rc ? rc : check_shape(fh, ft, "filetype");
}

int io_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype et, MPI_Datatype ft,
                const char *datarep)
{
    io_drain(fh);
    MPI_Datarep_extent_function *ext;
    void *extra;
    int rc = io_datarep_check(datarep, &ext, &extra);
    if (rc) {
        snprintf(fh->last_error, sizeof(fh->last_error),
                 "data representation \"%s\" is not supported (rdmpi has native, internal "
                 "and registered ones without conversion functions)",
                 datarep);
        return rc;
    }
    if ((rc = check_filetype(fh, et, ft)) != 0)
        return rc;
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        /* only in MPI_MODE_SEQUENTIAL (checked above): the shared pointer's byte */
        MPI_Offset sp = 0;
        if (fh->rank == 0)
            rc = io_shfp_fetch_add(fh, 0, &sp);
        MPI_Offset v[2] = { rc, io_view_byte(fh, sp) };
        if (PMPI_Bcast(v, 2, MPI_LONG_LONG, 0, fh->comm) != MPI_SUCCESS)
            return CORE_EINTERN;
        if (v[0])
            return (int)v[0];
        disp = v[1];
    }
    core_dt_retain(et);
    core_dt_retain(ft);
    core_dt_release(fh->etype);
    core_dt_release(fh->ftype);
    fh->etype = et;
    fh->ftype = ft;
    fh->disp = disp;
    strcpy(fh->datarep, datarep);
    fh->fp = 0;
    /* the shared pointer goes back to 0 too, before anyone uses it again */
    rc = 0;
    if (fh->rank == 0)
        rc = io_shfp_set(fh, 0);
    if (PMPI_Bcast(&rc, 1, MPI_INT, 0, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    return rc;
}

/* Where view byte v is: tile *k, block *b, *within bytes into it. */
static void locate(MPI_Datatype ft, MPI_Offset v, MPI_Offset *k, size_t *b, MPI_Offset *within)
{
    MPI_Offset size = (MPI_Offset)ft->size;
    *k = v / size;
    MPI_Offset r = v % size;
    size_t i = 0;
    while (r >= (MPI_Offset)ft->blocks[i].len) {
        r -= (MPI_Offset)ft->blocks[i].len;
        i++;
    }
    *b = i;
    *within = r;
}

MPI_Offset io_view_byte(MPI_File fh, MPI_Offset pos)
{
    MPI_Datatype ft = fh->ftype;
    MPI_Offset v = pos * (MPI_Offset)fh->etype->size;
    if (ft->size == 0)
        return fh->disp;
    MPI_Offset k, within;
    size_t b;
    locate(ft, v, &k, &b, &within);
    return fh->disp + k * ft->extent + ft->blocks[b].off + within;
}

int io_view_pieces(MPI_File fh, MPI_Offset vbyte, MPI_Offset nbytes, io_piece_t **pieces,
                   size_t *n)
{
    MPI_Datatype ft = fh->ftype;
    *pieces = NULL;
    *n = 0;
    if (nbytes == 0)
        return 0;
    if (ft->size == 0) {
        snprintf(fh->last_error, sizeof(fh->last_error),
                 "the view's filetype holds no data, so no data can be accessed");
        return CORE_ETYPE;
    }
    size_t cap = 16, cnt = 0;
    io_piece_t *p = malloc(cap * sizeof(*p));
    if (!p)
        return CORE_ENOMEM;
    if (core_dt_is_contig(ft)) {
        /* tiles follow each other without gaps (MPI_BYTE, the default view): one run,
         * not one step per tile */
        p[0].off = fh->disp + ft->blocks[0].off + vbyte;
        p[0].len = nbytes;
        *pieces = p;
        *n = 1;
        return 0;
    }
    MPI_Offset k, within;
    size_t b;
    locate(ft, vbyte, &k, &b, &within);
    while (nbytes > 0) {
        const core_dt_block_t *blk = &ft->blocks[b];
        MPI_Offset len = (MPI_Offset)blk->len - within;
        if (len > nbytes)
            len = nbytes;
        MPI_Offset off = fh->disp + k * ft->extent + blk->off + within;
        if (len > 0) {
            if (cnt && p[cnt - 1].off + p[cnt - 1].len == off) {
                p[cnt - 1].len += len;
            } else {
                if (cnt == cap) {
                    io_piece_t *q = realloc(p, 2 * cap * sizeof(*p));
                    if (!q) {
                        free(p);
                        return CORE_ENOMEM;
                    }
                    p = q;
                    cap *= 2;
                }
                p[cnt].off = off;
                p[cnt].len = len;
                cnt++;
            }
            nbytes -= len;
        }
        within = 0;
        if (++b == ft->nblocks) {
            b = 0;
            k++;
        }
    }
    *pieces = p;
    *n = cnt;
    return 0;
}

MPI_Offset io_view_pos_of_byte(MPI_File fh, MPI_Offset off)
{
    MPI_Datatype ft = fh->ftype;
    MPI_Offset es = (MPI_Offset)fh->etype->size;
    if (off <= fh->disp || ft->size == 0)
        return 0;
    MPI_Offset rel = off - fh->disp;
    MPI_Offset k = rel / ft->extent, r = rel % ft->extent;
    MPI_Offset bytes = k * (MPI_Offset)ft->size;
    for (size_t i = 0; i < ft->nblocks; i++) {
        MPI_Offset in = r - ft->blocks[i].off;
        if (in <= 0)
            break;
        bytes += in < (MPI_Offset)ft->blocks[i].len ? in : (MPI_Offset)ft->blocks[i].len;
    }
    return (bytes + es - 1) / es;
}

int io_view_end(MPI_File fh, MPI_Offset *pos)
{
    MPI_Offset size;
    int rc = io_get_size(fh, &size);
    if (rc)
        return rc;
    *pos = io_view_pos_of_byte(fh, size);
    return 0;
}

int io_type_extent(MPI_File fh, MPI_Datatype dt, MPI_Aint *extent)
{
    MPI_Datarep_extent_function *ext;
    void *extra;
    if (io_datarep_check(fh->datarep, &ext, &extra) == 0 && ext &&
        (dt->flags & CORE_DT_PREDEFINED)) {
        if (ext(dt, extent, extra) != MPI_SUCCESS)
            return CORE_EOTHER;
        return 0;
    }
    *extent = dt->extent;
    return 0;
}
