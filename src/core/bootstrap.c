/*
 * Bootstrap over PMIx (the client side). Reads the job layout, publishes
 * transport addresses, runs the single fence of MPI_Init (a barrier: the
 * addresses are looked up lazily, by direct modex), answers lazy lookups,
 * and aborts the job. Without a PMIx server in the environment the
 * process is a singleton: a job of one rank, and the fence is a no-op.
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/bootcall.h"
#include "core/bootstrap.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/procs.h"
#include "core/secret.h"

#define BOOT_OTHER_WAIT 60 /* seconds a look-up waits for a process of another job */

static int have_pmix_server(void)
{
    return getenv("PMIX_NAMESPACE") != NULL || getenv("PMIX_SERVER_URI41") != NULL ||
           getenv("PMIX_SERVER_URI4") != NULL || getenv("PMIX_SERVER_URI3") != NULL ||
           getenv("PMIX_SERVER_URI2") != NULL;
}

/* Gets an integer-valued key of proc (any PMIx integer type). */
static int get_uint(const pmix_proc_t *proc, const char *key, int node_scope, unsigned long *out)
{
    pmix_value_t *val = NULL;
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    bool t = true;
    PMIX_INFO_LOAD(&info, PMIX_NODE_INFO, &t, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(proc, key, node_scope ? &info : NULL, node_scope ? 1 : 0, &val);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS || !val)
        return CORE_ENOTFOUND;
    int ret = 0;
    switch (val->type) {
    case PMIX_UINT32: *out = val->data.uint32; break;
    case PMIX_UINT16: *out = val->data.uint16; break;
    case PMIX_UINT8: *out = val->data.uint8; break;
    case PMIX_INT: *out = (unsigned long)val->data.integer; break;
    case PMIX_UINT: *out = val->data.uint; break;
    case PMIX_UINT64: *out = (unsigned long)val->data.uint64; break;
    case PMIX_SIZE: *out = val->data.size; break;
    case PMIX_BOOL: *out = val->data.flag; break;
    default: ret = CORE_EINVAL;
    }
    PMIX_VALUE_RELEASE(val);
    return ret;
}

static int get_string(const pmix_proc_t *proc, const char *key, int node_scope, char **out)
{
    pmix_value_t *val = NULL;
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    bool t = true;
    PMIX_INFO_LOAD(&info, PMIX_NODE_INFO, &t, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(proc, key, node_scope ? &info : NULL, node_scope ? 1 : 0, &val);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS || !val)
        return CORE_ENOTFOUND;
    int ret = CORE_EINVAL;
    if (val->type == PMIX_STRING && val->data.string) {
        *out = strdup(val->data.string);
        ret = *out ? 0 : CORE_ENOMEM;
    }
    PMIX_VALUE_RELEASE(val);
    return ret;
}

static int parse_local_peers(core_runtime_t *rt, const char *list)
{
    int n = 1;
    for (const char *p = list; *p; p++)
        n += (*p == ',');
    rt->local_ranks = calloc((size_t)n, sizeof(int));
    if (!rt->local_ranks)
        return CORE_ENOMEM;
    int i = 0;
    for (const char *p = list; *p && i < n;) {
        rt->local_ranks[i++] = (int)strtol(p, (char **)&p, 10);
        if (*p == ',')
            p++;
    }
    rt->local_size = i;
    rt->local_rank = -1;
    for (int k = 0; k < i; k++)
        if (rt->local_ranks[k] == rt->rank)
            rt->local_rank = k;
    return rt->local_rank >= 0 ? 0 : CORE_EINTERN;
}

static int init_singleton(core_runtime_t *rt)
{
    rt->singleton = 1;
    rt->rank = 0;
    rt->size = 1;
    rt->appnum = -1;
    rt->universe_size = 1;
    snprintf(rt->nspace, sizeof(rt->nspace), "singleton-%d", (int)getpid());
    rt->local_ranks = calloc(1, sizeof(int));
    if (!rt->local_ranks)
        return CORE_ENOMEM;
    rt->local_size = 1;
    rt->local_rank = 0;
    core_random(rt->job_key, sizeof(rt->job_key));
    return 0;
}

