/*
 * Conventions of the MPI entry points (src/api). Each MPI_X is defined as
 * PMPI_X, with MPI_X a weak alias, so tools can interpose. An entry point
 * checks its arguments, makes one call down, and turns a CORE_* code into an
 * MPI error class through api_error, which also runs the communicator's
 * error handler (MPI_ERRORS_ARE_FATAL: message with rank, host, call and
 * reason, then the whole job ends).
 */
#ifndef RDMPI_API_H
#define RDMPI_API_H

#include "mpi.h"
#include "core/errors.h"
#include "core/runtime.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/handle.h"
#include "core/request.h"
#include "rt/rt.h"

/* Makes MPI_name a weak alias of PMPI_name; use once per function, after its definition. */
#define API_ALIAS(name) __attribute__((weak, alias("P" #name)))

/* The entry points' own state, hung off the base instance (core_rt->api, opaque there):
 * made by MPI_Init, freed by MPI_Finalize. */
typedef struct api_state {
    /* bsend.c: the attached buffer and its blocks in use, in offset order. */
    char *bbuf;
    size_t bsize;
    struct bsend_block *blocks;
    /* errstring.c: user_codes[i] describes MPI_ERR_LASTCODE + 1 + i. */
    struct api_user_code *user_codes;
    int nuser, capuser;
} api_state_t;
/* Frees the added error codes' strings (MPI_Finalize; errstring.c). */
void api_user_codes_free(api_state_t *st);

/* MPI_THREAD_MULTIPLE (core/thread.h): the first line of every entry point but the
 * environment calls that must work without the runtime (MPI_Init*, MPI_Finalize,
 * MPI_Abort, MPI_Initialized, MPI_Wtime ...). Enters the critical section when MULTIPLE was
 * granted and leaves it on every return; otherwise costs one load and one branch. */
static inline int api_enter(void)
{
    core_runtime_t *rt = core_rt;
    if (__builtin_expect(!rt || !rt->cs.on, 1))
        return 0;
    core_cs_enter(&rt->cs);
    return 1;
}
static inline void api_leave(const int *entered)
{
    if (__builtin_expect(*entered, 0))
        core_cs_exit(&core_rt->cs);
}
#define API_ENTER __attribute__((cleanup(api_leave))) const int api_entered_ = api_enter()
/* The entry of the point-to-point calls that run outside G (ARCHITECTURE.md, "Threads", the
 * lock split: MPI_Irecv): nothing is taken here; p2p posts under the context's matching lock
 * and enters G itself for what needs it, and an error handler is called inside G
 * (raise_error). Named so that test/build/entry_guard sees the choice was made. */
#define API_ENTER_P2P ((void)0)

/* An entry point of API_ENTER_P2P called under MULTIPLE from outside G (not from a callback
 * inside the library): it takes G itself for whatever is not the point-to-point common path. */
static inline int api_outside(void)
{
    core_runtime_t *rt = core_rt;
    return rt && core_cs_outside(&rt->cs);
}

/* api_req_plain: a point-to-point request a thread outside G may wait for and then hand out
 * (api_req_done_plain).
 * A request that a thread outside G may hand out and release (MPI_Wait, MPI_Test, MPI_Recv
 * ...): a completed point-to-point one with nothing to run at its release (no binding's hook,
 * no free function, no derived datatype whose last reference it may hold, not persistent,
 * not a file access). Acquire: the completing thread's status and data come before the flag
 * (core_req_complete). */
static inline int api_req_plain(MPI_Request r)
{
    return (r->kind == CORE_REQ_SEND || r->kind == CORE_REQ_RECV) && !r->persistent &&
           !r->hook && !r->free_fn && !r->dt_held && !r->file;
}
static inline int api_req_done_plain(MPI_Request r)
{
    return api_req_plain(r) && __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);
}

/* Gives a request the application has not seen yet a binding's hook (src/api/reqhook.c);
 * an operation already complete gets CORE_REQ_HOOK_DONE at once. MPI_ERR_REQUEST: not a
 * live request, or it has a hook already (the caller keeps arg). */
