/*
 * Derived datatypes: vector, hvector, indexed, hindexed, indexed_block,
 * hindexed_block, struct, resized and subarray, and what
 * MPI_Type_get_envelope/get_contents say of them. For each: the size, bounds
 * and true bounds MPI defines; MPI_Pack's output against the type map worked
 * out by hand; and messages of it between ranks (eager and rendezvous sizes,
 * typed on one side and packed or contiguous on the other), with the bytes
 * between the blocks left untouched. Then collectives on such types:
 * bcast, gather and (an rdmpi extension) allreduce of a vector of doubles.
 * Standard MPI otherwise: the expectations were checked against Open MPI 4.1
 * and MPICH 4.0.
 */
#include "check.h"

#include <stddef.h>

/* Fills n doubles with values that name the rank and the index. */
static void fill(double *a, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++)
        a[i] = rank * 1000000.0 + (double)i;
}

static void check_bounds(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb,
                         MPI_Aint textent, const char *what)
{
    int s;
    MPI_Aint l, e;
    MPI_OK(MPI_Type_size(t, &s));
    CHECK(s == size, "%s: size %d, want %d", what, s, size);
    MPI_OK(MPI_Type_get_extent(t, &l, &e));
    CHECK(l == lb && e == extent, "%s: lb %ld extent %ld, want %ld %ld", what, (long)l, (long)e,
          (long)lb, (long)extent);
    MPI_OK(MPI_Type_get_true_extent(t, &l, &e));
    CHECK(l == tlb && e == textent, "%s: true lb %ld extent %ld, want %ld %ld", what, (long)l,
          (long)e, (long)tlb, (long)textent);
}

/*
 * Packs count items of t from src and compares with the doubles at the
 * indices want[0..nwant) of src (the type map, by hand); then unpacks into a
 * buffer of sentinels and checks only those indices changed.
 */
static void check_map_at(MPI_Datatype t, int count, const double *src, size_t nsrc, int base,
                         const int *want, int nwant, const char *what)
{
    int psize, pos = 0;
    MPI_OK(MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize));
    CHECK(psize == nwant * (int)sizeof(double), "%s: pack size %d, want %d", what, psize,
          nwant * (int)sizeof(double));
    double *packed = malloc((size_t)psize + 1);
    MPI_OK(MPI_Pack(src + base, count, t, packed, psize, &pos, MPI_COMM_WORLD));
    CHECK(pos == psize, "%s: position %d after pack, want %d", what, pos, psize);
    for (int i = 0; i < nwant; i++)
        CHECK(packed[i] == src[want[i]], "%s: packed element %d is %g, want src[%d] = %g", what,
              i, packed[i], want[i], src[want[i]]);
    double *dst = malloc(nsrc * sizeof(double));
    for (size_t i = 0; i < nsrc; i++)
        dst[i] = -1.0;
    pos = 0;
    MPI_OK(MPI_Unpack(packed, psize, &pos, dst + base, count, t, MPI_COMM_WORLD));
    CHECK(pos == psize, "%s: position %d after unpack, want %d", what, pos, psize);
    for (size_t i = 0; i < nsrc; i++) {
        int hit = 0;
        for (int k = 0; k < nwant; k++)
            hit |= want[k] == (int)i;
        CHECK(hit ? dst[i] == src[i] : dst[i] == -1.0, "%s: after unpack element %zu is %g", what,
              i, dst[i]);
    }
    free(dst);
    free(packed);
}

/* check_map_at with items starting at src[0]. */
static void check_map(MPI_Datatype t, int count, const double *src, size_t nsrc, const int *want,
                      int nwant, const char *what)
{
    check_map_at(t, count, src, nsrc, 0, want, nwant, what);
}

