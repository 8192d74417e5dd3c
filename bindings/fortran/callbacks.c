/*
 * The Fortran forms of the calls that take procedures (hand-written; gen.py writes their
 * interfaces): attribute keyvals with Fortran copy and delete procedures, and the predefined
 * attribute callbacks as Fortran procedures.
 *
 * A Fortran procedure cannot be given to C as it is: it takes its handles as INTEGERs, its
 * values as address-sized integers and its flag as a LOGICAL, all by reference. The keyval is
 * created with C trampolines instead, and its extra_state is a small record of the Fortran
 * procedures and the Fortran extra_state, so no table is needed. The record lives as long as
 * the library (a freed keyval's attributes may still be copied or deleted until the last goes).
 * The other procedure arguments (reductions, error handlers, ...) are in procs.c.
 */
#include <stdint.h>
#include "bindings/fortran/glue.h"

typedef void fg_copy_fn(MPI_Fint *old, MPI_Fint *keyval, void *extra, void *in, void *out,
                        MPI_Fint *flag, MPI_Fint *ierr);
typedef void fg_delete_fn(MPI_Fint *obj, MPI_Fint *keyval, void *val, void *extra,
                          MPI_Fint *ierr);

typedef struct fg_keyval {
    fg_copy_fn *copy;
    fg_delete_fn *del;
    MPI_Aint extra;
    int mpi1;   /* MPI_KEYVAL_CREATE's procedures: INTEGER values, not address-sized */
} fg_keyval_t;

/* Calls a Fortran copy procedure for an object whose Fortran handle is fobj. */
static int copy_call(MPI_Fint fobj, int keyval, void *extra, void *in, void *out, int *flag)
{
    fg_keyval_t *k = extra;
    MPI_Fint fkv = keyval, fflag = FG_FALSE, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint e = (MPI_Fint)k->extra, vin = (MPI_Fint)(intptr_t)in, vout = 0;
        k->copy(&fobj, &fkv, &e, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)(intptr_t)vout;
    } else {
        MPI_Aint vin = (MPI_Aint)(intptr_t)in, vout = 0;
        k->copy(&fobj, &fkv, &k->extra, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)(intptr_t)vout;
    }
    *flag = fflag != FG_FALSE;
    return ierr;
}

static int delete_call(MPI_Fint fobj, int keyval, void *val, void *extra)
{
    fg_keyval_t *k = extra;
    MPI_Fint fkv = keyval, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint e = (MPI_Fint)k->extra, v = (MPI_Fint)(intptr_t)val;
        k->del(&fobj, &fkv, &v, &e, &ierr);
    } else {
        MPI_Aint v = (MPI_Aint)(intptr_t)val;
        k->del(&fobj, &fkv, &v, &k->extra, &ierr);
    }
    return ierr;
}

static int comm_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    return copy_call(fh_Comm_c2f(old), keyval, extra, in, out, flag);
}

static int comm_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    return delete_call(fh_Comm_c2f(comm), keyval, val, extra);
}

static int type_copy(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    return copy_call(fh_Type_c2f(old), keyval, extra, in, out, flag);
}

static int type_delete(MPI_Datatype t, int keyval, void *val, void *extra)
{
    return delete_call(fh_Type_c2f(t), keyval, val, extra);
}

static int win_copy(MPI_Win old, int keyval, void *extra, void *in, void *out, int *flag)
{
    return copy_call(fh_Win_c2f(old), keyval, extra, in, out, flag);
}

static int win_delete(MPI_Win w, int keyval, void *val, void *extra)
{
    return delete_call(fh_Win_c2f(w), keyval, val, extra);
}

static fg_keyval_t *new_keyval(fg_copy_fn *copy, fg_delete_fn *del, MPI_Aint extra, int mpi1)
{
    fg_keyval_t *k = malloc(sizeof(*k));
    if (k)
        *k = (fg_keyval_t){ copy, del, extra, mpi1 };
    return k;
}

