/*
 * rdmpirun or rdmpid as the PMIx server of one node: init/finalize of the
 * libpmix server library in a private tmpdir, registration of the job and
 * of this node's ranks, and the upcalls.
 *
 * Upcalls run on libpmix's progress thread. They only record facts in the
 * rank table and wake the main loop; killing and printing happen there. An
 * upcall that finishes at once returns PMIX_OPERATION_SUCCEEDED and must
 * then not call its cbfunc (NOTES.md, pitfall 8).
 */
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OP_WAIT_SECONDS 30

/* The upcalls carry no context of ours except per-client server_object,
 * so the job they report to is kept here for the library's lifetime. */
static struct launch_job *server_job;

/* Completion of one asynchronous register/deregister call. */
struct op_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pmix_status_t status;
};

static struct op_wait *op_new(void)
{
    struct op_wait *w = calloc(1, sizeof(*w));
    if (w) {
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->cond, NULL);
    }
    return w;
}

static void op_done(pmix_status_t status, void *cbdata)
{
    struct op_wait *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/*
 * Waits for the callback of a call that returned rc, then frees w. If the
 * library never answers, w is leaked on purpose: a late callback must not
 * write into freed memory.
 */
static int op_wait(struct op_wait *w, pmix_status_t rc, const char *what)
{
    if (rc == PMIX_SUCCESS) {
        struct timespec until;
        int done;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += OP_WAIT_SECONDS;
        pthread_mutex_lock(&w->lock);
        while (!w->done && pthread_cond_timedwait(&w->cond, &w->lock, &until) != ETIMEDOUT)
            ;
        done = w->done;
        rc = w->status;
        pthread_mutex_unlock(&w->lock);
        if (!done) {
            fprintf(stderr, "%s: %s did not complete within %d s\n", launch_who, what, OP_WAIT_SECONDS);
            return -ETIMEDOUT;
        }
    } else if (rc == PMIX_OPERATION_SUCCEEDED) {
        rc = PMIX_SUCCESS;
    }
    free(w);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "%s: %s failed: %s\n", launch_who, what, PMIx_Error_string(rc));
        return -EIO;
    }
    return 0;
}

static int is_job(const struct launch_job *job, const pmix_proc_t *proc)
{
    return job && !strncmp(proc->nspace, job->nspace, PMIX_MAX_NSLEN);
}

/* The local rank a client is: of the job, or of a job its ranks spawned (dyn.c). */
static struct launch_rank *rank_of(const pmix_proc_t *proc)
{
    struct launch_job *job = server_job;

    if (!job)
        return NULL;
    if (!is_job(job, proc))
        return launch_dyn_rank(job, proc->nspace, proc->rank);
    if (proc->rank >= (pmix_rank_t)job->nranks || !job->ranks[proc->rank].local)
        return NULL;
    return &job->ranks[proc->rank];
}

/* Keeps the first abort of the job; the main thread reports it. */
void launch_record_abort(struct launch_job *job, int rank, int status, const char *msg)
{
    pthread_mutex_lock(&job->lock);
    if (!job->aborted) {
        job->aborted = 1;
        job->abort_rank = rank;
        job->abort_status = status;
        snprintf(job->abort_msg, sizeof(job->abort_msg), "%s", msg ? msg : "");
    }
    pthread_mutex_unlock(&job->lock);
    launch_wake(job->wake_fd[1], 0);
}

