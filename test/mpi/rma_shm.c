/*
 * One-sided communication in place within a node (the SHM path of
 * allocated windows, CMA for MPI_Win_create memory), and windows whose
 * targets see in-place and message origins at once: the odd ranks create
 * their windows with info rdmpi_rma_path=message (an rdmpi hint: that rank
 * reaches every target by messages), so the target applies their
 * operations and grants their locks while the even ranks go through the
 * segment's lock words and CPU atomics on the same memory.
 *  - load/store: Win_allocate_shared parts written by their owners with
 *    plain stores are seen by every rank through Win_shared_query pointers
 *    after Win_sync + barrier + Win_sync (the unified model's pattern);
 *  - N ranks x 1000 fetch-and-adds (long), 1000 accumulates of 1.0
 *    (double: a compare-exchange loop), of 1 (long double: no CPU atomic,
 *    the accumulate lock) and MPI_MAX of the rank on one target end exact;
 *  - lock contention: a non-atomic read-modify-write under exclusive locks,
 *    from every rank, is exact; shared lockers see the exclusive writer's
 *    pair of words never half-written;
 *  - Put/Get with derived types on a Win_create window (CMA), Rget.
 * Every check runs at any rank count (1 rank: the rank targets itself).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define ITER 1000

static MPI_Info path_info(int me)
{
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    if (me % 2)
        MPI_OK(MPI_Info_set(info, "rdmpi_rma_path", "message"));
    return info;
}

static void load_store(int n, int me)
{
    t_begin("shared load/store");
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nn, nme;
    MPI_Comm_size(node, &nn);
    MPI_Comm_rank(node, &nme);
    int *mine;
    MPI_Win win;
    MPI_Aint len = 1000 * sizeof(int);
    MPI_OK(MPI_Win_allocate_shared(len, sizeof(int), MPI_INFO_NULL, node, &mine, &win));
    MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 1000; i++)
            mine[i] = nme * 100000 + round * 1000 + i;
        MPI_OK(MPI_Win_sync(win));
        MPI_OK(MPI_Barrier(node));
        MPI_OK(MPI_Win_sync(win));
        for (int r = 0; r < nn; r++) {
            MPI_Aint sz;
            int du, *p;
            MPI_OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
            CHECK(sz == len && du == (int)sizeof(int), "rank %d: size %ld unit %d", r, (long)sz,
                  du);
            for (int i = 0; i < 1000; i += 97)
                CHECK(p[i] == r * 100000 + round * 1000 + i, "round %d: rank %d [%d] = %d", round,
                      r, i, p[i]);
        }
        MPI_OK(MPI_Barrier(node));
    }
    /* a neighbor's store, then the owner's Get of its own part sees it */
    int right = (nme + 1) % nn;
    MPI_Aint sz;
    int du, *p;
    MPI_OK(MPI_Win_shared_query(win, right, &sz, &du, &p));
    p[7] = -nme - 1;
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(node));
    MPI_OK(MPI_Win_sync(win));
    int got = 0, left = (nme + nn - 1) % nn;
    MPI_OK(MPI_Get(&got, 1, MPI_INT, nme, 7, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(nme, win));
    CHECK(got == -left - 1 && mine[7] == -left - 1, "stored by %d: got %d, mine %d", left, got,
          mine[7]);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Comm_free(&node));
}

typedef struct cell {
    long fao;
    long excl;
    long pair[2];
    double dsum;
    long lmax;
    long double ldsum;
} cell_t;

