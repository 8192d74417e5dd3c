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
 * Fills job (nspace, nodes, ranks, host, opts) for tree member `me` (a
 * daemon: 1 or more) from a LAUNCH payload of n bytes at p. A pure decoder
 * (unit tests and fuzz targets drive it): every field is checked (lengths,
 * counts, node vpids distinct and at most the node count, node and machine
 * indices in range, strings without NUL bytes, names without '/', an
 * absolute cwd, exports "NAME=value", no byte left over) and -EPROTO
 * returned on the first that is wrong; the caller checks the vpids against
 * its tree's size. job must be zeroed; on error and on success,
 * launch_jobmsg_release() (or freeing job->nodes, job->ranks and
 * launch_jobmsg_free) frees what was filled.
 */
int launch_jobmsg_unpack(const char *p, size_t n, int me, struct launch_job *job,
                         struct launch_jobmsg *jm);
void launch_jobmsg_free(struct launch_jobmsg *jm);
/* Frees jm and the nodes and ranks unpack gave job. */
void launch_jobmsg_release(struct launch_job *job, struct launch_jobmsg *jm);

#endif
