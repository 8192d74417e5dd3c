/*
 * Fortran's side of the C interface: MPI_X_c2f/f2c for every handle kind, the status
 * conversions, MPI_Type_create_f90_*, the sentinel common blocks, and the helpers of the
 * generated glue (glue.h). Built into librdmpi whether or not a Fortran compiler was found:
 * the conversions are C functions that mixed-language programs call.
 *
 * A Fortran handle is an INTEGER:
 *   0 .. npredef-1   the predefined handles, in gen.py's PREDEFINED order (NULL is 0); these
 *                    values are compiled into Fortran programs through mpif.h and the modules
 *   FH_DYN + n       the object in slot n of its kind's handle pool (core_handle_index), a
 *                    number that stays the same for the object's life, so converting back and
 *                    forth costs a slab lookup and no table; a freed object's number names the
 *                    dead slot, which the C call's handle check reports as it would the pointer
 *   anything else    an invalid handle: f2c gives a pointer no pool knows, so the call fails
 *                    with the kind's error class (MPI_ERR_COMM, ...)
 * Windows, files and sessions have no pool yet: their numbers come from a registry (the
 * position of an object's first conversion), never reused.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "bindings/fortran/fhandle.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is C's int");
_Static_assert(sizeof(MPI_Status) == FH_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_STATUS_SIZE in gen.py must be sizeof(MPI_Status) / sizeof(MPI_Fint)");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "TYPE(MPI_Status) is MPI_Status");

/* The common blocks of mpif.h and the modules: Fortran passes their addresses for MPI_BOTTOM,
 * MPI_IN_PLACE, ... (a program's own copy of a common block takes the place of these by
 * symbol interposition, so the library compares against the one the program uses). Aligned
 * as gfortran aligns common blocks. */
#define FH_COMMON __attribute__((aligned(16))) RDMPI_API
FH_COMMON MPI_Fint FH_SENTINEL_BOTTOM, FH_SENTINEL_IN_PLACE, FH_SENTINEL_ERRCODES_IGNORE[1],
    FH_SENTINEL_UNWEIGHTED[1], FH_SENTINEL_WEIGHTS_EMPTY[1];
FH_COMMON MPI_Fint FH_SENTINEL_STATUS_IGNORE[FH_STATUS_SIZE],
    FH_SENTINEL_STATUSES_IGNORE[FH_STATUS_SIZE];
FH_COMMON char FH_SENTINEL_ARGV_NULL[1], FH_SENTINEL_ARGVS_NULL[1];

const char fh_invalid;

