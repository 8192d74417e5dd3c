/*
 * Concurrent atomics and lock contention on one window at rank 0:
 *  - every rank does ITER fetch-and-adds of 1 on one counter under lock_all:
 *    the counter ends at exactly n x ITER and the fetched values, gathered,
 *    are each of 0 .. n x ITER - 1 exactly once;
 *  - exclusive locks: every rank does a non-atomic read-modify-write (Get,
 *    flush, Put) under MPI_LOCK_EXCLUSIVE; the count is exact only if the
 *    lock excludes;
 *  - a spin lock made of Compare_and_swap guards another read-modify-write;
 *  - shared locks held by several ranks at once (the target's counter of
 *    simultaneous holders goes above 1 when n > 2 at some point is not
 *    required, but every shared epoch must succeed).
 * "-- create": the window is MPI_Win_create memory (the node's ranks take its
 * locks on the lock words of a segment of control blocks); "-- mixed": that,
 * and the odd ranks reach every target by messages (rdmpi_rma_path=message),
 * so lock-word holders and message requests granted on the word must exclude
 * each other.
 */
#include <string.h>
#include "check.h"

#define ITER 1000

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    long *mem;
    MPI_Win win;
    int create = argc > 1 && (strcmp(argv[1], "create") == 0 || strcmp(argv[1], "mixed") == 0);
    if (create) {
        MPI_Info info = MPI_INFO_NULL;
        if (strcmp(argv[1], "mixed") == 0 && me % 2 == 1) {
            MPI_OK(MPI_Info_create(&info));
            MPI_OK(MPI_Info_set(info, "rdmpi_rma_path", "message"));
        }
        mem = malloc(4 * sizeof(long));
        MPI_OK(MPI_Win_create(mem, 4 * sizeof(long), sizeof(long), info, MPI_COMM_WORLD, &win));
        if (info != MPI_INFO_NULL)
            MPI_OK(MPI_Info_free(&info));
    } else {
        MPI_OK(MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                                &mem, &win));
    }
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    for (int i = 0; i < 4; i++)
        mem[i] = 0;
    MPI_OK(MPI_Win_unlock(me, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    t_begin("fetch_and_op");
    long *got = malloc(ITER * sizeof(long)), one = 1;
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ITER; i++) {
        MPI_OK(MPI_Fetch_and_op(&one, &got[i], MPI_LONG, 0, 0, MPI_SUM, win));
        if (i % 100 == 99)
            MPI_OK(MPI_Win_flush(0, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    long *all = me == 0 ? malloc((size_t)n * ITER * sizeof(long)) : NULL;
    MPI_OK(MPI_Gather(got, ITER, MPI_LONG, all, ITER, MPI_LONG, 0, MPI_COMM_WORLD));
    if (me == 0) {
        CHECK(mem[0] == (long)n * ITER, "counter is %ld, expected %ld", mem[0], (long)n * ITER);
        char *seen = calloc((size_t)n * ITER, 1);
        for (long i = 0; i < (long)n * ITER; i++) {
            CHECK(all[i] >= 0 && all[i] < (long)n * ITER, "fetched %ld", all[i]);
            CHECK(!seen[all[i]], "value %ld fetched twice", all[i]);
            seen[all[i]] = 1;
        }
        free(seen);
        free(all);
    }
    /* each rank's own fetches increase (same origin, same location: ordered) */
    for (int i = 1; i < ITER; i++)
        CHECK(got[i] > got[i - 1], "fetch %d gave %ld after %ld", i, got[i], got[i - 1]);

    t_begin("exclusive");
    for (int i = 0; i < ITER / 10; i++) {
        long v;
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MPI_OK(MPI_Get(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(0, win));
        v++;
        MPI_OK(MPI_Put(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        CHECK(mem[1] == (long)n * (ITER / 10), "exclusive count %ld, expected %ld", mem[1],
              (long)n * (ITER / 10));

    t_begin("cas spinlock");
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ITER / 10; i++) {
        long free_ = 0, mine = me + 1, old;
        do {
            MPI_OK(MPI_Compare_and_swap(&mine, &free_, &old, MPI_LONG, 0, 2, win));
            MPI_OK(MPI_Win_flush(0, win));
        } while (old != 0);
        long v;
        MPI_OK(MPI_Get(&v, 1, MPI_LONG, 0, 3, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(0, win));
        v++;
        MPI_OK(MPI_Put(&v, 1, MPI_LONG, 0, 3, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Compare_and_swap(&free_, &mine, &old, MPI_LONG, 0, 2, win));
        MPI_OK(MPI_Win_flush(0, win));
        CHECK(old == mine, "spin lock held by %ld, not by me", old);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        CHECK(mem[3] == (long)n * (ITER / 10), "cas-guarded count %ld", mem[3]);

    t_begin("shared");
    for (int i = 0; i < 20; i++) {
        long v;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_unlock(0, win));
        CHECK(v == (long)n * ITER, "shared read %ld", v);
    }
    MPI_OK(MPI_Win_free(&win));
    if (create)
        free(mem);
    free(got);
    t_finish();
    return 0;
}
