/*
 * PMIx fences across nodes, as an allgather over the daemon tree.
 *
 * libpmix calls fence_nb once per server when all of its local ranks have
 * entered a fence, with an opaque blob of their data; the host must hand
 * back the concatenation of every participating server's blob. Each member
 * of the tree collects its own blob (when its node takes part) and one
 * message from each child subtree that holds a participating node, then
 * sends the collection up to its parent (FENCE_UP). rdmpirun, at the root,
 * orders the blobs by node, concatenates them and broadcasts the result
 * (FENCE_DOWN); every member whose server is waiting on that fence hands
 * it to libpmix. Cost: 2 log2(nodes) hops and every blob crosses each
 * link at most twice.
 *
 * Fences are matched by their signature (the sorted participant ranks, or
 * "*" for the whole job) and a sequence number per signature: the k-th
 * fence with one signature is the same collective on every node. A spawned
 * job has fences of its own (its own struct launch_fence); their messages
 * carry its index first (launch_dyn_route).
 */
#include "server.h"
#include "tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    uint32_t node;
    size_t len;
    char *blob;
};

struct coll {
    struct coll *next;
    char *sig;
    uint32_t seq;
    int expected, got;
    uint32_t from;      /* children that contributed: bit k for child me + 2^k */
    struct entry *e;
    int ne, cap;
    pmix_modex_cbfunc_t cbfunc; /* our own server's, once it contributed */
    void *cbdata;
};

/* A contribution queued by the upcall for the main thread. */
struct queued {
    struct queued *next;
    char *sig;
    char *data;
    size_t len;
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
};

struct counter {
    struct counter *next;
    char *sig;
    uint32_t n;
};

struct launch_fence {
    pthread_mutex_t lock; /* guards the queue only */
    struct queued *head, *tail;
    struct coll *colls;
    struct counter *counters;
};

int launch_fence_create(struct launch_job *job)
{
    struct launch_fence *f = calloc(1, sizeof(*f));

    if (!f)
        return -ENOMEM;
    pthread_mutex_init(&f->lock, NULL);
    job->fence = f;
    return 0;
}

static void coll_free(struct coll *c)
{
    for (int i = 0; i < c->ne; i++)
        free(c->e[i].blob);
    free(c->e);
    free(c->sig);
    free(c);
}

void launch_fence_destroy(struct launch_job *job)
{
    struct launch_fence *f = job->fence;

    if (!f)
        return;
    while (f->head) {
        struct queued *q = f->head;
        f->head = q->next;
        free(q->sig);
        free(q->data);
        free(q);
    }
    while (f->colls) {
        struct coll *c = f->colls;
        f->colls = c->next;
        coll_free(c);
    }
    while (f->counters) {
        struct counter *k = f->counters;
        f->counters = k->next;
        free(k->sig);
        free(k);
    }
    free(f);
    job->fence = NULL;
}

static pmix_status_t queue(struct launch_job *job, char *sig, const char *data, size_t ndata,
                           pmix_modex_cbfunc_t cbfunc, void *cbdata);

static int cmp_rank(const void *a, const void *b)
{
    pmix_rank_t x = *(const pmix_rank_t *)a, y = *(const pmix_rank_t *)b;
    return x < y ? -1 : x > y;
}

/* "*" for the whole job, else the sorted distinct ranks "0,3,5". */
static char *signature(const struct launch_job *job, const pmix_proc_t procs[], size_t nprocs)
{
    pmix_rank_t *r;
    size_t n = 0, len = 0, cap;
    char *s;

    for (size_t i = 0; i < nprocs; i++)
        if (procs[i].rank == PMIX_RANK_WILDCARD)
            return strdup("*");
    if (nprocs == 0 || !(r = malloc(nprocs * sizeof(*r))))
        return nprocs == 0 ? strdup("*") : NULL;
    for (size_t i = 0; i < nprocs; i++)
        if (procs[i].rank < (pmix_rank_t)job->nranks)
            r[n++] = procs[i].rank;
    qsort(r, n, sizeof(*r), cmp_rank);
    cap = n * 11 + 2;
    s = malloc(cap);
    if (s) {
        s[0] = '\0';
        for (size_t i = 0; i < n; i++)
            if (i == 0 || r[i] != r[i - 1])
                len += (size_t)snprintf(s + len, cap - len, len ? ",%u" : "%u", r[i]);
    }
    free(r);
    return s;
}