/* The job key from the launcher's job data (rdmpirun puts it there). */
static int job_key_from_launcher(core_runtime_t *rt, const pmix_proc_t *wild)
{
    pmix_value_t *val = NULL;
    if (PMIx_Get(wild, CORE_JOB_KEY_PMIX, NULL, 0, &val) != PMIX_SUCCESS || !val)
        return CORE_ENOTFOUND;
    int ret = CORE_EINVAL;
    if (val->type == PMIX_BYTE_OBJECT && val->data.bo.size == CORE_KEY_LEN) {
        memcpy(rt->job_key, val->data.bo.bytes, CORE_KEY_LEN);
        ret = 0;
    }
    PMIX_VALUE_RELEASE(val);
    return ret;
}

/*
 * Under a launcher that does not know rdmpi (Slurm, Open MPI's mpirun),
 * rank 0 makes the key and the others read it after a fence of their own.
 * PMIx data is served only to processes the PMIx server authenticated as
 * the job's, over its local socket, so the key stays within the job. The
 * extra fence carries only this key; it is paid once, at startup.
 */
static int job_key_from_rank0(core_runtime_t *rt)
{
    static const char key[] = "rdmpi.job_key.r0";
    if (rt->rank == 0) {
        core_random(rt->job_key, sizeof(rt->job_key));
        pmix_value_t pv;
        PMIX_VALUE_CONSTRUCT(&pv);
        pv.type = PMIX_BYTE_OBJECT;
        pv.data.bo.bytes = (char *)rt->job_key;
        pv.data.bo.size = CORE_KEY_LEN;
        if (PMIx_Put(PMIX_GLOBAL, key, &pv) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS) {
            core_error("cannot publish the job key through PMIx");
            return CORE_EPEER;
        }
    }
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_status_t prc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (prc != PMIX_SUCCESS) {
        core_error("the job-key fence failed: %s", PMIx_Error_string(prc));
        return CORE_EPEER;
    }
    if (rt->rank == 0)
        return 0;
    pmix_proc_t zero;
    PMIX_PROC_LOAD(&zero, rt->nspace, 0);
    pmix_value_t *val = NULL;
    int ret = CORE_EPEER;
    if (PMIx_Get(&zero, key, NULL, 0, &val) == PMIX_SUCCESS && val &&
        val->type == PMIX_BYTE_OBJECT && val->data.bo.size == CORE_KEY_LEN) {
        memcpy(rt->job_key, val->data.bo.bytes, CORE_KEY_LEN);
        ret = 0;
    } else {
        core_error("rank 0 did not provide the job key");
    }
    if (val)
        PMIX_VALUE_RELEASE(val);
    return ret;
}

/*
 * This process's host, in its own data (committed at the startup fence): a process of
 * another job reads it there when the launcher's job data cannot say. A launcher serving a
 * spawned job on a node where none of its ranks runs registers the job there for the
 * parents' sake, and libpmix then answers PMIX_HOSTNAME of its ranks only through direct
 * modex, which carries what the ranks put, not the job's map.
 */
#define HOST_KEY "rdmpi.host"

static void put_host(core_runtime_t *rt)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_STRING;
    v.data.string = rt->hostname;
    pmix_status_t prc = PMIx_Put(PMIX_GLOBAL, HOST_KEY, &v);
    if (prc != PMIX_SUCCESS)
        core_debug("PMIx_Put(%s): %s", HOST_KEY, PMIx_Error_string(prc));
}

/* The PMIx calls made here need no lock (core/bootcall.h): MPI_Init's thread is the only one,
 * and the critical section is not set up yet. */
