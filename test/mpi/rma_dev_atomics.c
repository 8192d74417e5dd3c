/*
 * Atomics on 8-byte integers from every rank at once, the target's own
 * included, on windows where they are device atomics (verbs RC and hybrid:
 * src/rma/devatom.c) and, with the same assertions, where they are CPU
 * atomics or messages handled at the target (shm, tcp, verbs UD):
 *  - every rank does ITER fetch-and-adds of 1 on one counter of rank 0,
 *    rank 0 too (its own Fetch_and_op on the word the others add to): the
 *    counter ends at n x ITER and the fetched values are each of
 *    0 .. n x ITER - 1 exactly once;
 *  - MAX, MIN, BXOR, PROD and REPLACE (compare-and-swap loops on the device)
 *    from every rank on words of rank 0, results checked against what any
 *    order gives (REPLACE: one of the values; its fetched olds chain);
 *  - an Accumulate of SUM over a strided target type (several words, not
 *    contiguous), one over LONGN contiguous words, and Get_accumulates with
 *    NO_OP reading them;
 *  - Compare_and_swap elections: exactly one rank wins each round.
 * With the argument "create" the window is MPI_Win_create memory (no node
 * segment: with shm and verbs, ranks of one node reach each other's memory
 * by CMA and its atomics by the device's loopback when the window has device
 * atomics), else MPI_Win_allocate's.
 * Where the environment says the window should have device atomics
 * (RDMPI_TRANSPORTS with verbs, RDMPI_VERBS_MODE not ud), it checks that
 * rdmpi_rma_device_atomics says so: a silent fallback to messages fails.
 */
#include <stdint.h>
#include "check.h"

#define ITER 1000
#define ROUNDS 20
#define LONGN 100              /* words of the long accumulate (several batches of atomics) */

enum { W_CNT = 0, W_MAX, W_MIN, W_XOR, W_PROD, W_REPL, W_VEC, W_ELECT = W_VEC + 8, W_LONG,
       W_N = W_LONG + LONGN };

/* create: a Win_create window, which has no node segment, so shm does not keep it from
 * device atomics when verbs is open at all (rdma_targets: ranks of other nodes; on one node
 * shm and self serve every rank and verbs is not opened). */
