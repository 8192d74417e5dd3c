/*
 * MPI_Comm_idup on an intercommunicator is nonblocking: the leader of one
 * group starts it and then sends a message that the other group's leader
 * waits for before it starts its own (a blocking idup would wait forever
 * there). Several idups are pending at once, interleaved with an idup of
 * MPI_COMM_WORLD; each new intercommunicator then works (remote size, p2p
 * across, an allreduce over both groups) and keeps the attributes copied
 * at the call.
 */
#include "check.h"

#define NDUP 4

static int copies;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void check_inter(MPI_Comm ic, int rsize, int key, int tagval)
{
    int flag, rs, sum = 0, one = 1;
    MPI_OK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "the idup of an intercommunicator is not one");
    MPI_OK(MPI_Comm_remote_size(ic, &rs));
    CHECK(rs == rsize, "remote size %d, want %d", rs, rsize);
    /* an allreduce over an intercommunicator gives the sum over the remote group */
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ic));
    CHECK(sum == rsize, "allreduce over the new intercommunicator gave %d, want %d", sum, rsize);
    void *v;
    MPI_OK(MPI_Comm_get_attr(ic, key, &v, &flag));
    CHECK(flag && (int)(intptr_t)v == tagval, "attribute not copied (flag %d)", flag);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int rank = t_rank, size = t_size;
    if (size < 2) {
        t_skip("needs two ranks");
        return 0;
    }
    int left = rank < size / 2, lsize = left ? size / 2 : size - size / 2;
    int rsize = size - lsize;
    int right_leader = size / 2;
    MPI_Comm local, inter, dups[NDUP], wdup;
    MPI_Request reqs[NDUP + 1];
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, left, rank, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, left ? right_leader : 0, 7, &inter));
    int key;
    MPI_OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_OK(MPI_Comm_set_attr(inter, key, (void *)(intptr_t)42));

    t_begin("idup then a message the other leader waits for");
    int token = 0;
    if (rank == 0) {
        for (int i = 0; i < NDUP; i++)
            MPI_OK(MPI_Comm_idup(inter, &dups[i], &reqs[i]));
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &wdup, &reqs[NDUP]));
        token = 1234;
        MPI_OK(MPI_Send(&token, 1, MPI_INT, right_leader, 5, MPI_COMM_WORLD));
    } else if (rank == right_leader) {
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(token == 1234, "token %d", token);
        for (int i = 0; i < NDUP; i++)
            MPI_OK(MPI_Comm_idup(inter, &dups[i], &reqs[i]));
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &wdup, &reqs[NDUP]));
    } else {
        for (int i = 0; i < NDUP; i++)
            MPI_OK(MPI_Comm_idup(inter, &dups[i], &reqs[i]));
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &wdup, &reqs[NDUP]));
    }

    t_begin("waitall");
    MPI_OK(MPI_Waitall(NDUP + 1, reqs, MPI_STATUSES_IGNORE));
    CHECK(copies == NDUP, "copy callback ran %d times, want %d", copies, NDUP);
    int ctxs_differ = 1;
    for (int i = 0; i < NDUP; i++) {
        check_inter(dups[i], rsize, key, 42);
        for (int j = 0; j < i; j++) {
            int res;
            MPI_OK(MPI_Comm_compare(dups[i], dups[j], &res));
            if (res != MPI_CONGRUENT)
                ctxs_differ = 0;
        }
    }
    CHECK(ctxs_differ, "two idups of one intercommunicator are not congruent distinct copies");

    t_begin("p2p on each copy does not cross the others");
    /* rank i of the left group sends its copy number on every copy to rank i % rsize of the
     * right group; receives match on their own copy only */
    int lrank;
    MPI_OK(MPI_Comm_rank(local, &lrank));
    MPI_Request sr[NDUP], rr[NDUP * 8];
    int got[NDUP * 8], nr = 0;
    if (left) {
        for (int i = NDUP - 1; i >= 0; i--) {
            int v = 100 + i;
            MPI_OK(MPI_Isend(&v, 1, MPI_INT, lrank % rsize, 0, dups[i], &sr[i]));
            MPI_OK(MPI_Wait(&sr[i], MPI_STATUS_IGNORE));
        }
    } else {
        for (int i = 0; i < NDUP; i++)
            for (int src = 0; src < rsize; src++)
                if (src % lsize == lrank) {
                    MPI_OK(MPI_Irecv(&got[nr], 1, MPI_INT, src, 0, dups[i], &rr[nr]));
                    nr++;
                }
        MPI_OK(MPI_Waitall(nr, rr, MPI_STATUSES_IGNORE));
        for (int k = 0, i = 0; i < NDUP; i++)
            for (int src = 0; src < rsize; src++)
                if (src % lsize == lrank) {
                    CHECK(got[k] == 100 + i, "copy %d got %d", i, got[k]);
                    k++;
                }
    }

    for (int i = 0; i < NDUP; i++)
        MPI_OK(MPI_Comm_free(&dups[i]));
    MPI_OK(MPI_Comm_free(&wdup));
    MPI_OK(MPI_Comm_free_keyval(&key));
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&local));
    t_finish();
    return 0;
}
