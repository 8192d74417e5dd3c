/*
 * Internal interface of rdmpirun, the single-node launcher. rdmpirun is a
 * PMIx server that forks N ranks of one program on this host, forwards their
 * output and signals, and tears the whole job down when any rank fails.
 *
 * Threads: libpmix runs its own progress thread and calls the server
 * upcalls (server.c) from it. Those upcalls only record facts in the rank
 * table (atomics, or the abort record under job->lock) and wake the main
 * thread through the wake pipe; every decision, kill and message is made by
 * the main thread (monitor.c).
 */
#ifndef RDMPI_LAUNCH_H
#define RDMPI_LAUNCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t, pipe2, strsignal */
#endif
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>

/* Exit statuses of rdmpirun itself, besides the ones taken from ranks. */
#define LAUNCH_EXIT_USAGE 2      /* bad command line */
#define LAUNCH_EXIT_NOPROG 127   /* program missing or not executable */
#define LAUNCH_EXIT_TIMEOUT 124  /* --timeout expired, as timeout(1) */
#define LAUNCH_EXIT_INTERNAL 1   /* rdmpirun could not start the job */

/* launch_options_parse() result when --help or --version was served. */
#define LAUNCH_OPTS_DONE 1

enum launch_bind { LAUNCH_BIND_DEFAULT, LAUNCH_BIND_CORE, LAUNCH_BIND_NONE };

struct launch_opts {
    int nranks;              /* 0: one per core */
    int tag_output;
    double timeout;          /* seconds; 0: none */
    enum launch_bind bind;
    int report_bindings;
    const char **exports;    /* -x arguments as given: "VAR" or "VAR=value" */
    int nexports;
    const char **hosts;      /* --host arguments as given (comma lists) */
    int nhosts;
    const char *hostfile;
    char **argv;             /* program and its arguments, NULL-terminated */
};

struct launch_rank {
    int rank;
    pid_t pid;               /* 0 until forked; also its process group id */
    int alive;               /* forked and not yet reaped */
    int status;              /* waitpid status once reaped */
    int core;                /* core index it is bound to, or -1 */
    cpu_set_t cpus;          /* affinity applied in the child when core >= 0 */
    atomic_int connected;    /* set by the PMIx client_connected upcall */
    atomic_int finalized;    /* set by the PMIx client_finalized upcall */
    int out_pipe[2];         /* --tag-output pipes, -1 when unused */
    int err_pipe[2];
    int stdin_fd;            /* read end of rank 0's stdin pipe (stdinfwd.c), or -1 */
};

struct launch_iofwd;
struct launch_stdin;

struct launch_job {
    const struct launch_opts *opts;
    char nspace[64];
    char host[256];
    char tmpdir[PATH_MAX];   /* private PMIx tmpdir; "" until created */
    char prog[PATH_MAX];     /* resolved path of the program */
    int nranks;
    int ncores;
    int oversubscribed;
    struct launch_rank *ranks;
    void *topology;          /* hwloc_topology_t, owned by binding.c */
    struct launch_iofwd *io; /* NULL without --tag-output */
    struct launch_stdin *in; /* NULL unless stdin is a terminal */
    int wake_fd[2];          /* self-pipe: signal numbers, or 0 for PMIx */
    int server_up;

    pthread_mutex_t lock;    /* guards the abort record below */
    int aborted;
    int abort_rank;
    int abort_status;
    char abort_msg[512];
};

/* options.c */
int launch_options_parse(int argc, char **argv, struct launch_opts *o);
void launch_options_free(struct launch_opts *o);

/* hosts.c */
int launch_hosts_check(const struct launch_opts *o, const char *localhost);

/* signals.c */
int launch_signals_install(int wake_fd);
void launch_signals_child_reset(void);
void launch_signals_block(sigset_t *old);
void launch_signals_restore(const sigset_t *old);
void launch_wake(int wake_fd, unsigned char what);

/* binding.c */
int launch_binding_init(struct launch_job *job);
int launch_binding_plan(struct launch_job *job);
void launch_binding_apply_child(const struct launch_rank *r);
void launch_binding_fini(struct launch_job *job);

/* server.c */
int launch_server_start(struct launch_job *job);
int launch_server_add_client(struct launch_job *job, int rank, char ***env);
void launch_server_stop(struct launch_job *job);

/* env.c */
char **launch_env_base(void);
int launch_env_set(char ***env, const char *name, const char *value);
int launch_env_rank(const struct launch_job *job, int rank, char ***env);
void launch_env_free(char **env);

/* spawn.c */
int launch_spawn_resolve(const char *prog, char *path, size_t len);
int launch_spawn_all(struct launch_job *job);

/* iofwd.c */
int launch_io_create(struct launch_job *job);
void launch_io_child(const struct launch_rank *r);
void launch_io_after_fork(struct launch_rank *r);
int launch_io_fill_pollfds(struct launch_job *job, struct pollfd *pfd, int max);
void launch_io_handle(struct launch_job *job, const struct pollfd *pfd, int n);
int launch_io_open_streams(const struct launch_job *job);
void launch_io_destroy(struct launch_job *job);

/* stdinfwd.c */
int launch_stdin_create(struct launch_job *job);
void launch_stdin_after_fork(struct launch_rank *r);
int launch_stdin_fill_pollfd(struct launch_job *job, struct pollfd *pfd);
void launch_stdin_handle(struct launch_job *job, const struct pollfd *pfd);
void launch_stdin_destroy(struct launch_job *job);

/* monitor.c */
int launch_monitor_run(struct launch_job *job, int start_failed);

/* cleanup.c */
int launch_cleanup_tmpdir(const char *dir);
int launch_cleanup_shm(const char *nspace);

/* Monotonic clock in seconds (monitor.c). */
double launch_now(void);

#endif