#define FH_KIND(T, N, POOL, TABLE, NPRE)                                                     \
    const void *const fh_pre_##N[NPRE] = TABLE;                                              \
    MPI_Fint PMPI_##N##_c2f(T h)                                                             \
    {                                                                                        \
        API_ENTER;                                                                           \
        return fh_to_f(POOL, h, fh_pre_##N, NPRE);                                           \
    }                                                                                        \
    MPI_Fint MPI_##N##_c2f(T h) API_ALIAS(MPI_##N##_c2f);                                    \
    T PMPI_##N##_f2c(MPI_Fint f)                                                             \
    {                                                                                        \
        API_ENTER;                                                                           \
        return (T)fh_to_c(POOL, f, fh_pre_##N, NPRE);                                        \
    }                                                                                        \
    T MPI_##N##_f2c(MPI_Fint f) API_ALIAS(MPI_##N##_f2c);

FH_KINDS(FH_KIND)

/* The registries of the kinds without a pool, one per predefined table (which names the
 * kind). Process-wide like the pools: handles outlive any one MPI_Init. */
static struct fh_registry {
    const void *const *kind;
    const void **objs;
    long n, cap;
} fh_registries[3];

static struct fh_registry *registry(const void *const *pre)
{
    for (size_t i = 0; i < sizeof(fh_registries) / sizeof(fh_registries[0]); i++) {
        if (fh_registries[i].kind == pre || !fh_registries[i].kind) {
            fh_registries[i].kind = pre;
            return &fh_registries[i];
        }
    }
    return NULL;
}

long fh_registry_index(const void *const *pre, const void *h)
{
    struct fh_registry *r = registry(pre);
    if (!r)
        return -1;
    for (long i = 0; i < r->n; i++)
        if (r->objs[i] == h)
            return i;
    if (r->n == r->cap) {
        long cap = r->cap ? 2 * r->cap : 16;
        const void **objs = realloc(r->objs, (size_t)cap * sizeof(*objs));
        if (!objs)
            return -1;
        r->objs = objs;
        r->cap = cap;
    }
    r->objs[r->n] = h;
    return r->n++;
}

void *fh_registry_at(const void *const *pre, long n)
{
    struct fh_registry *r = registry(pre);
    return r && n >= 0 && n < r->n ? (void *)r->objs[n] : NULL;
}

/* ---- statuses ---------------------------------------------------------------------------- */
int PMPI_Status_c2f(const MPI_Status *c, MPI_Fint *f)
{
    if (!c || !f)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Status_c2f", "a status is NULL");
    memcpy(f, c, sizeof(*c));
    return MPI_SUCCESS;
}
int MPI_Status_c2f(const MPI_Status *c, MPI_Fint *f) API_ALIAS(MPI_Status_c2f);

int PMPI_Status_f2c(const MPI_Fint *f, MPI_Status *c)
{
    if (!c || !f)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Status_f2c", "a status is NULL");
    memcpy(c, f, sizeof(*c));
    return MPI_SUCCESS;
}
int MPI_Status_f2c(const MPI_Fint *f, MPI_Status *c) API_ALIAS(MPI_Status_f2c);

int PMPI_Status_c2f08(const MPI_Status *c, MPI_F08_status *f)
{
    return PMPI_Status_c2f(c, (MPI_Fint *)f);
}
int MPI_Status_c2f08(const MPI_Status *c, MPI_F08_status *f) API_ALIAS(MPI_Status_c2f08);

int PMPI_Status_f082c(const MPI_F08_status *f, MPI_Status *c)
{
    return PMPI_Status_f2c((const MPI_Fint *)f, c);
}
int MPI_Status_f082c(const MPI_F08_status *f, MPI_Status *c) API_ALIAS(MPI_Status_f082c);

/* mpif.h's INTEGER array and mpi_f08's TYPE(MPI_Status) have one layout (the C struct's). */
_Static_assert(sizeof(MPI_F08_status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint) &&
                   MPI_F_STATUS_SIZE == FH_STATUS_SIZE,
               "the Fortran statuses are not the same size");
_Static_assert(offsetof(MPI_F08_status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                   offsetof(MPI_F08_status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_F08_status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "MPI_F_SOURCE, MPI_F_TAG, MPI_F_ERROR are not the fields' indices");

int PMPI_Status_f082f(const MPI_F08_status *f08, MPI_Fint *f)
{
    if (!f08 || !f)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Status_f082f", "a status is NULL");
    memcpy(f, f08, sizeof(*f08));
    return MPI_SUCCESS;
}
int MPI_Status_f082f(const MPI_F08_status *f08, MPI_Fint *f) API_ALIAS(MPI_Status_f082f);

int PMPI_Status_f2f08(const MPI_Fint *f, MPI_F08_status *f08)
{
    if (!f08 || !f)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Status_f2f08", "a status is NULL");
    memcpy(f08, f, sizeof(*f08));
    return MPI_SUCCESS;
}
int MPI_Status_f2f08(const MPI_Fint *f, MPI_F08_status *f08) API_ALIAS(MPI_Status_f2f08);

/* ---- MPI_Type_create_f90_* ------------------------------------------------------------------
 * A type of the smallest gfortran kind with the range and precision asked for (MPI_UNDEFINED:
 * no requirement). MPI wants a handle the caller never frees, which MPI_Type_get_envelope
 * describes as MPI_COMBINER_F90_INTEGER/REAL/COMPLEX with the (p, r) asked for (MPICH's
 * createf90 checks both), so each (combiner, p, r) gets one copy of the kind's predefined type,
 * made on first use and handed out again after (codes call these in loops). The copies are
 * marked predefined: never freed, never counted, usable in reductions as their kind is.
 * Process-wide like the registries above. */
static struct f90_cache {
    struct f90_type { int comb, p, r; MPI_Datatype t; } *v;
    size_t n, cap;
} f90_types;

static int f90_type(const char *fn, int ok, MPI_Datatype base, int comb, int p, int r,
                    MPI_Datatype *out)
{
    API_CHECK(api_check_init(fn));
    if (!out)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "newtype is NULL");
    if (!ok)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "no Fortran kind of that precision and range");
    struct f90_cache *c = &f90_types;
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].comb == comb && c->v[i].p == p && c->v[i].r == r) {
            *out = c->v[i].t;
            return MPI_SUCCESS;
        }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        struct f90_type *v = realloc(c->v, cap * sizeof(*v));
        if (!v)
            return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
        c->v = v;
        c->cap = cap;
    }
    const int ints[2] = { comb == MPI_COMBINER_F90_INTEGER ? r : p, r };
    MPI_Datatype t;
    int rc = core_dt_dup(base, &t);
    if (rc == 0 && (rc = core_dt_set_args(t, comb, comb == MPI_COMBINER_F90_INTEGER ? 1 : 2,
                                          ints, 0, NULL, 0, NULL)) != 0)
        core_dt_release(t);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "cannot make the type");
    t->kind = base->kind;
    t->flags |= CORE_DT_PREDEFINED;
    c->v[c->n++] = (struct f90_type){ comb, p, r, t };
    *out = t;
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    API_ENTER;
    MPI_Datatype t = r <= 2 ? MPI_INTEGER1 : r <= 4 ? MPI_INTEGER2 : r <= 9 ? MPI_INTEGER4
                                                                              : MPI_INTEGER8;
    return f90_type("MPI_Type_create_f90_integer", r <= 18, t, MPI_COMBINER_F90_INTEGER, 0, r,
                    newtype);
}
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype) API_ALIAS(MPI_Type_create_f90_integer);

