/*
 * coll_pair_chunks: the blocking MPI_Bcast, MPI_Allgather(v), MPI_Alltoall(v),
 * MPI_Scatter(v) and MPI_Gather(v) where each rank may describe its data differently, at the
 * sizes where 2 ranks of one node send a message in eager chunks (above 32 KiB, up to
 * 128 KiB one way, 256 KiB for a block of an exchange: collectives/coll_impl.h,
 * COLL_PAIR_CHUNK)
 * and around them. Per call, each rank picks on its own its view of the data (int_views.h:
 * MPI_INT, contiguous(4), a vector with holes, contiguous(7), whose 28-byte items the 16 KiB
 * chunks cut); the allgathers in place or not, and allgatherv with blocks of different sizes
 * (one direction in chunks, the other one message). Every int is checked, and the holes of
 * the vector view must stay untouched; the roots' blocks in place or not. Runs at any rank count (the chunks only at 2).
 * Exit 0 on success; prints the first difference and aborts otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

static int rank, size;
#include "int_views.h"

#define HOLE (-7)

static void fail(const char *what, long n, int k, long i, long got, long want)
{
    fprintf(stderr, "coll_pair_chunks: rank %d: %s n=%ld case=%d: int %ld is %ld, want %ld\n",
            rank, what, n, k, i, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A view of this rank's for n ints (n a multiple of its ints per item), from case k. */
static int pick_view(long n, int k)
{
    int v = (k + rank) % 4;
    while (n % per[v])
        v = (v + 1) % 4;
    return v;
}

/* A buffer of n ints in view v, every int and hole HOLE. */
static int *blank(int v, long n)
{
    long sp = span(v, n) > 0 ? span(v, n) : 1;
    int *b = malloc((size_t)sp * sizeof(int));
    for (long i = 0; i < sp; i++)
        b[i] = HOLE;
    return b;
}

/* Checks ints [from, from + n) of the whole at offset off of buffer b (view v, the whole
 * being total ints) against value(i, who), and the holes of the vector view. */
static void check(const int *b, int v, long total, long off, long n, int who, const char *what,
                  int k)
{
    for (long i = 0; i < n; i++)
        if (b[slot(v, off + i)] != value(i, who))
            fail(what, n, k, off + i, b[slot(v, off + i)], value(i, who));
    if (v == 2)
        for (long i = 0; i < span(v, total); i++)
            if (i % 5 == 2 && b[i] != HOLE)
                fail("hole written", n, k, i, b[i], HOLE);
}

static void run_bcast(long n, int root, int k)
{
    int v = pick_view(n, k);
    int *b = blank(v, n);
    if (rank == root)
        for (long i = 0; i < n; i++)
            b[slot(v, i)] = value(i, root);
    MPI_Bcast(b, (int)(n / per[v]), views[v], root, MPI_COMM_WORLD);
    check(b, v, n, 0, n, root, "bcast", k);
    free(b);
}

/* Allgather (ns NULL) of n ints per rank, or allgatherv with ns[r] ints from rank r (each a
 * multiple of 28, so every view fits every block). */
static void run_allgather(long n, const long *ns, int k)
{
    long total = 0, mine = ns ? ns[rank] : n;
    for (int r = 0; r < size; r++)
        total += ns ? ns[r] : n;
    int v = pick_view(ns ? 28 : n, k), sv = pick_view(mine, k + 1);
    int inplace = (k >> 1) & 1;
    int *out = blank(v, total), *s = blank(sv, mine);
    int *counts = malloc((size_t)size * sizeof(int)), *displs = malloc((size_t)size * sizeof(int));
    long at = 0, my_at = 0;
    for (int r = 0; r < size; r++) {
        long c = ns ? ns[r] : n;
        counts[r] = (int)(c / per[v]);
        displs[r] = (int)(at / per[v]);
        if (r == rank)
            my_at = at;
        at += c;
    }
    for (long i = 0; i < mine; i++) {
        s[slot(sv, i)] = value(i, rank);
        if (inplace)
            out[slot(v, my_at + i)] = value(i, rank);
    }
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (ns)
        MPI_Allgatherv(sb, (int)(mine / per[sv]), views[sv], out, counts, displs, views[v],
                       MPI_COMM_WORLD);
    else
        MPI_Allgather(sb, (int)(mine / per[sv]), views[sv], out, (int)(n / per[v]), views[v],
                      MPI_COMM_WORLD);
    at = 0;
    for (int r = 0; r < size; r++) {
        long c = ns ? ns[r] : n;
        check(out, v, total, at, c, r, ns ? "allgatherv" : "allgather", k);
        at += c;
    }
    free(counts);
    free(displs);
    free(out);
    free(s);
}

