/*
 * Spawned jobs in a run across nodes (rdmpirun and its daemons).
 *
 * A rank's PMIx_Spawn reaches the server of its node. A daemon sends the
 * request up to rdmpirun (SPAWN_REQ) and answers libpmix when SPAWN_RESP
 * comes back. rdmpirun places the new ranks on the nodes of the run: an
 * application's "host" names the nodes it may use (each must be a node of
 * the run, else the spawn fails saying so), and otherwise every node may be
 * used; within those, ranks fill the slots --host/--hostfile gave that are
 * not taken by the job's ranks or live spawned ones, in node order (with
 * --map-by node, one rank per node in turn over the nodes with a free slot,
 * as the job's own ranks were mapped, each application from its first
 * node), and beyond the slots they go
 * round-robin. It then broadcasts the job
 * (DYN_JOB): every daemon registers the namespace with its PMIx server (so
 * that parents anywhere can read the children's job data, and children
 * their parents'), checks and starts its share of the ranks, and says
 * DYN_STARTED, with why not if it could not. rdmpirun does the same for
 * its own node, and answers the request once every daemon has told: with
 * the namespace, or with the first failure, having had the ranks already
 * started ended (DYN_KILL), whose ends are then no failures of the run.
 *
 * From then on a spawned job is like the job itself: its fences and direct
 * modex go over the tree with its index in front of their payload, its
 * ranks' exits come to rdmpirun (DYN_EXIT) and are judged there, and the
 * daemons' signals and teardown reach its ranks.
 */
#include "dyn_impl.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dyn_job_free(struct dyn_job *j)
{
    launch_io_destroy(&j->job);
    launch_fence_destroy(&j->job);
    launch_dmodex_destroy(&j->job);
    launch_dyn_apps_free(j->job.apps, j->job.napps);
    free(j->job.ranks);
    free(j->acked);
    dyn_req_free(j->req);
    free(j);
}

static struct dyn_job *by_index(struct launch_job *job, uint32_t index)
{
    for (struct dyn_job *j = job->dyn ? job->dyn->jobs : NULL; j; j = j->next)
        if (j->job.dyn_index == index)
            return j;
    return NULL;
}

/* rdmpid: asks rdmpirun, which answers with SPAWN_RESP. */
void dyn_tree_ask(struct launch_job *job, struct dyn_req *q)
{
    struct launch_dyn *d = job->dyn;
    struct launch_dyn_spawn_msg m = {.parent_rank = (uint32_t)q->parent_rank,
                                     .apps = q->apps, .napps = q->napps};
    struct launch_buf b = {0};
    struct dyn_asked *a;

    if (q->why[0]) {
        dyn_finish(job, q, -EINVAL, "", q->why);
        return;
    }
    if (!(a = calloc(1, sizeof(*a)))) {
        dyn_finish(job, q, -ENOMEM, "", "out of memory");
        return;
    }
    m.id = a->id = ++d->next_id;
    snprintf(m.parent_nspace, sizeof(m.parent_nspace), "%s", q->parent_nspace);
    launch_dyn_spawn_encode(&b, &m);
    if (b.err || launch_tree_send(job->tree, MSG_SPAWN_REQ, 0, b.p, b.len)) {
        lbuf_free(&b);
        free(a);
        dyn_finish(job, q, -EIO, "", "cannot reach rdmpirun");
        return;
    }
    lbuf_free(&b);
    a->cbfunc = q->cbfunc;
    a->cbdata = q->cbdata;
    a->next = d->asked;
    d->asked = a;
    dyn_req_free(q);
}

/* The node of the run a "host" name means, or -1. */
static int host_node(const struct launch_job *job, const char *name)
{
    size_t nl = strcspn(name, ".");

    for (int i = 0; i < job->nnodes; i++) {
        const struct launch_node *n = &job->nodes[i];
        if (!strcmp(name, n->name) || !strcmp(name, n->host) ||
            (n->is_here && launch_host_is_here(name, job->host)))
            return i;
    }
    for (int i = 0; i < job->nnodes; i++) { /* short and long names of one host */
        const char *h = job->nodes[i].host;
        size_t hl = strcspn(h, ".");
        if (hl == nl && !strncmp(h, name, nl))
            return i;
    }
    return -1;
}

