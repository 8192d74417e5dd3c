/*
 * One-sided operations with derived datatypes at the origin and at the
 * target (vector, indexed, struct of one predefined type, resized), and with
 * transfers larger than one active message (cut into pieces): Put, Get,
 * Accumulate and Get_accumulate under fence, checked element by element.
 * Also every predefined op of Accumulate on a few types, MINLOC on MPI_2INT,
 * and MPI_PROC_NULL targets.
 */
#include "check.h"

#define BIG (300 * 1000)   /* ints: 1.2 MB, many pieces */

static int n, me;

static void vector_ops(MPI_Win win, int *mem, int len)
{
    t_begin("vector");
    int peer = (me + 1) % n;
    /* target: every 3rd int of 100 blocks; origin: contiguous 100 ints */
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(100, 1, 3, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    int src[300], back[300];
    for (int i = 0; i < 300; i++)
        src[i] = me * 10000 + i;
    for (int i = 0; i < len; i++)
        mem[i] = -1;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, 100, MPI_INT, peer, 10, 1, vec, win));
    MPI_OK(MPI_Win_fence(0, win));
    int from = (me + n - 1) % n;
    for (int i = 0; i < 300; i++) {
        int want = i % 3 == 0 ? from * 10000 + i / 3 : -1;
        CHECK(mem[10 + i] == want, "vector put: int %d is %d, expected %d", i, mem[10 + i], want);
    }
    /* origin vector, target contiguous: Get the strided ints back into a strided buffer */
    for (int i = 0; i < 300; i++)
        back[i] = -2;
    MPI_OK(MPI_Get(back, 1, vec, peer, 10, 100, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 300; i++) {
        int want = i % 3 == 0 ? (i / 3 % 3 == 0 ? me * 10000 + i / 9 : -1) : -2;
        CHECK(back[i] == want, "vector get: int %d is %d, expected %d", i, back[i], want);
    }
    /* accumulate through the vector at the target: every rank adds its rank+1 */
    for (int i = 0; i < 300; i++)
        src[i] = me + 1;
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < len; i++)
        mem[i] = 0;
    MPI_OK(MPI_Win_fence(0, win));
    for (int t = 0; t < n; t++)
        MPI_OK(MPI_Accumulate(src, 100, MPI_INT, t, 0, 1, vec, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 300; i++) {
        int want = i % 3 == 0 ? n * (n + 1) / 2 : 0;
        CHECK(mem[i] == want, "vector accumulate: int %d is %d, expected %d", i, mem[i], want);
    }
    /* Get_accumulate through an indexed type at both ends */
    int bl[3] = { 2, 1, 3 }, dp[3] = { 0, 5, 9 };
    MPI_Datatype idx;
    MPI_OK(MPI_Type_indexed(3, bl, dp, MPI_INT, &idx));
    MPI_OK(MPI_Type_commit(&idx));
    int res[12];
    for (int i = 0; i < 12; i++)
        res[i] = -5;
    int ones[12];
    for (int i = 0; i < 12; i++)
        ones[i] = 1;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Get_accumulate(ones, 6, MPI_INT, res, 1, idx, peer, 0, 1, idx, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    int sel[6] = { 0, 1, 5, 9, 10, 11 };
    for (int k = 0; k < 6; k++) {
        int want = sel[k] % 3 == 0 ? n * (n + 1) / 2 : 0;
        CHECK(res[sel[k]] == want, "indexed get_accumulate: %d is %d, expected %d", sel[k],
              res[sel[k]], want);
        CHECK(mem[sel[k]] == want + 1, "indexed get_accumulate left %d", mem[sel[k]]);
    }
    CHECK(res[2] == -5 && res[3] == -5, "result outside the type written");
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
}

static void big_ops(MPI_Win win, int *mem)
{
    t_begin("big");
    int peer = (me + 1) % n, from = (me + n - 1) % n;
    int *buf = malloc(BIG * sizeof(int));
    for (int i = 0; i < BIG; i++)
        buf[i] = me ^ i;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(buf, BIG, MPI_INT, peer, 0, BIG, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < BIG; i++)
        CHECK(mem[i] == (from ^ i), "big put: int %d is %d", i, mem[i]);
    memset(buf, 0, BIG * sizeof(int));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    MPI_OK(MPI_Get(buf, BIG, MPI_INT, peer, 0, BIG, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(peer, win));
    for (int i = 0; i < BIG; i++)
        CHECK(buf[i] == (me ^ i), "big get: int %d is %d", i, buf[i]);
    /* a large strided accumulate: pieces cut inside segments at element boundaries */
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(BIG / 4, 3, 4, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    for (int i = 0; i < BIG; i++)
        buf[i] = 1;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Accumulate(buf, 3 * (BIG / 4), MPI_INT, peer, 0, 1, vec, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < BIG; i++)
        CHECK(mem[i] == (from ^ i) + (i % 4 < 3), "big accumulate: int %d is %d", i, mem[i]);
    MPI_Type_free(&vec);
    free(buf);
}

static void all_ops(MPI_Win win, void *mem)
{
    t_begin("ops");
    MPI_Op ops[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR,
                     MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE, MPI_NO_OP };
    long long *w = mem;
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        MPI_OK(MPI_Win_fence(0, win));
        w[0] = 6;
        MPI_OK(MPI_Win_fence(0, win));
        long long v = me == 0 ? 3 : 0;   /* only rank 0 contributes: results are exact */
        if (me == 0)
            MPI_OK(MPI_Accumulate(&v, 1, MPI_LONG_LONG, n - 1, 0, 1, MPI_LONG_LONG, ops[k], win));
        MPI_OK(MPI_Win_fence(0, win));
        long long want[] = { 6, 3, 9, 18, 6 & 3, 6 | 3, 6 ^ 3, 1, 1, 0, 3, 6 };
        if (me == n - 1)
            CHECK(w[0] == want[k], "op %zu: %lld, expected %lld", k, w[0], want[k]);
    }
    /* doubles and MINLOC on a pair type */
    double *d = mem;
    MPI_OK(MPI_Win_fence(0, win));
    d[0] = 0.5;
    MPI_OK(MPI_Win_fence(0, win));
    double x = 0.25;
    MPI_OK(MPI_Accumulate(&x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    if (me == 0)
        CHECK(d[0] == 0.5 + 0.25 * n, "double sum %g", d[0]);
    struct { int v, i; } *p = mem, mine = { 100 - me, me };
    MPI_OK(MPI_Win_fence(0, win));
    p[0].v = 1000;
    p[0].i = -1;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Accumulate(&mine, 1, MPI_2INT, 0, 0, 1, MPI_2INT, MPI_MINLOC, win));
    MPI_OK(MPI_Win_fence(0, win));
    if (me == 0)
        CHECK(p[0].v == 100 - (n - 1) && p[0].i == n - 1, "MINLOC gave (%d, %d)", p[0].v, p[0].i);
    /* MPI_PROC_NULL: nothing happens, no error */
    MPI_Request r;
    MPI_OK(MPI_Put(&x, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, 1, MPI_DOUBLE, win));
    MPI_OK(MPI_Rget(&x, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, 1, MPI_DOUBLE, win, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_fence(0, win));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(BIG * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                            &win));
    vector_ops(win, mem, 400);
    big_ops(win, mem);
    MPI_OK(MPI_Win_free(&win));
    /* create flavor on the user's memory, byte displacement unit */
    void *m2 = calloc(1, 64);
    MPI_OK(MPI_Win_create(m2, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    all_ops(win, m2);
    MPI_OK(MPI_Win_free(&win));
    free(m2);
    t_finish();
    return 0;
}
