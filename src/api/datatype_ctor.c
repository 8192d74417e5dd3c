/*
 * MPI entry points for the derived-datatype constructors beyond contiguous:
 * vector and hvector, the indexed family, struct, resized and subarray, and
 * MPI_Type_get_envelope/get_contents, which return what they recorded. Each
 * checks its arguments and turns them into pieces (core_dt_piece_t: count
 * items of a type at a byte displacement) for core_dt_pieces, which owns the
 * layout rules (subarray: core_dt_subarray).
 */
#include <stdlib.h>

#include "api/api.h"
#include "core/datatype.h"

/* A live datatype handle (it need not be committed). */
static int check_type(MPI_Datatype t, const char *what, int i, const char *fn)
{
    if (core_handle_valid(&core_handles.dt, t))
        return 0;
    int freed = t && core_handle_state(&core_handles.dt, t) == CORE_HANDLE_DEAD;
    const char *why = !t ? "MPI_DATATYPE_NULL" : freed ? "a freed datatype" : "not a datatype";
    return i < 0 ? api_error(MPI_COMM_NULL, CORE_ETYPE, fn, "%s is %s", what, why)
                 : api_error(MPI_COMM_NULL, CORE_ETYPE, fn, "%s[%d] is %s", what, i, why);
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
                         rc == CORE_ENOMEM   ? "out of memory building the type"
                         : rc == CORE_ECOUNT ? "the type has more separate blocks than rdmpi "
                                               "supports"
                                             : "the type's size or extent overflows MPI_Aint");
    return MPI_SUCCESS;
}

/*
 * Records how *newtype was made (for MPI_Type_get_contents); on failure frees
 * it and reports fn's error. Returns MPI_SUCCESS when rc already failed.
 */
static int record(int rc, MPI_Datatype *newtype, int combiner, int ni, const int *ints, int na,
                  const MPI_Aint *aints, int nd, const MPI_Datatype *types, const char *fn)
{
    if (rc != MPI_SUCCESS)
        return rc;
    if (core_dt_set_args(*newtype, combiner, ni, ints, na, aints, nd, types) != 0) {
        core_dt_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
    }
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
    /* Blocks that do not abut stay separate runs (core/datatype.h); more runs than a type
     * may list make a tiled type: one block's runs, count times. */
    size_t per_block = core_dt_is_contig(old) ? 1 : (size_t)blocklength * core_dt_nruns(old), runs;
    if (blocklength > 0 && old->size > 0 &&
        (stride != (MPI_Aint)blocklength * old->extent || !core_dt_is_contig(old)) &&
        (__builtin_mul_overflow((size_t)count, per_block, &runs) || runs > CORE_DT_MAX_RUNS)) {
        int rc = core_dt_tiled((size_t)count, (size_t)blocklength, stride, old, newtype);
        if (rc == CORE_ECOUNT)
            return api_error(MPI_COMM_NULL, CORE_ECOUNT, fn,
                             "%d separate blocks of a type %s: rdmpi supports datatypes of at "
                             "most %zu contiguous runs, or more blocks of one element kind",
                             count, old->basic == CORE_DT_NONE ? "of mixed elements" : "with "
                             "too many runs", CORE_DT_MAX_RUNS);
        if (rc != 0)
            return api_error(MPI_COMM_NULL, rc, fn, "%d blocks of stride %ld overflow", count,
                             (long)stride);
        return 0;
    }
    if (count > 1 && stride == (MPI_Aint)blocklength * old->extent) {
        /* blocks that follow each other: count * blocklength items in a row, one piece */
        core_dt_piece_t *one = pieces_alloc(1);
        if (!one)
            return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
        one[0] = (core_dt_piece_t){(size_t)count * (size_t)blocklength, 0, old};
        return build(one, 1, 0, newtype, fn);
    }
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
    API_ENTER;
    static const char fn[] = "MPI_Type_vector";
    MPI_Aint bytes = 0;
    if (core_handle_valid(&core_handles.dt, oldtype) &&
        __builtin_mul_overflow((MPI_Aint)stride, oldtype->extent, &bytes))
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "stride %d overflows", stride);
    int rc = strided(count, blocklength, bytes, oldtype, newtype, fn);
    return record(rc, newtype, MPI_COMBINER_VECTOR, 3, (const int[]){count, blocklength, stride},
                  0, NULL, 1, &oldtype, fn);
}
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype) API_ALIAS(MPI_Type_vector);

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    API_ENTER;
    static const char fn[] = "MPI_Type_create_hvector";
    int rc = strided(count, blocklength, stride, oldtype, newtype, fn);
    return record(rc, newtype, MPI_COMBINER_HVECTOR, 2, (const int[]){count, blocklength}, 1,
                  &stride, 1, &oldtype, fn);
}
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype) API_ALIAS(MPI_Type_create_hvector);

