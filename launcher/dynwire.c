/*
 * The daemon tree's messages of spawned jobs (dynwire.h): encoders and
 * validating decoders, without any job state.
 */
#include "dynwire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void launch_dyn_apps_free(struct launch_app *apps, int napps)
{
    for (int i = 0; apps && i < napps; i++) {
        for (char **v = apps[i].argv; v && *v; v++)
            free(*v);
        for (char **v = apps[i].env; v && *v; v++)
            free(*v);
        free(apps[i].argv);
        free(apps[i].env);
        free(apps[i].path);
        free(apps[i].host);
    }
    free(apps);
}

static void put_strv(struct launch_buf *b, char *const *v)
{
    uint32_t n = 0;

    while (v && v[n])
        n++;
    lbuf_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        lbuf_str(b, v[i]);
}

/* A NULL-terminated list of at most LAUNCH_DYN_MAX_ARGS strings (at least min); env: each
 * "NAME=value" with a non-empty NAME. */
static char **get_strv(struct launch_rd *r, uint32_t min, int env)
{
    uint32_t n = lrd_u32(r);
    char **v;

    if (r->err || n < min || n > LAUNCH_DYN_MAX_ARGS || n > r->left / 4)
        return NULL;
    if (!(v = calloc((size_t)n + 1, sizeof(*v))))
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        v[i] = lrd_str_max(r, LAUNCH_STR_MAX);
        if (!v[i] || (env && (v[i][0] == '=' || !strchr(v[i], '=')))) {
            for (uint32_t k = 0; k <= i; k++)
                free(v[k]);
            free(v);
            r->err = 1;
            return NULL;
        }
    }
    return v;
}

/* A string of at most max bytes copied into out (size max + 1); 0 or -EPROTO. */
static int get_fixed(struct launch_rd *r, char *out, size_t max, int nonempty)
{
    char *s = lrd_str_max(r, max);

    if (!s)
        return -EPROTO;
    if (nonempty && !*s) {
        free(s);
        return -EPROTO;
    }
    memcpy(out, s, strlen(s) + 1);
    free(s);
    return 0;
}

/* The NAME=value entries of env only: the others set nothing (spawn.c ignores them). */
static void put_env(struct launch_buf *b, char *const *v)
{
    uint32_t n = 0;

    for (char *const *e = v; e && *e; e++)
        n += (*e)[0] != '=' && strchr(*e, '=') != NULL;
    lbuf_u32(b, n);
    for (char *const *e = v; e && *e; e++)
        if ((*e)[0] != '=' && strchr(*e, '='))
            lbuf_str(b, *e);
}

static void put_app(struct launch_buf *b, const struct launch_app *a)
{
    lbuf_str(b, a->prog);
    put_strv(b, a->argv);
    put_env(b, a->env);
    lbuf_str(b, a->cwd);
    lbuf_str(b, a->path ? a->path : "");
    lbuf_str(b, a->host ? a->host : "");
    lbuf_u32(b, (uint32_t)a->nprocs);
}

/* An optional string: "" is none (NULL). */
static int get_opt(struct launch_rd *r, size_t max, char **out)
{
    char *s = lrd_str_max(r, max);

    if (!s)
        return -EPROTO;
    if (!*s) {
        free(s);
        s = NULL;
    }
    *out = s;
    return 0;
}

static int get_app(struct launch_rd *r, struct launch_app *a)
{
    uint32_t np;

    if (get_fixed(r, a->prog, sizeof(a->prog) - 1, 1))
        return -EPROTO;
    if (!(a->argv = get_strv(r, 1, 0)) || !(a->env = get_strv(r, 0, 1)))
        return -EPROTO;
    if (get_fixed(r, a->cwd, sizeof(a->cwd) - 1, 0) || (a->cwd[0] && a->cwd[0] != '/'))
        return -EPROTO;
    if (get_opt(r, PATH_MAX - 1, &a->path) || get_opt(r, LAUNCH_DYN_MAX_HOSTS, &a->host))
        return -EPROTO;
    np = lrd_u32(r);
    if (r->err || np < 1 || np > LAUNCH_DYN_MAX_PROCS)
        return -EPROTO;
    a->nprocs = (int)np;
    return 0;
}

static void put_apps(struct launch_buf *b, const struct launch_app *apps, int napps)
{
    lbuf_u32(b, (uint32_t)napps);
    for (int i = 0; i < napps; i++)
        put_app(b, &apps[i]);
}

