/*
 * The table of processes of other jobs (core/procs.h). Indices are never
 * reused: endpoints and groups keep them for the life of the process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/procs.h"
#include "core/secret.h"

int core_procs_init(core_runtime_t *rt)
{
    rt->nprocs = rt->size;
    rt->proc_cap = rt->size + CORE_PROCS_DYN;
    rt->procs = calloc(CORE_PROCS_DYN, sizeof(*rt->procs));
    rt->bridges = calloc(CORE_BRIDGES, sizeof(*rt->bridges));
    rt->nbridges = 0;
    return rt->procs && rt->bridges ? 0 : CORE_ENOMEM;
}

void core_procs_fini(core_runtime_t *rt)
{
    free(rt->procs);
    rt->procs = NULL;
    if (rt->bridges)
        memset(rt->bridges, 0, CORE_BRIDGES * sizeof(*rt->bridges)); /* keys */
    free(rt->bridges);
    rt->bridges = NULL;
    rt->nbridges = 0;
    rt->nprocs = rt->proc_cap = 0;
}

int core_proc_of_uid(core_runtime_t *rt, int uid)
{
    if (uid < 0 || uid >= CORE_UID_MAX)
        return CORE_EINVAL;
    if (uid >= rt->uid_base && uid - rt->uid_base < rt->size)
        return uid - rt->uid_base;
    for (int i = rt->size; i < rt->nprocs; i++)
        if (rt->procs[i - rt->size].uid == uid && !rt->procs[i - rt->size].run)
            return i;
    if (rt->nprocs >= rt->proc_cap)
        return CORE_EOTHER;
    struct core_proc *p = &rt->procs[rt->nprocs - rt->size];
    memset(p, 0, sizeof(*p));
    p->uid = uid;
    p->rank = -1;
    p->bridge = -1;
    return rt->nprocs++;
}

int core_proc_add(core_runtime_t *rt, const char *nspace, int rank, int ubase)
{
    if (rank < 0 || ubase < 0 || ubase >= CORE_UID_MAX - rank)
        return CORE_EINVAL;
    if (!strcmp(nspace, rt->nspace))
        return rank < rt->size ? rank : CORE_EINVAL;
    int idx = core_proc_of_uid(rt, ubase + rank);
    if (idx < 0)
        return idx;
    if (idx < rt->size)
        return CORE_EINVAL; /* another job claims our numbers: the launcher is confused */
    struct core_proc *p = &rt->procs[idx - rt->size];
    if (p->rank >= 0 && (p->rank != rank || strcmp(p->nspace, nspace)))
        return CORE_EINVAL;
    p->rank = rank;
    snprintf(p->nspace, sizeof(p->nspace), "%s", nspace);
    return idx;
}

const char *core_proc_job(const core_runtime_t *rt, int idx, int *rank)
{
    if (idx >= 0 && idx < rt->size) {
        *rank = idx;
        return rt->nspace;
    }
    if (idx < rt->size || idx >= rt->nprocs || rt->procs[idx - rt->size].rank < 0 ||
        rt->procs[idx - rt->size].run)
        return NULL;
    *rank = rt->procs[idx - rt->size].rank;
    return rt->procs[idx - rt->size].nspace;
}

int core_proc_of_ruid(const core_runtime_t *rt, uint64_t run, int uid)
{
    for (int i = rt->size; run && i < rt->nprocs; i++)
        if (rt->procs[i - rt->size].run == run && rt->procs[i - rt->size].uid == uid)
            return i;
    return CORE_ENOTFOUND;
}

int core_proc_add_foreign(core_runtime_t *rt, uint64_t run, int uid, const char *addr,
                          int bridge)
{
    if (!run || run == core_run_id(rt) || uid < 0 || uid >= CORE_UID_MAX || bridge < 0 ||
        bridge >= rt->nbridges || strlen(addr) >= sizeof(rt->procs[0].addr))
        return CORE_EINVAL;
    int idx = core_proc_of_ruid(rt, run, uid);
    if (idx >= 0) { /* met before: the newer bridge and address serve from now on */
        struct core_proc *p = &rt->procs[idx - rt->size];
        snprintf(p->addr, sizeof(p->addr), "%s", addr);
        p->bridge = bridge;
        return idx;
    }
    if (rt->nprocs >= rt->proc_cap)
        return CORE_EOTHER;
    struct core_proc *p = &rt->procs[rt->nprocs - rt->size];
    memset(p, 0, sizeof(*p));
    p->uid = uid;
    p->rank = uid;
    snprintf(p->nspace, sizeof(p->nspace), "run-%016llx", (unsigned long long)run);
    p->run = run;
    snprintf(p->addr, sizeof(p->addr), "%s", addr);
    p->bridge = bridge;
    return rt->nprocs++;
}

const struct core_proc *core_proc_foreign(const core_runtime_t *rt, int idx)
{
    if (idx < rt->size || idx >= rt->nprocs || !rt->procs[idx - rt->size].run)
        return NULL;
    return &rt->procs[idx - rt->size];
}

int core_bridge_add(core_runtime_t *rt, uint64_t run, const uint8_t key[CORE_KEY_LEN])
{
    if (rt->nbridges >= CORE_BRIDGES)
        return CORE_EOTHER;
    rt->bridges[rt->nbridges].run = run;
    memcpy(rt->bridges[rt->nbridges].key, key, CORE_KEY_LEN);
    return rt->nbridges++;
}
