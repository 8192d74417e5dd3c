/*
 * Bootstrap over PMIx: job layout at init, one fence that exchanges every
 * transport's address, lazy lookups of peers' data, and abort. A process
 * started without a PMIx server is a singleton (a job of size 1).
 */
#ifndef RDMPI_CORE_BOOTSTRAP_H
#define RDMPI_CORE_BOOTSTRAP_H

#include <stddef.h>
#include "core/runtime.h"

int core_boot_init(core_runtime_t *rt);
/* Publishes key=value for peers; local_only limits it to this node. */
int core_boot_put(core_runtime_t *rt, const char *key, const void *val, size_t len, int local_only);
/* Commits what was put after the fence (for processes of other jobs, who read it lazily). */
int core_boot_commit(core_runtime_t *rt);
/* Commits what was put and runs the one job-wide fence that collects it. */
int core_boot_fence(core_runtime_t *rt);
/* Reads a peer's key: *val is malloc'd, the caller frees it. CORE_ENOTFOUND if absent. */
int core_boot_get(core_runtime_t *rt, int rank, const char *key, void **val, size_t *len);
/* As core_boot_get, but a key that a process of another job has not published is not
 * waited for (core_boot_get looks again for a while, the process may not have opened its
 * transports for other jobs yet): for keys that a process may never publish (an optional
 * transport's address). */
int core_boot_get_now(core_runtime_t *rt, int rank, const char *key, void **val, size_t *len);
/* Ends the whole job: tells the launcher (PMIx_Abort), then exits. */
void core_boot_abort(core_runtime_t *rt, int code, const char *msg) __attribute__((noreturn));
/* A peer's hostname (malloc'd), looked up when first needed. */
int core_boot_hostname(core_runtime_t *rt, int rank, char **out);
int core_boot_fini(core_runtime_t *rt);

#endif
