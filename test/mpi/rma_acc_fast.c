/*
 * Accumulates from every rank into rank 0's window at once, under lock_all,
 * through every way an accumulate can go: MPI_Accumulate and
 * MPI_Get_accumulate of predefined types (in place from the call on a node),
 * MPI_Fetch_and_op, the same through a derived type (the general path) and,
 * with "-- mixed", the odd ranks by messages (rdmpi_rma_path=message: the
 * target applies them). Each location is only ever updated by atomics of one
 * type, so the end values are exact only if every path is atomic with every
 * other:
 *   - one long counter: Accumulate, Fetch_and_op, Get_accumulate and a derived
 *     type's Accumulate add 1 each; the values fetched by one origin prove its
 *     own earlier accumulates were applied first (MPI's default ordering), and a
 *     Get_accumulate MPI_NO_OP reads at least its own count;
 *   - 8 unsigned chars, 4 shorts (runs of small elements), 2 doubles and a
 *     float (compare-exchange loops), a long double and an int one byte off its
 *     alignment (the target's accumulate lock), each +1 per iteration;
 *   - an MPI_REPLACE exchange chain: every rank swaps its own tokens in, and
 *     the tokens fetched plus the last one left are every token exactly once;
 * then a tight loop of accumulates alone on a second counter and 8 chars (the
 * ranks overlap in time most there: a lost update shows).
 */
#include <string.h>
#include "check.h"

#define ITER 2000
/* byte offsets in rank 0's window (disp_unit 1) */
enum { O_L = 0, O_UC = 16, O_SH = 24, O_D = 32, O_F = 48, O_LD = 64, O_UI = 81, O_X = 104,
       O_H = 112, O_HC = 120, WIN_BYTES = 128 };