/* The calls with an array of block lengths: it must be there when count > 0
 * (indexed() takes NULL for the common block length of the _block forms). */
static int check_blocklengths(int count, const int blocklengths[], const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(check_count(count, "count", -1, fn));
    return check_array(blocklengths, count, "array_of_blocklengths", fn);
}

/*
 * The indexed family: block i has blocklengths[i] (or the common blocklength
 * when blocklengths is NULL) items of types[i] (or old), at displacement
 * idisp[i] * old's extent (unit_extent) or adisp[i] bytes.
 */
static int indexed(int combiner, int count, const int blocklengths[], int blocklength,
                   const int idisp[], const MPI_Aint adisp[], const MPI_Datatype types[],
                   MPI_Datatype old, MPI_Datatype *newtype, const char *fn)
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
    int rc = build(p, count, types != NULL, newtype, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the integer arguments: count, the block length(s), the int displacements */
    int ni = 1 + (blocklengths ? count : 1) + (idisp ? count : 0);
    int *ints = malloc((size_t)ni * sizeof(int));
    if (!ints) {
        core_dt_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
    }
    int k = 0;
    ints[k++] = count;
    for (int i = 0; i < (blocklengths ? count : 1); i++)
        ints[k++] = blocklengths ? blocklengths[i] : blocklength;
    for (int i = 0; idisp && i < count; i++)
        ints[k++] = idisp[i];
    rc = record(MPI_SUCCESS, newtype, combiner, ni, ints, adisp ? count : 0, adisp,
                types ? count : 1, types ? types : &old, fn);
    free(ints);
    return rc;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    API_ENTER;
    API_CHECK(check_blocklengths(count, array_of_blocklengths, "MPI_Type_indexed"));
    return indexed(MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0, array_of_displacements,
                   NULL, NULL, oldtype, newtype, "MPI_Type_indexed");
}
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype) API_ALIAS(MPI_Type_indexed);

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    API_ENTER;
    API_CHECK(check_blocklengths(count, array_of_blocklengths, "MPI_Type_create_hindexed"));
    return indexed(MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0, NULL,
                   array_of_displacements, NULL, oldtype, newtype, "MPI_Type_create_hindexed");
}
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype) API_ALIAS(MPI_Type_create_hindexed);

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER;
    return indexed(MPI_COMBINER_INDEXED_BLOCK, count, NULL, blocklength, array_of_displacements,
                   NULL, NULL, oldtype, newtype, "MPI_Type_create_indexed_block");
}
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
    API_ALIAS(MPI_Type_create_indexed_block);

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    API_ENTER;
    return indexed(MPI_COMBINER_HINDEXED_BLOCK, count, NULL, blocklength, NULL,
                   array_of_displacements, NULL, oldtype, newtype,
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
    API_ENTER;
    static const char fn[] = "MPI_Type_create_struct";
    API_CHECK(check_blocklengths(count, array_of_blocklengths, fn));
    if (array_of_types == NULL && count > 0) {
        API_CHECK(api_check_init(fn));
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "array_of_types is NULL");
    }
    return indexed(MPI_COMBINER_STRUCT, count, array_of_blocklengths, 0, NULL,
                   array_of_displacements,
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
    API_ENTER;
    static const char fn[] = "MPI_Type_create_resized";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_type(oldtype, "oldtype", -1, fn));
    API_CHECK(check_out(newtype, fn));
    int rc = core_dt_resized(oldtype, lb, extent, newtype);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "out of memory");
    return record(MPI_SUCCESS, newtype, MPI_COMBINER_RESIZED, 0, NULL, 2,
                  (const MPI_Aint[]){lb, extent}, 1, &oldtype, fn);
}
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype) API_ALIAS(MPI_Type_create_resized);

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER;
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

    int rc = core_dt_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                              order == MPI_ORDER_C, oldtype, newtype);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn,
                         rc == CORE_ENOMEM ? "out of memory building the type"
                                           : "the array's extent overflows MPI_Aint");
    int *ints = malloc((3 * (size_t)ndims + 2) * sizeof(int));
    if (ints) {
        ints[0] = ndims;
        for (int d = 0; d < ndims; d++) {
            ints[1 + d] = array_of_sizes[d];
            ints[1 + ndims + d] = array_of_subsizes[d];
            ints[1 + 2 * ndims + d] = array_of_starts[d];
        }
        ints[1 + 3 * ndims] = order;
        rc = record(MPI_SUCCESS, newtype, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, ints, 0, NULL, 1,
                    &oldtype, fn);
        free(ints);
        return rc;
    }
    core_dt_release(*newtype);
    *newtype = MPI_DATATYPE_NULL;
    return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
}
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                             const int array_of_subsizes[], const int array_of_starts[],
                             int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
    API_ALIAS(MPI_Type_create_subarray);

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    API_ENTER;
    static const char fn[] = "MPI_Type_get_envelope";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_type(datatype, "datatype", -1, fn));
    if (!num_integers || !num_addresses || !num_datatypes || !combiner)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "an output argument is NULL");
    const core_dt_args_t *a = datatype->args;
    if (!a) {
        /* predefined, or a type rdmpi made itself (none is handed out yet) */
        *num_integers = *num_addresses = *num_datatypes = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    *num_integers = a->ni;
    *num_addresses = a->na;
    *num_datatypes = a->nd;
    *combiner = a->combiner;
    return MPI_SUCCESS;
}
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner) API_ALIAS(MPI_Type_get_envelope);

