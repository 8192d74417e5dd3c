/*
 * Jobs that the ranks spawn (MPI_Comm_spawn through PMIx_Spawn), served by
 * rdmpirun.
 *
 * The spawn upcall runs on libpmix's thread: it checks and copies the
 * request, queues it and wakes the main thread, which resolves the
 * programs, registers the new namespace and its ranks, forks them and only
 * then answers libpmix (so the parent's PMIx_Spawn returns once every child
 * is registered and can be connected to). A spawned job is a struct
 * launch_job of its own (rank table, applications) that shares the
 * parent's node table, tmpdir and job key: one launcher is one trust
 * domain, and the transports' handshakes, keyed by the job key, then let a
 * child reach its parents. Spawned ranks are judged like the job's own: one
 * that fails fails the whole run, and the teardown reaches them too.
 *
 * On one node everything happens here. In a job across nodes (dyntree.c)
 * a daemon's request goes up to rdmpirun, which places the ranks on the
 * nodes of the run and has every daemon register the namespace and start
 * its share; the ranks then reach each other and their parents like the
 * job's own across nodes (fences and direct modex over the tree).
 */
#include "dyn_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int launch_dyn_create(struct launch_job *job)
{
    struct launch_dyn *d = calloc(1, sizeof(*d));

    if (!d)
        return -ENOMEM;
    pthread_mutex_init(&d->lock, NULL);
    d->next_ubase = job->nranks;
    job->dyn = d;
    return 0;
}

void dyn_req_free(struct dyn_req *q)
{
    if (!q)
        return;
    launch_dyn_apps_free(q->apps, q->napps);
    free(q);
}

void launch_dyn_destroy(struct launch_job *job)
{
    struct launch_dyn *d = job->dyn;

    if (!d)
        return;
    while (d->head) {
        struct dyn_req *q = d->head;
        d->head = q->next;
        dyn_req_free(q);
    }
    while (d->asked) {
        struct dyn_asked *a = d->asked;
        d->asked = a->next;
        free(a);
    }
    while (d->jobs) {
        struct dyn_job *j = d->jobs;
        d->jobs = j->next;
        launch_cleanup_shm(j->job.nspace, j->job.job_key);
        dyn_job_free(j);
    }
    free(d);
    job->dyn = NULL;
}

/* A NULL-terminated deep copy of v (n entries, or up to its NULL when n < 0). */
static char **strv_dup(char *const *v, int n)
{
    int len = 0;
    char **out;

    while (v && (n < 0 ? v[len] != NULL : len < n))
        len++;
    out = calloc((size_t)len + 1, sizeof(*out));
    for (int i = 0; out && i < len; i++) {
        if (!(out[i] = strdup(v[i] ? v[i] : ""))) {
            launch_env_free(out);
            return NULL;
        }
    }
    return out;
}

/* On one node, each comma-separated name of a "host" value must be this node. */
static int host_ok(const struct launch_job *job, const char *list, char *why, size_t len)
{
    char name[256];

    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n > 0) {
            snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), p);
            if (!launch_host_is_here(name, job->host)) {
                snprintf(why, len, "spawning on host '%.100s' is not supported: it is not in "
                         "this run's allocation (rdmpirun runs on one node, %.100s)", name,
                         job->host);
                return 0;
            }
        }
        p += n + (p[n] == ',');
    }
    return 1;
}

