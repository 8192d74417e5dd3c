/*
 * Internal interface of rdmpirun and rdmpid. rdmpirun maps N ranks of one
 * program to nodes, is the PMIx server of the ranks on its own node, starts
 * one rdmpid per other node through a launch agent (remote.c), forwards
 * output and signals, and tears the whole job down when any rank fails.
 * rdmpid (daemon.c) is the PMIx server of one other node. Both share the
 * job description below: every rank of the job is in the rank table, and
 * the ones this process forks are marked local.
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
#include "core/secret.h"

/* Exit statuses of rdmpirun itself, besides the ones taken from ranks. */
#define LAUNCH_EXIT_USAGE 2      /* bad command line */
#define LAUNCH_EXIT_NOPROG 127   /* program missing or not executable */
#define LAUNCH_EXIT_TIMEOUT 124  /* --timeout expired, as timeout(1) */
#define LAUNCH_EXIT_INTERNAL 1   /* rdmpirun could not start the job */
#define LAUNCH_EXIT_LOST 1       /* a daemon was lost or could not start */

/* Set in the environment of a daemon's ranks to "<nspace>.<vpid>". Not an
 * RDMPI_ variable: the library warns about RDMPI_ names it does not know. */
#define LAUNCH_JOB_TAG "RDMPID_JOB"

/* launch_options_parse() result when --help or --version was served. */
#define LAUNCH_OPTS_DONE 1

enum launch_bind { LAUNCH_BIND_DEFAULT, LAUNCH_BIND_CORE, LAUNCH_BIND_NONE };

struct launch_opts {
    int nranks;              /* 0: one per core */
    int tag_output;
    double timeout;          /* seconds; 0: none */
    enum launch_bind bind;
    int report_bindings;
    int oversubscribe;       /* --oversubscribe: no warning when ranks outnumber cores */
    const char **exports;    /* -x arguments as given: "VAR" or "VAR=value" */
    int nexports;
    const char **hosts;      /* --host arguments as given (comma lists) */
    int nhosts;
    const char *hostfile;
    int map_by_node;         /* --map-by node: round-robin over nodes */
    const char *agent;       /* --launch-agent command, NULL: ssh */
    int launch_flat;         /* --launch-flat: rdmpirun starts every rdmpid itself */
    char **argv;             /* program and its arguments, NULL-terminated */
};

/* The most slots one host can be given (--host name:N, hostfile slots=N). */
#define LAUNCH_MAX_SLOTS 65535

/* One node of the job. Node indices are PMIx node ids. */
struct launch_node {
    char name[256];          /* as named in --host/--hostfile */
    char host[256];          /* its name in the job map (PMIX_HOSTNAME) */
    int slots;               /* 0..LAUNCH_MAX_SLOTS; a daemon learns them from LAUNCH
                                (MPI_UNIVERSE_SIZE counts every node's) */
    int nranks;              /* ranks mapped to it */
    int vpid;                /* its member of the daemon tree; 0 is rdmpirun */
    int is_here;             /* the node rdmpirun runs on */
    int machine;             /* nodes with equal values are hosts (namespaces, containers)
                                of one machine and share its cores */
};

struct launch_rank {
    int rank;
    int node;                /* index in job->nodes */
    int local_rank;          /* index among the ranks of its node */
    int local;               /* forked by this process */
    pid_t pid;               /* 0 until started; also its process group id */
    int alive;               /* started (or being started remotely) and not reaped */
    int status;              /* waitpid status once reaped */
    int core;                /* core index it is bound to, or -1 */
    cpu_set_t cpus;          /* affinity applied in the child when core >= 0 */
    atomic_int connected;    /* set by the PMIx client_connected upcall */
    atomic_int finalized;    /* set by the PMIx client_finalized upcall */
    int out_pipe[2];         /* --tag-output pipes, -1 when unused */
    int err_pipe[2];
    int stdin_fd;            /* read end of rank 0's stdin pipe (stdinfwd.c), or -1 */
    int app;                 /* index in job->apps (a spawned job), else 0 */
};

/* One application of a spawned job (MPI_Comm_spawn_multiple has several). */
struct launch_app {
    char prog[PATH_MAX];     /* resolved path */
    char **argv;             /* NULL-terminated, argv[0] the command as given */
    char **env;              /* NAME=value entries added to the ranks' environment */
    char cwd[PATH_MAX];      /* "" : rdmpirun's own */
    char *path;              /* a spawned app's directories to look in before PATH, or NULL */
    char *host;              /* its "host" info (comma list) across nodes, or NULL */
    int nprocs;
};