int core_boot_init(core_runtime_t *rt)
{
    core_boot_lock_init(rt);
    gethostname(rt->hostname, sizeof(rt->hostname) - 1);
    if (core_crypto_init()) {
        core_error("cannot initialize libsodium (no entropy source?)");
        return CORE_EINTERN;
    }
    if (!have_pmix_server())
        return init_singleton(rt);

    pmix_proc_t me;
    pmix_status_t prc = PMIx_Init(&me, NULL, 0);
    if (prc != PMIX_SUCCESS) {
        core_error("cannot connect to the launcher's PMIx server: %s (PMIX_NAMESPACE=%s)",
                   PMIx_Error_string(prc), getenv("PMIX_NAMESPACE") ? getenv("PMIX_NAMESPACE") : "");
        return CORE_EPEER;
    }
    rt->pmix_up = 1;
    rt->rank = (int)me.rank;
    put_host(rt);
    snprintf(rt->nspace, sizeof(rt->nspace), "%s", me.nspace);

    pmix_proc_t wild;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    unsigned long v;
    if (get_uint(&wild, PMIX_JOB_SIZE, 0, &v) != 0) {
        core_error("the launcher did not provide the job size (PMIX_JOB_SIZE)");
        return CORE_EPEER;
    }
    rt->size = (int)v;

    char *peers = NULL;
    if (get_string(&wild, PMIX_LOCAL_PEERS, 0, &peers) != 0 &&
        get_string(&wild, PMIX_LOCAL_PEERS, 1, &peers) != 0) {
        core_error("the launcher did not provide the local peers (PMIX_LOCAL_PEERS)");
        return CORE_EPEER;
    }
    int rc = parse_local_peers(rt, peers);
    free(peers);
    if (rc) {
        core_error("rank %d is not among this node's ranks in PMIX_LOCAL_PEERS", rt->rank);
        return rc;
    }
    if (get_uint(&wild, PMIX_NODE_OVERSUBSCRIBED, 0, &v) == 0 && v)
        rt->oversubscribed = 1;
    rt->appnum = get_uint(&me, PMIX_APPNUM, 0, &v) == 0 ? (int)v : -1;
    rt->universe_size = get_uint(&wild, PMIX_UNIV_SIZE, 0, &v) == 0 && v >= (unsigned long)rt->size
                            ? (int)v : rt->size;
    pmix_value_t *pv = NULL;
    if (PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &pv) == PMIX_SUCCESS && pv) {
        rt->spawned = 1;
        PMIX_VALUE_RELEASE(pv);
    }
    rt->launcher_numbers = get_uint(&wild, CORE_UBASE_PMIX, 0, &v) == 0 && v < CORE_UID_MAX / 2;
    rt->uid_base = rt->launcher_numbers ? (int)v : 0;
    rc = job_key_from_launcher(rt, &wild);
    if (rc == CORE_EINVAL) {
        core_error("the launcher's job key (%s) is malformed", CORE_JOB_KEY_PMIX);
        return CORE_EPEER;
    }
    return rc == 0 ? 0 : job_key_from_rank0(rt);
}

/* The PMIx name of process idx (core/procs.h): of this job, or of another one once added. */
static int load_proc(core_runtime_t *rt, int idx, pmix_proc_t *proc)
{
    int rank;
    const char *ns = core_proc_job(rt, idx, &rank);
    if (!ns)
        return CORE_ENOTFOUND;
    PMIX_PROC_LOAD(proc, ns, (pmix_rank_t)rank);
    return 0;
}

