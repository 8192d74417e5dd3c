/*
 * Dynamic processes over PMIx, the client side (core/bootdyn.h).
 *
 * PMIx keys are at most PMIX_MAX_KEYLEN characters: a service name is
 * published under "rdmpi.svc." and as much of the name as fits, and the
 * value carries the whole name before the port, so that two long names
 * sharing a prefix are told apart when looked up.
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/bootcall.h"
#include "core/bootdyn.h"
#include "core/log.h"
#include "core/secret.h"

#define SVC_PREFIX "rdmpi.svc."

/* The launcher of a job that is not rdmpirun's, for messages: its environment names it. */
static const char *launcher_name(void)
{
    if (getenv("SLURM_STEP_ID") || getenv("SLURM_JOB_ID"))
        return "srun";
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("OMPI_MCA_orte_hnp_uri") ||
        getenv("PRTE_LAUNCHED"))
        return "Open MPI's mpirun";
    return "this process's launcher (not rdmpirun)";
}

int core_boot_spawn(core_runtime_t *rt, const core_spawn_app_t *apps, int napps, char *nspace,
                    size_t len, char *why, size_t wlen)
{
    if (rt->singleton) {
        snprintf(why, wlen, "this process was started without a launcher (a singleton): "
                 "start it with rdmpirun to spawn");
        return CORE_ESPAWN;
    }
    if (!rt->launcher_numbers) {
        /* Only rdmpirun numbers the processes of the jobs it runs, which the children need
         * to be told apart from their parents; asking another launcher could start children
         * that fail in MPI_Init while the parents wait, so it is not asked at all. */
        snprintf(why, wlen, "%s does not support spawn: launch with rdmpirun",
                 launcher_name());
        return CORE_ESPAWN;
    }
    pmix_app_t *pa;
    PMIX_APP_CREATE(pa, (size_t)napps);
    if (!pa)
        return CORE_ENOMEM;
    pmix_status_t prc = PMIX_SUCCESS;
    for (int i = 0; i < napps && prc == PMIX_SUCCESS; i++) {
        int n = 0;
        while (apps[i].argv && apps[i].argv[n])
            n++;
        pa[i].cmd = strdup(apps[i].cmd);
        pa[i].argv = calloc((size_t)n + 2, sizeof(char *));
        if (!pa[i].cmd || !pa[i].argv) {
            prc = PMIX_ERR_NOMEM;
            break;
        }
        pa[i].argv[0] = strdup(apps[i].cmd);
        for (int k = 0; k < n; k++)
            pa[i].argv[k + 1] = strdup(apps[i].argv[k]);
        pa[i].maxprocs = apps[i].maxprocs;
        size_t ninfo = (apps[i].host != NULL) + (apps[i].wdir != NULL) +
                       (apps[i].path != NULL), k = 0;
        if (ninfo) {
            PMIX_INFO_CREATE(pa[i].info, ninfo);
            pa[i].ninfo = ninfo;
            if (apps[i].host)
                PMIX_INFO_LOAD(&pa[i].info[k++], PMIX_HOST, apps[i].host, PMIX_STRING);
            if (apps[i].wdir)
                PMIX_INFO_LOAD(&pa[i].info[k++], PMIX_WDIR, apps[i].wdir, PMIX_STRING);
            if (apps[i].path)
                PMIX_INFO_LOAD(&pa[i].info[k++], CORE_SPAWN_PATH_PMIX, apps[i].path,
                               PMIX_STRING);
        }
    }
    pmix_nspace_t ns;
    memset(ns, 0, sizeof(ns));
    if (prc == PMIX_SUCCESS) {
        /* A spawn lasts as long as the launcher takes to start the job (seconds under load):
         * outside the critical section, so the rank's other threads go on meanwhile. */
        core_boot_call_t c;
        core_boot_call_begin(rt, 1, &c);
        prc = PMIx_Spawn(NULL, 0, pa, (size_t)napps, ns);
        core_boot_call_end(rt, &c);
    }
    PMIX_APP_FREE(pa, (size_t)napps);
    if (prc == PMIX_ERR_NOMEM)
        return CORE_ENOMEM;
    if (prc != PMIX_SUCCESS) {
        if (prc == PMIX_ERR_NOT_SUPPORTED)
            snprintf(why, wlen, "the launcher does not spawn processes here (%s)",
                     PMIx_Error_string(prc));
        else
            snprintf(why, wlen, "the launcher refused the spawn: %s (its own message, if any, "
                     "is on its standard error)", PMIx_Error_string(prc));
        return CORE_ESPAWN;
    }
    snprintf(nspace, len, "%.*s", PMIX_MAX_NSLEN, ns);
    return 0;
}