int api_req_hook(MPI_Request req, core_req_hook_fn fn, void *arg);

/* An array section: rank dimensions of extent[k] elements of elem_len bytes, sm[k] bytes
 * apart (a Fortran descriptor's), the first element first. */
typedef struct api_section {
    size_t elem_len;
    int rank;
    const MPI_Aint *extent, *sm;
} api_section_t;
/* The committed datatype that moves count items of dt from or to the section as if its
 * elements were one contiguous array (src/api/type_section.c), to be used with count 1 at the
 * section's first element; the caller frees it. MPI_ERR_BUFFER: the items do not lie within
 * the section. */
int api_type_section(MPI_Datatype dt, int count, const api_section_t *s, MPI_Datatype *out);

/* 1 between MPI_Init and MPI_Finalize. */
extern int api_initialized, api_finalized;

/*
 * Reports a failure of call `fn` on comm (MPI_COMM_NULL: the error goes to
 * MPI_COMM_WORLD's handler, as MPI says for calls without a communicator).
 * code is a CORE_* code; fmt describes what was wrong. Returns the MPI error
 * class for the caller to return (when the handler returns at all).
 */
int api_error(MPI_Comm comm, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Runs comm's error handler for an MPI error code (MPI_Comm_call_errhandler). */
int api_raise(MPI_Comm comm, int cls, const char *fn, const char *msg);
/* The MPI error class of a CORE_* code. */
int api_class_of(int code);

/* Run a check and return its error class on failure. */
#define API_CHECK(expr)          \
    do {                         \
        int api_rc_ = (expr);    \
        if (api_rc_ != 0)        \
            return api_rc_;      \
    } while (0)

/* Checks shared by many calls; each returns 0 or the result of api_error.
 * The test is inline (always: gcc made api_check_buf a call with a prologue, 30
 * instructions of each 8-byte MPI_Isend and MPI_Irecv) and the report out of line
 * (api_bad_*, error.c): a
 * send or receive of a few bytes is a few hundred instructions in all, and
 * calling five checks cost ~130 of them.
 * A handle is checked against its kind's pool (core/handle.h) before it is
 * dereferenced, so a freed or made-up handle gives its error class, never a
 * read of freed memory or a crash; the reports do not read it either. */
int api_bad_init(const char *fn) __attribute__((cold));
int api_bad_comm(MPI_Comm comm, const char *fn) __attribute__((cold));
int api_bad_count(MPI_Comm comm, int count, const char *fn) __attribute__((cold));
int api_bad_type(MPI_Comm comm, MPI_Datatype dt, const char *fn) __attribute__((cold));
int api_bad_dt(MPI_Comm comm, MPI_Datatype dt, const char *fn) __attribute__((cold));
int api_bad_buf(MPI_Comm comm, int count, const char *fn) __attribute__((cold));
int api_bad_rank(MPI_Comm comm, int rank, const char *fn) __attribute__((cold));
int api_bad_tag(MPI_Comm comm, int tag, const char *fn) __attribute__((cold));
int api_bad_group(MPI_Group g, const char *fn) __attribute__((cold));
int api_bad_op(MPI_Comm comm, MPI_Op op, const char *fn) __attribute__((cold));
int api_bad_info(MPI_Comm comm, MPI_Info info, const char *fn) __attribute__((cold));
int api_bad_errh(MPI_Comm comm, MPI_Errhandler e, const char *fn) __attribute__((cold));
int api_bad_req(MPI_Comm comm, MPI_Request r, const char *fn) __attribute__((cold));
int api_bad_ptr(MPI_Comm comm, const char *what, const char *fn) __attribute__((cold));

CORE_INLINE int api_check_init(const char *fn)
{
    return api_initialized && !api_finalized ? 0 : api_bad_init(fn);
}

CORE_INLINE int api_check_comm(MPI_Comm comm, const char *fn)
{
    return core_handle_valid(&core_handles.comm, comm) ? 0 : api_bad_comm(comm, fn);
}

CORE_INLINE int api_check_count(MPI_Comm comm, int count, const char *fn)
{
    return count >= 0 ? 0 : api_bad_count(comm, count, fn);
}

/* A datatype to communicate with: valid and committed. */
CORE_INLINE int api_check_type(MPI_Comm comm, MPI_Datatype dt, const char *fn)
{
    return core_handle_valid(&core_handles.dt, dt) && (dt->flags & CORE_DT_COMMITTED)
               ? 0
               : api_bad_type(comm, dt, fn);
}

/* A datatype that only has to exist (constructors, queries, commit, free). */
static inline int api_check_dt(MPI_Comm comm, MPI_Datatype dt, const char *fn)
{
    return core_handle_valid(&core_handles.dt, dt) ? 0 : api_bad_dt(comm, dt, fn);
}

static inline int api_check_group(MPI_Group g, const char *fn)
{
    return core_handle_valid(&core_handles.group, g) ? 0 : api_bad_group(g, fn);
}

static inline int api_check_op(MPI_Comm comm, MPI_Op op, const char *fn)
{
    return core_handle_valid(&core_handles.op, op) ? 0 : api_bad_op(comm, op, fn);
}

/* null_ok: MPI_INFO_NULL is allowed (an info argument of a constructor). */
static inline int api_check_info(MPI_Comm comm, MPI_Info info, int null_ok, const char *fn)
{
    return (null_ok && info == MPI_INFO_NULL) || core_handle_valid(&core_handles.info, info)
               ? 0
               : api_bad_info(comm, info, fn);
}

static inline int api_check_errh(MPI_Comm comm, MPI_Errhandler e, const char *fn)
{
    return core_handle_valid(&core_handles.errh, e) ? 0 : api_bad_errh(comm, e, fn);
}

/* A request handle (core_req_valid); null_ok admits MPI_REQUEST_NULL. */
static inline int api_check_req(MPI_Request r, int null_ok, const char *fn)
{
    return core_req_valid(r) || (null_ok && r == MPI_REQUEST_NULL) ? 0
                                                                   : api_bad_req(MPI_COMM_NULL, r, fn);
}

/* A pointer argument that must not be NULL (MPI_ERR_ARG). */
static inline int api_check_ptr(MPI_Comm comm, const void *p, const char *what, const char *fn)
{
    return p ? 0 : api_bad_ptr(comm, what, fn);
}

CORE_INLINE int api_check_buf(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                              const char *fn)
{
    API_CHECK(api_check_count(comm, count, fn));
    API_CHECK(api_check_type(comm, dt, fn));
    if (buf == NULL && count > 0 && dt->size > 0 && dt->true_lb == 0)
        return api_bad_buf(comm, count, fn);
    return 0;
}

/* rank may also be MPI_PROC_NULL; any_ok admits MPI_ANY_SOURCE. On an
 * intercommunicator, ranks are ranks of the remote group. */
CORE_INLINE int api_check_rank(MPI_Comm comm, int rank, int any_ok, const char *fn)
{
    if ((rank >= 0 && rank < core_comm_peer_size(comm)) || rank == MPI_PROC_NULL ||
        (any_ok && rank == MPI_ANY_SOURCE))
        return 0;
    return api_bad_rank(comm, rank, fn);
}

/* tag may be MPI_ANY_TAG when any_ok. */
CORE_INLINE int api_check_tag(MPI_Comm comm, int tag, int any_ok, const char *fn)
{
    return tag >= 0 || (any_ok && tag == MPI_ANY_TAG) ? 0 : api_bad_tag(comm, tag, fn);
}

/* Reports a truncated receive (status holds source and tag; cap is the buffer size). */
int api_recv_error(MPI_Comm comm, const MPI_Status *st, size_t cap, const char *fn);

#define API_TAG_UB 0x7fffffff

#endif