#define HAMMER_SECONDS 0.5

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int mixed = argc > 1 && strcmp(argv[1], "mixed") == 0;
    MPI_Info info = MPI_INFO_NULL;
    if (mixed && me % 2 == 1) {
        MPI_OK(MPI_Info_create(&info));
        MPI_OK(MPI_Info_set(info, "rdmpi_rma_path", "message"));
    }
    uint8_t *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(WIN_BYTES, 1, info, MPI_COMM_WORLD, &mem, &win));
    if (info != MPI_INFO_NULL)
        MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    memset(mem, 0, WIN_BYTES);
    MPI_OK(MPI_Win_unlock(me, win));
    MPI_Datatype dlong, dint;   /* derived: never the in-place fast path */
    MPI_OK(MPI_Type_contiguous(1, MPI_LONG, &dlong));
    MPI_OK(MPI_Type_commit(&dlong));
    MPI_OK(MPI_Type_contiguous(1, MPI_INT, &dint));
    MPI_OK(MPI_Type_commit(&dint));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    t_begin("concurrent");
    long one = 1, *swapped = malloc(ITER * sizeof(long));
    unsigned char uc1[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    short sh1[4] = { 1, 1, 1, 1 }, shold[4];
    double d1[2] = { 1.0, 1.0 };
    float f1 = 1.0f;
    long double ld1 = 1.0L;
    int i1 = 1, iold;
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < ITER; i++) {
        long f, g, r;
        MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG, 0, O_L, 1, MPI_LONG, MPI_SUM, win));
        MPI_OK(MPI_Fetch_and_op(&one, &f, MPI_LONG, 0, O_L, MPI_SUM, win));
        MPI_OK(MPI_Get_accumulate(&one, 1, MPI_LONG, &g, 1, MPI_LONG, 0, O_L, 1, MPI_LONG,
                                  MPI_SUM, win));
        MPI_OK(MPI_Accumulate(&one, 1, dlong, 0, O_L, 1, dlong, MPI_SUM, win));
        MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_LONG, &r, 1, MPI_LONG, 0, O_L, 1, MPI_LONG,
                                  MPI_NO_OP, win));
        MPI_OK(MPI_Accumulate(uc1, 8, MPI_UNSIGNED_CHAR, 0, O_UC, 8, MPI_UNSIGNED_CHAR, MPI_SUM,
                              win));
        MPI_OK(MPI_Get_accumulate(sh1, 4, MPI_SHORT, shold, 4, MPI_SHORT, 0, O_SH, 4, MPI_SHORT,
                                  MPI_SUM, win));
        MPI_OK(MPI_Accumulate(d1, 2, MPI_DOUBLE, 0, O_D, 2, MPI_DOUBLE, MPI_SUM, win));
        MPI_OK(MPI_Accumulate(&f1, 1, MPI_FLOAT, 0, O_F, 1, MPI_FLOAT, MPI_SUM, win));
        MPI_OK(MPI_Accumulate(&ld1, 1, MPI_LONG_DOUBLE, 0, O_LD, 1, MPI_LONG_DOUBLE, MPI_SUM,
                              win));
        MPI_OK(MPI_Accumulate(&i1, 1, MPI_INT, 0, O_UI, 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Get_accumulate(&i1, 1, dint, &iold, 1, dint, 0, O_UI, 1, dint, MPI_SUM, win));
        long tok = (long)me * ITER + i + 1;
        MPI_OK(MPI_Get_accumulate(&tok, 1, MPI_LONG, &swapped[i], 1, MPI_LONG, 0, O_X, 1,
                                  MPI_LONG, MPI_REPLACE, win));
        MPI_OK(MPI_Win_flush(0, win));
        /* this origin's earlier accumulates on the counter came first */
        CHECK(f >= 4L * i + 1, "fetch_and_op got %ld at iteration %d", f, i);
        CHECK(g > f, "get_accumulate got %ld after fetch_and_op's %ld", g, f);
        CHECK(r >= 4L * (i + 1) && r > g, "NO_OP read %ld at iteration %d (after %ld)", r, i, g);
        CHECK(n * ITER > 32767 || shold[0] >= i, "short fetched %d at iteration %d",
              shold[0], i);
        CHECK(iold >= 2 * i + 1, "unaligned int fetched %d at iteration %d", iold, i);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* for a fixed time, not a count: the ranks overlap however the host schedules them */
    long hammered = 0, htotal = 0;
    MPI_OK(MPI_Win_lock_all(0, win));
    double t0 = MPI_Wtime();
    do {
        for (int i = 0; i < 64; i++) {
            MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG, 0, O_H, 1, MPI_LONG, MPI_SUM, win));
            MPI_OK(MPI_Accumulate(uc1, 8, MPI_UNSIGNED_CHAR, 0, O_HC, 8, MPI_UNSIGNED_CHAR,
                                  MPI_SUM, win));
        }
        MPI_OK(MPI_Win_flush(0, win));
        hammered += 64;
    } while (MPI_Wtime() - t0 < HAMMER_SECONDS);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Reduce(&hammered, &htotal, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));

    long *all = me == 0 ? malloc((size_t)n * ITER * sizeof(long)) : NULL;
    MPI_OK(MPI_Gather(swapped, ITER, MPI_LONG, all, ITER, MPI_LONG, 0, MPI_COMM_WORLD));
    if (me == 0) {
        long total = (long)n * ITER, v;
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        memcpy(&v, mem + O_L, sizeof(v));
        CHECK(v == 4 * total, "counter %ld, expected %ld", v, 4 * total);
        for (int k = 0; k < 8; k++)
            CHECK(mem[O_UC + k] == (unsigned char)total, "uchar %d is %u, expected %u", k,
                  mem[O_UC + k], (unsigned char)total);
        short sh[4];
        memcpy(sh, mem + O_SH, sizeof(sh));
        for (int k = 0; k < 4; k++)
            CHECK(sh[k] == (short)total, "short %d is %d, expected %d", k, sh[k], (short)total);
        double d[2];
        memcpy(d, mem + O_D, sizeof(d));
        CHECK(d[0] == (double)total && d[1] == (double)total, "doubles %g %g, expected %ld",
              d[0], d[1], total);
        float f;
        memcpy(&f, mem + O_F, sizeof(f));
        CHECK(f == (float)total, "float %g, expected %ld", (double)f, total);
        long double ld;
        memcpy(&ld, mem + O_LD, sizeof(ld));
        CHECK(ld == (long double)total, "long double %Lg, expected %ld", ld, total);
        int ui;
        memcpy(&ui, mem + O_UI, sizeof(ui));
        CHECK(ui == (int)(2 * total), "unaligned int %d, expected %ld", ui, 2 * total);
        memcpy(&v, mem + O_H, sizeof(v));
        CHECK(v == htotal, "tight-loop counter %ld, expected %ld", v, htotal);
        for (int k = 0; k < 8; k++)
            CHECK(mem[O_HC + k] == (unsigned char)htotal, "tight-loop uchar %d is %u, "
                  "expected %u", k, mem[O_HC + k], (unsigned char)htotal);
        /* the exchange chain: fetched tokens and the one left are 0 .. total, once each */
        char *seen = calloc((size_t)total + 1, 1);
        long last;
        memcpy(&last, mem + O_X, sizeof(last));
        CHECK(last >= 1 && last <= total, "last token %ld", last);
        seen[last] = 1;
        for (long k = 0; k < total; k++) {
            CHECK(all[k] >= 0 && all[k] <= total, "swapped out %ld", all[k]);
            CHECK(!seen[all[k]], "token %ld swapped out twice", all[k]);
            seen[all[k]] = 1;
        }
        MPI_OK(MPI_Win_unlock(0, win));
        free(seen);
        free(all);
    }
    MPI_OK(MPI_Type_free(&dlong));
    MPI_OK(MPI_Type_free(&dint));
    MPI_OK(MPI_Win_free(&win));
    free(swapped);
    t_finish();
    return 0;
}
