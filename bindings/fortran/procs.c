/*
 * The Fortran forms of the calls that take procedures other than attribute callbacks
 * (hand-written; gen.py writes their interfaces): reduction functions (MPI_OP_CREATE), error
 * handlers (MPI_COMM/WIN/FILE_CREATE_ERRHANDLER), generalized requests (MPI_GREQUEST_START),
 * data representations (MPI_REGISTER_DATAREP, MPI_CONVERSION_FN_NULL) and MPI_PCONTROL.
 *
 * A Fortran procedure takes its handles as INTEGERs (TYPE(MPI_X) in mpi_f08 has the same
 * layout), LOGICALs and everything else by reference. Reduction functions and error handlers
 * receive no extra_state in C, so their objects carry a pointer to a caller (core_op_set_call,
 * core_errhandler_set_call) that the C side calls instead of the function itself: the caller
 * converts the handles and calls the Fortran procedure. Generalized requests and data
 * representations do get an extra_state: it is a record of the Fortran procedures and the
 * Fortran extra_state, as for keyvals (callbacks.c).
 */
#include <stdint.h>
#include "api/api.h"
#include "core/op.h"
#include "bindings/fortran/glue.h"

typedef void fg_user_fn(void *in, void *inout, MPI_Fint *len, MPI_Fint *dt);
typedef void fg_errh_fn(MPI_Fint *obj, MPI_Fint *code);

/* ---- reduction functions ---------------------------------------------------------------- */
static void op_call(MPI_User_function *fn, void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Fint flen = *len, fdt = fh_Type_c2f(*dt);
    ((fg_user_fn *)(void (*)(void))fn)(in, inout, &flen, &fdt);
}

static void op_create(int prof, fg_user_fn *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    MPI_Op c = MPI_OP_NULL;
    MPI_User_function *cfn = (MPI_User_function *)(void (*)(void))fn;
    int rc = prof ? PMPI_Op_create(cfn, *commute != FG_FALSE, &c)
                  : MPI_Op_create(cfn, *commute != FG_FALSE, &c);
    if (rc == MPI_SUCCESS) {
        core_op_set_call(c, op_call);
        *op = fh_Op_c2f(c);
    }
    if (ierr)
        *ierr = rc;
}

FG_API void mpi_op_create_(fg_user_fn *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    op_create(0, fn, commute, op, ierr);
}

FG_API void pmpi_op_create_(fg_user_fn *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    op_create(1, fn, commute, op, ierr);
}

/* ---- error handlers --------------------------------------------------------------------- */
static void errh_call(void (*fn)(void), int obj_kind, void *obj, int *code)
{
    MPI_Fint h, c = *code;
    if (obj_kind == CORE_ERRH_WIN)
        h = fh_Win_c2f(*(MPI_Win *)obj);
    else if (obj_kind == CORE_ERRH_FILE)
        h = fh_File_c2f(*(MPI_File *)obj);
    else
        h = fh_Comm_c2f(*(MPI_Comm *)obj);
    ((fg_errh_fn *)fn)(&h, &c);
}

enum { EH_COMM, EH_WIN, EH_FILE };

static void errh_create(int prof, int kind, fg_errh_fn *fn, MPI_Fint *eh, MPI_Fint *ierr)
{
    MPI_Errhandler c = MPI_ERRHANDLER_NULL;
    void (*g)(void) = (void (*)(void))fn;
    int rc;
    if (kind == EH_WIN)
        rc = prof ? PMPI_Win_create_errhandler((MPI_Win_errhandler_function *)g, &c)
                  : MPI_Win_create_errhandler((MPI_Win_errhandler_function *)g, &c);
    else if (kind == EH_FILE)
        rc = prof ? PMPI_File_create_errhandler((MPI_File_errhandler_function *)g, &c)
                  : MPI_File_create_errhandler((MPI_File_errhandler_function *)g, &c);
    else
        rc = prof ? PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)g, &c)
                  : MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)g, &c);
    if (rc == MPI_SUCCESS) {
        core_errhandler_set_call(c, errh_call);
        *eh = fh_Errhandler_c2f(c);
    }
    if (ierr)
        *ierr = rc;
}

#define FG_ERRH(name, prof, kind)                                                          \
    FG_API void name(fg_errh_fn *fn, MPI_Fint *eh, MPI_Fint *ierr)                         \
    {                                                                                      \
        errh_create(prof, kind, fn, eh, ierr);                                             \
    }
