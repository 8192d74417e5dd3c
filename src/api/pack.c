/*
 * MPI_Pack, MPI_Unpack, MPI_Pack_size. rdmpi's packed form is the one its
 * messages travel in: the data of each item's runs, in type-map order, in
 * the host's representation (every process of a job shares it), so a
 * packed buffer sent as MPI_PACKED matches a typed receive and back.
 */
#include <limits.h>

#include "api/api.h"
#include "core/datatype.h"

/* The bytes count items of dt pack into, or -1 when that overflows. */
static MPI_Aint packed_bytes(int count, MPI_Datatype dt)
{
    MPI_Aint n;
    return __builtin_mul_overflow((MPI_Aint)count, (MPI_Aint)dt->size, &n) ? -1 : n;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Pack";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_buf(comm, inbuf, incount, datatype, fn));
    if (position == NULL)
        return api_error(comm, CORE_EINVAL, fn, "position is NULL");
    MPI_Aint n = packed_bytes(incount, datatype);
    if (n > 0 && !outbuf)
        return api_error(comm, CORE_EBUFFER, fn, "outbuf is NULL");
    if (*position < 0 || outsize < 0 || n < 0 || n > (MPI_Aint)outsize - *position)
        return api_error(comm, CORE_ETRUNC, fn,
                         "%d items of %zu bytes do not fit at position %d of a %d-byte buffer",
                         incount, datatype->size, *position, outsize);
    core_dt_pack((char *)outbuf + *position, inbuf, (size_t)incount, datatype);
    *position += (int)n;
    return MPI_SUCCESS;
}
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm) API_ALIAS(MPI_Pack);

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Unpack";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_count(comm, outcount, fn));
    API_CHECK(api_check_type(comm, datatype, fn));
    if (position == NULL)
        return api_error(comm, CORE_EINVAL, fn, "position is NULL");
    MPI_Aint n = packed_bytes(outcount, datatype);
    if (n > 0 && !inbuf)
        return api_error(comm, CORE_EBUFFER, fn, "inbuf is NULL");
    /* outbuf may be MPI_BOTTOM (NULL) for a type of absolute addresses */
    API_CHECK(api_check_buf(comm, outbuf, outcount, datatype, fn));
    if (*position < 0 || insize < 0 || n < 0 || n > (MPI_Aint)insize - *position)
        return api_error(comm, CORE_ETRUNC, fn,
                         "%d items of %zu bytes need more than the %d bytes left after "
                         "position %d of a %d-byte buffer", outcount, datatype->size,
                         insize > *position ? insize - *position : 0, *position, insize);
    core_dt_unpack(outbuf, (size_t)outcount, datatype, (const char *)inbuf + *position,
                   (size_t)n);
    *position += (int)n;
    return MPI_SUCCESS;
}
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm) API_ALIAS(MPI_Unpack);

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    API_ENTER;
    static const char fn[] = "MPI_Pack_size";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_count(comm, incount, fn));
    API_CHECK(api_check_type(comm, datatype, fn));
    if (size == NULL)
        return api_error(comm, CORE_EINVAL, fn, "size is NULL");
    MPI_Aint n = packed_bytes(incount, datatype);
    if (n < 0 || n > INT_MAX)
        return api_error(comm, CORE_ECOUNT, fn, "%d items of %zu bytes exceed an int", incount,
                         datatype->size);
    *size = (int)n;
    return MPI_SUCCESS;
}
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
    API_ALIAS(MPI_Pack_size);
