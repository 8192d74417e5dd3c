/*
 * MPI_Comm_spawn: the job spawns copies of this program, once per count given on the
 * command line (default 2), and both sides check the intercommunicator: its sizes, the
 * arguments the children were given, MPI_Comm_get_parent (named "MPI_COMM_PARENT"),
 * point-to-point messages both ways,
 * the transport between parents and children (rdmpi: shm on one host, else tcp),
 * an intercommunicator broadcast (MPI_ROOT), MPI_Intercomm_merge (parents first) and an
 * MPI_Allreduce over the merged communicator, then MPI_Comm_disconnect. The children check
 * MPI_UNIVERSE_SIZE is set and at least their job's size. Standard MPI only.
 */
#include "check.h"

static char *child_argv[] = { "child-arg", "two words", "", NULL };

/* What both sides do on the intercommunicator; parents: 1 on the parents' side. */
static void exercise(MPI_Comm inter, int parents)
{
    int lsize, rsize, flag, lrank;
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "the spawn's communicator is not an intercommunicator");

    t_begin("p2p");
    /* local rank 0 of each side sends every remote rank its number, and gets one back */
    if (lrank == 0) {
        for (int k = 0; k < rsize; k++) {
            int v = 1000 * parents + k;
            MPI_OK(MPI_Send(&v, 1, MPI_INT, k, 5, inter));
        }
    }
    int got = -1;
    MPI_Status st;
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, 0, 5, inter, &st));
    CHECK(got == 1000 * !parents + lrank, "got %d from the other side's rank 0", got);
    CHECK_STATUS(st, 0, 5, MPI_INT, 1);

    t_begin("transport");
    t_check_inter_transports(inter); /* shm between jobs on one host (rdmpi: bridges) */

    t_begin("bcast");
    int val = parents ? -1 : 0;
    if (parents)
        val = lrank == 0 ? 4242 : -1;
    MPI_OK(MPI_Bcast(&val, 1, MPI_INT, parents ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                     inter));
    if (!parents)
        CHECK(val == 4242, "intercommunicator bcast gave %d", val);

    t_check_remote_transport(inter, parents);
    t_begin("merge");
    MPI_Comm merged;
    MPI_OK(MPI_Intercomm_merge(inter, parents ? 0 : 1, &merged));
    int msize, mrank;
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK(msize == lsize + rsize, "merged size %d, expected %d", msize, lsize + rsize);
    CHECK(mrank == (parents ? lrank : rsize + lrank), "merged rank %d (local rank %d)", mrank,
          lrank);
    long sum = mrank + 1, total = 0;
    MPI_OK(MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, merged));
    CHECK(total == (long)msize * (msize + 1) / 2, "allreduce over the merged gave %ld", total);
    MPI_OK(MPI_Barrier(merged));
    MPI_OK(MPI_Comm_free(&merged));

    t_begin("disconnect");
    MPI_OK(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle set");
}

static void child(MPI_Comm parent, int argc, char **argv)
{
    t_begin("child argv");
    CHECK(argc == 4, "a child got %d arguments", argc);
    for (int i = 0; i < 3; i++)
        CHECK(!strcmp(argv[i + 1], child_argv[i]), "argument %d is '%s'", i + 1, argv[i + 1]);
    t_begin("universe");
    int *univ = NULL, flag = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &univ, &flag));
    CHECK(flag && *univ >= t_size, "MPI_UNIVERSE_SIZE %s %d", flag ? "is" : "unset",
          flag ? *univ : 0);
    exercise(parent, 0);
    MPI_Comm again;
    MPI_OK(MPI_Comm_get_parent(&again));
    CHECK(again == MPI_COMM_NULL, "MPI_Comm_get_parent after disconnecting it");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm parent;
    t_begin("get_parent");
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        char name[MPI_MAX_OBJECT_NAME];
        int len = 0;
        MPI_OK(MPI_Comm_get_name(parent, name, &len));
        CHECK(!strcmp(name, "MPI_COMM_PARENT") && len == (int)strlen(name),
              "the parent intercommunicator is named '%s' (%d)", name, len);
        child(parent, argc, argv);
        t_finish();
        return 0;
    }
    int nspawns = argc > 1 ? argc - 1 : 1;
    for (int s = 0; s < nspawns; s++) {
        int n = argc > 1 ? atoi(argv[s + 1]) : 2;
        int errs[16];
        MPI_Comm inter;
        t_begin("spawn");
        CHECK(n >= 1 && n <= 16, "bad count %d", n);
        for (int i = 0; i < n; i++)
            errs[i] = -1;
        double t0 = MPI_Wtime();
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Comm_spawn(argv[0], child_argv, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                                errs);
        MPI_OK(rc);
        if (t_rank == 0) {
            printf("spawn of %d: %.1f ms\n", n, (MPI_Wtime() - t0) * 1e3);
            for (int i = 0; i < n; i++)
                CHECK(errs[i] == MPI_SUCCESS, "errcode %d of %d is %d", i, n, errs[i]);
        }
        int rsize;
        MPI_Comm_remote_size(inter, &rsize);
        CHECK(rsize == n, "remote size %d after spawning %d", rsize, n);
        exercise(inter, 1);
    }
    t_finish();
    return 0;
}