/* Marks in part[] the nodes that take part in the fence with signature sig. */
static void participants(const struct launch_job *job, const char *sig, char *part)
{
    int nodes = !strncmp(sig, "n:", 2); /* a connect's nodes (launch_fence_connect_upcall) */

    memset(part, 0, (size_t)job->nnodes);
    if (!strcmp(sig, "*")) { /* the nodes holding ranks: a spawned job may leave some out */
        for (int r = 0; r < job->nranks; r++)
            part[job->ranks[r].node] = 1;
        return;
    }
    for (const char *p = sig + 2 * nodes; *p;) {
        unsigned long r = strtoul(p, NULL, 10);
        if (nodes && r < (unsigned long)job->nnodes)
            part[r] = 1;
        else if (!nodes && r < (unsigned long)job->nranks)
            part[job->ranks[r].node] = 1;
        p += strcspn(p, ",");
        if (*p)
            p++;
    }
}

/* Contributions this member waits for: its own, and one per child subtree
 * that holds a participating node. */
static int expected(const struct launch_job *job, const char *sig)
{
    int me = launch_tree_me(job->tree), size = launch_tree_size(job->tree), n = 0;
    char *part = malloc((size_t)job->nnodes);

    if (!part)
        return -1;
    participants(job, sig, part);
    if (job->my_node >= 0 && part[job->my_node])
        n++;
    for (int bit = 1; me + bit < size && (me == 0 || bit < (me & -me)); bit <<= 1) {
        for (int i = 0; i < job->nnodes; i++) {
            if (part[i] && launch_tree_in_subtree(job->tree, me + bit, job->nodes[i].vpid)) {
                n++;
                break;
            }
        }
    }
    free(part);
    return n;
}

static struct coll *find_coll(struct launch_job *job, const char *sig, uint32_t seq)
{
    struct launch_fence *f = job->fence;
    struct coll *c;

    for (c = f->colls; c; c = c->next)
        if (c->seq == seq && !strcmp(c->sig, sig))
            return c;
    c = calloc(1, sizeof(*c));
    if (!c || !(c->sig = strdup(sig))) {
        free(c);
        return NULL;
    }
    c->seq = seq;
    c->expected = expected(job, sig);
    c->next = f->colls;
    f->colls = c;
    return c;
}

static void unlink_coll(struct launch_job *job, struct coll *c)
{
    for (struct coll **pp = &job->fence->colls; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            return;
        }
    }
}

static int add_entry(struct coll *c, uint32_t node, const char *blob, size_t len)
{
    if (c->ne == c->cap) {
        int cap = c->cap ? c->cap * 2 : 4;
        struct entry *e = realloc(c->e, (size_t)cap * sizeof(*e));
        if (!e)
            return -ENOMEM;
        c->e = e;
        c->cap = cap;
    }
    c->e[c->ne].blob = malloc(len ? len : 1);
    if (!c->e[c->ne].blob)
        return -ENOMEM;
    if (len)
        memcpy(c->e[c->ne].blob, blob, len);
    c->e[c->ne].node = node;
    c->e[c->ne].len = len;
    c->ne++;
    return 0;
}

static void release_copy(void *cbdata)
{
    free(cbdata);
}

