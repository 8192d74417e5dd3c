/*
 * Blocking communicator creation while MPI_Comm_idup calls are pending
 * (MPICH's comm/comm_idup_comm2): dup, split, create, create_group,
 * Intercomm_create and Intercomm_merge must all complete, and so must the
 * idups afterwards, each giving a working communicator.
 */
#include "check.h"

#define NIDUP 8

static void check_comm(MPI_Comm c, int expect_size)
{
    if (c == MPI_COMM_NULL)
        return;
    int size, sum = 0, one = 1;
    MPI_OK(MPI_Comm_size(c, &size));
    CHECK(size == expect_size, "size %d, want %d", size, expect_size);
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size, "allreduce gave %d on %d ranks", sum, size);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int rank = t_rank, size = t_size;
    MPI_Comm idups[NIDUP], dup, out;
    MPI_Request reqs[NIDUP];
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    t_begin("idup");
    for (int i = 0; i < NIDUP; i++)
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &idups[i], &reqs[i]));

    t_begin("dup");
    MPI_OK(MPI_Comm_dup(dup, &out));
    check_comm(out, size);
    MPI_OK(MPI_Comm_free(&out));

    t_begin("split");
    MPI_OK(MPI_Comm_split(dup, rank % 2, size - rank, &out));
    check_comm(out, (size - rank % 2 + 1) / 2);
    MPI_OK(MPI_Comm_free(&out));

    t_begin("create");
    MPI_Group g, half;
    MPI_OK(MPI_Comm_group(dup, &g));
    int range[1][3] = { { size / 2, size - 1, 1 } };
    MPI_OK(MPI_Group_range_incl(g, 1, range, &half));
    MPI_OK(MPI_Comm_create(dup, half, &out));
    check_comm(out, size - size / 2);
    if (out != MPI_COMM_NULL)
        MPI_OK(MPI_Comm_free(&out));

    t_begin("create_group");
    if (rank >= size / 2) {
        MPI_OK(MPI_Comm_create_group(dup, half, 0, &out));
        check_comm(out, size - size / 2);
        MPI_OK(MPI_Comm_free(&out));
    }
    MPI_OK(MPI_Group_free(&half));
    MPI_OK(MPI_Group_free(&g));

    if (size >= 2) {
        t_begin("intercomm");
        MPI_Comm local, inter;
        int left = rank < size / 2;
        MPI_OK(MPI_Comm_split(dup, left, rank, &local));
        MPI_OK(MPI_Intercomm_create(local, 0, dup, left ? size / 2 : 0, 99, &inter));
        MPI_OK(MPI_Intercomm_merge(inter, !left, &out));
        int mr;
        MPI_OK(MPI_Comm_rank(out, &mr));
        CHECK(mr == rank, "merged rank %d", mr);
        check_comm(out, size);
        MPI_OK(MPI_Comm_free(&out));
        MPI_OK(MPI_Comm_free(&inter));
        MPI_OK(MPI_Comm_free(&local));
    }

    t_begin("waitall");
    MPI_OK(MPI_Waitall(NIDUP, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NIDUP; i++) {
        check_comm(idups[i], size);
        MPI_OK(MPI_Comm_free(&idups[i]));
    }
    MPI_OK(MPI_Comm_free(&dup));
    t_finish();
    return 0;
}
