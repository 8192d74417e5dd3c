/*
 * MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size with the
 * one data representation MPI defines, "external32" (core/external32.c).
 * The data is packed to rdmpi's native packed form first and converted
 * from there (and the other way round), through a scratch buffer.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/datatype.h"
#include "core/external32.h"

static int check_rep(const char *datarep, const char *fn)
{
    if (!datarep || strcmp(datarep, "external32") != 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "data representation \"%s\": only \"external32\" is defined",
                         datarep ? datarep : "(null)");
    return 0;
}

/* The external32 bytes of count items of dt. */
static int ext_bytes(int count, MPI_Datatype dt, size_t *n, const char *fn)
{
    int rc = core_x32_size(dt, (size_t)count, n);
    if (rc)
        return api_error(MPI_COMM_NULL, rc, fn, "the datatype has no external32 form");
    if (*n > (size_t)LONG_MAX)
        return api_error(MPI_COMM_NULL, CORE_ECOUNT, fn, "the size overflows MPI_Aint");
    return 0;
}

RDMPI_API int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype,
                                      MPI_Aint *size)
{
    API_ENTER;
    static const char fn[] = "MPI_Pack_external_size";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_rep(datarep, fn));
    API_CHECK(api_check_count(MPI_COMM_NULL, incount, fn));
    API_CHECK(api_check_type(MPI_COMM_NULL, datatype, fn));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, size, "size", fn));
    size_t n;
    API_CHECK(ext_bytes(incount, datatype, &n, fn));
    *size = (MPI_Aint)n;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype,
                                     MPI_Aint *size) API_ALIAS(MPI_Pack_external_size);

/* A scratch buffer for count items of dt in native packed form (NULL when empty or short). */
static void *scratch(int count, MPI_Datatype dt, int *rc)
{
    size_t n;
    *rc = 0;
    if (__builtin_mul_overflow((size_t)count, dt->size, &n)) {
        *rc = CORE_ECOUNT;
        return NULL;
    }
    void *p = malloc(n ? n : 1);
    if (!p)
        *rc = CORE_ENOMEM;
    return p;
}

RDMPI_API int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount,
                                 MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                                 MPI_Aint *position)
{
    API_ENTER;
    static const char fn[] = "MPI_Pack_external";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_rep(datarep, fn));
    API_CHECK(api_check_buf(MPI_COMM_NULL, inbuf, incount, datatype, fn));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, position, "position", fn));
    size_t n;
    API_CHECK(ext_bytes(incount, datatype, &n, fn));
    if (n > 0 && !outbuf)
        return api_error(MPI_COMM_NULL, CORE_EBUFFER, fn, "outbuf is NULL");
    if (*position < 0 || outsize < 0 || (MPI_Aint)n > outsize - *position)
        return api_error(MPI_COMM_NULL, CORE_ETRUNC, fn,
                         "%zu bytes do not fit at position %ld of a %ld-byte buffer", n,
                         (long)*position, (long)outsize);
    int rc;
    void *tmp = scratch(incount, datatype, &rc);
    if (!tmp)
        return api_error(MPI_COMM_NULL, rc, fn, "%s", core_strerror(rc));
    core_dt_pack(tmp, inbuf, (size_t)incount, datatype);
    rc = core_x32_encode(datatype, (size_t)incount, tmp, (char *)outbuf + *position);
    free(tmp);
    if (rc)
        return api_error(MPI_COMM_NULL, rc, fn, "the datatype has no external32 form");
    *position += (MPI_Aint)n;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Pack_external(const char *datarep, const void *inbuf, int incount,
                                MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                                MPI_Aint *position) API_ALIAS(MPI_Pack_external);

RDMPI_API int PMPI_Unpack_external(const char *datarep, const void *inbuf, MPI_Aint insize,
                                   MPI_Aint *position, void *outbuf, int outcount,
                                   MPI_Datatype datatype)
{
    API_ENTER;
    static const char fn[] = "MPI_Unpack_external";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_rep(datarep, fn));
    API_CHECK(api_check_count(MPI_COMM_NULL, outcount, fn));
    API_CHECK(api_check_type(MPI_COMM_NULL, datatype, fn));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, position, "position", fn));
    size_t n;
    API_CHECK(ext_bytes(outcount, datatype, &n, fn));
    if (n > 0 && !inbuf)
        return api_error(MPI_COMM_NULL, CORE_EBUFFER, fn, "inbuf is NULL");
    /* outbuf may be MPI_BOTTOM (NULL) for a type of absolute addresses */
    API_CHECK(api_check_buf(MPI_COMM_NULL, outbuf, outcount, datatype, fn));
    if (*position < 0 || insize < 0 || (MPI_Aint)n > insize - *position)
        return api_error(MPI_COMM_NULL, CORE_ETRUNC, fn,
                         "%zu bytes needed after position %ld of a %ld-byte buffer", n,
                         (long)*position, (long)insize);
    int rc;
    void *tmp = scratch(outcount, datatype, &rc);
    if (!tmp)
        return api_error(MPI_COMM_NULL, rc, fn, "%s", core_strerror(rc));
    rc = core_x32_decode(datatype, (size_t)outcount, (const char *)inbuf + *position, tmp);
    if (rc == 0)
        core_dt_unpack(outbuf, (size_t)outcount, datatype, tmp,
                       (size_t)outcount * datatype->size);
    free(tmp);
    if (rc)
        return api_error(MPI_COMM_NULL, rc, fn, "the datatype has no external32 form");
    *position += (MPI_Aint)n;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Unpack_external(const char *datarep, const void *inbuf, MPI_Aint insize,
                                  MPI_Aint *position, void *outbuf, int outcount,
                                  MPI_Datatype datatype) API_ALIAS(MPI_Unpack_external);
