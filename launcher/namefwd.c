/*
 * The name service (MPI_Publish_name, PMIx_Publish) in a run across nodes:
 * one table for the whole run, rdmpirun's (names.c), as on one node.
 *
 * rdmpid: the publish, lookup and unpublish upcalls (libpmix's thread) encode
 * the request as a NAME_REQ, queue it and wake the main thread, which sends
 * it up the tree; the NAME_RESP that comes back completes the call through
 * its libpmix callback (from the main thread: libpmix thread-shifts it). A
 * request is checked with the very decoder rdmpirun uses before it is
 * queued, so that nothing is sent that rdmpirun would ignore (its caller
 * would wait forever). When the daemon loses rdmpirun (orphaned) or stops,
 * every request still waiting fails (PMIX_ERR_UNREACH), and later ones fail
 * at once: nothing waits for an answer that cannot come.
 *
 * rdmpirun: a NAME_REQ is applied to its table as its own server's upcalls
 * are, on behalf of the asking rank, which must be a rank of the sending
 * daemon's node, and answered at once (NAME_RESP). A lookup is answered with
 * what is there: PMIX_WAIT is not honoured, as on one node (the library
 * polls instead).
 */
#include "dynwire.h"
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(LAUNCH_NAME_KEY_MAX == PMIX_MAX_KEYLEN, "a key on the wire is a PMIx key");

/* Requests queued or sent and not answered yet: a client's nonblocking calls cannot grow
 * the daemon without limit (rdmpirun answers at once, so this is far above normal). */
#define NAMEFWD_MAX_WAITING 1024

/* One upcall waiting for rdmpirun. */
struct name_ask {
    struct name_ask *next;
    struct launch_dyn_name_req_msg req; /* as sent: the keys its answer may hold */
    struct launch_buf msg;              /* the encoded NAME_REQ, until sent */
    pmix_op_cbfunc_t opcb;              /* publish, unpublish */
    pmix_lookup_cbfunc_t lkcb;          /* lookup */
    void *cbdata;
};

struct launch_namefwd {
    pthread_mutex_t lock;     /* guards queue, next_id, waiting and closed (upcalls and main
                                 thread) */
    struct name_ask *queue, *tail;
    uint32_t next_id;
    int waiting;              /* queued or sent */
    int closed;               /* no rdmpirun to ask any more */
    struct name_ask *sent;    /* main thread only */
};

int launch_namefwd_create(struct launch_job *job)
{
    struct launch_namefwd *f = calloc(1, sizeof(*f));

    if (!f)
        return -ENOMEM;
    pthread_mutex_init(&f->lock, NULL);
    job->namefwd = f;
    return 0;
}

static void ask_free(struct name_ask *a)
{
    launch_dyn_names_free(a->req.names, a->req.n);
    lbuf_free(&a->msg);
    free(a);
}

/* Completes the upcall (queued or sent) with status (and, for a lookup, the names found) and
 * frees a. */
static void complete(struct launch_namefwd *f, struct name_ask *a, pmix_status_t status,
                     const struct launch_dyn_name *found, uint32_t n)
{
    pthread_mutex_lock(&f->lock);
    f->waiting--;
    pthread_mutex_unlock(&f->lock);
    if (a->req.op != LAUNCH_NAME_LOOKUP) {
        a->opcb(status, a->cbdata);
    } else if (status != PMIX_SUCCESS || n == 0) {
        a->lkcb(status == PMIX_SUCCESS ? PMIX_ERR_NOT_FOUND : status, NULL, 0, a->cbdata);
    } else {
        pmix_pdata_t *pd;
        PMIX_PDATA_CREATE(pd, n);
        if (!pd) {
            a->lkcb(PMIX_ERR_NOMEM, NULL, 0, a->cbdata);
        } else {
            for (uint32_t i = 0; i < n; i++) {
                pmix_proc_t owner;
                PMIX_LOAD_PROCID(&owner, found[i].nspace, found[i].rank);
                PMIX_PDATA_LOAD(&pd[i], &owner, found[i].key, found[i].value, PMIX_STRING);
            }
            a->lkcb(PMIX_SUCCESS, pd, n, a->cbdata); /* libpmix packs it before returning */
            PMIX_PDATA_FREE(pd, n);
        }
    }
    ask_free(a);
}