/* 0: REAL(4), 1: REAL(8), -1: none */
static int real_kind(int p, int r)
{
    if (p == MPI_UNDEFINED)
        p = 0;
    if (r == MPI_UNDEFINED)
        r = 0;
    if (p <= 6 && r <= 37)
        return 0;
    if (p <= 15 && r <= 307)
        return 1;
    if (p <= 33 && r <= 4931)
        return 2;   /* REAL(16) */
    return -1;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    API_ENTER;
    int k = real_kind(p, r);
    return f90_type("MPI_Type_create_f90_real", k >= 0,
                    k == 0 ? MPI_REAL4 : k == 1 ? MPI_REAL8 : MPI_REAL16, MPI_COMBINER_F90_REAL,
                    p, r, newtype);
}
int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype) API_ALIAS(MPI_Type_create_f90_real);

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    API_ENTER;
    int k = real_kind(p, r);
    return f90_type("MPI_Type_create_f90_complex", k >= 0,
                    k == 0 ? MPI_COMPLEX8 : k == 1 ? MPI_COMPLEX16 : MPI_COMPLEX32,
                    MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
    API_ALIAS(MPI_Type_create_f90_complex);

void *fh_to_c_made(const core_handle_pool_t *pool, MPI_Fint f, const void *const *pre)
{
    if (f >= FH_DYN) {
        void *p = pool ? core_handle_at(pool, (long)f - FH_DYN) : fh_registry_at(pre, f - FH_DYN);
        if (p)
            return p;
    }
    return (void *)&fh_invalid;
}
