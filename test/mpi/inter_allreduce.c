/*
 * MPI_Allreduce and MPI_Iallreduce on an intercommunicator, short and long vectors: each group
 * gets the reduction of the other group's contributions. With groups of the same size and an
 * operation that commutes, long vectors take the reduce-scatter / swap / allgather path (split
 * into uneven blocks when the count does not divide); groups of different sizes and a
 * non-commutative operation take the leaders' path. Element i of rank r's vector is a
 * function of (r, i), so a block from the wrong rank or place shows.
 */
#include "check.h"

static int val(int wrank, int i)
{
    return (wrank + 1) * 3 + (i % 1013) * 7;
}

/* A non-commutative operation that is still a sum when applied in order (left operand first):
 * declared non-commutative so the leaders' path runs. */
static void nc_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size < 2)
        t_skip("needs 2 ranks");
    /* unequal groups at odd sizes (the leaders' path), equal ones at even sizes */
    int group = t_rank % 2;
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, group, t_rank, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - group, 7, &ic));
    int rsize;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    int remote[16], nr = 0;
    for (int r = 0; r < t_size; r++)
        if (r % 2 != group)
            remote[nr++] = r;
    CHECK(nr == rsize, "remote size %d, expected %d", rsize, nr);
    MPI_Op nc;
    MPI_OK(MPI_Op_create(nc_sum, 0, &nc));
    const int counts[] = { 1, 5, 8191, 8192 * 4 + 3, 100003 };
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        int n = counts[c];
        int *s = malloc(sizeof(int) * n), *r = malloc(sizeof(int) * n);
        CHECK(s && r, "malloc");
        for (int i = 0; i < n; i++)
            s[i] = val(t_rank, i);
        for (int variant = 0; variant < 4; variant++) {
            t_begin(variant == 0   ? "Allreduce SUM"
                    : variant == 1 ? "Allreduce MAX"
                    : variant == 2 ? "Iallreduce SUM"
                                   : "Allreduce non-commutative");
            memset(r, 0xff, sizeof(int) * n);
            MPI_Op op = variant == 1 ? MPI_MAX : variant == 3 ? nc : MPI_SUM;
            if (variant == 2) {
                MPI_Request q;
                MPI_OK(MPI_Iallreduce(s, r, n, MPI_INT, op, ic, &q));
                MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
            } else {
                MPI_OK(MPI_Allreduce(s, r, n, MPI_INT, op, ic));
            }
            for (int i = 0; i < n; i++) {
                int want = variant == 1 ? val(remote[nr - 1], i) : 0;
                if (variant != 1)
                    for (int k = 0; k < nr; k++)
                        want += val(remote[k], i);
                CHECK(r[i] == want, "count %d: element %d is %d, expected %d", n, i, r[i], want);
            }
        }
        free(s);
        free(r);
    }
    MPI_OK(MPI_Op_free(&nc));
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    t_finish();
    return 0;
}