void launch_namefwd_fail_all(struct launch_job *job)
{
    struct launch_namefwd *f = job->namefwd;
    struct name_ask *q;

    if (!f)
        return;
    pthread_mutex_lock(&f->lock);
    f->closed = 1;
    q = f->queue;
    f->queue = f->tail = NULL;
    pthread_mutex_unlock(&f->lock);
    while (q) {
        struct name_ask *a = q;
        q = a->next;
        complete(f, a, PMIX_ERR_UNREACH, NULL, 0);
    }
    while (f->sent) {
        struct name_ask *a = f->sent;
        f->sent = a->next;
        complete(f, a, PMIX_ERR_UNREACH, NULL, 0);
    }
}

void launch_namefwd_destroy(struct launch_job *job)
{
    if (!job->namefwd)
        return;
    launch_namefwd_fail_all(job);
    pthread_mutex_destroy(&job->namefwd->lock);
    free(job->namefwd);
    job->namefwd = NULL;
}

/* Upcall: encodes m (its names taken over), checks it as rdmpirun will and queues it. */
static pmix_status_t enqueue(struct launch_job *job, struct launch_dyn_name_req_msg *m,
                             pmix_op_cbfunc_t opcb, pmix_lookup_cbfunc_t lkcb, void *cbdata)
{
    struct launch_namefwd *f = job->namefwd;
    struct name_ask *a = calloc(1, sizeof(*a));
    const char *why;
    pmix_status_t rc = PMIX_SUCCESS;

    if (!a) {
        launch_dyn_names_free(m->names, m->n);
        return PMIX_ERR_NOMEM;
    }
    a->opcb = opcb;
    a->lkcb = lkcb;
    a->cbdata = cbdata;
    pthread_mutex_lock(&f->lock);
    m->id = ++f->next_id;
    launch_dyn_name_req_encode(&a->msg, m);
    launch_dyn_names_free(m->names, m->n);
    if (f->closed)
        rc = PMIX_ERR_UNREACH;
    else if (f->waiting >= NAMEFWD_MAX_WAITING)
        rc = PMIX_ERR_OUT_OF_RESOURCE;
    else if (a->msg.err)
        rc = PMIX_ERR_NOMEM;
    else if (launch_dyn_name_req_decode(a->msg.p, a->msg.len, &a->req, &why))
        rc = PMIX_ERR_BAD_PARAM; /* too long, a key twice, ...: rdmpirun would refuse it */
    if (rc == PMIX_SUCCESS) {
        if (f->tail)
            f->tail->next = a;
        else
            f->queue = a;
        f->tail = a;
        f->waiting++;
    }
    pthread_mutex_unlock(&f->lock);
    if (rc != PMIX_SUCCESS) {
        ask_free(a);
        return rc;
    }
    launch_wake(job->wake_fd[1], 0);
    return PMIX_SUCCESS;
}

static int is_directive(const pmix_info_t *info)
{
    return !strncmp(info->key, "pmix", 4);
}

static void load_asker(struct launch_dyn_name_req_msg *m, int op, const pmix_proc_t *proc)
{
    memset(m, 0, sizeof(*m));
    m->op = (uint32_t)op;
    snprintf(m->nspace, sizeof(m->nspace), "%.63s", proc->nspace);
    m->rank = proc->rank;
}

pmix_status_t launch_namefwd_publish(struct launch_job *job, const pmix_proc_t *proc,
                                     const pmix_info_t info[], size_t ninfo,
                                     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    struct launch_dyn_name_req_msg m;
    size_t n = 0;

    load_asker(&m, LAUNCH_NAME_PUBLISH, proc);
    /* libpmix adds its own directives ("pmix." keys: user id, range, ...): not names */
    for (size_t i = 0; i < ninfo; i++) {
        if (is_directive(&info[i]))
            continue;
        if (info[i].value.type != PMIX_STRING || !info[i].value.data.string)
            return PMIX_ERR_BAD_PARAM;
        n++;
    }
    if (n == 0)
        return PMIX_OPERATION_SUCCEEDED;
    if (n > LAUNCH_NAME_MAX)
        return PMIX_ERR_BAD_PARAM;
    if (!(m.names = calloc(n, sizeof(*m.names))))
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < ninfo; i++) {
        if (is_directive(&info[i]))
            continue;
        struct launch_dyn_name *e = &m.names[m.n++];
        e->key = strndup(info[i].key, PMIX_MAX_KEYLEN);
        e->value = strdup(info[i].value.data.string);
        if (!e->key || !e->value) {
            launch_dyn_names_free(m.names, m.n);
            return PMIX_ERR_NOMEM;
        }
    }
    return enqueue(job, &m, cbfunc, NULL, cbdata);
}

