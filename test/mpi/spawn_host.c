/*
 * MPI_Comm_spawn onto a named host (info "host"), for jobs across hosts: the children run
 * on the host asked for (MPI_Get_processor_name), every parent and every child exchange a
 * message both ways, then a barrier and an allreduce over the merged communicator. Then the
 * refusals: a host that is not in the run and a command the host does not have both fail
 * at once with MPI_ERR_SPAWN, in every errcode, leaving the job running.
 * Arguments: HOST (the host to spawn on; "-" for no "host" key, "." for the root's own host),
 * the number of children.
 */
#include "check.h"

static void pairs(MPI_Comm inter, int parents)
{
    int lrank, rsize;
    char me[MPI_MAX_PROCESSOR_NAME], got[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Get_processor_name(me, &len);
    t_begin("pairs");
    for (int k = 0; k < rsize; k++) {
        MPI_Request rq[2];
        int v = (parents ? 100 : 200) + lrank, w = -1;
        MPI_OK(MPI_Isend(&v, 1, MPI_INT, k, 7, inter, &rq[0]));
        MPI_OK(MPI_Irecv(&w, 1, MPI_INT, k, 7, inter, &rq[1]));
        MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        CHECK(w == (parents ? 200 : 100) + k, "got %d from remote rank %d", w, k);
    }
    /* the children tell rank 0 of the parents where they run */
    if (!parents) {
        MPI_OK(MPI_Send(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 8, inter));
    } else if (lrank == 0) {
        for (int k = 0; k < rsize; k++) {
            MPI_OK(MPI_Recv(got, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, k, 8, inter,
                            MPI_STATUS_IGNORE));
            printf("child %d runs on %s\n", k, got);
        }
        fflush(stdout);
    }
    t_begin("merged");
    MPI_Comm merged;
    int msize;
    long sum = 0, one = 1;
    MPI_OK(MPI_Intercomm_merge(inter, !parents, &merged));
    MPI_Comm_size(merged, &msize);
    MPI_OK(MPI_Barrier(merged));
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, merged));
    CHECK(sum == msize, "allreduce over %d gave %ld", msize, sum);
    MPI_OK(MPI_Comm_free(&merged));
    MPI_OK(MPI_Comm_disconnect(&inter));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        char me[MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_Get_processor_name(me, &len);
        t_begin("child host");
        CHECK(argc > 1 && (!strcmp(argv[1], "-") || !strcmp(argv[1], me)),
              "a child asked for on host %s runs on %s", argc > 1 ? argv[1] : "?", me);
        pairs(parent, 0);
        t_finish();
        return 0;
    }
    const char *host = argc > 1 ? argv[1] : "-";
    char here[MPI_MAX_PROCESSOR_NAME];
    int hlen;
    MPI_Get_processor_name(here, &hlen);
    if (!strcmp(host, ".")) /* the root's own host */
        host = here;
    int n = argc > 2 ? atoi(argv[2]) : 2, errs[16];
    char *cargv[] = { (char *)host, NULL };
    MPI_Info info;
    MPI_Comm inter;
    t_begin("spawn");
    CHECK(n >= 1 && n <= 16, "bad count %d", n);
    MPI_Info_create(&info);
    if (strcmp(host, "-"))
        MPI_Info_set(info, "host", host);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Comm_spawn(argv[0], cargv, n, info, 0, MPI_COMM_WORLD, &inter, errs));
    for (int i = 0; t_rank == 0 && i < n; i++)
        CHECK(errs[i] == MPI_SUCCESS, "errcode %d of %d is %d", i, n, errs[i]);
    pairs(inter, 1);

    t_begin("host not in the run");
    int cls;
    double t0 = MPI_Wtime();
    MPI_Info_set(info, "host", "no-such-host.invalid");
    for (int i = 0; i < n; i++)
        errs[i] = -1;
    int rc = MPI_Comm_spawn(argv[0], cargv, n, info, 0, MPI_COMM_WORLD, &inter, errs);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL, "class %d", cls);
    for (int i = 0; t_rank == 0 && i < n; i++)
        CHECK(errs[i] == MPI_ERR_SPAWN, "errcode %d of %d is %d", i, n, errs[i]);

    t_begin("missing command");
    if (strcmp(host, "-"))
        MPI_Info_set(info, "host", host);
    else
        MPI_Info_delete(info, "host");
    rc = MPI_Comm_spawn("rdmpi-no-such-program", MPI_ARGV_NULL, n, info, 0, MPI_COMM_WORLD,
                        &inter, errs);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL, "class %d", cls);
    for (int i = 0; t_rank == 0 && i < n; i++)
        CHECK(errs[i] == MPI_ERR_SPAWN, "errcode %d of %d is %d", i, n, errs[i]);
    CHECK(MPI_Wtime() - t0 < 20, "the refusals took %.1f s", MPI_Wtime() - t0);
    MPI_Info_free(&info);
    t_finish();
    return 0;
}