static void comm_keyval(int prof, int mpi1, fg_copy_fn *copy, fg_delete_fn *del,
                        MPI_Fint *keyval, MPI_Aint extra, MPI_Fint *ierr)
{
    fg_keyval_t *k = new_keyval(copy, del, extra, mpi1);
    int rc = !k ? MPI_ERR_NO_MEM
             : prof ? PMPI_Comm_create_keyval(comm_copy, comm_delete, (int *)keyval, k)
                    : MPI_Comm_create_keyval(comm_copy, comm_delete, (int *)keyval, k);
    if (rc != MPI_SUCCESS)
        free(k);
    if (ierr)
        *ierr = rc;
}

FG_API void mpi_comm_create_keyval_(fg_copy_fn *copy, fg_delete_fn *del, MPI_Fint *keyval,
                                    MPI_Aint *extra, MPI_Fint *ierr)
{
    comm_keyval(0, 0, copy, del, keyval, *extra, ierr);
}

FG_API void pmpi_comm_create_keyval_(fg_copy_fn *copy, fg_delete_fn *del, MPI_Fint *keyval,
                                     MPI_Aint *extra, MPI_Fint *ierr)
{
    comm_keyval(1, 0, copy, del, keyval, *extra, ierr);
}

FG_API void mpi_keyval_create_(fg_copy_fn *copy, fg_delete_fn *del, MPI_Fint *keyval,
                               MPI_Fint *extra, MPI_Fint *ierr)
{
    comm_keyval(0, 1, copy, del, keyval, *extra, ierr);
}

FG_API void pmpi_keyval_create_(fg_copy_fn *copy, fg_delete_fn *del, MPI_Fint *keyval,
                                MPI_Fint *extra, MPI_Fint *ierr)
{
    comm_keyval(1, 1, copy, del, keyval, *extra, ierr);
}

static void type_keyval(int prof, fg_copy_fn *copy, fg_delete_fn *del, MPI_Fint *keyval,
                        MPI_Aint extra, MPI_Fint *ierr)
{
    fg_keyval_t *k = new_keyval(copy, del, extra, 0);
    int rc = !k ? MPI_ERR_NO_MEM
             : prof ? PMPI_Type_create_keyval(type_copy, type_delete, (int *)keyval, k)
                    : MPI_Type_create_keyval(type_copy, type_delete, (int *)keyval, k);
    if (rc != MPI_SUCCESS)
        free(k);
    if (ierr)
        *ierr = rc;
}

FG_API void mpi_type_create_keyval_(fg_copy_fn *copy, fg_delete_fn *del, MPI_Fint *keyval,
                                    MPI_Aint *extra, MPI_Fint *ierr)
{
    type_keyval(0, copy, del, keyval, *extra, ierr);
}

FG_API void pmpi_type_create_keyval_(fg_copy_fn *copy, fg_delete_fn *del, MPI_Fint *keyval,
                                     MPI_Aint *extra, MPI_Fint *ierr)
{
    type_keyval(1, copy, del, keyval, *extra, ierr);
}

static void win_keyval(int prof, fg_copy_fn *copy, fg_delete_fn *del, MPI_Fint *keyval,
                       MPI_Aint extra, MPI_Fint *ierr)
{
    fg_keyval_t *k = new_keyval(copy, del, extra, 0);
    int rc = !k ? MPI_ERR_NO_MEM
             : prof ? PMPI_Win_create_keyval(win_copy, win_delete, (int *)keyval, k)
                    : MPI_Win_create_keyval(win_copy, win_delete, (int *)keyval, k);
    if (rc != MPI_SUCCESS)
        free(k);
    if (ierr)
        *ierr = rc;
}

FG_API void mpi_win_create_keyval_(fg_copy_fn *copy, fg_delete_fn *del, MPI_Fint *keyval,
                                   MPI_Aint *extra, MPI_Fint *ierr)
{
    win_keyval(0, copy, del, keyval, *extra, ierr);
}

FG_API void pmpi_win_create_keyval_(fg_copy_fn *copy, fg_delete_fn *del, MPI_Fint *keyval,
                                    MPI_Aint *extra, MPI_Fint *ierr)
{
    win_keyval(1, copy, del, keyval, *extra, ierr);
}

