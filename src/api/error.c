/*
 * The API's error path: CORE_* codes become MPI error classes here, and the
 * communicator's error handler runs. MPI_ERRORS_ARE_FATAL prints which rank
 * on which host failed in which call and why, then ends the whole job.
 * Also what the argument checks of api.h report when one fails.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "api/api.h"
#include "api/errstring.h"
#include "core/bootstrap.h"
#include "core/datatype.h"
#include "core/log.h"

int api_initialized, api_finalized;

int api_class_of(int code)
{
    switch (code) {
    case CORE_OK: return MPI_SUCCESS;
    case CORE_ENOMEM: return MPI_ERR_NO_MEM;
    case CORE_EINVAL: return MPI_ERR_ARG;
    case CORE_ETRUNC: return MPI_ERR_TRUNCATE;
    case CORE_ERANK: return MPI_ERR_RANK;
    case CORE_ETAG: return MPI_ERR_TAG;
    case CORE_ECOUNT: return MPI_ERR_COUNT;
    case CORE_ETYPE: return MPI_ERR_TYPE;
    case CORE_ECOMM: return MPI_ERR_COMM;
    case CORE_EGROUP: return MPI_ERR_GROUP;
    case CORE_EREQUEST: return MPI_ERR_REQUEST;
    case CORE_EROOT: return MPI_ERR_ROOT;
    case CORE_EOP: return MPI_ERR_OP;
    case CORE_EBUFFER: return MPI_ERR_BUFFER;
    case CORE_EINFO: return MPI_ERR_INFO;
    case CORE_EINFO_KEY: return MPI_ERR_INFO_KEY;
    case CORE_EINFO_VALUE: return MPI_ERR_INFO_VALUE;
    case CORE_EINFO_NOKEY: return MPI_ERR_INFO_NOKEY;
    case CORE_EUNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case CORE_EPEER: return MPI_ERR_OTHER;
    case CORE_EINSTATUS: return MPI_ERR_IN_STATUS;
    case CORE_EPENDING: return MPI_ERR_PENDING;
    case CORE_EERRHANDLER: return MPI_ERR_ERRHANDLER;
    case CORE_EDIMS: return MPI_ERR_DIMS;
    case CORE_ETOPOLOGY: return MPI_ERR_TOPOLOGY;
    case CORE_EINTERN: return MPI_ERR_INTERN;
    case CORE_EKEYVAL: return MPI_ERR_KEYVAL;
    case CORE_ERMA_SYNC: return MPI_ERR_RMA_SYNC;
    case CORE_ERMA_RANGE: return MPI_ERR_RMA_RANGE;
    case CORE_ERMA_CONFLICT: return MPI_ERR_RMA_CONFLICT;
    case CORE_EWIN: return MPI_ERR_WIN;
    case CORE_ELOCKTYPE: return MPI_ERR_LOCKTYPE;
    case CORE_ERMA_SHARED: return MPI_ERR_RMA_SHARED;
    case CORE_ERMA_FLAVOR: return MPI_ERR_RMA_FLAVOR;
    case CORE_ERMA_ATTACH: return MPI_ERR_RMA_ATTACH;
    case CORE_EASSERT: return MPI_ERR_ASSERT;
    case CORE_EDISP: return MPI_ERR_DISP;
    case CORE_ESIZE: return MPI_ERR_SIZE;
    case CORE_ENOFILE: return MPI_ERR_NO_SUCH_FILE;
    case CORE_EACCESS: return MPI_ERR_ACCESS;
    case CORE_EEXIST: return MPI_ERR_FILE_EXISTS;
    case CORE_ENOSPACE: return MPI_ERR_NO_SPACE;
    case CORE_EQUOTA: return MPI_ERR_QUOTA;
    case CORE_EROFS: return MPI_ERR_READ_ONLY;
    case CORE_EAMODE: return MPI_ERR_AMODE;
    case CORE_EBADFILE: return MPI_ERR_BAD_FILE;
    case CORE_EFILE: return MPI_ERR_FILE;
    case CORE_EDATAREP: return MPI_ERR_UNSUPPORTED_DATAREP;
    case CORE_EDUPDATAREP: return MPI_ERR_DUP_DATAREP;
    case CORE_EFILEINUSE: return MPI_ERR_FILE_IN_USE;
    case CORE_ENOTSAME: return MPI_ERR_NOT_SAME;
    case CORE_EFILEIO: return MPI_ERR_IO;
    case CORE_ESPAWN: return MPI_ERR_SPAWN;
    case CORE_EPORT: return MPI_ERR_PORT;
    case CORE_ESERVICE: return MPI_ERR_SERVICE;
    case CORE_ENAME: return MPI_ERR_NAME;
    default: return MPI_ERR_OTHER;
    }
}

/* Runs comm's error handler for MPI error code cls; returns cls if it returns. */
static int raise_error_held(MPI_Comm comm, int cls, const char *fn, const char *msg)
{
    MPI_Comm target = comm != MPI_COMM_NULL ? comm : MPI_COMM_WORLD;
    MPI_Errhandler eh = MPI_ERRORS_ARE_FATAL;
    if (api_initialized && !api_finalized && target->errh)
        eh = target->errh;
    if (eh->kind == CORE_ERRH_RETURN)
        return cls;
    if (eh->kind == CORE_ERRH_USER && eh->call) {
        eh->call((void (*)(void))eh->fn, CORE_ERRH_COMM, &target, &cls);
        return cls;
    }
    if (eh->kind == CORE_ERRH_USER) {
        eh->fn(&target, &cls, fn, msg);
        return cls;
    }
    core_runtime_t *rt = core_rt;
    char line[1024];
    int ucls = api_user_code_class(cls);
    snprintf(line, sizeof(line), "rdmpi: rank %d on %s: %s: %s [%s]; aborting the job",
             rt ? rt->rank : 0, rt ? rt->hostname : "?", fn, msg,
             api_class_name(ucls >= 0 ? ucls : cls));
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    core_boot_abort(rt, cls ? cls : 1, line);
}

