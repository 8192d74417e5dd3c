/*
 * The private state of spawned jobs, shared by dyn.c (requests, jobs on
 * rdmpirun's node, exits and signals) and dyntree.c (jobs across the nodes
 * of the daemon tree). Nothing else includes it.
 */
#ifndef RDMPI_LAUNCH_DYN_IMPL_H
#define RDMPI_LAUNCH_DYN_IMPL_H

#include "dynwire.h"
#include "server.h"

#define DYN_MAX_PROCS LAUNCH_DYN_MAX_PROCS /* one spawn call; more is refused */

struct dyn_req {
    struct dyn_req *next;
    struct launch_app *apps;
    int napps;
    char why[512];              /* set by the upcall: refuse without starting anything */
    char parent_nspace[64];     /* the spawning rank */
    int parent_rank;
    pmix_spawn_cbfunc_t cbfunc; /* our own server's request; NULL for a daemon's */
    void *cbdata;
    int from;                   /* rdmpirun: the daemon that asked (SPAWN_REQ), else 0 */
    uint32_t from_id;
};

struct dyn_job {
    struct dyn_job *next;
    struct launch_job job;
    int nalive;                 /* ranks not known to have ended (on every node, at rdmpirun) */
    int cancelled;              /* its start failed somewhere: its ranks' ends are no failures */
    /* rdmpirun across nodes: the request answered once every daemon has told DYN_STARTED */
    struct dyn_req *req;
    char *acked;                /* by tree member */
    int acks, acks_wanted;
    int fail_code;
    char fail_why[512];
    int npolled;                /* rdmpid: its output streams in the last poll */
};

/* A daemon's spawn request sent to rdmpirun, waiting for SPAWN_RESP. */
struct dyn_asked {
    struct dyn_asked *next;
    uint32_t id;
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
};

struct launch_dyn {
    pthread_mutex_t lock;       /* guards the queue only */
    struct dyn_req *head, *tail;
    struct dyn_job *jobs;       /* main thread only, but read by launch_dyn_rank (see there) */
    int njobs;                  /* namespaces made so far: names the next one */
    int next_ubase;             /* the next job's first process number (CORE_UBASE_PMIX) */
    struct dyn_asked *asked;    /* rdmpid */
    uint32_t next_id;
};

/* dyn.c */
void dyn_req_free(struct dyn_req *q);
/* Answers a request (its own server's callback, or SPAWN_RESP to the daemon that asked),
 * saying why on stderr when it failed, and frees it. */
void dyn_finish(struct launch_job *job, struct dyn_req *q, int rc, const char *nspace,
                const char *why);
/* The child job's common part (keys, node table, tree, server) from its parent. */
void dyn_job_inherit(struct launch_job *parent, struct launch_job *job);
/* Makes every app's program an absolute path found here (or says why, naming this host). */
int dyn_resolve_apps(struct launch_job *job, char *why, size_t len);
/* A spawned rank ended: its status for the job (0: not a failure), reported if reporting. */
int dyn_judge(struct launch_job *parent, struct dyn_job *j, int i, int status, int reporting);
void dyn_link(struct launch_job *parent, struct dyn_job *dj);

/* dyntree.c */
void dyn_tree_start(struct launch_job *job, struct dyn_req *q);
void dyn_tree_ask(struct launch_job *job, struct dyn_req *q);
void dyn_job_free(struct dyn_job *j);

#endif