static pmix_status_t on_connected(const pmix_proc_t *proc, void *obj,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct launch_rank *r = rank_of(proc);
    (void)obj, (void)cbfunc, (void)cbdata;
    if (r)
        atomic_store(&r->connected, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t on_connected2(const pmix_proc_t *proc, void *obj, pmix_info_t info[],
                                   size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info, (void)ninfo;
    return on_connected(proc, obj, cbfunc, cbdata);
}

static pmix_status_t on_finalized(const pmix_proc_t *proc, void *obj,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct launch_rank *r = rank_of(proc);
    (void)obj, (void)cbfunc, (void)cbdata;
    if (r)
        atomic_store(&r->finalized, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

/*
 * Only the first abort is kept. It is recorded before this upcall returns,
 * so before the aborting rank can exit: the main loop, which checks this
 * record before judging any exit, reports the abort and not the exit.
 * The reply is never sent (PMIX_SUCCESS without calling cbfunc): the rank
 * stays blocked in PMIx_Abort until the teardown kills it, as the standard
 * lets it. Replying at once let libpmix race its write to that rank against
 * the teardown, and its libevent then printed "Epoll MOD ... Bad file
 * descriptor" warnings in about one run of ten.
 */
static pmix_status_t on_abort(const pmix_proc_t *proc, void *obj, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs,
                              pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct launch_job *job = server_job;
    struct launch_rank *r = rank_of(proc);

    (void)obj, (void)procs, (void)nprocs, (void)cbfunc, (void)cbdata;
    if (!r)
        return PMIX_ERR_NOT_FOUND;
    if (!is_job(job, proc)) { /* a spawned rank: named in the message, as -1 has no host */
        char text[sizeof(job->abort_msg)];
        snprintf(text, sizeof(text), "rank %d of spawned job %.63s on host %.63s: %.300s",
                 r->rank, proc->nspace, job->host, msg ? msg : "");
        launch_record_abort(job, -1, status, text);
        return PMIX_SUCCESS;
    }
    launch_record_abort(job, r->rank, status, msg);
    return PMIX_SUCCESS;
}

static void release_copy(void *cbdata)
{
    free(cbdata);
}

/*
 * Across nodes the fence goes over the daemon tree (fence.c). On one node
 * all ranks are local, so the collective is complete as soon as libpmix
 * asks (it normally completes such fences itself and never calls this).
 * The blob is handed back as a copy, owned by us until libpmix releases it.
 */
static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t info[], size_t ninfo, char *data, size_t ndata,
                              pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char *copy;

    (void)info, (void)ninfo;
    /* A fence of one job (the job's or a spawned one's): its own collective. */
    struct launch_job *job = nprocs ? launch_dyn_job_of(server_job, procs[0].nspace) : server_job;
    if (job && job->fence)
        return launch_fence_upcall(job, procs, nprocs, data, ndata, cbfunc, cbdata);
    copy = malloc(ndata ? ndata : 1);
    if (!copy)
        return PMIX_ERR_NOMEM;
    if (ndata)
        memcpy(copy, data, ndata);
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, release_copy, copy);
    return PMIX_SUCCESS;
}

static pmix_status_t on_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                               pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)info, (void)ninfo;
    struct launch_job *job = launch_dyn_job_of(server_job, proc->nspace);
    if (job && job->dmodex)
        return launch_dmodex_upcall(job, proc, cbfunc, cbdata);
    if (server_job && server_job->dmodex)
        return PMIX_ERR_NOT_FOUND; /* a namespace this run does not have */
    return PMIX_ERR_NOT_SUPPORTED; /* one node: every rank's data is already local */
}

static pmix_status_t on_spawn(const pmix_proc_t *proc, const pmix_info_t job_info[],
                              size_t ninfo, const pmix_app_t apps[], size_t napps,
                              pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    (void)job_info, (void)ninfo;
    if (!server_job)
        return PMIX_ERR_NOT_SUPPORTED;
    return launch_dyn_spawn_upcall(server_job, proc, apps, napps, cbfunc, cbdata);
}

/*
 * libpmix calls connect/disconnect once every local participant has called
 * it. On one node the collective is then complete. Across nodes it is a
 * barrier of the servers of every node holding a participant, carried by
 * the job's fences with those nodes as signature (fence.c).
 */
static pmix_status_t on_connect(const pmix_proc_t procs[], size_t nprocs,
                                const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct launch_job *job = server_job;
    char *part, *list;
    size_t len = 0;

    (void)info, (void)ninfo;
    if (!job)
        return PMIX_ERR_NOT_SUPPORTED;
    if (!job->tree)
        return PMIX_OPERATION_SUCCEEDED;
    if (!job->fence || !(part = calloc((size_t)job->nnodes, 1)))
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < nprocs; i++) {
        struct launch_job *j = launch_dyn_job_of(job, procs[i].nspace);
        int wild = procs[i].rank == PMIX_RANK_WILDCARD;
        if (!j || (!wild && procs[i].rank >= (pmix_rank_t)j->nranks)) {
            free(part);
            return PMIX_ERR_NOT_FOUND;
        }
        for (int r = 0; r < j->nranks; r++)
            if (wild || (pmix_rank_t)r == procs[i].rank)
                part[j->ranks[r].node] = 1;
    }
    if (!(list = malloc((size_t)job->nnodes * 11 + 1))) {
        free(part);
        return PMIX_ERR_NOMEM;
    }
    list[0] = '\0';
    for (int n = 0; n < job->nnodes; n++)
        if (part[n])
            len += (size_t)sprintf(list + len, len ? ",%d" : "%d", n);
    free(part);
    if (!len) { /* nobody to wait for */
        free(list);
        return PMIX_OPERATION_SUCCEEDED;
    }
    pmix_status_t rc = launch_fence_connect_upcall(job, list, cbfunc, cbdata);
    free(list);
    return rc;
}

/* The run's names are rdmpirun's table (names.c); a daemon forwards to it (namefwd.c). */
static pmix_status_t on_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (server_job && server_job->namefwd)
        return launch_namefwd_publish(server_job, proc, info, ninfo, cbfunc, cbdata);
    return server_job ? launch_names_publish(server_job, proc, info, ninfo)
                      : PMIX_ERR_NOT_SUPPORTED;
}

