/*
 * MPI_Init and friends: the environment calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include "api/api.h"
#include "rma/rma.h"
#include "io/io.h"
#include "api/attr.h"
#include "api/dynamic.h"
#include "core/bootstrap.h"
#include "core/progress.h"

static pthread_t main_thread;

static int do_init(int *argc, char ***argv, int required, int *provided, const char *fn)
{
    if (api_initialized || api_finalized) {
        fprintf(stderr, "rdmpi: %s called twice (or after MPI_Finalize); aborting\n", fn);
        core_boot_abort(core_rt, MPI_ERR_OTHER, "MPI_Init called twice");
    }
    int prov = MPI_THREAD_SINGLE;
    int rc = rt_init(argc ? *argc : 0, argv ? *argv : NULL, required, &prov);
    if (rc) {
        fprintf(stderr, "rdmpi: %s failed: %s; aborting\n", fn, core_strerror(rc));
        core_boot_abort(core_rt, 1, "MPI_Init failed");
    }
    if (!(core_rt->api = calloc(1, sizeof(*core_rt->api)))) {
        fprintf(stderr, "rdmpi: %s failed: out of memory; aborting\n", fn);
        core_boot_abort(core_rt, 1, "MPI_Init failed");
    }
    main_thread = pthread_self();
    api_initialized = 1;
    api_attr_init();
    if ((rc = api_dyn_init()) != 0) {
        fprintf(stderr, "rdmpi: %s failed to connect to the parent job: %s; aborting\n", fn,
                core_strerror(rc));
        core_boot_abort(core_rt, 1, "MPI_Init of a spawned job failed");
    }
    if (provided)
        *provided = prov;
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    return do_init(argc, argv, MPI_THREAD_SINGLE, NULL, "MPI_Init");
}
int MPI_Init(int *argc, char ***argv) API_ALIAS(MPI_Init);

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        required = MPI_THREAD_SINGLE;
    return do_init(argc, argv, required, provided, "MPI_Init_thread");
}
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
    API_ALIAS(MPI_Init_thread);

int PMPI_Initialized(int *flag)
{
    *flag = api_initialized;
    return MPI_SUCCESS;
}
int MPI_Initialized(int *flag) API_ALIAS(MPI_Initialized);

int PMPI_Finalized(int *flag)
{
    *flag = api_finalized;
    return MPI_SUCCESS;
}
int MPI_Finalized(int *flag) API_ALIAS(MPI_Finalized);

int PMPI_Query_thread(int *provided)
{
    API_CHECK(api_check_init("MPI_Query_thread"));
    *provided = core_rt->thread_level;
    return MPI_SUCCESS;
}
int MPI_Query_thread(int *provided) API_ALIAS(MPI_Query_thread);

int PMPI_Is_thread_main(int *flag)
{
    API_CHECK(api_check_init("MPI_Is_thread_main"));
    *flag = pthread_equal(pthread_self(), main_thread) != 0;
    return MPI_SUCCESS;
}
int MPI_Is_thread_main(int *flag) API_ALIAS(MPI_Is_thread_main);

int PMPI_Finalize(void)
{
    API_CHECK(api_check_init("MPI_Finalize"));
    /* MPI: MPI_COMM_SELF's attributes are deleted first, while everything still works
     * (libraries hook their own clean-up there); then MPI_COMM_WORLD's */
    int arc = api_attr_comm_delete_all(MPI_COMM_SELF, "MPI_Finalize");
    if (arc == MPI_SUCCESS)
        arc = api_attr_comm_delete_all(MPI_COMM_WORLD, "MPI_Finalize");
    /* Every window was freed (collectively, so no RMA message is in flight): the RMA
     * state goes before the layers under it; so does MPI-IO's (open files are the
     * program's to close first). */
    rma_state_free(core_rt->rma);
    core_rt->rma = NULL;
    io_fini();
    api_dyn_fini();
    api_user_codes_free(core_rt->api);
    free(core_rt->api);   /* a buffer still attached for bsend stays the program's */
    core_rt->api = NULL;
    int rc = rt_fini();
    api_finalized = 1;
    if (rc)
        return api_error(MPI_COMM_NULL, rc, "MPI_Finalize", "%s", core_strerror(rc));
    return arc;
}
int MPI_Finalize(void) API_ALIAS(MPI_Finalize);

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[128];
    core_runtime_t *rt = core_rt;
    snprintf(msg, sizeof(msg), "MPI_Abort(%s, %d) called by rank %d",
             api_initialized && core_handle_valid(&core_handles.comm, comm) ? core_comm_label(comm)
                                                                            : "?",
             errorcode, rt ? rt->rank : 0);
    fflush(stdout);
    fflush(stderr);
    if (!rt || rt->singleton)
        fprintf(stderr, "rdmpi: %s\n", msg);
    core_boot_abort(rt, errorcode, msg);
}
int MPI_Abort(MPI_Comm comm, int errorcode) API_ALIAS(MPI_Abort);
