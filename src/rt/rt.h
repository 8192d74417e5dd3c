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

/* Agrees on a free context id among the members of comm (collective over comm). */
int rt_ctx_alloc(MPI_Comm comm, uint32_t *ctx);
/* Agreement among the members of group only (collective over group). */
int rt_ctx_alloc_group(MPI_Comm parent, MPI_Group group, int tag, uint32_t *ctx);
/* Agreements run by the caller over the two groups of an intercommunicator
 * (src/api/intercomm.c). A mask is RT_CTX_MASK_WORDS words: the free pairs, then 1 when
 * it is this rank's real mask. rt_ctx_lend fills one, lending the real mask (which nothing
 * else may then take an id from) only when no other agreement is in flight here, so
 * nonblocking ones finish first; rt_ctx_unlend ends the loan. rt_ctx_pick, given the AND
 * of every member's mask, reserves and returns the id they all agree on, or -1 to try
 * again (some member could not lend), or CORE_EOTHER when no id is left. */
#define RT_CTX_MASK_WORDS (CORE_CTX_MAX / 64 + 1)
void rt_ctx_lend(uint32_t *mask);
void rt_ctx_unlend(void);
int rt_ctx_pick(const uint32_t *mask);
/* MPI_Comm_idup: starts the agreement; *newcomm is set when req completes and
 * gets attrs (the copies made at the call; discarded if the dup fails). */
int rt_comm_idup(MPI_Comm comm, core_attr_t *attrs, MPI_Comm *newcomm, MPI_Request *req);

#endif
