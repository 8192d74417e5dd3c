/*
 * The job description each node's server registers with libpmix: what
 * ranks learn from PMIx_Get about the job, their node and each other. Job
 * sizes, maps and every rank's PROC_DATA (hostname, node, local rank) are
 * the same on every node; LOCAL_SIZE, LOCAL_PEERS, NODEID and HOSTNAME at
 * job level describe the registering node. The keys and their
 * encoding follow shared/launch/NOTES.md: maps go in as PMIX_REGEX (the
 * library copies the regex bytes), and PMIX_PROC_DATA is a data array of
 * pmix_info_t with PMIX_RANK first, given for every rank.
 */
#include "server.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds one key unless an earlier add already failed; keeps callers flat. */
static void add(void *list, pmix_status_t *rc, const char *key, const void *val,
                pmix_data_type_t type)
{
    if (*rc == PMIX_SUCCESS)
        *rc = PMIx_Info_list_add(list, key, val, type);
}

/* Whether a node holds ranks of job: a spawned job may leave nodes of the run out, and the
 * maps name only the nodes it is on (libpmix wants a proc list per node of the node map). */
static int holds_ranks(const struct launch_job *job, int node)
{
    for (int r = 0; r < job->nranks; r++)
        if (job->ranks[r].node == node)
            return 1;
    return 0;
}

/* The ranks of one node, "2,3", or of every node, "0,1;2,3" (node < 0):
 * the local peers, and the input of the proc map. */
static char *rank_list(const struct launch_job *job, int node)
{
    size_t cap = (size_t)job->nranks * 12 + (size_t)job->nnodes + 1, len = 0;
    char *s = malloc(cap);

    if (!s)
        return NULL;
    s[0] = '\0';
    for (int n = 0; n < job->nnodes; n++) {
        if (node >= 0 ? n != node : !holds_ranks(job, n))
            continue;
        int first = 1;
        if (node < 0 && len > 0)
            s[len++] = ';', s[len] = '\0';
        for (int r = 0; r < job->nranks; r++) {
            if (job->ranks[r].node != n)
                continue;
            len += (size_t)snprintf(s + len, cap - len, first ? "%d" : ",%d", r);
            first = 0;
        }
    }
    return s;
}

static char *node_list(const struct launch_job *job)
{
    size_t cap = 1, len = 0;
    char *s;

    for (int n = 0; n < job->nnodes; n++)
        cap += strlen(job->nodes[n].host) + 1;
    s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int n = 0; n < job->nnodes; n++)
        if (holds_ranks(job, n))
            len += (size_t)snprintf(s + len, cap - len, len ? ",%s" : "%s", job->nodes[n].host);
    return s;
}

static pmix_status_t add_proc_data(void *list, const struct launch_job *job, int rank)
{
    const struct launch_rank *rk = &job->ranks[rank];
    pmix_rank_t r = (pmix_rank_t)rank;
    uint16_t local = (uint16_t)rk->local_rank;
    uint32_t nodeid = (uint32_t)rk->node, appnum = (uint32_t)rk->app;
    pmix_data_array_t arr;
    pmix_status_t rc = PMIX_SUCCESS;
    void *proc = PMIx_Info_list_start();

    if (!proc)
        return PMIX_ERR_NOMEM;
    add(proc, &rc, PMIX_RANK, &r, PMIX_PROC_RANK); /* must be element 0 */
    add(proc, &rc, PMIX_LOCAL_RANK, &local, PMIX_UINT16);
    add(proc, &rc, PMIX_NODE_RANK, &local, PMIX_UINT16);
    add(proc, &rc, PMIX_NODEID, &nodeid, PMIX_UINT32);
    add(proc, &rc, PMIX_HOSTNAME, job->nodes[rk->node].host, PMIX_STRING);
    add(proc, &rc, PMIX_APPNUM, &appnum, PMIX_UINT32);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Info_list_convert(proc, &arr);
    PMIx_Info_list_release(proc);
    if (rc != PMIX_SUCCESS)
        return rc;
    add(list, &rc, PMIX_PROC_DATA, &arr, PMIX_DATA_ARRAY); /* copies arr */
    PMIX_DATA_ARRAY_DESTRUCT(&arr);
    return rc;
}

