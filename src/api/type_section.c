/*
 * A datatype over an array section (api_type_section): what count items of dt describe in an
 * array laid out contiguously, moved onto the section's elements wherever they are. A Fortran
 * array section a(1:n:2), b(i, :) is such a layout (bindings/fortran: mpi_f08 buffers); its
 * elements in array element order stand for the contiguous array MPI reads.
 */
#include <stdlib.h>
#include "api/api.h"

typedef struct runs {
    core_dt_block_t *r;
    size_t n, cap;
} runs_t;

static int run_add(runs_t *v, MPI_Aint off, size_t len)
{
    if (v->n && v->r[v->n - 1].off + (MPI_Aint)v->r[v->n - 1].len == off) {
        v->r[v->n - 1].len += len;   /* the section's elements touch here: one run */
        return 0;
    }
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        core_dt_block_t *r = realloc(v->r, cap * sizeof(*r));
        if (!r)
            return CORE_ENOMEM;
        v->r = r;
        v->cap = cap;
    }
    v->r[v->n++] = (core_dt_block_t){ off, len };
    return 0;
}

/* The byte offset of the section's element number e from its first. */
static MPI_Aint elem_at(const api_section_t *s, MPI_Aint e)
{
    MPI_Aint off = 0;
    for (int k = 0; k < s->rank; k++) {
        off += (e % s->extent[k]) * s->sm[k];
        e /= s->extent[k];
    }
    return off;
}

int api_type_section(MPI_Datatype dt, int count, const api_section_t *s, MPI_Datatype *out)
{
    API_ENTER;
    MPI_Aint nelem = 1;
    for (int k = 0; k < s->rank; k++)
        nelem *= s->extent[k];
    MPI_Aint total = nelem * (MPI_Aint)s->elem_len;
    MPI_Datatype all;
    if (!core_handle_valid(&core_handles.dt, dt) || !(dt->flags & CORE_DT_COMMITTED))
        return MPI_ERR_TYPE;   /* the call itself reports it */
    if (count < 0 || s->elem_len == 0 || core_dt_contiguous(count, dt, &all) != 0)
        return MPI_ERR_TYPE;
    runs_t v = { NULL, 0, 0 };
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < core_dt_nruns(all); k++) {
        core_dt_block_t b = core_dt_run(all, k);
        /* the data must lie in the section, as it would in a contiguous array of it */
        if (b.off < 0 || b.off + (MPI_Aint)b.len > total) {
            rc = CORE_EINVAL;
            break;
        }
        while (rc == 0 && b.len > 0) {
            MPI_Aint e = b.off / (MPI_Aint)s->elem_len, in = b.off % (MPI_Aint)s->elem_len;
            size_t piece = s->elem_len - (size_t)in;
            if (piece > b.len)
                piece = b.len;
            rc = run_add(&v, elem_at(s, e) + in, piece);
            b.off += (MPI_Aint)piece;
            b.len -= piece;
        }
    }
    if (rc == 0)
        rc = core_dt_remap(all, v.n, v.r, out);
    free(v.r);
    core_dt_release(all);
    return rc == 0 ? MPI_SUCCESS : rc == CORE_ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_BUFFER;
}