/* 1..LAUNCH_DYN_MAX_PROCS applications of LAUNCH_DYN_MAX_PROCS ranks at most in all. */
static int get_apps(struct launch_rd *r, struct launch_app **apps, int *napps, int *total)
{
    uint32_t n = lrd_u32(r);
    long sum = 0;

    *apps = NULL;
    *napps = 0;
    if (r->err || n < 1 || n > LAUNCH_DYN_MAX_PROCS || n > r->left / 16)
        return -EPROTO;
    if (!(*apps = calloc(n, sizeof(**apps))))
        return -ENOMEM;
    *napps = (int)n;
    for (uint32_t i = 0; i < n; i++) {
        if (get_app(r, &(*apps)[i]))
            return -EPROTO;
        sum += (*apps)[i].nprocs;
        if (sum > LAUNCH_DYN_MAX_PROCS)
            return -EPROTO;
    }
    *total = (int)sum;
    return 0;
}

void launch_dyn_spawn_encode(struct launch_buf *b, const struct launch_dyn_spawn_msg *m)
{
    lbuf_u32(b, m->id);
    lbuf_str(b, m->parent_nspace);
    lbuf_u32(b, m->parent_rank);
    put_apps(b, m->apps, m->napps);
}

int launch_dyn_spawn_decode(const char *p, size_t n, struct launch_dyn_spawn_msg *m,
                            const char **why)
{
    struct launch_rd r = {p, n, 0};
    int total;

    memset(m, 0, sizeof(*m));
    *why = "malformed spawn request";
    m->id = lrd_u32(&r);
    if (r.err || get_fixed(&r, m->parent_nspace, LAUNCH_DYN_NS_MAX, 1))
        return -EPROTO;
    m->parent_rank = lrd_u32(&r);
    if (r.err || m->parent_rank >= (1u << 30))
        return -EPROTO;
    if (get_apps(&r, &m->apps, &m->napps, &total))
        return -EPROTO;
    return r.left || r.err ? -EPROTO : 0;
}

void launch_dyn_spawn_free(struct launch_dyn_spawn_msg *m)
{
    launch_dyn_apps_free(m->apps, m->napps);
    m->apps = NULL;
    m->napps = 0;
}

void launch_dyn_resp_encode(struct launch_buf *b, const struct launch_dyn_resp_msg *m)
{
    lbuf_u32(b, m->id);
    lbuf_u32(b, (uint32_t)m->status);
    lbuf_str(b, m->nspace);
    lbuf_str(b, m->why);
}

int launch_dyn_resp_decode(const char *p, size_t n, struct launch_dyn_resp_msg *m,
                           const char **why)
{
    struct launch_rd r = {p, n, 0};

    memset(m, 0, sizeof(*m));
    *why = "malformed spawn answer";
    m->id = lrd_u32(&r);
    m->status = (int32_t)lrd_u32(&r);
    if (r.err || m->status > 0 || get_fixed(&r, m->nspace, LAUNCH_DYN_NS_MAX, 0) ||
        get_fixed(&r, m->why, LAUNCH_DYN_WHY_MAX, 0))
        return -EPROTO;
    if (m->status == 0 && !m->nspace[0]) {
        *why = "a spawn answer without a namespace";
        return -EPROTO;
    }
    return r.left ? -EPROTO : 0;
}

void launch_dyn_job_encode(struct launch_buf *b, const struct launch_dyn_job_msg *m)
{
    lbuf_u32(b, m->index);
    lbuf_str(b, m->nspace);
    lbuf_u32(b, m->ubase);
    lbuf_str(b, m->parent_nspace);
    lbuf_u32(b, m->parent_rank);
    put_apps(b, m->apps, m->napps);
    lbuf_u32(b, (uint32_t)m->nranks);
    for (int i = 0; i < m->nranks; i++)
        lbuf_u32(b, m->node[i]);
}

/* A namespace name as the launcher makes them: no '/', no blank. */
static int nspace_ok(const char *s)
{
    return *s && !strpbrk(s, "/ \t\n");
}

