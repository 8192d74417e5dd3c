/*
 * Context ids. Each communicator takes an even id and the odd one after it;
 * members agree on the lowest pair free at all of them by a bitwise-AND
 * allreduce of their free masks over the parent communicator.
 */
#include <string.h>
#include "collectives/coll.h"
#include "core/comm.h"
#include "core/log.h"
#include "core/progress.h"
#include "p2p/p2p.h"

#define NPAIRS (CORE_CTX_MAX / 2)
#define NWORDS (NPAIRS / 32)

/* Bit set = pair free. Starts all free; world and self reserve theirs. */
static uint32_t ctx_free_mask[NWORDS];
static int ctx_mask_ready;

static void mask_init(void)
{
    if (!ctx_mask_ready) {
        memset(ctx_free_mask, 0xff, sizeof(ctx_free_mask));
        ctx_mask_ready = 1;
    }
}

void core_ctx_reserve(uint32_t ctx)
{
    mask_init();
    uint32_t pair = ctx / 2;
    ctx_free_mask[pair / 32] &= ~(1u << (pair % 32));
}

void core_ctx_free(uint32_t ctx)
{
    uint32_t pair = ctx / 2;
    if (pair < NPAIRS)
        ctx_free_mask[pair / 32] |= 1u << (pair % 32);
}

/* The lowest pair free in mask, as a context id, or -1. */
static int lowest_free(const uint32_t *mask)
{
    for (int w = 0; w < NWORDS; w++)
        if (mask[w])
            return 2 * (w * 32 + __builtin_ctz(mask[w]));
    return -1;
}

int core_ctx_alloc(MPI_Comm comm, uint32_t *ctx)
{
    uint32_t mask[NWORDS];
    mask_init();
    int rc = coll_allreduce(ctx_free_mask, mask, NWORDS, MPI_UINT32_T, MPI_BAND, comm);
    if (rc)
        return rc;
    int id = lowest_free(mask);
    if (id < 0) {
        core_error("out of communicator context ids (%d communicators exist): free some with "
                   "MPI_Comm_free", NPAIRS);
        return CORE_EOTHER;
    }
    core_ctx_reserve((uint32_t)id);
    *ctx = (uint32_t)id;
    return 0;
}

/*
 * Agreement among the members of group only (MPI_Comm_create_group): masks
 * go to the group's first member over the parent's collective context, with
 * a negative tag derived from the user's (collective algorithms use
 * non-negative tags), and the chosen id comes back the same way.
 */
int core_ctx_alloc_group(MPI_Comm parent, MPI_Group group, int tag, uint32_t *ctx)
{
    uint32_t mask[NWORDS], other[NWORDS];
    int ptag = -1000 - (tag & 0xfffff);
    uint32_t cctx = parent->ctx + 1;
    int me = group->my_rank;
    int leader = core_group_rank_of(parent->group, group->ranks[0]);
    int32_t id;
    int rc;
    mask_init();
    memcpy(mask, ctx_free_mask, sizeof(mask));
    if (me == 0) {
        for (int i = 1; i < group->size; i++) {
            MPI_Request r;
            int src = core_group_rank_of(parent->group, group->ranks[i]);
            if ((rc = p2p_irecv(other, NWORDS, MPI_UINT32_T, src, ptag, parent, cctx, &r)))
                return rc;
            core_wait_req(r, "MPI_Comm_create_group");
            core_req_free(r);
            for (int w = 0; w < NWORDS; w++)
                mask[w] &= other[w];
        }
        id = lowest_free(mask);
        for (int i = 1; i < group->size; i++) {
            int dst = core_group_rank_of(parent->group, group->ranks[i]);
            if ((rc = p2p_send(&id, 1, MPI_INT32_T, dst, ptag, parent, cctx, CORE_MODE_STANDARD,
                               "MPI_Comm_create_group")))
                return rc;
        }
    } else {
        if ((rc = p2p_send(mask, NWORDS, MPI_UINT32_T, leader, ptag, parent, cctx,
                           CORE_MODE_STANDARD, "MPI_Comm_create_group")))
            return rc;
        MPI_Request r;
        if ((rc = p2p_irecv(&id, 1, MPI_INT32_T, leader, ptag, parent, cctx, &r)))
            return rc;
        core_wait_req(r, "MPI_Comm_create_group");
        core_req_free(r);
    }
    if (id < 0) {
        core_error("out of communicator context ids: free some with MPI_Comm_free");
        return CORE_EOTHER;
    }
    core_ctx_reserve((uint32_t)id);
    *ctx = (uint32_t)id;
    return 0;
}
