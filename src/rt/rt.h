/*
 * The runtime layer: the top of the library below the MPI entry points. It
 * builds and tears down every layer in order (MPI_Init, MPI_Finalize),
 * registers every component's settings, and creates communicators: the
 * context-id agreement runs here, over p2p (as Open MPI's comm_cid and
 * MPICH's contextid sit above their point-to-point layers).
 *
 * Its instance owns the instances of the layers below it that have one (the
 * transports layer's, the agreements in flight) and is reached from the base
 * instance (core_rt->top), the one global pointer.
 */
#ifndef RDMPI_RT_H
#define RDMPI_RT_H

#include <stdint.h>
#include "mpi.h"
#include "core/attr.h"
#include "core/config.h"
#include "core/runtime.h"
#include "transports/transport.h"

struct rt_ctx_op;

typedef struct rt_runtime {
    core_runtime_t *core;
    tp_layer_t tp;                 /* the transports layer */
    /* Context-id agreements (ctx.c). */
    struct rt_ctx_op *ctx_ops;     /* in flight on this rank */
    struct rt_ctx_op *ctx_lock;    /* the one our real mask is lent to */
    int ctx_hook;                  /* progress hook: woken while agreements are in flight */
} rt_runtime_t;

/* The instance, from the entry points' global pointer. */
static inline rt_runtime_t *rt_get(void)
{
    return core_rt->top;
}

/* MPI_Init's and MPI_Finalize's work below the API. */
int rt_init(int argc, char **argv, int required, int *provided);
int rt_fini(void);

/* Before talking to processes of other jobs (spawn, connect/accept, a spawned job's
 * MPI_Init): opens the transports that reach them (tp_layer_open_dynamic). */
int rt_dyn_prepare(void);

/* Registers the settings of every component (core, transports, p2p, collectives, and the
 * variables read outside the library) with reg. */
int rt_config_register(core_config_t *reg);
/* After settings of the running library changed (core_config_set on rt->cfg: MPI_T control
 * variables): makes the components that keep a derived copy of a CORE_CFG_LIVE setting take
 * it again (the log level, the waiting policy, the collective algorithms). */
void rt_config_changed(core_runtime_t *rt);

/* Agrees on a free context id among the members of comm (collective over comm). */
int rt_ctx_alloc(MPI_Comm comm, uint32_t *ctx);
/* Agreement among the members of group only (collective over group). */
int rt_ctx_alloc_group(MPI_Comm parent, MPI_Group group, int tag, uint32_t *ctx);
/* A mask in an agreement's messages: the free pairs, then 1 when it is the sender's real
 * one (lent to this agreement), 0 when another holds it this round. */
#define RT_CTX_MASK_WORDS (CORE_CTX_MAX / 64 + 1)
/* Agreements over the two groups of an intercommunicator: each group agrees among its
 * members (the leader first) and the two leaders swap their groups' masks over the
 * bridge (via's rank peer, on context ctx with tag), so both groups take the same ids.
 * key orders it among this rank's agreements (0: by the local communicator); agreements
 * over an existing intercommunicator pass one both groups compute alike. */
typedef struct rt_ctx_bridge {
    MPI_Comm via;
    int peer, tag;
    uint32_t ctx;
    uint64_t key;
    /* seconds the leader waits for the other leader's first mask (0: as long as it takes).
     * Groups of two runs pass one: their roots confirmed each other, so both groups are in
     * the call, and a root that failed after its last word (which the other may have missed)
     * must not hold the other group forever. */
    double limit;
} rt_ctx_bridge_t;
/* Blocking: nids (1 or 2) ids free at every member of both groups into ids[]. */
int rt_ctx_alloc_bridged(MPI_Comm local, int leader, const rt_ctx_bridge_t *b, int nids,
                         uint32_t *ids);
/* Nonblocking, led by local rank 0: *req completes after done(arg, rc, ids) ran (in the
 * progress engine); done's nonzero return (an MPI error class: src/api turns codes into
 * classes) becomes the request's error. */
typedef int (*rt_ctx_done_fn)(void *arg, int rc, const uint32_t *ids);
int rt_ctx_start_bridged(MPI_Comm local, const rt_ctx_bridge_t *b, int nids,
                         rt_ctx_done_fn done, void *arg, MPI_Request *req);
/* MPI_Comm_idup: starts the agreement; *newcomm is set when req completes and
 * gets attrs (the copies made at the call; discarded if the dup fails). */
int rt_comm_idup(MPI_Comm comm, core_attr_t *attrs, MPI_Comm *newcomm, MPI_Request *req);

#endif