static pmix_status_t on_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                               size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    (void)info, (void)ninfo; /* PMIX_WAIT is not honoured: callers poll (namefwd.c) */
    if (server_job && server_job->namefwd)
        return launch_namefwd_lookup(server_job, proc, keys, cbfunc, cbdata);
    return server_job ? launch_names_lookup(server_job, keys, cbfunc, cbdata)
                      : PMIX_ERR_NOT_SUPPORTED;
}

static pmix_status_t on_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                                  size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info, (void)ninfo;
    if (server_job && server_job->namefwd)
        return launch_namefwd_unpublish(server_job, proc, keys, cbfunc, cbdata);
    return server_job ? launch_names_unpublish(server_job, proc, keys) : PMIX_ERR_NOT_SUPPORTED;
}

static pmix_server_module_t server_module = {
    .client_connected = on_connected,
    .client_connected2 = on_connected2,
    .client_finalized = on_finalized,
    .abort = on_abort,
    .fence_nb = on_fence,
    .direct_modex = on_dmodex,
    .spawn = on_spawn,
    .connect = on_connect,
    .disconnect = on_connect,
    .publish = on_publish,
    .lookup = on_lookup,
    .unpublish = on_unpublish,
};

/*
 * A short private directory: PMIx puts Unix sockets in it (108-byte limit).
 * rdmpirun's is rdmpirun-<pid>.*, a daemon's rdmpid-<nspace>-<vpid>.*, so
 * that a cleanup pass on a node whose daemon died can find it.
 */
static int make_tmpdir(struct launch_job *job)
{
    const char *base = getenv("TMPDIR");

    if (!base || !*base || strlen(base) > 64)
        base = "/tmp";
    if (job->is_daemon)
        snprintf(job->tmpdir, sizeof(job->tmpdir), "%s/rdmpid-%.40s-%d.XXXXXX", base, job->nspace,
                 job->nodes[job->my_node].vpid);
    else
        snprintf(job->tmpdir, sizeof(job->tmpdir), "%s/rdmpirun-%d.XXXXXX", base, (int)getpid());
    if (!mkdtemp(job->tmpdir)) {
        int err = errno;
        fprintf(stderr, "%s: cannot create a directory from %s: %s\n", launch_who, job->tmpdir,
                strerror(err));
        job->tmpdir[0] = '\0';
        return -err;
    }
    return 0;
}

