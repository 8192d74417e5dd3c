/*
 * The runtime's life cycle: MPI_Init builds it (configuration, bootstrap,
 * transports, the one fence, the predefined communicators) and
 * MPI_Finalize tears it down in reverse. Also the per-peer endpoint table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/bootstrap.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/handle.h"
#include "core/info.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "p2p/p2p.h"
#include "collectives/coll.h"
#include "rt/rt.h"

#define DRAIN_TIMEOUT 10.0 /* seconds finalize waits for the transports' goodbyes */

core_runtime_t *core_rt;
static char **rank_hosts;  /* lazily looked-up hostnames, by world rank */

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
    if (rank < 0 || rank >= rt->size)
        return "?";
    if (!rank_hosts && !(rank_hosts = calloc((size_t)rt->size, sizeof(char *))))
        return "?";
    if (!rank_hosts[rank] && core_boot_hostname(rt, rank, &rank_hosts[rank]) != 0)
        return "?";
    return rank_hosts[rank];
}

static const char *transports_list(const core_runtime_t *rt)
{
    const tp_config_t *c = core_config_values(&rt->cfg, &tp_config_group);
    return c ? c->transports : "";
}

static int transport_allowed(const core_runtime_t *rt, const char *name)
{
    const char *list = transports_list(rt);
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (end ? 1 : 0);
    }
    return 0;
}

static int open_transports(core_runtime_t *rt)
{
    /* Whether a node-local transport besides self serves every peer (and
     * self serves us: without it, messages to ourselves need tcp). */
    int local_covers = rt->size == 1 && transport_allowed(rt, "self");
    for (int i = 0; tp_components[i]; i++) {
        const tp_component_t *c = tp_components[i];
        if (!transport_allowed(rt, c->name))
            continue;
        if (!c->node_local && local_covers) {
            core_debug("transport %s not needed: every rank is on this node", c->name);
            continue;
        }
        tp_iface_t *iface;
        int rc = c->open(rt, &iface);
        if (rc == CORE_EUNSUPPORTED)
            continue;
        if (rc) {
            core_error("the %s transport failed to start: %s", c->name, core_strerror(rc));
            return rc;
        }
        rt->ifaces[rt->niface++] = iface;
        if (iface->ops->progress)
            rt->polled[rt->npolled++] = iface;
        if (c->node_local && rt->local_size == rt->size && rt->local_size > 1 &&
            strcmp(c->name, "self") != 0 && transport_allowed(rt, "self"))
            local_covers = 1;
        core_debug("transport %s open", c->name);
    }
    return 0;
}

static int ready_transports(core_runtime_t *rt)
{
    for (int i = 0; i < rt->niface; i++) {
        const tp_component_t *c = NULL;
        for (int k = 0; tp_components[k]; k++)
            if (!strcmp(tp_components[k]->name, rt->ifaces[i]->name))
                c = tp_components[k];
        int rc = c && c->ready ? c->ready(rt->ifaces[i]) : 0;
        if (rc) {
            core_error("the %s transport failed to connect: %s", rt->ifaces[i]->name,
                       core_strerror(rc));
            return rc;
        }
    }
    return 0;
}

int core_ep_get_slow(core_runtime_t *rt, int peer, tp_ep_t **ep_p)
{
    for (int i = 0; i < rt->niface; i++) {
        tp_iface_t *iface = rt->ifaces[i];
        const tp_component_t *c = NULL;
        for (int k = 0; tp_components[k]; k++)
            if (!strcmp(tp_components[k]->name, iface->name))
                c = tp_components[k];
        if (!c || !c->reachable(iface, peer))
            continue;
        int rc = iface->ops->ep_create(iface, peer, &rt->eps[peer]);
        if (rc) {
            core_error("cannot connect to rank %d on %s over %s: %s", peer,
                       core_rank_host(rt, peer), iface->name, core_strerror(rc));
            return rc;
        }
        *ep_p = rt->eps[peer];
        return 0;
    }
    core_error("no transport reaches rank %d on host %s (RDMPI_TRANSPORTS=%s)", peer,
               core_rank_host(rt, peer), transports_list(rt));
    return CORE_EPEER;
}

