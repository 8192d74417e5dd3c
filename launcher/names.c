/*
 * The names ranks publish (MPI_Publish_name through PMIx_Publish), kept by
 * rdmpirun for every namespace of the run, so that a job and the jobs it
 * spawned find each other's ports. Ranks on rdmpirun's node reach it
 * through its server's upcalls, ranks on a daemon's node through NAME_REQ
 * messages (namefwd.c), which rdmpirun applies here on their behalf. Each entry is a key, a string value and
 * the process that published it; only a process of that job may unpublish it, and a
 * key is published once until then (MPI's MPI_ERR_SERVICE for a second one).
 *
 * The upcalls run on libpmix's thread and answer at once; the store is
 * guarded by its lock and bounded, so a client cannot grow rdmpirun without
 * limit.
 */
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAMES_MAX 1024
#define NAME_VALUE_MAX 4096

struct name {
    struct name *next;
    char key[PMIX_MAX_KEYLEN + 1];
    char *value;
    pmix_proc_t owner;
};

struct launch_names {
    pthread_mutex_t lock;
    struct name *head;
    int n;
};

int launch_names_create(struct launch_job *job)
{
    struct launch_names *s = calloc(1, sizeof(*s));

    if (!s)
        return -ENOMEM;
    pthread_mutex_init(&s->lock, NULL);
    job->names = s;
    return 0;
}

void launch_names_destroy(struct launch_job *job)
{
    struct launch_names *s = job->names;

    if (!s)
        return;
    while (s->head) {
        struct name *e = s->head;
        s->head = e->next;
        free(e->value);
        free(e);
    }
    free(s);
    job->names = NULL;
}

static struct name *find(struct launch_names *s, const char *key)
{
    for (struct name *e = s->head; e; e = e->next)
        if (!strncmp(e->key, key, PMIX_MAX_KEYLEN))
            return e;
    return NULL;
}

static int is_directive(const pmix_info_t *info)
{
    return !strncmp(info->key, "pmix", 4);
}

pmix_status_t launch_names_publish(struct launch_job *job, const pmix_proc_t *proc,
                                   const pmix_info_t info[], size_t ninfo)
{
    struct launch_names *s = job->names;
    pmix_status_t rc = PMIX_OPERATION_SUCCEEDED;

    if (!s)
        return PMIX_ERR_NOT_SUPPORTED;
    /* All or nothing: check every entry before storing any. libpmix adds its own
     * directives (user id, range, persistence: "pmix." keys); those are not names. */
    for (size_t i = 0; i < ninfo; i++) {
        if (is_directive(&info[i]))
            continue;
        if (info[i].value.type != PMIX_STRING || !info[i].value.data.string ||
            strlen(info[i].value.data.string) >= NAME_VALUE_MAX)
            return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < ninfo && rc == PMIX_OPERATION_SUCCEEDED; i++)
        if (!is_directive(&info[i]) && find(s, info[i].key))
            rc = PMIX_ERR_DUPLICATE_KEY;
    if (rc == PMIX_OPERATION_SUCCEEDED && s->n + (int)ninfo > NAMES_MAX)
        rc = PMIX_ERR_OUT_OF_RESOURCE;
    for (size_t i = 0; i < ninfo && rc == PMIX_OPERATION_SUCCEEDED; i++) {
        if (is_directive(&info[i]))
            continue;
        struct name *e = calloc(1, sizeof(*e));
        if (!e || !(e->value = strdup(info[i].value.data.string))) {
            free(e);
            rc = PMIX_ERR_NOMEM;
            break;
        }
        snprintf(e->key, sizeof(e->key), "%.*s", PMIX_MAX_KEYLEN, info[i].key);
        e->owner = *proc;
        e->next = s->head;
        s->head = e;
        s->n++;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* Answers with what is found; PMIX_ERR_NOT_FOUND (without the callback) when nothing is. */
pmix_status_t launch_names_lookup(struct launch_job *job, char **keys,
                                  pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    struct launch_names *s = job->names;
    size_t nkeys = 0, n = 0;
    pmix_pdata_t *pd;

    if (!s)
        return PMIX_ERR_NOT_SUPPORTED;
    while (keys && keys[nkeys])
        nkeys++;
    if (nkeys == 0)
        return PMIX_ERR_BAD_PARAM;
    PMIX_PDATA_CREATE(pd, nkeys);
    if (!pd)
        return PMIX_ERR_NOMEM;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < nkeys; i++) {
        struct name *e = find(s, keys[i]);
        if (!e)
            continue;
        PMIX_PDATA_LOAD(&pd[n], &e->owner, e->key, e->value, PMIX_STRING);
        n++;
    }
    pthread_mutex_unlock(&s->lock);
    if (n == 0) {
        PMIX_PDATA_FREE(pd, nkeys);
        return PMIX_ERR_NOT_FOUND;
    }
    cbfunc(PMIX_SUCCESS, pd, n, cbdata);
    PMIX_PDATA_FREE(pd, nkeys);
    return PMIX_SUCCESS;
}

pmix_status_t launch_names_unpublish(struct launch_job *job, const pmix_proc_t *proc,
                                     char **keys)
{
    struct launch_names *s = job->names;
    pmix_status_t rc = PMIX_OPERATION_SUCCEEDED;

    if (!s)
        return PMIX_ERR_NOT_SUPPORTED;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; keys && keys[i]; i++) {
        struct name **pp = &s->head;
        while (*pp && strncmp((*pp)->key, keys[i], PMIX_MAX_KEYLEN))
            pp = &(*pp)->next;
        if (!*pp) {
            rc = PMIX_ERR_NOT_FOUND;
            continue;
        }
        if (!PMIX_CHECK_PROCID(&(*pp)->owner, proc) &&
            strncmp((*pp)->owner.nspace, proc->nspace, PMIX_MAX_NSLEN)) {
            rc = PMIX_ERR_NO_PERMISSIONS;
            continue;
        }
        struct name *e = *pp;
        *pp = e->next;
        free(e->value);
        free(e);
        s->n--;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}