FG_ERRH(mpi_comm_create_errhandler_, 0, EH_COMM)
FG_ERRH(pmpi_comm_create_errhandler_, 1, EH_COMM)
FG_ERRH(mpi_win_create_errhandler_, 0, EH_WIN)
FG_ERRH(pmpi_win_create_errhandler_, 1, EH_WIN)
FG_ERRH(mpi_file_create_errhandler_, 0, EH_FILE)
FG_ERRH(pmpi_file_create_errhandler_, 1, EH_FILE)
/* MPI-1's name of MPI_COMM_CREATE_ERRHANDLER (mpif.h and `mpi` only). */
FG_ERRH(mpi_errhandler_create_, 0, EH_COMM)
FG_ERRH(pmpi_errhandler_create_, 1, EH_COMM)

/* ---- generalized requests --------------------------------------------------------------- */
typedef void fg_query_fn(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierr);
typedef void fg_free_fn(MPI_Aint *extra, MPI_Fint *ierr);
typedef void fg_cancel_fn(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierr);

/* extra is the address of the caller's EXTRA_STATE variable, as Open MPI and MPICH have it
 * (programs rely on free_fn's changes to it being seen by the caller). */
typedef struct fg_greq {
    fg_query_fn *query;
    fg_free_fn *free;
    fg_cancel_fn *cancel;
    MPI_Aint *extra;
} fg_greq_t;

static int greq_query(void *extra, MPI_Status *st)
{
    fg_greq_t *g = extra;
    MPI_Fint fst[FH_STATUS_SIZE], ierr = MPI_SUCCESS;
    memcpy(fst, st, sizeof(*st));
    g->query(g->extra, fst, &ierr);
    memcpy(st, fst, sizeof(*st));
    return ierr;
}

/* The request runs free_fn exactly once (grequest.c): the record goes with it. */
static int greq_free(void *extra)
{
    fg_greq_t *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(g->extra, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel(void *extra, int complete)
{
    fg_greq_t *g = extra;
    MPI_Fint c = complete ? FG_TRUE : FG_FALSE, ierr = MPI_SUCCESS;
    g->cancel(g->extra, &c, &ierr);
    return ierr;
}

static void greq_start(int prof, fg_query_fn *q, fg_free_fn *f, fg_cancel_fn *c,
                       MPI_Aint *extra, MPI_Fint *req, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    fg_greq_t *g = malloc(sizeof(*g));
    int rc = MPI_ERR_NO_MEM;
    if (g) {
        *g = (fg_greq_t){ q, f, c, extra };
        rc = prof ? PMPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &r)
                  : MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &r);
        if (rc == MPI_SUCCESS)
            *req = fh_Request_c2f(r);
        else
            free(g);
    }
    if (ierr)
        *ierr = rc;
}

FG_API void mpi_grequest_start_(fg_query_fn *q, fg_free_fn *f, fg_cancel_fn *c, MPI_Aint *extra,
                                MPI_Fint *req, MPI_Fint *ierr)
{
    greq_start(0, q, f, c, extra, req, ierr);
}

FG_API void pmpi_grequest_start_(fg_query_fn *q, fg_free_fn *f, fg_cancel_fn *c,
                                 MPI_Aint *extra, MPI_Fint *req, MPI_Fint *ierr)
{
    greq_start(1, q, f, c, extra, req, ierr);
}

/* ---- data representations --------------------------------------------------------------- */
typedef void fg_conv_fn(void *userbuf, MPI_Fint *dt, MPI_Fint *count, void *filebuf,
                        MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr);
typedef void fg_extent_fn(MPI_Fint *dt, MPI_Aint *extent, MPI_Aint *extra, MPI_Fint *ierr);

/* MPI_CONVERSION_FN_NULL: never called (the glue below passes C's NULL for it). */
FG_API void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *dt, MPI_Fint *count, void *filebuf,
                                    MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr)
{
    (void)userbuf, (void)dt, (void)count, (void)filebuf, (void)position, (void)extra;
    *ierr = MPI_ERR_UNSUPPORTED_DATAREP;
}

/* Lives as long as the data representation, which is never unregistered. */
typedef struct fg_datarep {
    fg_conv_fn *rd, *wr;
    fg_extent_fn *ext;
    MPI_Aint extra;
} fg_datarep_t;