int core_runtime_init(int argc, char **argv, int required, int *provided)
{
    core_runtime_t *rt = calloc(1, sizeof(*rt));
    if (!rt)
        return CORE_ENOMEM;
    core_rt = rt;
    rt->wtime_base = core_wtime();
    int rc = rt_config_register(&rt->cfg);
    if (rc)
        return rc;
    rt->settings = core_config_values(&rt->cfg, &core_settings_group);
    core_log_level = rt->settings->log_level;
    core_config_check_env(&rt->cfg);
    rc = core_boot_init(rt);
    if (rc)
        return rc;
    core_log_set_identity(rt->hostname, rt->rank);
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    rt->ncores = nc > 0 ? (int)nc : 1;
    if (rt->local_size > rt->ncores)
        rt->oversubscribed = 1;
    rt->thread_level = required < MPI_THREAD_SERIALIZED ? required : MPI_THREAD_SERIALIZED;
    *provided = rt->thread_level;
    rt->eps = calloc((size_t)rt->size, sizeof(tp_ep_t *));
    if (!rt->eps)
        return CORE_ENOMEM;
    core_dt_init();
    core_progress_init();
    if ((rc = p2p_init(rt)) || (rc = open_transports(rt)) || (rc = core_boot_fence(rt)) ||
        (rc = ready_transports(rt)))
        return rc;
    core_wait_policy(rt);
    if ((rc = core_comm_init_predefined(rt)) || (rc = coll_init(rt)))
        return rc;
    core_info_env_init(argc, argv);
    return 0;
}

/*
 * Every transport finishes with its peers before any is closed (transport.h,
 * drain): while one waits for goodbyes, the others keep answering, so a peer
 * that still needs our acks or queued bytes on another transport gets them.
 * Bounded: a peer that died leaves us closing anyway, with a warning.
 */
static void drain_transports(core_runtime_t *rt)
{
    double deadline = core_wtime() + DRAIN_TIMEOUT;
    core_wait_ctx_t w;
    core_wait_begin(&w, "MPI_Finalize (saying goodbye to peers)", NULL);
    for (;;) {
        int busy = 0;
        for (int i = 0; i < rt->niface; i++) {
            tp_iface_t *tp = rt->ifaces[i];
            if (tp->ops->drain && tp->ops->drain(tp) == CORE_EBUSY)
                busy |= 1 << i;
        }
        if (!busy)
            break;
        if (core_wtime() > deadline) {
            char names[128] = "";
            size_t n = 0;
            for (int i = 0; i < rt->niface && n + 16 < sizeof(names); i++)
                if (busy & (1 << i))
                    n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
                                          rt->ifaces[i]->name);
            core_warn("MPI_Finalize: transport %s still busy with peers after %.0f s; closing",
                      names, DRAIN_TIMEOUT);
            break;
        }
        core_wait_idle(&w, core_progress());
    }
    core_wait_end(&w);
}

int core_runtime_fini(void)
{
    core_runtime_t *rt = core_rt;
    p2p_drain();
    int rc = coll_barrier(MPI_COMM_WORLD);
    /* Every rank got here: no message of the application will arrive. */
    drain_transports(rt);
    for (int i = 0; i < rt->size; i++)
        if (rt->eps[i])
            rt->eps[i]->iface->ops->ep_destroy(rt->eps[i]);
    for (int i = rt->niface - 1; i >= 0; i--)
        rt->ifaces[i]->ops->close(rt->ifaces[i]);
    coll_fini();
    p2p_fini();
    core_comm_fini_predefined();
    /* The objects' slabs stay (handles.h), so leak checkers no longer see these. */
    core_debug("at MPI_Finalize, not freed: %zu communicators, %zu datatypes, %zu groups, "
               "%zu ops, %zu info objects", core_handles.comm.nlive, core_handles.dt.nlive,
               core_handles.group.nlive, core_handles.op.nlive, core_handles.info.nlive);
    core_boot_fini(rt);
    if (rank_hosts)
        for (int i = 0; i < rt->size; i++)
            free(rank_hosts[i]);
    free(rank_hosts);
    rank_hosts = NULL;
    core_req_table_fini(&rt->reqs);
    free(rt->eps);
    free(rt->local_ranks);
    free(rt->node_of);
    core_config_fini(&rt->cfg);
    free(rt);
    core_rt = NULL;
    return rc;
}
