/*
 * Dynamic processes (MPI 11.8): MPI_Comm_spawn and _spawn_multiple, the
 * parent intercommunicator of a spawned job (made in MPI_Init, returned by
 * MPI_Comm_get_parent) and MPI_Comm_disconnect. Ports, names and
 * connect/accept are in port.c.
 *
 * A spawn: the root asks the launcher (core_boot_spawn, PMIx_Spawn) and
 * broadcasts the new job's name, or why there is none. Then the root and
 * the children's rank 0 meet on a two-process communicator over the
 * reserved context CORE_CTX_DYN and serve as the leaders of an
 * MPI_Intercomm_create between the parents' communicator and the
 * children's MPI_COMM_WORLD (api_intercomm_make), which exchanges the
 * groups (as uids, core/procs.h) and agrees on a context id free in both
 * jobs. The children run their half inside MPI_Init. From then on the
 * children are peers like any other: the transports find their addresses
 * through PMIx, as for the job's own ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api/api.h"
#include "api/attr.h"
#include "api/coll_check.h"
#include "api/dynamic.h"
#include "api/intercomm.h"
#include "api/xport.h"
#include "collectives/coll.h"
#include "core/bootdyn.h"
#include "core/group_ops.h"
#include "core/info_ops.h"
#include "core/log.h"
#include "core/procs.h"

#define SPAWN_TAG 11 /* on the two-process communicator of CORE_CTX_DYN */

/* The two-process communicator between this process and process idx of another job
 * (first: which of the two is its rank 0). */
int api_dyn_pair(int idx, int first, MPI_Comm *out)
{
    int ranks[2] = { first ? core_rt->rank : idx, first ? idx : core_rt->rank };
    MPI_Group g;
    int rc = core_group_create(2, ranks, core_rt->rank, &g);
    if (rc)
        return rc;
    rc = core_comm_create(g, CORE_CTX_DYN, MPI_ERRORS_RETURN, out);
    core_group_release(g);
    return rc;
}

int api_dyn_proc(const char *nspace, int rank, int ubase)
{
    int size, ub, rc = core_boot_job(core_rt, nspace, &size, &ub);
    if (rc)
        return CORE_EPORT;
    if (ub != ubase || rank >= size)
        return CORE_EPORT;
    return core_proc_add(core_rt, nspace, rank, ubase);
}

/* What the root tells its communicator after asking the launcher. */
typedef struct spawn_result {
    int rc;
    int size, ubase;
    int requested; /* processes asked for (maxprocs summed): errcodes on every rank has as many */
    char nspace[256];
    char why[512];
} spawn_result_t;

static int root_spawn(const core_spawn_app_t *apps, int napps, spawn_result_t *res)
{
    res->rc = core_boot_spawn(core_rt, apps, napps, res->nspace, sizeof(res->nspace), res->why,
                              sizeof(res->why));
    if (!res->rc && (res->rc = core_boot_job(core_rt, res->nspace, &res->size, &res->ubase)))
        snprintf(res->why, sizeof(res->why), "the spawned job %s cannot be addressed",
                 res->nspace);
    return res->rc;
}

