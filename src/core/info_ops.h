/*
 * Operations on info objects (the struct is in info.h). Keys are unique and
 * keep the order of their first insertion. Read-only enforcement for
 * MPI_INFO_ENV is the API's job: these functions work on any info object.
 */
#ifndef RDMPI_CORE_INFO_OPS_H
#define RDMPI_CORE_INFO_OPS_H

#include "mpi.h"

/*
 * Sets key to value (both copied); an existing key gets the new value in its
 * old position. CORE_EINFO_KEY: key is empty or longer than
 * MPI_MAX_INFO_KEY - 1; CORE_EINFO_VALUE: value longer than
 * MPI_MAX_INFO_VAL - 1; CORE_ENOMEM. On error the object is unchanged.
 */
int core_info_set(MPI_Info info, const char *key, const char *value);
/* The value of key, or NULL if absent. Valid until the key is set or deleted. */
const char *core_info_get(MPI_Info info, const char *key);
/* Removes key; CORE_EINFO_NOKEY if absent. */
int core_info_delete(MPI_Info info, const char *key);
/* A new, non-predefined copy of info (MPI_INFO_ENV may be copied). */
int core_info_dup(MPI_Info info, MPI_Info *out);
int core_info_nkeys(MPI_Info info);
/* The n-th key (0-based), or NULL if n is out of range. */
const char *core_info_nthkey(MPI_Info info, int n);
/* Empties MPI_INFO_ENV (at finalize, so a leak checker sees nothing left). */
void core_info_env_fini(void);

#endif
