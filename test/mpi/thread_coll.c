/*
 * MPI_THREAD_MULTIPLE, communicators and collectives: nt threads per rank (first argument,
 * default 4) each run
 * collectives (blocking and not) on a duplicate of their own while the others do, then
 * create and free communicators (Comm_dup, Comm_split, Comm_idup) on their own parent
 * at the same time as the other threads, and check the new ones work.
 */
#include "mt.h"

#define ITERS 30

static int nt = 4;
static MPI_Comm own[MT_MAX];

static void *body(void *p)
{
    mt_arg_t *a = p;
    int t = a->id;
    MPI_Comm c = own[t];
    for (int i = 0; i < ITERS; i++) {
        int v = t_rank + i + t, sum = -1, want = t_size * (i + t) + t_size * (t_size - 1) / 2;
        MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == want, "thread %d iter %d: allreduce %d, expected %d", t, i, sum, want);
        int b = t_rank == i % t_size ? 7 * i + t : -1;
        MPI_Request r;
        MPI_OK(MPI_Ibcast(&b, 1, MPI_INT, i % t_size, c, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(b == 7 * i + t, "thread %d iter %d: bcast %d", t, i, b);
        if (i % 8 == 0)
            MPI_OK(MPI_Barrier(c));
    }
    for (int i = 0; i < 6; i++) {
        MPI_Comm d = MPI_COMM_NULL, s = MPI_COMM_NULL;
        MPI_Request r;
        switch (i % 3) {
        case 0: MPI_OK(MPI_Comm_dup(c, &d)); break;
        case 1: MPI_OK(MPI_Comm_idup(c, &d, &r)); MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE)); break;
        default: MPI_OK(MPI_Comm_split(c, t_rank % 2, -t_rank, &d)); break;
        }
        int ds, dr, v = 1, sum = 0;
        MPI_Comm_size(d, &ds);
        MPI_Comm_rank(d, &dr);
        MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, d));
        CHECK(sum == ds, "thread %d: %d ranks counted in a communicator of %d", t, sum, ds);
        /* and one more level, from the new one */
        MPI_OK(MPI_Comm_dup(d, &s));
        MPI_OK(MPI_Allreduce(&dr, &sum, 1, MPI_INT, MPI_SUM, s));
        CHECK(sum == ds * (ds - 1) / 2, "thread %d: sum of ranks %d", t, sum);
        MPI_OK(MPI_Comm_free(&s));
        MPI_OK(MPI_Comm_free(&d));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    t_begin("thread_coll");
    if (argc > 1)
        nt = atoi(argv[1]);
    CHECK(nt >= 1 && nt <= MT_MAX, "%d threads (1 to %d)", nt, MT_MAX);
    for (int t = 0; t < nt; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &own[t]);
    mt_run(nt, body, NULL);
    for (int t = 0; t < nt; t++)
        MPI_Comm_free(&own[t]);
    t_finish();
    return 0;
}
