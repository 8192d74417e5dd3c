/*
 * Dynamic processes over PMIx (the client side): spawning a job, learning
 * another job's size and numbering, the parent of a spawned job, and the
 * name service (MPI_Publish_name). The launcher serves these (rdmpirun:
 * launcher/dyn.c, launcher/names.c); one that refuses (srun, or a PMIx
 * server without spawn) makes them fail with CORE_ESPAWN and a reason.
 */
#ifndef RDMPI_CORE_BOOTDYN_H
#define RDMPI_CORE_BOOTDYN_H

#include <stddef.h>
#include "core/runtime.h"

typedef struct core_spawn_app {
    const char *cmd;
    char **argv;          /* the arguments after the command; NULL-terminated, or NULL */
    int maxprocs;
    const char *host;     /* info "host", or NULL */
    const char *wdir;     /* info "wdir", or NULL */
    const char *path;     /* info "path": where to look for cmd first, or NULL */
} core_spawn_app_t;

/* Starts a job of the apps; its namespace goes to nspace. On failure why says why. */
int core_boot_spawn(core_runtime_t *rt, const core_spawn_app_t *apps, int napps, char *nspace,
                    size_t len, char *why, size_t wlen);
/* Another job's size and first uid (CORE_UBASE_PMIX); CORE_ESPAWN when the launcher does
 * not number its jobs' processes (so their ranks could not be told apart). */
int core_boot_job(core_runtime_t *rt, const char *nspace, int *size, int *ubase);
/* The job and rank that spawned this one; CORE_ENOTFOUND when it was not spawned. */
int core_boot_parent(core_runtime_t *rt, char *nspace, size_t len, int *rank);
int core_boot_publish(core_runtime_t *rt, const char *service, const char *port);
int core_boot_lookup(core_runtime_t *rt, const char *service, char *port, size_t len);
int core_boot_unpublish(core_runtime_t *rt, const char *service);

#endif
