/*
 * The progress engine and the wait policy. Progress is driven from MPI calls
 * (no hidden threads): each call polls every transport, retries queued
 * sends and advances collective schedules. A blocked call spins for
 * RDMPI_SPIN_COUNT polls, then yields the CPU between polls; when this
 * node's ranks outnumber its cores it yields at once. A call blocked longer
 * than RDMPI_WAIT_WARN seconds says where it is stuck, and so does every
 * rank when the launcher sends SIGRTMIN+3 (rdmpirun --timeout does).
 */
#ifndef RDMPI_CORE_PROGRESS_H
#define RDMPI_CORE_PROGRESS_H

#include "mpi.h"

/* Polls everything once; returns the number of events handled. */
int core_progress(void);

/* Progress hooks of the layers above transports. */
typedef int (*core_progress_hook_t)(void);
void core_progress_add_hook(core_progress_hook_t fn);

/* Describes a blocking call for diagnostics while it waits. */
typedef struct core_wait_ctx {
    const char *fn;        /* "MPI_Recv" */
    MPI_Request req;       /* the request waited on, if one */
    double start;
    int spins;
    int warned;
} core_wait_ctx_t;

void core_wait_begin(core_wait_ctx_t *w, const char *fn, MPI_Request req);
/* Called once per loop iteration with the events the last poll handled. */
void core_wait_idle(core_wait_ctx_t *w, int events);
void core_wait_end(core_wait_ctx_t *w);

/* Waits until req completes. */
void core_wait_req(MPI_Request req, const char *fn);

/* Installs the SIGRTMIN+3 handler that prints where this rank is blocked. */
void core_progress_init(void);

double core_wtime(void);

#endif
