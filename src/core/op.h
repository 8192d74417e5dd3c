/*
 * Reduction operations: the predefined ops on every type MPI defines them
 * for, and user ops. core_op_apply computes inout[i] = in[i] op inout[i].
 */
#ifndef RDMPI_CORE_OP_H
#define RDMPI_CORE_OP_H

#include "mpi.h"
#include "core/datatype.h"

enum core_op_kind {
    CORE_OP_MAX = 1, CORE_OP_MIN, CORE_OP_SUM, CORE_OP_PROD, CORE_OP_LAND, CORE_OP_BAND,
    CORE_OP_LOR, CORE_OP_BOR, CORE_OP_LXOR, CORE_OP_BXOR, CORE_OP_MINLOC, CORE_OP_MAXLOC,
    CORE_OP_REPLACE, CORE_OP_NO_OP, CORE_OP_USER
};

/* How to call a user function written in another language (the Fortran bindings register
 * one: the function takes the datatype's Fortran handle). */
typedef void core_op_call_fn(MPI_User_function *fn, void *in, void *inout, int *len,
                             MPI_Datatype *dt);

struct rdmpi_op {
    int refcount;
    int predefined;
    enum core_op_kind kind;
    int commute;
    MPI_User_function *fn;   /* CORE_OP_USER */
    core_op_call_fn *call;   /* NULL: fn is a C function */
    const char *name;
};

/* A user op (MPI_Op_create) with one reference; retain/release count
 * references (predefined ops are not counted). */
int core_op_create(MPI_User_function *fn, int commute, MPI_Op *out);
/* Makes a user op's function be called through call (see core_op_call_fn). */
void core_op_set_call(MPI_Op op, core_op_call_fn *call);
void core_op_retain(MPI_Op op);
void core_op_release(MPI_Op op);
/* Whether op is defined for dt (predefined ops only on their types). */
int core_op_valid(MPI_Op op, MPI_Datatype dt);
/* inout = in op inout, over count items of dt (both in packed == native layout
 * for predefined types). Returns 0 or CORE_EOP. */
int core_op_apply(MPI_Op op, const void *in, void *inout, int count, MPI_Datatype dt);

#endif
