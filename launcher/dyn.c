/*
 * Jobs that the ranks spawn (MPI_Comm_spawn through PMIx_Spawn), served by
 * rdmpirun on its own node.
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
 * Spawning on another host (info key "host") needs the daemons to fork the
 * new namespace's ranks; it is refused with a message until they do.
 */
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DYN_MAX_PROCS 4096 /* one spawn call; a larger request is refused, not attempted */

struct dyn_req {
    struct dyn_req *next;
    struct launch_app *apps;
    int napps;
    char why[512];              /* set by the upcall: refuse without starting anything */
    char parent_nspace[64];     /* the spawning rank */
    int parent_rank;
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
};

struct dyn_job {
    struct dyn_job *next;
    struct launch_job job;
    int nalive;
};

struct launch_dyn {
    pthread_mutex_t lock;       /* guards the queue only */
    struct dyn_req *head, *tail;
    struct dyn_job *jobs;       /* main thread only, but read by launch_dyn_rank (see there) */
    int njobs;                  /* namespaces made so far: names the next one */
    int next_ubase;             /* the next job's first process number (CORE_UBASE_PMIX) */
};

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

static void apps_free(struct launch_app *apps, int napps)
{
    for (int i = 0; apps && i < napps; i++) {
        launch_env_free(apps[i].argv);
        launch_env_free(apps[i].env);
        free(apps[i].path);
    }
    free(apps);
}

void launch_dyn_destroy(struct launch_job *job)
{
    struct launch_dyn *d = job->dyn;

    if (!d)
        return;
    while (d->head) {
        struct dyn_req *q = d->head;
        d->head = q->next;
        apps_free(q->apps, q->napps);
        free(q);
    }
    while (d->jobs) {
        struct dyn_job *j = d->jobs;
        d->jobs = j->next;
        launch_cleanup_shm(j->job.nspace, j->job.job_key);
        apps_free(j->job.apps, j->job.napps);
        free(j->job.ranks);
        free(j);
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

/* Each comma-separated name of a "host" value must be this node: the only one
 * whose server can fork ranks of a new namespace today. */
static int host_ok(const struct launch_job *job, const char *list, char *why, size_t len)
{
    char name[256];

    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n > 0) {
            snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), p);
            if (!launch_host_is_here(name, job->host)) {
                snprintf(why, len, "spawning on host '%.100s' is not supported: rdmpirun "
                         "spawns only on its own node (%.100s)", name, job->host);
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
        if (PMIX_CHECK_KEY(inf, PMIX_WDIR) && inf->value.type == PMIX_STRING &&
            inf->value.data.string)
            snprintf(out->cwd, sizeof(out->cwd), "%s", inf->value.data.string);
        else if (PMIX_CHECK_KEY(inf, CORE_SPAWN_PATH_PMIX) && inf->value.type == PMIX_STRING &&
                 inf->value.data.string && !out->path) {
            if (strlen(inf->value.data.string) >= PATH_MAX) {
                snprintf(why, len, "spawn of %s: info \"path\" longer than %d", cmd, PATH_MAX);
                return -EINVAL;
            }
            if (!(out->path = strdup(inf->value.data.string)))
                return -ENOMEM;
        } else if ((PMIX_CHECK_KEY(inf, PMIX_HOST) || PMIX_CHECK_KEY(inf, PMIX_ADD_HOST)) &&
                 inf->value.type == PMIX_STRING && inf->value.data.string &&
                 !host_ok(job, inf->value.data.string, why, len))
            return -EINVAL;
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

    if (!d) {
        fprintf(stderr, "%s: refusing a spawn request: spawning in a job across nodes is not "
                "supported yet (rdmpirun spawns for the ranks of its own node only)\n",
                launch_who);
        return PMIX_ERR_NOT_SUPPORTED;
    }
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
        apps_free(q->apps, q->napps);
        free(q);
        return PMIX_ERR_NOMEM;
    }
    if (job->tree && !q->why[0]) /* the daemons would have to serve the new namespace too */
        snprintf(q->why, sizeof(q->why), "spawning in a job across nodes is not supported yet");
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

/* The child job's description, from its parent's node and its applications. */
static int child_job(struct launch_job *parent, struct dyn_req *q, struct dyn_job *dj)
{
    struct launch_job *job = &dj->job;
    int total = 0, r = 0;

    for (int a = 0; a < q->napps; a++)
        total += q->apps[a].nprocs;
    job->opts = parent->opts;
    memcpy(job->parent_nspace, q->parent_nspace, sizeof(job->parent_nspace));
    job->parent_rank = q->parent_rank;
    snprintf(job->nspace, sizeof(job->nspace), "%.40s-s%d", parent->nspace, parent->dyn->njobs++);
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
    job->server_up = 1;
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
    return 0;
}

static int resolve_apps(struct launch_job *job, char *why, size_t len)
{
    for (int a = 0; a < job->napps; a++) {
        struct launch_app *app = &job->apps[a];
        char path[PATH_MAX], here[PATH_MAX];
        if (launch_spawn_resolve_in(app->path, app->prog, path, sizeof(path))) {
            snprintf(why, len, "cannot spawn '%.200s': not found or not executable%s%.200s",
                     app->prog, app->path ? " in " : "", app->path ? app->path : "");
            return -ENOENT;
        }
        /* Found from rdmpirun's directory (the job's); made absolute, since the rank may
         * run in another one ("wdir"). */
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
            snprintf(why, len, "cannot spawn '%.200s': working directory %.200s: %s",
                     app->prog, app->cwd, strerror(errno));
            return -ENOENT;
        }
    }
    return 0;
}

