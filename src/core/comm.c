/*
 * Communicator objects, the predefined communicators and error handlers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/comm.h"
#include "core/handle.h"
#include "core/runtime.h"
#include "core/topo.h"

struct rdmpi_comm rdmpi_comm_world = { .refcount = 1, .predefined = 1 };
struct rdmpi_comm rdmpi_comm_self = { .refcount = 1, .predefined = 1 };
struct rdmpi_errhandler rdmpi_errors_are_fatal = { 1, 1, CORE_ERRH_FATAL, NULL };
struct rdmpi_errhandler rdmpi_errors_return = { 1, 1, CORE_ERRH_RETURN, NULL };
struct rdmpi_errhandler rdmpi_errors_abort = { 1, 1, CORE_ERRH_ABORT, NULL };

/* The predefined handles are valid for as long as the library is loaded. */
__attribute__((constructor)) static void comm_predefine(void)
{
    const void *comms[] = { MPI_COMM_WORLD, MPI_COMM_SELF };
    const void *errhs[] = { MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, MPI_ERRORS_ABORT };
    core_handle_predefine(&core_handles.comm, comms, 2);
    core_handle_predefine(&core_handles.errh, errhs, 3);
}

int core_errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *out)
{
    MPI_Errhandler e = core_handle_alloc(&core_handles.errh, sizeof(*e));
    if (!e)
        return CORE_ENOMEM;
    e->refcount = 1;
    e->kind = CORE_ERRH_USER;
    e->fn = fn;
    e->call = NULL;
    *out = e;
    return 0;
}

void core_errhandler_set_call(MPI_Errhandler e, core_errh_call_fn *call)
{
    e->call = call;
}

void core_errhandler_retain(MPI_Errhandler e)
{
    if (e && !e->predefined)
        core_ref_get(&e->refcount);
}

void core_errhandler_release(MPI_Errhandler e)
{
    if (e && !e->predefined && core_ref_put(&e->refcount) == 0)
        core_handle_free(&core_handles.errh, e);
}

static void comm_setup(MPI_Comm c, MPI_Group group, uint32_t ctx, MPI_Errhandler errh)
{
    c->ctx = ctx;
    c->group = group;
    c->size = group->size;
    c->rank = group->my_rank;
    c->errh = errh;
    c->coll_seq = 0;
    c->node_of = NULL;
    core_errhandler_retain(errh);
}

int core_comm_create(MPI_Group group, uint32_t ctx, MPI_Errhandler errh, MPI_Comm *out)
{
    MPI_Comm c = core_handle_alloc(&core_handles.comm, sizeof(*c));
    if (!c)
        return CORE_ENOMEM;
    c->refcount = 1;
    core_group_retain(group);
    comm_setup(c, group, ctx, errh);
    *out = c;
    return 0;
}

void core_comm_retain(MPI_Comm c)
{
    core_ref_get(&c->refcount);
}

void core_comm_release(MPI_Comm c)
{
    if (!c || core_ref_put(&c->refcount) > 0 || c->predefined)
        return;
    core_ctx_free(c->ctx);
    core_group_release(c->group);
    if (c->remote)
        core_group_release(c->remote);
    core_comm_release(c->local);
    core_errhandler_release(c->errh);
    free(c->node_of);
    core_topo_free(c->topo);
    core_attr_discard(&c->attrs); /* normally deleted, with callbacks, by MPI_Comm_free */
    core_handle_free(&core_handles.comm, c);
}

int core_comm_init_predefined(core_runtime_t *rt)
{
    int *ranks = malloc((size_t)rt->size * sizeof(int));
    if (!ranks)
        return CORE_ENOMEM;
    for (int i = 0; i < rt->size; i++)
        ranks[i] = i;
    MPI_Group world, self;
    int rc = core_group_create(rt->size, ranks, rt->rank, &world);
    free(ranks);
    if (rc)
        return rc;
    if ((rc = core_group_create(1, &rt->rank, rt->rank, &self))) {
        core_group_release(world);
        return rc;
    }
    rdmpi_comm_world.refcount = rdmpi_comm_self.refcount = 1;
    comm_setup(&rdmpi_comm_world, world, 0, MPI_ERRORS_ARE_FATAL);
    comm_setup(&rdmpi_comm_self, self, 2, MPI_ERRORS_ARE_FATAL);
    snprintf(rdmpi_comm_world.name, sizeof(rdmpi_comm_world.name), "MPI_COMM_WORLD");
    snprintf(rdmpi_comm_self.name, sizeof(rdmpi_comm_self.name), "MPI_COMM_SELF");
    memset(rt->ctx_free, 0xff, sizeof(rt->ctx_free));
    core_ctx_reserve(0);
    core_ctx_reserve(2);
    core_ctx_reserve(CORE_CTX_DYN);
    return 0;
}

void core_comm_fini_predefined(void)
{
    MPI_Comm pre[2] = { &rdmpi_comm_world, &rdmpi_comm_self };
    for (int i = 0; i < 2; i++) {
        core_group_release(pre[i]->group);
        core_errhandler_release(pre[i]->errh);
        free(pre[i]->node_of);
        pre[i]->group = NULL;
        pre[i]->node_of = NULL;
    }
}

const char *core_comm_label(MPI_Comm comm)
{
    if (comm->name[0])
        return comm->name;
    /* Kept in the communicator, so the label outlives the call and each thread reading it
     * sees the same text (the context id and size never change). */
    if (!comm->label[0])
        snprintf(comm->label, sizeof(comm->label), "communicator ctx=%u size=%d",
                 (unsigned)comm->ctx, comm->size);
    return comm->label;
}

void core_ctx_reserve(uint32_t ctx)
{
    uint32_t pair = ctx / 2;
    if (pair < CORE_CTX_MAX / 2)
        core_rt->ctx_free[pair / 32] &= ~(1u << (pair % 32));
}

void core_ctx_free(uint32_t ctx)
{
    uint32_t pair = ctx / 2;
    if (core_rt && pair < CORE_CTX_MAX / 2)
        core_rt->ctx_free[pair / 32] |= 1u << (pair % 32);
}
