/*
 * MPI entry points for the derived-datatype constructors beyond contiguous:
 * vector and hvector, the indexed family, struct, resized and subarray. Each
 * checks its arguments and turns them into pieces (core_dt_piece_t: count
 * items of a type at a byte displacement) for core_dt_pieces, which owns the
 * layout rules; subarray is built from such types level by level.
 */
#include <stdlib.h>

#include "api/api.h"
#include "core/datatype.h"

static int check_type(MPI_Datatype t, const char *what, int i, const char *fn)
{
    if (t == MPI_DATATYPE_NULL)
        return i < 0 ? api_error(MPI_COMM_NULL, CORE_ETYPE, fn, "%s is MPI_DATATYPE_NULL", what)
                     : api_error(MPI_COMM_NULL, CORE_ETYPE, fn, "%s[%d] is MPI_DATATYPE_NULL",
                                 what, i);
    return 0;
}

static int check_count(int n, const char *what, int i, const char *fn)
{
    if (n < 0)
        return i < 0 ? api_error(MPI_COMM_NULL, CORE_ECOUNT, fn, "%s %d is negative", what, n)
                     : api_error(MPI_COMM_NULL, CORE_ECOUNT, fn, "%s[%d] = %d is negative",
                                 what, i, n);
    return 0;
}

/* An array argument may only be NULL when it has no elements. */
static int check_array(const void *a, int count, const char *what, const char *fn)
{
    if (a == NULL && count > 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "%s is NULL", what);
    return 0;
}

static int check_out(const MPI_Datatype *out, const char *fn)
{
    if (out == NULL)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "newtype is NULL");
    return 0;
}

static core_dt_piece_t *pieces_alloc(int count)
{
    return malloc((count > 0 ? (size_t)count : 1) * sizeof(core_dt_piece_t));
}

/* Builds newtype from p and frees p; reports a failure as fn's. */
static int build(core_dt_piece_t *p, int n, int pad, MPI_Datatype *newtype, const char *fn)
{
    int rc = core_dt_pieces((size_t)n, p, pad, newtype);
    free(p);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn,
                         rc == CORE_ENOMEM ? "out of memory building the type"
                                           : "the type's size or extent overflows MPI_Aint");
    return MPI_SUCCESS;
}

/* count blocks of blocklength items of old, block i at byte displacement i * stride. */
static int strided(int count, int blocklength, MPI_Aint stride, MPI_Datatype old,
                   MPI_Datatype *newtype, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(check_count(count, "count", -1, fn));
    API_CHECK(check_count(blocklength, "blocklength", -1, fn));
    API_CHECK(check_type(old, "oldtype", -1, fn));
    API_CHECK(check_out(newtype, fn));
    core_dt_piece_t *p = pieces_alloc(count);
    if (!p)
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
    for (int i = 0; i < count; i++) {
        MPI_Aint d;
        if (__builtin_mul_overflow((MPI_Aint)i, stride, &d)) {
            free(p);
            return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "block %d's displacement overflows", i);
        }
        p[i] = (core_dt_piece_t){(size_t)blocklength, d, old};
    }
    return build(p, count, 0, newtype, fn);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_vector";
    MPI_Aint bytes = 0;
    if (oldtype != MPI_DATATYPE_NULL &&
        __builtin_mul_overflow((MPI_Aint)stride, oldtype->extent, &bytes))
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "stride %d overflows", stride);
    return strided(count, blocklength, bytes, oldtype, newtype, fn);
}
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype) API_ALIAS(MPI_Type_vector);

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return strided(count, blocklength, stride, oldtype, newtype, "MPI_Type_create_hvector");
}
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype) API_ALIAS(MPI_Type_create_hvector);

/*
 * The indexed family: block i has blocklengths[i] (or the common blocklength
 * when blocklengths is NULL) items of types[i] (or old), at displacement
 * idisp[i] * old's extent (unit_extent) or adisp[i] bytes.
 */