static int conv_call(fg_conv_fn *fn, void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                     MPI_Offset position, fg_datarep_t *d)
{
    MPI_Fint fdt = fh_Type_c2f(dt), fcount = count, ierr = MPI_SUCCESS;
    fn(userbuf, &fdt, &fcount, filebuf, &position, &d->extra, &ierr);
    return ierr;
}

static int rep_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                    MPI_Offset position, void *extra)
{
    fg_datarep_t *d = extra;
    return conv_call(d->rd, userbuf, dt, count, filebuf, position, d);
}

static int rep_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                     MPI_Offset position, void *extra)
{
    fg_datarep_t *d = extra;
    return conv_call(d->wr, userbuf, dt, count, filebuf, position, d);
}

static int rep_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    fg_datarep_t *d = extra;
    MPI_Fint fdt = fh_Type_c2f(dt), ierr = MPI_SUCCESS;
    d->ext(&fdt, extent, &d->extra, &ierr);
    return ierr;
}

static void register_datarep(int prof, char *name, fg_conv_fn *rd, fg_conv_fn *wr,
                             fg_extent_fn *ext, MPI_Aint *extra, MPI_Fint *ierr, size_t len)
{
    fg_datarep_t *d = malloc(sizeof(*d));
    char *cname = fg_str_in(name, len);
    int rc = MPI_ERR_NO_MEM;
    if (d && cname) {
        *d = (fg_datarep_t){ rd, wr, ext, *extra };
        MPI_Datarep_conversion_function *crd = rd == mpi_conversion_fn_null_ ? NULL : rep_read;
        MPI_Datarep_conversion_function *cwr = wr == mpi_conversion_fn_null_ ? NULL : rep_write;
        rc = prof ? PMPI_Register_datarep(cname, crd, cwr, rep_extent, d)
                  : MPI_Register_datarep(cname, crd, cwr, rep_extent, d);
    }
    if (rc != MPI_SUCCESS)
        free(d);
    free(cname);
    if (ierr)
        *ierr = rc;
}

FG_API void mpi_register_datarep_(char *name, fg_conv_fn *rd, fg_conv_fn *wr, fg_extent_fn *ext,
                                  MPI_Aint *extra, MPI_Fint *ierr, size_t len)
{
    register_datarep(0, name, rd, wr, ext, extra, ierr, len);
}

FG_API void pmpi_register_datarep_(char *name, fg_conv_fn *rd, fg_conv_fn *wr,
                                   fg_extent_fn *ext, MPI_Aint *extra, MPI_Fint *ierr, size_t len)
{
    register_datarep(1, name, rd, wr, ext, extra, ierr, len);
}

/* ---- MPI_PCONTROL(LEVEL): no IERROR in Fortran ------------------------------------------ */
FG_API void mpi_pcontrol_(MPI_Fint *level)
{
    MPI_Pcontrol((int)*level);
}

FG_API void pmpi_pcontrol_(MPI_Fint *level)
{
    PMPI_Pcontrol((int)*level);
}

/* mpi_f08's specifics X_f08 (gen.py's f08_specific) */
FG_F08_ALIAS(mpi_op_create_, mpi_op_create_f08_)
FG_F08_ALIAS(pmpi_op_create_, pmpi_op_create_f08_)
FG_F08_ALIAS(mpi_grequest_start_, mpi_grequest_start_f08_)
FG_F08_ALIAS(pmpi_grequest_start_, pmpi_grequest_start_f08_)
FG_F08_ALIAS(mpi_register_datarep_, mpi_register_datarep_f08_)
FG_F08_ALIAS(pmpi_register_datarep_, pmpi_register_datarep_f08_)
FG_F08_ALIAS(mpi_pcontrol_, mpi_pcontrol_f08_)
FG_F08_ALIAS(pmpi_pcontrol_, pmpi_pcontrol_f08_)
FG_F08_ALIAS(mpi_comm_create_errhandler_, mpi_comm_create_errhandler_f08_)
FG_F08_ALIAS(pmpi_comm_create_errhandler_, pmpi_comm_create_errhandler_f08_)
FG_F08_ALIAS(mpi_win_create_errhandler_, mpi_win_create_errhandler_f08_)
FG_F08_ALIAS(pmpi_win_create_errhandler_, pmpi_win_create_errhandler_f08_)
FG_F08_ALIAS(mpi_file_create_errhandler_, mpi_file_create_errhandler_f08_)
FG_F08_ALIAS(pmpi_file_create_errhandler_, pmpi_file_create_errhandler_f08_)
