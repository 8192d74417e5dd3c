/*
 * MPI_MINLOC and MPI_MAXLOC in one-sided accumulates on every pair type
 * (MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
 * MPI_LONG_DOUBLE_INT and the Fortran MPI_2INTEGER, MPI_2REAL,
 * MPI_2DOUBLE_PRECISION), over Win_allocate, Win_create and dynamic windows.
 * Several pair types have holes (MPI_DOUBLE_INT's padding after the index,
 * MPI_SHORT_INT's between value and index): the holes of the target memory
 * must stay as they were.
 *  - every rank accumulates MAXLOC and MINLOC of N pairs into every rank at
 *    once (lock_all): the result is the extreme value with the lowest index
 *    among the ranks holding it (values chosen to tie);
 *  - a vector target type (every other element) leaves the others alone;
 *  - MAXLOC on BIG elements (cut into pieces on the message path);
 *  - Get_accumulate with MPI_NO_OP reads the pairs back, MINLOC with a
 *    fetch returns the old contents, Fetch_and_op in rank order returns the
 *    running minimum, REPLACE writes pairs.
 * "-- msg": every window is created with info rdmpi_rma_path=message, so
 * on-node targets apply the operations from messages too; "-- mixed": only
 * the odd ranks do, so the targets apply pairs from messages while the even
 * ranks update the same elements in place (one lock serves both).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define N 8
#define PAD 0x5a
#define REGIONS 6   /* maxloc, minloc, vector, gacc, fop, replace: N elements each */
#define BIG 6000    /* then a region large enough to be cut into several messages */

struct pfi { float v; int i; };
struct pdi { double v; int i; };
struct pli { long v; int i; };
struct p2i { int v; int i; };
struct psi { short v; int i; };
struct pldi { long double v; int i; };
struct p2r { float v; float i; };
struct p2d { double v; double i; };

typedef struct tdesc {
    const char *name;
    MPI_Datatype dt;
    size_t ext, vsize, ioff, isize;
    char vk, ik;   /* f float, d double, l long, i int, s short, L long double */
} tdesc_t;

#define T(name, dt, S, vk, ik)                                                         \
    { name, dt, sizeof(S), sizeof(((S *)0)->v), offsetof(S, i), sizeof(((S *)0)->i), vk, ik }

static tdesc_t types[9];