int launch_dyn_job_decode(const char *p, size_t n, int nnodes, struct launch_dyn_job_msg *m,
                          const char **why)
{
    struct launch_rd r = {p, n, 0};
    int total = 0;

    memset(m, 0, sizeof(*m));
    *why = "malformed spawned job";
    m->index = lrd_u32(&r);
    if (r.err || m->index == 0 || m->index > (1u << 20) ||
        get_fixed(&r, m->nspace, LAUNCH_DYN_NS_MAX, 1) || !nspace_ok(m->nspace))
        return -EPROTO;
    m->ubase = lrd_u32(&r);
    if (r.err || m->ubase >= (1u << 29) ||
        get_fixed(&r, m->parent_nspace, LAUNCH_DYN_NS_MAX, 1) || !nspace_ok(m->parent_nspace))
        return -EPROTO;
    m->parent_rank = lrd_u32(&r);
    if (r.err || m->parent_rank >= (1u << 30) || get_apps(&r, &m->apps, &m->napps, &total))
        return -EPROTO;
    uint32_t nr = lrd_u32(&r);
    if (r.err || nr != (uint32_t)total || nr > r.left / 4) {
        *why = "a spawned job whose rank count is not its applications'";
        return -EPROTO;
    }
    if (!(m->node = calloc(nr, sizeof(*m->node))))
        return -ENOMEM;
    m->nranks = (int)nr;
    for (uint32_t i = 0; i < nr; i++) {
        m->node[i] = lrd_u32(&r);
        if (m->node[i] >= (uint32_t)nnodes) {
            *why = "a spawned rank on a node that does not exist";
            return -EPROTO;
        }
    }
    return r.left || r.err ? -EPROTO : 0;
}

void launch_dyn_job_free(struct launch_dyn_job_msg *m)
{
    launch_dyn_apps_free(m->apps, m->napps);
    free(m->node);
    m->apps = NULL;
    m->node = NULL;
    m->napps = m->nranks = 0;
}

void launch_dyn_started_encode(struct launch_buf *b, const struct launch_dyn_started_msg *m)
{
    lbuf_u32(b, m->index);
    lbuf_u32(b, m->code);
    lbuf_str(b, m->why);
}

int launch_dyn_started_decode(const char *p, size_t n, struct launch_dyn_started_msg *m,
                              const char **why)
{
    struct launch_rd r = {p, n, 0};

    memset(m, 0, sizeof(*m));
    *why = "malformed spawned-job report";
    m->index = lrd_u32(&r);
    m->code = lrd_u32(&r);
    if (r.err || m->index == 0 || m->code > 255 || get_fixed(&r, m->why, LAUNCH_DYN_WHY_MAX, 0))
        return -EPROTO;
    return r.left ? -EPROTO : 0;
}

void launch_dyn_exit_encode(struct launch_buf *b, const struct launch_dyn_exit_msg *m)
{
    lbuf_u32(b, m->index);
    lbuf_u32(b, m->rank);
    lbuf_u32(b, m->status);
    lbuf_u32(b, m->connected);
    lbuf_u32(b, m->finalized);
}

int launch_dyn_exit_decode(const char *p, size_t n, struct launch_dyn_exit_msg *m,
                           const char **why)
{
    struct launch_rd r = {p, n, 0};

    memset(m, 0, sizeof(*m));
    *why = "malformed spawned-rank exit";
    m->index = lrd_u32(&r);
    m->rank = lrd_u32(&r);
    m->status = lrd_u32(&r);
    m->connected = lrd_u32(&r);
    m->finalized = lrd_u32(&r);
    if (r.err || r.left || m->index == 0 || m->rank >= LAUNCH_DYN_MAX_PROCS ||
        m->status > 0xffff || m->connected > 1 || m->finalized > 1)
        return -EPROTO;
    return 0;
}

int launch_dyn_index_decode(const char *p, size_t n, uint32_t *index, const char **why)
{
    struct launch_rd r = {p, n, 0};

    *why = "a message without its job index";
    *index = lrd_u32(&r);
    return r.err || *index > (1u << 20) ? -EPROTO : 0;
}

void launch_dyn_io_encode(struct launch_buf *b, const struct launch_dyn_io_msg *m)
{
    lbuf_u32(b, m->index);
    lbuf_u32(b, m->rank);
    lbuf_u32(b, m->is_err);
    lbuf_bytes(b, m->data, m->len);
}

int launch_dyn_io_decode(const char *p, size_t n, struct launch_dyn_io_msg *m, const char **why)
{
    struct launch_rd r = {p, n, 0};

    memset(m, 0, sizeof(*m));
    *why = "malformed spawned-rank output";
    m->index = lrd_u32(&r);
    m->rank = lrd_u32(&r);
    m->is_err = lrd_u32(&r);
    m->data = lrd_bytes(&r, &m->len);
    if (r.err || !m->data || r.left || m->index == 0 || m->rank >= LAUNCH_DYN_MAX_PROCS ||
        m->is_err > 1)
        return -EPROTO;
    return 0;
}

