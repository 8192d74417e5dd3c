/*
 * Parts of an access's stream taken straight from (or put straight into)
 * the user's buffer, for a non-contiguous memory type.
 *
 * The stream is the access's items packed (what the file runs hold, in
 * order). Packing all of it before the access would hold the data twice; a
 * collective access moves one cb_buffer_size round at a time and an
 * independent one a chunk at a time, so each packs (or unpacks) only the
 * stream bytes it moves then. A cursor remembers where the last copy
 * ended: consecutive ranges (the usual order) continue without a search.
 */
#include <string.h>
#include "core/datatype.h"
#include "io/io.h"

void io_cursor_init(io_cursor_t *c, void *buf, size_t count, MPI_Datatype dt)
{
    *c = (io_cursor_t){ .buf = buf, .count = count, .dt = dt, .pos = 0 };
}

/* Places the cursor at stream byte off (< count * size): whole items and tiles by
 * arithmetic, the block within a tile by a walk over its blocks. */
static void seek(io_cursor_t *c, MPI_Offset off)
{
    MPI_Datatype dt = c->dt;
    size_t size = dt->size, ntile = core_dt_ntile(dt), tsz = size / ntile;
    size_t rem = (size_t)(off % (MPI_Offset)size);
    c->item = (size_t)(off / (MPI_Offset)size);
    c->tile = rem / tsz;
    rem %= tsz;
    size_t b = 0;
    while (rem >= dt->blocks[b].len) {
        rem -= dt->blocks[b].len;
        b++;
    }
    c->blk = b;
    c->in = rem;
    c->pos = off;
}

static void copy(io_cursor_t *c, char *p, MPI_Offset off, size_t len, int out)
{
    MPI_Datatype dt = c->dt;
    if (len == 0)
        return;
    if (core_dt_is_contig(dt)) {
        char *m = (char *)c->buf + off;
        memcpy(out ? m : p, out ? p : m, len);
        return;
    }
    if (off != c->pos || c->blk >= dt->nblocks)
        seek(c, off);
    size_t ntile = core_dt_ntile(dt);
    while (len) {
        const core_dt_block_t *b = &dt->blocks[c->blk];
        char *m = (char *)c->buf + (MPI_Aint)c->item * dt->extent +
                  (MPI_Aint)c->tile * dt->tile_stride + b->off + (MPI_Aint)c->in;
        size_t n = b->len - c->in;
        if (n > len)
            n = len;
        memcpy(out ? m : p, out ? p : m, n);
        p += n;
        len -= n;
        c->in += n;
        c->pos += (MPI_Offset)n;
        if (c->in == b->len) {
            c->in = 0;
            if (++c->blk == dt->nblocks) {
                c->blk = 0;
                if (++c->tile == ntile) {
                    c->tile = 0;
                    c->item++;
                }
            }
        }
    }
}

void io_cursor_pack(io_cursor_t *c, char *dst, MPI_Offset off, size_t len)
{
    copy(c, dst, off, len, 0);
}

void io_cursor_unpack(io_cursor_t *c, const char *src, MPI_Offset off, size_t len)
{
    copy(c, (char *)src, off, len, 1);
}
