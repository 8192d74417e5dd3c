/*
 * Every rank spawns one child of its own over MPI_COMM_SELF (n jobs of one process) and
 * merges with it; then the pairs are joined one by one with MPI_Intercomm_create (the
 * parents lead, over MPI_COMM_WORLD) and MPI_Intercomm_merge into one communicator of all
 * parents and children. Children of different parents never met before: the creation must
 * let every member reach every other (processes of up to n+1 jobs), which a ring of
 * messages, an allreduce, an allgather and a message between every two processes over the
 * whole communicator check. With 3 ranks or more the last one spawns nothing: it never
 * met another job before the creation, which must open its way to them. Standard MPI only.
 */
#include "check.h"

#define TAG 7

/* pair: this process's parent-child communicator (the parent is rank 0); index: the
 * parent's rank in its MPI_COMM_WORLD; n: that world's size; peer: MPI_COMM_WORLD at a
 * parent, MPI_COMM_NULL at a child (only the leaders, parents, use it). Returns the
 * communicator of all 2n processes. */
static MPI_Comm join_all(MPI_Comm pair, int index, int n, MPI_Comm peer)
{
    MPI_Comm cur = MPI_COMM_NULL;
    if (index == 0)
        MPI_OK(MPI_Comm_dup(pair, &cur));
    for (int step = index > 0 ? index : 1; step < n; step++) {
        MPI_Comm ic, merged;
        t_begin("intercomm_create");
        if (index == step) /* this pair joins the others (led by rank 0's parent) */
            MPI_OK(MPI_Intercomm_create(pair, 0, peer, 0, TAG + step, &ic));
        else               /* the others take in pair number step */
            MPI_OK(MPI_Intercomm_create(cur, 0, peer, step, TAG + step, &ic));
        t_begin("transport"); /* processes of several jobs on each side */
        t_check_inter_transports(ic);
        t_begin("merge");
        MPI_OK(MPI_Intercomm_merge(ic, index == step, &merged));
        MPI_OK(MPI_Comm_free(&ic));
        if (cur != MPI_COMM_NULL)
            MPI_OK(MPI_Comm_free(&cur));
        cur = merged;
    }
    return cur;
}

/* Whether the parent of that index spawns (all but the last of 3 or more). */
static int spawns(int index, int n)
{
    return n < 3 || index < n - 1;
}

/* Checks over the joined communicator of n parents and their children: a ring, a sum, who
 * is who, every pair. */
static void check_all(MPI_Comm all, int n, int is_child)
{
    int rank, size, nchild = spawns(n - 1, n) ? n : n - 1;
    MPI_Comm_rank(all, &rank);
    MPI_Comm_size(all, &size);
    t_begin("size");
    CHECK(size == n + nchild, "joined communicator of %d processes, expected %d", size,
          n + nchild);
    t_begin("ring");
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, next, 1, &got, 1, MPI_INT, prev, 1, all,
                        MPI_STATUS_IGNORE));
    CHECK(got == prev, "ring: got %d from rank %d", got, prev);
    t_begin("allreduce");
    int one = 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, all));
    CHECK(sum == size, "allreduce gave %d over %d", sum, size);
    t_begin("allgather");
    int *kinds = malloc(sizeof(int) * (size_t)size), children = 0;
    MPI_OK(MPI_Allgather(&is_child, 1, MPI_INT, kinds, 1, MPI_INT, all));
    for (int i = 0; i < size; i++)
        children += kinds[i];
    CHECK(children == nchild, "%d children among %d processes", children, size);
    free(kinds);
    t_begin("every pair");
    /* each process sends one message to every other (alltoall through point-to-point) */
    int *in = malloc(sizeof(int) * (size_t)size);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
    for (int i = 0; i < size; i++) {
        in[i] = -1;
        MPI_OK(MPI_Irecv(&in[i], 1, MPI_INT, i, 2, all, &reqs[i]));
    }
    for (int i = 0; i < size; i++)
        MPI_OK(MPI_Isend(&rank, 1, MPI_INT, i, 2, all, &reqs[size + i]));
    MPI_OK(MPI_Waitall(2 * size, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < size; i++)
        CHECK(in[i] == i, "from rank %d came %d", i, in[i]);
    free(in);
    free(reqs);
    t_begin("split_type shared");
    /* the processes MPI_COMM_TYPE_SHARED groups must be able to share memory: each stores
     * its rank in its part of a shared window, and every member reads every part */
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(all, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    int nr, ns;
    MPI_OK(MPI_Comm_rank(node, &nr));
    MPI_OK(MPI_Comm_size(node, &ns));
    CHECK(ns >= 1 && ns <= size, "a node communicator of %d processes", ns);
    int *mine = NULL;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win));
    MPI_OK(MPI_Win_lock_all(0, win));
    *mine = rank;
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(node));
    MPI_OK(MPI_Win_sync(win));
    int *ranks = malloc(sizeof(int) * (size_t)ns);
    MPI_OK(MPI_Allgather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, node));
    for (int i = 0; i < ns; i++) {
        MPI_Aint sz;
        int du, *part = NULL;
        MPI_OK(MPI_Win_shared_query(win, i, &sz, &du, &part));
        CHECK(part && sz == sizeof(int) && *part == ranks[i],
              "shared part of node rank %d: %d, expected %d", i, part ? *part : -1, ranks[i]);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    free(ranks);
    MPI_OK(MPI_Comm_free(&node));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm parent, inter, pair;
    MPI_OK(MPI_Comm_get_parent(&parent));
    int info[2]; /* the parent's index and count */
    if (parent != MPI_COMM_NULL) {
        t_begin("child");
        CHECK(t_size == 1, "a child job of %d processes", t_size);
        MPI_OK(MPI_Intercomm_merge(parent, 1, &pair));
        MPI_OK(MPI_Bcast(info, 2, MPI_INT, 0, pair));
        MPI_Comm all = join_all(pair, info[0], info[1], MPI_COMM_NULL);
        check_all(all, info[1], 1);
        MPI_OK(MPI_Comm_free(&all));
        MPI_OK(MPI_Comm_free(&pair));
        MPI_OK(MPI_Comm_disconnect(&parent));
        t_finish();
        return 0;
    }
    t_begin("spawn over MPI_COMM_SELF");
    /* the spawn's errors go to MPI_COMM_SELF's handler: a refusal must come back as a code */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err, rc = MPI_SUCCESS;
    inter = MPI_COMM_NULL;
    if (spawns(t_rank, t_size))
        rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                            &inter, &err);
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    MPI_OK(rc);
    if (inter != MPI_COMM_NULL) {
        MPI_OK(MPI_Intercomm_merge(inter, 0, &pair));
        info[0] = t_rank;
        info[1] = t_size;
        MPI_OK(MPI_Bcast(info, 2, MPI_INT, 0, pair));
    } else {
        MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &pair));
    }
    MPI_Comm all = join_all(pair, t_rank, t_size, MPI_COMM_WORLD);
    check_all(all, t_size, 0);
    MPI_OK(MPI_Comm_free(&all));
    MPI_OK(MPI_Comm_free(&pair));
    if (inter != MPI_COMM_NULL)
        MPI_OK(MPI_Comm_disconnect(&inter));
    t_finish();
    return 0;
}