static int indexed(int count, const int blocklengths[], int blocklength, const int idisp[],
                   const MPI_Aint adisp[], const MPI_Datatype types[], MPI_Datatype old,
                   MPI_Datatype *newtype, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(check_count(count, "count", -1, fn));
    if (!blocklengths)
        API_CHECK(check_count(blocklength, "blocklength", -1, fn));
    else
        API_CHECK(check_array(blocklengths, count, "array_of_blocklengths", fn));
    API_CHECK(check_array(idisp ? (const void *)idisp : (const void *)adisp, count,
                          "array_of_displacements", fn));
    if (types)
        API_CHECK(check_array(types, count, "array_of_types", fn));
    else
        API_CHECK(check_type(old, "oldtype", -1, fn));
    API_CHECK(check_out(newtype, fn));
    for (int i = 0; i < count; i++) {
        if (blocklengths)
            API_CHECK(check_count(blocklengths[i], "array_of_blocklengths", i, fn));
        if (types)
            API_CHECK(check_type(types[i], "array_of_types", i, fn));
    }
    core_dt_piece_t *p = pieces_alloc(count);
    if (!p)
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
    for (int i = 0; i < count; i++) {
        MPI_Datatype t = types ? types[i] : old;
        MPI_Aint d = adisp ? adisp[i] : 0;
        if (idisp && __builtin_mul_overflow((MPI_Aint)idisp[i], t->extent, &d)) {
            free(p);
            return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "displacement %d of block %d overflows",
                             idisp[i], i);
        }
        p[i] = (core_dt_piece_t){(size_t)(blocklengths ? blocklengths[i] : blocklength), d, t};
    }
    return build(p, count, types != NULL, newtype, fn);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return indexed(count, array_of_blocklengths, 0, array_of_displacements, NULL, NULL, oldtype,
                   newtype, "MPI_Type_indexed");
}
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype) API_ALIAS(MPI_Type_indexed);

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return indexed(count, array_of_blocklengths, 0, NULL, array_of_displacements, NULL, oldtype,
                   newtype, "MPI_Type_create_hindexed");
}
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype) API_ALIAS(MPI_Type_create_hindexed);

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed(count, NULL, blocklength, array_of_displacements, NULL, NULL, oldtype, newtype,
                   "MPI_Type_create_indexed_block");
}
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
    API_ALIAS(MPI_Type_create_indexed_block);

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    return indexed(count, NULL, blocklength, NULL, array_of_displacements, NULL, oldtype, newtype,
                   "MPI_Type_create_hindexed_block");
}
int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype) API_ALIAS(MPI_Type_create_hindexed_block);

/* A struct's extent is padded to its strictest member alignment (core_dt_pieces' pad). */
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_struct";
    if (array_of_types == NULL && count > 0) {
        API_CHECK(api_check_init(fn));
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "array_of_types is NULL");
    }
    return indexed(count, array_of_blocklengths, 0, NULL, array_of_displacements,
                   array_of_types ? array_of_types : (const MPI_Datatype[]){MPI_BYTE},
                   MPI_DATATYPE_NULL, newtype, fn);
}
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
    API_ALIAS(MPI_Type_create_struct);

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_resized";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_type(oldtype, "oldtype", -1, fn));
    API_CHECK(check_out(newtype, fn));
    int rc = core_dt_resized(oldtype, lb, extent, newtype);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "out of memory");
    return MPI_SUCCESS;
}
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype) API_ALIAS(MPI_Type_create_resized);

/*
 * A subarray, built from the fastest-varying dimension out: each level is
 * subsizes[d] copies of the level below, one row of the full array (stride)
 * apart; the whole is then moved to the start corner and given the full
 * array's bounds, [0, product of sizes * old's extent).
 */
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_subarray";
    API_CHECK(api_check_init(fn));
    if (ndims <= 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "ndims %d is not positive", ndims);
    API_CHECK(check_array(array_of_sizes, ndims, "array_of_sizes", fn));
    API_CHECK(check_array(array_of_subsizes, ndims, "array_of_subsizes", fn));
    API_CHECK(check_array(array_of_starts, ndims, "array_of_starts", fn));
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    API_CHECK(check_type(oldtype, "oldtype", -1, fn));
    API_CHECK(check_out(newtype, fn));
    for (int d = 0; d < ndims; d++) {
        int n = array_of_sizes[d], s = array_of_subsizes[d], o = array_of_starts[d];
        if (n <= 0 || s < 0 || s > n || o < 0 || o > n - s)
            return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                             "dimension %d: size %d, subsize %d, start %d (want size > 0, "
                             "0 <= subsize <= size, 0 <= start <= size - subsize)", d, n, s, o);
    }

    MPI_Datatype t = oldtype, next;
    MPI_Aint stride = oldtype->extent, corner = 0;
    int rc = 0;
    for (int k = 0; k < ndims && rc == 0; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        core_dt_piece_t *p = pieces_alloc(array_of_subsizes[d]);
        if (!p) {
            rc = CORE_ENOMEM;
            break;
        }
        for (int j = 0; j < array_of_subsizes[d]; j++)
            p[j] = (core_dt_piece_t){1, (MPI_Aint)j * stride, t};
        rc = core_dt_pieces((size_t)array_of_subsizes[d], p, 0, &next);
        free(p);
        if (rc == 0) {
            if (t != oldtype)
                core_dt_release(t);
            t = next;
            corner += (MPI_Aint)array_of_starts[d] * stride;
            if (__builtin_mul_overflow(stride, (MPI_Aint)array_of_sizes[d], &stride))
                rc = CORE_EINVAL;
        }
    }
    if (rc == 0) {
        core_dt_piece_t at = {1, corner, t};
        rc = core_dt_pieces(1, &at, 0, &next);
    }
    if (t != oldtype)
        core_dt_release(t);
    if (rc == 0) {
        rc = core_dt_resized(next, 0, stride, newtype);
        core_dt_release(next);
    }
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn,
                         rc == CORE_ENOMEM ? "out of memory building the type"
                                           : "the array's extent overflows MPI_Aint");
    return MPI_SUCCESS;
}
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                             const int array_of_subsizes[], const int array_of_starts[],
                             int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
    API_ALIAS(MPI_Type_create_subarray);
