/*
 * One-sided communication: every synchronization mode (fence, post/start/
 * complete/wait, lock/unlock, lock_all/unlock_all) x every operation (Put,
 * Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap and the
 * request forms) x every window flavor (create, allocate, allocate_shared,
 * dynamic). Every rank targets every rank (itself too); the results are
 * checked at the target and at the origin.
 *
 * Window layout (ints), n ranks: [0,n) Put area (slot r written by rank r),
 * [n] accumulate counter, [n+1] fetch-and-op counter, [n+2] CAS word,
 * [n+3, 2n+3) Get area (filled by the owner), [2n+3, 3n+3) Rput area,
 * [3n+3] Raccumulate/Rget_accumulate counter.
 *
 * sync_poll: each rank Puts into the next rank's window inside lock_all and flushes, while
 * the next rank waits for the value by loading its own window memory with MPI_Win_sync
 * between loads (the unified model's ping-pong, as rdmpi_rma_lat --sync=pingpong does): a
 * Put that the target must serve (tcp, verbs UD) completes only if MPI_Win_sync lets it.
 */
#include "check.h"

enum { FENCE, PSCW, LOCK, LOCKALL, NSYNC };
static const char *sync_name[] = { "fence", "pscw", "lock", "lock_all" };
enum { F_CREATE, F_ALLOCATE, F_SHARED, F_DYNAMIC, NFLAVOR };
static const char *flavor_name[] = { "create", "allocate", "shared", "dynamic" };

static int n, me;
static MPI_Group world_group;

static void open_epoch(MPI_Win win, int sync)
{
    if (sync == FENCE)
        MPI_OK(MPI_Win_fence(0, win));
    else if (sync == PSCW) {
        MPI_OK(MPI_Win_post(world_group, 0, win));
        MPI_OK(MPI_Win_start(world_group, 0, win));
    } else if (sync == LOCKALL)
        MPI_OK(MPI_Win_lock_all(0, win));
}

