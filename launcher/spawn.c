/*
 * Finding the program and forking this node's ranks. Each rank is registered with
 * the PMIx server before it is forked, runs in its own process group (so a
 * job teardown also reaches whatever the rank forked), gets its stdio and
 * binding in the child, and execs the resolved program.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int check_candidate(const char *path)
{
    struct stat st;

    if (stat(path, &st))
        return -ENOENT;
    if (S_ISDIR(st.st_mode))
        return -EISDIR;
    return access(path, X_OK) ? -EACCES : 0;
}

/*
 * Resolves prog as execvp() would, so that a missing or unusable program is
 * reported before anything starts. Returns 0, -ENOENT, -EACCES or -EISDIR
 * (the last two only when nothing executable was found further on).
 */
int launch_spawn_resolve(const char *prog, char *path, size_t len)
{
    return launch_spawn_resolve_in(NULL, prog, path, len);
}

/* Looks for prog in the directories of dirs (':' separated; an empty entry is the current
 * directory); 0 when found, else the most telling failure. */
static int search_dirs(const char *dirs, const char *prog, char *path, size_t len)
{
    int best = -ENOENT;

    while (1) {
        size_t dlen = strcspn(dirs, ":");
        if (dlen == 0)
            snprintf(path, len, "%s", prog); /* empty entry: current directory */
        else
            snprintf(path, len, "%.*s/%s", (int)dlen, dirs, prog);
        int rc = check_candidate(path);
        if (rc == 0)
            return 0;
        if (rc != -ENOENT)
            best = rc;
        if (!dirs[dlen])
            break;
        dirs += dlen + 1;
    }
    return best;
}

int launch_spawn_resolve_in(const char *first, const char *prog, char *path, size_t len)
{
    const char *dirs = getenv("PATH");

    if (!*prog)
        return -ENOENT;
    if (strchr(prog, '/')) {
        snprintf(path, len, "%s", prog);
        return check_candidate(path);
    }
    int early = -ENOENT;
    if (first && *first && (early = search_dirs(first, prog, path, len)) == 0)
        return 0;
    if (!dirs)
        dirs = "/usr/local/bin:/usr/bin:/bin";
    int rc = search_dirs(dirs, prog, path, len);
    return rc == -ENOENT ? early : rc;
}

static void child_fail(const char *what, const char *prog)
{
    const char *err = strerror(errno);
    char msg[512];
    int n = snprintf(msg, sizeof(msg), "%s: %s %s: %s\n", launch_who, what, prog, err);

    if (n > 0)
        write(STDERR_FILENO, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
    _exit(LAUNCH_EXIT_NOPROG);
}

/*
 * Closes every descriptor above stderr in the forked rank. libpmix does not mark the
 * connections its server accepts close-on-exec, so without this each rank kept the server's
 * end of every client connection open at its fork (the earlier ranks', a parent job's): a
 * connection the server closed was never seen closed by its client, and a rank spawned again
 * and again inherited one more each time. Async-signal-safe (close_range is a system call);
 * without it (kernels before 5.9) every descriptor up to the limit read before the fork.
 */
static void close_inherited(int max_fd)
{
    if (close_range(3, ~0U, 0) == 0)
        return;
    for (int fd = 3; fd < max_fd; fd++)
        close(fd);
}

/* The forked rank, before exec. Only async-signal-safe calls: libpmix's
 * threads may hold locks that no longer have an owner in this process. */
static void child(const struct launch_job *job, const struct launch_rank *r, char **env,
                  pid_t parent, int max_fd)
{
    launch_signals_child_reset();
    setpgid(0, 0);
    /* A daemon's ranks die with it: nobody else on that node would end them. */
    if (job->is_daemon && (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent))
        _exit(LAUNCH_EXIT_INTERNAL);
    const struct launch_app *app = job->apps ? &job->apps[r->app] : NULL;

    if (r->stdin_fd >= 0) {
        dup2(r->stdin_fd, STDIN_FILENO);
    } else if (r->rank != 0 || app) { /* a spawned job's rank 0 does not take our stdin */
        int fd = open("/dev/null", O_RDONLY);
        if (fd >= 0 && fd != STDIN_FILENO) {
            dup2(fd, STDIN_FILENO);
            close(fd);
        }
    }
    launch_io_child(r);
    close_inherited(max_fd);
    launch_binding_apply_child(r);
    if (app && app->cwd[0] && chdir(app->cwd))
        child_fail("cannot change to the directory", app->cwd);
    execve(app ? app->prog : job->prog, app ? app->argv : job->opts->argv, env);
    child_fail("cannot execute", app ? app->prog : job->prog);
}

static int spawn_one(struct launch_job *job, struct launch_rank *r, char **env)
{
    sigset_t old;
    pid_t pid, parent = getpid();
    struct rlimit lim;
    int max_fd = 65536;

    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
        lim.rlim_cur < (rlim_t)max_fd)
        max_fd = (int)lim.rlim_cur;
    launch_signals_block(&old);
    pid = fork();
    if (pid == 0)
        child(job, r, env, parent, max_fd);
    launch_signals_restore(&old);
    if (pid < 0) {
        fprintf(stderr, "%s: cannot fork rank %d: %s\n", launch_who, r->rank, strerror(errno));
        return -errno;
    }
    /* Also done here, so the group exists before we might signal it;
     * EACCES just means the child got there (and exec'ed) first. */
    setpgid(pid, pid);
    r->pid = pid;
    r->alive = 1;
    launch_io_after_fork(r);
    launch_stdin_after_fork(r);
    return 0;
}

/* The NAME=value entries a spawn request gave its application (entries without '=' are
 * ignored: they name nothing to set). */
static int app_env(const struct launch_app *app, char ***env)
{
    int rc = 0;

    for (char **p = app->env; !rc && p && *p; p++) {
        char *eq = strchr(*p, '=');
        if (!eq || eq == *p)
            continue;
        char *name = strndup(*p, (size_t)(eq - *p));
        rc = name ? launch_env_set(env, name, eq + 1) : -ENOMEM;
        free(name);
    }
    return rc;
}

int launch_spawn_all(struct launch_job *job)
{
    for (int i = 0; i < job->nranks; i++) {
        if (!job->ranks[i].local)
            continue;
        char **env = launch_env_base();
        int rc = env ? 0 : -ENOMEM;

        if (!rc)
            rc = launch_server_add_client(job, i, &env);
        if (!rc)
            rc = launch_env_rank(job, i, &env);
        if (!rc && job->apps)
            rc = app_env(&job->apps[job->ranks[i].app], &env);
        if (!rc)
            rc = spawn_one(job, &job->ranks[i], env);
        launch_env_free(env);
        if (rc) {
            if (rc == -ENOMEM)
                fprintf(stderr, "%s: out of memory starting rank %d\n", launch_who, i);
            return rc;
        }
    }
    return 0;
}