/* An entry point that runs outside G (API_ENTER_P2P) calls the error handler inside it, as
 * every other call does: handlers are user code that may call MPI and expect G's order. */
static int raise_error(MPI_Comm comm, int cls, const char *fn, const char *msg)
{
    core_runtime_t *rt = core_rt;
    int enter = rt && rt->cs.on && !core_cs_held();
    if (enter)
        core_cs_enter(&rt->cs);
    int rc = raise_error_held(comm, cls, fn, msg);
    if (enter)
        core_cs_exit(&rt->cs);
    return rc;
}

int api_error(MPI_Comm comm, int code, const char *fn, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return raise_error(comm, api_class_of(code), fn, msg);
}

int api_raise(MPI_Comm comm, int cls, const char *fn, const char *msg)
{
    return raise_error(comm, cls, fn, msg);
}

int api_bad_init(const char *fn)
{
    fprintf(stderr, "rdmpi: %s called %s MPI_Init; aborting\n", fn,
            api_finalized ? "after MPI_Finalize, outside" : "before");
    fflush(stderr);
    core_boot_abort(core_rt, MPI_ERR_OTHER, "MPI call outside MPI_Init/MPI_Finalize");
}

/* What is wrong with handle p of a kind (named what, whose null handle is
 * null_name) that failed its pool's check. Does not read *p. */
static const char *bad_handle(core_handle_pool_t *pool, const void *p, const char *what,
                              const char *null_name, char *buf, size_t n)
{
    if (!p)
        snprintf(buf, n, "the %s is %s", what, null_name);
    else if (core_handle_state(pool, p) == CORE_HANDLE_DEAD)
        snprintf(buf, n, "the %s %p was freed", what, p);
    else
        snprintf(buf, n, "%p is not a %s handle", p, what);
    return buf;
}