static int copy_app(const struct launch_job *job, const pmix_app_t *in, struct launch_app *out,
                    char *why, size_t len)
{
    const char *cmd = in->cmd && *in->cmd ? in->cmd : in->argv && in->argv[0] ? in->argv[0] : NULL;

    if (!cmd) {
        snprintf(why, len, "spawn request without a command");
        return -EINVAL;
    }
    if (in->maxprocs < 1 || in->maxprocs > DYN_MAX_PROCS) {
        snprintf(why, len, "spawn of %d processes of %s (1..%d allowed)", in->maxprocs, cmd,
                 DYN_MAX_PROCS);
        return -EINVAL;
    }
    if (strlen(cmd) >= sizeof(out->prog)) {
        snprintf(why, len, "spawn of a command longer than %d", PATH_MAX - 1);
        return -EINVAL;
    }
    out->nprocs = in->maxprocs;
    if (in->argv && in->argv[0]) {
        out->argv = strv_dup(in->argv, -1);
    } else {
        char *one[1] = {(char *)cmd};
        out->argv = strv_dup(one, 1);
    }
    out->env = strv_dup(in->env, -1);
    if (!out->argv || !out->env)
        return -ENOMEM;
    /* What to run is cmd; argv[0] is what the program sees. */
    snprintf(out->prog, sizeof(out->prog), "%s", cmd);
    if (in->cwd && *in->cwd)
        snprintf(out->cwd, sizeof(out->cwd), "%s", in->cwd);
    for (size_t i = 0; i < in->ninfo; i++) {
        const pmix_info_t *inf = &in->info[i];
        if (inf->value.type != PMIX_STRING || !inf->value.data.string)
            continue;
        const char *v = inf->value.data.string;
        if (PMIX_CHECK_KEY(inf, PMIX_WDIR)) {
            snprintf(out->cwd, sizeof(out->cwd), "%s", v);
        } else if (PMIX_CHECK_KEY(inf, CORE_SPAWN_PATH_PMIX) && !out->path) {
            if (strlen(v) >= PATH_MAX) {
                snprintf(why, len, "spawn of %s: info \"path\" longer than %d", cmd, PATH_MAX);
                return -EINVAL;
            }
            if (!(out->path = strdup(v)))
                return -ENOMEM;
        } else if ((PMIX_CHECK_KEY(inf, PMIX_HOST) || PMIX_CHECK_KEY(inf, PMIX_ADD_HOST)) &&
                   !out->host) {
            if (!job->tree) { /* one node: nothing to place */
                if (!host_ok(job, v, why, len))
                    return -EINVAL;
            } else if (strlen(v) > LAUNCH_DYN_MAX_HOSTS) {
                snprintf(why, len, "spawn of %s: info \"host\" longer than %d", cmd,
                         LAUNCH_DYN_MAX_HOSTS);
                return -EINVAL;
            } else if (!(out->host = strdup(v))) {
                return -ENOMEM;
            }
        }
    }
    /* A relative "wdir" would be taken from wherever the rank's node started it. */
    if (out->cwd[0] && out->cwd[0] != '/') {
        char here[PATH_MAX], abs[PATH_MAX];
        if (!getcwd(here, sizeof(here)) ||
            snprintf(abs, sizeof(abs), "%s/%s", here, out->cwd) >= (int)sizeof(abs)) {
            snprintf(why, len, "spawn of %s: working directory %.200s too long", cmd, out->cwd);
            return -EINVAL;
        }
        memcpy(out->cwd, abs, sizeof(abs));
    }
    return 0;
}

/* Upcall (libpmix's thread): the checks that need no file system, then the queue. */
pmix_status_t launch_dyn_spawn_upcall(struct launch_job *job, const pmix_proc_t *parent,
                                      const pmix_app_t apps[], size_t napps,
                                      pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    struct launch_dyn *d = job->dyn;
    struct dyn_req *q;
    long total = 0;
    int rc = 0;

    if (!d)
        return PMIX_ERR_NOT_SUPPORTED;
    if (napps == 0 || napps > DYN_MAX_PROCS)
        return PMIX_ERR_BAD_PARAM;
    if (!(q = calloc(1, sizeof(*q))) || !(q->apps = calloc(napps, sizeof(*q->apps)))) {
        free(q);
        return PMIX_ERR_NOMEM;
    }
    q->napps = (int)napps;
    q->cbfunc = cbfunc;
    q->cbdata = cbdata;
    snprintf(q->parent_nspace, sizeof(q->parent_nspace), "%.63s", parent->nspace);
    q->parent_rank = (int)parent->rank;
    for (size_t i = 0; !rc && i < napps; i++) {
        rc = copy_app(job, &apps[i], &q->apps[i], q->why, sizeof(q->why));
        total += q->apps[i].nprocs;
    }
    if (!rc && total > DYN_MAX_PROCS)
        snprintf(q->why, sizeof(q->why), "spawn of %ld processes (at most %d)", total,
                 DYN_MAX_PROCS);
    if (rc == -ENOMEM) {
        dyn_req_free(q);
        return PMIX_ERR_NOMEM;
    }
    pthread_mutex_lock(&d->lock);
    if (d->tail)
        d->tail->next = q;
    else
        d->head = q;
    d->tail = q;
    pthread_mutex_unlock(&d->lock);
    launch_wake(job->wake_fd[1], 0);
    return PMIX_SUCCESS;
}

