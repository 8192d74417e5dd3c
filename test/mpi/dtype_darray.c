/*
 * dtype_darray: MPI_Type_create_darray against layouts computed here
 * independently. For several global arrays, distributions (BLOCK and
 * CYCLIC with default and explicit arguments, NONE), process grids and both
 * storage orders, every rank of the grid is built in this one process (a
 * darray needs no communicator): the type must select, in the array's
 * storage order, exactly the elements whose owner along every dimension is
 * that rank's grid coordinate (owner of index i: i / b for BLOCK(b),
 * (i / b) % p for CYCLIC(b)); its size, lower bound (0) and extent (the
 * whole array) are checked, the ranks together must cover every element
 * once, and MPI_Type_get_envelope/get_contents must return the arguments
 * (MPI_COMBINER_DARRAY). Two small layouts are also spelled out by hand.
 * Finally the type carries a message: rank 0 sends each rank its part of
 * an array with the darray type and the rank checks the values.
 */
#include "check.h"

#define MAXD 3

typedef struct layout {
    int ndims, gsizes[MAXD], distribs[MAXD], dargs[MAXD], psizes[MAXD], order;
} layout_t;

/* The owner coordinate of index i along one dimension (the reference). */
static int owner(const layout_t *L, int d, int i)
{
    int g = L->gsizes[d], p = L->psizes[d], b = L->dargs[d];
    switch (L->distribs[d]) {
    case MPI_DISTRIBUTE_NONE:
        return 0;
    case MPI_DISTRIBUTE_BLOCK:
        if (b == MPI_DISTRIBUTE_DFLT_DARG)
            b = (g + p - 1) / p;
        return i / b;
    default:
        if (b == MPI_DISTRIBUTE_DFLT_DARG)
            b = 1;
        return (i / b) % p;
    }
}

/* The element numbers (offsets in items, in C layout of the index space
 * with the array's own storage order) rank owns, in storage order. */
static int expected(const layout_t *L, int rank, int *out)
{
    int coords[MAXD], total = 1, n = 0;
    for (int d = L->ndims - 1, r = rank; d >= 0; d--) {
        coords[d] = r % L->psizes[d];
        r /= L->psizes[d];
    }
    for (int d = 0; d < L->ndims; d++)
        total *= L->gsizes[d];
    for (int lin = 0; lin < total; lin++) {
        /* lin runs through memory; idx[d] is the index of dimension d there */
        int idx[MAXD], rest = lin, mine = 1;
        for (int k = 0; k < L->ndims; k++) {
            int d = L->order == MPI_ORDER_C ? L->ndims - 1 - k : k;
            idx[d] = rest % L->gsizes[d];
            rest /= L->gsizes[d];
        }
        for (int d = 0; d < L->ndims; d++)
            mine = mine && owner(L, d, idx[d]) == coords[d];
        if (mine)
            out[n++] = lin;
    }
    return n;
}

static MPI_Datatype make(const layout_t *L, int size, int rank, MPI_Datatype old)
{
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_darray(size, rank, L->ndims, L->gsizes, L->distribs, L->dargs,
                                  L->psizes, L->order, old, &t));
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

static void check_layout(const layout_t *L)
{
    int size = 1, total = 1;
    for (int d = 0; d < L->ndims; d++) {
        size *= L->psizes[d];
        total *= L->gsizes[d];
    }
    int *array = malloc(sizeof(int) * (size_t)total), *want = malloc(sizeof(int) * (size_t)total);
    int *got = malloc(sizeof(int) * (size_t)total), *seen = calloc((size_t)total, sizeof(int));
    for (int i = 0; i < total; i++)
        array[i] = i;
    for (int rank = 0; rank < size; rank++) {
        MPI_Datatype t = make(L, size, rank, MPI_INT);
        int n = expected(L, rank, want), tsize, pos = 0;
        MPI_Aint lb, extent;
        MPI_OK(MPI_Type_size(t, &tsize));
        MPI_OK(MPI_Type_get_extent(t, &lb, &extent));
        CHECK(tsize == n * (int)sizeof(int), "rank %d: size %d, want %d ints", rank, tsize, n);
        CHECK(lb == 0 && extent == (MPI_Aint)(total * sizeof(int)),
              "rank %d: lb %ld extent %ld, want 0 and %ld", rank, (long)lb, (long)extent,
              (long)(total * sizeof(int)));
        MPI_OK(MPI_Pack(array, 1, t, got, total * (int)sizeof(int), &pos, MPI_COMM_SELF));
        for (int i = 0; i < n; i++) {
            CHECK(got[i] == want[i], "rank %d: element %d is item %d, want %d", rank, i,
                  got[i], want[i]);
            seen[got[i]]++;
        }
        /* the constructor's arguments come back */
        int ni, na, nd, comb, ints[4 * MAXD + 4];
        MPI_Aint aints[1];
        MPI_Datatype types[1];
        MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_DARRAY && ni == 4 * L->ndims + 4 && na == 0 && nd == 1,
              "envelope: combiner %d, %d/%d/%d", comb, ni, na, nd);
        MPI_OK(MPI_Type_get_contents(t, ni, na, nd, ints, aints, types));
        CHECK(ints[0] == size && ints[1] == rank && ints[2] == L->ndims &&
                  ints[3 + 4 * L->ndims] == L->order && types[0] == MPI_INT,
              "contents: size %d rank %d ndims %d order %d", ints[0], ints[1], ints[2],
              ints[3 + 4 * L->ndims]);
        for (int d = 0; d < L->ndims; d++)
            CHECK(ints[3 + d] == L->gsizes[d] && ints[3 + L->ndims + d] == L->distribs[d] &&
                      ints[3 + 2 * L->ndims + d] == L->dargs[d] &&
                      ints[3 + 3 * L->ndims + d] == L->psizes[d],
                  "contents of dimension %d", d);
        MPI_OK(MPI_Type_free(&t));
    }
    for (int i = 0; i < total; i++)
        CHECK(seen[i] == 1, "item %d is owned by %d ranks", i, seen[i]);
    free(array);
    free(want);
    free(got);
    free(seen);
}