static void test_constructors(void)
{
    double src[64];
    fill(src, 64, 7);
    MPI_Datatype t;

    t_begin("vector");
    MPI_OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    check_bounds(t, 48, 0, 96, 0, 96, "vector(3, 2, 5)");
    check_map(t, 1, src, 64, (const int[]){0, 1, 5, 6, 10, 11}, 6, "vector(3, 2, 5)");
    /* the second item starts one extent (12 doubles) on */
    check_map(t, 2, src, 64, (const int[]){0, 1, 5, 6, 10, 11, 12, 13, 17, 18, 22, 23}, 12,
              "2 x vector(3, 2, 5)");
    MPI_OK(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "Type_free left the handle");

    t_begin("vector, negative stride");
    MPI_OK(MPI_Type_vector(3, 1, -2, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    check_bounds(t, 24, -32, 40, -32, 40, "vector(3, 1, -2)");
    check_map_at(t, 1, src, 64, 8, (const int[]){8, 6, 4}, 3, "vector(3, 1, -2)");
    MPI_OK(MPI_Type_free(&t));

    t_begin("hvector");
    MPI_OK(MPI_Type_create_hvector(2, 3, 4 * sizeof(double), MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    check_bounds(t, 48, 0, 56, 0, 56, "hvector(2, 3, 32 B)");
    check_map(t, 1, src, 64, (const int[]){0, 1, 2, 4, 5, 6}, 6, "hvector(2, 3, 32 B)");
    MPI_OK(MPI_Type_free(&t));

    t_begin("indexed");
    MPI_OK(MPI_Type_indexed(3, (const int[]){1, 2, 1}, (const int[]){9, 2, 0}, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    check_bounds(t, 32, 0, 80, 0, 80, "indexed");
    check_map(t, 1, src, 64, (const int[]){9, 2, 3, 0}, 4, "indexed (type-map order)");
    MPI_OK(MPI_Type_free(&t));

    t_begin("hindexed");
    MPI_OK(MPI_Type_create_hindexed(2, (const int[]){2, 1}, (const MPI_Aint[]){24, 8}, MPI_DOUBLE,
                                    &t));
    MPI_OK(MPI_Type_commit(&t));
    check_bounds(t, 24, 8, 32, 8, 32, "hindexed");
    check_map(t, 1, src, 64, (const int[]){3, 4, 1}, 3, "hindexed");
    MPI_OK(MPI_Type_free(&t));

    t_begin("indexed_block");
    MPI_OK(MPI_Type_create_indexed_block(3, 2, (const int[]){4, 0, 8}, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    check_bounds(t, 48, 0, 80, 0, 80, "indexed_block");
    check_map(t, 1, src, 64, (const int[]){4, 5, 0, 1, 8, 9}, 6, "indexed_block");
    MPI_OK(MPI_Type_free(&t));

    t_begin("hindexed_block");
    MPI_OK(MPI_Type_create_hindexed_block(2, 1, (const MPI_Aint[]){16, 40}, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    check_bounds(t, 16, 16, 32, 16, 32, "hindexed_block");
    check_map(t, 1, src, 64, (const int[]){2, 5}, 2, "hindexed_block");
    MPI_OK(MPI_Type_free(&t));

    t_begin("resized");
    MPI_Datatype col;
    MPI_OK(MPI_Type_vector(4, 1, 8, MPI_DOUBLE, &t)); /* a column of a 4x8 matrix */
    MPI_OK(MPI_Type_create_resized(t, 0, sizeof(double), &col));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_commit(&col));
    check_bounds(col, 32, 0, 8, 0, 200, "resized column");
    /* three consecutive columns: the classic transpose building block */
    check_map(col, 3, src, 64, (const int[]){0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26}, 12,
              "3 resized columns");
    MPI_OK(MPI_Type_free(&col));

    t_begin("subarray");
    /* a 2x3 block at (1, 2) of a 4x6 array, C order */
    MPI_OK(MPI_Type_create_subarray(2, (const int[]){4, 6}, (const int[]){2, 3},
                                    (const int[]){1, 2}, MPI_ORDER_C, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    check_bounds(t, 48, 0, 192, 64, 72, "subarray C");
    check_map(t, 1, src, 64, (const int[]){8, 9, 10, 14, 15, 16}, 6, "subarray C");
    MPI_OK(MPI_Type_free(&t));
    /* the same shape in Fortran order: dimension 0 varies fastest */
    MPI_OK(MPI_Type_create_subarray(2, (const int[]){4, 6}, (const int[]){2, 3},
                                    (const int[]){1, 2}, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    check_map(t, 1, src, 64, (const int[]){9, 10, 13, 14, 17, 18}, 6, "subarray Fortran");
    MPI_OK(MPI_Type_free(&t));
    /* 3-d, C order: a 2x2x2 cube at (1, 1, 1) of 3x3x3 */
    MPI_OK(MPI_Type_create_subarray(3, (const int[]){3, 3, 3}, (const int[]){2, 2, 2},
                                    (const int[]){1, 1, 1}, MPI_ORDER_C, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    check_map(t, 1, src, 64, (const int[]){13, 14, 16, 17, 22, 23, 25, 26}, 8, "subarray 3-d");
    MPI_OK(MPI_Type_free(&t));
}

struct particle {
    double x[3];
    int id;
    char tag;
};

static void test_struct(void)
{
    t_begin("struct");
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_struct(3, (const int[]){3, 1, 1},
                                  (const MPI_Aint[]){offsetof(struct particle, x),
                                                     offsetof(struct particle, id),
                                                     offsetof(struct particle, tag)},
                                  (const MPI_Datatype[]){MPI_DOUBLE, MPI_INT, MPI_CHAR}, &t));
    MPI_OK(MPI_Type_commit(&t));
    /* the extent is padded to the double's alignment, so it matches the C array's stride */
    MPI_Aint tail = offsetof(struct particle, tag) + 1;
    check_bounds(t, 3 * 8 + 4 + 1, 0, sizeof(struct particle), 0, tail, "struct particle");

    struct particle p[3], q[3];
    memset(p, 0, sizeof(p));
    for (int i = 0; i < 3; i++) {
        p[i] = (struct particle){{i + 0.5, i + 1.5, i + 2.5}, 100 + i, (char)('a' + i)};
    }
    int psize, pos = 0;
    MPI_OK(MPI_Pack_size(3, t, MPI_COMM_WORLD, &psize));
    char buf[256];
    MPI_OK(MPI_Pack(p, 3, t, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    CHECK(pos == psize && psize == 3 * 29, "packed %d bytes, size says %d, want 87", pos, psize);
    memset(q, 0x5a, sizeof(q));
    pos = 0;
    MPI_OK(MPI_Unpack(buf, psize, &pos, q, 3, t, MPI_COMM_WORLD));
    for (int i = 0; i < 3; i++)
        CHECK(q[i].x[0] == p[i].x[0] && q[i].x[2] == p[i].x[2] && q[i].id == p[i].id &&
                  q[i].tag == p[i].tag, "particle %d differs after pack/unpack", i);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc;
#ifdef RDMPI_VERSION_STRING
    /* too small a buffer is an error, not an overrun (MPICH packs what fits) */
    pos = 0;
    rc = MPI_Pack(p, 3, t, buf, 40, &pos, MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS && pos == 0, "packing 87 bytes into 40 returned %d, position %d", rc,
          pos);
#endif
    MPI_Datatype uncommitted;
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &uncommitted));
    rc = MPI_Send(buf, 1, uncommitted, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "sending an uncommitted type: class %d, want MPI_ERR_TYPE", cls);
    MPI_OK(MPI_Type_free(&uncommitted));
    rc = MPI_Type_vector(-1, 1, 1, MPI_INT, &uncommitted);
    CHECK(rc != MPI_SUCCESS, "a negative count was accepted");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* between ranks: rank 0 sends particles typed, the others receive them typed */
    if (t_size > 1) {
        if (t_rank == 0) {
            for (int r = 1; r < t_size; r++)
                MPI_OK(MPI_Send(p, 3, t, r, 5, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            memset(q, 0, sizeof(q));
            MPI_OK(MPI_Recv(q, 3, t, 0, 5, MPI_COMM_WORLD, &st));
            int n;
            MPI_OK(MPI_Get_count(&st, t, &n));
            CHECK(n == 3, "received %d particles, want 3", n);
            for (int i = 0; i < 3; i++)
                CHECK(q[i].x[1] == p[i].x[1] && q[i].id == p[i].id && q[i].tag == p[i].tag,
                      "received particle %d differs", i);
        }
    }
    MPI_OK(MPI_Type_free(&t));
}

/*
 * Messages of every other double of an n x 2 array: typed (vector) sender,
 * contiguous receiver and the other way round, at sizes below and above the
 * rendezvous threshold; the gaps on the typed side must stay untouched.
 */
static void test_messages(void)
{
    t_begin("vector messages");
    if (t_size < 2)
        return;
    static const int counts[] = {1, 7, 1000, 40000, 300000};
    int peer = t_rank == 0 ? 1 : 0;
    if (t_rank > 1)
        return;
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        int n = counts[c];
        MPI_Datatype every_other;
        MPI_OK(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &every_other));
        MPI_OK(MPI_Type_commit(&every_other));
        double *strided = malloc(2 * (size_t)n * sizeof(double));
        double *dense = malloc((size_t)n * sizeof(double));
        if (t_rank == 0) {
            fill(strided, 2 * (size_t)n, 0);
            MPI_OK(MPI_Send(strided, 1, every_other, peer, 1, MPI_COMM_WORLD));
            fill(dense, (size_t)n, 0);
            MPI_OK(MPI_Send(dense, n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD));
        } else {
            MPI_OK(MPI_Recv(dense, n, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; i++)
                CHECK(dense[i] == 2.0 * i, "n=%d: dense[%d] = %g, want %g", n, i, dense[i],
                      2.0 * i);
            for (int i = 0; i < 2 * n; i++)
                strided[i] = -1.0;
            MPI_Status st;
            MPI_OK(MPI_Recv(strided, 1, every_other, peer, 2, MPI_COMM_WORLD, &st));
            for (int i = 0; i < 2 * n; i++) {
                double want = i % 2 ? -1.0 : (double)(i / 2);
                CHECK(strided[i] == want, "n=%d: strided[%d] = %g, want %g", n, i, strided[i],
                      want);
            }
            int elems;
            MPI_OK(MPI_Get_elements(&st, every_other, &elems));
            CHECK(elems == n, "n=%d: Get_elements %d", n, elems);
        }
        free(strided);
        free(dense);
        MPI_OK(MPI_Type_free(&every_other));
    }
}

static void test_collectives(void)
{
    enum { ROWS = 4, COLS = 5 };
    t_begin("bcast of a column");
    MPI_Datatype colv, col;
    MPI_OK(MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &colv));
    MPI_OK(MPI_Type_create_resized(colv, 0, sizeof(double), &col));
    MPI_OK(MPI_Type_commit(&col));
    double m[ROWS][COLS];
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            m[i][j] = t_rank == 0 ? i * 10 + j : -1.0;
    MPI_OK(MPI_Bcast(&m[0][1], 2, col, 0, MPI_COMM_WORLD)); /* columns 1 and 2 */
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) {
            double want = (t_rank == 0 || j == 1 || j == 2) ? i * 10 + j : -1.0;
            CHECK(m[i][j] == want, "m[%d][%d] = %g, want %g", i, j, m[i][j], want);
        }

    t_begin("gather into columns");
    /* every rank sends a dense column of ROWS; the root stores rank r's in column r */
    double *all = NULL;
    MPI_Datatype gcolv, gcol;
    MPI_OK(MPI_Type_vector(ROWS, 1, t_size, MPI_DOUBLE, &gcolv));
    MPI_OK(MPI_Type_create_resized(gcolv, 0, sizeof(double), &gcol));
    MPI_OK(MPI_Type_commit(&gcol));
    double mine[ROWS];
    for (int i = 0; i < ROWS; i++)
        mine[i] = t_rank * 100 + i;
    if (t_rank == 0)
        all = malloc(sizeof(double) * ROWS * (size_t)t_size);
    MPI_OK(MPI_Gather(mine, ROWS, MPI_DOUBLE, all, 1, gcol, 0, MPI_COMM_WORLD));
    if (t_rank == 0) {
        for (int i = 0; i < ROWS; i++)
            for (int r = 0; r < t_size; r++)
                CHECK(all[i * t_size + r] == r * 100 + i, "all[%d][%d] = %g", i, r,
                      all[i * t_size + r]);
        free(all);
    }

#ifdef RDMPI_VERSION_STRING
    /* MPI defines the predefined ops on predefined types only (Open MPI 4.1 and MPICH 4.0
       refuse the rest); rdmpi also reduces derived types made of one predefined type */
    t_begin("allreduce of a vector");
    /* sum column 3 of everyone's matrix, in place */
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            m[i][j] = (t_rank + 1) * (i + 1) + (j == 3 ? 0 : 1000);
    MPI_OK(MPI_Type_commit(&colv));
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &m[0][3], 1, colv, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) {
            double want = j == 3 ? (double)(i + 1) * t_size * (t_size + 1) / 2
                                 : (t_rank + 1) * (i + 1) + 1000;
            CHECK(m[i][j] == want, "m[%d][%d] = %g, want %g", i, j, m[i][j], want);
        }
#endif
    MPI_OK(MPI_Type_free(&col));
    MPI_OK(MPI_Type_free(&colv));
    MPI_OK(MPI_Type_free(&gcol));
    MPI_OK(MPI_Type_free(&gcolv));
}

/* What MPI_Type_get_envelope/get_contents say of a few constructions. */
static void check_envelope(MPI_Datatype t, int combiner, int ni, int na, int nd, const char *what)
{
    int i, a, d, c;
    MPI_OK(MPI_Type_get_envelope(t, &i, &a, &d, &c));
    CHECK(c == combiner && i == ni && a == na && d == nd,
          "%s: envelope combiner %d, %d ints, %d addresses, %d types; want %d, %d, %d, %d", what,
          c, i, a, d, combiner, ni, na, nd);
}

/* get_contents with the counts the envelope gave (Open MPI 4.1 crashes on larger maxima). */
static void contents(MPI_Datatype t, int *ints, MPI_Aint *aints, MPI_Datatype *types)
{
    int i, a, d, c;
    MPI_OK(MPI_Type_get_envelope(t, &i, &a, &d, &c));
    MPI_OK(MPI_Type_get_contents(t, i, a, d, ints, aints, types));
}

static void test_envelope(void)
{
    t_begin("envelope");
    check_envelope(MPI_INT, MPI_COMBINER_NAMED, 0, 0, 0, "MPI_INT");
    check_envelope(MPI_DOUBLE_INT, MPI_COMBINER_NAMED, 0, 0, 0, "MPI_DOUBLE_INT");

    MPI_Datatype v, r, s, sub, got[3];
    int ints[16];
    MPI_Aint aints[4];
    MPI_OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &v));
    check_envelope(v, MPI_COMBINER_VECTOR, 3, 0, 1, "vector");
    contents(v, ints, aints, got);
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && got[0] == MPI_DOUBLE,
          "vector contents %d %d %d", ints[0], ints[1], ints[2]);

    MPI_OK(MPI_Type_create_resized(v, -8, 128, &r));
    check_envelope(r, MPI_COMBINER_RESIZED, 0, 2, 1, "resized");
    contents(r, ints, aints, got);
    CHECK(aints[0] == -8 && aints[1] == 128, "resized contents %ld %ld", (long)aints[0],
          (long)aints[1]);
    /* a derived type comes back as a handle of its own, which the caller frees */
    check_envelope(got[0], MPI_COMBINER_VECTOR, 3, 0, 1, "resized's old type");
    MPI_OK(MPI_Type_free(&got[0]));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_commit(&r)); /* the vector inside lives on in r */
    int size;
    MPI_OK(MPI_Type_size(r, &size));
    CHECK(size == 48, "resized vector's size %d after freeing the handles", size);

    MPI_OK(MPI_Type_create_struct(2, (const int[]){1, 3}, (const MPI_Aint[]){0, 16},
                                  (const MPI_Datatype[]){MPI_INT, r}, &s));
    check_envelope(s, MPI_COMBINER_STRUCT, 3, 2, 2, "struct");
    contents(s, ints, aints, got);
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 3 && aints[1] == 16 && got[0] == MPI_INT,
          "struct contents");
    MPI_OK(MPI_Type_free(&got[1]));
    MPI_OK(MPI_Type_free(&s));
    MPI_OK(MPI_Type_free(&r));

    MPI_OK(MPI_Type_create_subarray(2, (const int[]){4, 6}, (const int[]){2, 3},
                                    (const int[]){1, 2}, MPI_ORDER_FORTRAN, MPI_FLOAT, &sub));
    check_envelope(sub, MPI_COMBINER_SUBARRAY, 8, 0, 1, "subarray");
    contents(sub, ints, aints, got);
    CHECK(ints[0] == 2 && ints[1] == 4 && ints[4] == 3 && ints[6] == 2 &&
              ints[7] == MPI_ORDER_FORTRAN && got[0] == MPI_FLOAT, "subarray contents");
    MPI_OK(MPI_Type_free(&sub));

    MPI_OK(MPI_Type_contiguous(4, MPI_SHORT, &v));
    check_envelope(v, MPI_COMBINER_CONTIGUOUS, 1, 0, 1, "contiguous");
    MPI_OK(MPI_Type_dup(v, &r));
    check_envelope(r, MPI_COMBINER_DUP, 0, 0, 1, "dup");
    MPI_OK(MPI_Type_free(&r));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_create_indexed_block(2, 3, (const int[]){4, 0}, MPI_INT, &v));
    check_envelope(v, MPI_COMBINER_INDEXED_BLOCK, 4, 0, 1, "indexed_block");
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_create_hindexed(2, (const int[]){3, 1}, (const MPI_Aint[]){0, 40}, MPI_INT,
                                    &v));
    check_envelope(v, MPI_COMBINER_HINDEXED, 3, 2, 1, "hindexed");
    MPI_OK(MPI_Type_free(&v));

    /* a named type has no contents */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Type_get_contents(MPI_INT, 16, 4, 3, ints, aints, got);
    CHECK(rc != MPI_SUCCESS, "get_contents of MPI_INT succeeded");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A struct of absolute addresses packs from and unpacks to MPI_BOTTOM (MPICH's
 * datatype/struct_unpack_mpi_bottom). */
static void test_bottom(void)
{
    t_begin("pack and unpack at MPI_BOTTOM");
    int a = 11, b[3] = {21, 22, 23}, pos = 0;
    double d = 3.5;
    int len[3] = {1, 3, 1};
    MPI_Aint disp[3];
    MPI_Datatype types[3] = {MPI_INT, MPI_INT, MPI_DOUBLE}, t;
    MPI_Get_address(&a, &disp[0]);
    MPI_Get_address(b, &disp[1]);
    MPI_Get_address(&d, &disp[2]);
    MPI_OK(MPI_Type_create_struct(3, len, disp, types, &t));
    MPI_OK(MPI_Type_commit(&t));
    char pk[64];
    MPI_OK(MPI_Pack(MPI_BOTTOM, 1, t, pk, sizeof(pk), &pos, MPI_COMM_WORLD));
    CHECK(pos == 4 * (int)sizeof(int) + (int)sizeof(double), "packed %d bytes", pos);
    a = b[0] = b[1] = b[2] = 0;
    d = 0;
    pos = 0;
    MPI_OK(MPI_Unpack(pk, sizeof(pk), &pos, MPI_BOTTOM, 1, t, MPI_COMM_WORLD));
    CHECK(a == 11 && b[0] == 21 && b[1] == 22 && b[2] == 23 && d == 3.5,
          "unpacked %d %d %d %d %g", a, b[0], b[1], b[2], d);
    MPI_OK(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_bottom();
    test_constructors();
    test_struct();
    test_envelope();
    test_messages();
    test_collectives();
    t_finish();
    return 0;
}
