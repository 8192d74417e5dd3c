/*
 * The job description that rdmpirun broadcasts to its daemons (MSG_LAUNCH).
 */
#ifndef RDMPI_LAUNCH_JOBMSG_H
#define RDMPI_LAUNCH_JOBMSG_H

#include "launch.h"
#include "tree.h"

/* What a daemon keeps of the message: the options its job points at. */
struct launch_jobmsg {
    struct launch_opts opts;
    char **argv;      /* NULL-terminated */
    char **exports;   /* "VAR=value", NULL-terminated */
    char *cwd;
};

int launch_jobmsg_pack(const struct launch_job *job, struct launch_buf *b);

/*
 * Fills job (nspace, nodes, ranks, host, opts) for tree member `me` from a
 * LAUNCH payload. job must be zeroed; on error the caller still frees
 * job->nodes, job->ranks and jm.
 */
int launch_jobmsg_unpack(const char *p, size_t n, int me, struct launch_job *job,
                         struct launch_jobmsg *jm);
void launch_jobmsg_free(struct launch_jobmsg *jm);

#endif
