/*
 * Attribute hooks for the communicator and datatype calls (api/attr.c):
 * each returns MPI_SUCCESS or what the error handler returned (a failing
 * callback's own code).
 */
#ifndef RDMPI_API_ATTR_H
#define RDMPI_API_ATTR_H

#include "mpi.h"
#include "core/attr.h"

/* Comm_dup: the attributes of from that their copy callbacks keep, onto to. */
int api_attr_comm_copy(MPI_Comm from, MPI_Comm to, const char *fn);
/* Comm_idup: the same copies, into a list the new communicator gets later. */
int api_attr_comm_copy_list(MPI_Comm from, core_attr_t **list, const char *fn);
/* Comm_free and MPI_Finalize: every attribute's delete callback. */
int api_attr_comm_delete_all(MPI_Comm comm, const char *fn);
int api_attr_type_copy(MPI_Datatype from, MPI_Datatype to, const char *fn);
int api_attr_type_delete_all(MPI_Datatype type, const char *fn);
/* The predefined attributes' values (MPI_TAG_UB, ...), at MPI_Init. */
void api_attr_init(void);

#endif