/* Main thread: makes the namespace and starts its ranks. Returns 0 or sets why. */
static int start_job(struct launch_job *parent, struct dyn_req *q, struct dyn_job **out)
{
    struct dyn_job *dj = calloc(1, sizeof(*dj));
    int rc;

    if (!dj)
        return -ENOMEM;
    rc = child_job(parent, q, dj);
    if (!rc)
        rc = resolve_apps(&dj->job, q->why, sizeof(q->why));
    if (!rc && (rc = launch_server_register_job(&dj->job)) != 0)
        snprintf(q->why, sizeof(q->why), "cannot register the new namespace with PMIx");
    if (rc) {
        apps_free(dj->job.apps, dj->job.napps);
        free(dj->job.ranks);
        free(dj);
        return rc;
    }
    /* Listed before any fork, so that every pid we reap is found. */
    dj->next = parent->dyn->jobs;
    parent->dyn->jobs = dj;
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

void launch_dyn_progress(struct launch_job *job)
{
    struct launch_dyn *d = job->dyn;

    while (d) {
        struct dyn_job *dj = NULL;
        struct dyn_req *q;
        pmix_nspace_t ns;

        pthread_mutex_lock(&d->lock);
        q = d->head;
        if (q && !(d->head = q->next))
            d->tail = NULL;
        pthread_mutex_unlock(&d->lock);
        if (!q)
            return;
        int rc = q->why[0] ? -EINVAL : start_job(job, q, &dj);
        PMIX_LOAD_NSPACE(ns, dj ? dj->job.nspace : "");
        if (rc) {
            fprintf(stderr, "%s: spawn failed: %s\n", launch_who,
                    q->why[0] ? q->why : strerror(-rc));
            q->cbfunc(rc == -ENOENT ? PMIX_ERR_NOT_FOUND
                      : rc == -EINVAL ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERROR, ns, q->cbdata);
        } else {
            q->cbfunc(PMIX_SUCCESS, ns, q->cbdata);
        }
        apps_free(q->apps, q->napps);
        free(q);
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
    if (!job || !job->dyn)
        return NULL;
    for (struct dyn_job *j = __atomic_load_n(&job->dyn->jobs, __ATOMIC_ACQUIRE); j; j = j->next)
        if (!strncmp(j->job.nspace, nspace, PMIX_MAX_NSLEN))
            return rank < (unsigned)j->job.nranks ? &j->job.ranks[rank] : NULL;
    return NULL;
}

int launch_dyn_reaped(struct launch_job *job, pid_t pid, int status, int reporting)
{
    for (struct dyn_job *j = job->dyn ? job->dyn->jobs : NULL; j; j = j->next) {
        for (int i = 0; i < j->job.nranks; i++) {
            struct launch_rank *r = &j->job.ranks[i];
            if (r->pid != pid || !r->alive)
                continue;
            r->alive = 0;
            r->status = status;
            j->nalive--;
            launch_server_client_gone(&j->job, i); /* before the caller acts on the exit */
            int before = atomic_load(&r->connected) && !atomic_load(&r->finalized);
            int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                       : WEXITSTATUS(status) ? WEXITSTATUS(status) : before;
            if (code && reporting) {
                if (WIFSIGNALED(status))
                    fprintf(stderr, "rdmpirun: rank %d of spawned job %s (pid %d) on host %s was "
                            "killed by signal %d (%s); terminating the job\n", i, j->job.nspace,
                            (int)pid, job->host, WTERMSIG(status), strsignal(WTERMSIG(status)));
                else
                    fprintf(stderr, "rdmpirun: rank %d of spawned job %s (pid %d) on host %s "
                            "exited with status %d%s; terminating the job\n", i, j->job.nspace,
                            (int)pid, job->host, WEXITSTATUS(status),
                            before ? " before MPI_Finalize" : "");
            }
            return code;
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
            if (r->pid > 0 && (groups || r->alive) && kill(-r->pid, sig) && r->alive)
                kill(r->pid, sig);
        }
    }
}
