/*
 * Each rank's environment: a deep copy of rdmpirun's own environment, what
 * PMIx_server_setup_fork() adds, the -x exports, and the variables every
 * rank gets from the launcher. The array is malloc'ed, NULL-terminated and
 * owns its strings, because libpmix appends to it with realloc and frees
 * entries it replaces; it must never alias the strings of environ.
 */
#include "launch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

char launch_who[300] = "rdmpirun";

void launch_env_free(char **env)
{
    if (!env)
        return;
    for (char **p = env; *p; p++)
        free(*p);
    free(env);
}

char **launch_env_base(void)
{
    size_t n = 0;
    char **env;

    while (environ[n])
        n++;
    env = calloc(n + 1, sizeof(*env));
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        env[i] = strdup(environ[i]);
        if (!env[i]) {
            launch_env_free(env);
            return NULL;
        }
    }
    return env;
}

/* Sets name=value in *env, replacing an existing entry. */
int launch_env_set(char ***env, const char *name, const char *value)
{
    size_t len = strlen(name), n = 0;
    char *entry = malloc(len + strlen(value) + 2);
    char **grown;

    if (!entry)
        return -ENOMEM;
    sprintf(entry, "%s=%s", name, value);
    for (; (*env)[n]; n++) {
        if (!strncmp((*env)[n], name, len) && (*env)[n][len] == '=') {
            free((*env)[n]);
            (*env)[n] = entry;
            return 0;
        }
    }
    grown = realloc(*env, (n + 2) * sizeof(*grown));
    if (!grown) {
        free(entry);
        return -ENOMEM;
    }
    grown[n] = entry;
    grown[n + 1] = NULL;
    *env = grown;
    return 0;
}

/* -x VAR=value sets VAR; -x VAR passes rdmpirun's own VAR along. */
static int apply_export(const char *spec, char ***env)
{
    const char *eq = strchr(spec, '=');

    if (eq) {
        char *name = strndup(spec, (size_t)(eq - spec));
        int rc = name ? launch_env_set(env, name, eq + 1) : -ENOMEM;
        free(name);
        return rc;
    }
    const char *value = getenv(spec);
    if (!value)
        return 0; /* warned about once, in main */
    return launch_env_set(env, spec, value);
}

int launch_env_rank(const struct launch_job *job, int rank, char ***env)
{
    char local[16], size[16];
    int rc = 0;

    for (int i = 0; !rc && i < job->opts->nexports; i++)
        rc = apply_export(job->opts->exports[i], env);
    snprintf(local, sizeof(local), "%d", job->ranks[rank].local_rank);
    snprintf(size, sizeof(size), "%d", job->nlocal);
    if (!rc)
        rc = launch_env_set(env, "MPI_LOCALRANKID", local);
    if (!rc)
        rc = launch_env_set(env, "LOCAL_RANK", local);
    if (!rc)
        rc = launch_env_set(env, "MPI_LOCALNRANKS", size);
    if (!rc)
        rc = launch_env_set(env, "RDMPI_LAUNCHER", "rdmpirun");
    if (!rc && job->is_daemon) { /* found by `rdmpid --cleanup` if this daemon dies */
        char tag[160];
        launch_job_tag(tag, sizeof(tag), job->nspace, job->nodes[job->my_node].vpid,
                       job->job_key);
        rc = launch_env_set(env, LAUNCH_JOB_TAG, tag);
    }
    return rc;
}
