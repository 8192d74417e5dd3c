/*
 * rdmpi_rma_lat: one-sided latency between two ranks. Rank 0 is the origin, rank 1 the target
 * of a window from MPI_Win_allocate. Per iteration, by --op:
 *   put, get   one Put/Get of the size, completed by --sync:
 *              flush  (default) inside one lock of the target: op + MPI_Win_flush
 *              lockall  the same inside MPI_Win_lock_all (as an application using passive
 *                     target for everything holds its epoch)
 *              fence  op + MPI_Win_fence on both ranks
 *              pscw   origin: start + op + complete; target: post + wait
 *              pingpong  (put only) one-way Put latency as perftest's ib_write_lat measures
 *                     it: both ranks in MPI_Win_lock_all; rank 0 Puts the size (at least 8
 *                     bytes, its last 8 a value new in each iteration) into rank 1's window and
 *                     flushes; rank 1 polls its own window memory (MPI_Win_sync between loads,
 *                     as the unified model has it) until the value is there, then Puts the
 *                     next value back the same way; the figure is half the round trip. Over
 *                     RDMA the poll sees the write land without MPI progress at the target.
 *                     The last 8 bytes arriving last is what ib_write_lat assumes as well
 *                     (a NIC writes a message in order); with MPI it holds for 8 bytes only.
 *   acc        MPI_Accumulate of size/8 longs with MPI_SUM + flush
 *   fop        MPI_Fetch_and_op of one long with MPI_SUM + flush (size 8 only)
 *   cas        MPI_Compare_and_swap of one long + flush (size 8 only)
 * --op=get,fop,... runs each op of the list in turn in one job (one launch, the same window),
 * each one's rows after a line "# op: NAME".
 * The latency is the time per iteration at rank 0, averaged over the timed iterations; with -t
 * (flush and lockall) also the median of the per-iteration times, as perftest's t_typical: a
 * descheduled iteration then moves the figure by nothing. Output as OSU's osu_put_latency. Standard MPI only: the same source builds with any MPI's mpicc.
 */
#include "bench_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct bench_spec spec = {
    .prog = "rdmpi_rma_lat",
    .title = "One-sided Latency Test",
    .columns = "# Size          Latency (us)",
    .ranks = BENCH_RANKS_TWO,
    .has_median = 1,
    .iters_small = 10000, .warmup_small = 100,
    .iters_large = 1000, .warmup_large = 10,
    .usage =
        "  --op=OP[,OP...]  put (default), get, acc (MPI_SUM of longs), fop (Fetch_and_op),\n"
        "                cas (Compare_and_swap): each in turn, its rows after \"# op: OP\"\n"
        "  --sync=SYNC   how each operation completes:\n"
        "                flush (default)  op + MPI_Win_flush inside MPI_Win_lock of the target\n"
        "                lockall  op + MPI_Win_flush inside MPI_Win_lock_all\n"
        "                fence    op + MPI_Win_fence on both ranks\n"
        "                pscw     start + op + complete; the target post + wait\n"
        "                pingpong (put only) one-way latency as ib_write_lat's: rank 0 Puts\n"
        "                         and flushes, rank 1 polls its window (MPI_Win_sync between\n"
        "                         loads) for the new value and Puts back; half the round trip\n",
};

enum op { OP_PUT, OP_GET, OP_ACC, OP_FOP, OP_CAS };
enum sync { SYNC_FLUSH, SYNC_FENCE, SYNC_PSCW, SYNC_LOCKALL, SYNC_PINGPONG };

static const char *op_names[] = { "put", "get", "acc", "fop", "cas" };
#define MAX_OPS 16

/* The ops of a comma list (at most MAX_OPS): their count, 0 when one is unknown. */
static int parse_ops(const char *list, enum op *ops)
{
    int n = 0;
    while (*list && n < MAX_OPS) {
        size_t len = strcspn(list, ",");
        int k = 0;
        while (k < 5 && (strlen(op_names[k]) != len || strncmp(list, op_names[k], len)))
            k++;
        if (k == 5)
            return 0;
        ops[n++] = (enum op)k;
        list += len + (list[len] == ',');
    }
    return *list ? 0 : n;
}

