/*
 * The table of processes of other jobs (core/procs.h). Indices are never
 * reused: endpoints and groups keep them for the life of the process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/procs.h"

int core_procs_init(core_runtime_t *rt)
{
    rt->nprocs = rt->size;
    rt->proc_cap = rt->size + CORE_PROCS_DYN;
    rt->procs = calloc(CORE_PROCS_DYN, sizeof(*rt->procs));
    return rt->procs ? 0 : CORE_ENOMEM;
}

void core_procs_fini(core_runtime_t *rt)
{
    free(rt->procs);
    rt->procs = NULL;
    rt->nprocs = rt->proc_cap = 0;
}

int core_proc_of_uid(core_runtime_t *rt, int uid)
{
    if (uid < 0 || uid >= CORE_UID_MAX)
        return CORE_EINVAL;
    if (uid >= rt->uid_base && uid - rt->uid_base < rt->size)
        return uid - rt->uid_base;
    for (int i = rt->size; i < rt->nprocs; i++)
        if (rt->procs[i - rt->size].uid == uid)
            return i;
    if (rt->nprocs >= rt->proc_cap)
        return CORE_EOTHER;
    struct core_proc *p = &rt->procs[rt->nprocs - rt->size];
    p->uid = uid;
    p->rank = -1;
    p->nspace[0] = '\0';
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
    if (idx < rt->size || idx >= rt->nprocs || rt->procs[idx - rt->size].rank < 0)
        return NULL;
    *rank = rt->procs[idx - rt->size].rank;
    return rt->procs[idx - rt->size].nspace;
}
