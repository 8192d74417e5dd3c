/*
 * The job's nodes and the mapping of ranks to them. --host takes comma
 * lists of "name" or "name:slots"; --hostfile takes Open MPI's
 * "name slots=N [max_slots=M]" lines and MPICH's "name:N" lines, with '#'
 * comments and blank lines. A name given twice adds its slots together, as
 * in Open MPI. Without either, the job runs on this node with one slot per
 * core. Ranks fill the slots in node order (--map-by slot) or one per node
 * in turn (--map-by node); a job larger than all slots wraps around again
 * in the same order, oversubscribing. Only nodes that get a rank are part
 * of the job; the node rdmpirun runs on is served by rdmpirun itself.
 */
#include "launch.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* True when name denotes this host: a loopback alias, or our hostname,
 * whole or up to its first dot. */
int launch_host_is_here(const char *name, const char *localhost)
{
    static const char *const aliases[] = {"localhost", "127.0.0.1", "::1"};
    size_t short_len = strcspn(localhost, ".");

    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (!strcmp(aliases[i], name))
            return 1;
    if (!strcmp(localhost, name))
        return 1;
    return strlen(name) == short_len && !strncmp(localhost, name, short_len);
}

static int add_host(struct launch_job *job, const char *name, size_t len, int slots)
{
    struct launch_node *n;

    if (len == 0 || len >= sizeof(n->name)) {
        fprintf(stderr, "rdmpirun: invalid host name '%.*s'\n", (int)len, name);
        return -EINVAL;
    }
    for (int i = 0; i < job->nnodes; i++) {
        n = &job->nodes[i];
        if (strlen(n->name) == len && !strncmp(n->name, name, len)) {
            n->slots = n->slots + slots > LAUNCH_MAX_SLOTS ? LAUNCH_MAX_SLOTS
                                                           : n->slots + slots;
            return 0;
        }
    }
    n = realloc(job->nodes, (size_t)(job->nnodes + 1) * sizeof(*n));
    if (!n)
        return -ENOMEM;
    job->nodes = n;
    n = &job->nodes[job->nnodes++];
    memset(n, 0, sizeof(*n));
    memcpy(n->name, name, len);
    n->slots = slots;
    n->is_here = launch_host_is_here(n->name, job->host);
    snprintf(n->host, sizeof(n->host), "%s", n->is_here ? job->host : n->name);
    return 0;
}

static int parse_slots(const char *s, size_t len, int *out)
{
    char buf[16], *end;
    long v;

    if (len == 0 || len >= sizeof(buf))
        return -EINVAL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    v = strtol(buf, &end, 10);
    if (*end || v < 1 || v > LAUNCH_MAX_SLOTS)
        return -EINVAL;
    *out = (int)v;
    return 0;
}

/* "name" or "name:slots". An entry with more than one ':' is an IPv6
 * address without slots. */
static int add_entry(struct launch_job *job, const char *e, size_t len, const char *origin)
{
    const char *colon = memchr(e, ':', len);
    int slots = 1;

    if (colon && !memchr(colon + 1, ':', len - (size_t)(colon - e) - 1)) {
        if (parse_slots(colon + 1, len - (size_t)(colon - e) - 1, &slots)) {
            fprintf(stderr, "rdmpirun: invalid slot count in '%.*s' (%s)\n", (int)len, e, origin);
            return -EINVAL;
        }
        len = (size_t)(colon - e);
    }
    return add_host(job, e, len, slots);
}