static void node_names(const struct launch_job *job, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    for (int i = 0; i < job->nnodes && n + 8 < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%.100s", i ? ", " : "", job->nodes[i].host);
}

/* Places every rank of q's applications on a node (see the top of this file). */
static int place(struct launch_job *job, const struct dyn_req *q, uint32_t *node, char *why,
                 size_t len)
{
    int nn = job->nnodes, r = 0, rc = 0, by_node = job->opts && job->opts->map_by_node;
    int *used = calloc((size_t)nn, sizeof(int)), *cand = calloc((size_t)nn, sizeof(int));

    if (!used || !cand) {
        free(used);
        free(cand);
        return -ENOMEM;
    }
    for (int i = 0; i < nn; i++)
        used[i] = job->nodes[i].nranks;
    for (struct dyn_job *j = job->dyn->jobs; j; j = j->next)
        for (int i = 0; i < j->job.nranks; i++)
            if (j->job.ranks[i].alive)
                used[j->job.ranks[i].node]++;
    for (int a = 0; !rc && a < q->napps; a++) {
        const struct launch_app *app = &q->apps[a];
        int nc = 0, cursor = 0, turn = 0;
        if (!app->host) {
            for (int i = 0; i < nn; i++)
                cand[nc++] = i;
        }
        for (const char *p = app->host; p && *p && !rc;) {
            size_t n = strcspn(p, ",");
            char name[256], all[1024];
            snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1),
                     p);
            p += n + (p[n] == ',');
            if (!name[0])
                continue;
            int k = host_node(job, name), dup = 0;
            if (k < 0) {
                node_names(job, all, sizeof(all));
                snprintf(why, len, "cannot spawn '%.150s' on host '%.100s': it is not a host "
                         "of this run (%.150s)", app->prog, name, all);
                rc = -EINVAL;
                break;
            }
            for (int c = 0; c < nc; c++)
                dup |= cand[c] == k;
            if (!dup)
                cand[nc++] = k;
        }
        if (!rc && nc == 0) {
            snprintf(why, len, "cannot spawn '%.200s': info \"host\" names no host", app->prog);
            rc = -EINVAL;
        }
        for (int k = 0; !rc && k < app->nprocs; k++) {
            int pick = -1;
            /* --map-by node: the next host in turn with a free slot; else the first one */
            for (int t = 0; t < nc && pick < 0; t++) {
                int c = by_node ? (turn + t) % nc : t;
                if (used[cand[c]] < job->nodes[cand[c]].slots) {
                    pick = cand[c];
                    turn = (c + 1) % nc;
                }
            }
            if (pick < 0)
                pick = cand[cursor++ % nc];
            used[pick]++;
            node[r++] = (uint32_t)pick;
        }
    }
    free(used);
    free(cand);
    return rc;
}

/* The ranks' table of a job placed on nodes; this process forks those of its node. */
static int fill_ranks(struct launch_job *job, const struct launch_app *apps, int napps,
                      const uint32_t *node, int total)
{
    int r = 0;
    int *per_node = calloc((size_t)job->nnodes, sizeof(int));

    job->ranks = calloc((size_t)total, sizeof(*job->ranks));
    if (!job->ranks || !per_node) {
        free(per_node);
        return -ENOMEM;
    }
    job->nranks = total;
    job->nlocal = 0;
    for (int a = 0; a < napps; a++) {
        for (int k = 0; k < apps[a].nprocs; k++, r++) {
            struct launch_rank *rk = &job->ranks[r];
            rk->rank = r;
            rk->node = (int)node[r];
            rk->local_rank = per_node[rk->node]++;
            rk->local = rk->node == job->my_node;
            job->nlocal += rk->local;
            rk->core = -1;
            rk->app = a;
            rk->out_pipe[0] = rk->out_pipe[1] = rk->err_pipe[0] = rk->err_pipe[1] = -1;
            rk->stdin_fd = -1;
        }
    }
    free(per_node);
    return 0;
}