static pmix_status_t add_job_info(void *list, const struct launch_job *job, const char *peers,
                                  const char *nodes, char *node_map, char *proc_map)
{
    uint32_t n = (uint32_t)job->nranks, nnodes = 0;
    uint32_t nlocal = (uint32_t)job->nlocal, nodeid = (uint32_t)job->my_node, univ = 0;
    bool yes = true;
    pmix_status_t rc = PMIX_SUCCESS;

    for (int i = 0; i < job->nnodes; i++)
        nnodes += (uint32_t)holds_ranks(job, i);
    /* MPI_UNIVERSE_SIZE: the slots rdmpirun was given (one per core without --host), which
     * is how many processes it can run without oversubscribing. */
    for (int i = 0; i < job->nnodes; i++)
        univ += (uint32_t)job->nodes[i].slots;
    if (univ < n)
        univ = n;
    add(list, &rc, PMIX_UNIV_SIZE, &univ, PMIX_UINT32);
    add(list, &rc, PMIX_JOB_SIZE, &n, PMIX_UINT32);
    add(list, &rc, PMIX_MAX_PROCS, &n, PMIX_UINT32);
    add(list, &rc, PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
    add(list, &rc, PMIX_LOCAL_SIZE, &nlocal, PMIX_UINT32);
    add(list, &rc, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    add(list, &rc, PMIX_NODE_LIST, nodes, PMIX_STRING);
    add(list, &rc, PMIX_JOBID, job->nspace, PMIX_STRING);
    add(list, &rc, PMIX_NODEID, &nodeid, PMIX_UINT32);
    add(list, &rc, PMIX_HOSTNAME, job->host, PMIX_STRING);
    add(list, &rc, PMIX_NODE_MAP, node_map, PMIX_REGEX);
    add(list, &rc, PMIX_PROC_MAP, proc_map, PMIX_REGEX);
    add(list, &rc, PMIX_TMPDIR, job->tmpdir, PMIX_STRING);
    if (job->oversubscribed)
        add(list, &rc, PMIX_NODE_OVERSUBSCRIBED, &yes, PMIX_BOOL);
    if (job->parent_nspace[0]) { /* MPI_Comm_get_parent finds its parents here */
        pmix_proc_t parent;
        PMIX_LOAD_PROCID(&parent, job->parent_nspace, (pmix_rank_t)job->parent_rank);
        add(list, &rc, PMIX_PARENT_ID, &parent, PMIX_PROC);
        add(list, &rc, PMIX_SPAWNED, &yes, PMIX_BOOL);
    }
    uint32_t ubase = (uint32_t)job->ubase;
    add(list, &rc, CORE_UBASE_PMIX, &ubase, PMIX_UINT32);
    if (job->napps > 0) {
        uint32_t napps = (uint32_t)job->napps;
        add(list, &rc, PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
    }
    /* Served by this node's PMIx server only to the job's own ranks (over its local socket). */
    pmix_byte_object_t key = {.bytes = (char *)job->job_key, .size = sizeof(job->job_key)};
    add(list, &rc, CORE_JOB_KEY_PMIX, &key, PMIX_BYTE_OBJECT);
    for (int i = 0; rc == PMIX_SUCCESS && i < job->nranks; i++)
        rc = add_proc_data(list, job, i);
    return rc;
}

int launch_nspace_info(const struct launch_job *job, pmix_data_array_t *out)
{
    char *peers = rank_list(job, job->my_node), *all = rank_list(job, -1), *nodes = node_list(job);
    char *node_map = NULL, *proc_map = NULL;
    void *list = NULL;
    pmix_status_t rc = PMIX_ERR_NOMEM;

    if (!peers || !all || !nodes)
        goto out;
    rc = PMIx_generate_regex(nodes, &node_map);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_generate_ppn(all, &proc_map);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "%s: cannot build the PMIx node/proc maps: %s\n", launch_who,
                PMIx_Error_string(rc));
        goto out;
    }
    list = PMIx_Info_list_start();
    rc = list ? add_job_info(list, job, peers, nodes, node_map, proc_map) : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Info_list_convert(list, out);
    if (rc != PMIX_SUCCESS)
        fprintf(stderr, "%s: cannot build the PMIx job info: %s\n", launch_who,
                PMIx_Error_string(rc));
out:
    if (list)
        PMIx_Info_list_release(list);
    free(node_map);
    free(proc_map);
    free(peers);
    free(all);
    free(nodes);
    return rc == PMIX_SUCCESS ? 0 : -ENOMEM;
}
