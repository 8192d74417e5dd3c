/*
 * coll_allreduce2: MPI_Allreduce where each rank may describe its vector differently and take
 * a different path inside the library, at the sizes where the 2-rank allreduce sends each
 * rank's vector to the other in eager chunks (above 4 KiB, up to 128 KiB: collectives/
 * coll_impl.h, coll_reduce2_chunks and COLL_ALLREDUCE2_MAX; coll_fast2_allreduce and the
 * recursive-doubling schedule) and around them. Per call, each rank picks on its own:
 *   - its view of the vector: n MPI_INT, n/4 of contiguous(4 MPI_INT), n/4 of a vector of
 *     2 x 2 MPI_INT with holes (the schedule path), or n/7 of contiguous(7 MPI_INT) (28
 *     bytes: no divisor of the chunk, so chunks end inside an item); same signature on
 *     every rank (on 2 ranks, beyond what MPI asks: a reduction is called with the same
 *     count and datatype everywhere, and the algorithms for more ranks split the vector by
 *     the count, as Open MPI's and MPICH's do; so above 2 ranks, one view for all);
 *   - on 2 ranks, blocking MPI_Allreduce or MPI_Iallreduce + MPI_Wait (rdmpi sends the same
 *     messages for both, and this checks it does; on more ranks the same on all).
 * MPI_IN_PLACE is chosen per call, the same on every rank (MPI asks for it at all ranks).
 * Operations: MPI_SUM, a commutative user sum, a user operation that does not commute
 * (x op y = x: the result is rank 0's vector, which only the canonical order gives),
 * MINLOC/MAXLOC on MPI_DOUBLE_INT (a pair with a hole) and MPI_2INT, and MPI_SUM of floats
 * of mixed magnitudes, whose result must be bitwise the same on every rank (and, on 2 ranks,
 * bitwise x0 + x1).
 * Counts: 1, 7, odd ones next to the chunk sizes, 64 KiB, 128 KiB and one item above, 256 KiB
 * (the reduce's limit) and one item above, 1 MiB.
 * Exit 0 on success; prints the first difference and aborts otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

static int rank, size;
#include "int_views.h"

static void fail(const char *what, long n, int k, long i, long got, long want)
{
    fprintf(stderr, "coll_allreduce2: rank %d: %s n=%ld case=%d: item %ld is %ld, want %ld\n",
            rank, what, n, k, i, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Blocking or not: each rank its own on 2 ranks, where the library promises the same
 * messages either way; the same on every rank above (MPI does not let a blocking call
 * match a nonblocking one, and rdmpi's crowded blocking paths differ from the schedules). */
static int pick_nb(int k)
{
    return size == 2 ? ((k >> 1) ^ rank) & 1 : (k >> 1) & 1;
}