/* Registers the namespace with our server and starts our share of its ranks. 0, or an exit
 * status for the run with why set. */
static int start_here(struct dyn_job *dj, char *why, size_t len)
{
    struct launch_job *job = &dj->job;
    int rc = dyn_resolve_apps(job, why, len);

    if (rc)
        return LAUNCH_EXIT_NOPROG;
    if (launch_server_register_job(job)) {
        snprintf(why, len, "%.100s on host %.100s cannot register spawned job %s with PMIx", launch_who,
                 job->host, job->nspace);
        return LAUNCH_EXIT_INTERNAL;
    }
    rc = launch_spawn_all(job);
    for (int i = 0; i < job->nranks; i++)
        dj->nalive += job->ranks[i].local && job->ranks[i].alive;
    if (rc) {
        snprintf(why, len, "%.100s on host %.100s could not start the ranks of spawned job %s",
                 launch_who, job->host, job->nspace);
        return LAUNCH_EXIT_INTERNAL;
    }
    return 0;
}

static void kill_local(struct dyn_job *dj)
{
    for (int i = 0; i < dj->job.nranks; i++) {
        struct launch_rank *r = &dj->job.ranks[i];
        if (r->local && r->alive && r->pid > 0 && kill(-r->pid, SIGKILL))
            kill(r->pid, SIGKILL);
    }
}

/* rdmpirun: answers the request once every daemon has told. */
static void check_done(struct launch_job *job, struct dyn_job *dj)
{
    struct dyn_req *q = dj->req;

    if (!q || dj->acks < dj->acks_wanted)
        return;
    dj->req = NULL;
    if (!dj->fail_code) {
        dyn_finish(job, q, 0, dj->job.nspace, "");
        return;
    }
    /* Ended before anyone was told of it: nothing of it is a failure of the run. */
    dj->cancelled = 1;
    struct launch_buf b = {0};
    lbuf_u32(&b, dj->job.dyn_index);
    if (!b.err)
        launch_tree_send(job->tree, MSG_DYN_KILL, LAUNCH_TREE_BCAST, b.p, b.len);
    lbuf_free(&b);
    kill_local(dj);
    for (int i = 0; i < dj->job.nranks; i++) {
        struct launch_rank *r = &dj->job.ranks[i];
        if (!r->local && r->alive) {
            r->alive = 0;
            dj->nalive--;
        }
    }
    dyn_finish(job, q, dj->fail_code == LAUNCH_EXIT_NOPROG ? -ENOENT : -EIO, "", dj->fail_why);
}

static void note_failure(struct dyn_job *dj, int code, const char *why)
{
    if (!dj->fail_code) {
        dj->fail_code = code;
        snprintf(dj->fail_why, sizeof(dj->fail_why), "%.500s", why);
    }
}

