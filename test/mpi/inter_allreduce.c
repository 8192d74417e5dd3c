/*
 * MPI_Allreduce and MPI_Iallreduce on an intercommunicator, short and long vectors: each group
 * gets the reduction of the other group's contributions. With groups of the same size and an
 * operation that commutes, long vectors take the reduce-scatter / swap / allgather path (split
 * into uneven blocks when the count does not divide); groups of different sizes and a
 * non-commutative operation take the leaders' path; shorter vectors between groups of the
 * same size swap with the counterpart rank and allreduce in the group. Element i of rank r's
 * vector is a function of (r, i), so a block from the wrong rank or place shows; a composition
 * of affine maps (associative, not commutative) checks that the other group's contributions
 * are combined in its rank order.
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

/* Element i of rank r as an affine map x -> a x + b (mod P), and their composition: inout =
 * in o inout, in the left operand, as MPI applies a user operation. */
#define P 1000003LL
static void affine(int r, int i, int *ab)
{
    ab[0] = r + 2 + i % 5;
    ab[1] = r * 7 + i % 13 + 1;
}

static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *f = in, *g = inout;
    for (int i = 0; i < *len; i++, f += 2, g += 2) {
        long long a = (long long)f[0] * g[0] % P, b = ((long long)f[0] * g[1] + f[1]) % P;
        g[0] = (int)a;
        g[1] = (int)b;
    }
}

/* The other group's maps of element i composed in its rank order. */
static void composed(const int *remote, int nr, int i, int *ab)
{
    affine(remote[0], i, ab);
    for (int k = 1; k < nr; k++) {
        int g[2], one = 1;
        affine(remote[k], i, g);
        compose(ab, g, &one, NULL);
        ab[0] = g[0];
        ab[1] = g[1];
    }
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
    /* order: MPI_2INT pairs under the composition (short and long vectors) */
    MPI_Op co;
    MPI_OK(MPI_Op_create(compose, 0, &co));
    t_begin("Allreduce non-commutative, in rank order");
    for (int n = 1; n <= 20000; n *= 20) {
        int *s = malloc(sizeof(int) * 2 * n), *r = malloc(sizeof(int) * 2 * n);
        CHECK(s && r, "malloc");
        for (int i = 0; i < n; i++)
            affine(t_rank, i, s + 2 * i);
        memset(r, 0xff, sizeof(int) * 2 * n);
        MPI_OK(MPI_Allreduce(s, r, n, MPI_2INT, co, ic));
        for (int i = 0; i < n; i++) {
            int want[2];
            composed(remote, nr, i, want);
            CHECK(r[2 * i] == want[0] && r[2 * i + 1] == want[1],
                  "count %d: element %d is (%d, %d), expected (%d, %d)", n, i, r[2 * i],
                  r[2 * i + 1], want[0], want[1]);
        }
        free(s);
        free(r);
    }
    MPI_OK(MPI_Op_free(&co));
    MPI_OK(MPI_Op_free(&nc));
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    t_finish();
    return 0;
}