/* Ints in the block from rank src to rank dst: n, or with v (the v forms) v[(src + dst) % 2]
 * (multiples of 28, so every view fits). */
static long blk_ints(long n, const long *v, int src, int dst)
{
    return v ? v[(src + dst) % 2] : n;
}

/* Alltoall(v) of blk_ints ints per block; int i of the block from src to dst is
 * value(i, src * size + dst). */
static void run_alltoall(long n, const long *v, int k)
{
    int sv = pick_view(v ? 28 : n, k), rv = pick_view(v ? 28 : n, k + 1);
    int *sc = malloc((size_t)size * sizeof(int)), *sd = malloc((size_t)size * sizeof(int));
    int *rc = malloc((size_t)size * sizeof(int)), *rd = malloc((size_t)size * sizeof(int));
    long st = 0, rt = 0;
    for (int r = 0; r < size; r++) {
        long so = blk_ints(n, v, rank, r), ri = blk_ints(n, v, r, rank);
        sc[r] = (int)(so / per[sv]);
        sd[r] = (int)(st / per[sv]);
        rc[r] = (int)(ri / per[rv]);
        rd[r] = (int)(rt / per[rv]);
        st += so;
        rt += ri;
    }
    int *s = blank(sv, st), *out = blank(rv, rt);
    for (int r = 0, at = 0; r < size; at += (int)blk_ints(n, v, rank, r), r++)
        for (long i = 0; i < blk_ints(n, v, rank, r); i++)
            s[slot(sv, at + i)] = value(i, rank * size + r);
    if (v)
        MPI_Alltoallv(s, sc, sd, views[sv], out, rc, rd, views[rv], MPI_COMM_WORLD);
    else
        MPI_Alltoall(s, sc[0], views[sv], out, rc[0], views[rv], MPI_COMM_WORLD);
    long at = 0;
    for (int r = 0; r < size; r++) {
        long c = blk_ints(n, v, r, rank);
        for (long i = 0; i < c; i++)
            if (out[slot(rv, at + i)] != value(i, r * size + rank))
                fail(v ? "alltoallv" : "alltoall", c, k, at + i, out[slot(rv, at + i)],
                     value(i, r * size + rank));
        at += c;
    }
    check(out, rv, rt, 0, 0, 0, "alltoall holes", k);
    free(s);
    free(out);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

/* Scatter(v) and gather(v) from and to root of blk_ints(n, v, r, r) ints for rank r; int
 * i of rank r's block is value(i, 100 + r). The root in place when k & 2. */
static void run_rooted(long n, const long *v, int root, int k)
{
    int bv = pick_view(v ? 28 : n, k), mv = pick_view(blk_ints(n, v, rank, rank), k + 1);
    int inplace = rank == root && (k & 2);
    long total = 0, mine = blk_ints(n, v, rank, rank), my_at = 0;
    int *c = malloc((size_t)size * sizeof(int)), *d = malloc((size_t)size * sizeof(int));
    for (int r = 0; r < size; r++) {
        if (r == rank)
            my_at = total;
        c[r] = (int)(blk_ints(n, v, r, r) / per[bv]);
        d[r] = (int)(total / per[bv]);
        total += blk_ints(n, v, r, r);
    }
    /* scatter: the root's blocks out, each rank's block in */
    int *all = blank(bv, total), *b = blank(mv, mine);
    if (rank == root)
        for (int r = 0, at = 0; r < size; at += (int)blk_ints(n, v, r, r), r++)
            for (long i = 0; i < blk_ints(n, v, r, r); i++)
                all[slot(bv, at + i)] = value(i, 100 + r);
    void *rb = inplace ? MPI_IN_PLACE : (void *)b;
    if (v)
        MPI_Scatterv(all, c, d, views[bv], rb, (int)(mine / per[mv]), views[mv], root,
                     MPI_COMM_WORLD);
    else
        MPI_Scatter(all, c[0], views[bv], rb, (int)(mine / per[mv]), views[mv], root,
                    MPI_COMM_WORLD);
    if (!inplace)
        check(b, mv, mine, 0, mine, 100 + rank, v ? "scatterv" : "scatter", k);
    /* gather: each rank's block back to a blank root buffer (in place: its own block there) */
    free(all);
    all = blank(bv, total);
    if (inplace)
        for (long i = 0; i < mine; i++)
            all[slot(bv, my_at + i)] = value(i, 100 + rank);
    for (long i = 0; i < mine; i++)
        b[slot(mv, i)] = value(i, 100 + rank);
    const void *sb = inplace ? MPI_IN_PLACE : (const void *)b;
    if (v)
        MPI_Gatherv(sb, (int)(mine / per[mv]), views[mv], all, c, d, views[bv], root,
                    MPI_COMM_WORLD);
    else
        MPI_Gather(sb, (int)(mine / per[mv]), views[mv], all, c[0], views[bv], root,
                   MPI_COMM_WORLD);
    if (rank == root)
        for (int r = 0, at = 0; r < size; at += (int)blk_ints(n, v, r, r), r++)
            check(all, bv, total, at, blk_ints(n, v, r, r), 100 + r, v ? "gatherv" : "gather",
                  k);
    free(all);
    free(b);
    free(c);
    free(d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    views_create();

    /* ints: 8192 = 32 KiB (one message), 8193 (3 chunks, the last 4 bytes), 16384 = 64 KiB
     * (4 whole chunks), odd ones, 32768 = 128 KiB (the broadcast's last chunked size), 32772
     * (above), 65536 = 256 KiB (the allgather's), 65543 (above) */
    const long ns[] = { 1, 7, 4096, 8192, 8193, 8199, 12289, 16384, 16387, 28679, 32768, 32772,
                        65536, 65543 };
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
        for (int k = 0; k < 8; k++) {
            for (int root = 0; root < size; root += size > 1 ? size - 1 : 1)
                run_bcast(ns[a], root, k);
            run_allgather(ns[a], NULL, k);
            run_alltoall(ns[a], NULL, k);
            for (int root = 0; root < size; root += size > 1 ? size - 1 : 1)
                run_rooted(ns[a], NULL, root, k);
        }
    /* allgatherv, blocks of multiples of 28 ints: 112 B, 36 KiB + 112 B, 112 KiB, 144 KiB
     * (chunks at 2 ranks), 288 KiB (one message) */
    const long vs[][2] = { { 28, 9240 }, { 9240, 28 }, { 9240, 28672 }, { 36876, 28 },
                           { 28672, 36876 }, { 73752, 9240 }, { 28, 73752 } };
    for (size_t a = 0; a < sizeof(vs) / sizeof(vs[0]); a++)
        for (int k = 0; k < 8; k++) {
            long *b = malloc((size_t)size * sizeof(long));
            for (int r = 0; r < size; r++)
                b[r] = vs[a][r % 2];
            run_allgather(0, b, k);
            free(b);
            run_alltoall(0, vs[a], k);
            for (int root = 0; root < size; root += size > 1 ? size - 1 : 1)
                run_rooted(0, vs[a], root, k);
        }
    views_free();
    if (rank == 0)
        printf("coll_pair_chunks: ok\n");
    MPI_Finalize();
    return 0;
}
