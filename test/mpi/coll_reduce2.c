/*
 * coll_reduce2: MPI_Reduce where each rank may describe its vector differently and take a
 * different path inside the library, at the sizes where the 2-rank reduce sends the leaf's
 * vector in chunks (above 4 KiB, up to 256 KiB: collectives/coll_impl.h,
 * coll_reduce2_chunks) and around them. Per call, each rank picks on its own:
 *   - its view of the vector: n MPI_INT, n/4 of contiguous(4 MPI_INT), n/4 of a vector of
 *     2 x 2 MPI_INT with holes, or n/7 of contiguous(7 MPI_INT) (28 bytes: no divisor of
 *     the chunk, so chunks end inside an item); same signature on every rank;
 *   - blocking MPI_Reduce or MPI_Ireduce + MPI_Wait (MPI does not let a blocking call match
 *     a nonblocking one; rdmpi sends the same messages for both, and this checks it does);
 *   - at the root, MPI_IN_PLACE or a separate send buffer (the root then takes the schedule
 *     path, the leaf the blocking fast path).
 * Operations: MPI_SUM, a commutative user sum, a user operation that does not commute
 * (x op y = x: the result is rank 0's vector, which only the canonical order gives),
 * MINLOC/MAXLOC on MPI_DOUBLE_INT (a pair with a hole) and MPI_2INT.
 * Counts: 1, 7, odd ones next to the chunk sizes, 64 KiB, 256 KiB and one item above, 1 MiB.
 * Exit 0 on success; prints the first difference and aborts otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

static int rank, size;
#include "int_views.h"

static void fail(const char *what, long n, int root, int k, long i, long got, long want)
{
    fprintf(stderr, "coll_reduce2: rank %d: %s n=%ld root=%d case=%d: item %ld is %ld, want %ld\n",
            rank, what, n, root, k, i, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void run_ints(long n, int root, int k, MPI_Op op, const char *name, int nc)
{
    /* each rank's own choice: a valid view (n a multiple of its ints), the path, in place */
    int v = ((k >> 2) + rank) % 4;
    while (n % per[v])
        v = (v + 1) % 4;
    int nb = ((k >> 1) ^ rank) & 1;
    int inplace = rank == root && (k & 1);
    long sp = span(v, n);
    int *s = malloc((size_t)sp * sizeof(int)), *r = malloc((size_t)sp * sizeof(int));
    for (long i = 0; i < sp; i++)
        s[i] = r[i] = -7;   /* holes stay -7 */
    for (long i = 0; i < n; i++)
        s[slot(v, i)] = value(i, rank);
    if (inplace)
        memcpy(r, s, (size_t)sp * sizeof(int));
    int cnt = (int)(n / per[v]);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (nb) {
        MPI_Request q;
        MPI_Ireduce(sb, r, cnt, views[v], op, root, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        MPI_Reduce(sb, r, cnt, views[v], op, root, MPI_COMM_WORLD);
    }
    if (rank == root) {
        for (long i = 0; i < n; i++) {
            long want = value(i, 0);
            if (!nc) {
                want = 0;
                for (int p = 0; p < size; p++)
                    want += value(i, p);
                want = (int)(unsigned)want;   /* the same wrap as the ints' sum */
            }
            if (r[slot(v, i)] != want)
                fail(name, n, root, k, i, r[slot(v, i)], want);
        }
        if (v == 2)
            for (long i = 0; i < sp; i++)
                if (i % 5 == 2 && r[i] != -7)
                    fail("hole written", n, root, k, i, r[i], -7);
    }
    free(s);
    free(r);
}

static void run_loc(long n, int root, int k, MPI_Op op, int maxloc, int two_int)
{
    int nb = ((k >> 1) ^ rank) & 1;
    int inplace = rank == root && (k & 1);
    size_t esz = two_int ? 2 * sizeof(int) : sizeof(dint_t);
    char *s = malloc((size_t)n * esz), *r = malloc((size_t)n * esz);
    loc_fill(s, n, two_int);
    if (inplace)
        memcpy(r, s, (size_t)n * esz);
    MPI_Datatype t = two_int ? MPI_2INT : MPI_DOUBLE_INT;
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (nb) {
        MPI_Request q;
        MPI_Ireduce(sb, r, (int)n, t, op, root, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        MPI_Reduce(sb, r, (int)n, t, op, root, MPI_COMM_WORLD);
    }
    long got, want, i;
    if (rank == root && (i = loc_check(r, n, maxloc, two_int, &got, &want)) >= 0)
        fail(two_int ? "loc 2int" : "loc double_int", n, root, k, i, got, want);
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
     * multiple of 4 and 7), 65536 = 256 KiB (the last chunked size), 65540 (above it) */
    const long ns[] = { 1, 7, 1020, 1028, 4097, 9599, 16380, 16384, 65520, 65536, 65540, 262144 };
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
        for (int root = 0; root < size; root += size > 1 ? size - 1 : 1)
            for (int k = 0; k < 16; k++) {
                run_ints(ns[a], root, k, MPI_SUM, "sum", 0);
                run_ints(ns[a], root, k, usum, "user sum", 0);
                run_ints(ns[a], root, k, ufirst, "user first (not commutative)", 1);
            }
    /* pairs: MPI_DOUBLE_INT is 12 data bytes (16 with its hole), MPI_2INT 8 */
    const long pn[] = { 1, 341, 342, 1001, 5461, 21845, 21846 };
    for (size_t a = 0; a < sizeof(pn) / sizeof(pn[0]); a++)
        for (int root = 0; root < size; root += size > 1 ? size - 1 : 1)
            for (int k = 0; k < 4; k++)
                for (int t = 0; t < 2; t++) {
                    run_loc(pn[a], root, k, MPI_MINLOC, 0, t);
                    run_loc(pn[a], root, k, MPI_MAXLOC, 1, t);
                }
    MPI_Op_free(&usum);
    MPI_Op_free(&ufirst);
    views_free();
    if (rank == 0)
        printf("coll_reduce2: ok\n");
    MPI_Finalize();
    return 0;
}
