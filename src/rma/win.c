/*
 * Window objects: creation (a private copy of the communicator, the window
 * in this rank's table, the node segment of allocated windows, then one
 * allgather of what each origin must know of each target: its table slot
 * and generation, size and displacement unit, its base address (the CMA and
 * RDMA paths), its pid (CMA), the remote key of its memory (RDMA) and of its
 * lock word (device atomics, devatom.c)), the path to each target, the
 * window-wide choice of device atomics, attached memory of dynamic windows,
 * the info hints, and freeing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rma/rma.h"
#include "rt/rt.h"
#include "collectives/coll.h"
#include "core/handle.h"
#include "core/info.h"
#include "core/info_ops.h"
#include "core/memcheck.h"
#include "core/log.h"

/* Whether the shm transport found CMA usable (it probed a neighbor at start-up). */
static int cma_usable(void)
{
    tp_layer_t *tp = &rt_get()->tp;
    for (int i = 0; i < tp->niface; i++)
        if (strcmp(tp->ifaces[i]->name, "shm") == 0)
            return (tp->ifaces[i]->caps.flags & TP_CAP_PUT) != 0;
    return 0;
}

static void win_release(MPI_Win win)
{
    /* the segment and the registrations first: their teardown walks win->peers */
    rma_dev_dereg(win);
    rma_rdma_dereg(win);
    rma_seg_destroy(win);
    for (int r = 0; win->peers && r < win->size; r++)
        free(win->peers[r].rcache);
    free(win->peers);
    free(win->rank_of_world);
    free(win->lockq);
    free(win->regions);
    free(win->owned);
    if (win->comm)
        core_comm_release(win->comm);
    core_errhandler_release(win->errh);
    core_handle_free(&core_handles.win, win);
}

void rma_win_apply_info(MPI_Win win, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return;
    const char *v = core_info_get(info, "accumulate_ordering");
    if (v)
        win->acc_ordering = strcmp(v, "none") != 0;
    v = core_info_get(info, "no_locks");
    if (v)
        win->no_locks = strcmp(v, "true") == 0;
}

/* rdmpi_rma_path=message at creation: this rank reaches every target by messages (tests of
 * a window whose targets see in-place and message origins at once). */
static int info_force_msg(MPI_Info info)
{
    const char *v = info != MPI_INFO_NULL ? core_info_get(info, "rdmpi_rma_path") : NULL;
    return v && strcmp(v, "message") == 0;
}

int rma_win_get_info(MPI_Win win, MPI_Info *out)
{
    MPI_Info info;
    int rc = core_info_create(&info);
    if (rc)
        return rc;
    if ((rc = core_info_set(info, "no_locks", win->no_locks ? "true" : "false")) ||
        (rc = core_info_set(info, "accumulate_ordering",
                            win->acc_ordering ? "rar,raw,war,waw" : "none")) ||
        (rc = core_info_set(info, "accumulate_ops", "same_op_no_op")) ||
        (rc = core_info_set(info, "same_size", "false")) ||
        (rc = core_info_set(info, "same_disp_unit", "false"))) {
        core_info_destroy(info);
        return rc;
    }
    /* rdmpi's own: how many targets this rank reaches by RDMA (tests of the passive path) */
    int nrdma = 0;
    for (int r = 0; r < win->size; r++)
        nrdma += win->peers[r].path == RMA_PATH_RDMA;
    char num[16];
    snprintf(num, sizeof(num), "%d", nrdma);
    if ((rc = core_info_set(info, "rdmpi_rma_rdma_targets", num)) ||
        (rc = core_info_set(info, "rdmpi_rma_device_atomics",
                            win->dev_atomics ? "true" : "false"))) {
        core_info_destroy(info);
        return rc;
    }
    *out = info;
    return 0;
}

static int win_alloc(MPI_Comm comm, int flavor, MPI_Win *out)
{
    core_runtime_t *rt = core_rt;
    rma_state_t *st;
    int rc = rma_state_get(rt, &st);
    if (rc)
        return rc;
    MPI_Win win = core_handle_alloc(&core_handles.win, sizeof(*win));
    if (!win)
        return CORE_ENOMEM;
    win->st = st;
    win->flavor = flavor;
    win->excl = -1;
    win->acc_ordering = 1;
    win->errh = MPI_ERRORS_ARE_FATAL;
    core_errhandler_retain(win->errh);
    uint32_t ctx;
    if ((rc = rt_ctx_alloc(comm, &ctx)) != 0) {
        win_release(win);
        return rc;
    }
    if ((rc = core_comm_create(comm->group, ctx, MPI_ERRORS_RETURN, &win->comm)) != 0) {
        core_ctx_free(ctx);
        win_release(win);
        return rc;
    }
    win->rank = comm->rank;
    win->size = comm->size;
    win->peers = calloc((size_t)win->size, sizeof(rma_peer_t));
    /* by process index, other jobs' processes included (core/procs.h: a merged
     * intercommunicator of a spawn) */
    win->rank_of_world = malloc((size_t)rt->proc_cap * sizeof(int));
    win->lockq = malloc((size_t)win->size * sizeof(int));
    if (!win->peers || !win->rank_of_world || !win->lockq) {
        win_release(win);
        return CORE_ENOMEM;
    }
    for (int i = 0; i < rt->proc_cap; i++)
        win->rank_of_world[i] = -1;
    for (int r = 0; r < win->size; r++)
        win->rank_of_world[core_comm_world_rank(comm, r)] = r;
    *out = win;
    return 0;
}