/* rdmpirun: places the job, tells the daemons, starts its own share. Takes q. */
void dyn_tree_start(struct launch_job *job, struct dyn_req *q)
{
    struct launch_dyn *d = job->dyn;
    struct dyn_job *dj = NULL;
    uint32_t *node = NULL;
    int total = 0, rc;

    for (int a = 0; a < q->napps; a++)
        total += q->apps[a].nprocs;
    if (!(node = calloc((size_t)total, sizeof(*node))) || !(dj = calloc(1, sizeof(*dj)))) {
        free(node);
        dyn_finish(job, q, -ENOMEM, "", "out of memory");
        return;
    }
    rc = place(job, q, node, q->why, sizeof(q->why));
    if (rc) {
        free(node);
        free(dj);
        dyn_finish(job, q, rc, "", q->why);
        return;
    }
    struct launch_job *cj = &dj->job;
    dyn_job_inherit(job, cj);
    memcpy(cj->parent_nspace, q->parent_nspace, sizeof(cj->parent_nspace));
    cj->parent_rank = q->parent_rank;
    snprintf(cj->nspace, sizeof(cj->nspace), "%.40s-s%d", job->nspace, d->njobs++);
    cj->dyn_index = (uint32_t)d->njobs;
    cj->ubase = d->next_ubase;
    rc = fill_ranks(cj, q->apps, q->napps, node, total);
    dj->acks_wanted = launch_tree_size(job->tree) - 1;
    dj->acked = calloc((size_t)launch_tree_size(job->tree), 1);
    if (rc || !dj->acked || launch_fence_create(cj) || launch_dmodex_create(cj)) {
        free(node);
        dyn_job_free(dj);
        dyn_finish(job, q, -ENOMEM, "", "out of memory");
        return;
    }
    d->next_ubase += total;
    cj->apps = q->apps;
    cj->napps = q->napps;
    q->apps = NULL;
    q->napps = 0;
    for (int i = 0; i < total; i++) /* running elsewhere until its daemon tells otherwise */
        if (!cj->ranks[i].local && (cj->ranks[i].alive = 1))
            dj->nalive++;
    dj->req = q;
    dyn_link(job, dj); /* before any fork, so that every pid we reap is found */

    struct launch_dyn_job_msg m = {.index = cj->dyn_index, .ubase = (uint32_t)cj->ubase,
                                   .parent_rank = (uint32_t)cj->parent_rank, .apps = cj->apps,
                                   .napps = cj->napps, .nranks = total, .node = node};
    struct launch_buf b = {0};
    snprintf(m.nspace, sizeof(m.nspace), "%s", cj->nspace);
    snprintf(m.parent_nspace, sizeof(m.parent_nspace), "%s", cj->parent_nspace);
    launch_dyn_job_encode(&b, &m);
    if (b.err || launch_tree_send(job->tree, MSG_DYN_JOB, LAUNCH_TREE_BCAST, b.p, b.len)) {
        note_failure(dj, LAUNCH_EXIT_INTERNAL, "cannot tell the daemons of the spawned job");
        dj->acks_wanted = 0;
    }
    lbuf_free(&b);
    free(node);
    if (job->my_node >= 0) {
        char why[512] = "";
        int code = start_here(dj, why, sizeof(why));
        if (code)
            note_failure(dj, code, why);
    }
    check_done(job, dj);
}

/* rdmpirun: a daemon's rank spawns. The parent must be a rank of that daemon's node. */
static void on_spawn_req(struct launch_job *job, int src, const char *p, size_t n)
{
    struct launch_dyn_spawn_msg m;
    const char *why;
    struct dyn_req *q;
    struct launch_job *pj;

    if (launch_dyn_spawn_decode(p, n, &m, &why)) {
        fprintf(stderr, "%s: ignored a spawn request from member %d: %s\n", launch_who, src, why);
        launch_dyn_spawn_free(&m);
        return;
    }
    pj = launch_dyn_job_of(job, m.parent_nspace);
    if (!pj || m.parent_rank >= (uint32_t)pj->nranks ||
        job->nodes[pj->ranks[m.parent_rank].node].vpid != src || !(q = calloc(1, sizeof(*q)))) {
        fprintf(stderr, "%s: ignored a spawn request from member %d for a rank that is not of "
                "its node\n", launch_who, src);
        launch_dyn_spawn_free(&m);
        return;
    }
    q->apps = m.apps;
    q->napps = m.napps;
    snprintf(q->parent_nspace, sizeof(q->parent_nspace), "%s", m.parent_nspace);
    q->parent_rank = (int)m.parent_rank;
    q->from = src;
    q->from_id = m.id;
    dyn_tree_start(job, q);
}

