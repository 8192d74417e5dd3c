/*
 * The tools interface (MPI_T): its state and what its files share.
 *
 * MPI_T works before MPI_Init and after MPI_Finalize, so its state is its own,
 * reached from one pointer (mpit_state, made by the first MPI_T_init_thread and
 * freed by the last MPI_T_finalize) rather than from the runtime instance.
 *
 * Control variables are the rows of the settings registry (core/config.h), in
 * its enumeration order: while the library runs they are the runtime's
 * registry (rt->cfg); before MPI_Init and after MPI_Finalize, a registry of
 * MPI_T's own filled the same way (defaults and environment), so the indices
 * and the values a run starts with are the same. Performance variables are a
 * table (pvar.c) over what p2p and the transports count. Categories are the
 * registry's components (and the transports that only have counters).
 */
#ifndef RDMPI_MPIT_H
#define RDMPI_MPIT_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "core/config.h"

#define MPIT_EXT_LEN 256 /* characters of a variable read outside the library (value's room) */
#define MPIT_MAX_CATS 16

struct rdmpi_t_enum {
    const core_config_row_t *row;  /* an ENUM setting: its choices are the items */
    int nitems;
};

typedef struct mpit_cat {
    const char *name;
    char desc[128];
    int *cvars, ncvars;
    int *pvars, npvars;
} mpit_cat_t;

typedef struct mpit_state {
    int refs;                     /* MPI_T_init_thread calls not yet finalized */
    core_config_t own;            /* the registry used while the library is not running */
    int ncvars;
    struct rdmpi_t_enum *enums;   /* by cvar index (row NULL: not an enumeration) */
    mpit_cat_t cats[MPIT_MAX_CATS];
    int ncats;
    struct rdmpi_t_pvar_session *sessions;
} mpit_state_t;

/* NULL unless MPI_T is initialized. */
mpit_state_t *mpit_get(void);
/* The registry the control variables read now (the running library's, or MPI_T's own). */
core_config_t *mpit_cfg(mpit_state_t *st);
/* Whether the library runs (between MPI_Init and MPI_Finalize). */
int mpit_running(void);
/* Copies a string out the way MPI_T does: at most *len characters with the NUL; *len gets
 * the characters written with the NUL, or, when name is NULL or *len is 0, the room the
 * whole string needs. len NULL: nothing. */
void mpit_put_str(const char *src, char *dst, int *len);

/* The performance variables (pvar.c). */
int mpit_pvar_count(void);
const char *mpit_pvar_category(int i);
/* Frees every session (and their handles): MPI_T_finalize. */
void mpit_sessions_free(mpit_state_t *st);

/* Categories (category.c): built at init from the registry's components. */
int mpit_cats_build(mpit_state_t *st);
void mpit_cats_free(mpit_state_t *st);

/* The first line of every MPI_T entry point: MULTIPLE's critical section when the library
 * runs with it (API_ENTER), then MPI_T's own mutex (init.c) until the call returns. The
 * order is always G first, and nothing under the mutex waits for G. */
int mpit_enter(void);
void mpit_leave(const int *entered);
#define MPIT_API_ENTER \
    API_ENTER;         \
    __attribute__((cleanup(mpit_leave))) const int mpit_entered_ = mpit_enter()

#define MPIT_CHECK_INIT(st)                       \
    mpit_state_t *st = mpit_get();                \
    if (!st)                                      \
        return MPI_T_ERR_NOT_INITIALIZED

#endif