static int parse_list(struct launch_job *job, const char *list)
{
    const char *p = list;

    while (*p) {
        size_t item = strcspn(p, ",");
        if (item > 0) {
            int rc = add_entry(job, p, item, "--host");
            if (rc)
                return rc;
        }
        p += item;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* One hostfile line, comment already cut: "name[:N] [slots=N] [max_slots=N]". */
static int parse_line(struct launch_job *job, char *line, const char *origin)
{
    char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
    char *name = tok;
    int slots = -1;

    if (!name)
        return 0; /* blank */
    while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
        if (!strncmp(tok, "slots=", 6)) {
            if (parse_slots(tok + 6, strlen(tok + 6), &slots)) {
                fprintf(stderr, "rdmpirun: invalid '%s' (%s)\n", tok, origin);
                return -EINVAL;
            }
        } else if (strncmp(tok, "max_slots=", 10) && strncmp(tok, "max-slots=", 10)) {
            fprintf(stderr, "rdmpirun: warning: ignoring '%s' (%s)\n", tok, origin);
        }
    }
    if (slots < 0)
        return add_entry(job, name, strlen(name), origin);
    return add_host(job, name, strcspn(name, ":"), slots);
}

static int parse_hostfile(struct launch_job *job, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024], origin[PATH_MAX + 32];
    int rc = 0, lineno = 0;

    if (!f) {
        fprintf(stderr, "rdmpirun: cannot read hostfile '%s': %s\n", path, strerror(errno));
        return -errno;
    }
    while (!rc && fgets(line, sizeof(line), f)) {
        lineno++;
        line[strcspn(line, "#")] = '\0';
        snprintf(origin, sizeof(origin), "%s line %d", path, lineno);
        rc = parse_line(job, line, origin);
    }
    fclose(f);
    if (!rc && job->nnodes == 0) {
        fprintf(stderr, "rdmpirun: hostfile '%s' names no host\n", path);
        rc = -EINVAL;
    }
    return rc;
}

/* Builds job->nodes from the options; without any, leaves it empty. */
int launch_hosts_parse(struct launch_job *job)
{
    const struct launch_opts *o = job->opts;
    int rc = 0;

    for (int i = 0; !rc && i < o->nhosts; i++)
        rc = parse_list(job, o->hosts[i]);
    if (!rc && o->hostfile)
        rc = parse_hostfile(job, o->hostfile);
    if (rc == -ENOMEM)
        fprintf(stderr, "rdmpirun: out of memory\n");
    return rc;
}

/* Index of the node that gets rank `rank` among n nodes. */
static int next_node(const struct launch_job *job, int *used, int rank, int by_node, int *cursor)
{
    int n = job->nnodes, total = 0;

    for (int i = 0; i < n; i++)
        total += job->nodes[i].slots;
    if (rank % total == 0) { /* a new round of slots */
        memset(used, 0, (size_t)n * sizeof(*used));
        *cursor = 0;
    }
    for (int tries = 0; tries < n; tries++) {
        int i = *cursor;
        if (used[i] < job->nodes[i].slots) {
            used[i]++;
            if (by_node)
                *cursor = (i + 1) % n;
            return i;
        }
        *cursor = (i + 1) % n;
    }
    return 0; /* not reached: a round has exactly `total` ranks */
}

/* Gives each node a tree member: 0 for the node rdmpirun runs on, 1.. for
 * daemons. A node without a rank of the initial job stays in the run with
 * its daemon: its slots are the free ones MPI_Comm_spawn places children on
 * (the user named the host, so it must be reachable like the others). */
static void assign_members(struct launch_job *job)
{
    int vpid = 1;

    job->my_node = -1;
    for (int i = 0; i < job->nnodes; i++) {
        struct launch_node *n = &job->nodes[i];
        if (n->is_here && job->my_node < 0) {
            n->vpid = 0;
            job->my_node = i;
        } else {
            n->is_here = 0;
            n->vpid = vpid++;
        }
    }
}

/*
 * Maps job->nranks ranks to the nodes (one node, this one, with ncores
 * slots when no host was given) and fills in each rank's node, local rank
 * and whether this process forks it.
 */
int launch_hosts_map(struct launch_job *job)
{
    int *used, cursor = 0;

    if (job->nnodes == 0) {
        int rc = add_host(job, job->host, strlen(job->host), job->ncores);
        if (rc)
            return rc;
    }
    used = calloc((size_t)job->nnodes, sizeof(*used));
    if (!used)
        return -ENOMEM;
    for (int r = 0; r < job->nranks; r++) {
        int i = next_node(job, used, r, job->opts->map_by_node, &cursor);
        job->ranks[r].node = i;
        job->ranks[r].local_rank = job->nodes[i].nranks++;
    }
    assign_members(job);
    job->nlocal = 0;
    for (int r = 0; r < job->nranks; r++) {
        struct launch_rank *rk = &job->ranks[r];
        rk->local = rk->node == job->my_node;
        job->nlocal += rk->local;
    }
    free(used);
    return 0;
}
