/*
 * Failure reporting shared by the collective test programs (coll_*.c). A
 * program defines, before including this, COLL_TEST (its name, a string),
 * COLL_RANK (the variable holding its world rank) and COLL_CUR (a char
 * array naming the case running); a failed check prints
 * "<name>: FAIL rank R: <case>: <what>" and aborts the job. Standard MPI only.
 */
#ifndef RDMPI_TEST_COLL_CHECK_H
#define RDMPI_TEST_COLL_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include "mpi.h"

#define FAIL(...)                                                                  \
    do {                                                                           \
        fprintf(stderr, "%s: FAIL rank %d: %s: ", COLL_TEST, COLL_RANK, COLL_CUR); \
        fprintf(stderr, __VA_ARGS__);                                              \
        fputc('\n', stderr);                                                       \
        MPI_Abort(MPI_COMM_WORLD, 1);                                              \
    } while (0)

#define CHECK_MPI(call)                         \
    do {                                        \
        int rc_ = (call);                       \
        if (rc_ != MPI_SUCCESS)                 \
            FAIL("%s returned %d", #call, rc_); \
    } while (0)

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        FAIL("out of memory (%zu bytes)", n);
    return p;
}

#endif