/* Collective over comm: the root's spawn (apps significant there), then the intercommunicator. */
static int spawn_common(const core_spawn_app_t *apps, int napps, int root, MPI_Comm comm,
                        MPI_Comm *intercomm, int *errcodes, int nerr, const char *fn)
{
    spawn_result_t res;
    memset(&res, 0, sizeof(res));
    /* Every parent can be reached by the children before any of them starts. */
    int prc = rt_dyn_prepare();
    if (comm->rank == root) {
        res.requested = nerr;
        if (prc) {
            res.rc = CORE_ESPAWN;
            snprintf(res.why, sizeof(res.why), "no transport reaches other jobs: %s",
                     core_strerror(prc));
        } else {
            root_spawn(apps, napps, &res);
        }
    }
    int rc = coll_bcast(&res, (int)sizeof(res), MPI_BYTE, root, comm);
    if (rc)
        return api_error(comm, rc, fn, "telling the communicator the outcome failed: %s",
                         core_strerror(rc));
    res.nspace[sizeof(res.nspace) - 1] = res.why[sizeof(res.why) - 1] = '\0';
    /* array_of_errcodes is an output on every rank (maxprocs is the root's only): as long
     * as the root asked for, as MPICH and Open MPI fill it. */
    for (int i = 0; errcodes && i < res.requested; i++)
        errcodes[i] = res.rc ? MPI_ERR_SPAWN : MPI_SUCCESS;
    if (res.rc) {
        *intercomm = MPI_COMM_NULL;
        return api_error(comm, res.rc, fn, "%s", res.why[0] ? res.why : core_strerror(res.rc));
    }
    MPI_Comm pair = MPI_COMM_NULL;
    if (comm->rank == root) {
        int child0 = core_proc_add(core_rt, res.nspace, 0, res.ubase);
        rc = child0 < 0 ? child0 : api_dyn_pair(child0, 1, &pair);
    }
    const char *what = "reaching the spawned job's rank 0";
    if (!rc)
        rc = api_intercomm_make(comm, root, pair, 1, SPAWN_TAG, intercomm, &what);
    if (pair != MPI_COMM_NULL)
        core_comm_release(pair);
    if (rc)
        return api_error(comm, rc, fn, "the spawned job %s started, but %s failed: %s",
                         res.nspace, what, core_strerror(rc));
    return MPI_SUCCESS;
}

/* The keys of a spawn's info this launcher acts on ("host", "wdir", "path"); others are
 * ignored, as MPI allows. */
static void app_info(MPI_Info info, core_spawn_app_t *app)
{
    if (info == MPI_INFO_NULL)
        return;
    app->host = core_info_get(info, "host");
    app->wdir = core_info_get(info, "wdir");
    app->path = core_info_get(info, "path");
}

static int check_app(MPI_Comm comm, const char *cmd, int maxprocs, MPI_Info info,
                     const char *fn)
{
    if (!cmd || !*cmd)
        return api_error(comm, CORE_EINVAL, fn, "no command to spawn");
    if (maxprocs < 1)
        return api_error(comm, CORE_EINVAL, fn, "maxprocs %d (must be at least 1)", maxprocs);
    return api_check_info(comm, info, 1, fn);
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_spawn";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_coll_intra(comm, fn));
    if (root < 0 || root >= comm->size)
        return api_error(comm, CORE_EROOT, fn, "root %d of %s", root, core_comm_label(comm));
    API_CHECK(api_check_ptr(comm, intercomm, "intercomm", fn));
    core_spawn_app_t app = { command, argv, maxprocs, NULL, NULL, NULL };
    if (comm->rank == root) {
        API_CHECK(check_app(comm, command, maxprocs, info, fn));
        app_info(info, &app);
    }
    return spawn_common(&app, 1, root, comm, intercomm, array_of_errcodes, maxprocs, fn);
}
int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
    API_ALIAS(MPI_Comm_spawn);

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_spawn_multiple";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_coll_intra(comm, fn));
    if (root < 0 || root >= comm->size)
        return api_error(comm, CORE_EROOT, fn, "root %d of %s", root, core_comm_label(comm));
    API_CHECK(api_check_ptr(comm, intercomm, "intercomm", fn));
    core_spawn_app_t *apps = NULL;
    int total = 0;
    if (comm->rank == root) {
        if (count < 1)
            return api_error(comm, CORE_EINVAL, fn, "count %d (must be at least 1)", count);
        if (!array_of_commands || !array_of_maxprocs || !array_of_info)
            return api_error(comm, CORE_EINVAL, fn, "NULL array argument");
        if (!(apps = calloc((size_t)count, sizeof(*apps))))
            return api_error(comm, CORE_ENOMEM, fn, "out of memory");
        for (int i = 0; i < count; i++) {
            int rc = check_app(comm, array_of_commands[i], array_of_maxprocs[i],
                               array_of_info[i], fn);
            if (rc) {
                free(apps);
                return rc;
            }
            apps[i].cmd = array_of_commands[i];
            apps[i].argv = array_of_argv ? array_of_argv[i] : NULL;
            apps[i].maxprocs = array_of_maxprocs[i];
            app_info(array_of_info[i], &apps[i]);
            total += array_of_maxprocs[i];
        }
    }
    int rc = spawn_common(apps, count, root, comm, intercomm, array_of_errcodes, total, fn);
    free(apps);
    return rc;
}
int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info array_of_info[],
                            int root, MPI_Comm comm, MPI_Comm *intercomm,
                            int array_of_errcodes[]) API_ALIAS(MPI_Comm_spawn_multiple);