static void counters(int n, int me)
{
    MPI_Info info = path_info(me);
    cell_t *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(sizeof(cell_t), 1, info, MPI_COMM_WORLD, &mem, &win));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    memset(mem, 0, sizeof(*mem));
    MPI_OK(MPI_Win_unlock(me, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int tgt = n - 1;   /* with 2+ ranks, the target has message and in-place origins */

    t_begin("fetch_and_op counter");
    long one = 1, prev = -1, got;
    double done = 1.0;
    long double ldone = 1.0L;
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ITER; i++) {
        MPI_OK(MPI_Fetch_and_op(&one, &got, MPI_LONG, tgt, offsetof(cell_t, fao), MPI_SUM, win));
        MPI_OK(MPI_Win_flush(tgt, win));
        CHECK(got > prev && got < (long)n * ITER, "fetched %ld after %ld", got, prev);
        prev = got;
        MPI_OK(MPI_Accumulate(&done, 1, MPI_DOUBLE, tgt, offsetof(cell_t, dsum), 1, MPI_DOUBLE,
                              MPI_SUM, win));
        MPI_OK(MPI_Accumulate(&ldone, 1, MPI_LONG_DOUBLE, tgt, offsetof(cell_t, ldsum), 1,
                              MPI_LONG_DOUBLE, MPI_SUM, win));
        long v = (long)me * ITER + i;
        MPI_OK(MPI_Accumulate(&v, 1, MPI_LONG, tgt, offsetof(cell_t, lmax), 1, MPI_LONG, MPI_MAX,
                              win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == tgt) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
        CHECK(mem->fao == (long)n * ITER, "counter %ld, expected %ld", mem->fao, (long)n * ITER);
        CHECK(mem->dsum == (double)n * ITER, "double sum %g", mem->dsum);
        CHECK(mem->ldsum == (long double)n * ITER, "long double sum %Lg", mem->ldsum);
        CHECK(mem->lmax == (long)n * ITER - 1, "max %ld", mem->lmax);
        MPI_OK(MPI_Win_unlock(me, win));
    }

    t_begin("exclusive lock contention");
    for (int i = 0; i < ITER / 5; i++) {
        long v[2];
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tgt, 0, win));
        MPI_OK(MPI_Get(&v[0], 1, MPI_LONG, tgt, offsetof(cell_t, excl), 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(tgt, win));
        v[0]++;
        MPI_OK(MPI_Put(&v[0], 1, MPI_LONG, tgt, offsetof(cell_t, excl), 1, MPI_LONG, win));
        v[1] = v[0];
        MPI_OK(MPI_Put(v, 1, MPI_LONG, tgt, offsetof(cell_t, pair), 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(tgt, win));
        MPI_OK(MPI_Put(&v[1], 1, MPI_LONG, tgt, offsetof(cell_t, pair) + sizeof(long), 1,
                       MPI_LONG, win));
        MPI_OK(MPI_Win_unlock(tgt, win));
        /* a reader under a shared lock never sees the writer between its two Puts */
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, tgt, 0, win));
        MPI_OK(MPI_Get(v, 2, MPI_LONG, tgt, offsetof(cell_t, pair), 2, MPI_LONG, win));
        MPI_OK(MPI_Win_unlock(tgt, win));
        CHECK(v[0] == v[1], "pair half-written: %ld %ld", v[0], v[1]);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == tgt)
        CHECK(mem->excl == (long)n * (ITER / 5), "exclusive count %ld, expected %ld", mem->excl,
              (long)n * (ITER / 5));
    MPI_OK(MPI_Win_free(&win));
}

static void created(int n, int me)
{
    t_begin("Win_create put/get");
    MPI_Info info = path_info(me);
    int *buf = calloc(4096, sizeof(int));
    MPI_Win win;
    MPI_OK(MPI_Win_create(buf, 4096 * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Info_free(&info));
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int *src = malloc(4096 * sizeof(int));
    for (int i = 0; i < 4096; i++)
        src[i] = me * 10000 + i;
    MPI_Datatype vec;   /* every other int */
    MPI_OK(MPI_Type_vector(1000, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, 2048, MPI_INT, right, 0, 2048, MPI_INT, win));
    MPI_OK(MPI_Put(src, 1000, MPI_INT, right, 2048, 1, vec, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 2048; i++)
        CHECK(buf[i] == left * 10000 + i, "[%d] = %d", i, buf[i]);
    for (int i = 0; i < 1000; i++)
        CHECK(buf[2048 + 2 * i] == left * 10000 + i && buf[2049 + 2 * i] == 0, "strided [%d]",
              i);
    int *back = calloc(2048, sizeof(int));
    MPI_Request rq[2];
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MPI_OK(MPI_Rget(back, 1024, MPI_INT, right, 0, 1024, MPI_INT, win, &rq[0]));
    MPI_OK(MPI_Rget(back + 1024, 1000, MPI_INT, right, 2048, 1, vec, win, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Win_unlock(right, win));
    for (int i = 0; i < 1024; i++)
        CHECK(back[i] == me * 10000 + i, "got back [%d] = %d", i, back[i]);
    for (int i = 0; i < 1000; i++)
        CHECK(back[1024 + i] == me * 10000 + i, "got back strided [%d] = %d", i,
              back[1024 + i]);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Type_free(&vec));
    MPI_OK(MPI_Win_free(&win));
    free(back);
    free(src);
    free(buf);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    load_store(n, me);
    counters(n, me);
    created(n, me);
    t_finish();
    return 0;
}