static int get_u32(core_runtime_t *rt, const char *nspace, const char *key, int *out)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    PMIX_PROC_LOAD(&wild, nspace, PMIX_RANK_WILDCARD);
    /* Its callers (spawn, connect, intercommunicator creation) hold nothing another thread
     * could disturb: outside the critical section, so that waiting here for another thread's
     * spawn (core/bootcall.h) does not stop the rank's progress. */
    core_boot_call_t c;
    core_boot_call_begin(rt, 1, &c);
    pmix_status_t prc = PMIx_Get(&wild, key, NULL, 0, &v);
    core_boot_call_end(rt, &c);
    if (prc != PMIX_SUCCESS || !v)
        return CORE_ENOTFOUND;
    int rc = 0;
    if (v->type == PMIX_UINT32 && v->data.uint32 < (1u << 30))
        *out = (int)v->data.uint32;
    else
        rc = CORE_EINVAL;
    PMIX_VALUE_RELEASE(v);
    return rc;
}

int core_boot_job(core_runtime_t *rt, const char *nspace, int *size, int *ubase)
{
    if (get_u32(rt, nspace, PMIX_JOB_SIZE, size) || *size < 1) {
        core_error("the launcher says nothing of job %s's size", nspace);
        return CORE_ESPAWN;
    }
    if (get_u32(rt, nspace, CORE_UBASE_PMIX, ubase)) {
        core_error("the launcher does not number the processes of its jobs (%s): "
                   "processes of two jobs cannot be told apart", CORE_UBASE_PMIX);
        return CORE_ESPAWN;
    }
    return 0;
}

int core_boot_parent(core_runtime_t *rt, char *nspace, size_t len, int *rank)
{
    if (rt->singleton)
        return CORE_ENOTFOUND;
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    PMIX_PROC_LOAD(&wild, rt->nspace, PMIX_RANK_WILDCARD);
    core_boot_call_t c;
    core_boot_call_begin(rt, 1, &c);
    pmix_status_t prc = PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v);
    core_boot_call_end(rt, &c);
    if (prc != PMIX_SUCCESS || !v)
        return CORE_ENOTFOUND;
    int rc = CORE_EINVAL;
    if (v->type == PMIX_PROC && v->data.proc && v->data.proc->rank < (1u << 30)) {
        snprintf(nspace, len, "%.*s", PMIX_MAX_NSLEN, v->data.proc->nspace);
        *rank = (int)v->data.proc->rank;
        rc = 0;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

static void svc_key(pmix_key_t key, const char *service)
{
    memset(key, 0, sizeof(pmix_key_t));
    snprintf(key, sizeof(pmix_key_t), SVC_PREFIX "%s", service);
}

int core_boot_publish(core_runtime_t *rt, const char *service, const char *port)
{
    if (rt->singleton)
        return CORE_ESERVICE;
    size_t n = strlen(service) + strlen(port) + 2;
    char *val = malloc(n);
    if (!val)
        return CORE_ENOMEM;
    snprintf(val, n, "%s\n%s", service, port); /* a service name has no newline (checked) */
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    svc_key(info.key, service);
    info.value.type = PMIX_STRING;
    info.value.data.string = val;
    /* The name service is the launcher's: outside the critical section, as a lookup. */
    core_boot_call_t c;
    core_boot_call_begin(rt, 1, &c);
    pmix_status_t prc = PMIx_Publish(&info, 1);
    core_boot_call_end(rt, &c);
    PMIX_INFO_DESTRUCT(&info); /* frees val */
    if (prc == PMIX_SUCCESS)
        return 0;
    core_debug("PMIx_Publish(%s): %s", service, PMIx_Error_string(prc));
    return prc == PMIX_ERR_DUPLICATE_KEY || prc == PMIX_EXISTS ? CORE_ESERVICE : CORE_EOTHER;
}

int core_boot_lookup(core_runtime_t *rt, const char *service, char *port, size_t len)
{
    if (rt->singleton)
        return CORE_ENAME;
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    svc_key(pd.key, service);
    core_boot_call_t c;
    core_boot_call_begin(rt, 1, &c);
    pmix_status_t prc = PMIx_Lookup(&pd, 1, NULL, 0);
    core_boot_call_end(rt, &c);
    int rc = CORE_ENAME;
    if (prc == PMIX_SUCCESS && pd.value.type == PMIX_STRING && pd.value.data.string) {
        const char *v = pd.value.data.string, *nl = strchr(v, '\n');
        size_t sl = strlen(service);
        if (nl && (size_t)(nl - v) == sl && !strncmp(v, service, sl) && strlen(nl + 1) < len) {
            snprintf(port, len, "%s", nl + 1);
            rc = 0;
        }
    }
    PMIX_PDATA_DESTRUCT(&pd);
    return rc;
}

int core_boot_unpublish(core_runtime_t *rt, const char *service)
{
    if (rt->singleton)
        return CORE_ESERVICE;
    pmix_key_t key;
    svc_key(key, service);
    char *keys[2] = { key, NULL };
    core_boot_call_t c;
    core_boot_call_begin(rt, 1, &c);
    pmix_status_t prc = PMIx_Unpublish(keys, NULL, 0);
    core_boot_call_end(rt, &c);
    return prc == PMIX_SUCCESS ? 0 : CORE_ESERVICE;
}
