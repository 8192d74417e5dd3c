/*
 * The processes this process can address: its job's ranks (indices 0..size-1,
 * the world ranks) and, after MPI_Comm_spawn, MPI_Comm_get_parent or
 * MPI_Comm_accept/connect, processes of other jobs (indices from size on).
 * Groups, endpoints and every per-peer table use these indices.
 *
 * Across jobs a process is named by its uid: its job's base among all the
 * processes one launcher runs (CORE_UBASE_PMIX) plus its rank. Transports
 * carry uids in their handshakes; a uid that arrives before the process is
 * added (a peer that finished the connection first) gets its index at once,
 * and its job and rank are filled in when it is added.
 */
#ifndef RDMPI_CORE_PROCS_H
#define RDMPI_CORE_PROCS_H

#include "core/runtime.h"

#define CORE_PROCS_DYN 1024   /* processes of other jobs one process can know */
#define CORE_UID_MAX (1 << 30)

struct core_proc {
    int uid;
    int rank;                 /* in its job; -1 until added */
    char nspace[256];         /* "" until added */
};

/* After the bootstrap: sizes the table (proc_cap) for this job's ranks and CORE_PROCS_DYN more. */
int core_procs_init(core_runtime_t *rt);
void core_procs_fini(core_runtime_t *rt);
static inline int core_proc_uid(const core_runtime_t *rt, int idx)
{
    return idx < rt->size ? rt->uid_base + idx : rt->procs[idx - rt->size].uid;
}
/* The index of the process named uid, making one if it is new; CORE_EOTHER when the table
 * is full, CORE_EINVAL for a uid out of range. */
int core_proc_of_uid(core_runtime_t *rt, int uid);
/* Adds (or finds) rank of job nspace, whose ranks start at uid ubase; returns its index or
 * a negative code. */
int core_proc_add(core_runtime_t *rt, const char *nspace, int rank, int ubase);
/* The job and rank of index idx (NULL when another job's process was not added yet). */
const char *core_proc_job(const core_runtime_t *rt, int idx, int *rank);

#endif
