/*
 * One-sided is one-sided (RDMA path): rank 0 sits in a compute loop without
 * any MPI call while every other rank locks its window (MPI_MODE_NOCHECK: no
 * lock message either), puts its block, flushes, gets back a block rank 0
 * wrote before the loop, flushes, and finally puts a marker. Rank 0 leaves
 * the loop once it sees every block and marker in its own memory, or fails
 * after DEADLINE seconds: with operations handled at the target (shm's CMA
 * aside, tcp, verbs UD) the puts never land while it computes, so the
 * program runs only where this rank pair is reached by RDMA (verbs RC or
 * hybrid) and says SKIP elsewhere. The connection the RDMA needs is made
 * first, in a fence epoch (the transport connects on first use, with the
 * target's help).
 * Locks without NOCHECK, Fetch_and_op and Compare_and_swap while the target
 * computes: rma_atomic_passivity (windows with device atomics).
 */
#include <stdint.h>
#include <time.h>
#include "check.h"

#define BLOCK 512              /* bytes per origin (a multiple of 8) */
#define BIG (1u << 20)         /* bytes per origin of the large Put and Get */
#define MARK 0x5a5a5a5a00000000ull
#define DEADLINE 60.0

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Window layout: [0, n*8) markers, then n blocks the origins put, then the block rank 0
 * offers to be read, then n large areas the origins put and read back. */
int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (n < 2)
        t_skip("needs 2 or more ranks");
    size_t marks = (size_t)n * 8, blocks = marks, offer = blocks + (size_t)n * BLOCK;
    size_t large = offer + BLOCK, len = large + (size_t)n * BIG;
    uint8_t *mem = calloc(1, len);
    CHECK(mem, "out of memory");
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, (MPI_Aint)len, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Info info;
    MPI_OK(MPI_Win_get_info(win, &info));
    char v[32] = "0";
    int flag = 0;
    MPI_OK(MPI_Info_get(info, "rdmpi_rma_rdma_targets", sizeof(v) - 1, v, &flag));
    MPI_Info_free(&info);
    /* the origins must reach rank 0 by RDMA */
    if (!t_all(me == 0 || (flag && atoi(v) > 0))) {
        MPI_Win_free(&win);
        free(mem);
        t_skip("rank 0's window is not reached by RDMA (not verbs RC/hybrid)");
    }
    /* The transport connects to a peer on the first RDMA to it, and the peer answers that
     * from its progress: one Put while rank 0 is in MPI (a fence epoch) makes the connection. */
    MPI_OK(MPI_Win_fence(0, win));
    uint64_t zero = 0;
    if (me != 0)
        MPI_OK(MPI_Put(&zero, 1, MPI_UINT64_T, 0, (MPI_Aint)me * 8, 1, MPI_UINT64_T, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    if (me == 0)
        t_fill(mem + offer, 0, BLOCK);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    t_begin("passivity");
    if (me == 0) {
        /* no MPI call until every origin's data is here */
        volatile uint64_t *mk = (volatile uint64_t *)mem;
        volatile double x = 0;
        double t0 = now();
        int seen = 0;
        while (seen < n - 1) {
            CHECK(now() - t0 < DEADLINE,
                  "only %d of %d origins' puts reached this rank while it computed for %.0f s",
                  seen, n - 1, DEADLINE);
            for (int i = 0; i < 10000; i++)
                x += i * 1e-9;
            seen = 0;
            for (int r = 1; r < n; r++)
                seen += mk[r] == (MARK | (uint64_t)r);
        }
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        for (int r = 1; r < n; r++) {
            size_t bad = t_verify(mem + blocks + (size_t)r * BLOCK, r, BLOCK);
            CHECK(bad == BLOCK, "block of rank %d differs at byte %zu", r, bad);
        }
        printf("rank 0 computed %.3f s without MPI while %d origins put and got\n", now() - t0,
               n - 1);
    } else {
        uint8_t out[BLOCK], back[BLOCK];
        t_fill(out, me, BLOCK);
        memset(back, 0, BLOCK);
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win));
        MPI_OK(MPI_Put(out, BLOCK, MPI_BYTE, 0, (MPI_Aint)(blocks + (size_t)me * BLOCK), BLOCK,
                       MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Get(back, BLOCK, MPI_BYTE, 0, (MPI_Aint)offer, BLOCK, MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(0, win));
        size_t bad = t_verify(back, 0, BLOCK);
        CHECK(bad == BLOCK, "the block read from rank 0 differs at byte %zu", bad);
        /* an 8-byte Get and Put too (the latency path) */
        uint64_t word = 0, mark = MARK | (uint64_t)me;
        MPI_OK(MPI_Get(&word, 8, MPI_BYTE, 0, (MPI_Aint)offer, 8, MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(0, win));
        CHECK(memcmp(&word, back, 8) == 0, "8-byte get differs");
        /* more small Gets in flight than the bounce slots they land in (rdma.c), of every
         * size up to past the bounce size, completed by one flush; then one by its request */
        enum { NGET = 80 };
        static uint8_t many[NGET * (NGET + 1) / 2];
        size_t at = 0;
        memset(many, 0xee, sizeof(many));
        for (int k = 1; k <= NGET; k++) {
            MPI_OK(MPI_Get(many + at, k, MPI_BYTE, 0, (MPI_Aint)(offer + (size_t)k * 5), k,
                           MPI_BYTE, win));
            at += (size_t)k;
        }
        MPI_OK(MPI_Win_flush(0, win));
        at = 0;
        for (int k = 1; k <= NGET; k++) {
            CHECK(memcmp(many + at, back + (size_t)k * 5, (size_t)k) == 0,
                  "%d-byte get among %d in flight differs", k, NGET);
            at += (size_t)k;
        }
        /* a large Put and Get (their wait yields the core between polls, rma_wait_peer) */
        uint8_t *bo = malloc(BIG), *bb = malloc(BIG);
        CHECK(bo && bb, "out of memory");
        t_fill(bo, me + 7, BIG);
        memset(bb, 0, BIG);
        MPI_Aint bdisp = (MPI_Aint)(large + (size_t)me * BIG);
        MPI_OK(MPI_Put(bo, BIG, MPI_BYTE, 0, bdisp, BIG, MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Get(bb, BIG, MPI_BYTE, 0, bdisp, BIG, MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(0, win));
        bad = t_verify(bb, me + 7, BIG);
        CHECK(bad == BIG, "the large block read back differs at byte %zu", bad);
        free(bo);
        free(bb);
        MPI_Request rq;
        uint64_t rword = 0;
        MPI_OK(MPI_Rget(&rword, 8, MPI_BYTE, 0, (MPI_Aint)(offer + 16), 8, MPI_BYTE, win, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(memcmp(&rword, back + 16, 8) == 0, "8-byte Rget differs");
        MPI_OK(MPI_Put(&mark, 1, MPI_UINT64_T, 0, (MPI_Aint)me * 8, 1, MPI_UINT64_T, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Win_free(&win));
    free(mem);
    t_finish();
    return 0;
}
