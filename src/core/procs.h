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
    int uid;                  /* in its run's numbering */
    int rank;                 /* in its job; -1 until added */
    char nspace[256];         /* "" until added */
    /* A process of another rdmpirun run (docs/dynamic.md, design b): its run id (0 for
     * processes of this run), the tcp address its root reported for it and which bridge
     * (core_bridge_add) authenticates connections with it. Its uid is only ever looked up
     * together with its run id (core_proc_of_ruid): the two runs number alike. */
    uint64_t run;
    char addr[48];
    int bridge;
};

/* The keys shared with processes of other runs (at most CORE_BRIDGES of them per process):
 * agreed by the two roots of an accept/connect across runs, given to every member of both
 * groups. The tcp transport authenticates connections between the two runs with them. */
#define CORE_BRIDGES 16
struct core_bridge {
    uint64_t run;             /* the other run */
    uint8_t key[CORE_KEY_LEN];
};

/* The key under which the tcp transport publishes a process's "ip:port" (PMIx), which a
 * process of another run is given by its root instead. */
#define CORE_KEY_TCP_ADDR "rdmpi.tcp.addr"

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
/* Adds (or finds) process uid of run (not ours), reachable over tcp at addr ("ip:port")
 * and authenticated with bridge; returns its index or a negative code. */
int core_proc_add_foreign(core_runtime_t *rt, uint64_t run, int uid, const char *addr,
                          int bridge);
/* The index of process uid of another run, or CORE_ENOTFOUND (never made: a process of
 * another run is known only once its root reported it). */
int core_proc_of_ruid(const core_runtime_t *rt, uint64_t run, int uid);
/* The process of another run at idx, or NULL (ours, or of our run). */
const struct core_proc *core_proc_foreign(const core_runtime_t *rt, int idx);
/* Keeps key for run; returns its bridge number or a negative code (too many). */
int core_bridge_add(core_runtime_t *rt, uint64_t run, const uint8_t key[CORE_KEY_LEN]);
/* The job and rank of index idx (NULL when another job's process was not added yet, and
 * for processes of other runs: their job is no job of our launcher). */
const char *core_proc_job(const core_runtime_t *rt, int idx, int *rank);

#endif