static void on_started(struct launch_job *job, int src, const char *p, size_t n)
{
    struct launch_dyn_started_msg m;
    const char *why;
    struct dyn_job *dj;

    if (launch_dyn_started_decode(p, n, &m, &why) || !(dj = by_index(job, m.index)) ||
        src < 1 || src >= launch_tree_size(job->tree) || dj->acked[src]) {
        fprintf(stderr, "%s: ignored a spawned-job report from member %d\n", launch_who, src);
        return;
    }
    dj->acked[src] = 1;
    dj->acks++;
    if (m.code)
        note_failure(dj, (int)m.code, m.why);
    check_done(job, dj);
}

static void send_started(struct launch_job *job, uint32_t index, int code, const char *why)
{
    struct launch_dyn_started_msg m = {.index = index, .code = (uint32_t)code};
    struct launch_buf b = {0};

    snprintf(m.why, sizeof(m.why), "%s", why);
    launch_dyn_started_encode(&b, &m);
    if (!b.err)
        launch_tree_send(job->tree, MSG_DYN_STARTED, 0, b.p, b.len);
    lbuf_free(&b);
}

/* rdmpid: a spawned rank's output, to rdmpirun (written there as it comes, untagged). */
static void io_sink(void *ctx, int rank, int is_err, const char *data, size_t n)
{
    struct launch_job *cj = ctx;
    struct launch_dyn_io_msg m = {.index = cj->dyn_index, .rank = (uint32_t)rank,
                                  .is_err = (uint32_t)is_err, .data = data, .len = n};
    struct launch_buf b = {0};

    launch_dyn_io_encode(&b, &m);
    if (!b.err)
        launch_tree_send(cj->tree, MSG_DYN_IO, 0, b.p, b.len);
    lbuf_free(&b);
}

int launch_dyn_io_npollfds(const struct launch_job *job)
{
    int n = 0;

    for (struct dyn_job *j = job->dyn ? job->dyn->jobs : NULL; j; j = j->next)
        n += launch_io_open_streams(&j->job);
    return n;
}

int launch_dyn_io_fill_pollfds(struct launch_job *job, struct pollfd *pfd, int max)
{
    int n = 0;

    for (struct dyn_job *j = job->dyn ? job->dyn->jobs : NULL; j; j = j->next) {
        j->npolled = launch_io_fill_pollfds(&j->job, pfd + n, max - n);
        n += j->npolled;
    }
    return n;
}

void launch_dyn_io_handle(struct launch_job *job, const struct pollfd *pfd, int n)
{
    int k = 0;

    for (struct dyn_job *j = job->dyn ? job->dyn->jobs : NULL; j && k < n; j = j->next) {
        launch_io_handle(&j->job, pfd + k, j->npolled);
        k += j->npolled;
    }
}

static void on_io(struct launch_job *job, int src, const char *p, size_t n)
{
    struct launch_dyn_io_msg m;
    const char *why;
    struct dyn_job *dj;

    if (launch_dyn_io_decode(p, n, &m, &why) || !(dj = by_index(job, m.index)) ||
        m.rank >= (uint32_t)dj->job.nranks ||
        job->nodes[dj->job.ranks[m.rank].node].vpid != src) {
        fprintf(stderr, "%s: ignored spawned-rank output from member %d\n", launch_who, src);
        return;
    }
    launch_io_remote(&dj->job, (int)m.rank, (int)m.is_err, m.data, m.len);
}

