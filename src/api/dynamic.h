/*
 * Dynamic processes inside the API layer (dynamic.c, port.c).
 */
#ifndef RDMPI_API_DYNAMIC_H
#define RDMPI_API_DYNAMIC_H

#include "mpi.h"

/* MPI_Init of a spawned job: the intercommunicator with the parents (core_rt->parent). */
int api_dyn_init(void);
/* MPI_Finalize: drops the parent intercommunicator. */
void api_dyn_fini(void);
/* The two-process communicator, on the reserved context CORE_CTX_DYN, between this
 * process and process idx (core/procs.h); first: this process is its rank 0. */
int api_dyn_pair(int idx, int first, MPI_Comm *out);

#endif