int api_bad_comm(MPI_Comm comm, const char *fn)
{
    char b[96];
    return api_error(MPI_COMM_NULL, CORE_ECOMM, fn, "%s",
                     bad_handle(&core_handles.comm, comm, "communicator", "MPI_COMM_NULL", b,
                                sizeof(b)));
}

int api_bad_count(MPI_Comm comm, int count, const char *fn)
{
    return api_error(comm, CORE_ECOUNT, fn, "negative count %d", count);
}

int api_bad_dt(MPI_Comm comm, MPI_Datatype dt, const char *fn)
{
    char b[96];
    if (dt == MPI_LB || dt == MPI_UB)   /* no handles (src/api/mpi1.c) */
        return api_error(comm, CORE_ETYPE, fn, "%s is MPI-1's bound marker, only an entry of "
                         "MPI_Type_struct", dt == MPI_LB ? "MPI_LB" : "MPI_UB");
    return api_error(comm, CORE_ETYPE, fn, "%s",
                     bad_handle(&core_handles.dt, dt, "datatype", "MPI_DATATYPE_NULL", b,
                                sizeof(b)));
}

int api_bad_type(MPI_Comm comm, MPI_Datatype dt, const char *fn)
{
    if (!core_handle_valid(&core_handles.dt, dt))
        return api_bad_dt(comm, dt, fn);
    return api_error(comm, CORE_ETYPE, fn, "datatype %s is not committed (MPI_Type_commit)",
                     dt->name[0] ? dt->name : "(derived)");
}

int api_bad_group(MPI_Group g, const char *fn)
{
    char b[96];
    return api_error(MPI_COMM_NULL, CORE_EGROUP, fn, "%s",
                     bad_handle(&core_handles.group, g, "group", "MPI_GROUP_NULL", b, sizeof(b)));
}

int api_bad_op(MPI_Comm comm, MPI_Op op, const char *fn)
{
    char b[96];
    return api_error(comm, CORE_EOP, fn, "%s",
                     bad_handle(&core_handles.op, op, "operation", "MPI_OP_NULL", b, sizeof(b)));
}

int api_bad_info(MPI_Comm comm, MPI_Info info, const char *fn)
{
    char b[96];
    return api_error(comm, CORE_EINFO, fn, "%s",
                     bad_handle(&core_handles.info, info, "info object", "MPI_INFO_NULL", b,
                                sizeof(b)));
}

int api_bad_errh(MPI_Comm comm, MPI_Errhandler e, const char *fn)
{
    char b[96];
    return api_error(comm, CORE_EERRHANDLER, fn, "%s",
                     bad_handle(&core_handles.errh, e, "error handler", "MPI_ERRHANDLER_NULL", b,
                                sizeof(b)));
}

int api_bad_req(MPI_Comm comm, MPI_Request r, const char *fn)
{
    if (r == MPI_REQUEST_NULL)
        return api_error(comm, CORE_EREQUEST, fn, "the request is MPI_REQUEST_NULL");
    if (core_handle_in_slabs(&core_handles.req, (uintptr_t)r))   /* a slot of the request memory */
        return api_error(comm, CORE_EREQUEST, fn, "the request %p was freed or completed", r);
    return api_error(comm, CORE_EREQUEST, fn, "%p is not a request handle", r);
}

int api_bad_ptr(MPI_Comm comm, const char *what, const char *fn)
{
    return api_error(comm, CORE_EINVAL, fn, "%s is NULL", what);
}

int api_bad_buf(MPI_Comm comm, int count, const char *fn)
{
    return api_error(comm, CORE_EBUFFER, fn, "NULL buffer for %d elements", count);
}

int api_bad_rank(MPI_Comm comm, int rank, const char *fn)
{
    return api_error(comm, CORE_ERANK, fn, "rank %d is out of range: %s has %d rank%s", rank,
                     core_comm_label(comm), comm->size, comm->size == 1 ? "" : "s");
}

int api_bad_tag(MPI_Comm comm, int tag, const char *fn)
{
    return api_error(comm, CORE_ETAG, fn, "invalid tag %d (tags are 0..%d)", tag, API_TAG_UB);
}