struct launch_iofwd;
struct launch_stdin;
struct launch_remote;
struct launch_tree;
struct launch_fence;
struct launch_dmodex;
struct launch_dyn;
struct launch_names;
struct launch_namefwd;

/* The wake pipe holds one byte per record (a signal number, 0 for an upcall), except a
 * child's exit: SIGCHLD and then its pid. Every reader shares this, where a record split
 * across reads is kept. */
#define LAUNCH_WAKE_CHILD_LEN (1 + (int)sizeof(pid_t))
struct launch_wake_reader {
    unsigned char rec[LAUNCH_WAKE_CHILD_LEN];
    int have;
};

struct launch_job {
    const struct launch_opts *opts;
    char nspace[64];
    uint8_t job_key[CORE_KEY_LEN]; /* the ranks' job key (core/secret.h): random on one node,
                                      derived from the daemons' secret across nodes */
    char host[256];          /* this node's name in the job map */
    char tmpdir[PATH_MAX];   /* private PMIx tmpdir; "" until created */
    char prog[PATH_MAX];     /* resolved path of the program */
    int nranks;              /* ranks of the whole job */
    int ncores;
    int oversubscribed;      /* of this node's machine */
    int machine_first;       /* ranks on earlier nodes of this node's machine: its ranks
                                take the cores after theirs */
    struct launch_rank *ranks;
    int nnodes;
    struct launch_node *nodes;
    int my_node;             /* the node this process serves ranks on, or -1 */
    int nlocal;              /* ranks on it */
    int is_daemon;           /* rdmpid */
    struct launch_remote *remote; /* rdmpirun's daemons; NULL on one node */
    struct launch_tree *tree;     /* the daemon tree; NULL on one node */
    struct launch_fence *fence;   /* fences across nodes (fence.c) */
    struct launch_dmodex *dmodex; /* direct modex across nodes (dmodex.c) */
    void *topology;          /* hwloc_topology_t, owned by binding.c */
    struct launch_iofwd *io; /* NULL without --tag-output */
    struct launch_stdin *in; /* NULL unless stdin is a terminal */
    int wake_fd[2];          /* self-pipe: signal numbers (SIGCHLD with a pid), or 0 for PMIx */
    struct launch_wake_reader wake_rd; /* read only through launch_wake_drain */
    int server_up;
    int server_stuck;        /* a call waited on libpmix in vain: do not wait on it again */
    int server_port;         /* TCP port our PMIx server's clients connect to; 0: unknown */
    struct launch_app *apps; /* a spawned job's applications; NULL: opts->argv and prog */
    int napps;
    struct launch_dyn *dyn;  /* jobs spawned by this one's ranks (dyn.c); NULL in rdmpid */
    struct launch_names *names; /* names published by the ranks (names.c); NULL in rdmpid */
    struct launch_namefwd *namefwd; /* rdmpid: the ranks' name requests to rdmpirun (namefwd.c) */
    int ubase;               /* its ranks' first number among all rdmpirun runs (CORE_UBASE_PMIX) */
    uint32_t dyn_index;      /* 0: the job rdmpirun started; k: the k-th one its ranks spawned
                                (named so in the tree's fence and direct-modex messages) */
    char parent_nspace[64];  /* a spawned job: the namespace and rank that spawned it */
    int parent_rank;

    pthread_mutex_t lock;    /* guards the abort record below */
    int aborted;
    int abort_rank;
    int abort_status;
    char abort_msg[512];
};

/* How this process names itself in messages: "rdmpirun", "rdmpid (node2)". */
extern char launch_who[300];

/* options.c */
int launch_options_parse(int argc, char **argv, struct launch_opts *o);
void launch_options_free(struct launch_opts *o);

/* hosts.c */
int launch_hosts_parse(struct launch_job *job);
int launch_hosts_map(struct launch_job *job);
int launch_host_is_here(const char *name, const char *localhost);

static inline const char *launch_rank_host(const struct launch_job *job, int rank)
{
    return job->nodes[job->ranks[rank].node].host;
}