static int expect_device(int create, int rdma_targets)
{
    const char *t = getenv("RDMPI_TRANSPORTS"), *m = getenv("RDMPI_VERBS_MODE");
    return t && strstr(t, "verbs") && (!m || strcmp(m, "ud") != 0) &&
           (!strstr(t, "shm") || (create && rdma_targets > 0)) && !strstr(t, "tcp");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int create = argc > 1 && strcmp(argv[1], "create") == 0;
    int64_t *mem;
    MPI_Win win;
    if (create) {
        mem = malloc(W_N * 8);
        CHECK(mem, "out of memory");
        MPI_OK(MPI_Win_create(mem, W_N * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        MPI_OK(MPI_Win_allocate(W_N * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    }
    for (int i = 0; i < W_N; i++)
        mem[i] = 0;
    mem[W_MIN] = INT64_MAX;
    mem[W_PROD] = 1;
    mem[W_REPL] = -1;
    MPI_Info info;
    MPI_OK(MPI_Win_get_info(win, &info));
    char v[32] = "false";
    int flag = 0;
    MPI_OK(MPI_Info_get(info, "rdmpi_rma_device_atomics", sizeof(v) - 1, v, &flag));
    int dev = flag && strcmp(v, "true") == 0;
    char nt[32] = "0";
    MPI_OK(MPI_Info_get(info, "rdmpi_rma_rdma_targets", sizeof(nt) - 1, nt, &flag));
    MPI_Info_free(&info);
    if (me == 0)
        printf("device atomics: %s\n", dev ? "yes" : "no");
    CHECK(dev || !expect_device(create, flag ? atoi(nt) : 0), "verbs RC/hybrid, but the window has no device atomics");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    t_begin("fetch_and_add");
    int64_t *got = malloc(ITER * sizeof(int64_t)), one = 1;
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ITER; i++) {
        MPI_OK(MPI_Fetch_and_op(&one, &got[i], MPI_INT64_T, 0, W_CNT, MPI_SUM, win));
        if (i % 50 == 49)
            MPI_OK(MPI_Win_flush(0, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int64_t *all = me == 0 ? malloc((size_t)n * ITER * sizeof(int64_t)) : NULL;
    MPI_OK(MPI_Gather(got, ITER, MPI_INT64_T, all, ITER, MPI_INT64_T, 0, MPI_COMM_WORLD));
    if (me == 0) {
        int64_t c;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Fetch_and_op(NULL, &c, MPI_INT64_T, 0, W_CNT, MPI_NO_OP, win));
        MPI_OK(MPI_Win_unlock(0, win));
        CHECK(c == (int64_t)n * ITER, "counter is %lld, expected %lld", (long long)c,
              (long long)n * ITER);
        char *seen = calloc((size_t)n * ITER, 1);
        for (long i = 0; i < (long)n * ITER; i++) {
            CHECK(all[i] >= 0 && all[i] < (int64_t)n * ITER, "fetched %lld", (long long)all[i]);
            CHECK(!seen[all[i]], "value %lld fetched twice", (long long)all[i]);
            seen[all[i]] = 1;
        }
        free(seen);
        free(all);
    }
    for (int i = 1; i < ITER; i++)
        CHECK(got[i] > got[i - 1], "fetch %d gave %lld after %lld", i, (long long)got[i],
              (long long)got[i - 1]);
    free(got);

    t_begin("ops");
    int64_t val = 1000 + me, olds[ROUNDS];
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ROUNDS; i++) {
        int64_t x = val * 100 + i, o, bit = (int64_t)1 << ((me * ROUNDS + i) % 63), two = 2;
        MPI_OK(MPI_Accumulate(&x, 1, MPI_INT64_T, 0, W_MAX, 1, MPI_INT64_T, MPI_MAX, win));
        MPI_OK(MPI_Fetch_and_op(&x, &o, MPI_INT64_T, 0, W_MIN, MPI_MIN, win));
        MPI_OK(MPI_Accumulate(&bit, 1, MPI_INT64_T, 0, W_XOR, 1, MPI_INT64_T, MPI_BXOR, win));
        if (i < 2)
            MPI_OK(MPI_Accumulate(&two, 1, MPI_INT64_T, 0, W_PROD, 1, MPI_INT64_T, MPI_PROD, win));
        MPI_OK(MPI_Fetch_and_op(&x, &olds[i], MPI_INT64_T, 0, W_REPL, MPI_REPLACE, win));
        MPI_OK(MPI_Win_flush(0, win));
    }
    /* SUM over a strided type: words W_VEC, W_VEC+2, .. W_VEC+6 */
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT64_T, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    int64_t add[4] = { 1, 2, 3, 4 }, before[4];
    MPI_OK(MPI_Get_accumulate(add, 4, MPI_INT64_T, before, 4, MPI_INT64_T, 0, W_VEC, 1, vec,
                              MPI_SUM, win));
    MPI_OK(MPI_Win_flush(0, win));
    for (int k = 0; k < 4; k++)
        CHECK(before[k] % (k + 1) == 0 && before[k] >= 0 && before[k] < (int64_t)n * (k + 1),
              "word %d of the vector was %lld before my add", k, (long long)before[k]);
    MPI_OK(MPI_Type_free(&vec));
    int64_t lv[LONGN];
    for (int k = 0; k < LONGN; k++)
        lv[k] = (int64_t)k * (me + 1);
    MPI_OK(MPI_Accumulate(lv, LONGN, MPI_INT64_T, 0, W_LONG, LONGN, MPI_INT64_T, MPI_SUM, win));
    MPI_OK(MPI_Win_unlock_all(win));
    /* my REPLACE olds: each is -1 or some rank's value of some round; my own chain is
     * ordered (same origin, same location) */
    for (int i = 0; i < ROUNDS; i++)
        CHECK(olds[i] == -1 || (olds[i] / 100 >= 1000 && olds[i] / 100 < 1000 + n &&
                                olds[i] % 100 < ROUNDS),
              "REPLACE fetched %lld", (long long)olds[i]);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        int64_t r[W_N];
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, r, W_N, MPI_INT64_T, 0, 0, W_N,
                                  MPI_INT64_T, MPI_NO_OP, win));
        MPI_OK(MPI_Win_unlock(0, win));
        int64_t xr = 0;
        for (int q = 0; q < n; q++)
            for (int i = 0; i < ROUNDS; i++)
                xr ^= (int64_t)1 << ((q * ROUNDS + i) % 63);
        CHECK(r[W_MAX] == (1000 + n - 1) * 100 + ROUNDS - 1, "MAX %lld", (long long)r[W_MAX]);
        CHECK(r[W_MIN] == 1000 * 100, "MIN %lld", (long long)r[W_MIN]);
        CHECK(r[W_XOR] == xr, "BXOR %llx, expected %llx", (long long)r[W_XOR], (long long)xr);
        CHECK(r[W_PROD] == (int64_t)1 << (2 * n), "PROD %lld", (long long)r[W_PROD]);
        CHECK(r[W_REPL] % 100 == ROUNDS - 1 && r[W_REPL] / 100 >= 1000 &&
              r[W_REPL] / 100 < 1000 + n, "REPLACE left %lld", (long long)r[W_REPL]);
        for (int k = 0; k < LONGN; k++)
            CHECK(r[W_LONG + k] == (int64_t)k * n * (n + 1) / 2, "long accumulate word %d is %lld",
                  k, (long long)r[W_LONG + k]);
        for (int k = 0; k < 4; k++) {
            CHECK(r[W_VEC + 2 * k] == (int64_t)n * (k + 1), "vector word %d is %lld", k,
                  (long long)r[W_VEC + 2 * k]);
            CHECK(r[W_VEC + 2 * k + 1] == 0, "the gap after vector word %d is %lld", k,
                  (long long)r[W_VEC + 2 * k + 1]);
        }
    }

    t_begin("cas elections");
    for (int round = 1; round <= ROUNDS; round++) {
        int64_t prevw = round - 1, mine = round, old;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Compare_and_swap(&mine, &prevw, &old, MPI_INT64_T, 0, W_ELECT, win));
        MPI_OK(MPI_Win_unlock(0, win));
        int won = old == prevw, wins = 0;
        CHECK(old == prevw || old == round, "round %d: CAS found %lld", round, (long long)old);
        MPI_OK(MPI_Allreduce(&won, &wins, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(wins == 1, "round %d: %d ranks won the compare-and-swap", round, wins);
    }
    MPI_OK(MPI_Win_free(&win));
    if (create)
        free(mem);
    t_finish();
    return 0;
}