static void test_layouts(void)
{
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    static layout_t L[32];
    int n = 0;
    for (int order = 0; order < 2; order++) {
        int o = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        L[n++] = (layout_t){ 1, { 10 }, { B }, { D }, { 3 }, o };
        L[n++] = (layout_t){ 1, { 10 }, { C }, { D }, { 3 }, o };
        L[n++] = (layout_t){ 1, { 10 }, { C }, { 2 }, { 3 }, o };
        L[n++] = (layout_t){ 1, { 10 }, { B }, { 5 }, { 2 }, o };
        L[n++] = (layout_t){ 1, { 7 }, { B }, { 4 }, { 2 }, o };
        L[n++] = (layout_t){ 2, { 6, 5 }, { B, B }, { D, D }, { 2, 2 }, o };
        L[n++] = (layout_t){ 2, { 6, 5 }, { C, B }, { D, D }, { 3, 2 }, o };
        L[n++] = (layout_t){ 2, { 7, 9 }, { C, C }, { 2, 3 }, { 2, 2 }, o };
        L[n++] = (layout_t){ 2, { 4, 6 }, { N, C }, { D, 2 }, { 1, 3 }, o };
        L[n++] = (layout_t){ 3, { 4, 3, 5 }, { B, N, C }, { D, D, 2 }, { 2, 1, 2 }, o };
        L[n++] = (layout_t){ 3, { 5, 4, 3 }, { C, B, C }, { 1, 2, D }, { 2, 2, 3 }, o };
        L[n++] = (layout_t){ 2, { 3, 3 }, { B, B }, { D, D }, { 4, 1 }, o }; /* empty ranks */
    }
    for (int i = 0; i < n; i++) {
        t_begin("darray-layout");
        check_layout(&L[i]);
    }
}

