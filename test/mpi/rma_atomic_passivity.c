/*
 * One-sided is one-sided, atomics and locks included (device atomics,
 * src/rma/devatom.c): rank 0 computes for COMPUTE seconds without any MPI
 * call while every other rank, in turn:
 *  - takes rank 0's lock exclusively (no NOCHECK: the lock word, by the
 *    device), puts its block, flushes, gets rank 0's offered block back,
 *    does FADDS fetch-and-adds on one counter and a Compare_and_swap loop
 *    that increments another word, and unlocks;
 *  - under lock_all, one more fetch-and-add and a Get of the counter;
 *  - then puts its marker (under a shared lock).
 * Rank 0 watches its own memory (no MPI) and notes when every marker is
 * there: that must be well before its loop ends (under half of it), or the
 * origins waited for its CPU. Afterwards the counters must be exact.
 * It needs a window with device atomics (verbs RC or hybrid, every rank
 * reaching every other with them; rdmpi_rma_device_atomics says so) and
 * says SKIP elsewhere: on shm the target's memory is shared and locks are
 * lock words anyway, on tcp and verbs UD atomics and locks are messages
 * served by the target's progress, so the origins would wait for the loop.
 */
#include <stdint.h>
#include <time.h>
#include "check.h"

#define BLOCK 256              /* bytes per origin (a multiple of 8) */
#define FADDS 50
#define COMPUTE 8.0            /* seconds rank 0 computes */
#define MARK 0x5a5a5a5a00000000ull

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Window layout (8-byte words first): [0] counter, [1] CAS word, [2 .. 2+n) markers, then n
 * blocks the origins put, then the block rank 0 offers to be read. */
int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (n < 2)
        t_skip("needs 2 or more ranks");
    size_t marks = 2 * 8, blocks = marks + (size_t)n * 8, offer = blocks + (size_t)n * BLOCK;
    size_t len = offer + BLOCK;
    uint8_t *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate((MPI_Aint)len, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    memset(mem, 0, len);
    if (me == 0)
        t_fill(mem + offer, 0, BLOCK);
    MPI_Info info;
    MPI_OK(MPI_Win_get_info(win, &info));
    char v[32] = "false";
    int flag = 0;
    MPI_OK(MPI_Info_get(info, "rdmpi_rma_device_atomics", sizeof(v) - 1, v, &flag));
    MPI_Info_free(&info);
    if (!t_all(flag && strcmp(v, "true") == 0)) {
        MPI_Win_free(&win);
        t_skip("the window has no device atomics (not verbs RC/hybrid)");
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    t_begin("passivity");
    volatile uint64_t *w = (volatile uint64_t *)mem;
    if (me == 0) {
        volatile double x = 0;
        double t0 = now(), all_at = -1;
        while (now() - t0 < COMPUTE) {
            for (int i = 0; i < 10000; i++)
                x += i * 1e-9;
            if (all_at < 0) {
                int seen = 0;
                for (int r = 1; r < n; r++)
                    seen += w[2 + r] == (MARK | (uint64_t)r);
                if (seen == n - 1)
                    all_at = now() - t0;
            }
        }
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        CHECK(all_at >= 0, "the origins were not done when rank 0 stopped computing after %.0f s",
              COMPUTE);
        CHECK(all_at < COMPUTE / 2,
              "the origins finished only %.2f s into rank 0's %.0f s computation", all_at,
              COMPUTE);
        printf("rank 0 computed %.1f s without MPI; %d origins locked, put, got, added and "
               "swapped in its window within %.3f s\n", COMPUTE, n - 1, all_at);
    } else {
        double t0 = now();
        uint8_t out[BLOCK], back[BLOCK];
        t_fill(out, me, BLOCK);
        memset(back, 0, BLOCK);
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MPI_OK(MPI_Put(out, BLOCK, MPI_BYTE, 0, (MPI_Aint)(blocks + (size_t)me * BLOCK), BLOCK,
                       MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Get(back, BLOCK, MPI_BYTE, 0, (MPI_Aint)offer, BLOCK, MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(0, win));
        size_t bad = t_verify(back, 0, BLOCK);
        CHECK(bad == BLOCK, "the block read from rank 0 differs at byte %zu", bad);
        int64_t one = 1, old, prev = -1;
        for (int i = 0; i < FADDS; i++) {
            MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, win));
            MPI_OK(MPI_Win_flush(0, win));
            /* the lock is exclusive: nobody else adds in between */
            CHECK(prev < 0 || old == prev + 1, "fetch-and-add %d gave %lld after %lld", i,
                  (long long)old, (long long)prev);
            prev = old;
        }
        int64_t cur = 0, next, got;
        do {   /* increment by compare-and-swap, as a lock-free counter would */
            MPI_OK(MPI_Fetch_and_op(NULL, &cur, MPI_INT64_T, 0, 8, MPI_NO_OP, win));
            MPI_OK(MPI_Win_flush(0, win));
            next = cur + 1;
            MPI_OK(MPI_Compare_and_swap(&next, &cur, &got, MPI_INT64_T, 0, 8, win));
            MPI_OK(MPI_Win_flush(0, win));
        } while (got != cur);
        MPI_OK(MPI_Win_unlock(0, win));

        MPI_OK(MPI_Win_lock_all(0, win));
        MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, win));
        int64_t c = 0;
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Get(&c, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win));
        MPI_OK(MPI_Win_flush(0, win));
        CHECK(c > old, "counter read %lld after fetching %lld", (long long)c, (long long)old);
        MPI_OK(MPI_Win_unlock_all(win));

        uint64_t mark = MARK | (uint64_t)me;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Put(&mark, 1, MPI_UINT64_T, 0, (MPI_Aint)(marks + (size_t)me * 8), 1,
                       MPI_UINT64_T, win));
        MPI_OK(MPI_Win_unlock(0, win));
        printf("rank %d: done in %.3f s\n", me, now() - t0);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    t_begin("counts");
    if (me == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        int64_t c[2];
        MPI_OK(MPI_Fetch_and_op(NULL, &c[0], MPI_INT64_T, 0, 0, MPI_NO_OP, win));
        MPI_OK(MPI_Fetch_and_op(NULL, &c[1], MPI_INT64_T, 0, 8, MPI_NO_OP, win));
        MPI_OK(MPI_Win_unlock(0, win));
        CHECK(c[0] == (int64_t)(n - 1) * (FADDS + 1), "counter %lld, expected %lld",
              (long long)c[0], (long long)(n - 1) * (FADDS + 1));
        CHECK(c[1] == n - 1, "CAS-incremented word %lld, expected %d", (long long)c[1], n - 1);
        for (int r = 1; r < n; r++) {
            size_t bad = t_verify(mem + blocks + (size_t)r * BLOCK, r, BLOCK);
            CHECK(bad == BLOCK, "block of rank %d differs at byte %zu", r, bad);
        }
    }
    MPI_OK(MPI_Win_free(&win));
    t_finish();
    return 0;
}
