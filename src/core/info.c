/*
 * Info objects: an ordered array of unique (key, value) string pairs, and the
 * predefined MPI_INFO_ENV, filled at init with what is known about how the
 * job was started. Info objects hold a handful of keys, so lookups are linear.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/errors.h"
#include "core/handle.h"
#include "core/info.h"
#include "core/info_ops.h"
#ifndef CORE_UNIT_TEST
#include "core/runtime.h"
#endif

struct rdmpi_info rdmpi_info_env = { .predefined = 1 };

/* MPI_INFO_ENV is a valid handle from load time on: MPI-4 lets the info
 * calls run before MPI_Init. */
__attribute__((constructor)) static void info_predefine(void)
{
    const void *env = MPI_INFO_ENV;
    core_handle_predefine(&core_handles.info, &env, 1);
}

int core_info_create(MPI_Info *out)
{
    struct rdmpi_info *info = core_handle_alloc(&core_handles.info, sizeof(*info));
    if (!info)
        return CORE_ENOMEM;
    *out = info;
    return 0;
}

static void info_clear(MPI_Info info)
{
    for (int i = 0; i < info->n; i++) {
        free(info->entries[i].key);
        free(info->entries[i].value);
    }
    free(info->entries);
    info->entries = NULL;
    info->n = info->cap = 0;
}

void core_info_destroy(MPI_Info info)
{
    if (!info || info->predefined)
        return;
    info_clear(info);
    core_handle_free(&core_handles.info, info);
}

static int find(MPI_Info info, const char *key)
{
    for (int i = 0; i < info->n; i++) {
        if (strcmp(info->entries[i].key, key) == 0)
            return i;
    }
    return -1;
}

int core_info_set(MPI_Info info, const char *key, const char *value)
{
    size_t klen = strlen(key);
    if (klen == 0 || klen > MPI_MAX_INFO_KEY - 1)
        return CORE_EINFO_KEY;
    if (strlen(value) > MPI_MAX_INFO_VAL - 1)
        return CORE_EINFO_VALUE;
    char *v = strdup(value);
    if (!v)
        return CORE_ENOMEM;

    int i = find(info, key);
    if (i >= 0) {
        free(info->entries[i].value);
        info->entries[i].value = v;
        return 0;
    }
    char *k = strdup(key);
    if (!k)
        goto err_free_value;
    if (info->n == info->cap) {
        int cap = info->cap ? 2 * info->cap : 8;
        core_info_entry_t *e = realloc(info->entries, (size_t)cap * sizeof(*e));
        if (!e)
            goto err_free_key;
        info->entries = e;
        info->cap = cap;
    }
    info->entries[info->n++] = (core_info_entry_t){ k, v };
    return 0;

err_free_key:
    free(k);
err_free_value:
    free(v);
    return CORE_ENOMEM;
}

const char *core_info_get(MPI_Info info, const char *key)
{
    int i = find(info, key);
    return i >= 0 ? info->entries[i].value : NULL;
}

int core_info_delete(MPI_Info info, const char *key)
{
    int i = find(info, key);
    if (i < 0)
        return CORE_EINFO_NOKEY;
    free(info->entries[i].key);
    free(info->entries[i].value);
    memmove(&info->entries[i], &info->entries[i + 1],
            (size_t)(info->n - i - 1) * sizeof(core_info_entry_t));
    info->n--;
    return 0;
}

int core_info_dup(MPI_Info info, MPI_Info *out)
{
    MPI_Info copy;
    int rc = core_info_create(&copy);
    if (rc != 0)
        return rc;
    for (int i = 0; i < info->n; i++) {
        rc = core_info_set(copy, info->entries[i].key, info->entries[i].value);
        if (rc != 0) {
            core_info_destroy(copy);
            return rc;
        }
    }
    *out = copy;
    return 0;
}

int core_info_nkeys(MPI_Info info)
{
    return info->n;
}

const char *core_info_nthkey(MPI_Info info, int n)
{
    return n >= 0 && n < info->n ? info->entries[n].key : NULL;
}

/* ---- MPI_INFO_ENV -------------------------------------------------------- */

/* Sets a key of MPI_INFO_ENV, cutting an over-long value to the largest an
 * MPI_Info_get with MPI_MAX_INFO_VAL can return. */
static void env_set(const char *key, const char *value)
{
    char buf[MPI_MAX_INFO_VAL];
    snprintf(buf, sizeof(buf), "%s", value);
    (void)core_info_set(&rdmpi_info_env, key, buf);   /* out of memory: the key is missing */
}

#ifndef CORE_UNIT_TEST
static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return NULL;
    }
}

/* What the runtime knows: the host it resolved, the job size, the thread level. */
static void env_from_runtime(char *host, size_t hostlen)
{
    if (!core_rt)
        return;
    char num[32];
    snprintf(host, hostlen, "%s", core_rt->hostname);
    snprintf(num, sizeof(num), "%d", core_rt->size);
    env_set("maxprocs", num);
    const char *tl = thread_level_name(core_rt->thread_level);
    if (tl)
        env_set("thread_level", tl);
}
#endif

/*
 * MPI-4.1 section 11.2.4 lists the keys; the ones that describe a spawn
 * request ("soft", "file") have no meaning for a job started by the launcher
 * and are left out, as the standard allows for keys that are not known.
 */
void core_info_env_init(int argc, char **argv)
{
    info_clear(&rdmpi_info_env);

    if (argv && argc > 0 && argv[0]) {
        env_set("command", argv[0]);
        char buf[MPI_MAX_INFO_VAL];
        size_t len = 0;
        buf[0] = '\0';
        for (int i = 1; i < argc && argv[i]; i++) {
            int w = snprintf(buf + len, sizeof(buf) - len, "%s%s", i > 1 ? " " : "", argv[i]);
            if (w < 0 || (size_t)w >= sizeof(buf) - len)
                break;     /* too long: keep the arguments that fit whole */
            len += (size_t)w;
        }
        if (argc > 1)
            env_set("argv", buf);
    }

    char host[256] = "";
#ifndef CORE_UNIT_TEST
    env_from_runtime(host, sizeof(host));
#endif
    if (!host[0] && gethostname(host, sizeof(host)) != 0)
        host[0] = '\0';
    host[sizeof(host) - 1] = '\0';
    if (host[0])
        env_set("host", host);

    struct utsname u;
    if (uname(&u) == 0)
        env_set("arch", u.machine);

    char *cwd = getcwd(NULL, 0);
    if (cwd) {
        env_set("wdir", cwd);
        free(cwd);
    }
}

void core_info_env_fini(void)
{
    info_clear(&rdmpi_info_env);
}