/*
 * MPI_Init of a spawned job: the children's half of spawn_common, over
 * MPI_COMM_WORLD with rank 0 as leader. A job that was not spawned has no
 * parent (nothing to do).
 */
int api_dyn_init(void)
{
    char pns[256];
    int prank, psize, pubase;
    int rc = core_boot_parent(core_rt, pns, sizeof(pns), &prank);
    if (rc == CORE_ENOTFOUND)
        return 0;
    if (rc || (rc = core_boot_job(core_rt, pns, &psize, &pubase)) || (rc = rt_dyn_prepare()))
        return rc;
    if (prank >= psize)
        return CORE_EPROTO;
    MPI_Comm pair = MPI_COMM_NULL;
    if (core_rt->rank == 0) {
        int idx = core_proc_add(core_rt, pns, prank, pubase);
        if (idx < 0 || (rc = api_dyn_pair(idx, 0, &pair)))
            return idx < 0 ? idx : rc;
    }
    const char *what = "";
    rc = api_intercomm_make(MPI_COMM_WORLD, 0, pair, 0, SPAWN_TAG, &core_rt->parent, &what);
    if (pair != MPI_COMM_NULL)
        core_comm_release(pair);
    if (rc)
        core_error("MPI_Init of a spawned job: %s with the parents (job %s) failed: %s", what,
                   pns, core_strerror(rc));
    else {
        core_comm_retain(core_rt->parent); /* ours: the application's may be freed (get_parent) */
        /* MPI 3.1, 10.3.2: its name, until the application names it otherwise */
        snprintf(core_rt->parent->name, sizeof(core_rt->parent->name), "MPI_COMM_PARENT");
    }
    return rc;
}

/* MPI_Finalize: the parent intercommunicator if the application did not free it. */
void api_dyn_fini(void)
{
    api_xport_close_all(); /* ports the application did not close */
    if (core_rt->parent) {
        MPI_Comm c = core_rt->parent;
        core_rt->parent = NULL;
        if (c->refcount > 1) /* the application's reference, never freed */
            core_comm_release(c);
        core_comm_release(c);
    }
}

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_get_parent";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_ptr(MPI_COMM_WORLD, parent, "parent", fn));
    if (core_rt->parent && core_rt->parent->refcount == 1) /* the application freed it */
        api_dyn_fini();
    *parent = core_rt->parent ? core_rt->parent : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
int MPI_Comm_get_parent(MPI_Comm *parent) API_ALIAS(MPI_Comm_get_parent);

/*
 * Waits for the traffic of comm to end (a barrier over it: every member has
 * posted all it will send on it and MPI's rule says the pending operations
 * must complete), then frees it. The parent intercommunicator stops being
 * the parent.
 */
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_disconnect";
    API_CHECK(api_check_init(fn));
    if (!comm)
        return api_error(MPI_COMM_NULL, CORE_ECOMM, fn, "NULL argument");
    API_CHECK(api_check_comm(*comm, fn));
    if ((*comm)->predefined)
        return api_error(*comm, CORE_ECOMM, fn, "cannot disconnect %s", core_comm_label(*comm));
    int rc = coll_barrier(*comm);
    if (rc)
        return api_error(*comm, rc, fn, "%s", core_strerror(rc));
    MPI_Comm c = *comm;
    rc = api_attr_comm_delete_all(c, fn);
    if (c == core_rt->parent) {
        core_rt->parent = NULL;
        core_comm_release(c); /* the reference MPI_Init kept */
    }
    core_comm_release(c);
    *comm = MPI_COMM_NULL;
    return rc;
}
int MPI_Comm_disconnect(MPI_Comm *comm) API_ALIAS(MPI_Comm_disconnect);
