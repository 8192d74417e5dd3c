/*
 * What the daemon tree carries for spawned jobs (dyn.c), as pure functions
 * over (bytes, length) in the style of treewire.c, so that unit tests and
 * the fuzz target dynwire drive them directly:
 *
 *   SPAWN_REQ    daemon -> 0: a rank of its node asked to spawn (PMIx_Spawn)
 *   SPAWN_RESP   0 -> that daemon: the outcome, to hand to libpmix
 *   DYN_JOB      bcast: a new namespace, its applications and where each rank runs
 *   DYN_STARTED  daemon -> 0: registered (and its ranks forked), or why not
 *   DYN_EXIT     daemon -> 0: a spawned rank of its node ended
 *   DYN_KILL     bcast: end a spawned job whose start failed somewhere
 *   DYN_IO       daemon -> 0: output of a spawned rank of its node
 *   NAME_REQ     daemon -> 0: a rank of its node publishes, looks up or unpublishes names
 *   NAME_RESP    0 -> that daemon: the outcome, with the names found for a lookup
 *
 * Fences and direct modex of a spawned job travel as those of the job, with
 * the job's index (0: the job rdmpirun started, k: the k-th spawned one) as
 * the first word of the payload (launch_dyn_index).
 *
 * Decoders return 0 or -EPROTO (why set to a constant string) and accept a
 * message only when every field is in range and every byte accounted for;
 * on error and on success the caller frees what they filled with the
 * matching _free function.
 */
#ifndef RDMPI_LAUNCH_DYNWIRE_H
#define RDMPI_LAUNCH_DYNWIRE_H

#include "launch.h"
#include "tree.h"

#define LAUNCH_DYN_MAX_PROCS 4096  /* ranks of one spawn, over all its applications */
#define LAUNCH_DYN_MAX_ARGS 4096   /* argv and env entries of one application */
#define LAUNCH_DYN_MAX_HOSTS 4096  /* characters of an application's "host" value */
#define LAUNCH_DYN_NS_MAX 63       /* namespace names */
#define LAUNCH_DYN_WHY_MAX 1023    /* texts */
#define LAUNCH_NAME_MAX 128        /* names in one request or answer */
#define LAUNCH_NAME_KEY_MAX 511    /* a name's key (PMIX_MAX_KEYLEN) */
#define LAUNCH_NAME_VALUE_MAX 4095 /* its value (names.c keeps no longer one) */

struct launch_dyn_spawn_msg {      /* SPAWN_REQ */
    uint32_t id;
    char parent_nspace[LAUNCH_DYN_NS_MAX + 1];
    uint32_t parent_rank;
    struct launch_app *apps;       /* prog is the command as given; host may be set */
    int napps;
};
struct launch_dyn_resp_msg {       /* SPAWN_RESP */
    uint32_t id;
    int32_t status;                /* a PMIx status: 0 or negative */
    char nspace[LAUNCH_DYN_NS_MAX + 1];
    char why[LAUNCH_DYN_WHY_MAX + 1];
};
struct launch_dyn_job_msg {        /* DYN_JOB */
    uint32_t index;                /* 1 and up */
    char nspace[LAUNCH_DYN_NS_MAX + 1];
    uint32_t ubase;
    char parent_nspace[LAUNCH_DYN_NS_MAX + 1];
    uint32_t parent_rank;
    struct launch_app *apps;
    int napps;
    int nranks;                    /* the apps' nprocs added up */
    uint32_t *node;                /* per rank: an index below nnodes */
};
struct launch_dyn_started_msg {    /* DYN_STARTED */
    uint32_t index;
    uint32_t code;                 /* 0: started; else an exit status for the run */
    char why[LAUNCH_DYN_WHY_MAX + 1];
};
struct launch_dyn_exit_msg {       /* DYN_EXIT */
    uint32_t index, rank, status, connected, finalized;
};
struct launch_dyn_io_msg {         /* DYN_IO */
    uint32_t index, rank, is_err;
    const char *data;              /* points into the payload */
    size_t len;
};

