/*
 * What the generated Fortran glue (fortran_glue.c, from gen.py) is built on: the sentinels
 * Fortran passes for C's special pointers, statuses, strings (hidden lengths, blank padding),
 * LOGICALs, and descriptors of mpi_f08's TYPE(*), DIMENSION(..) buffers.
 *
 * Fortran handles are INTEGERs; MPI_X_f2c/c2f (fortran_handles.c) convert them. A Fortran
 * status is MPI_STATUS_SIZE INTEGERs with the C struct's layout, so status arrays are passed
 * through as they are; a single status is copied (a Fortran INTEGER array is only 4-byte
 * aligned).
 */
#ifndef RDMPI_FORTRAN_GLUE_H
#define RDMPI_FORTRAN_GLUE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ISO_Fortran_binding.h>

#include "mpi.h"
#include "api/attr.h"
#include "bindings/fortran/fhandle.h"

#define FG_API RDMPI_API
#define FG_STACK 16      /* handle arrays up to this length are converted on the stack */
#define FG_TRUE 1        /* gfortran's .TRUE. and .FALSE. */
#define FG_FALSE 0

/* The sentinels: common blocks of mpif.h, the mpi and mpi_f08 modules (fortran_handles.c). */
extern RDMPI_API MPI_Fint FH_SENTINEL_BOTTOM, FH_SENTINEL_IN_PLACE, FH_SENTINEL_ERRCODES_IGNORE[1],
    FH_SENTINEL_UNWEIGHTED[1], FH_SENTINEL_WEIGHTS_EMPTY[1];
extern RDMPI_API MPI_Fint FH_SENTINEL_STATUS_IGNORE[FH_STATUS_SIZE],
    FH_SENTINEL_STATUSES_IGNORE[FH_STATUS_SIZE];
extern RDMPI_API char FH_SENTINEL_ARGV_NULL[1], FH_SENTINEL_ARGVS_NULL[1];

/* mpi_f08's specific X_f08 of a call without a choice buffer (gen.py's f08_specific) is the
 * mpif.h entry under a second external name; it must be in the entry's file. */
