/*
 * rdmpirun: starts N ranks of a program as one MPI job, on this node with
 * rdmpirun as their PMIx server, and on other nodes through one rdmpid
 * each (remote.c). This file owns the order of things: check everything
 * that can be checked before anything starts (options, hosts, the
 * program), then daemons, server, ranks, monitor, and a cleanup that runs
 * however the job ended.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int job_init(struct launch_job *job, const struct launch_opts *opts)
{
    memset(job, 0, sizeof(*job));
    job->opts = opts;
    job->wake_fd[0] = job->wake_fd[1] = -1;
    pthread_mutex_init(&job->lock, NULL);
    snprintf(job->nspace, sizeof(job->nspace), "rdmpi-%d", (int)getpid());
    if (gethostname(job->host, sizeof(job->host) - 1))
        snprintf(job->host, sizeof(job->host), "localhost");
    /* Non-blocking both ways: handlers must never block, and the main
     * loop drains the pipe until it is empty. */
    if (pipe2(job->wake_fd, O_CLOEXEC | O_NONBLOCK)) {
        fprintf(stderr, "rdmpirun: cannot create a pipe: %s\n", strerror(errno));
        return -errno;
    }
    return 0;
}

static int check_program(struct launch_job *job)
{
    const char *prog = job->opts->argv[0];
    int rc = launch_spawn_resolve(prog, job->prog, sizeof(job->prog));

    if (rc == -ENOENT)
        fprintf(stderr, "rdmpirun: program '%s' not found%s\n", prog,
                strchr(prog, '/') ? "" : " in PATH");
    else if (rc == -EISDIR)
        fprintf(stderr, "rdmpirun: program '%s' is a directory\n", prog);
    else if (rc)
        fprintf(stderr, "rdmpirun: program '%s' is not executable\n", prog);
    return rc;
}

static void warn_unset_exports(const struct launch_opts *opts)
{
    for (int i = 0; i < opts->nexports; i++)
        if (!strchr(opts->exports[i], '=') && !getenv(opts->exports[i]))
            fprintf(stderr, "rdmpirun: warning: -x %s: %s is not set here, not exported\n",
                    opts->exports[i], opts->exports[i]);
}

/* The rank table, and which node each rank runs on. */
static int make_ranks(struct launch_job *job)
{
    int slots = 0, rc;

    for (int i = 0; i < job->nnodes; i++)
        slots += job->nodes[i].slots;
    job->nranks = job->opts->nranks > 0 ? job->opts->nranks : job->nnodes ? slots : job->ncores;
    job->ranks = calloc((size_t)job->nranks, sizeof(*job->ranks));
    if (!job->ranks)
        return -ENOMEM;
    for (int i = 0; i < job->nranks; i++) {
        struct launch_rank *r = &job->ranks[i];
        r->rank = i;
        r->core = -1;
        r->out_pipe[0] = r->out_pipe[1] = -1;
        r->err_pipe[0] = r->err_pipe[1] = -1;
        r->stdin_fd = -1;
    }
    rc = launch_hosts_map(job);
    if (rc)
        return rc;
    for (int i = 0; i < job->nnodes; i++)
        job->nodes[i].machine = i; /* until the daemons say where they run */
    return 0;
}

/* Everything from the signal handlers to the end of the job. */
static int run(struct launch_job *job)
{
    int rc = launch_signals_install(job->wake_fd[1]), multi;

    if (core_crypto_init()) {
        fprintf(stderr, "rdmpirun: cannot initialize libsodium\n");
        return LAUNCH_EXIT_INTERNAL;
    }
    core_random(job->job_key, sizeof(job->job_key)); /* remote.c derives it across nodes */

    if (!rc)
        rc = launch_binding_init(job);
    if (!rc)
        rc = make_ranks(job);
    if (rc) {
        if (rc == -ENOMEM)
            fprintf(stderr, "rdmpirun: out of memory\n");
        return LAUNCH_EXIT_INTERNAL;
    }
    /* Only this node's ranks are checked here; each daemon checks its own (a host with
     * none, there for spawn's slots, need not have the program). */
    if (job->nlocal > 0 && check_program(job))
        return LAUNCH_EXIT_NOPROG;
    warn_unset_exports(job->opts);
    multi = job->nnodes > 1 || job->my_node < 0;
    if (multi && (rc = launch_remote_start(job)))
        return rc;
    if (job->my_node >= 0)
        launch_binding_share(job);
    rc = launch_binding_plan(job);
    if (!rc)
        rc = launch_dyn_create(job);
    if (!rc)
        rc = launch_names_create(job);
    if (!rc && job->my_node >= 0)
        rc = launch_server_start(job);
    if (!rc)
        rc = launch_io_create(job);
    if (!rc)
        rc = launch_stdin_create(job);
    if (!rc && multi)
        rc = launch_remote_launch(job);
    if (rc) {
        if (rc == -ENOMEM)
            fprintf(stderr, "rdmpirun: out of memory\n");
        return LAUNCH_EXIT_INTERNAL;
    }
    rc = launch_spawn_all(job);
    return launch_monitor_run(job, rc != 0);
}

static void teardown(struct launch_job *job)
{
    launch_remote_stop(job);
    launch_server_stop(job);
    launch_dyn_destroy(job);
    launch_names_destroy(job);
    launch_io_destroy(job);
    launch_stdin_destroy(job);
    launch_binding_fini(job);
    launch_cleanup_shm(job->nspace, job->job_key);
    if (launch_cleanup_tmpdir(job->tmpdir))
        fprintf(stderr, "rdmpirun: warning: could not remove %s\n", job->tmpdir);
    free(job->ranks);
    free(job->nodes);
    if (job->wake_fd[0] >= 0)
        close(job->wake_fd[0]);
    if (job->wake_fd[1] >= 0)
        close(job->wake_fd[1]);
}

int main(int argc, char **argv)
{
    struct launch_opts opts;
    struct launch_job job;
    int rc, status;

    rc = launch_options_parse(argc, argv, &opts);
    if (rc) {
        launch_options_free(&opts);
        return rc == LAUNCH_OPTS_DONE ? 0 : LAUNCH_EXIT_USAGE;
    }
    if (job_init(&job, &opts)) {
        launch_options_free(&opts);
        return LAUNCH_EXIT_INTERNAL;
    }
    if (launch_hosts_parse(&job))
        status = LAUNCH_EXIT_USAGE;
    else
        status = run(&job);
    teardown(&job);
    launch_options_free(&opts);
    return status;
}

#if defined(__SANITIZE_ADDRESS__)
/* libpmix 4.2.2 keeps allocations from PMIx_server_init past
 * PMIx_server_finalize; an ASan build would fail every run on them. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_options(void);

const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}

const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}
#endif
