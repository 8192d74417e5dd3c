/*
 * The same vector of ints seen through four datatypes, for the collective tests where each
 * rank may describe its vector differently (coll_reduce2, coll_allreduce2): the library must
 * give the same result whichever view each rank picks, whichever path that view takes
 * inside it, and leave the holes of the vector view alone. Also the MINLOC/MAXLOC pairs
 * those tests reduce. Standard MPI only; the including program defines `rank` and `size`.
 */
#ifndef RDMPI_TEST_INT_VIEWS_H
#define RDMPI_TEST_INT_VIEWS_H

#include "mpi.h"

/* Int i of rank r's vector. */
static inline int value(long i, int r)
{
    return (int)((i * 31 + r * 1000003L) % 2000000011L);
}

/* Whether int j of an item of extent ext bytes holds data (the vector view, 20 bytes: its
 * third int is a hole, which a user function must leave alone). */
static inline int is_data(MPI_Aint ext, long j)
{
    return ext != 20 || j % 5 != 2;
}

static inline void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    /* the items are ints whatever type they came as */
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    long n = (long)*len * (long)ext / (long)sizeof(int);
    for (long i = 0; i < n; i++)
        if (is_data(ext, i))
            ((int *)inout)[i] += ((int *)in)[i];
}

static inline void user_first(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    /* x op y = x, with in the lower ranks' part: only the canonical order gives rank 0's */
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    long n = (long)*len * (long)ext / (long)sizeof(int);
    for (long i = 0; i < n; i++)
        if (is_data(ext, i))
            ((int *)inout)[i] = ((int *)in)[i];
}

/* The views: 0 MPI_INT, 1 contiguous(4), 2 vector 2 x 2 stride 3 (holes), 3 contiguous(7)
 * (28 bytes: no divisor of the library's chunks, so chunks end inside an item). */
static MPI_Datatype views[4];
static const int per[4] = { 1, 4, 4, 7 };

static inline void views_create(void)
{
    views[0] = MPI_INT;
    MPI_Type_contiguous(4, MPI_INT, &views[1]);
    MPI_Type_vector(2, 2, 3, MPI_INT, &views[2]);
    MPI_Type_contiguous(7, MPI_INT, &views[3]);
    for (int v = 1; v < 4; v++)
        MPI_Type_commit(&views[v]);
}

static inline void views_free(void)
{
    for (int v = 1; v < 4; v++)
        MPI_Type_free(&views[v]);
}

/* Index in the view's buffer of int i of the vector. */
static inline long slot(int v, long i)
{
    if (v != 2)
        return i;
    long item = i / 4, j = i % 4;   /* an item spans 5 ints: 0 1 _ 3 4 */
    return item * 5 + (j < 2 ? j : j + 1);
}

/* Ints of a buffer that holds n ints of the vector in view v. */
static inline long span(int v, long n)
{
    return v == 2 ? n / 4 * 5 : n;
}

/* The MINLOC/MAXLOC pairs: MPI_DOUBLE_INT (a pair with a hole) or MPI_2INT. */
typedef struct { double v; int loc; } dint_t;

static inline int loc_value(long i, int r)
{
    return (int)((i * 7 + r * 13) % 17);
}

static inline void loc_fill(char *s, long n, int two_int)
{
    for (long i = 0; i < n; i++) {
        int val = loc_value(i, rank);
        if (two_int) {
            ((int *)s)[2 * i] = val;
            ((int *)s)[2 * i + 1] = rank;
        } else {
            ((dint_t *)s)[i] = (dint_t){ val, rank };
        }
    }
}

/* The first pair of the result r that is wrong (its got and want as value * 100 + index),
 * or -1. Ties go to the lowest rank. */
static inline long loc_check(const char *r, long n, int maxloc, int two_int, long *got, long *want)
{
    for (long i = 0; i < n; i++) {
        int best = -1, loc = -1;
        for (int p = 0; p < size; p++) {
            int val = loc_value(i, p);
            if (loc < 0 || (maxloc ? val > best : val < best)) {
                best = val;
                loc = p;
            }
        }
        int gv, gl;
        if (two_int) {
            gv = ((const int *)r)[2 * i];
            gl = ((const int *)r)[2 * i + 1];
        } else {
            gv = (int)((const dint_t *)r)[i].v;
            gl = ((const dint_t *)r)[i].loc;
        }
        if (gv != best || gl != loc) {
            *got = gv * 100L + gl;
            *want = best * 100L + loc;
            return i;
        }
    }
    return -1;
}

#endif
