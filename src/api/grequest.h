/*
 * Generalized requests (MPI_Grequest_start): the hooks the completion calls
 * of wait.c run for them, so the user's callbacks fire where MPI says.
 */
#ifndef RDMPI_API_GREQUEST_H
#define RDMPI_API_GREQUEST_H

#include "mpi.h"

/* Wait/Test family: runs query_fn into st (a scratch status when st is
 * MPI_STATUS_IGNORE), then free_fn, releases the request and sets *rp to
 * MPI_REQUEST_NULL. Returns query_fn's error code, else free_fn's. */
int api_greq_finish(MPI_Request *rp, MPI_Status *st);
/* MPI_Request_get_status on a completed generalized request: query_fn only. */
int api_greq_status(MPI_Request r, MPI_Status *st);
/* MPI_Cancel: cancel_fn with whether MPI_Grequest_complete came already. */
int api_greq_cancel(MPI_Request r);

#endif
