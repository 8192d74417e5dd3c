/*
 * Fortran's integer handles (the scheme is described in handles.c): the conversions inline,
 * for the generated glue, which calls them twice or more per MPI call; MPI_X_f2c/c2f of the
 * C interface are the same functions out of line.
 */
#ifndef RDMPI_FORTRAN_FHANDLE_H
#define RDMPI_FORTRAN_FHANDLE_H

#include <stdint.h>
#include "mpi.h"
#include "core/handle.h"
#include "bindings/fortran/fortran_handles.h"

#define FH_DYN 1024   /* the first integer of an object allocated from a pool */

/* The conversions are on every call's path: inlined even where the generated glue's size
 * would stop the compiler (fortran_glue.c is one large translation unit). */
#define FH_INLINE_FN static inline __attribute__((always_inline))

/* X(C type, conversion name, pool or NULL, table, number predefined).
 * Sessions have no pool yet: their objects would get numbers from a registry (fh_registry
 * below) until they have one; then give their pool here. */
#define FH_KINDS(X)                                                                          \
    X(MPI_Comm, Comm, &core_handles.comm, FH_COMM_TABLE, FH_COMM_NPREDEF)                    \
    X(MPI_Datatype, Type, &core_handles.dt, FH_TYPE_TABLE, FH_TYPE_NPREDEF)                  \
    X(MPI_Group, Group, &core_handles.group, FH_GROUP_TABLE, FH_GROUP_NPREDEF)               \
    X(MPI_Op, Op, &core_handles.op, FH_OP_TABLE, FH_OP_NPREDEF)                              \
    X(MPI_Info, Info, &core_handles.info, FH_INFO_TABLE, FH_INFO_NPREDEF)                    \
    X(MPI_Errhandler, Errhandler, &core_handles.errh, FH_ERRHANDLER_TABLE,                   \
      FH_ERRHANDLER_NPREDEF)                                                                 \
    X(MPI_Request, Request, &core_handles.req, FH_REQUEST_TABLE, FH_REQUEST_NPREDEF)         \
    X(MPI_Message, Message, &core_handles.msg, FH_MESSAGE_TABLE, FH_MESSAGE_NPREDEF)         \
    X(MPI_Win, Win, &core_handles.win, FH_WIN_TABLE, FH_WIN_NPREDEF)                                      \
    X(MPI_File, File, &core_handles.file, FH_FILE_TABLE, FH_FILE_NPREDEF)                                  \
    X(MPI_Session, Session, NULL, FH_SESSION_TABLE, FH_SESSION_NPREDEF)

/* The numbers of objects of a kind without a pool: the position of the object's first c2f in
 * an append-only list (a linear search: windows, files and sessions are few). */
long fh_registry_index(const void *const *pre, const void *h);
void *fh_registry_at(const void *const *pre, long n);

/* What f2c gives for an integer that names no object: an address in no pool, so the call's
 * handle check reports the kind's error class. */
extern const char fh_invalid;

FH_INLINE_FN MPI_Fint fh_to_f(const core_handle_pool_t *pool, const void *h,
                               const void *const *pre, int npre)
{
    if (!h)
        return 0;
    for (int i = 1; i < npre; i++)
        if (pre[i] == h)
            return i;
    long n = pool ? core_handle_index(pool, h) : fh_registry_index(pre, h);
    if (n >= 0 && n <= INT32_MAX - FH_DYN)
        return (MPI_Fint)(FH_DYN + n);
    return -1;
}

/* An object a program made (or a number naming none): out of line, so the inlined path of a
 * predefined handle (MPI_COMM_WORLD, MPI_INTEGER, ...) keeps no registers across a call. */
void *fh_to_c_made(const core_handle_pool_t *pool, MPI_Fint f, const void *const *pre)
    __attribute__((cold));

FH_INLINE_FN void *fh_to_c(const core_handle_pool_t *pool, MPI_Fint f,
                            const void *const *pre, int npre)
{
    if (__builtin_expect((unsigned)f < (unsigned)npre, 1))
        return (void *)pre[f];
    return fh_to_c_made(pool, f, pre);
}

#define FH_INLINE(T, N, POOL, TABLE, NPRE)                                                   \
    extern const void *const fh_pre_##N[NPRE];                                               \
    FH_INLINE_FN MPI_Fint fh_##N##_c2f(T h)                                                  \
    {                                                                                        \
        return fh_to_f(POOL, h, fh_pre_##N, NPRE);                                           \
    }                                                                                        \
    FH_INLINE_FN T fh_##N##_f2c(MPI_Fint f)                                                  \
    {                                                                                        \
        return (T)fh_to_c(POOL, f, fh_pre_##N, NPRE);                                        \
    }                                                                                        \
    FH_INLINE_FN int fh_##N##_is_pre(MPI_Fint f)                                             \
    {                                                                                        \
        return (unsigned)f < (unsigned)(NPRE);                                               \
    }                                                                                        \
    FH_INLINE_FN T fh_##N##_pre(MPI_Fint f) /* f: fh_X_is_pre */                            \
    {                                                                                        \
        return (T)fh_pre_##N[f];                                                             \
    }
FH_KINDS(FH_INLINE)
#undef FH_INLINE

#endif