/* Lookup and unpublish: the keys (a NULL-terminated list). */
static pmix_status_t ask_keys(struct launch_job *job, int op, const pmix_proc_t *proc,
                              char **keys, pmix_op_cbfunc_t opcb, pmix_lookup_cbfunc_t lkcb,
                              void *cbdata)
{
    struct launch_dyn_name_req_msg m;
    size_t n = 0;

    load_asker(&m, op, proc);
    while (keys && keys[n])
        n++;
    if (n == 0) /* as rdmpirun's own table: a lookup of nothing is wrong, unpublishing none done */
        return op == LAUNCH_NAME_LOOKUP ? PMIX_ERR_BAD_PARAM : PMIX_OPERATION_SUCCEEDED;
    if (n > LAUNCH_NAME_MAX)
        return PMIX_ERR_BAD_PARAM;
    if (!(m.names = calloc(n, sizeof(*m.names))))
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < n; i++, m.n++) {
        if (!(m.names[i].key = strndup(keys[i], PMIX_MAX_KEYLEN))) {
            launch_dyn_names_free(m.names, m.n);
            return PMIX_ERR_NOMEM;
        }
    }
    return enqueue(job, &m, opcb, lkcb, cbdata);
}

pmix_status_t launch_namefwd_lookup(struct launch_job *job, const pmix_proc_t *proc, char **keys,
                                    pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    return ask_keys(job, LAUNCH_NAME_LOOKUP, proc, keys, NULL, cbfunc, cbdata);
}

pmix_status_t launch_namefwd_unpublish(struct launch_job *job, const pmix_proc_t *proc,
                                       char **keys, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return ask_keys(job, LAUNCH_NAME_UNPUBLISH, proc, keys, cbfunc, NULL, cbdata);
}

/* rdmpid, main thread: sends what the upcalls queued. */
void launch_namefwd_progress(struct launch_job *job)
{
    struct launch_namefwd *f = job->namefwd;

    while (f) {
        pthread_mutex_lock(&f->lock);
        struct name_ask *a = f->queue;
        if (a && !(f->queue = a->next))
            f->tail = NULL;
        pthread_mutex_unlock(&f->lock);
        if (!a)
            break;
        a->next = NULL;
        if (launch_tree_send(job->tree, MSG_NAME_REQ, 0, a->msg.p, a->msg.len)) {
            complete(f, a, PMIX_ERR_UNREACH, NULL, 0);
            continue;
        }
        lbuf_free(&a->msg);
        a->next = f->sent;
        f->sent = a;
    }
}

/* An answer holds only names that were asked for, and only for a lookup. */
static int answer_fits(const struct name_ask *a, const struct launch_dyn_name_resp_msg *m)
{
    if (m->n && a->req.op != LAUNCH_NAME_LOOKUP)
        return 0;
    for (uint32_t i = 0; i < m->n; i++) {
        uint32_t k = 0;
        while (k < a->req.n && strcmp(a->req.names[k].key, m->names[i].key))
            k++;
        if (k == a->req.n)
            return 0;
    }
    return 1;
}

/* rdmpid: a NAME_RESP from rdmpirun. */
static void on_answer(struct launch_job *job, const char *p, size_t n)
{
    struct launch_namefwd *f = job->namefwd;
    struct launch_dyn_name_resp_msg m;
    const char *why;

    if (launch_dyn_name_resp_decode(p, n, &m, &why)) {
        fprintf(stderr, "%s: ignored a name-service answer from rdmpirun: %s\n", launch_who, why);
        launch_dyn_names_free(m.names, m.n);
        return;
    }
    for (struct name_ask **pp = &f->sent; *pp; pp = &(*pp)->next) {
        struct name_ask *a = *pp;
        if (a->req.id != m.id)
            continue;
        *pp = a->next;
        if (!answer_fits(a, &m)) {
            fprintf(stderr, "%s: a name-service answer from rdmpirun holds names not asked "
                    "for\n", launch_who);
            complete(f, a, PMIX_ERROR, NULL, 0);
        } else {
            complete(f, a, m.status, m.names, m.n);
        }
        launch_dyn_names_free(m.names, m.n);
        return;
    }
    fprintf(stderr, "%s: ignored a name-service answer to no request of ours\n", launch_who);
    launch_dyn_names_free(m.names, m.n);
}