/* Takes --op=X[,Y...] and --sync=Y out of argv (bench_start parses the rest). */
static void own_args(int *argc, char **argv, enum op *op, int *nops, enum sync *sync)
{
    static const char *syncs[] = { "flush", "fence", "pscw", "lockall", "pingpong" };
    int out = 1;
    op[0] = OP_PUT;
    *nops = 1;
    *sync = SYNC_FLUSH;
    for (int i = 1; i < *argc; i++) {
        int found = 0;
        if (!strncmp(argv[i], "--op=", 5) && (*nops = parse_ops(argv[i] + 5, op)) > 0)
            found = 1;
        for (int k = 0; k < 5 && !strncmp(argv[i], "--sync=", 7); k++)
            if (!strcmp(argv[i] + 7, syncs[k]))
                *sync = (enum sync)k, found = 1;
        if (!found && (!strncmp(argv[i], "--op=", 5) || !strncmp(argv[i], "--sync=", 7))) {
            fprintf(stderr, "rdmpi_rma_lat: unknown %s (ops: put get acc fop cas; syncs: flush "
                    "fence pscw lockall pingpong)\n", argv[i]);
            exit(1);
        }
        if (!found)
            argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    if (*sync == SYNC_PINGPONG && (*nops != 1 || op[0] != OP_PUT)) {
        fprintf(stderr, "rdmpi_rma_lat: --sync=pingpong measures --op=put only\n");
        exit(1);
    }
}

/* The stamp of iteration i's message from rank r, in the last 8 bytes of a ping-pong's
 * size (never 0, the window's initial contents). */
static long stamp(int i, int r)
{
    return 2L * i + r + 1;
}

/* Waits until the last 8 bytes of the window memory mem of size bytes hold want: loads of
 * the window's own copy, each after an MPI_Win_sync (unified model: the sync makes the
 * target's view of its memory current). */
static void await_stamp(const char *mem, size_t size, long want, MPI_Win win)
{
    for (;;) {
        long v;
        MPI_Win_sync(win);
        memcpy(&v, (const void *)(mem + size - 8), 8);   /* the call above: a fresh load */
        if (v == want)
            return;
    }
}

/* One-way Put latency, half a ping-pong's round trip (see the header): the time per
 * iteration at rank 0, the median of the per-iteration times in *median with lap. */
static double pingpong(const struct bench_opts *o, char *buf, char *mem, size_t size,
                       MPI_Win win, double *lap, double *median)
{
    int iters = bench_iters(o, size), warmup = bench_warmup(o, size), peer = 1 - o->rank;
    double t0 = 0, t = 0;
    /* no stamp of an earlier size where this one polls */
    memset(mem, 0, size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < warmup + iters; i++) {
        if (o->rank == 0) {
            if (i == warmup)
                t0 = t = MPI_Wtime();
            if (lap && i > warmup) {
                double now = MPI_Wtime();
                lap[i - warmup - 1] = now - t;
                t = now;
            }
        } else {
            await_stamp(mem, size, stamp(i, 0), win);
        }
        long v = stamp(i, o->rank);
        memcpy(buf + size - 8, &v, 8);
        MPI_Put(buf, (int)size, MPI_CHAR, peer, 0, (int)size, MPI_CHAR, win);
        MPI_Win_flush(peer, win);
        if (o->rank == 0)
            await_stamp(mem, size, stamp(i, 1), win);
    }
    if (o->rank == 0) {
        double end = MPI_Wtime();
        t0 = end - t0;
        if (lap) {
            lap[iters - 1] = end - t;
            *median = bench_median(lap, iters) * 1e6 / 2;
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    return t0 * 1e6 / iters / 2;
}

static void issue(enum op op, char *buf, char *res, size_t size, MPI_Win win)
{
    long one = 1, zero = 0;
    switch (op) {
    case OP_PUT:
        MPI_Put(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
        break;
    case OP_GET:
        MPI_Get(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
        break;
    case OP_ACC:
        MPI_Accumulate(buf, (int)(size / 8), MPI_LONG, 1, 0, (int)(size / 8), MPI_LONG, MPI_SUM,
                       win);
        break;
    case OP_FOP:
        MPI_Fetch_and_op(&one, res, MPI_LONG, 1, 0, MPI_SUM, win);
        break;
    case OP_CAS:
        MPI_Compare_and_swap(&one, &zero, res, MPI_LONG, 1, 0, win);
        break;
    }
}

/* The time per iteration in microseconds at rank 0; with lap (an array of the size's iteration
 * count; flush and lockall only) the median of the per-iteration times in *median. */
static double run(const struct bench_opts *o, enum op op, enum sync sync, char *buf, char *res,
                  size_t size, MPI_Win win, MPI_Group peer, double *lap, double *median)
{
    int iters = bench_iters(o, size), warmup = bench_warmup(o, size);
    double t0 = 0;
    if (sync == SYNC_PINGPONG)
        return pingpong(o, buf, res, size, win, lap, median);
    if (sync == SYNC_FLUSH || sync == SYNC_LOCKALL) {
        if (o->rank == 0) {
            double t = 0;
            if (sync == SYNC_FLUSH)
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            else
                MPI_Win_lock_all(0, win);
            for (int i = 0; i < warmup + iters; i++) {
                if (i == warmup)
                    t0 = t = MPI_Wtime();
                if (lap && i > warmup) {
                    double now = MPI_Wtime();
                    lap[i - warmup - 1] = now - t;
                    t = now;
                }
                issue(op, buf, res, size, win);
                MPI_Win_flush(1, win);
            }
            double end = MPI_Wtime();
            t0 = end - t0;
            if (lap) {
                lap[iters - 1] = end - t;
                *median = bench_median(lap, iters) * 1e6;
            }
            if (sync == SYNC_FLUSH)
                MPI_Win_unlock(1, win);
            else
                MPI_Win_unlock_all(win);
        }
    } else if (sync == SYNC_FENCE) {
        MPI_Win_fence(0, win);
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            if (o->rank == 0)
                issue(op, buf, res, size, win);
            MPI_Win_fence(0, win);
        }
        t0 = MPI_Wtime() - t0;
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    } else {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            if (o->rank == 0) {
                MPI_Win_start(peer, 0, win);
                issue(op, buf, res, size, win);
                MPI_Win_complete(win);
            } else {
                MPI_Win_post(peer, 0, win);
                MPI_Win_wait(win);
            }
        }
        t0 = MPI_Wtime() - t0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return t0 * 1e6 / iters;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    enum op ops[MAX_OPS];
    int nops;
    enum sync sync;

    own_args(&argc, argv, ops, &nops, &sync);
    bench_start(&argc, &argv, &spec, &o);
    if (nops == 1 && (ops[0] == OP_FOP || ops[0] == OP_CAS))
        o.min_size = o.max_size = 8;
    size_t wsize = o.max_size < 8 ? 8 : o.max_size, min_size = o.min_size, max_size = o.max_size;
    char *buf = bench_alloc(&o, wsize);
    long res = 0;
    char *mem;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, wsize);
    MPI_Group world, peer;
    int other = 1 - o.rank;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &other, &peer);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int k = 0; k < nops; k++) {
        enum op op = ops[k];
        o.min_size = op == OP_FOP || op == OP_CAS ? 8
                     : (op == OP_ACC || sync == SYNC_PINGPONG) && min_size < 8 ? 8 : min_size;
        o.max_size = op == OP_FOP || op == OP_CAS ? 8 : max_size;
        if (nops > 1 && o.rank == 0)
            printf("# op: %s\n", op_names[op]);
        for (size_t size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
            if (op == OP_ACC && size % 8)
                continue;
            MPI_Barrier(MPI_COMM_WORLD);
            double *lap = NULL, median = 0;
            if (o.median && o.rank == 0 && sync != SYNC_FENCE && sync != SYNC_PSCW) {
                lap = malloc((size_t)bench_iters(&o, size) * sizeof(*lap));
                if (!lap)
                    MPI_Abort(MPI_COMM_WORLD, 1);
            }
            double mean = run(&o, op, sync, buf, sync == SYNC_PINGPONG ? mem : (char *)&res,
                              size, win, peer, lap, &median);
            if (lap)
                bench_row2(&o, size, mean, median);
            else
                bench_row(&o, size, mean);
            free(lap);
        }
    }
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    free(buf);
    return bench_finish();
}