/* Hands the result to our server, which owns the copy until it releases it. */
static void deliver(struct coll *c, pmix_status_t status, const char *data, size_t len)
{
    char *copy = malloc(len ? len : 1);

    if (!copy) {
        c->cbfunc(PMIX_ERR_NOMEM, NULL, 0, c->cbdata, NULL, NULL);
        return;
    }
    if (len)
        memcpy(copy, data, len);
    c->cbfunc(status, copy, len, c->cbdata, release_copy, copy);
}

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Root: every contribution is in; concatenate in node order, send down. */
static void complete(struct launch_job *job, struct coll *c)
{
    struct launch_buf all = {0}, msg = {0};

    qsort(c->e, (size_t)c->ne, sizeof(*c->e), cmp_entry);
    for (int i = 0; i < c->ne; i++)
        lbuf_raw(&all, c->e[i].blob, c->e[i].len);
    lbuf_u32(&msg, job->dyn_index); /* launch_dyn_route */
    lbuf_str(&msg, c->sig);
    lbuf_u32(&msg, c->seq);
    lbuf_bytes(&msg, all.p, all.len);
    if (!msg.err && !all.err)
        launch_tree_send(job->tree, MSG_FENCE_DOWN, LAUNCH_TREE_BCAST, msg.p, msg.len);
    if (c->cbfunc)
        deliver(c, all.err ? PMIX_ERR_NOMEM : PMIX_SUCCESS, all.p, all.len);
    lbuf_free(&all);
    lbuf_free(&msg);
    unlink_coll(job, c);
    coll_free(c);
}

static void check(struct launch_job *job, struct coll *c)
{
    struct launch_buf msg = {0};

    if (c->got < c->expected)
        return;
    if (launch_tree_me(job->tree) == 0) {
        complete(job, c);
        return;
    }
    lbuf_u32(&msg, job->dyn_index);
    lbuf_str(&msg, c->sig);
    lbuf_u32(&msg, c->seq);
    lbuf_u32(&msg, (uint32_t)c->ne);
    for (int i = 0; i < c->ne; i++) {
        lbuf_u32(&msg, c->e[i].node);
        lbuf_bytes(&msg, c->e[i].blob, c->e[i].len);
    }
    if (!msg.err)
        launch_tree_send_parent(job->tree, MSG_FENCE_UP, msg.p, msg.len);
    lbuf_free(&msg);
    for (int i = 0; i < c->ne; i++)
        free(c->e[i].blob);
    c->ne = 0;
    if (!c->cbfunc) { /* only passing through: nothing comes back for us */
        unlink_coll(job, c);
        coll_free(c);
    }
}

pmix_status_t launch_fence_upcall(struct launch_job *job, const pmix_proc_t procs[],
                                  size_t nprocs, const char *data, size_t ndata,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char *sig = signature(job, procs, nprocs);

    return sig ? queue(job, sig, data, ndata, cbfunc, cbdata) : PMIX_ERR_NOMEM;
}

/* Queues a contribution (taking sig) for the main thread. */
static pmix_status_t queue(struct launch_job *job, char *sig, const char *data, size_t ndata,
                           pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    struct launch_fence *f = job->fence;
    struct queued *q = calloc(1, sizeof(*q));

    if (!q || !(q->data = malloc(ndata ? ndata : 1))) {
        free(sig);
        free(q);
        return PMIX_ERR_NOMEM;
    }
    q->sig = sig;
    if (ndata)
        memcpy(q->data, data, ndata);
    q->len = ndata;
    q->cbfunc = cbfunc;
    q->cbdata = cbdata;
    pthread_mutex_lock(&f->lock);
    if (f->tail)
        f->tail->next = q;
    else
        f->head = q;
    f->tail = q;
    pthread_mutex_unlock(&f->lock);
    launch_wake(job->wake_fd[1], 0);
    return PMIX_SUCCESS;
}

/* A connect's completion, given as a fence's: the blob is of no use. */
struct connect_cb {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
};

static void connect_done(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
                         pmix_release_cbfunc_t rel, void *relcbdata)
{
    struct connect_cb *c = cbdata;

    (void)data, (void)ndata;
    c->cbfunc(status, c->cbdata);
    if (rel)
        rel(relcbdata);
    free(c);
}

pmix_status_t launch_fence_connect_upcall(struct launch_job *job, const char *nodes,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct connect_cb *c = malloc(sizeof(*c));
    char *sig = malloc(strlen(nodes) + 3);
    pmix_status_t rc;

    if (!c || !sig) {
        free(c);
        free(sig);
        return PMIX_ERR_NOMEM;
    }
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    sprintf(sig, "n:%s", nodes);
    rc = queue(job, sig, NULL, 0, connect_done, c);
    if (rc != PMIX_SUCCESS)
        free(c);
    return rc;
}

