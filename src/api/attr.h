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
/* MPI_Comm/Type/Win_set_attr and _get_attr for another language than C (the Fortran
 * bindings): value points to (or receives) an MPI_Aint for CORE_ATTR_AINT, an int for
 * CORE_ATTR_INT (MPI-3.1 17.2.7's conversions between the languages). */
int api_comm_set_attr_lang(MPI_Comm comm, int keyval, enum core_attr_lang lang, const void *value);
int api_comm_get_attr_lang(MPI_Comm comm, int keyval, enum core_attr_lang lang, void *value,
                           int *flag);
int api_type_set_attr_lang(MPI_Datatype type, int keyval, enum core_attr_lang lang,
                           const void *value);
int api_type_get_attr_lang(MPI_Datatype type, int keyval, enum core_attr_lang lang, void *value,
                           int *flag);
int api_win_set_attr_lang(MPI_Win win, int keyval, enum core_attr_lang lang, const void *value);
int api_win_get_attr_lang(MPI_Win win, int keyval, enum core_attr_lang lang, void *value,
                          int *flag);
/* The predefined attributes' values (MPI_TAG_UB, ...), at MPI_Init. */
void api_attr_init(void);

#endif
