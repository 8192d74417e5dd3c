/*
 * Direct modex: a rank asks for a key of a rank on another node that no
 * fence has brought here. libpmix calls direct_modex on this node's server;
 * the request goes along the tree to the member serving the target rank's
 * node (DMODEX_REQ), which asks its own server with
 * PMIx_server_dmodex_request (answered once the target has committed its
 * data) and sends the blob back (DMODEX_RESP). Concurrent requests for the
 * same rank from one node share one round trip.
 */
#include "server.h"
#include "tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct waiter {
    struct waiter *next;
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
};

/* A request of ours in flight, or queued by the upcall (id 0). */
struct request {
    struct request *next;
    uint32_t id;
    pmix_rank_t rank;
    struct waiter *waiters;
};

/* An answer of our server, queued by its callback for the main thread. */
struct answer {
    struct answer *next;
    struct launch_job *job;
    int requester;
    uint32_t id;
    pmix_status_t status;
    char *data;
    size_t len;
};

/* The data of a local rank that has ended, kept for later requests (launch_dmodex_keep). */
struct kept {
    struct kept *next;
    pmix_rank_t rank;
    char *data;
    size_t len;
};

struct launch_dmodex {
    pthread_mutex_t lock; /* guards the two queues */
    struct request *queued;
    struct answer *answers;
    struct request *pending;
    uint32_t next_id;
    struct kept *kept;    /* main thread only */
};

int launch_dmodex_create(struct launch_job *job)
{
    struct launch_dmodex *d = calloc(1, sizeof(*d));

    if (!d)
        return -ENOMEM;
    pthread_mutex_init(&d->lock, NULL);
    job->dmodex = d;
    return 0;
}

static void free_request(struct request *r)
{
    while (r->waiters) {
        struct waiter *w = r->waiters;
        r->waiters = w->next;
        free(w);
    }
    free(r);
}

void launch_dmodex_destroy(struct launch_job *job)
{
    struct launch_dmodex *d = job->dmodex;
    struct request *lists[2];

    if (!d)
        return;
    lists[0] = d->queued;
    lists[1] = d->pending;
    for (int i = 0; i < 2; i++) {
        while (lists[i]) {
            struct request *r = lists[i];
            lists[i] = r->next;
            free_request(r);
        }
    }
    while (d->answers) {
        struct answer *a = d->answers;
        d->answers = a->next;
        free(a->data);
        free(a);
    }
    while (d->kept) {
        struct kept *k = d->kept;
        d->kept = k->next;
        free(k->data);
        free(k);
    }
    free(d);
    job->dmodex = NULL;
}

pmix_status_t launch_dmodex_upcall(struct launch_job *job, const pmix_proc_t *proc,
                                   pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    struct launch_dmodex *d = job->dmodex;
    struct request *r;
    struct waiter *w;

    if (proc->rank >= (pmix_rank_t)job->nranks)
        return PMIX_ERR_NOT_FOUND;
    r = calloc(1, sizeof(*r));
    w = calloc(1, sizeof(*w));
    if (!r || !w) {
        free(r);
        free(w);
        return PMIX_ERR_NOMEM;
    }
    w->cbfunc = cbfunc;
    w->cbdata = cbdata;
    r->rank = proc->rank;
    r->waiters = w;
    pthread_mutex_lock(&d->lock);
    r->next = d->queued;
    d->queued = r;
    pthread_mutex_unlock(&d->lock);
    launch_wake(job->wake_fd[1], 0);
    return PMIX_SUCCESS;
}

static void release_copy(void *cbdata)
{
    free(cbdata);
}

static void answer_waiters(struct request *r, pmix_status_t status, const char *data, size_t len)
{
    for (struct waiter *w = r->waiters; w; w = w->next) {
        char *copy = status == PMIX_SUCCESS ? malloc(len ? len : 1) : NULL;
        if (status == PMIX_SUCCESS && !copy) {
            w->cbfunc(PMIX_ERR_NOMEM, NULL, 0, w->cbdata, NULL, NULL);
            continue;
        }
        if (copy && len)
            memcpy(copy, data, len);
        w->cbfunc(status, copy, copy ? len : 0, w->cbdata, copy ? release_copy : NULL, copy);
    }
}