/* rdmpid: registers a spawned job and starts the ranks placed on this node. */
static void on_dyn_job(struct launch_job *job, const char *p, size_t n)
{
    struct launch_dyn_job_msg m;
    const char *why;
    char text[512] = "";
    struct dyn_job *dj;
    int code;

    uint32_t index;
    int bad;

    /* rdmpirun waits for every daemon's word on the job: a refusal is told too. */
    if (launch_dyn_index_decode(p, n, &index, &why) || index == 0)
        return;
    if (!job->ranks || !job->server_up) {
        snprintf(text, sizeof(text), "%s has no running job to spawn from", launch_who);
        send_started(job, index, LAUNCH_EXIT_INTERNAL, text);
        return;
    }
    bad = launch_dyn_job_decode(p, n, job->nnodes, &m, &why);
    if (bad || by_index(job, m.index) || launch_dyn_job_of(job, m.nspace)) {
        fprintf(stderr, "%s: refused a spawned job from rdmpirun: %s\n", launch_who,
                bad ? why : "a job it already has");
        launch_dyn_job_free(&m);
        if (bad) { /* a second one with a known index is not answered twice */
            snprintf(text, sizeof(text), "%s got a malformed spawned job", launch_who);
            send_started(job, index, LAUNCH_EXIT_INTERNAL, text);
        }
        return;
    }
    if (!(dj = calloc(1, sizeof(*dj)))) {
        launch_dyn_job_free(&m);
        send_started(job, m.index, LAUNCH_EXIT_INTERNAL, "rdmpid out of memory");
        return;
    }
    struct launch_job *cj = &dj->job;
    dyn_job_inherit(job, cj);
    snprintf(cj->nspace, sizeof(cj->nspace), "%s", m.nspace);
    snprintf(cj->parent_nspace, sizeof(cj->parent_nspace), "%s", m.parent_nspace);
    cj->parent_rank = (int)m.parent_rank;
    cj->dyn_index = m.index;
    cj->ubase = (int)m.ubase;
    if (fill_ranks(cj, m.apps, m.napps, m.node, m.nranks) || launch_fence_create(cj) ||
        launch_dmodex_create(cj)) {
        launch_dyn_job_free(&m);
        dyn_job_free(dj);
        send_started(job, m.index, LAUNCH_EXIT_INTERNAL, "rdmpid out of memory");
        return;
    }
    cj->apps = m.apps;
    cj->napps = m.napps;
    m.apps = NULL;
    m.napps = 0;
    launch_dyn_job_free(&m);
    dyn_link(job, dj);
    /* Its ranks' output goes to rdmpirun, as the job's own (DYN_IO). */
    if (cj->nlocal && launch_io_create_forward(cj, io_sink, cj)) {
        snprintf(text, sizeof(text), "%s cannot make output pipes for spawned job %s",
                 launch_who, cj->nspace);
        send_started(job, cj->dyn_index, LAUNCH_EXIT_INTERNAL, text);
        return;
    }
    code = start_here(dj, text, sizeof(text));
    send_started(job, cj->dyn_index, code, text);
}

static void on_kill(struct launch_job *job, const char *p, size_t n)
{
    uint32_t index;
    const char *why;
    struct dyn_job *dj;

    if (n != 4 || launch_dyn_index_decode(p, n, &index, &why) || !(dj = by_index(job, index)))
        return;
    dj->cancelled = 1;
    kill_local(dj);
}

static void on_resp(struct launch_job *job, int src, const char *p, size_t n)
{
    struct launch_dyn_resp_msg m;
    const char *why;
    pmix_nspace_t ns;

    if (src != 0 || launch_dyn_resp_decode(p, n, &m, &why)) {
        fprintf(stderr, "%s: ignored a malformed spawn answer\n", launch_who);
        return;
    }
    for (struct dyn_asked **pp = &job->dyn->asked; *pp; pp = &(*pp)->next) {
        struct dyn_asked *a = *pp;
        if (a->id != m.id)
            continue;
        *pp = a->next;
        PMIX_LOAD_NSPACE(ns, m.nspace);
        a->cbfunc(m.status, ns, a->cbdata);
        free(a);
        return;
    }
    fprintf(stderr, "%s: ignored a spawn answer to no request of ours\n", launch_who);
}