static uint32_t next_seq(struct launch_fence *f, const char *sig)
{
    struct counter *k;

    for (k = f->counters; k; k = k->next)
        if (!strcmp(k->sig, sig))
            return ++k->n;
    k = calloc(1, sizeof(*k));
    if (!k || !(k->sig = strdup(sig))) {
        free(k);
        return 0;
    }
    k->n = 1;
    k->next = f->counters;
    f->counters = k;
    return 1;
}

void launch_fence_progress(struct launch_job *job)
{
    struct launch_fence *f = job->fence;
    struct queued *q;

    if (!f)
        return;
    pthread_mutex_lock(&f->lock);
    q = f->head;
    f->head = f->tail = NULL;
    pthread_mutex_unlock(&f->lock);
    while (q) {
        struct queued *next = q->next;
        struct coll *c = find_coll(job, q->sig, next_seq(f, q->sig));
        if (!c || add_entry(c, (uint32_t)job->my_node, q->data, q->len)) {
            q->cbfunc(PMIX_ERR_NOMEM, NULL, 0, q->cbdata, NULL, NULL);
        } else {
            c->cbfunc = q->cbfunc;
            c->cbdata = q->cbdata;
            c->got++;
            check(job, c);
        }
        free(q->sig);
        free(q->data);
        free(q);
        q = next;
    }
}

/* A child's subtree contributed (FENCE_UP from src): its nodes' blobs, each from a node
 * of that subtree that takes part in the fence, once. */
static void on_up(struct launch_job *job, int src, const struct launch_fence_msg *m)
{
    int me = launch_tree_me(job->tree), size = launch_tree_size(job->tree);
    struct coll *c = find_coll(job, m->sig, m->seq);
    uint32_t bit;
    char *part = malloc((size_t)job->nnodes);
    const char *why = NULL;

    if (!c || !part) {
        free(part);
        return;
    }
    participants(job, m->sig, part);
    bit = (uint32_t)1 << (31 - __builtin_clz((unsigned)(src - me))); /* src = me + 2^k */
    if (c->from & bit)
        why = "a second contribution from one child";
    for (uint32_t i = 0; !why && i < m->n; i++) {
        int node = (int)m->e[i].node;
        if (!launch_tree_subtree_has(size, src, job->nodes[node].vpid) || !part[node])
            why = "a contribution for a node that is not its own or not in the fence";
        for (int k = 0; !why && k < c->ne; k++)
            if (c->e[k].node == m->e[i].node)
                why = "a node that already contributed";
    }
    free(part);
    if (why) {
        fprintf(stderr, "%s: ignored a fence message from member %d: %s\n", launch_who, src, why);
        return;
    }
    c->from |= bit;
    for (uint32_t i = 0; i < m->n; i++)
        add_entry(c, m->e[i].node, m->e[i].blob, m->e[i].len);
    c->got++;
    check(job, c);
}

static void on_down(struct launch_job *job, const struct launch_fence_msg *m)
{
    for (struct coll *c = job->fence->colls; c; c = c->next) {
        if (c->seq == m->seq && !strcmp(c->sig, m->sig)) {
            if (c->cbfunc)
                deliver(c, PMIX_SUCCESS, m->all, m->all_len);
            unlink_coll(job, c);
            coll_free(c);
            return;
        }
    }
}

/* The tree's direction rules let FENCE_UP come only from a child (one hop, src is that
 * child) and FENCE_DOWN only from rdmpirun through the parent. */
void launch_fence_msg(struct launch_job *job, int type, int src, const char *p, size_t n)
{
    struct launch_fence_msg m;
    const char *why;

    if (!job->fence || !job->tree)
        return;
    if (launch_fence_decode(type, p, n, job->nranks, job->nnodes, &m, &why))
        fprintf(stderr, "%s: ignored a fence message from member %d: %s\n", launch_who, src, why);
    else if (type == MSG_FENCE_UP && src > launch_tree_me(job->tree))
        on_up(job, src, &m);
    else if (type == MSG_FENCE_DOWN)
        on_down(job, &m);
    launch_fence_msg_free(&m);
}
