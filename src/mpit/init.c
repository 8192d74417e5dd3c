/*
 * MPI_T_init_thread and MPI_T_finalize: the tools interface's own state (see
 * mpit.h), made by the first init and freed by the last finalize, and the
 * helpers every MPI_T call shares.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "api/api.h"
#include "core/log.h"
#include "mpit/mpit.h"

/* MPI_T's one instance pointer: MPI_T is usable with no runtime (before MPI_Init, after
 * MPI_Finalize), so its state cannot hang off the runtime's instance. */
static mpit_state_t *mpit_state;
/* MPI_T's own lock, taken by every MPI_T call (MPIT_API_ENTER) after the library's critical
 * section G: MPI_T calls run before MPI_Init and after MPI_Finalize too, where there is no G,
 * and MPI_T_init_thread grants MULTIPLE whatever MPI_Init_thread grants (MPICH's
 * threads/mpi_t/mpit_threading calls MPI_T from 8 threads). Static for the reason
 * mpit_state is. */
static pthread_mutex_t mpit_mutex = PTHREAD_MUTEX_INITIALIZER;

int mpit_enter(void)
{
    pthread_mutex_lock(&mpit_mutex);
    return 1;
}

void mpit_leave(const int *entered)
{
    if (*entered)
        pthread_mutex_unlock(&mpit_mutex);
}

mpit_state_t *mpit_get(void)
{
    return mpit_state;
}

int mpit_running(void)
{
    return api_initialized && !api_finalized && core_rt != NULL;
}

core_config_t *mpit_cfg(mpit_state_t *st)
{
    return mpit_running() ? &core_rt->cfg : &st->own;
}

void mpit_put_str(const char *src, char *dst, int *len)
{
    if (!len)
        return;
    size_t n = strlen(src);
    if (dst && *len > 0) {
        if (n > (size_t)*len - 1)
            n = (size_t)*len - 1;
        memcpy(dst, src, n);
        dst[n] = '\0';
    }
    *len = (int)n + 1;
}

static void state_free(mpit_state_t *st)
{
    mpit_sessions_free(st);
    mpit_cats_free(st);
    core_config_fini(&st->own);
    free(st->enums);
    free(st);
}

static int state_create(mpit_state_t **out)
{
    mpit_state_t *st = calloc(1, sizeof(*st));
    if (!st)
        return MPI_T_ERR_MEMORY;
    /* The library warns about bad values when it reads the environment at MPI_Init (or
     * did already): reading it here too must not say it twice. */
    int level = core_log_level;
    core_log_level = CORE_LOG_ERROR;
    int rc = rt_config_register(&st->own);
    core_log_level = level;
    if (rc) {
        state_free(st);
        return MPI_T_ERR_MEMORY;
    }
    st->ncvars = (int)core_config_count(&st->own);
    st->enums = calloc((size_t)st->ncvars + 1, sizeof(*st->enums));
    if (!st->enums) {
        state_free(st);
        return MPI_T_ERR_MEMORY;
    }
    for (int i = 0; i < st->ncvars; i++) {
        core_config_param_t p;
        if (core_config_param(&st->own, (size_t)i, &p) != 0 || p.row->type != CORE_CFG_ENUM)
            continue;
        st->enums[i].row = p.row;
        while (p.row->choices[st->enums[i].nitems])
            st->enums[i].nitems++;
    }
    if (mpit_cats_build(st) != 0) {
        state_free(st);
        return MPI_T_ERR_MEMORY;
    }
    *out = st;
    return 0;
}

int PMPI_T_init_thread(int required, int *provided)
{
    MPIT_API_ENTER;
    if (!provided || required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    if (!mpit_state) {
        int rc = state_create(&mpit_state);
        if (rc)
            return rc;
    }
    mpit_state->refs++;
    /* every MPI_T call holds mpit_mutex (MPIT_API_ENTER) */
    *provided = required;
    return MPI_SUCCESS;
}
int MPI_T_init_thread(int required, int *provided) API_ALIAS(MPI_T_init_thread);

int PMPI_T_finalize(void)
{
    MPIT_API_ENTER;
    if (!mpit_state)
        return MPI_T_ERR_NOT_INITIALIZED;
    if (--mpit_state->refs == 0) {
        state_free(mpit_state);
        mpit_state = NULL;
    }
    return MPI_SUCCESS;
}
int MPI_T_finalize(void) API_ALIAS(MPI_T_finalize);