int core_boot_put(core_runtime_t *rt, const char *key, const void *val, size_t len, int local_only)
{
    if (rt->singleton)
        return 0;
    pmix_value_t pv;
    PMIX_VALUE_CONSTRUCT(&pv);
    pv.type = PMIX_BYTE_OBJECT;
    pv.data.bo.bytes = (char *)val;
    pv.data.bo.size = len;
    core_boot_call_t c;
    core_boot_call_begin(rt, 0, &c);
    pmix_status_t prc = PMIx_Put(local_only ? PMIX_LOCAL : PMIX_GLOBAL, key, &pv);
    core_boot_call_end(rt, &c);
    if (prc != PMIX_SUCCESS) {
        core_error("PMIx_Put(%s) failed: %s", key, PMIx_Error_string(prc));
        return CORE_EPEER;
    }
    return 0;
}

int core_boot_commit(core_runtime_t *rt)
{
    if (rt->singleton)
        return 0;
    core_boot_call_t c;
    core_boot_call_begin(rt, 0, &c);
    pmix_status_t prc = PMIx_Commit();
    core_boot_call_end(rt, &c);
    if (prc != PMIX_SUCCESS) {
        core_error("PMIx_Commit failed: %s", PMIx_Error_string(prc));
        return CORE_EPEER;
    }
    return 0;
}

/*
 * The startup fence only says that every rank has committed its data; it does not carry the
 * data (PMIX_COLLECT_DATA false). Collecting shipped every rank's published keys (tcp address,
 * verbs card, shm segment and CMA key: ~100-200 bytes a rank) to every node, O(N) bytes per
 * node and per PMIx server, though each rank reads only the keys of the peers it connects to
 * and its node's rank 0. Those are found without it: a local rank's data is in this node's
 * PMIx server once committed, a remote rank's is fetched by direct modex on first look-up
 * (rdmpirun's daemons serve it over their tree, launcher/dmodex.c; Slurm's and PRRTE's PMIx
 * servers do it too). Measured on one node with 256 ranks: no difference in time either way.
 */
int core_boot_fence(core_runtime_t *rt)
{
    if (rt->singleton)
        return 0;
    core_boot_call_t c;
    core_boot_call_begin(rt, 0, &c);
    pmix_status_t prc = PMIx_Commit();
    if (prc != PMIX_SUCCESS) {
        core_boot_call_end(rt, &c);
        core_error("PMIx_Commit failed: %s", PMIx_Error_string(prc));
        return CORE_EPEER;
    }
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    bool collect = false;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    prc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    core_boot_call_end(rt, &c);
    if (prc != PMIX_SUCCESS) {
        core_error("the startup fence failed: %s", PMIx_Error_string(prc));
        return CORE_EPEER;
    }
    return 0;
}

static int boot_get(core_runtime_t *rt, int rank, const char *key, void **val, size_t *len,
                    int wait);

int core_boot_get(core_runtime_t *rt, int rank, const char *key, void **val, size_t *len)
{
    return boot_get(rt, rank, key, val, len, 1);
}

int core_boot_get_now(core_runtime_t *rt, int rank, const char *key, void **val, size_t *len)
{
    return boot_get(rt, rank, key, val, len, 0);
}