void launch_dyn_names_free(struct launch_dyn_name *names, uint32_t n)
{
    for (uint32_t i = 0; names && i < n; i++) {
        free(names[i].key);
        free(names[i].value);
    }
    free(names);
}

/* Names as encoded: the key, then the value (with_value), then the publisher (with_owner). */
static void put_names(struct launch_buf *b, const struct launch_dyn_name *names, uint32_t n,
                      int with_value, int with_owner)
{
    lbuf_u32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        lbuf_str(b, names[i].key);
        if (with_value)
            lbuf_str(b, names[i].value ? names[i].value : "");
        if (with_owner) {
            lbuf_str(b, names[i].nspace);
            lbuf_u32(b, names[i].rank);
        }
    }
}

/* min..LAUNCH_NAME_MAX names, keys non-empty and distinct. */
static int get_names(struct launch_rd *r, uint32_t min, int with_value, int with_owner,
                     struct launch_dyn_name **out, uint32_t *count)
{
    uint32_t n = lrd_u32(r);
    struct launch_dyn_name *v;

    *out = NULL;
    *count = 0;
    if (r->err || n < min || n > LAUNCH_NAME_MAX || n > r->left / 4)
        return -EPROTO;
    if (n == 0)
        return 0;
    if (!(v = calloc(n, sizeof(*v))))
        return -ENOMEM;
    *out = v;
    *count = n;
    for (uint32_t i = 0; i < n; i++) {
        if (!(v[i].key = lrd_str_max(r, LAUNCH_NAME_KEY_MAX)) || !v[i].key[0])
            return -EPROTO;
        for (uint32_t k = 0; k < i; k++)
            if (!strcmp(v[k].key, v[i].key))
                return -EPROTO;
        if (with_value && !(v[i].value = lrd_str_max(r, LAUNCH_NAME_VALUE_MAX)))
            return -EPROTO;
        if (with_owner) {
            if (get_fixed(r, v[i].nspace, LAUNCH_DYN_NS_MAX, 1) || !nspace_ok(v[i].nspace))
                return -EPROTO;
            v[i].rank = lrd_u32(r);
            if (r->err || v[i].rank >= (1u << 30))
                return -EPROTO;
        }
    }
    return 0;
}

void launch_dyn_name_req_encode(struct launch_buf *b, const struct launch_dyn_name_req_msg *m)
{
    lbuf_u32(b, m->id);
    lbuf_u32(b, m->op);
    lbuf_str(b, m->nspace);
    lbuf_u32(b, m->rank);
    put_names(b, m->names, m->n, m->op == LAUNCH_NAME_PUBLISH, 0);
}

int launch_dyn_name_req_decode(const char *p, size_t n, struct launch_dyn_name_req_msg *m,
                               const char **why)
{
    struct launch_rd r = {p, n, 0};

    memset(m, 0, sizeof(*m));
    *why = "malformed name-service request";
    m->id = lrd_u32(&r);
    m->op = lrd_u32(&r);
    if (r.err || m->op < LAUNCH_NAME_PUBLISH || m->op > LAUNCH_NAME_UNPUBLISH ||
        get_fixed(&r, m->nspace, LAUNCH_DYN_NS_MAX, 1) || !nspace_ok(m->nspace))
        return -EPROTO;
    m->rank = lrd_u32(&r);
    if (r.err || m->rank >= (1u << 30) ||
        get_names(&r, 1, m->op == LAUNCH_NAME_PUBLISH, 0, &m->names, &m->n))
        return -EPROTO;
    return r.left || r.err ? -EPROTO : 0;
}

void launch_dyn_name_resp_encode(struct launch_buf *b, const struct launch_dyn_name_resp_msg *m)
{
    lbuf_u32(b, m->id);
    lbuf_u32(b, (uint32_t)m->status);
    put_names(b, m->names, m->n, 1, 1);
}

int launch_dyn_name_resp_decode(const char *p, size_t n, struct launch_dyn_name_resp_msg *m,
                                const char **why)
{
    struct launch_rd r = {p, n, 0};

    memset(m, 0, sizeof(*m));
    *why = "malformed name-service answer";
    m->id = lrd_u32(&r);
    m->status = (int32_t)lrd_u32(&r);
    if (r.err || m->status > 0 || get_names(&r, 0, 1, 1, &m->names, &m->n))
        return -EPROTO;
    if (m->n && m->status) {
        *why = "a failed name-service answer with names";
        return -EPROTO;
    }
    return r.left || r.err ? -EPROTO : 0;
}