static int server_init(struct launch_job *job)
{
    char server_ns[PMIX_MAX_NSLEN + 1];
    pmix_rank_t me = (pmix_rank_t)job->nodes[job->my_node].vpid;
    pmix_data_array_t arr;
    pmix_status_t rc = PMIX_ERR_NOMEM;
    void *list = PMIx_Info_list_start();

    snprintf(server_ns, sizeof(server_ns), "%s-srv", job->nspace);
    if (list) {
        rc = PMIx_Info_list_add(list, PMIX_SERVER_TMPDIR, job->tmpdir, PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = PMIx_Info_list_add(list, PMIX_SYSTEM_TMPDIR, job->tmpdir, PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = PMIx_Info_list_add(list, PMIX_SERVER_NSPACE, server_ns, PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = PMIx_Info_list_add(list, PMIX_SERVER_RANK, &me, PMIX_PROC_RANK);
        if (rc == PMIX_SUCCESS)
            rc = PMIx_Info_list_add(list, PMIX_HOSTNAME, job->host, PMIX_STRING);
        /* Our topology (binding.c), so that libpmix does not load its own. */
        pmix_topology_t topo = {.source = "hwloc", .topology = job->topology};
        if (rc == PMIX_SUCCESS && job->topology)
            rc = PMIx_Info_list_add(list, PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
        if (rc == PMIX_SUCCESS)
            rc = PMIx_Info_list_convert(list, &arr);
        PMIx_Info_list_release(list);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_server_init(&server_module, arr.array, arr.size);
        PMIX_DATA_ARRAY_DESTRUCT(&arr);
    }
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "%s: PMIx server init failed: %s\n", launch_who, PMIx_Error_string(rc));
        return -EIO;
    }
    return 0;
}

/* Creates the tmpdir, starts the server and registers the job's nspace. */
int launch_server_start(struct launch_job *job)
{
    int rc;

    rc = make_tmpdir(job);
    if (rc)
        return rc;
    server_job = job;
    rc = server_init(job);
    if (rc)
        return rc;
    job->server_up = 1;
    return launch_server_register_job(job);
}

/* Registers job's namespace (the job's own, or one its ranks spawned) with the running server. */
int launch_server_register_job(struct launch_job *job)
{
    pmix_nspace_t ns;
    pmix_data_array_t info;
    struct op_wait *w;
    int rc = launch_nspace_info(job, &info);

    if (rc)
        return rc;
    w = op_new();
    if (!w) {
        PMIX_DATA_ARRAY_DESTRUCT(&info);
        return -ENOMEM;
    }
    PMIX_LOAD_NSPACE(ns, job->nspace);
    rc = op_wait(w, PMIx_server_register_nspace(ns, job->nlocal, info.array, info.size,
                                                op_done, w),
                 "registering the job with PMIx");
    PMIX_DATA_ARRAY_DESTRUCT(&info);
    return rc;
}

/* The port in the server URI setup_fork gave a client ("ns.rank;tcp4://127.0.0.1:PORT"). */
static int uri_port(char **env)
{
    for (char **e = env; e && *e; e++) {
        if (strncmp(*e, "PMIX_SERVER_URI", 15))
            continue;
        const char *colon = strrchr(*e, ':');
        long port = colon ? strtol(colon + 1, NULL, 10) : 0;
        if (colon && strstr(*e, "tcp") && port > 0 && port < 65536)
            return (int)port;
    }
    return 0;
}

/*
 * Registers one rank and adds to *env what its PMIx client needs to find
 * this server. Must complete before the rank is forked, or it could connect
 * before the server knows it.
 */
int launch_server_add_client(struct launch_job *job, int rank, char ***env)
{
    pmix_proc_t proc;
    struct op_wait *w = op_new();
    pmix_status_t prc;
    int rc;

    if (!w)
        return -ENOMEM;
    PMIX_LOAD_PROCID(&proc, job->nspace, (pmix_rank_t)rank);
    rc = op_wait(w, PMIx_server_register_client(&proc, getuid(), getgid(), &job->ranks[rank],
                                                op_done, w),
                 "registering a rank with PMIx");
    if (rc)
        return rc;
    prc = PMIx_server_setup_fork(&proc, env);
    if (prc != PMIX_SUCCESS) {
        fprintf(stderr, "%s: PMIx_server_setup_fork failed for rank %d: %s\n", launch_who, rank,
                PMIx_Error_string(prc));
        return -EIO;
    }
    if (server_job && !server_job->server_port)
        server_job->server_port = uri_port(*env);
    return 0;
}

int launch_server_port(void)
{
    return server_job ? server_job->server_port : 0;
}

/*
 * A local rank (of job, which is the job or one its ranks spawned) was reaped. libpmix is
 * told before the run reacts (the teardown kills the other ranks): libpmix 4.2.2 completes a
 * local PMIx_Connect tracker when one participant's connection drops, but only queues that
 * completion; if a second participant's drop is handled before it runs (the teardown's kill of
 * a rank blocked in PMIx_Connect), it completes the same tracker again and frees it twice,
 * which left its progress thread locking freed memory and rdmpirun hanging in
 * PMIx_server_finalize. Deregistering goes through the progress thread's queue behind any
 * completion the drop already queued, and closes the connection itself if the drop was not
 * seen yet (libpmix then does not count it as lost), so the kills come after either.
 */
void launch_server_client_gone(struct launch_job *job, int rank)
{
    pmix_proc_t proc;
    struct op_wait *w;

    /*
     * Not a rank that finalized: libpmix 4.2.2's deregistration closes the client's socket
     * without removing its read event, so when the exit is reaped before libpmix read the
     * end of the connection, the next client given the same descriptor number (a rank
     * spawned next) was never polled: it hung in PMIx_Init with its first request unread (one
     * spawn in about forty under load). A finalized rank's end is read by libpmix itself, and
     * it cannot be blocked in PMIx_Connect, the case the deregistration is here for.
     */
    if (atomic_load(&job->ranks[rank].finalized))
        return;
    if (!server_job || server_job->server_stuck || !job->server_up || !(w = op_new()))
        return;
    PMIX_LOAD_PROCID(&proc, job->nspace, (pmix_rank_t)rank);
    PMIx_server_deregister_client(&proc, op_done, w);
    /* A progress thread that does not answer would cost every later exit the full wait. */
    if (op_wait(w, PMIX_SUCCESS, "deregistering a rank from PMIx") == -ETIMEDOUT)
        server_job->server_stuck = 1;
}

void launch_server_stop(struct launch_job *job)
{
    pmix_nspace_t ns;
    struct op_wait *w;

    if (!job->server_up)
        return;
    w = op_new();
    if (w) {
        PMIX_LOAD_NSPACE(ns, job->nspace);
        PMIx_server_deregister_nspace(ns, op_done, w);
        op_wait(w, PMIX_SUCCESS, "deregistering the job from PMIx");
    }
    PMIx_server_finalize();
    job->server_up = 0;
    server_job = NULL;
}
