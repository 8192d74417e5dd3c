/*
 * The parts of the launcher that speak libpmix's types: the server
 * (server.c) and the job description it registers (nspace.c).
 */
#ifndef RDMPI_LAUNCH_SERVER_H
#define RDMPI_LAUNCH_SERVER_H

#include "launch.h"

#include <pmix.h>
#include <pmix_server.h>

/*
 * Builds the job-level info for PMIx_server_register_nspace(): sizes, maps,
 * local peers, and one PMIX_PROC_DATA array per rank. On success *out holds
 * an array of pmix_info_t that the caller releases with
 * PMIX_DATA_ARRAY_DESTRUCT().
 */
int launch_nspace_info(const struct launch_job *job, pmix_data_array_t *out);

/*
 * Fences and direct modex across nodes (fence.c, dmodex.c). The upcalls run
 * on libpmix's thread: they only queue the request and wake the main
 * thread, which moves it along the daemon tree (_progress) and handles the
 * tree's messages (_msg). Callbacks into libpmix are made from the main
 * thread; libpmix thread-shifts them.
 */
int launch_fence_create(struct launch_job *job);
void launch_fence_destroy(struct launch_job *job);
pmix_status_t launch_fence_upcall(struct launch_job *job, const pmix_proc_t procs[],
                                  size_t nprocs, const char *data, size_t ndata,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata);
/* PMIx_Connect/Disconnect across nodes: complete once the servers of the nodes listed
 * ("0,2": increasing node indices) have all called it. */
pmix_status_t launch_fence_connect_upcall(struct launch_job *job, const char *nodes,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata);
void launch_fence_progress(struct launch_job *job);
void launch_fence_msg(struct launch_job *job, int type, int src, const char *p, size_t n);

int launch_dmodex_create(struct launch_job *job);
void launch_dmodex_destroy(struct launch_job *job);
pmix_status_t launch_dmodex_upcall(struct launch_job *job, const pmix_proc_t *proc,
                                   pmix_modex_cbfunc_t cbfunc, void *cbdata);
void launch_dmodex_progress(struct launch_job *job);
/* A local rank of job ended: keeps its data for later requests (before it is deregistered). */
void launch_dmodex_keep(struct launch_job *job, int rank);
void launch_dmodex_msg(struct launch_job *job, int type, int src, const char *p, size_t n);

/* Registers job's namespace with the running server (launch_server_start's second half). */
int launch_server_register_job(struct launch_job *job);

/* dyn.c: the spawn upcall (libpmix's thread); the main thread completes it. */
pmix_status_t launch_dyn_spawn_upcall(struct launch_job *job, const pmix_proc_t *parent,
                                      const pmix_app_t apps[],
                                      size_t napps, pmix_spawn_cbfunc_t cbfunc, void *cbdata);

/* names.c: the names the ranks publish (MPI_Publish_name), kept by rdmpirun for every
 * namespace it serves; the upcalls answer at once (PMIX_OPERATION_SUCCEEDED, or the lookup
 * callback called before they return). */
pmix_status_t launch_names_publish(struct launch_job *job, const pmix_proc_t *proc,
                                   const pmix_info_t info[], size_t ninfo);
pmix_status_t launch_names_lookup(struct launch_job *job, char **keys,
                                  pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t launch_names_unpublish(struct launch_job *job, const pmix_proc_t *proc,
                                     char **keys);

/* namefwd.c, rdmpid: the same upcalls forwarded to rdmpirun; they complete through cbfunc
 * once it answers (PMIX_SUCCESS), or fail or finish at once (any other status). */
pmix_status_t launch_namefwd_publish(struct launch_job *job, const pmix_proc_t *proc,
                                     const pmix_info_t info[], size_t ninfo,
                                     pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t launch_namefwd_lookup(struct launch_job *job, const pmix_proc_t *proc, char **keys,
                                    pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t launch_namefwd_unpublish(struct launch_job *job, const pmix_proc_t *proc,
                                       char **keys, pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif
