/*
 * A spawn that cannot happen fails cleanly and at once, with MPI_ERR_SPAWN in the return
 * class and in every error code, and the job goes on: a program that does not exist, and
 * (with the info key "host") a host that is not the launcher's. Then a spawn that works,
 * to show nothing was left half-done. Standard MPI only.
 */
#include "check.h"

static void expect_fail(const char *cmd, MPI_Info info, const char *what)
{
    int errs[2] = { -1, -1 }, cls = -1;
    MPI_Comm inter = MPI_COMM_WORLD;
    t_begin(what);
    double t0 = MPI_Wtime();
    int rc = MPI_Comm_spawn(cmd, MPI_ARGV_NULL, 2, info, 0, MPI_COMM_WORLD, &inter, errs);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "class %d, expected MPI_ERR_SPAWN", cls);
    CHECK(inter == MPI_COMM_NULL, "the intercommunicator of a failed spawn is not null");
    if (t_rank == 0)
        CHECK(errs[0] == MPI_ERR_SPAWN && errs[1] == MPI_ERR_SPAWN, "error codes %d %d",
              errs[0], errs[1]);
    CHECK(MPI_Wtime() - t0 < 20, "the failure took %.1f s", MPI_Wtime() - t0);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        MPI_OK(MPI_Comm_disconnect(&parent));
        t_finish();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_fail("/nonexistent/rdmpi-test-program", MPI_INFO_NULL, "missing program");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", "no-such-host.invalid");
    expect_fail(argv[0], info, "foreign host");
    MPI_Info_free(&info);
    t_begin("spawn after failures");
    MPI_Comm inter;
    int rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            MPI_ERRCODES_IGNORE);
    MPI_OK(rc);
    MPI_OK(MPI_Comm_disconnect(&inter));
    t_finish();
    return 0;
}
