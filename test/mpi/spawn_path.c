/*
 * MPI_Comm_spawn's info keys "path" and "wdir": the command is given by its bare name with
 * "path" naming the directory it is in (a list where the first entry lacks it), and "wdir"
 * moves the children to /tmp (they check their working directory and tell the parents);
 * a "path" where the program is not (and not on PATH either) fails with MPI_ERR_SPAWN and
 * every error code says so. Standard MPI only.
 */
#include <limits.h>
#include <unistd.h>
#include "check.h"

#define NCHILD 2

static void child(MPI_Comm parent)
{
    char cwd[PATH_MAX];
    int ok = getcwd(cwd, sizeof(cwd)) && !strcmp(cwd, "/tmp");
    if (!ok)
        fprintf(stderr, "child %d: working directory %s, expected /tmp\n", t_rank, cwd);
    int all;
    MPI_OK(MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_LAND, 0, parent));
    MPI_OK(MPI_Comm_disconnect(&parent));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        child(parent);
        t_finish();
        return 0;
    }
    /* this program's directory (absolute: the children run elsewhere) and bare name */
    char self[PATH_MAX], dir[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    CHECK(n > 0, "cannot read /proc/self/exe");
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    CHECK(slash, "no directory in %s", self);
    *slash = '\0';
    const char *name = slash + 1;
    snprintf(dir, sizeof(dir), "/nonexistent-rdmpi-dir:%s", self);

    t_begin("path and wdir");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "path", dir);
    MPI_Info_set(info, "wdir", "/tmp");
    MPI_Comm inter;
    int errs[NCHILD];
    int rc = MPI_Comm_spawn(name, MPI_ARGV_NULL, NCHILD, info, 0, MPI_COMM_WORLD, &inter, errs);
    MPI_OK(rc);
    if (t_rank == 0)
        for (int i = 0; i < NCHILD; i++)
            CHECK(errs[i] == MPI_SUCCESS, "error code %d of child %d", errs[i], i);
    int all = 0;
    MPI_OK(MPI_Reduce(NULL, &all, 1, MPI_INT, MPI_LAND, t_rank == 0 ? MPI_ROOT : MPI_PROC_NULL,
                      inter));
    if (t_rank == 0)
        CHECK(all, "a child did not run in /tmp");
    MPI_OK(MPI_Comm_disconnect(&inter));

    t_begin("a path without the program");
    MPI_Info_set(info, "path", "/nonexistent-rdmpi-dir");
    rc = MPI_Comm_spawn(name, MPI_ARGV_NULL, NCHILD, info, 0, MPI_COMM_WORLD, &inter, errs);
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "spawn of a program not in path: class %d", cls);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn returned an intercommunicator");
    if (t_rank == 0)
        for (int i = 0; i < NCHILD; i++)
            CHECK(errs[i] == MPI_ERR_SPAWN, "error code %d of child %d", errs[i], i);
    MPI_Info_free(&info);
    t_finish();
    return 0;
}
