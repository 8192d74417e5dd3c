/*
 * The LAUNCH message: everything a daemon needs to know about the job,
 * packed by rdmpirun and unpacked by each rdmpid. -x exports travel
 * resolved ("VAR=value", with rdmpirun's value), so that every node gives
 * its ranks the same variables.
 */
#include "jobmsg.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { FLAG_TAG = 1, FLAG_REPORT = 2, FLAG_OVERSUB = 4 };

int launch_jobmsg_pack(const struct launch_job *job, struct launch_buf *b)
{
    const struct launch_opts *o = job->opts;
    char cwd[PATH_MAX];
    uint32_t nexp = 0;

    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), "/");
    lbuf_str(b, job->nspace);
    lbuf_u32(b, (o->tag_output ? FLAG_TAG : 0) | (o->report_bindings ? FLAG_REPORT : 0) |
                    (o->oversubscribe ? FLAG_OVERSUB : 0));
    lbuf_u32(b, (uint32_t)o->bind);
    lbuf_u32(b, (uint32_t)job->nnodes);
    for (int i = 0; i < job->nnodes; i++) {
        lbuf_str(b, job->nodes[i].host);
        lbuf_u32(b, (uint32_t)job->nodes[i].vpid);
        lbuf_u32(b, (uint32_t)job->nodes[i].machine);
        lbuf_u32(b, (uint32_t)job->nodes[i].slots);
    }
    lbuf_u32(b, (uint32_t)job->nranks);
    for (int r = 0; r < job->nranks; r++)
        lbuf_u32(b, (uint32_t)job->ranks[r].node);
    lbuf_str(b, cwd);
    uint32_t argc = 0;
    while (o->argv[argc])
        argc++;
    lbuf_u32(b, argc);
    for (uint32_t i = 0; i < argc; i++)
        lbuf_str(b, o->argv[i]);
    for (int i = 0; i < o->nexports; i++)
        nexp += strchr(o->exports[i], '=') || getenv(o->exports[i]);
    lbuf_u32(b, nexp);
    for (int i = 0; i < o->nexports; i++) {
        const char *e = o->exports[i];
        if (strchr(e, '=')) {
            lbuf_str(b, e);
        } else if (getenv(e)) {
            struct launch_buf kv = {0};
            lbuf_raw(&kv, e, strlen(e));
            lbuf_raw(&kv, "=", 1);
            lbuf_raw(&kv, getenv(e), strlen(getenv(e)));
            lbuf_bytes(b, kv.p, kv.len);
            b->err |= kv.err;
            lbuf_free(&kv);
        }
    }
    return b->err ? -ENOMEM : 0;
}

static int unpack_strings(struct launch_rd *r, char ***out, uint32_t *count)
{
    uint32_t n = lrd_u32(r);
    char **v;

    if (r->err || n > r->left / 4) /* each takes at least its length word */
        return -EPROTO;
    v = calloc((size_t)n + 1, sizeof(*v));
    if (!v)
        return -ENOMEM;
    *out = v;
    *count = n;
    for (uint32_t i = 0; i < n; i++)
        if (!(v[i] = lrd_str(r)))
            return -EPROTO;
    return 0;
}

/* A name fit for a host, nspace or path component: printable, no blanks, no '/'. */
static int word_ok(const char *s, size_t max)
{
    size_t n = strlen(s);

    if (n == 0 || n > max)
        return 0;
    for (; *s; s++)
        if (*s <= ' ' || *s > '~' || *s == '/')
            return 0;
    return 1;
}

static int unpack_nodes(struct launch_rd *r, struct launch_job *job, int me)
{
    uint32_t n = lrd_u32(r);
    char *seen;

    if (r->err || n == 0 || n > r->left / 16)
        return -EPROTO;
    job->nodes = calloc(n, sizeof(*job->nodes));
    seen = calloc((size_t)n + 1, 1);
    if (!job->nodes || !seen) {
        free(seen);
        return -ENOMEM;
    }
    job->nnodes = (int)n;
    job->my_node = -1;
    for (uint32_t i = 0; i < n; i++) {
        struct launch_node *nd = &job->nodes[i];
        char *host = lrd_str_max(r, sizeof(nd->host) - 1);
        uint32_t vpid = lrd_u32(r), machine = lrd_u32(r), slots = lrd_u32(r);
        /* every node has its own member of the tree (rdmpirun numbers them from 0 or 1
         * up), and groups name one of the nodes */
        if (!host || !word_ok(host, sizeof(nd->host) - 1) || vpid > n ||
            seen[vpid] || machine >= n || slots > LAUNCH_MAX_SLOTS) {
            free(host);
            free(seen);
            return -EPROTO;
        }
        seen[vpid] = 1;
        nd->vpid = (int)vpid;
        nd->machine = (int)machine;
        nd->slots = (int)slots;
        snprintf(nd->host, sizeof(nd->host), "%s", host);
        snprintf(nd->name, sizeof(nd->name), "%s", host);
        free(host);
        if (nd->vpid == me)
            job->my_node = (int)i;
    }
    free(seen);
    return r->err || job->my_node < 0 ? -EPROTO : 0;
}

