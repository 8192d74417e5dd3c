/*
 * Core counting and binding with hwloc. The plan (which core each rank
 * gets) is made in the parent, where hwloc may allocate freely; the child
 * only applies a precomputed cpu_set_t with sched_setaffinity(), because a
 * child forked from a threaded process (libpmix has threads) may call only
 * async-signal-safe functions before exec. Binding the single thread that
 * then execs binds the whole new process image.
 *
 * Hosts that are network namespaces or containers of one machine (the
 * multinode testbed, a cluster simulated in containers) share its cores:
 * their ranks are counted together, so such a "cluster" is oversubscribed
 * when all its ranks outnumber the cores, and the nodes of one machine bind
 * their ranks to successive cores instead of all starting at core 0. Ranks
 * that spin on a core that the peer they wait for also needs only starve it.
 */
#include "launch.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The objects ranks are bound to: cores, or PUs when hwloc finds no cores. */
static hwloc_obj_type_t unit_type(hwloc_topology_t topo)
{
    return hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

int launch_binding_init(struct launch_job *job)
{
    hwloc_topology_t topo;

    job->topology = NULL;
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
        job->topology = topo;
        job->ncores = hwloc_get_nbobjs_by_type(topo, unit_type(topo));
    } else {
        fprintf(stderr, "%s: warning: hwloc could not load the topology; ranks will not be bound\n",
                launch_who);
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        job->ncores = n > 0 ? (int)n : 1;
    }
    if (job->ncores < 1)
        job->ncores = 1;
    return 0;
}

/* Decides job->oversubscribed and job->machine_first for this node from
 * the ranks of every node on its machine, and warns when oversubscribed. */
void launch_binding_share(struct launch_job *job)
{
    const struct launch_node *me = &job->nodes[job->my_node];
    int total = 0, first = 0, shared = 0;
    char hosts[512] = "";
    size_t n = 0;

    for (int i = 0; i < job->nnodes; i++) {
        const struct launch_node *nd = &job->nodes[i];
        if (nd->machine != me->machine)
            continue;
        total += nd->nranks;
        if (i < job->my_node)
            first += nd->nranks;
        shared += i != job->my_node;
        if (n + strlen(nd->host) + 8 < sizeof(hosts))
            n += (size_t)snprintf(hosts + n, sizeof(hosts) - n, "%s%s", n ? "," : "", nd->host);
    }
    job->machine_first = first;
    job->oversubscribed = total > job->ncores;
    if (!job->oversubscribed || job->opts->oversubscribe)
        return;   /* --oversubscribe: the user knows (harnesses compare output) */
    if (shared)
        fprintf(stderr, "%s: warning: %d ranks on %d cores (oversubscribed: hosts %s are one "
                "machine): ranks will yield the CPU while they wait\n", launch_who, total,
                job->ncores, hosts);
    else
        fprintf(stderr, "%s: warning: %d ranks on %d cores (oversubscribed): ranks will yield "
                "the CPU while they wait\n", launch_who, total, job->ncores);
}

static void report(const struct launch_job *job, const struct launch_rank *r,
                   hwloc_const_cpuset_t set)
{
    char *list = NULL;

    if (set)
        hwloc_bitmap_list_asprintf(&list, set);
    if (r->core >= 0)
        fprintf(stderr, "%s: rank %d on host %s bound to core %d (cpus %s)\n", launch_who,
                r->rank, job->host, r->core, list ? list : "?");
    else
        fprintf(stderr, "%s: rank %d on host %s not bound\n", launch_who, r->rank, job->host);
    free(list);
}

int launch_binding_plan(struct launch_job *job)
{
    hwloc_topology_t topo = job->topology;
    enum launch_bind mode = job->opts->bind;

    if (mode == LAUNCH_BIND_DEFAULT)
        mode = job->oversubscribed ? LAUNCH_BIND_NONE : LAUNCH_BIND_CORE;
    if (!topo)
        mode = LAUNCH_BIND_NONE;

    for (int i = 0; i < job->nranks; i++) {
        struct launch_rank *r = &job->ranks[i];
        int core = (job->machine_first + r->local_rank) % job->ncores;
        hwloc_obj_t obj = NULL;

        r->core = -1;
        if (!r->local)
            continue;
        if (mode == LAUNCH_BIND_CORE)
            obj = hwloc_get_obj_by_type(topo, unit_type(topo), (unsigned)core);
        if (obj && hwloc_cpuset_to_glibc_sched_affinity(topo, obj->cpuset, &r->cpus,
                                                        sizeof(r->cpus)) == 0)
            r->core = core;
        if (job->opts->report_bindings)
            report(job, r, obj ? obj->cpuset : NULL);
    }
    return 0;
}

/* Runs in the forked child: async-signal-safe only. */
void launch_binding_apply_child(const struct launch_rank *r)
{
    if (r->core >= 0)
        sched_setaffinity(0, sizeof(r->cpus), &r->cpus);
}

void launch_binding_fini(struct launch_job *job)
{
    if (job->topology)
        hwloc_topology_destroy((hwloc_topology_t)job->topology);
    job->topology = NULL;
}