void dyn_job_inherit(struct launch_job *parent, struct launch_job *job)
{
    job->opts = parent->opts;
    memcpy(job->job_key, parent->job_key, sizeof(job->job_key));
    memcpy(job->host, parent->host, sizeof(job->host));
    memcpy(job->tmpdir, parent->tmpdir, sizeof(job->tmpdir));
    job->ncores = parent->ncores;
    job->nnodes = parent->nnodes;
    job->nodes = parent->nodes;
    job->my_node = parent->my_node;
    job->topology = parent->topology;
    job->wake_fd[0] = parent->wake_fd[0];
    job->wake_fd[1] = parent->wake_fd[1];
    job->tree = parent->tree;
    job->is_daemon = parent->is_daemon;
    job->server_up = 1;
    job->oversubscribed = parent->oversubscribed;
    pthread_mutex_init(&job->lock, NULL);
}

/* The child job on this one node, from its parent and its applications. */
static int child_job(struct launch_job *parent, struct dyn_req *q, struct dyn_job *dj)
{
    struct launch_job *job = &dj->job;
    int total = 0, r = 0;

    for (int a = 0; a < q->napps; a++)
        total += q->apps[a].nprocs;
    dyn_job_inherit(parent, job);
    memcpy(job->parent_nspace, q->parent_nspace, sizeof(job->parent_nspace));
    job->parent_rank = q->parent_rank;
    snprintf(job->nspace, sizeof(job->nspace), "%.40s-s%d", parent->nspace, parent->dyn->njobs++);
    job->dyn_index = (uint32_t)parent->dyn->njobs;
    job->oversubscribed = parent->oversubscribed || parent->nlocal + total > parent->ncores;
    job->ranks = calloc((size_t)total, sizeof(*job->ranks));
    if (!job->ranks)
        return -ENOMEM;
    job->nranks = job->nlocal = total;
    job->ubase = parent->dyn->next_ubase;
    parent->dyn->next_ubase += total;
    for (int a = 0; a < q->napps; a++) {
        for (int k = 0; k < q->apps[a].nprocs; k++, r++) {
            struct launch_rank *rk = &job->ranks[r];
            rk->rank = rk->local_rank = r;
            rk->node = parent->my_node;
            rk->local = 1;
            rk->core = -1;
            rk->app = a;
            rk->out_pipe[0] = rk->out_pipe[1] = rk->err_pipe[0] = rk->err_pipe[1] = -1;
            rk->stdin_fd = -1;
        }
    }
    job->apps = q->apps;
    job->napps = q->napps;
    q->apps = NULL;
    q->napps = 0;
    return 0;
}

int dyn_resolve_apps(struct launch_job *job, char *why, size_t len)
{
    for (int a = 0; a < job->napps; a++) {
        struct launch_app *app = &job->apps[a];
        char path[PATH_MAX], here[PATH_MAX];
        int used = 0;

        for (int r = 0; r < job->nranks; r++)
            used |= job->ranks[r].local && job->ranks[r].app == a;
        if (!used) /* started elsewhere */
            continue;
        if (launch_spawn_resolve_in(app->path, app->prog, path, sizeof(path))) {
            snprintf(why, len, "cannot spawn '%.200s' on host %.100s: not found or not "
                     "executable%s%.200s", app->prog, job->host, app->path ? " in " : "",
                     app->path ? app->path : "");
            return -ENOENT;
        }
        /* Found from the directory rdmpirun (and every daemon) runs in, the job's; made
         * absolute, since the rank may run in another one ("wdir"). */
        if (path[0] != '/' && getcwd(here, sizeof(here))) {
            if (snprintf(app->prog, sizeof(app->prog), "%s/%s", here, path) >=
                (int)sizeof(app->prog)) {
                snprintf(why, len, "cannot spawn '%.200s': path too long", path);
                return -ENOENT;
            }
        } else {
            memcpy(app->prog, path, sizeof(path));
        }
        if (app->cwd[0] && access(app->cwd, X_OK)) {
            snprintf(why, len, "cannot spawn '%.200s' on host %.100s: working directory "
                     "%.200s: %s", app->prog, job->host, app->cwd, strerror(errno));
            return -ENOENT;
        }
    }
    return 0;
}