static int boot_get(core_runtime_t *rt, int rank, const char *key, void **val, size_t *len,
                    int wait)
{
    const struct core_proc *f = core_proc_foreign(rt, rank);
    if (f) { /* of another run: only what its root told ours, its tcp address */
        if (strcmp(key, CORE_KEY_TCP_ADDR) || !(*val = strdup(f->addr)))
            return CORE_ENOTFOUND;
        *len = strlen(f->addr) + 1;
        return 0;
    }
    if (rt->singleton)
        return CORE_ENOTFOUND;
    pmix_proc_t proc;
    if (load_proc(rt, rank, &proc))
        return CORE_ENOTFOUND;
    pmix_value_t *pv = NULL;
    /* A process of another job may have published its data without this key yet (it opens
     * the transports for other jobs after its MPI_Init when it connects): look again,
     * bounded, as PMIx answers at once for a process that committed once. */
    int other = wait && rank >= rt->size;
    double until = core_wtime() + BOOT_OTHER_WAIT;
    pmix_status_t prc;
    for (;;) {
        /* For such a process, each try may wait (~2 s) in libpmix for data it has not
         * committed yet: made outside the critical section where the caller allows it
         * (wait: it already sleeps outside between tries), so the rank's other threads
         * progress meanwhile (core/bootcall.h). */
        core_boot_call_t c;
        core_boot_call_begin(rt, other, &c);
        prc = PMIx_Get(&proc, key, NULL, 0, &pv);
        core_boot_call_end(rt, &c);
        if (prc == PMIX_SUCCESS || !other || core_wtime() >= until)
            break;
        core_cs_usleep(&rt->cs, 5000);
    }
    if (prc != PMIX_SUCCESS || !pv) {
        if (other)
            core_debug("PMIx_Get(%s.%u, %s): %s", proc.nspace, proc.rank, key,
                       PMIx_Error_string(prc));
        return CORE_ENOTFOUND;
    }
    int ret = CORE_EINVAL;
    if (pv->type == PMIX_BYTE_OBJECT) {
        *val = malloc(pv->data.bo.size ? pv->data.bo.size : 1);
        if (*val) {
            memcpy(*val, pv->data.bo.bytes, pv->data.bo.size);
            *len = pv->data.bo.size;
            ret = 0;
        } else {
            ret = CORE_ENOMEM;
        }
    } else if (pv->type == PMIX_STRING) {
        *val = strdup(pv->data.string);
        *len = strlen(pv->data.string) + 1;
        ret = *val ? 0 : CORE_ENOMEM;
    }
    PMIX_VALUE_RELEASE(pv);
    return ret;
}

/* Hostname of a peer, looked up lazily; the string is cached by the caller. */
int core_boot_hostname(core_runtime_t *rt, int rank, char **out)
{
    if (rt->singleton || rank == rt->rank) {
        *out = strdup(rt->hostname);
        return *out ? 0 : CORE_ENOMEM;
    }
    const struct core_proc *f = core_proc_foreign(rt, rank);
    if (f) { /* no launcher of ours knows it: its address says where it is (its IP, one
              * per host, so its run's processes group by node as its run groups them;
              * never equal to one of our hostnames, so the two runs never share a node) */
        *out = strndup(f->addr, strcspn(f->addr, ":"));
        return *out ? 0 : CORE_ENOMEM;
    }
    pmix_proc_t proc;
    if (load_proc(rt, rank, &proc))
        return CORE_ENOTFOUND;
    core_boot_call_t c;
    core_boot_call_begin(rt, 0, &c);
    int rc = get_string(&proc, PMIX_HOSTNAME, 0, out);
    if (rc && rank >= rt->size) /* another job's process: what it put itself (put_host) */
        rc = get_string(&proc, HOST_KEY, 0, out);
    core_boot_call_end(rt, &c);
    return rc;
}

void core_boot_abort(core_runtime_t *rt, int code, const char *msg)
{
    core_boot_call_t c;
    /* Another thread may be inside a long PMIx call: abort without the lock after a while
     * rather than not at all (we exit below either way). */
    if (rt && !rt->singleton && rt->pmix_up) {
        int locked = core_boot_call_try(rt, &c);
        PMIx_Abort(code, msg, NULL, 0);
        if (locked)
            core_boot_call_end(rt, &c);
    }
    /* PMIx_Abort may return before the launcher kills us: never run on. */
    _exit(code ? code : 1);
}

int core_boot_fini(core_runtime_t *rt)
{
    if (!rt->pmix_up) {
        core_boot_lock_destroy(rt);
        return 0;
    }
    rt->pmix_up = 0;
    core_boot_call_t c;
    core_boot_call_begin(rt, 0, &c);
    pmix_status_t prc = PMIx_Finalize(NULL, 0);
    core_boot_call_end(rt, &c);
    core_boot_lock_destroy(rt);
    return prc == PMIX_SUCCESS ? 0 : CORE_EPEER;
}
