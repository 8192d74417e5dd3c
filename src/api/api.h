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

/* Makes MPI_name a weak alias of PMPI_name; use once per function, after its definition. */
#define API_ALIAS(name) __attribute__((weak, alias("P" #name)))

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

/* Checks shared by many calls; each returns 0 or the result of api_error. */
int api_check_init(const char *fn);
int api_check_comm(MPI_Comm comm, const char *fn);
int api_check_count(MPI_Comm comm, int count, const char *fn);
int api_check_type(MPI_Comm comm, MPI_Datatype dt, const char *fn);
int api_check_buf(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt, const char *fn);
/* rank may also be MPI_PROC_NULL; any_ok admits MPI_ANY_SOURCE. */
int api_check_rank(MPI_Comm comm, int rank, int any_ok, const char *fn);
/* tag may be MPI_ANY_TAG when any_ok. */
int api_check_tag(MPI_Comm comm, int tag, int any_ok, const char *fn);

/* The point-to-point arguments in one expression, for the common case that
 * all are valid: a send or receive of a few bytes is a few hundred
 * instructions in all, and the separate checks above cost ~130 of them.
 * Callers run the separate checks (which say what is wrong) when this
 * fails. peer may be MPI_PROC_NULL; any_ok admits MPI_ANY_SOURCE/TAG. */
static inline int api_p2p_args_ok(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                                  int peer, int tag, int any_ok)
{
    return api_initialized && !api_finalized && comm != MPI_COMM_NULL && comm->refcount > 0 &&
           comm->group && count >= 0 && dt != MPI_DATATYPE_NULL &&
           (dt->flags & CORE_DT_COMMITTED) &&
           (buf != NULL || count == 0 || dt->size == 0 || dt->true_lb != 0) &&
           ((peer >= 0 && peer < comm->size) || peer == MPI_PROC_NULL ||
            (any_ok && peer == MPI_ANY_SOURCE)) &&
           (tag >= 0 || (any_ok && tag == MPI_ANY_TAG));
}

/* Reports a truncated receive (status holds source and tag; cap is the buffer size). */
int api_recv_error(MPI_Comm comm, const MPI_Status *st, size_t cap, const char *fn);

#define API_TAG_UB 0x7fffffff

/* Run a check and return its error class on failure. */
#define API_CHECK(expr)          \
    do {                         \
        int api_rc_ = (expr);    \
        if (api_rc_ != 0)        \
            return api_rc_;      \
    } while (0)

#endif