void dyn_link(struct launch_job *parent, struct dyn_job *dj)
{
    dj->next = parent->dyn->jobs;
    __atomic_store_n(&parent->dyn->jobs, dj, __ATOMIC_RELEASE);
}

/* Main thread, one node: makes the namespace and starts its ranks. Returns 0 or sets why. */
static int start_job(struct launch_job *parent, struct dyn_req *q, struct dyn_job **out)
{
    struct dyn_job *dj = calloc(1, sizeof(*dj));
    int rc;

    if (!dj)
        return -ENOMEM;
    rc = child_job(parent, q, dj);
    if (!rc)
        rc = dyn_resolve_apps(&dj->job, q->why, sizeof(q->why));
    if (!rc && (rc = launch_server_register_job(&dj->job)) != 0)
        snprintf(q->why, sizeof(q->why), "cannot register the new namespace with PMIx");
    if (rc) {
        dyn_job_free(dj);
        return rc;
    }
    /* Listed before any fork, so that every pid we reap is found. */
    dyn_link(parent, dj);
    rc = launch_spawn_all(&dj->job);
    for (int i = 0; i < dj->job.nranks; i++)
        dj->nalive += dj->job.ranks[i].alive;
    if (rc) {
        snprintf(q->why, sizeof(q->why), "cannot start the spawned ranks of %s", dj->job.nspace);
        for (int i = 0; i < dj->job.nranks; i++)
            if (dj->job.ranks[i].alive)
                kill(-dj->job.ranks[i].pid, SIGKILL);
        return rc;
    }
    *out = dj;
    return 0;
}

void dyn_finish(struct launch_job *job, struct dyn_req *q, int rc, const char *nspace,
                const char *why)
{
    pmix_status_t st = !rc ? PMIX_SUCCESS : rc == -ENOENT ? PMIX_ERR_NOT_FOUND
                       : rc == -EINVAL ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERROR;
    pmix_nspace_t ns;

    if (rc)
        fprintf(stderr, "%s: spawn failed: %s\n", launch_who, why && why[0] ? why : strerror(-rc));
    PMIX_LOAD_NSPACE(ns, rc ? "" : nspace);
    if (q->cbfunc) {
        q->cbfunc(st, ns, q->cbdata);
    } else if (q->from > 0) {
        struct launch_dyn_resp_msg m = {.id = q->from_id, .status = st};
        struct launch_buf b = {0};
        snprintf(m.nspace, sizeof(m.nspace), "%s", rc ? "" : nspace);
        snprintf(m.why, sizeof(m.why), "%s", rc && why ? why : "");
        launch_dyn_resp_encode(&b, &m);
        if (!b.err)
            launch_tree_send(job->tree, MSG_SPAWN_RESP, (uint32_t)q->from, b.p, b.len);
        lbuf_free(&b);
    }
    dyn_req_free(q);
}

void launch_dyn_progress(struct launch_job *job)
{
    struct launch_dyn *d = job->dyn;

    while (d) {
        struct dyn_job *dj = NULL;
        struct dyn_req *q;

        pthread_mutex_lock(&d->lock);
        q = d->head;
        if (q && !(d->head = q->next))
            d->tail = NULL;
        pthread_mutex_unlock(&d->lock);
        if (!q)
            break;
        q->next = NULL;
        if (job->is_daemon) {
            dyn_tree_ask(job, q);
        } else if (q->why[0]) {
            dyn_finish(job, q, -EINVAL, "", q->why);
        } else if (job->tree) {
            dyn_tree_start(job, q);
        } else {
            int rc = start_job(job, q, &dj);
            dyn_finish(job, q, rc, dj ? dj->job.nspace : "", q->why);
        }
    }
    for (struct dyn_job *j = d ? d->jobs : NULL; j; j = j->next) {
        launch_fence_progress(&j->job);
        launch_dmodex_progress(&j->job);
    }
}

/*
 * Read from libpmix's thread (client upcalls): the list only grows, at its
 * head, before the new job's ranks exist, and jobs are freed only after the
 * server stopped; a job published with a plain store of the head is thus
 * either seen whole or not at all.
 */