#define FG_F08_ALIAS(entry, specific) \
    extern __typeof__(entry) specific __attribute__((alias(#entry), visibility("default")));

/*
 * gfortran's own descriptor, in which it passes a TYPE(*), DIMENSION(..) argument to a
 * procedure without BIND(C) (mpi_f08's X_f08ts specifics; gfortran 8 and newer: the modules
 * are gfortran's). dim[].stride counts span bytes; an assumed-size array's last upper bound
 * is lower - 2. fg_from_gfc makes it a C descriptor (ISO_Fortran_binding.h), which the rest
 * of the glue reads.
 */
typedef struct fg_gfc {
    void *base_addr;
    size_t offset;
    struct {
        size_t elem_len;
        int version;
        signed char rank, type;
        short attribute;
    } dtype;
    ptrdiff_t span;
    struct {
        ptrdiff_t stride, lower_bound, upper_bound;
    } dim[];
} fg_gfc_t;
typedef CFI_CDESC_T(CFI_MAX_RANK) fg_cdesc_t;
static inline CFI_cdesc_t *fg_from_gfc(const fg_gfc_t *g, fg_cdesc_t *c)
{
    CFI_cdesc_t *d = (CFI_cdesc_t *)(void *)c;
    d->base_addr = g->base_addr;
    d->elem_len = g->dtype.elem_len;
    d->version = CFI_VERSION;
    d->rank = (CFI_rank_t)g->dtype.rank;
    d->attribute = CFI_attribute_other;
    d->type = CFI_type_other;
    for (int i = 0; i < d->rank; i++) {
        d->dim[i].lower_bound = 0;
        d->dim[i].extent = g->dim[i].upper_bound - g->dim[i].lower_bound + 1;
        d->dim[i].sm = g->dim[i].stride * g->span;
    }
    return d;
}

/* Whether a gfortran descriptor is a scalar or a vector whose elements are adjacent. */
FH_INLINE_FN int fg_gfc_contiguous(const fg_gfc_t *g)
{
    /* a scalar or a vector with stride one, the common cases, without a loop or a call;
     * anything else takes the C descriptor's path (fg_contiguous there) */
    if (g->dtype.rank == 0)
        return 1;
    return g->dtype.rank == 1 && g->dim[0].stride * g->span == (ptrdiff_t)g->dtype.elem_len;
}

/* A choice buffer from mpif.h or `mpi`: MPI_BOTTOM and MPI_IN_PLACE become C's. */
FH_INLINE_FN void *fg_buf(void *p)
{
    if (p == (void *)&FH_SENTINEL_BOTTOM)
        return MPI_BOTTOM;
    if (p == (void *)&FH_SENTINEL_IN_PLACE)
        return MPI_IN_PLACE;
    return p;
}

/* Whether a descriptor's elements are adjacent in Fortran order (CFI_is_contiguous is
 * libgfortran's, which librdmpi does not link). */
static inline int fg_contiguous(const CFI_cdesc_t *d)
{
    CFI_index_t want = (CFI_index_t)d->elem_len;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent <= 0)
            return 1;   /* no elements */
        if (d->dim[i].extent > 1 && d->dim[i].sm != want)
            return 0;
        want *= d->dim[i].extent;
    }
    return 1;
}

/* An mpi_f08 buffer that must be simply contiguous (a window's or the attached buffer's
 * memory): its address; a strided section is refused with MPI_ERR_BUFFER. */
int fg_desc_slow(CFI_cdesc_t *d, void **addr, MPI_Fint *ierr);
static inline int fg_desc(CFI_cdesc_t *d, void **addr, MPI_Fint *ierr)
{
    if (d->rank == 0 || fg_contiguous(d)) {
        *addr = fg_buf(d->base_addr);
        return 0;
    }
    return fg_desc_slow(d, addr, ierr);
}

/*
 * A choice buffer with its count and datatype, as the call gets them: a strided mpi_f08 section
 * (a(2:8:2), a(i, :), ...) becomes its first element's address, count 1 and a derived
 * datatype that walks the section (fg_section), made before the call and freed after it (a
 * nonblocking operation keeps its own hold on the type). Otherwise count and type point at the
 * caller's.
 */
typedef struct fg_section {
    MPI_Fint *count, *type;   /* what the call gets */
    MPI_Fint one, ftype;
    MPI_Datatype made;        /* MPI_DATATYPE_NULL: none made */
} fg_section_t;
int fg_section(CFI_cdesc_t *d, void **addr, fg_section_t *s, MPI_Fint *ierr);
static inline int fg_desc_typed(CFI_cdesc_t *d, void **addr, MPI_Fint *count, MPI_Fint *type,
                                fg_section_t *s, MPI_Fint *ierr)
{
    s->count = count;
    s->type = type;
    s->made = MPI_DATATYPE_NULL;
    if (d->rank == 0 || fg_contiguous(d)) {
        *addr = fg_buf(d->base_addr);
        return 0;
    }
    return fg_section(d, addr, s, ierr);
}
static inline void fg_section_done(fg_section_t *s)
{
    if (s->made != MPI_DATATYPE_NULL)
        PMPI_Type_free(&s->made);
}

/*
 * The copy path: a strided mpi_f08 section that no datatype over it can stand for (a buffer
 * without its own count and datatype: MPI_Reduce's, MPI_Alltoallv's, MPI_Pack's outbuf, ...;
 * or a datatype that is not a run of whole array elements) is gathered into a contiguous
 * copy, which the call gets; a buffer the call may write (not const in C) is scattered back
 * when the operation is over: after a blocking call, when a nonblocking one completes (a hook
 * on its request), at each completion of a persistent one (which gathers again at each
 * start). This is what a compiler's copy-in/copy-out does, done where MPI-3.1 17.1.2 lets
 * only the library do it.
 */
#define FG_COPY_MAX 4   /* copied buffers of one call (gen.py checks; 2 so far) */
typedef struct fg_copy {
    char *base;                 /* the section's first element */
    char *tmp;                  /* the contiguous copy */
    size_t elem_len, bytes;
    int rank, out;
    CFI_index_t extent[CFI_MAX_RANK], sm[CFI_MAX_RANK];
} fg_copy_t;
typedef struct fg_copies {
    int n;
    fg_copy_t c[FG_COPY_MAX];
} fg_copies_t;
int fg_copy_slow(CFI_cdesc_t *d, void **addr, fg_copies_t *cs, int out, MPI_Fint *ierr);
static inline int fg_desc_copy(CFI_cdesc_t *d, void **addr, fg_copies_t *cs, int out,
                               MPI_Fint *ierr)
{
    if (d->rank == 0 || fg_contiguous(d)) {
        *addr = fg_buf(d->base_addr);
        return 0;
    }
    return fg_copy_slow(d, addr, cs, out, ierr);
}
/* After a blocking call: the written copies go back (rc: the call's code), all are freed. */
void fg_copies_end(fg_copies_t *cs, int rc);
/* After a call that made *request (rc: the call's code): the copies go to the request's hook,
 * which copies back at each completion (and gathers again at each start of a persistent
 * request) and frees them with the request; on failure they are freed here. */
void fg_copies_request(fg_copies_t *cs, const MPI_Fint *request, int rc);

FH_INLINE_FN MPI_Status *fg_status_in(MPI_Fint *f, MPI_Status *c)
{
    if (f == FH_SENTINEL_STATUS_IGNORE)
        return MPI_STATUS_IGNORE;
    memcpy(c, f, sizeof(*c));
    return c;
}

FH_INLINE_FN void fg_status_out(MPI_Fint *f, const MPI_Status *c)
{
    if (c)
        memcpy(f, c, sizeof(*c));
}

FH_INLINE_FN MPI_Status *fg_statuses(MPI_Fint *f)
{
    return f == FH_SENTINEL_STATUSES_IGNORE ? MPI_STATUSES_IGNORE : (MPI_Status *)(void *)f;
}

static inline int *fg_weights(MPI_Fint *f)
{
    if (f == FH_SENTINEL_UNWEIGHTED)
        return MPI_UNWEIGHTED;
    if (f == FH_SENTINEL_WEIGHTS_EMPTY)
        return MPI_WEIGHTS_EMPTY;
    return (int *)f;
}

/* LOGICAL results written by C as any nonzero int become .TRUE. */
static inline void fg_logicals(MPI_Fint *f, int n)
{
    for (int i = 0; i < n; i++)
        f[i] = f[i] ? FG_TRUE : FG_FALSE;
}

/* C's 0-based request indices become Fortran's 1-based ones. */
static inline void fg_indices(MPI_Fint *f, int n)
{
    for (int i = 0; i < n; i++)
        f[i]++;
}

/* A string argument: trailing blanks dropped, NUL added (NULL when out of memory). */
char *fg_str_in(const char *f, size_t len);
/* The same without leading blanks either (info keys and values). */
char *fg_str_in_trim(const char *f, size_t len);
/* Room for a C string result: at least len + 1 and maxlen + 1 bytes, and MPI_MAX_INFO_VAL + 1. */
char *fg_str_buf(size_t len, int maxlen);
/* Copies a C string result into a Fortran string of len characters, blank-padded. */
void fg_str_out(char *f, size_t len, const char *c);
/* The lengths of the type arrays of MPI_Alltoallw and the neighborhood alltoallw. */
int fg_comm_size(MPI_Comm comm);
int fg_neighbors(MPI_Comm comm, int out);

#endif