/* signals.c */
int launch_signals_install(int wake_fd);
void launch_signals_child_reset(void);
void launch_signals_block(sigset_t *old);
void launch_signals_restore(const sigset_t *old);
void launch_wake(int wake_fd, unsigned char what);
/* Reads all job's wake pipe holds and calls fn per record (pid: the exited child, or 0). */
void launch_wake_drain(struct launch_job *job, void (*fn)(void *ctx, int sig, pid_t pid),
                       void *ctx);

/* binding.c */
int launch_binding_init(struct launch_job *job);
void launch_binding_share(struct launch_job *job);
int launch_binding_plan(struct launch_job *job);
void launch_binding_apply_child(const struct launch_rank *r);
void launch_binding_fini(struct launch_job *job);

/* server.c */
int launch_server_start(struct launch_job *job);
int launch_server_add_client(struct launch_job *job, int rank, char ***env);
void launch_server_stop(struct launch_job *job);
/* A local rank of job ended: libpmix forgets it before the run acts on the exit. */
void launch_server_client_gone(struct launch_job *job, int rank);

/* The TCP port of this node's PMIx server (its clients' connections), or 0 if unknown. */
int launch_server_port(void);

/* lastwords.c: r exited with status (just reaped): waits, bounded, until our PMIx server has
 * read what its clients sent, r's finalize message among it if it sent one. */
void launch_lastwords_wait(const struct launch_rank *r, int status);

/* env.c */
char **launch_env_base(void);
int launch_env_set(char ***env, const char *name, const char *value);
int launch_env_rank(const struct launch_job *job, int rank, char ***env);
void launch_env_free(char **env);

/* spawn.c */
int launch_spawn_resolve(const char *prog, char *path, size_t len);
/* The same, looking in dirs (':' separated) before PATH; dirs may be NULL. */
int launch_spawn_resolve_in(const char *dirs, const char *prog, char *path, size_t len);
int launch_spawn_all(struct launch_job *job);

/* iofwd.c */
typedef void (*launch_io_sink_fn)(void *ctx, int rank, int is_err, const char *data, size_t n);
int launch_io_create(struct launch_job *job);
int launch_io_create_forward(struct launch_job *job, launch_io_sink_fn sink, void *ctx);
void launch_io_remote(struct launch_job *job, int rank, int is_err, const char *data, size_t n);
void launch_io_child(const struct launch_rank *r);
void launch_io_after_fork(struct launch_rank *r);
int launch_io_fill_pollfds(struct launch_job *job, struct pollfd *pfd, int max);
void launch_io_handle(struct launch_job *job, const struct pollfd *pfd, int n);
int launch_io_open_streams(const struct launch_job *job);
void launch_io_destroy(struct launch_job *job);

/* stdinfwd.c */
int launch_stdin_create(struct launch_job *job);
int launch_stdin_create_pipe(struct launch_job *job);
void launch_stdin_push(struct launch_job *job, const char *data, size_t n);
void launch_stdin_after_fork(struct launch_rank *r);
int launch_stdin_fill_pollfd(struct launch_job *job, struct pollfd *pfd);
void launch_stdin_handle(struct launch_job *job, const struct pollfd *pfd);
void launch_stdin_destroy(struct launch_job *job);

/* What the daemons report to rdmpirun's main loop (remote.c). */
enum launch_event_kind {
    LAUNCH_EV_EXIT,       /* a remote rank ended: rank, status (waitpid) */
    LAUNCH_EV_LOST,       /* a daemon was lost: node, text ("" if already told) */
    LAUNCH_EV_START_FAIL, /* a daemon could not start its ranks: node, status (exit code), text */
    LAUNCH_EV_DYN_EXIT,   /* a spawned rank on another node ended: node (the job's index),
                             rank, status (waitpid) */
};

struct launch_event {
    enum launch_event_kind kind;
    int rank;
    int node;
    int status;
    char text[1024];
};

/* remote.c: rdmpirun's side of the daemons */
int launch_remote_start(struct launch_job *job);
int launch_remote_launch(struct launch_job *job);
int launch_remote_npollfds(const struct launch_job *job);
int launch_remote_fill_pollfds(struct launch_job *job, struct pollfd *pfd, int max);
void launch_remote_handle(struct launch_job *job, const struct pollfd *pfd, int n);
void launch_remote_progress(struct launch_job *job);
int launch_remote_reaped(struct launch_job *job, pid_t pid, int status);
void launch_remote_signal(struct launch_job *job, int sig, int how);
int launch_remote_next_event(struct launch_job *job, struct launch_event *ev);
void launch_remote_shutdown(struct launch_job *job);
int launch_remote_done(const struct launch_job *job);
double launch_remote_deadline(const struct launch_job *job);
void launch_remote_tick(struct launch_job *job, double now);
void launch_remote_stop(struct launch_job *job);