static void types_init(void)
{
    tdesc_t t[] = {
        T("MPI_FLOAT_INT", MPI_FLOAT_INT, struct pfi, 'f', 'i'),
        T("MPI_DOUBLE_INT", MPI_DOUBLE_INT, struct pdi, 'd', 'i'),
        T("MPI_LONG_INT", MPI_LONG_INT, struct pli, 'l', 'i'),
        T("MPI_2INT", MPI_2INT, struct p2i, 'i', 'i'),
        T("MPI_SHORT_INT", MPI_SHORT_INT, struct psi, 's', 'i'),
        T("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, struct pldi, 'L', 'i'),
        T("MPI_2INTEGER", MPI_2INTEGER, struct p2i, 'i', 'i'),
        T("MPI_2REAL", MPI_2REAL, struct p2r, 'f', 'f'),
        T("MPI_2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION, struct p2d, 'd', 'd'),
    };
    memcpy(types, t, sizeof(t));
}

static void put_num(void *p, char k, long x)
{
    switch (k) {
    case 'f': { float v = (float)x; memcpy(p, &v, sizeof(v)); break; }
    case 'd': { double v = (double)x; memcpy(p, &v, sizeof(v)); break; }
    case 'l': { long v = x; memcpy(p, &v, sizeof(v)); break; }
    case 'i': { int v = (int)x; memcpy(p, &v, sizeof(v)); break; }
    case 's': { short v = (short)x; memcpy(p, &v, sizeof(v)); break; }
    default: { long double v = (long double)x; memcpy(p, &v, sizeof(v)); break; }
    }
}

static long get_num(const void *p, char k)
{
    switch (k) {
    case 'f': { float v; memcpy(&v, p, sizeof(v)); return (long)v; }
    case 'd': { double v; memcpy(&v, p, sizeof(v)); return (long)v; }
    case 'l': { long v; memcpy(&v, p, sizeof(v)); return v; }
    case 'i': { int v; memcpy(&v, p, sizeof(v)); return v; }
    case 's': { short v; memcpy(&v, p, sizeof(v)); return v; }
    default: { long double v; memcpy(&v, p, sizeof(v)); return (long)v; }
    }
}

static void set_pair(const tdesc_t *t, void *base, int k, long v, long i)
{
    uint8_t *p = (uint8_t *)base + (size_t)k * t->ext;
    put_num(p, t->vk, v);
    put_num(p + t->ioff, t->ik, i);
}

static void get_pair(const tdesc_t *t, const void *base, int k, long *v, long *i)
{
    const uint8_t *p = (const uint8_t *)base + (size_t)k * t->ext;
    *v = get_num(p, t->vk);
    *i = get_num(p + t->ioff, t->ik);
}

/* Whether byte b of an element is a hole (neither value nor index). */
static int is_hole(const tdesc_t *t, size_t b)
{
    return b >= t->vsize && !(b >= t->ioff && b < t->ioff + t->isize);
}

/* Value of rank r at element k: small integers, exact in every type, with ties. */
static long val(int r, int k)
{
    return (long)((r * 7 + k * 3) % 5) - 2;
}

/* The expected (value, index) of MAXLOC (max = 1) or MINLOC over ranks 0..n-1 at k, with
 * the initial contents (init, 999) in the running. */
static void expect(int n, int k, int max, long init, long *v, long *i)
{
    *v = init;
    *i = 999;
    for (int r = 0; r < n; r++) {
        long x = val(r, k);
        if (max ? x > *v : x < *v) {
            *v = x;
            *i = r;
        } else if (x == *v && r < *i) {
            *i = r;
        }
    }
}

enum { F_ALLOCATE, F_CREATE, F_DYNAMIC, F_END };
static const char *flavor_name[] = { "allocate", "create", "dynamic" };

/* The window memory of one rank: REGIONS regions of N elements, holes filled with PAD. */
static void init_mem(const tdesc_t *t, uint8_t *mem)
{
    memset(mem, PAD, ((size_t)REGIONS * N + BIG) * t->ext);
    for (int k = 0; k < BIG; k++)
        set_pair(t, mem, REGIONS * N + k, -100, 999);
    for (int k = 0; k < N; k++) {
        set_pair(t, mem, 0 * N + k, -100, 999);   /* MAXLOC region */
        set_pair(t, mem, 1 * N + k, 100, 999);    /* MINLOC region */
        set_pair(t, mem, 2 * N + k, -100, 999);   /* vector MAXLOC */
        set_pair(t, mem, 3 * N + k, 50 + k, 7);   /* get_accumulate */
        set_pair(t, mem, 4 * N + k, 100, 999);    /* fetch_and_op */
        set_pair(t, mem, 5 * N + k, 0, 0);        /* replace */
    }
}

static void check_holes(const tdesc_t *t, const uint8_t *mem)
{
    for (int k = 0; k < REGIONS * N + BIG; k++)
        for (size_t b = 0; b < t->ext; b++)
            if (is_hole(t, b))
                CHECK(mem[(size_t)k * t->ext + b] == PAD, "%s: hole byte %zu of element %d is "
                      "%#x", t->name, b, k, mem[(size_t)k * t->ext + b]);
}

static void check_pair(const tdesc_t *t, const void *mem, int k, long ev, long ei,
                       const char *what)
{
    long v, i;
    get_pair(t, mem, k, &v, &i);
    CHECK(v == ev && i == ei, "%s: %s element %d is (%ld, %ld), expected (%ld, %ld)", t->name,
          what, k, v, i, ev, ei);
}

static void run_type(const tdesc_t *t, int flavor, MPI_Info info, int n, int me)
{
    size_t bytes = ((size_t)REGIONS * N + BIG) * t->ext;
    MPI_Aint ext = (MPI_Aint)t->ext;
    uint8_t *mem;
    MPI_Win win;
    int dynamic = flavor == F_DYNAMIC;
    if (flavor == F_ALLOCATE) {
        MPI_OK(MPI_Win_allocate((MPI_Aint)bytes, (int)t->ext, info, MPI_COMM_WORLD, &mem, &win));
    } else {
        mem = malloc(bytes);
        CHECK(mem, "no memory");
        if (flavor == F_CREATE) {
            MPI_OK(MPI_Win_create(mem, (MPI_Aint)bytes, (int)t->ext, info, MPI_COMM_WORLD, &win));
        } else {
            MPI_OK(MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &win));
            MPI_OK(MPI_Win_attach(win, mem, (MPI_Aint)bytes));
        }
    }
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    init_mem(t, mem);
    MPI_OK(MPI_Win_unlock(me, win));
    MPI_Aint mine, *bases = malloc((size_t)n * sizeof(MPI_Aint));
    MPI_OK(MPI_Get_address(mem, &mine));
    MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD));