/* Our server's answer; runs on libpmix's thread. */
static void served(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    struct answer *a = cbdata;
    struct launch_dmodex *d = a->job->dmodex;

    a->status = status;
    if (status == PMIX_SUCCESS && sz) {
        a->data = malloc(sz);
        if (a->data) {
            memcpy(a->data, data, sz);
            a->len = sz;
        } else {
            a->status = PMIX_ERR_NOMEM;
        }
    }
    pthread_mutex_lock(&d->lock);
    a->next = d->answers;
    d->answers = a;
    pthread_mutex_unlock(&d->lock);
    launch_wake(a->job->wake_fd[1], 0);
}

/* A synchronous request of launch_dmodex_keep; leaked if libpmix never answers. */
struct sync_req {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pmix_status_t status;
    char *data;
    size_t len;
};

static void sync_served(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    struct sync_req *g = cbdata;

    pthread_mutex_lock(&g->lock);
    g->status = status;
    if (status == PMIX_SUCCESS && (g->data = malloc(sz ? sz : 1)) != NULL) {
        memcpy(g->data, data, sz);
        g->len = sz;
    }
    g->done = 1;
    pthread_cond_signal(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

/*
 * A local rank of job ended: its data is read from our server now, before the rank is
 * deregistered, and kept. libpmix forgets a deregistered client's data, and then never
 * answers a direct-modex request for it; a parent on another node that reads a spawned
 * rank's address only once it has finalized (to find it gone) would wait forever.
 */
void launch_dmodex_keep(struct launch_job *job, int rank)
{
    struct launch_dmodex *d = job->dmodex;
    struct sync_req *g;
    struct kept *k;
    pmix_proc_t proc;
    struct timespec until;

    if (!d || !(g = calloc(1, sizeof(*g))))
        return;
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cond, NULL);
    PMIX_LOAD_PROCID(&proc, job->nspace, (pmix_rank_t)rank);
    if (PMIx_server_dmodex_request(&proc, sync_served, g) != PMIX_SUCCESS) {
        free(g);
        return;
    }
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1; /* a rank that never committed has nothing to keep */
    pthread_mutex_lock(&g->lock);
    while (!g->done && pthread_cond_timedwait(&g->cond, &g->lock, &until) != ETIMEDOUT)
        ;
    int done = g->done;
    pthread_mutex_unlock(&g->lock);
    if (!done)
        return; /* g stays: a late answer must not write into freed memory */
    if (g->status == PMIX_SUCCESS && g->data && (k = calloc(1, sizeof(*k)))) {
        k->rank = (pmix_rank_t)rank;
        k->data = g->data;
        k->len = g->len;
        k->next = d->kept;
        d->kept = k;
        g->data = NULL;
    }
    free(g->data);
    free(g);
}

/* Asks our own server for rank's data on behalf of requester. */
static void serve(struct launch_job *job, int requester, uint32_t id, pmix_rank_t rank)
{
    struct answer *a = calloc(1, sizeof(*a));
    pmix_proc_t proc;
    pmix_status_t rc;

    if (!a)
        return;
    a->job = job;
    a->requester = requester;
    a->id = id;
    /* A spawned rank that has ended: what was kept of it, or nothing (our server would not
     * answer). The initial job's ranks are not kept (that would cost every exit a request
     * to our server); for them our server still answers from the job's store. */
    if (job->dyn_index && !job->ranks[rank].alive && job->ranks[rank].pid > 0) {
        struct kept *k = job->dmodex->kept;
        while (k && k->rank != rank)
            k = k->next;
        served(k ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, k ? k->data : NULL, k ? k->len : 0, a);
        return;
    }
    PMIX_LOAD_PROCID(&proc, job->nspace, rank);
    rc = PMIx_server_dmodex_request(&proc, served, a);
    if (rc != PMIX_SUCCESS)
        served(rc, NULL, 0, a);
}

static struct request *take_pending(struct launch_dmodex *d, uint32_t id)
{
    for (struct request **pp = &d->pending; *pp; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            struct request *r = *pp;
            *pp = r->next;
            return r;
        }
    }
    return NULL;
}