/* dyn.c: jobs the ranks spawn (PMIx_Spawn), their ranks' exits and signals, and the names
 * they publish. Everything but the upcall entry points runs on the main thread. */
int launch_dyn_create(struct launch_job *job);
void launch_dyn_destroy(struct launch_job *job);
void launch_dyn_progress(struct launch_job *job);
/* A reaped pid: -1 if it is no spawned rank, else the exit status it gives the job
 * (0: not a failure), the failure already reported on stderr. */
int launch_dyn_reaped(struct launch_job *job, pid_t pid, int status, int reporting);
int launch_dyn_alive(const struct launch_job *job);
void launch_dyn_signal(struct launch_job *job, int sig, int groups);
/* The spawned rank a PMIx client is (upcalls), or NULL. */
struct launch_rank *launch_dyn_rank(struct launch_job *job, const char *nspace, unsigned rank);
/* job itself or one of its spawned jobs by namespace (upcalls too), or NULL. */
struct launch_job *launch_dyn_job_of(struct launch_job *job, const char *nspace);
/* dyntree.c, across nodes: the tree's SPAWN_REQ, SPAWN_RESP, DYN_JOB, DYN_STARTED and
 * DYN_KILL; fences and direct modex (with their job index, to job or a spawned job). */
void launch_dyn_msg(struct launch_job *job, int type, int src, const char *p, size_t n);
void launch_dyn_route(struct launch_job *job, int type, int src, const char *p, size_t n);
/* rdmpirun: a DYN_EXIT from src checked: 0 and *ev (LAUNCH_EV_DYN_EXIT) to judge. */
int launch_dyn_exit_msg(struct launch_job *job, int src, const char *p, size_t n,
                        struct launch_event *ev);
/* Judges such an event as launch_dyn_reaped does a local exit (-1: no such live rank). */
int launch_dyn_exited(struct launch_job *job, int index, int rank, int status, int reporting);
/* rdmpid: the output pipes of the spawned ranks of its node, polled with the job's. */
int launch_dyn_io_npollfds(const struct launch_job *job);
int launch_dyn_io_fill_pollfds(struct launch_job *job, struct pollfd *pfd, int max);
void launch_dyn_io_handle(struct launch_job *job, const struct pollfd *pfd, int n);
/* rdmpirun: the daemon of node is gone; its spawned ranks with it. */
void launch_dyn_node_lost(struct launch_job *job, int node);

/* names.c: the names ranks publish (MPI_Publish_name); the upcalls are in server.h. */
int launch_names_create(struct launch_job *job);
void launch_names_destroy(struct launch_job *job);

/* namefwd.c: the name service across nodes. rdmpid forwards its ranks' requests to
 * rdmpirun (the upcalls are in server.h) and fails those still waiting once rdmpirun is out
 * of reach (and every later one at once); rdmpirun answers them from its table. */
int launch_namefwd_create(struct launch_job *job);
void launch_namefwd_destroy(struct launch_job *job);
void launch_namefwd_progress(struct launch_job *job);
void launch_namefwd_fail_all(struct launch_job *job);
/* NAME_REQ at rdmpirun, NAME_RESP at rdmpid. */
void launch_namefwd_msg(struct launch_job *job, int type, int src, const char *p, size_t n);

/* monitor.c */
int launch_monitor_run(struct launch_job *job, int start_failed);

/* server.c (without libpmix types) */
void launch_record_abort(struct launch_job *job, int rank, int status, const char *msg);

/* cleanup.c */
int launch_cleanup_tmpdir(const char *dir);
int launch_cleanup_shm(const char *nspace, const uint8_t job_key[CORE_KEY_LEN]);
int launch_cleanup_node(const char *nspace, int vpid, const uint8_t job_key[CORE_KEY_LEN]);
/* The value of LAUNCH_JOB_TAG in the environment of a daemon's ranks:
 * "<nspace>.<vpid>.<16 hex digits derived from the job key>". */
void launch_job_tag(char *buf, size_t len, const char *nspace, int vpid,
                    const uint8_t job_key[CORE_KEY_LEN]);

/* Monotonic clock in seconds (signals.c). */
double launch_now(void);

#endif