/* rdmpirun: what its table's lookup found, copied into the answer. */
static void found_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    struct launch_dyn_name_resp_msg *r = cbdata;

    r->status = status;
    if (status != PMIX_SUCCESS)
        return;
    if (ndata == 0 || ndata > LAUNCH_NAME_MAX || !(r->names = calloc(ndata, sizeof(*r->names)))) {
        r->status = ndata ? PMIX_ERR_NOMEM : PMIX_ERR_NOT_FOUND;
        return;
    }
    for (size_t i = 0; i < ndata; i++) {
        struct launch_dyn_name *e = &r->names[r->n++];
        if (data[i].value.type != PMIX_STRING || !data[i].value.data.string ||
            !(e->key = strndup(data[i].key, PMIX_MAX_KEYLEN)) ||
            !(e->value = strdup(data[i].value.data.string))) {
            r->status = PMIX_ERR_NOMEM;
            return;
        }
        snprintf(e->nspace, sizeof(e->nspace), "%.63s", data[i].proc.nspace);
        e->rank = data[i].proc.rank;
    }
}

static void answer(struct launch_job *job, int to, struct launch_dyn_name_resp_msg *r)
{
    struct launch_buf b = {0};

    if (r->status == PMIX_OPERATION_SUCCEEDED)
        r->status = PMIX_SUCCESS;
    if (r->status != PMIX_SUCCESS) { /* names only with a success */
        launch_dyn_names_free(r->names, r->n);
        r->names = NULL;
        r->n = 0;
    }
    launch_dyn_name_resp_encode(&b, r);
    if (!b.err)
        launch_tree_send(job->tree, MSG_NAME_RESP, (uint32_t)to, b.p, b.len);
    lbuf_free(&b);
    launch_dyn_names_free(r->names, r->n);
}

/* rdmpirun: applies a daemon's request to its table, for the rank that asked. */
static void on_request(struct launch_job *job, int src, const char *p, size_t n)
{
    struct launch_dyn_name_req_msg m;
    struct launch_dyn_name_resp_msg r = {.status = PMIX_ERR_BAD_PARAM};
    struct launch_rd rd = {p, n, 0};
    struct launch_job *owner;
    const char *why;
    pmix_proc_t proc;

    r.id = lrd_u32(&rd); /* answered even when the rest is malformed: nobody waits in vain */
    if (launch_dyn_name_req_decode(p, n, &m, &why)) {
        fprintf(stderr, "%s: refused a name-service request from member %d: %s\n", launch_who,
                src, why);
        launch_dyn_names_free(m.names, m.n);
        if (!rd.err)
            answer(job, src, &r);
        return;
    }
    owner = launch_dyn_job_of(job, m.nspace);
    if (!owner || m.rank >= (uint32_t)owner->nranks ||
        job->nodes[owner->ranks[m.rank].node].vpid != src) {
        fprintf(stderr, "%s: refused a name-service request from member %d for a rank that is "
                "not of its node\n", launch_who, src);
        r.status = PMIX_ERR_NO_PERMISSIONS;
        launch_dyn_names_free(m.names, m.n);
        answer(job, src, &r);
        return;
    }
    PMIX_LOAD_PROCID(&proc, m.nspace, m.rank);
    char **keys = calloc((size_t)m.n + 1, sizeof(*keys));
    pmix_info_t *info = NULL;
    r.status = PMIX_ERR_NOMEM;
    if (keys && m.op == LAUNCH_NAME_PUBLISH) {
        PMIX_INFO_CREATE(info, m.n);
        for (uint32_t i = 0; info && i < m.n; i++)
            PMIX_INFO_LOAD(&info[i], m.names[i].key, m.names[i].value, PMIX_STRING);
        if (info) {
            r.status = launch_names_publish(job, &proc, info, m.n);
            PMIX_INFO_FREE(info, m.n);
        }
    } else if (keys) {
        for (uint32_t i = 0; i < m.n; i++)
            keys[i] = m.names[i].key;
        if (m.op == LAUNCH_NAME_LOOKUP) {
            /* PMIX_SUCCESS: found_cb was called and set the status */
            pmix_status_t rc = launch_names_lookup(job, keys, found_cb, &r);
            if (rc != PMIX_SUCCESS)
                r.status = rc;
        } else
            r.status = launch_names_unpublish(job, &proc, keys);
    }
    free(keys);
    launch_dyn_names_free(m.names, m.n);
    answer(job, src, &r);
}

void launch_namefwd_msg(struct launch_job *job, int type, int src, const char *p, size_t n)
{
    if (!job->tree)
        return;
    if (!job->is_daemon && type == MSG_NAME_REQ && job->names)
        on_request(job, src, p, n);
    else if (job->is_daemon && type == MSG_NAME_RESP && src == 0 && job->namefwd)
        on_answer(job, p, n);
}
