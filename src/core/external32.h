/*
 * The "external32" data representation (MPI-3.1 13.5.2): big-endian, IEEE
 * floating point, and the standard's fixed size for every predefined type.
 * Used by MPI_Pack_external and MPI_Unpack_external; see external32.c.
 */
#ifndef RDMPI_CORE_EXTERNAL32_H
#define RDMPI_CORE_EXTERNAL32_H

#include <stddef.h>
#include "core/datatype.h"

/* Bytes of count items of dt in external32 (*size), or CORE_ETYPE when dt
 * holds an element external32 cannot describe (a type built internally). */
int core_x32_size(MPI_Datatype dt, size_t count, size_t *size);
/* Converts count items of dt from rdmpi's packed form (core_dt_pack: the
 * elements in type-map order, native) to external32 at ext, or back. The
 * buffers hold count * dt->size and core_x32_size bytes. */
int core_x32_encode(MPI_Datatype dt, size_t count, const void *native, void *ext);
int core_x32_decode(MPI_Datatype dt, size_t count, const void *ext, void *native);

#endif
