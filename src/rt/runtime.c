/*
 * The runtime's life cycle: MPI_Init builds the instances bottom up (the
 * base instance with the settings of every component, the bootstrap, the
 * transports layer, p2p, the one fence, the predefined communicators, the
 * collectives) and MPI_Finalize tears them down in reverse.
 */
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
#include "core/procs.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "p2p/p2p.h"
#include "collectives/coll.h"
#include "rt/rt.h"

int rt_init(int argc, char **argv, int required, int *provided)
{
    core_runtime_t *rt = calloc(1, sizeof(*rt));
    rt_runtime_t *top = calloc(1, sizeof(*top));
    if (!rt || !top) {
        free(rt);
        free(top);
        return CORE_ENOMEM;
    }
    core_rt = rt;
    rt->top = top;
    top->core = rt;
    top->ctx_hook = -1;
    rt->wtime_base = core_wtime();
    int rc = rt_config_register(&rt->cfg);
    if (rc)
        return rc;
    rt->settings = core_config_values(&rt->cfg, &core_settings_group);
    core_log_level = rt->settings->log_level;
    core_config_check_env(&rt->cfg);
    rc = core_boot_init(rt);
    if (!rc)
        rc = core_procs_init(rt);
    if (rc)
        return rc;
    core_log_set_identity(rt->hostname, rt->rank);
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    rt->ncores = nc > 0 ? (int)nc : 1;
    if (rt->local_size > rt->ncores)
        rt->oversubscribed = 1;
    rt->thread_level = required;
    *provided = rt->thread_level;
    core_cs_init(&rt->cs, required == MPI_THREAD_MULTIPLE);
    core_handles_share(rt->cs.on); /* atomic reference counts and counters */
    core_req_table_init(&rt->reqs, rt->cs.on);
    core_dt_init();
    core_progress_init();
    if ((rc = tp_layer_init(&top->tp, rt)) || (rc = p2p_init(rt, &top->tp)) ||
        (rc = tp_layer_open(&top->tp)) || (rc = core_boot_fence(rt)) ||
        (rc = tp_layer_ready(&top->tp)))
        return rc;
    core_wait_policy(rt);
    if ((rc = core_comm_init_predefined(rt)) || (rc = coll_init(rt)))
        return rc;
    core_info_env_init(argc, argv);
    return 0;
}

void rt_config_changed(core_runtime_t *rt)
{
    core_log_level = rt->settings->log_level;
    core_wait_policy(rt);
    coll_config_apply(rt);
}

int rt_dyn_prepare(void)
{
    return tp_layer_open_dynamic(&rt_get()->tp);
}

int rt_fini(void)
{
    core_runtime_t *rt = core_rt;
    rt_runtime_t *top = rt->top;
    p2p_drain();
    int rc = coll_barrier(MPI_COMM_WORLD);
    /* Every rank got here: no message of the application will arrive. */
    tp_layer_drain(&top->tp);
    tp_layer_fini(&top->tp);
    coll_fini();
    p2p_fini();
    core_comm_fini_predefined();
    /* The objects' slabs stay (handles.h), so leak checkers no longer see these. */
    core_debug("at MPI_Finalize, not freed: %zu communicators, %zu datatypes, %zu groups, "
               "%zu ops, %zu info objects", core_handles.comm.nlive, core_handles.dt.nlive,
               core_handles.group.nlive, core_handles.op.nlive, core_handles.info.nlive);
    core_boot_fini(rt);
    core_attr_fini(rt);
    core_rank_hosts_free(rt);
    core_req_table_fini(&rt->reqs);
    core_procs_fini(rt);
    free(rt->local_ranks);
    free(rt->node_of);
    core_config_fini(&rt->cfg);
    core_cs_destroy(&rt->cs);
    core_handles_share(0);
    free(top);
    free(rt);
    core_rt = NULL;
    return rc;
}