struct launch_rank *launch_dyn_rank(struct launch_job *job, const char *nspace, unsigned rank)
{
    struct launch_job *j = launch_dyn_job_of(job, nspace);

    if (!j || j == job)
        return NULL;
    return rank < (unsigned)j->nranks && j->ranks[rank].local ? &j->ranks[rank] : NULL;
}

struct launch_job *launch_dyn_job_of(struct launch_job *job, const char *nspace)
{
    if (!job)
        return NULL;
    if (!strncmp(job->nspace, nspace, PMIX_MAX_NSLEN))
        return job;
    if (!job->dyn)
        return NULL;
    for (struct dyn_job *j = __atomic_load_n(&job->dyn->jobs, __ATOMIC_ACQUIRE); j; j = j->next)
        if (!strncmp(j->job.nspace, nspace, PMIX_MAX_NSLEN))
            return &j->job;
    return NULL;
}

int dyn_judge(struct launch_job *parent, struct dyn_job *j, int i, int status, int reporting)
{
    struct launch_rank *r = &j->job.ranks[i];
    const char *host = parent->nodes ? parent->nodes[r->node].host : parent->host;

    r->alive = 0;
    r->status = status;
    j->nalive--;
    if (j->cancelled)
        return 0;
    int before = atomic_load(&r->connected) && !atomic_load(&r->finalized);
    int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
               : WEXITSTATUS(status) ? WEXITSTATUS(status) : before;
    if (code && reporting) {
        if (WIFSIGNALED(status))
            fprintf(stderr, "rdmpirun: rank %d of spawned job %s (pid %d) on host %s was "
                    "killed by signal %d (%s); terminating the job\n", i, j->job.nspace,
                    (int)r->pid, host, WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
            fprintf(stderr, "rdmpirun: rank %d of spawned job %s (pid %d) on host %s "
                    "exited with status %d%s; terminating the job\n", i, j->job.nspace,
                    (int)r->pid, host, WEXITSTATUS(status),
                    before ? " before MPI_Finalize" : "");
    }
    return code;
}

int launch_dyn_reaped(struct launch_job *job, pid_t pid, int status, int reporting)
{
    for (struct dyn_job *j = job->dyn ? job->dyn->jobs : NULL; j; j = j->next) {
        for (int i = 0; i < j->job.nranks; i++) {
            struct launch_rank *r = &j->job.ranks[i];
            if (!r->local || r->pid != pid || !r->alive)
                continue;
            launch_lastwords_wait(r, status);
            if (atomic_load(&r->connected)) /* across nodes: its address, for late readers */
                launch_dmodex_keep(&j->job, i);
            launch_server_client_gone(&j->job, i); /* before the caller acts on the exit */
            if (job->is_daemon) { /* rdmpirun judges it */
                struct launch_dyn_exit_msg m = {
                    .index = j->job.dyn_index, .rank = (uint32_t)i, .status = (uint32_t)status,
                    .connected = (uint32_t)atomic_load(&r->connected),
                    .finalized = (uint32_t)atomic_load(&r->finalized)};
                struct launch_buf b = {0};
                r->alive = 0;
                r->status = status;
                j->nalive--;
                launch_dyn_exit_encode(&b, &m);
                if (!b.err)
                    launch_tree_send(job->tree, MSG_DYN_EXIT, 0, b.p, b.len);
                lbuf_free(&b);
                return 0;
            }
            return dyn_judge(job, j, i, status, reporting);
        }
    }
    return -1;
}

int launch_dyn_alive(const struct launch_job *job)
{
    int n = 0;

    for (struct dyn_job *j = job->dyn ? job->dyn->jobs : NULL; j; j = j->next)
        n += j->nalive;
    return n;
}

/* groups: the ranks' process groups, reaped ranks included; else the live ranks' groups. */
void launch_dyn_signal(struct launch_job *job, int sig, int groups)
{
    for (struct dyn_job *j = job->dyn ? job->dyn->jobs : NULL; j; j = j->next) {
        for (int i = 0; i < j->job.nranks; i++) {
            struct launch_rank *r = &j->job.ranks[i];
            if (r->local && r->pid > 0 && (groups || r->alive) && kill(-r->pid, sig) && r->alive)
                kill(r->pid, sig);
        }
    }
}