static int unpack_ranks(struct launch_rd *r, struct launch_job *job)
{
    uint32_t n = lrd_u32(r);

    if (r->err || n == 0 || n > r->left / 4 || n > 0x7fffffffu)
        return -EPROTO;
    job->ranks = calloc(n, sizeof(*job->ranks));
    if (!job->ranks)
        return -ENOMEM;
    job->nranks = (int)n;
    for (int i = 0; i < job->nranks; i++) {
        struct launch_rank *rk = &job->ranks[i];
        uint32_t node = lrd_u32(r);
        if (r->err || node >= (uint32_t)job->nnodes)
            return -EPROTO;
        rk->rank = i;
        rk->node = (int)node;
        rk->local_rank = job->nodes[node].nranks++;
        rk->local = rk->node == job->my_node;
        rk->core = -1;
        rk->out_pipe[0] = rk->out_pipe[1] = -1;
        rk->err_pipe[0] = rk->err_pipe[1] = -1;
        rk->stdin_fd = -1;
        job->nlocal += rk->local;
    }
    return 0;
}

/* -x exports arrive resolved: "NAME=value" with a name before the '='. */
static int exports_ok(char **v)
{
    for (; *v; v++)
        if (!strchr(*v, '=') || **v == '=')
            return 0;
    return 1;
}

int launch_jobmsg_unpack(const char *p, size_t n, int me, struct launch_job *job,
                         struct launch_jobmsg *jm)
{
    struct launch_rd r = {p, n, 0};
    char *nspace = lrd_str_max(&r, sizeof(job->nspace) - 1);
    uint32_t flags = lrd_u32(&r), bind = lrd_u32(&r), argc = 0, nexp = 0;
    int rc;

    memset(jm, 0, sizeof(*jm));
    if (!nspace || r.err || !word_ok(nspace, sizeof(job->nspace) - 1) ||
        (flags & ~(uint32_t)(FLAG_TAG | FLAG_REPORT | FLAG_OVERSUB)) || bind > LAUNCH_BIND_NONE || me <= 0) {
        free(nspace);
        return -EPROTO;
    }
    snprintf(job->nspace, sizeof(job->nspace), "%s", nspace);
    free(nspace);
    jm->opts.tag_output = !!(flags & FLAG_TAG);
    jm->opts.report_bindings = !!(flags & FLAG_REPORT);
    jm->opts.oversubscribe = !!(flags & FLAG_OVERSUB);
    jm->opts.bind = (enum launch_bind)bind;
    rc = unpack_nodes(&r, job, me);
    if (!rc)
        rc = unpack_ranks(&r, job);
    if (!rc && (!(jm->cwd = lrd_str_max(&r, PATH_MAX - 1)) || jm->cwd[0] != '/'))
        rc = -EPROTO;
    if (!rc)
        rc = unpack_strings(&r, &jm->argv, &argc);
    if (!rc && (argc == 0 || !jm->argv[0][0]))
        rc = -EPROTO;
    if (!rc)
        rc = unpack_strings(&r, &jm->exports, &nexp);
    if (!rc && (!exports_ok(jm->exports) || nexp > 0x7fffffffu || r.left))
        rc = -EPROTO; /* every byte is accounted for */
    if (rc)
        return rc;
    jm->opts.argv = jm->argv;
    jm->opts.exports = (const char **)jm->exports;
    jm->opts.nexports = (int)nexp;
    jm->opts.nranks = job->nranks;
    job->opts = &jm->opts;
    snprintf(job->host, sizeof(job->host), "%s", job->nodes[job->my_node].host);
    return 0;
}

static void free_strings(char **v)
{
    for (char **p = v; p && *p; p++)
        free(*p);
    free(v);
}

void launch_jobmsg_free(struct launch_jobmsg *jm)
{
    free_strings(jm->argv);
    free_strings(jm->exports);
    free(jm->cwd);
    memset(jm, 0, sizeof(*jm));
}

void launch_jobmsg_release(struct launch_job *job, struct launch_jobmsg *jm)
{
    launch_jobmsg_free(jm);
    free(job->nodes);
    free(job->ranks);
    job->nodes = NULL;
    job->ranks = NULL;
    job->nnodes = job->nranks = job->nlocal = 0;
}
