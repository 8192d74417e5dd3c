/*
 * MPI_T under MPI_THREAD_MULTIPLE: MPI_T_init_thread grants MULTIPLE, and 8 threads at once
 * call the tools interface (nested init/finalize, control variables' info, handles and reads,
 * performance variable sessions and handles, categories) before MPI_Init, while the library
 * runs with MULTIPLE, and after MPI_Finalize. Each thread compares what it reads with what
 * the main thread read alone. (MPICH's threads/mpi_t/mpit_threading found that rdmpi granted
 * SERIALIZED at most, and its MPI_T state had no lock of its own outside MPI_Init/Finalize.)
 */
#include <pthread.h>
#include "mt.h"

#define NTHREADS 8
#define ROUNDS 30

typedef struct expect {
    int ncvar, npvar, ncat;
    char name0[256];   /* control variable 0's name */
    int count0;        /* its count with a handle */
    int errors;        /* differences the threads saw (atomic) */
} expect_t;

static void read_expect(expect_t *e)
{
    int len = sizeof(e->name0), verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum en;
    MPI_T_cvar_handle h;
    CHECK(MPI_T_cvar_get_num(&e->ncvar) == MPI_SUCCESS, "MPI_T_cvar_get_num failed");
    CHECK(MPI_T_pvar_get_num(&e->npvar) == MPI_SUCCESS, "MPI_T_pvar_get_num failed");
    CHECK(MPI_T_category_get_num(&e->ncat) == MPI_SUCCESS, "MPI_T_category_get_num failed");
    CHECK(e->ncvar > 0, "no control variables");
    CHECK(MPI_T_cvar_get_info(0, e->name0, &len, &verb, &dt, &en, NULL, NULL, &bind, &scope) ==
              MPI_SUCCESS, "MPI_T_cvar_get_info(0) failed");
    CHECK(MPI_T_cvar_handle_alloc(0, NULL, &h, &e->count0) == MPI_SUCCESS,
          "MPI_T_cvar_handle_alloc(0) failed");
    CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS, "MPI_T_cvar_handle_free failed");
}

static void miss(expect_t *e, const char *what, int id)
{
    fprintf(stderr, "rank %d: thread_mpit: thread %d: %s\n", t_rank, id, what);
    __atomic_add_fetch(&e->errors, 1, __ATOMIC_RELAXED);
}

static void *worker(void *p)
{
    mt_arg_t *a = p;
    expect_t *e = a->shared;
    for (int r = 0; r < ROUNDS; r++) {
        int provided = -1, n = -1;
        /* nested: counted, the state stays */
        if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS ||
            provided != MPI_THREAD_MULTIPLE)
            miss(e, "nested MPI_T_init_thread did not grant MULTIPLE", a->id);
        if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS || n != e->ncvar)
            miss(e, "cvar count differs", a->id);
        if (MPI_T_pvar_get_num(&n) != MPI_SUCCESS || n != e->npvar)
            miss(e, "pvar count differs", a->id);
        if (MPI_T_category_get_num(&n) != MPI_SUCCESS || n != e->ncat)
            miss(e, "category count differs", a->id);
        for (int i = 0; i < e->ncvar; i++) {
            char name[256];
            int len = sizeof(name), verb, bind, scope, count;
            MPI_Datatype dt;
            MPI_T_enum en;
            MPI_T_cvar_handle h;
            if (MPI_T_cvar_get_info(i, name, &len, &verb, &dt, &en, NULL, NULL, &bind,
                                    &scope) != MPI_SUCCESS) {
                miss(e, "MPI_T_cvar_get_info failed", a->id);
                continue;
            }
            if (i == 0 && strcmp(name, e->name0) != 0)
                miss(e, "cvar 0's name differs", a->id);
            if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS) {
                miss(e, "MPI_T_cvar_handle_alloc failed", a->id);
                continue;
            }
            if (i == 0 && count != e->count0)
                miss(e, "cvar 0's count differs", a->id);
            if (dt == MPI_INT && count == 1) {
                int v;
                if (MPI_T_cvar_read(h, &v) != MPI_SUCCESS)
                    miss(e, "MPI_T_cvar_read failed", a->id);
            }
            if (MPI_T_cvar_handle_free(&h) != MPI_SUCCESS || h != MPI_T_CVAR_HANDLE_NULL)
                miss(e, "MPI_T_cvar_handle_free failed", a->id);
        }
        MPI_T_pvar_session s;
        if (MPI_T_pvar_session_create(&s) != MPI_SUCCESS) {
            miss(e, "MPI_T_pvar_session_create failed", a->id);
        } else {
            for (int i = 0; i < e->npvar; i++) {
                MPI_T_pvar_handle h;
                int count;
                if (MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count) != MPI_SUCCESS)
                    miss(e, "MPI_T_pvar_handle_alloc failed", a->id);
                else if (MPI_T_pvar_handle_free(s, &h) != MPI_SUCCESS)
                    miss(e, "MPI_T_pvar_handle_free failed", a->id);
            }
            if (MPI_T_pvar_session_free(&s) != MPI_SUCCESS)
                miss(e, "MPI_T_pvar_session_free failed", a->id);
        }
        for (int c = 0; c < e->ncat; c++) {
            char name[256];
            int len = sizeof(name), nc, np, nsub;
            if (MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &nsub) !=
                MPI_SUCCESS)
                miss(e, "MPI_T_category_get_info failed", a->id);
        }
        if (MPI_T_finalize() != MPI_SUCCESS)
            miss(e, "nested MPI_T_finalize failed", a->id);
    }
    return NULL;
}

static void phase(const char *name)
{
    expect_t e;
    memset(&e, 0, sizeof(e));
    t_name = name;
    read_expect(&e);
    mt_run(NTHREADS, worker, &e);
    CHECK(e.errors == 0, "%d differences or failures in the threads", e.errors);
    expect_t after;
    memset(&after, 0, sizeof(after));
    read_expect(&after);
    CHECK(after.ncvar == e.ncvar && after.npvar == e.npvar && after.ncat == e.ncat,
          "the counts changed after the threads ran");
}

int main(int argc, char **argv)
{
    int provided = -1;
    CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS,
          "MPI_T_init_thread failed");
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_T_init_thread provided %d, not MULTIPLE",
          provided);
    phase("before MPI_Init");
    mt_init(&argc, &argv);
    phase("running");
    t_sync();
    MPI_Comm_free(&t_sync_comm);
    MPI_Finalize();
    phase("after MPI_Finalize");
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "MPI_T_finalize failed");
    return 0;
}