/* ---- the predefined callbacks, as Fortran procedures ------------------------------------ */
/* MPI_COMM_NULL_COPY_FN, MPI_TYPE_NULL_COPY_FN: the attribute is not copied. */
FG_API void mpi_comm_null_copy_fn_(MPI_Fint *old, MPI_Fint *kv, MPI_Aint *extra, MPI_Aint *in,
                                   MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    *flag = FG_FALSE;
    *ierr = MPI_SUCCESS;
}

/* MPI_COMM_DUP_FN, MPI_TYPE_DUP_FN: the copy gets the same value. */
FG_API void mpi_comm_dup_fn_(MPI_Fint *old, MPI_Fint *kv, MPI_Aint *extra, MPI_Aint *in,
                             MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    *out = *in;
    *flag = FG_TRUE;
    *ierr = MPI_SUCCESS;
}

FG_API void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *kv, MPI_Aint *val,
                                     MPI_Aint *extra, MPI_Fint *ierr)
{
    *ierr = MPI_SUCCESS;
}

FG_API void mpi_type_null_copy_fn_(MPI_Fint *old, MPI_Fint *kv, MPI_Aint *extra, MPI_Aint *in,
                                   MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    mpi_comm_null_copy_fn_(old, kv, extra, in, out, flag, ierr);
}

FG_API void mpi_type_dup_fn_(MPI_Fint *old, MPI_Fint *kv, MPI_Aint *extra, MPI_Aint *in,
                             MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    mpi_comm_dup_fn_(old, kv, extra, in, out, flag, ierr);
}

FG_API void mpi_type_null_delete_fn_(MPI_Fint *t, MPI_Fint *kv, MPI_Aint *val, MPI_Aint *extra,
                                     MPI_Fint *ierr)
{
    *ierr = MPI_SUCCESS;
}

FG_API void mpi_win_null_copy_fn_(MPI_Fint *old, MPI_Fint *kv, MPI_Aint *extra, MPI_Aint *in,
                                  MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    mpi_comm_null_copy_fn_(old, kv, extra, in, out, flag, ierr);
}

FG_API void mpi_win_dup_fn_(MPI_Fint *old, MPI_Fint *kv, MPI_Aint *extra, MPI_Aint *in,
                            MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    mpi_comm_dup_fn_(old, kv, extra, in, out, flag, ierr);
}

FG_API void mpi_win_null_delete_fn_(MPI_Fint *w, MPI_Fint *kv, MPI_Aint *val, MPI_Aint *extra,
                                    MPI_Fint *ierr)
{
    *ierr = MPI_SUCCESS;
}

/* The MPI-1 forms (MPI_KEYVAL_CREATE's): INTEGER values. */
FG_API void mpi_null_copy_fn_(MPI_Fint *old, MPI_Fint *kv, MPI_Fint *extra, MPI_Fint *in,
                              MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    *flag = FG_FALSE;
    *ierr = MPI_SUCCESS;
}

FG_API void mpi_dup_fn_(MPI_Fint *old, MPI_Fint *kv, MPI_Fint *extra, MPI_Fint *in,
                        MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
    *out = *in;
    *flag = FG_TRUE;
    *ierr = MPI_SUCCESS;
}

FG_API void mpi_null_delete_fn_(MPI_Fint *comm, MPI_Fint *kv, MPI_Fint *val, MPI_Fint *extra,
                                MPI_Fint *ierr)
{
    *ierr = MPI_SUCCESS;
}

/* mpi_f08's specifics X_f08 (gen.py's f08_specific) */
FG_F08_ALIAS(mpi_comm_create_keyval_, mpi_comm_create_keyval_f08_)
FG_F08_ALIAS(pmpi_comm_create_keyval_, pmpi_comm_create_keyval_f08_)
FG_F08_ALIAS(mpi_keyval_create_, mpi_keyval_create_f08_)
FG_F08_ALIAS(pmpi_keyval_create_, pmpi_keyval_create_f08_)
FG_F08_ALIAS(mpi_type_create_keyval_, mpi_type_create_keyval_f08_)
FG_F08_ALIAS(pmpi_type_create_keyval_, pmpi_type_create_keyval_f08_)
FG_F08_ALIAS(mpi_win_create_keyval_, mpi_win_create_keyval_f08_)
FG_F08_ALIAS(pmpi_win_create_keyval_, pmpi_win_create_keyval_f08_)