static void close_epoch(MPI_Win win, int sync)
{
    if (sync == FENCE)
        MPI_OK(MPI_Win_fence(0, win));
    else if (sync == PSCW) {
        MPI_OK(MPI_Win_complete(win));
        MPI_OK(MPI_Win_wait(win));
    } else if (sync == LOCKALL)
        MPI_OK(MPI_Win_unlock_all(win));
    /* everyone's accesses are complete before anyone checks its memory */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void lock(MPI_Win win, int sync, int t, int type)
{
    if (sync == LOCK)
        MPI_OK(MPI_Win_lock(type, t, 0, win));
}

static void unlock(MPI_Win win, int sync, int t)
{
    if (sync == LOCK)
        MPI_OK(MPI_Win_unlock(t, win));
}

/* Target displacement of element i: dynamic windows take absolute addresses. */
static MPI_Aint disp_of(const MPI_Aint *bases, int t, int i, int dynamic)
{
    return dynamic ? MPI_Aint_add(bases[t], (MPI_Aint)i * (MPI_Aint)sizeof(int)) : i;
}

static void run(int flavor, int sync)
{
    char label[64];
    snprintf(label, sizeof(label), "%s/%s", flavor_name[flavor], sync_name[sync]);
    t_begin(label);
    int len = 3 * n + 4;
    int *mem = NULL, *heap = NULL;
    MPI_Win win;
    MPI_Aint size = (MPI_Aint)len * (MPI_Aint)sizeof(int);
    int dynamic = flavor == F_DYNAMIC;
    MPI_Aint *bases = calloc((size_t)n, sizeof(MPI_Aint));
    switch (flavor) {
    case F_CREATE:
        heap = mem = malloc((size_t)size);
        MPI_OK(MPI_Win_create(mem, size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        break;
    case F_ALLOCATE:
        MPI_OK(MPI_Win_allocate(size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        break;
    case F_SHARED:
        MPI_OK(MPI_Win_allocate_shared(size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                                       &win));
        break;
    case F_DYNAMIC:
        heap = mem = malloc((size_t)size);
        MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_OK(MPI_Win_attach(win, mem, size));
        break;
    }
    MPI_Aint mine;
    MPI_OK(MPI_Get_address(mem, &mine));
    MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD));
    for (int i = 0; i < len; i++)
        mem[i] = 0;
    mem[n + 2] = -1;
    for (int i = 0; i < n; i++)
        mem[n + 3 + i] = me * 1000 + i;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* phase 1: Put, Accumulate, Fetch_and_op, Compare_and_swap, Rput, Raccumulate */
    int *got = malloc((size_t)n * sizeof(int));
    int *fetched = malloc((size_t)n * sizeof(int));
    int *cas_old = malloc((size_t)n * sizeof(int));
    int *rget = malloc((size_t)n * sizeof(int));
    int put_val[1], acc_val = me + 1, one = 1, mine_id = me, minus1 = -1;
    int rput_val = me * 7 + 1;
    open_epoch(win, sync);
    for (int t = 0; t < n; t++) {
        MPI_Request req[3];
        lock(win, sync, t, (t + me) % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE);
        put_val[0] = me * 100 + t;
        MPI_OK(MPI_Put(put_val, 1, MPI_INT, t, disp_of(bases, t, me, dynamic), 1, MPI_INT, win));
        MPI_OK(MPI_Accumulate(&acc_val, 1, MPI_INT, t, disp_of(bases, t, n, dynamic), 1, MPI_INT,
                              MPI_SUM, win));
        MPI_OK(MPI_Fetch_and_op(&one, &fetched[t], MPI_INT, t, disp_of(bases, t, n + 1, dynamic),
                                MPI_SUM, win));
        MPI_OK(MPI_Compare_and_swap(&mine_id, &minus1, &cas_old[t], MPI_INT, t,
                                    disp_of(bases, t, n + 2, dynamic), win));
        MPI_OK(MPI_Rput(&rput_val, 1, MPI_INT, t, disp_of(bases, t, 2 * n + 3 + me, dynamic), 1,
                        MPI_INT, win, &req[0]));
        MPI_OK(MPI_Raccumulate(&one, 1, MPI_INT, t, disp_of(bases, t, 3 * n + 3, dynamic), 1,
                               MPI_INT, MPI_SUM, win, &req[1]));
        MPI_OK(MPI_Rget(&rget[t], 1, MPI_INT, t, disp_of(bases, t, n + 3 + me, dynamic), 1,
                        MPI_INT, win, &req[2]));
        MPI_OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
        CHECK(rget[t] == t * 1000 + me, "Rget from %d gave %d", t, rget[t]);
        unlock(win, sync, t);
    }
    close_epoch(win, sync);
    for (int r = 0; r < n; r++) {
        CHECK(mem[r] == r * 100 + me, "Put from %d left %d", r, mem[r]);
        CHECK(mem[2 * n + 3 + r] == r * 7 + 1, "Rput from %d left %d", r, mem[2 * n + 3 + r]);
    }
    CHECK(mem[n] == n * (n + 1) / 2, "accumulated %d, expected %d", mem[n], n * (n + 1) / 2);
    CHECK(mem[n + 1] == n, "fetch-and-op counter %d, expected %d", mem[n + 1], n);
    CHECK(mem[3 * n + 3] == n, "Raccumulate counter %d, expected %d", mem[3 * n + 3], n);
    CHECK(mem[n + 2] >= 0 && mem[n + 2] < n, "CAS word %d", mem[n + 2]);
    int wins = 0;
    for (int t = 0; t < n; t++) {
        CHECK(fetched[t] >= 0 && fetched[t] < n, "fetched %d from %d", fetched[t], t);
        CHECK(cas_old[t] == -1 || (cas_old[t] >= 0 && cas_old[t] < n), "CAS gave %d",
              cas_old[t]);
        wins += cas_old[t] == -1;
    }
    int all_wins;
    MPI_OK(MPI_Allreduce(&wins, &all_wins, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(all_wins == n, "%d CAS winners over %d words", all_wins, n);

    /* phase 2: Get, Get_accumulate (MPI_NO_OP reads, MPI_REPLACE swaps) */
    open_epoch(win, sync);
    for (int t = 0; t < n; t++) {
        lock(win, sync, t, MPI_LOCK_SHARED);
        MPI_OK(MPI_Get(&got[t], 1, MPI_INT, t, disp_of(bases, t, n + 3 + me, dynamic), 1, MPI_INT,
                       win));
        MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, &fetched[t], 1, MPI_INT, t,
                                  disp_of(bases, t, n, dynamic), 1, MPI_INT, MPI_NO_OP, win));
        unlock(win, sync, t);
    }
    close_epoch(win, sync);
    for (int t = 0; t < n; t++) {
        CHECK(got[t] == t * 1000 + me, "Get from %d gave %d", t, got[t]);
        CHECK(fetched[t] == n * (n + 1) / 2, "NO_OP read %d from %d", fetched[t], t);
    }
    open_epoch(win, sync);
    int next = (me + 1) % n, repl = 5000 + me, old = -7;
    lock(win, sync, next, MPI_LOCK_EXCLUSIVE);
    MPI_OK(MPI_Get_accumulate(&repl, 1, MPI_INT, &old, 1, MPI_INT, next,
                              disp_of(bases, next, n + 3 + me, dynamic), 1, MPI_INT, MPI_REPLACE,
                              win));
    unlock(win, sync, next);
    close_epoch(win, sync);
    CHECK(old == next * 1000 + me, "REPLACE fetched %d", old);
    int prev = (me + n - 1) % n;
    CHECK(mem[n + 3 + prev] == 5000 + prev, "REPLACE left %d", mem[n + 3 + prev]);

    if (flavor == F_SHARED) {
        /* the other ranks' parts are load/store memory */
        MPI_Aint qsize;
        int qunit;
        int *qbase;
        MPI_OK(MPI_Win_shared_query(win, next, &qsize, &qunit, &qbase));
        CHECK(qsize == size && qunit == (int)sizeof(int), "shared_query %ld %d", (long)qsize,
              qunit);
        CHECK(qbase[n + 3 + me] == 5000 + me, "load from rank %d's part: %d", next,
              qbase[n + 3 + me]);
    }
    if (dynamic)
        MPI_OK(MPI_Win_detach(win, mem));
    MPI_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free left the handle");
    free(heap);
    free(bases);
    free(got);
    free(fetched);
    free(cas_old);
    free(rget);
}

static void sync_poll(int flavor, int msg)
{
    t_begin(flavor == F_CREATE ? "sync_poll create" : msg ? "sync_poll allocate message"
                                                          : "sync_poll allocate");
    /* messages for every target: what other nodes over tcp take */
    MPI_Info info = MPI_INFO_NULL;
    if (msg) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "rdmpi_rma_path", "message");
    }
    long *mem, *own = NULL;
    MPI_Win win;
    if (flavor == F_CREATE) {
        own = calloc(2, sizeof(long));
        CHECK(own, "out of memory");
        mem = own;
        MPI_OK(MPI_Win_create(mem, 2 * sizeof(long), sizeof(long), info, MPI_COMM_WORLD,
                              &win));
    } else {
        MPI_OK(MPI_Win_allocate(2 * sizeof(long), sizeof(long), info, MPI_COMM_WORLD, &mem,
                                &win));
        mem[0] = mem[1] = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    for (long round = 1; round <= 3; round++) {
        long v = round * 1000 + me;
        MPI_OK(MPI_Put(&v, 1, MPI_LONG, next, 1, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(next, win));
        double t0 = MPI_Wtime();
        for (;;) {
            MPI_OK(MPI_Win_sync(win));
            volatile long *w = &mem[1];
            if (*w == round * 1000 + prev)
                break;
            CHECK(MPI_Wtime() - t0 < 30, "round %ld: rank %d's Put never showed in the window "
                  "(holds %ld)", round, prev, *w);
        }
        /* everyone saw this round before the next overwrites it */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    free(own);
    if (msg)
        MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    /* shared windows need every rank on one node */
    MPI_Comm node;
    int nnode;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nnode);
    MPI_Comm_free(&node);
    for (int f = 0; f < NFLAVOR; f++) {
        if (f == F_SHARED && nnode != n)
            continue;
        for (int s = 0; s < NSYNC; s++)
            run(f, s);
    }
    sync_poll(F_CREATE, 0);
    sync_poll(F_ALLOCATE, 0);
    sync_poll(F_ALLOCATE, 1);
    MPI_Group_free(&world_group);
    t_finish();
    return 0;
}