static struct request *find_pending(struct launch_dmodex *d, uint32_t id)
{
    for (struct request *r = d->pending; r; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

/* The member serving the node of the rank r asks for. */
static int target_of(const struct launch_job *job, const struct request *r)
{
    return job->nodes[job->ranks[r->rank].node].vpid;
}

static void send_request(struct launch_job *job, struct request *r)
{
    struct launch_dmodex *d = job->dmodex;
    int target = target_of(job, r);
    struct launch_buf b = {0};

    for (struct request *p = d->pending; p; p = p->next) {
        if (p->rank == r->rank) { /* one round trip serves both */
            struct waiter *w = r->waiters;
            while (w->next)
                w = w->next;
            w->next = p->waiters;
            p->waiters = r->waiters;
            r->waiters = NULL;
            free_request(r);
            return;
        }
    }
    r->id = ++d->next_id;
    r->next = d->pending;
    d->pending = r;
    if (target == launch_tree_me(job->tree)) {
        serve(job, target, r->id, r->rank);
        return;
    }
    lbuf_u32(&b, job->dyn_index); /* launch_dyn_route */
    lbuf_u32(&b, r->id);
    lbuf_u32(&b, r->rank);
    if (b.err || launch_tree_send(job->tree, MSG_DMODEX_REQ, (uint32_t)target, b.p, b.len)) {
        take_pending(d, r->id);
        answer_waiters(r, PMIX_ERR_UNREACH, NULL, 0);
        free_request(r);
    }
    lbuf_free(&b);
}

static void finish(struct launch_job *job, uint32_t id, pmix_status_t status, const char *data,
                   size_t len)
{
    struct request *r = take_pending(job->dmodex, id);

    if (r) {
        answer_waiters(r, status, data, len);
        free_request(r);
    }
}

void launch_dmodex_progress(struct launch_job *job)
{
    struct launch_dmodex *d = job->dmodex;
    struct request *q;
    struct answer *a;

    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    q = d->queued;
    a = d->answers;
    d->queued = NULL;
    d->answers = NULL;
    pthread_mutex_unlock(&d->lock);
    while (q) {
        struct request *next = q->next;
        q->next = NULL;
        send_request(job, q);
        q = next;
    }
    while (a) {
        struct answer *next = a->next;
        if (a->requester == launch_tree_me(job->tree)) {
            finish(job, a->id, a->status, a->data, a->len);
        } else {
            struct launch_buf b = {0};
            lbuf_u32(&b, job->dyn_index);
            lbuf_u32(&b, a->id);
            lbuf_u32(&b, (uint32_t)a->status);
            lbuf_bytes(&b, a->data, a->len);
            if (!b.err)
                launch_tree_send(job->tree, MSG_DMODEX_RESP, (uint32_t)a->requester, b.p, b.len);
            lbuf_free(&b);
        }
        free(a->data);
        free(a);
        a = next;
    }
}

/* A request is served only for a rank of our own node; an answer is taken only for a
 * request of ours in flight and only from the member we asked. */
void launch_dmodex_msg(struct launch_job *job, int type, int src, const char *p, size_t n)
{
    struct launch_dmodex_msg m;
    const char *why = NULL;

    if (!job->dmodex || !job->ranks)
        return;
    if (launch_dmodex_decode(type, p, n, job->nranks, &m, &why)) {
        /* why is set */
    } else if ((why = NULL, type == MSG_DMODEX_REQ)) { /* the decoder sets why either way */
        if (job->ranks[m.rank].node == job->my_node)
            serve(job, src, m.id, m.rank);
        else
            why = "a request for a rank of another node";
    } else {
        struct request *r = find_pending(job->dmodex, m.id);
        if (r && target_of(job, r) == src)
            finish(job, m.id, m.status, m.data, m.len);
        else
            why = "an answer to no request of ours";
    }
    if (why)
        fprintf(stderr, "%s: ignored a direct-modex message from member %d: %s\n", launch_who,
                src, why);
}