static void call(const void *sb, void *r, int cnt, MPI_Datatype t, MPI_Op op, int nb)
{
    if (nb) {
        MPI_Request q;
        MPI_Iallreduce(sb, r, cnt, t, op, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        MPI_Allreduce(sb, r, cnt, t, op, MPI_COMM_WORLD);
    }
}

static void run_ints(long n, int k, MPI_Op op, const char *name, int nc)
{
    /* each rank's own choice: a valid view (n a multiple of its ints), the path */
    int v = ((k >> 2) + (size == 2 ? rank : 0)) % 4;
    while (n % per[v])
        v = (v + 1) % 4;
    int nb = pick_nb(k);
    int inplace = k & 1;
    long sp = span(v, n);
    int *s = malloc((size_t)sp * sizeof(int)), *r = malloc((size_t)sp * sizeof(int));
    for (long i = 0; i < sp; i++)
        s[i] = r[i] = -7;   /* holes stay -7 */
    for (long i = 0; i < n; i++)
        s[slot(v, i)] = value(i, rank);
    if (inplace)
        memcpy(r, s, (size_t)sp * sizeof(int));
    call(inplace ? MPI_IN_PLACE : s, r, (int)(n / per[v]), views[v], op, nb);
    for (long i = 0; i < n; i++) {
        long want = value(i, 0);
        if (!nc) {
            want = 0;
            for (int p = 0; p < size; p++)
                want += value(i, p);
            want = (int)(unsigned)want;   /* the same wrap as the ints' sum */
        }
        if (r[slot(v, i)] != want)
            fail(name, n, k, i, r[slot(v, i)], want);
    }
    if (v == 2)
        for (long i = 0; i < sp; i++)
            if (i % 5 == 2 && r[i] != -7)
                fail("hole written", n, k, i, r[i], -7);
    if (!inplace)
        for (long i = 0; i < n; i++)
            if (s[slot(v, i)] != value(i, rank))
                fail("send buffer changed", n, k, i, s[slot(v, i)], value(i, rank));
    free(s);
    free(r);
}

/* Float i of rank r: magnitudes from 1e-3 to 1e5, so that sums round. */
static float fvalue(long i, int r)
{
    float m = (float)((i * 7 + r * 3) % 9) - 3.0f;
    float x = (float)((i * 2654435761u + (unsigned)r * 40503u) % 100003u) / 7.0f;
    for (; m > 0; m--)
        x *= 10.0f;
    for (; m < 0; m++)
        x /= 10.0f;
    return (i + r) % 3 ? x : -x;
}

static void run_floats(long n, int k)
{
    int nb = pick_nb(k);
    int inplace = k & 1;
    float *s = malloc((size_t)n * sizeof(float)), *r = malloc((size_t)n * sizeof(float));
    float *r0 = malloc((size_t)n * sizeof(float));
    for (long i = 0; i < n; i++)
        s[i] = r[i] = fvalue(i, rank);
    call(inplace ? MPI_IN_PLACE : s, r, (int)n, MPI_FLOAT, MPI_SUM, nb);
    /* rank 0's result to all: every rank's bitwise the same */
    memcpy(r0, r, (size_t)n * sizeof(float));
    MPI_Bcast(r0, (int)n, MPI_FLOAT, 0, MPI_COMM_WORLD);
    for (long i = 0; i < n; i++) {
        unsigned a, b;
        memcpy(&a, &r[i], sizeof(a));
        memcpy(&b, &r0[i], sizeof(b));
        if (a != b)
            fail("float sum differs from rank 0's (bits)", n, k, i, a, b);
        if (size == 2) {
            volatile float want = fvalue(i, 0) + fvalue(i, 1);
            memcpy(&b, (const void *)&want, sizeof(b));
            if (a != b)
                fail("float sum (bits)", n, k, i, a, b);
        } else {
            double want = 0, mag = 0;
            for (int p = 0; p < size; p++) {
                want += fvalue(i, p);
                mag += fvalue(i, p) < 0 ? -fvalue(i, p) : fvalue(i, p);
            }
            double d = r[i] - want;
            if (d > 1e-5 * mag || d < -1e-5 * mag)
                fail("float sum", n, k, i, (long)r[i], (long)want);
        }
    }
    free(s);
    free(r);
    free(r0);
}

static void run_loc(long n, int k, MPI_Op op, int maxloc, int two_int)
{
    int nb = pick_nb(k);
    int inplace = k & 1;
    size_t esz = two_int ? 2 * sizeof(int) : sizeof(dint_t);
    char *s = malloc((size_t)n * esz), *r = malloc((size_t)n * esz);
    loc_fill(s, n, two_int);
    if (inplace)
        memcpy(r, s, (size_t)n * esz);
    call(inplace ? MPI_IN_PLACE : s, r, (int)n, two_int ? MPI_2INT : MPI_DOUBLE_INT, op, nb);
    long got, want, i = loc_check(r, n, maxloc, two_int, &got, &want);
    if (i >= 0)
        fail(two_int ? "loc 2int" : "loc double_int", n, k, i, got, want);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    views_create();
    MPI_Op usum, ufirst;
    MPI_Op_create(user_sum, 1, &usum);
    MPI_Op_create(user_first, 0, &ufirst);

    /* ints: 4 B; 1020 ints = 4080 B (one message), 1028 = 4112 B (2 chunks), 16380 (a
     * multiple of 4 and 7), 32768 = 128 KiB (the last chunked size), 32772 (above it) */
    const long ns[] = { 1,     7,     1020,  1028,  4097,  9599,  16380,
                        16384, 32760, 32768, 32772, 65536, 65540, 262144 };
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
        for (int k = 0; k < 16; k++) {
            run_ints(ns[a], k, MPI_SUM, "sum", 0);
            run_ints(ns[a], k, usum, "user sum", 0);
            run_ints(ns[a], k, ufirst, "user first (not commutative)", 1);
            if (k < 4)
                run_floats(ns[a], k);
        }
    /* pairs: MPI_DOUBLE_INT is 12 data bytes (16 with its hole), MPI_2INT 8 */
    const long pn[] = { 1, 341, 342, 1001, 5461, 21845, 21846 };
    for (size_t a = 0; a < sizeof(pn) / sizeof(pn[0]); a++)
        for (int k = 0; k < 4; k++)
            for (int t = 0; t < 2; t++) {
                run_loc(pn[a], k, MPI_MINLOC, 0, t);
                run_loc(pn[a], k, MPI_MAXLOC, 1, t);
            }
    MPI_Op_free(&usum);
    MPI_Op_free(&ufirst);
    views_free();
    if (rank == 0)
        printf("coll_allreduce2: ok\n");
    MPI_Finalize();
    return 0;
}