#define DISP(tr, k) (dynamic ? MPI_Aint_add(bases[tr], (MPI_Aint)(k) * ext) : (MPI_Aint)(k))

    uint8_t *obuf = malloc((size_t)BIG * t->ext), *rbuf = malloc((size_t)N * t->ext);
    for (int k = 0; k < BIG; k++)
        set_pair(t, obuf, k, val(me, k), me);
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(N / 2, 1, 2, t->dt, &vec));
    MPI_OK(MPI_Type_commit(&vec));

    /* every rank into every rank at once */
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int tr = 0; tr < n; tr++) {
        MPI_OK(MPI_Accumulate(obuf, N, t->dt, tr, DISP(tr, 0), N, t->dt, MPI_MAXLOC, win));
        MPI_OK(MPI_Accumulate(obuf, N, t->dt, tr, DISP(tr, N), N, t->dt, MPI_MINLOC, win));
        MPI_OK(MPI_Accumulate(obuf, N / 2, t->dt, tr, DISP(tr, 2 * N), 1, vec, MPI_MAXLOC,
                              win));
        MPI_OK(MPI_Accumulate(obuf, BIG, t->dt, tr, DISP(tr, REGIONS * N), BIG, t->dt,
                              MPI_MAXLOC, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* read back each one's own memory, and the next rank's by Get_accumulate(NO_OP) */
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    for (int k = 0; k < N; k++) {
        long v, i;
        expect(n, k, 1, -100, &v, &i);
        check_pair(t, mem, k, v, i, "MAXLOC");
        expect(n, k, 0, 100, &v, &i);
        check_pair(t, mem, N + k, v, i, "MINLOC");
        if (k % 2 == 0)
            expect(n, k / 2, 1, -100, &v, &i);
        else
            v = -100, i = 999;
        check_pair(t, mem, 2 * N + k, v, i, "vector MAXLOC");
    }
    for (int k = 0; k < BIG; k++) {
        long v, i;
        expect(n, k, 1, -100, &v, &i);
        check_pair(t, mem, REGIONS * N + k, v, i, "large MAXLOC");
    }
    check_holes(t, mem);
    MPI_OK(MPI_Win_unlock(me, win));
    int next = (me + 1) % n;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
    memset(rbuf, 0, (size_t)N * t->ext);
    MPI_OK(MPI_Get_accumulate(NULL, 0, t->dt, rbuf, N, t->dt, next, DISP(next, N), N, t->dt,
                              MPI_NO_OP, win));
    MPI_OK(MPI_Win_unlock(next, win));
    for (int k = 0; k < N; k++) {
        long v, i;
        expect(n, k, 0, 100, &v, &i);
        check_pair(t, rbuf, k, v, i, "Get_accumulate(NO_OP)");
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* in rank order: Get_accumulate MINLOC and Fetch_and_op MINLOC return the old contents;
     * REPLACE writes */
    for (int r = 0; r < n; r++) {
        if (r == me) {
            for (int tr = 0; tr < n; tr++) {
                MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tr, 0, win));
                uint8_t one[64], old[64];
                set_pair(t, one, 0, val(me, tr), me);
                memset(old, 0, sizeof(old));
                MPI_OK(MPI_Fetch_and_op(one, old, t->dt, tr, DISP(tr, 4 * N + 1), MPI_MINLOC,
                                        win));
                MPI_OK(MPI_Get_accumulate(obuf, N, t->dt, rbuf, N, t->dt, tr, DISP(tr, 3 * N),
                                          N, t->dt, MPI_MINLOC, win));
                MPI_OK(MPI_Accumulate(obuf, N, t->dt, tr, DISP(tr, 5 * N), N, t->dt,
                                      MPI_REPLACE, win));
                MPI_OK(MPI_Win_unlock(tr, win));
                long ev, ei;
                /* the running minimum over ranks before me (their val at k = tr) */
                ev = 100, ei = 999;
                for (int q = 0; q < me; q++)
                    if (val(q, tr) < ev)
                        ev = val(q, tr), ei = q;
                check_pair(t, old, 0, ev, ei, "Fetch_and_op(MINLOC) old");
                for (int k = 0; k < N; k++) {
                    ev = 50 + k, ei = 7;
                    for (int q = 0; q < me; q++)
                        if (val(q, k) < ev || (val(q, k) == ev && q < ei))
                            ev = val(q, k), ei = q;
                    check_pair(t, rbuf, k, ev, ei, "Get_accumulate(MINLOC) old");
                }
            }
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    for (int k = 0; k < N; k++) {
        long v, i;
        expect(n, me, 0, 100, &v, &i);
        check_pair(t, mem, 4 * N + 1, v, i, "Fetch_and_op(MINLOC)");
        check_pair(t, mem, 5 * N + k, val(n - 1, k), n - 1, "REPLACE");
    }
    check_holes(t, mem);
    MPI_OK(MPI_Win_unlock(me, win));
#undef DISP
    MPI_OK(MPI_Type_free(&vec));
    if (dynamic)
        MPI_OK(MPI_Win_detach(win, mem));
    MPI_OK(MPI_Win_free(&win));
    if (flavor != F_ALLOCATE)
        free(mem);
    free(obuf);
    free(rbuf);
    free(bases);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int n = t_size, me = t_rank;
    int msg = argc > 1 && (strcmp(argv[1], "msg") == 0 ||
                           (strcmp(argv[1], "mixed") == 0 && me % 2 == 1));
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    if (msg)
        MPI_OK(MPI_Info_set(info, "rdmpi_rma_path", "message"));
    types_init();
    char name[128];
    for (int f = 0; f < F_END; f++)
        for (size_t ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
            snprintf(name, sizeof(name), "%s %s", flavor_name[f], types[ti].name);
            t_begin(name);
            run_type(&types[ti], f, info, n, me);
        }
    MPI_OK(MPI_Info_free(&info));
    t_finish();
    return 0;
}