void launch_dyn_msg(struct launch_job *job, int type, int src, const char *p, size_t n)
{
    if (!job->dyn || !job->tree)
        return;
    if (!job->is_daemon && type == MSG_SPAWN_REQ)
        on_spawn_req(job, src, p, n);
    else if (!job->is_daemon && type == MSG_DYN_STARTED)
        on_started(job, src, p, n);
    else if (!job->is_daemon && type == MSG_DYN_IO)
        on_io(job, src, p, n);
    else if (job->is_daemon && type == MSG_DYN_JOB && src == 0)
        on_dyn_job(job, p, n);
    else if (job->is_daemon && type == MSG_DYN_KILL && src == 0)
        on_kill(job, p, n);
    else if (job->is_daemon && type == MSG_SPAWN_RESP)
        on_resp(job, src, p, n);
}

void launch_dyn_route(struct launch_job *job, int type, int src, const char *p, size_t n)
{
    uint32_t index;
    const char *why;
    struct launch_job *j = job;

    if (launch_dyn_index_decode(p, n, &index, &why)) {
        fprintf(stderr, "%s: ignored a %s from member %d: %s\n", launch_who, launch_msg_name(type),
                src, why);
        return;
    }
    if (index) {
        struct dyn_job *dj = by_index(job, index);
        if (!dj) {
            fprintf(stderr, "%s: ignored a %s from member %d for a job it does not know\n",
                    launch_who, launch_msg_name(type), src);
            return;
        }
        j = &dj->job;
    }
    if (type == MSG_FENCE_UP || type == MSG_FENCE_DOWN)
        launch_fence_msg(j, type, src, p + 4, n - 4);
    else
        launch_dmodex_msg(j, type, src, p + 4, n - 4);
}

int launch_dyn_exit_msg(struct launch_job *job, int src, const char *p, size_t n,
                        struct launch_event *ev)
{
    struct launch_dyn_exit_msg m;
    const char *why;
    struct dyn_job *dj;
    struct launch_rank *r;

    if (launch_dyn_exit_decode(p, n, &m, &why) || !(dj = by_index(job, m.index)) ||
        m.rank >= (uint32_t)dj->job.nranks ||
        job->nodes[dj->job.ranks[m.rank].node].vpid != src) {
        fprintf(stderr, "%s: ignored a spawned-rank exit from member %d\n", launch_who, src);
        return -EPROTO;
    }
    r = &dj->job.ranks[m.rank];
    if (!r->alive)
        return -ENOENT;
    atomic_store(&r->connected, (int)m.connected);
    atomic_store(&r->finalized, (int)m.finalized);
    memset(ev, 0, sizeof(*ev));
    ev->kind = LAUNCH_EV_DYN_EXIT;
    ev->node = (int)m.index;
    ev->rank = (int)m.rank;
    ev->status = (int)m.status;
    return 0;
}

int launch_dyn_exited(struct launch_job *job, int index, int rank, int status, int reporting)
{
    struct dyn_job *dj = by_index(job, (uint32_t)index);

    if (!dj || rank < 0 || rank >= dj->job.nranks || !dj->job.ranks[rank].alive)
        return -1;
    return dyn_judge(job, dj, rank, status, reporting);
}

void launch_dyn_node_lost(struct launch_job *job, int node)
{
    int vpid = node >= 0 && node < job->nnodes ? job->nodes[node].vpid : -1;

    for (struct dyn_job *j = job->dyn ? job->dyn->jobs : NULL; j; j = j->next) {
        for (int i = 0; i < j->job.nranks; i++) {
            struct launch_rank *r = &j->job.ranks[i];
            if (!r->local && r->alive && r->node == node) {
                r->alive = 0;
                j->nalive--;
            }
        }
        if (j->req && vpid > 0 && !j->acked[vpid]) { /* it will never say */
            j->acked[vpid] = 1;
            j->acks++;
            note_failure(j, LAUNCH_EXIT_LOST, "a daemon was lost while starting the spawned job");
            check_done(job, j);
        }
    }
}
