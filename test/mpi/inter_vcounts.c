/*
 * MPI_Gatherv and MPI_Scatterv (and their nonblocking forms) on an
 * intercommunicator where the group that is not the root's passes NULL for
 * the counts and displacements, as MPI allows (they are significant only at
 * the root). Both groups must still take the same collective's tag: the
 * senders of a gatherv took a plain gather's tag when they passed no counts,
 * and the root waited for them forever (MPICH's coll/icgatherv and
 * coll/icscatterv hung). Each call runs a few times with growing blocks so a
 * mismatch cannot hide behind eager sends completing alone.
 */
#include "check.h"

#define ROUNDS 4

static void gatherv_round(MPI_Comm ic, int left, int rank, int rsize, int count, int nb)
{
    int root = left ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request req;
    if (left) {
        int *buf = malloc(sizeof(int) * (size_t)(count * rsize + 1));
        int *counts = NULL, *displs = NULL;
        if (rank == 0) {
            counts = malloc(sizeof(int) * (size_t)rsize);
            displs = malloc(sizeof(int) * (size_t)rsize);
            /* blocks in reverse order, so the displacements are really read */
            for (int i = 0; i < rsize; i++) {
                counts[i] = count;
                displs[i] = (rsize - 1 - i) * count;
            }
        }
        for (int i = 0; i < count * rsize; i++)
            buf[i] = -1;
        if (nb) {
            MPI_OK(MPI_Igatherv(NULL, 0, MPI_INT, buf, counts, displs, MPI_INT, root, ic, &req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Gatherv(NULL, 0, MPI_INT, buf, counts, displs, MPI_INT, root, ic));
        }
        if (rank == 0) {
            for (int r = 0; r < rsize; r++)
                for (int i = 0; i < count; i++) {
                    int got = buf[(rsize - 1 - r) * count + i];
                    CHECK(got == r * 1000 + i, "gatherv (nb %d, count %d): block of rank %d "
                          "element %d is %d", nb, count, r, i, got);
                }
        }
        free(counts);
        free(displs);
        free(buf);
    } else {
        int *buf = malloc(sizeof(int) * (size_t)count);
        for (int i = 0; i < count; i++)
            buf[i] = rank * 1000 + i;
        if (nb) {
            MPI_OK(MPI_Igatherv(buf, count, MPI_INT, NULL, NULL, NULL, MPI_INT, root, ic, &req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Gatherv(buf, count, MPI_INT, NULL, NULL, NULL, MPI_INT, root, ic));
        }
        free(buf);
    }
}

static void scatterv_round(MPI_Comm ic, int left, int rank, int rsize, int count, int nb)
{
    int root = left ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request req;
    if (left) {
        int *buf = NULL, *counts = NULL, *displs = NULL;
        if (rank == 0) {
            buf = malloc(sizeof(int) * (size_t)(count * rsize));
            counts = malloc(sizeof(int) * (size_t)rsize);
            displs = malloc(sizeof(int) * (size_t)rsize);
            for (int r = 0; r < rsize; r++) {
                counts[r] = count;
                displs[r] = (rsize - 1 - r) * count;
                for (int i = 0; i < count; i++)
                    buf[displs[r] + i] = r * 1000 + i;
            }
        }
        if (nb) {
            MPI_OK(MPI_Iscatterv(buf, counts, displs, MPI_INT, NULL, 0, MPI_INT, root, ic, &req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Scatterv(buf, counts, displs, MPI_INT, NULL, 0, MPI_INT, root, ic));
        }
        free(buf);
        free(counts);
        free(displs);
    } else {
        int *buf = malloc(sizeof(int) * (size_t)count);
        for (int i = 0; i < count; i++)
            buf[i] = -1;
        if (nb) {
            MPI_OK(MPI_Iscatterv(NULL, NULL, NULL, MPI_INT, buf, count, MPI_INT, root, ic, &req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, buf, count, MPI_INT, root, ic));
        }
        for (int i = 0; i < count; i++)
            CHECK(buf[i] == rank * 1000 + i, "scatterv (nb %d, count %d): element %d is %d",
                  nb, count, i, buf[i]);
        free(buf);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size < 2) {
        t_skip("needs two ranks");
        return 0;
    }
    int left = t_rank < t_size / 2;
    int rsize = left ? t_size - t_size / 2 : t_size / 2;
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, left, t_rank, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, left ? t_size / 2 : 0, 9, &ic));
    int rank;
    MPI_OK(MPI_Comm_rank(ic, &rank));

    for (int nb = 0; nb < 2; nb++) {
        t_begin(nb ? "igatherv, no counts outside the root's group" :
                     "gatherv, no counts outside the root's group");
        for (int r = 0, count = 1; r < ROUNDS; r++, count *= 16)
            gatherv_round(ic, left, rank, rsize, count, nb);
        t_begin(nb ? "iscatterv, no counts outside the root's group" :
                     "scatterv, no counts outside the root's group");
        for (int r = 0, count = 1; r < ROUNDS; r++, count *= 16)
            scatterv_round(ic, left, rank, rsize, count, nb);
    }

    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    t_finish();
    return 0;
}
