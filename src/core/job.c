/*
 * The base instance's pointer and the job-wide helpers that need no layer
 * above core: the fatal exit and the hostnames of ranks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/bootstrap.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/secret.h"

/* The one global instance pointer (see runtime.h). */
core_runtime_t *core_rt;

void core_fatal(const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    core_error("fatal: %s", msg);
    core_boot_abort(core_rt, 1, msg);
}

const char *core_rank_host(core_runtime_t *rt, int rank)
{
    if (rank < 0 || rank >= rt->nprocs)
        return "?";
    if (!rt->rank_hosts && !(rt->rank_hosts = calloc((size_t)rt->proc_cap, sizeof(char *))))
        return "?";
    if (!rt->rank_hosts[rank] && core_boot_hostname(rt, rank, &rt->rank_hosts[rank]) != 0)
        return "?";
    return rt->rank_hosts[rank];
}

void core_rank_hosts_free(core_runtime_t *rt)
{
    if (rt->rank_hosts)
        for (int i = 0; i < rt->nprocs; i++)
            free(rt->rank_hosts[i]);
    free(rt->rank_hosts);
    rt->rank_hosts = NULL;
}

uint64_t core_run_id(const core_runtime_t *rt)
{
    uint8_t id[16]; /* core_kdf's shortest output */
    uint64_t v = 0;
    core_kdf(rt->job_key, "rdmpi run id", id, sizeof(id));
    for (int i = 0; i < 8; i++)
        v = v << 8 | id[i];
    return v;
}