/* Two layouts written out by hand from the standard's definitions. */
static void test_by_hand(void)
{
    t_begin("darray-by-hand");
    int g[1] = { 10 }, dist[1] = { MPI_DISTRIBUTE_CYCLIC }, darg[1] = { 2 }, p[1] = { 3 };
    int array[10], got[10], pos = 0;
    for (int i = 0; i < 10; i++)
        array[i] = 100 + i;
    MPI_Datatype t;
    /* CYCLIC(2) over 3 processes: rank 1 owns 2 3 8 9 */
    MPI_OK(MPI_Type_create_darray(3, 1, 1, g, dist, darg, p, MPI_ORDER_C, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Pack(array, 1, t, got, sizeof(got), &pos, MPI_COMM_SELF));
    CHECK(pos == 4 * (int)sizeof(int) && got[0] == 102 && got[1] == 103 && got[2] == 108 &&
              got[3] == 109,
          "cyclic(2): %d bytes: %d %d %d %d", pos, got[0], got[1], got[2], got[3]);
    MPI_OK(MPI_Type_free(&t));
    /* a 4x4 C array, BLOCK x BLOCK on a 2x2 grid: rank 2 (coords 1,0) owns rows 2-3,
     * columns 0-1, i.e. items 8 9 12 13; in Fortran order the same rank owns
     * (i,j) with i in 2..3, j in 0..1 at i + 4j: 2 3 6 7 */
    int g2[2] = { 4, 4 }, d2[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK };
    int a2[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, p2[2] = { 2, 2 };
    int arr[16];
    for (int i = 0; i < 16; i++)
        arr[i] = i;
    const int want[2][4] = { { 8, 9, 12, 13 }, { 2, 3, 6, 7 } };
    for (int f = 0; f < 2; f++) {
        pos = 0;
        MPI_OK(MPI_Type_create_darray(4, 2, 2, g2, d2, a2, p2,
                                      f ? MPI_ORDER_FORTRAN : MPI_ORDER_C, MPI_INT, &t));
        MPI_OK(MPI_Type_commit(&t));
        MPI_OK(MPI_Pack(arr, 1, t, got, sizeof(got), &pos, MPI_COMM_SELF));
        CHECK(pos == 16, "block x block: %d bytes", pos);
        for (int i = 0; i < 4; i++)
            CHECK(got[i] == want[f][i], "%s order: element %d is %d, want %d",
                  f ? "Fortran" : "C", i, got[i], want[f][i]);
        MPI_OK(MPI_Type_free(&t));
    }
}

static void test_errors(void)
{
    t_begin("darray-errors");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int g[1] = { 10 }, blk[1] = { MPI_DISTRIBUTE_BLOCK }, none[1] = { MPI_DISTRIBUTE_NONE };
    int small[1] = { 3 }, dflt[1] = { MPI_DISTRIBUTE_DFLT_DARG }, p3[1] = { 3 }, p2[1] = { 2 };
    int rc = MPI_Type_create_darray(3, 0, 1, g, blk, small, p3, MPI_ORDER_C, MPI_INT, &t);
    CHECK(rc != MPI_SUCCESS, "blocks of 3 over 3 processes accepted for 10 items");
    rc = MPI_Type_create_darray(4, 0, 1, g, blk, dflt, p3, MPI_ORDER_C, MPI_INT, &t);
    CHECK(rc != MPI_SUCCESS, "a grid of 3 accepted for size 4");
    rc = MPI_Type_create_darray(3, 3, 1, g, blk, dflt, p3, MPI_ORDER_C, MPI_INT, &t);
    CHECK(rc != MPI_SUCCESS, "rank 3 of 3 accepted");
    rc = MPI_Type_create_darray(2, 0, 1, g, blk, small, p2, MPI_ORDER_C, MPI_INT, &t);
    CHECK(rc != MPI_SUCCESS, "blocks of 3 over 2 processes accepted for 10 items");
#ifdef RDMPI /* undefined by the standard; Open MPI makes it a block distribution */
    rc = MPI_Type_create_darray(2, 0, 1, g, none, dflt, p2, MPI_ORDER_C, MPI_INT, &t);
    CHECK(rc != MPI_SUCCESS, "MPI_DISTRIBUTE_NONE over 2 processes accepted");
#else
    (void)none;
#endif
    rc = MPI_Type_create_darray(3, 0, 1, g, blk, dflt, p3, 99, MPI_INT, &t);
    CHECK(rc != MPI_SUCCESS, "order 99 accepted");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Rank 0 scatters a 2-D array by darray types; each rank checks its part. */
static void test_message(void)
{
    t_begin("darray-message");
    int dims[2] = { 0, 0 };
    MPI_Dims_create(t_size, 2, dims);
    int g[2] = { 7, 5 }, d[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK };
    int a[2] = { 2, MPI_DISTRIBUTE_DFLT_DARG };
    layout_t L = { 2, { 7, 5 }, { d[0], d[1] }, { a[0], a[1] }, { dims[0], dims[1] },
                   MPI_ORDER_C };
    int want[35], got[35], n = expected(&L, t_rank, want);
    if (t_rank == 0) {
        int array[35];
        for (int i = 0; i < 35; i++)
            array[i] = 1000 + i;
        MPI_Request reqs[64];
        for (int r = 0; r < t_size; r++) {
            MPI_Datatype t;
            MPI_OK(MPI_Type_create_darray(t_size, r, 2, g, d, a, dims, MPI_ORDER_C, MPI_INT, &t));
            MPI_OK(MPI_Type_commit(&t));
            MPI_OK(MPI_Isend(array, 1, t, r, 7, MPI_COMM_WORLD, &reqs[r]));
            MPI_OK(MPI_Type_free(&t));
        }
        MPI_Status st;
        MPI_OK(MPI_Recv(got, 35, MPI_INT, 0, 7, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Waitall(t_size, reqs, MPI_STATUSES_IGNORE));
        CHECK_STATUS(st, 0, 7, MPI_INT, n);
    } else {
        MPI_Status st;
        MPI_OK(MPI_Recv(got, 35, MPI_INT, 0, 7, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, 0, 7, MPI_INT, n);
    }
    for (int i = 0; i < n; i++)
        CHECK(got[i] == 1000 + want[i], "element %d: %d, want %d", i, got[i], 1000 + want[i]);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_layouts();
    test_by_hand();
    test_errors();
    test_message();
    t_finish();
    if (t_rank == 0)
        printf("dtype_darray: OK\n");
    return 0;
}