/* Derived types come back as new handles the caller frees (MPI says so). */
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    API_ENTER;
    static const char fn[] = "MPI_Type_get_contents";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_type(datatype, "datatype", -1, fn));
    const core_dt_args_t *a = datatype->args;
    if (!a)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "%s is a named type: it has no contents (see MPI_Type_get_envelope)",
                         datatype->name[0] ? datatype->name : "the type");
    if (max_integers < a->ni || max_addresses < a->na || max_datatypes < a->nd)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "room for %d integers, %d addresses, %d datatypes; the type has %d, "
                         "%d, %d", max_integers, max_addresses, max_datatypes, a->ni, a->na,
                         a->nd);
    API_CHECK(check_array(array_of_integers, a->ni, "array_of_integers", fn));
    API_CHECK(check_array(array_of_addresses, a->na, "array_of_addresses", fn));
    API_CHECK(check_array(array_of_datatypes, a->nd, "array_of_datatypes", fn));
    for (int i = 0; i < a->ni; i++)
        array_of_integers[i] = a->ints[i];
    for (int i = 0; i < a->na; i++)
        array_of_addresses[i] = a->aints[i];
    for (int i = 0; i < a->nd; i++) {
        MPI_Datatype t = a->types[i], d = t;
        if (!(t->flags & CORE_DT_PREDEFINED)) {
            /* a new object (its own attributes, freed on its own), made the same way */
            const core_dt_args_t *ta = t->args;
            int rc = core_dt_dup(t, &d);
            if (rc == 0 && ta &&
                (rc = core_dt_set_args(d, ta->combiner, ta->ni, ta->ints, ta->na, ta->aints,
                                       ta->nd, ta->types)) != 0)
                core_dt_release(d);
            if (rc != 0) {
                for (int j = 0; j < i; j++)
                    core_dt_release(array_of_datatypes[j]);
                return api_error(MPI_COMM_NULL, rc, fn, "out of memory");
            }
        }
        array_of_datatypes[i] = d;
    }
    return MPI_SUCCESS;
}
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
    API_ALIAS(MPI_Type_get_contents);