/* The name service across nodes (namefwd.c): a rank's request goes to rdmpirun's table. */
enum launch_name_op { LAUNCH_NAME_PUBLISH = 1, LAUNCH_NAME_LOOKUP, LAUNCH_NAME_UNPUBLISH };
struct launch_dyn_name {
    char *key;                     /* 1..LAUNCH_NAME_KEY_MAX bytes */
    char *value;                   /* PUBLISH and found names: 0..LAUNCH_NAME_VALUE_MAX bytes;
                                      else NULL */
    char nspace[LAUNCH_DYN_NS_MAX + 1]; /* found names: the publisher; else "" */
    uint32_t rank;
};
struct launch_dyn_name_req_msg {   /* NAME_REQ */
    uint32_t id, op;               /* op: enum launch_name_op */
    char nspace[LAUNCH_DYN_NS_MAX + 1]; /* the asking rank */
    uint32_t rank;
    uint32_t n;                    /* 1..LAUNCH_NAME_MAX */
    struct launch_dyn_name *names; /* keys (and values to publish) */
};
struct launch_dyn_name_resp_msg {  /* NAME_RESP */
    uint32_t id;
    int32_t status;                /* a PMIx status: 0 or negative */
    uint32_t n;                    /* names found: 0..LAUNCH_NAME_MAX, none unless status 0 */
    struct launch_dyn_name *names;
};

void launch_dyn_spawn_encode(struct launch_buf *b, const struct launch_dyn_spawn_msg *m);
int launch_dyn_spawn_decode(const char *p, size_t n, struct launch_dyn_spawn_msg *m,
                            const char **why);
void launch_dyn_spawn_free(struct launch_dyn_spawn_msg *m);
void launch_dyn_resp_encode(struct launch_buf *b, const struct launch_dyn_resp_msg *m);
int launch_dyn_resp_decode(const char *p, size_t n, struct launch_dyn_resp_msg *m,
                           const char **why);
void launch_dyn_job_encode(struct launch_buf *b, const struct launch_dyn_job_msg *m);
/* nnodes bounds the rank's nodes. */
int launch_dyn_job_decode(const char *p, size_t n, int nnodes, struct launch_dyn_job_msg *m,
                          const char **why);
void launch_dyn_job_free(struct launch_dyn_job_msg *m);
void launch_dyn_started_encode(struct launch_buf *b, const struct launch_dyn_started_msg *m);
int launch_dyn_started_decode(const char *p, size_t n, struct launch_dyn_started_msg *m,
                              const char **why);
void launch_dyn_exit_encode(struct launch_buf *b, const struct launch_dyn_exit_msg *m);
int launch_dyn_exit_decode(const char *p, size_t n, struct launch_dyn_exit_msg *m,
                           const char **why);
void launch_dyn_io_encode(struct launch_buf *b, const struct launch_dyn_io_msg *m);
int launch_dyn_io_decode(const char *p, size_t n, struct launch_dyn_io_msg *m, const char **why);
/* DYN_KILL, and the job index in front of a fence or direct-modex payload. */
int launch_dyn_index_decode(const char *p, size_t n, uint32_t *index, const char **why);

void launch_dyn_name_req_encode(struct launch_buf *b, const struct launch_dyn_name_req_msg *m);
int launch_dyn_name_req_decode(const char *p, size_t n, struct launch_dyn_name_req_msg *m,
                               const char **why);
void launch_dyn_name_resp_encode(struct launch_buf *b, const struct launch_dyn_name_resp_msg *m);
int launch_dyn_name_resp_decode(const char *p, size_t n, struct launch_dyn_name_resp_msg *m,
                                const char **why);
/* Frees n names (their strings and the array). */
void launch_dyn_names_free(struct launch_dyn_name *names, uint32_t n);

/* Frees napps applications (argv, env, path, host) and the array. */
void launch_dyn_apps_free(struct launch_app *apps, int napps);

#endif
