/*
 * The runtime: all mutable state of the library lives in one struct, built
 * by MPI_Init and torn down by MPI_Finalize. core_rt is the only global.
 */
#ifndef RDMPI_CORE_RUNTIME_H
#define RDMPI_CORE_RUNTIME_H

#include <stdint.h>
#include "core/config.h"
#include "core/errors.h"
#include "core/secret.h"
#include "core/request.h"
#include "transports/transport.h"

#define CORE_MAX_TRANSPORTS 8

/* For the few small functions on the message path that the compiler would
 * otherwise keep out of line (each level costs a call, a frame and a return). */
#define CORE_INLINE static inline __attribute__((always_inline))

typedef struct core_runtime {
    core_config_t cfg;

    /* Job layout, from the bootstrap (PMIx) or singleton defaults. */
    int rank, size;            /* in MPI_COMM_WORLD */
    int local_rank, local_size;
    int *local_ranks;          /* world ranks on this node, by local rank */
    int *node_of;              /* node index of every world rank (by hostname) */
    int nnodes;
    char hostname[256];
    char nspace[256];          /* the job's name ("singleton" when alone) */
    int singleton;
    int oversubscribed;        /* ranks on this node outnumber its cores */
    int appnum;                /* the launcher's application number (PMIX_APPNUM), or -1 */
    int universe_size;         /* PMIX_UNIV_SIZE, else the job's size */
    uint8_t job_key[CORE_KEY_LEN]; /* shared by every member of the job (core/secret.h) */
    double wait_sleep;         /* idle seconds before a blocked call sleeps; 0: never */
    int ncores;

    /* Transports: the open interfaces and, per world rank, its endpoint
     * (created on first use) and the interface chosen for it. */
    tp_iface_t *ifaces[CORE_MAX_TRANSPORTS];
    int niface;
    tp_iface_t *polled[CORE_MAX_TRANSPORTS];  /* those with a progress function */
    int npolled;
    tp_ep_t **eps;

    /* Every request of the process (core/request.h): peers name them by id. */
    core_req_table_t reqs;

    /* Why the last active-message handler refused its message (core_wire_reject), for
     * the transport's report (core_wire_fail). */
    char wire_why[256];

    int thread_level;
    double wtime_base;

    /* MPI-IO's process state (src/io: MPI_FILE_NULL's error handler, registered data
     * representations, Fortran handles); created on first use, freed at MPI_Finalize. */
    struct io_runtime *io;
} core_runtime_t;

extern core_runtime_t *core_rt;

/* The endpoint to a world rank, connecting on first use. */
int core_ep_get_slow(core_runtime_t *rt, int peer, tp_ep_t **ep_p);
static inline int core_ep_get(core_runtime_t *rt, int peer, tp_ep_t **ep_p)
{
    if (rt->eps[peer]) {
        *ep_p = rt->eps[peer];
        return 0;
    }
    return core_ep_get_slow(rt, peer, ep_p);
}

/* MPI_Init's and MPI_Finalize's work below the API. */
int core_runtime_init(int argc, char **argv, int required, int *provided);
int core_runtime_fini(void);

/* Logs msg and ends the whole job (for states the library cannot recover from). */
void core_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Hostname of a world rank (from the bootstrap). */
const char *core_rank_host(core_runtime_t *rt, int rank);

/* Malformed messages from peers (core/wire.c).
 *
 * A handler that refuses a message says why with core_wire_reject and returns what it
 * returns (CORE_EPROTO); the transport that received the message stops taking anything
 * from that peer (closes the connection, or marks the peer failed and drops what it sends)
 * and calls core_wire_fail, once per peer. core_wire_fail reports one line naming the
 * peer's rank and host, the transport, the message and the reason, and ends the job the
 * way a dead peer does (core_fatal): operations pending with that peer could never
 * complete. */
int core_wire_reject(core_runtime_t *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* what: the message ("CTS", "frame"); why: NULL for rt->wire_why. */
void core_wire_fail(core_runtime_t *rt, int peer, const char *tp, const char *what,
                    const char *why);

#endif
