/*
 * MPI_Comm_spawn_multiple with two commands (this program with different arguments, one
 * with MPI_ARGV_NULL-like empty arguments through MPI_ARGV_NULL for the whole array is
 * covered by the second spawn) and MPI_ERRCODES_IGNORE: the children form one
 * MPI_COMM_WORLD, ranks of the first command first; each sees MPI_APPNUM equal to its
 * command's index and the arguments of its own command; the info key "wdir" moves the
 * second command's processes to /tmp. Then a merge and an allreduce over both jobs.
 * Standard MPI only.
 */
#include <unistd.h>
#include "check.h"

static void child(MPI_Comm parent, int argc, char **argv)
{
    int *appnum = NULL, flag = 0;
    t_begin("appnum");
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    CHECK(flag, "MPI_APPNUM is not set in a spawned job");
    CHECK(t_size == 3, "the children's world has %d ranks, expected 3", t_size);
    CHECK(*appnum == (t_rank == 0 ? 0 : 1), "rank %d has MPI_APPNUM %d", t_rank, *appnum);
    t_begin("argv");
    if (*appnum == 0) {
        CHECK(argc == 3 && !strcmp(argv[1], "first") && !strcmp(argv[2], "x"),
              "command 0 got %d arguments (%s)", argc, argc > 1 ? argv[1] : "");
    } else {
        CHECK(argc == 2 && !strcmp(argv[1], "second"), "command 1 got %d arguments", argc);
        char cwd[4096];
        CHECK(getcwd(cwd, sizeof(cwd)) && !strcmp(cwd, "/tmp"), "wdir /tmp not applied: %s",
              cwd);
    }
    t_begin("transport");
    t_check_inter_transports(parent);
    t_begin("merge");
    MPI_Comm merged;
    MPI_OK(MPI_Intercomm_merge(parent, 1, &merged));
    int n, one = 1, sum = 0;
    MPI_Comm_size(merged, &n);
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == n, "allreduce gave %d over %d", sum, n);
    MPI_OK(MPI_Comm_free(&merged));
    MPI_OK(MPI_Comm_disconnect(&parent));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        child(parent, argc, argv);
        t_finish();
        return 0;
    }
    char *cmds[2] = { argv[0], argv[0] };
    char *a0[] = { "first", "x", NULL }, *a1[] = { "second", NULL };
    char **argvs[2] = { a0, a1 };
    int np[2] = { 1, 2 };
    MPI_Info infos[2];
    infos[0] = MPI_INFO_NULL;
    MPI_Info_create(&infos[1]);
    MPI_Info_set(infos[1], "wdir", "/tmp");
    MPI_Comm inter;
    t_begin("spawn_multiple");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &inter,
                                     MPI_ERRCODES_IGNORE);
    MPI_OK(rc);
    MPI_Info_free(&infos[1]);
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 3, "remote size %d", rsize);
    t_begin("transport"); /* rdmpi: shm to the children on this host, tcp to the others */
    t_check_inter_transports(inter);
    t_begin("merge");
    MPI_Comm merged;
    MPI_OK(MPI_Intercomm_merge(inter, 0, &merged));
    int n, one = 1, sum = 0;
    MPI_Comm_size(merged, &n);
    CHECK(n == t_size + 3, "merged size %d", n);
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == n, "allreduce gave %d over %d", sum, n);
    MPI_OK(MPI_Comm_free(&merged));
    MPI_OK(MPI_Comm_disconnect(&inter));
    t_finish();
    return 0;
}