int rma_win_create(MPI_Comm comm, void *base, MPI_Aint size, int disp_unit, int flavor,
                   MPI_Info info, MPI_Win *out)
{
    MPI_Win win;
    int rc = win_alloc(comm, flavor, &win);
    if (rc)
        return rc;
    win->len = size;
    win->disp_unit = disp_unit;
    win->base = base;
    rma_win_apply_info(win, info);
    win->force_msg = info_force_msg(info);
    if (flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        win->base = MPI_BOTTOM;
        win->len = 0;
        win->disp_unit = 1;
    }
    /* In the table before the allgather: a peer that got our card may send at once. */
    if ((rc = rma_win_register(win->st, win)) != 0) {
        win_release(win);
        return rc;
    }
    if (flavor == MPI_WIN_FLAVOR_SHARED || flavor == MPI_WIN_FLAVOR_ALLOCATE)
        rc = rma_seg_create(win, size);
    else
        rc = rma_seg_ctl_create(win);
    if (rc == CORE_EUNSUPPORTED && flavor == MPI_WIN_FLAVOR_ALLOCATE) {
        /* 64-byte aligned, like MPI_Alloc_mem: elements of any type, cache lines */
        rc = posix_memalign(&win->owned, 64, size > 0 ? (size_t)size : 1) ? CORE_ENOMEM : 0;
        win->base = size > 0 ? win->owned : NULL;
    }
    if (rc) {
        rma_win_unregister(win->st, win);
        win_release(win);
        return rc;
    }
    rma_card_t mine = { win->slot, win->gen, (uint64_t)win->len, (uint64_t)win->disp_unit,
                        (uint64_t)getpid(), (uint64_t)(uintptr_t)win->base, 0, { 0 }, 0, 0,
                        { 0 } };
    mine.rkey_len = rma_rdma_reg(win, (uint8_t *)mine.rkey);
    mine.lock_rkey_len = rma_dev_reg(win, &mine.lock_addr, (uint8_t *)mine.lock_rkey);
    rma_card_t *all = malloc((size_t)win->size * sizeof(*all));
    if (!all)
        rc = CORE_ENOMEM;
    else
        rc = coll_allgather(&mine, RMA_CARD_WORDS, MPI_UINT64_T, all, RMA_CARD_WORDS, MPI_UINT64_T,
                            win->comm);
    if (rc) {
        free(all);
        rma_win_unregister(win->st, win);
        win_release(win);
        return rc;
    }
    int cma = flavor == MPI_WIN_FLAVOR_CREATE && cma_usable();
    for (int r = 0; r < win->size; r++) {
        rma_peer_t *p = &win->peers[r];
        p->slot = (uint32_t)all[r].slot;
        p->gen = (uint32_t)all[r].gen;
        p->size = all[r].size;
        p->disp_unit = (int)all[r].disp_unit;
        if (cma && p->size > 0 && rma_on_node(win, r)) {
            p->path = RMA_PATH_CMA;
            p->pid = (int32_t)all[r].pid;
            p->addr = all[r].base;
        }
        /* dynamic: Put and Get to a node rank's attached memory by CMA (rma_shm_fast), once
         * its published region table says the memory is attached */
        if (flavor == MPI_WIN_FLAVOR_DYNAMIC && p->ctl && r != win->rank && cma_usable())
            p->pid = (int32_t)all[r].pid;
        if (win->force_msg && p->path != RMA_PATH_MSG)
            p->path = RMA_PATH_MSG;
        /* a rank of another node (or of this one when shm does not serve it) reached by
         * RDMA; its key is opaque here, its size checked before every access */
        if (p->path == RMA_PATH_MSG && p->size > 0 && !rma_on_node(win, r) &&
            rma_rdma_usable(win, r, all[r].rkey_len)) {
            p->path = RMA_PATH_RDMA;
            p->addr = all[r].base;
            memcpy(p->rkey, all[r].rkey, RMA_RKEY_MAX);
        }
    }
    rc = rma_dev_decide(win, all);
    free(all);
    if (rc) {
        rma_win_unregister(win->st, win);
        win_release(win);
        return rc;
    }
    /* Peers write this memory with process_vm_writev (shm) or their NIC (verbs), which
     * valgrind in this process cannot see: to it, a window of fresh malloc'd memory would
     * stay uninitialised after every Put. Valgrind then cannot flag the owner's own reads
     * of bytes nobody wrote; a false alarm on every received byte would be worse. */
    if (win->base && win->len > 0)
        CORE_MEM_DEFINED(win->base, (size_t)win->len);
    *out = win;
    return 0;
}

