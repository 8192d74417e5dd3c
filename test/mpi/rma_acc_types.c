/*
 * Accumulate and Get_accumulate with every predefined op on every predefined
 * type that op is defined for, over Win_create, dynamic and Win_allocate
 * windows (the first two are not in a node segment: their target applies
 * the operations itself, from messages). The ranks take turns: each one
 * accumulates into every rank (even ranks MPI_Accumulate, odd ranks
 * MPI_Get_accumulate, whose fetched contents are checked); every rank folds
 * the same values in the same order with MPI_Reduce_local (REPLACE, NO_OP
 * by hand) and compares with its window. A pair (type, op) that
 * MPI_Reduce_local refuses is not valid and is left out. Everything runs
 * twice: elements aligned, then every element one byte off.
 */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define C 5   /* elements per (type, op) */

typedef struct tdesc {
    const char *name;
    MPI_Datatype dt;
    size_t size;
    char code;   /* i signed, u unsigned, f float, d double, L long double, b bool,
                    c/z/Z float/double/long double complex */
} tdesc_t;

#define TY(dt, T, code) { #dt, dt, sizeof(T), code }
static tdesc_t types[] = {
    TY(MPI_CHAR, char, 'i'), TY(MPI_SIGNED_CHAR, signed char, 'i'),
    TY(MPI_UNSIGNED_CHAR, unsigned char, 'u'), TY(MPI_BYTE, unsigned char, 'u'),
    TY(MPI_SHORT, short, 'i'), TY(MPI_UNSIGNED_SHORT, unsigned short, 'u'),
    TY(MPI_INT, int, 'i'), TY(MPI_UNSIGNED, unsigned, 'u'), TY(MPI_LONG, long, 'i'),
    TY(MPI_UNSIGNED_LONG, unsigned long, 'u'), TY(MPI_LONG_LONG, long long, 'i'),
    TY(MPI_UNSIGNED_LONG_LONG, unsigned long long, 'u'), TY(MPI_INT8_T, int8_t, 'i'),
    TY(MPI_INT16_T, int16_t, 'i'), TY(MPI_INT32_T, int32_t, 'i'), TY(MPI_INT64_T, int64_t, 'i'),
    TY(MPI_UINT8_T, uint8_t, 'u'), TY(MPI_UINT16_T, uint16_t, 'u'),
    TY(MPI_UINT32_T, uint32_t, 'u'), TY(MPI_UINT64_T, uint64_t, 'u'),
    TY(MPI_FLOAT, float, 'f'), TY(MPI_DOUBLE, double, 'd'), TY(MPI_LONG_DOUBLE, long double, 'L'),
    TY(MPI_WCHAR, wchar_t, 'i'), TY(MPI_C_BOOL, bool, 'b'), TY(MPI_AINT, MPI_Aint, 'i'),
    TY(MPI_OFFSET, MPI_Offset, 'i'), TY(MPI_COUNT, MPI_Count, 'i'),
    TY(MPI_C_FLOAT_COMPLEX, float _Complex, 'c'), TY(MPI_C_DOUBLE_COMPLEX, double _Complex, 'z'),
    TY(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, 'Z'), TY(MPI_INTEGER, int32_t, 'i'),
    TY(MPI_REAL, float, 'f'), TY(MPI_DOUBLE_PRECISION, double, 'd'),
    TY(MPI_COMPLEX, float _Complex, 'c'), TY(MPI_DOUBLE_COMPLEX, double _Complex, 'z'),
    TY(MPI_LOGICAL, int32_t, 'u'), TY(MPI_INTEGER8, int64_t, 'i'), TY(MPI_REAL8, double, 'd'),
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static MPI_Op ops[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
                        MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_REPLACE, MPI_NO_OP };
static const char *op_names[] = { "MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR",
                                  "BOR", "LXOR", "BXOR", "REPLACE", "NO_OP" };
#define NOPS (sizeof(ops) / sizeof(ops[0]))
#define SLOT 32   /* bytes per element in the window (the largest type is 32 bytes) */

static void set_val(const tdesc_t *t, void *p, long x)
{
    /* long double's padding bytes zeroed, so whole elements compare equal */
    union { float f; double d; long double L; bool b; float _Complex c; double _Complex z;
            long double _Complex Z; uint8_t bytes[32]; } v;
    memset(&v, 0, sizeof(v));
    switch (t->code) {
    case 'f': v.f = (float)x; break;
    case 'd': v.d = (double)x; break;
    case 'L': v.L = (long double)x; break;
    case 'b': v.b = x != 0; break;
    case 'c': v.c = (float)x + (float)(x % 2) * I; break;
    case 'z': v.z = (double)x - (double)(x % 3) * I; break;
    case 'Z': v.Z = (long double)x + (long double)(x % 2) * I; break;
    default: {
        /* integers: two's complement low bytes of x (little-endian) */
        uint64_t u = (uint64_t)x;
        memcpy(p, &u, t->size);
        return;
    }
    }
    memcpy(p, v.bytes, t->size);
}

static int same(const tdesc_t *t, const void *a, const void *b)
{
    if (t->code == 'L') {
        long double x, y;
        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        return x == y;
    }
    if (t->code == 'Z') {
        long double _Complex x, y;
        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        return x == y;
    }
    if (t->code == 'b')
        return (*(const uint8_t *)a != 0) == (*(const uint8_t *)b != 0);
    return memcmp(a, b, t->size) == 0;
}

/* The value rank r accumulates at element k, and the initial one (r = -1): small, with
 * zeros and ones for the logical ops. */
static long val(int r, int k, int op)
{
    if (ops[op] == MPI_LAND || ops[op] == MPI_LOR || ops[op] == MPI_LXOR)
        return (r * 3 + k) % 3 == 0 ? 0 : 1;
    return (long)((r + 2 + k * 5) % 4 + 1) * (k % 2 ? 1 : 3);
}

static int valid[NTYPES][NOPS];

static void find_valid(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (size_t t = 0; t < NTYPES; t++)
        for (size_t o = 0; o < NOPS; o++) {
            uint8_t a[SLOT] = { 0 }, b[SLOT] = { 0 };
            valid[t][o] = ops[o] == MPI_REPLACE || ops[o] == MPI_NO_OP ||
                          MPI_Reduce_local(a, b, 1, types[t].dt, ops[o]) == MPI_SUCCESS;
        }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* 1: every element one byte past its alignment (the target has no CPU atomic for it). */
static size_t skew;

/* Byte offset of element k of (type t, op o) in a window. */
static size_t off_of(size_t t, size_t o, int k)
{
    return ((t * NOPS + o) * C + (size_t)k) * SLOT + skew;
}

/* The contents after ranks 0..upto-1 took their turns. */
static void expected(size_t t, size_t o, int upto, uint8_t *cur)
{
    const tdesc_t *ty = &types[t];
    for (int k = 0; k < C; k++)
        set_val(ty, cur + (size_t)k * ty->size, val(-1, k, (int)o) + 1);
    for (int r = 0; r < upto; r++) {
        uint8_t in[C * SLOT];
        for (int k = 0; k < C; k++)
            set_val(ty, in + (size_t)k * ty->size, val(r, k, (int)o));
        if (ops[o] == MPI_REPLACE)
            memcpy(cur, in, C * ty->size);
        else if (ops[o] != MPI_NO_OP)
            MPI_OK(MPI_Reduce_local(in, cur, C, ty->dt, ops[o]));
    }
}

enum { F_CREATE, F_DYNAMIC, F_ALLOCATE, F_END };
static const char *flavor_name[] = { "create", "dynamic", "allocate" };

static void run_flavor(int flavor, int n, int me)
{
    size_t bytes = off_of(NTYPES, 0, 0) + 1;
    uint8_t *mem;
    MPI_Win win;
    if (flavor == F_ALLOCATE) {
        MPI_OK(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    } else {
        mem = malloc(bytes);
        CHECK(mem, "no memory");
        if (flavor == F_CREATE) {
            MPI_OK(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        } else {
            MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            MPI_OK(MPI_Win_attach(win, mem, (MPI_Aint)bytes));
        }
    }
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    memset(mem, 0, bytes);
    for (size_t t = 0; t < NTYPES; t++)
        for (size_t o = 0; o < NOPS; o++)
            for (int k = 0; k < C; k++)
                set_val(&types[t], mem + off_of(t, o, 0) + (size_t)k * types[t].size,
                        val(-1, k, (int)o) + 1);
    MPI_OK(MPI_Win_unlock(me, win));
    MPI_Aint mine, *bases = malloc((size_t)n * sizeof(MPI_Aint));
    MPI_OK(MPI_Get_address(mem, &mine));
    MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    uint8_t in[C * SLOT], got[C * SLOT], want[C * SLOT];
    char name[160];
    for (int r = 0; r < n; r++) {
        if (r == me) {
            for (int tr = 0; tr < n; tr++) {
                MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tr, 0, win));
                for (size_t t = 0; t < NTYPES; t++)
                    for (size_t o = 0; o < NOPS; o++) {
                        if (!valid[t][o])
                            continue;
                        const tdesc_t *ty = &types[t];
                        MPI_Aint d = (MPI_Aint)off_of(t, o, 0);
                        if (flavor == F_DYNAMIC)
                            d = MPI_Aint_add(bases[tr], d);
                        for (int k = 0; k < C; k++)
                            set_val(ty, in + (size_t)k * ty->size, val(me, k, (int)o));
                        if (me % 2 == 0) {
                            MPI_OK(MPI_Accumulate(in, C, ty->dt, tr, d, C, ty->dt, ops[o], win));
                            continue;
                        }
                        memset(got, 0, sizeof(got));
                        MPI_OK(MPI_Get_accumulate(in, C, ty->dt, got, C, ty->dt, tr, d, C,
                                                  ty->dt, ops[o], win));
                        MPI_OK(MPI_Win_flush(tr, win));
                        expected(t, o, me, want);
                        snprintf(name, sizeof(name), "%s %s %s fetched", flavor_name[flavor],
                                 ty->name, op_names[o]);
                        t_begin(name);
                        for (int k = 0; k < C; k++)
                            CHECK(same(ty, got + (size_t)k * ty->size,
                                       want + (size_t)k * ty->size),
                                  "element %d from rank %d differs", k, tr);
                    }
                MPI_OK(MPI_Win_unlock(tr, win));
            }
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    for (size_t t = 0; t < NTYPES; t++)
        for (size_t o = 0; o < NOPS; o++) {
            if (!valid[t][o])
                continue;
            const tdesc_t *ty = &types[t];
            expected(t, o, n, want);
            snprintf(name, sizeof(name), "%s%s %s %s", flavor_name[flavor],
                     skew ? " unaligned" : "", ty->name, op_names[o]);
            t_begin(name);
            for (int k = 0; k < C; k++)
                CHECK(same(ty, mem + off_of(t, o, 0) + (size_t)k * ty->size,
                           want + (size_t)k * ty->size), "element %d differs", k);
        }
    MPI_OK(MPI_Win_unlock(me, win));
    if (flavor == F_DYNAMIC)
        MPI_OK(MPI_Win_detach(win, mem));
    MPI_OK(MPI_Win_free(&win));
    if (flavor != F_ALLOCATE)
        free(mem);
    free(bases);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_begin("valid pairs");
    find_valid();
    int nvalid = 0;
    for (size_t t = 0; t < NTYPES; t++)
        for (size_t o = 0; o < NOPS; o++)
            nvalid += valid[t][o];
    CHECK(nvalid > 250, "only %d valid (type, op) pairs", nvalid);
    for (skew = 0; skew < 2; skew++)
        for (int f = 0; f < F_END; f++)
            run_flavor(f, t_size, t_rank);
    t_finish();
    return 0;
}