int rma_win_free(MPI_Win win)
{
    if (win->access || win->exposure || win->nlocks || win->lock_all)
        return CORE_ERMA_SYNC;
    rma_flush(win, -1);
    /* Nobody frees before everyone is done with everyone's window (no lock is held and
     * no piece is in flight anywhere once all ranks got here). */
    int rc = coll_barrier(win->comm);
    rma_win_unregister(win->st, win);
    win_release(win);
    return rc;
}

/* The region table as the node's ranks read it (rma_ctl_t): gen odd around a change. */
static void regions_begin(MPI_Win win)
{
    if (win->ctl)
        __atomic_store_n(&win->ctl->regions_gen, win->ctl->regions_gen + 1, __ATOMIC_SEQ_CST);
}

static void regions_end(MPI_Win win)
{
    if (!win->ctl)
        return;
    __atomic_store_n(&win->ctl->regions_addr, (uint64_t)(uintptr_t)win->regions,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&win->ctl->nregions, (uint64_t)win->nregions, __ATOMIC_RELAXED);
    __atomic_store_n(&win->ctl->regions_gen, win->ctl->regions_gen + 1, __ATOMIC_RELEASE);
}

int rma_win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return CORE_ERMA_FLAVOR;
    if (size < 0)
        return CORE_ESIZE;
    if (size == 0)
        return 0;
    uint64_t b = (uint64_t)(uintptr_t)base, l = (uint64_t)size;
    if (b + l < b)
        return CORE_ERMA_ATTACH;
    for (size_t i = 0; i < win->nregions; i++) {
        const rma_region_t *r = &win->regions[i];
        if (b < r->base + r->len && r->base < b + l)
            return CORE_ERMA_ATTACH;   /* overlapping attachments are erroneous */
    }
    regions_begin(win);   /* before realloc frees the table a reader may be reading */
    if (win->nregions == win->capregions) {
        size_t cap = win->capregions ? 2 * win->capregions : 4;
        void *p = realloc(win->regions, cap * sizeof(*win->regions));
        if (!p) {
            regions_end(win);
            return CORE_ENOMEM;
        }
        win->regions = p;
        win->capregions = cap;
    }
    win->regions[win->nregions++] = (rma_region_t){ b, l };
    regions_end(win);
    CORE_MEM_DEFINED(base, (size_t)size);   /* as for rma_win_create's memory */
    return 0;
}

int rma_win_detach(MPI_Win win, const void *base)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return CORE_ERMA_FLAVOR;
    uint64_t b = (uint64_t)(uintptr_t)base;
    for (size_t i = 0; i < win->nregions; i++)
        if (win->regions[i].base == b) {
            regions_begin(win);
            win->regions[i] = win->regions[--win->nregions];
            regions_end(win);
            return 0;
        }
    return CORE_ERMA_ATTACH;
}

int rma_win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    if (win->flavor != MPI_WIN_FLAVOR_SHARED) {
        /* MPI-4.0 semantics: only this rank's own memory is known to be reachable. */
        int own = rank == win->rank || (rank == MPI_PROC_NULL && win->len > 0);
        *size = own ? win->len : 0;
        *disp_unit = own ? win->disp_unit : win->peers[rank >= 0 ? rank : 0].disp_unit;
        *(void **)baseptr = own && win->len > 0 ? win->base : NULL;
        return 0;
    }
    int r = rank;
    if (rank == MPI_PROC_NULL) {   /* the first rank with a nonzero size */
        r = 0;
        while (r < win->size && win->peers[r].size == 0)
            r++;
        if (r == win->size) {
            *size = 0;
            *disp_unit = win->peers[0].disp_unit;
            *(void **)baseptr = NULL;
            return 0;
        }
    }
    *size = (MPI_Aint)win->peers[r].size;
    *disp_unit = win->peers[r].disp_unit;
    *(void **)baseptr = win->peers[r].size ? win->peers[r].mem : NULL;
    return 0;
}
