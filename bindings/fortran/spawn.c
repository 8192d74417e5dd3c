/*
 * The Fortran forms of MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE (hand-written; gen.py writes
 * their interfaces). Fortran has no arrays of C strings: argv is a CHARACTER(LEN=*) array
 * whose first all-blank element ends it, spawn_multiple's array_of_argv is a
 * CHARACTER(LEN=*) array (count, *) whose column j holds argument j of every command, and the
 * commands are a CHARACTER(LEN=*) array of count elements. Each string loses its leading
 * and trailing blanks. MPI_ARGV_NULL, MPI_ARGVS_NULL and MPI_ERRCODES_IGNORE are the sentinels' addresses.
 *
 * The command and arguments are significant at the root only, and a non-root rank may pass
 * anything there: they are converted at the root alone (other ranks give C NULLs).
 */
#include <stdlib.h>
#include <string.h>
#include "api/api.h"
#include "bindings/fortran/glue.h"

/* Element i of the Fortran strings at f without its leading and trailing blanks: its start
 * and length (0: all blank). */
static const char *arg_at(const char *f, size_t len, size_t stride, size_t i, size_t *l)
{
    const char *e = f + i * stride * len;
    size_t n = len;
    while (n > 0 && e[n - 1] == ' ')
        n--;
    while (n > 0 && e[0] == ' ') {
        e++;
        n--;
    }
    *l = n;
    return e;
}

/* A NULL-terminated C argv of the blank-terminated Fortran strings at f (element length len,
 * consecutive elements stride * len apart), in one allocation; NULL when out of memory. Each
 * argument loses its leading and trailing blanks (MPI-3.1 10.3.2: in Fortran they are always
 * stripped, so an all-blank string is the empty one that ends the list). */
static char **argv_in(const char *f, size_t len, size_t stride)
{
    size_t n = 0, bytes = 0, l;
    for (;; n++) {
        arg_at(f, len, stride, n, &l);
        if (l == 0)
            break;
        bytes += l + 1;
    }
    char **argv = malloc((n + 1) * sizeof(char *) + bytes);
    if (!argv)
        return NULL;
    char *p = (char *)(argv + n + 1);
    for (size_t i = 0; i < n; i++) {
        const char *e = arg_at(f, len, stride, i, &l);
        memcpy(p, e, l);
        p[l] = '\0';
        argv[i] = p;
        p += l + 1;
    }
    argv[n] = NULL;
    return argv;
}

/* Whether this rank is root of comm (an invalid comm: no, and the C call reports it). */
static int is_root(MPI_Comm comm, int root)
{
    int rank = -1;
    return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == root;
}

static int *errcodes_in(MPI_Fint *f)
{
    return f == FH_SENTINEL_ERRCODES_IGNORE ? MPI_ERRCODES_IGNORE : (int *)f;
}

static void spawn(int prof, char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                  MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                  MPI_Fint *ierr, size_t command_len, size_t argv_len)
{
    MPI_Comm comm_c = fh_Comm_f2c(*comm), inter = MPI_COMM_NULL;
    char *cmd = NULL, **args = MPI_ARGV_NULL;
    int rc = MPI_ERR_NO_MEM;
    if (is_root(comm_c, (int)*root)) {
        cmd = fg_str_in_trim(command, command_len);
        if (!cmd)
            goto out;
        if (argv != FH_SENTINEL_ARGV_NULL && !(args = argv_in(argv, argv_len, 1)))
            goto out;
    }
    rc = (prof ? PMPI_Comm_spawn : MPI_Comm_spawn)(cmd, args, (int)*maxprocs,
                                                  fh_Info_f2c(*info), (int)*root, comm_c,
                                                  &inter, errcodes_in(errcodes));
    if (rc == MPI_SUCCESS)
        *intercomm = fh_Comm_c2f(inter);
out:
    free(cmd);
    free(args);
    if (ierr)
        *ierr = rc;
}

FG_API void mpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                            MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                            MPI_Fint *errcodes, MPI_Fint *ierr, size_t command_len,
                            size_t argv_len)
{
    spawn(0, command, argv, maxprocs, info, root, comm, intercomm, errcodes, ierr, command_len,
          argv_len);
}

FG_API void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                             MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                             MPI_Fint *errcodes, MPI_Fint *ierr, size_t command_len,
                             size_t argv_len)
{
    spawn(1, command, argv, maxprocs, info, root, comm, intercomm, errcodes, ierr, command_len,
          argv_len);
}

static void spawn_multiple(int prof, MPI_Fint *count, char *commands, char *argvs,
                           MPI_Fint *maxprocs, MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm,
                           MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierr,
                           size_t commands_len, size_t argvs_len)
{
    MPI_Comm comm_c = fh_Comm_f2c(*comm), inter = MPI_COMM_NULL;
    int n = (int)*count, rc = MPI_ERR_NO_MEM, root_here = is_root(comm_c, (int)*root);
    size_t k = n > 0 ? (size_t)n : 0;
    /* count is checked by the C call; the arrays are read only when it is sane */
    char **cmds = calloc(k + 1, sizeof(char *)), ***args = calloc(k + 1, sizeof(char **));
    MPI_Info *info_c = calloc(k + 1, sizeof(MPI_Info));
    if (!cmds || !args || !info_c)
        goto out;
    for (size_t i = 0; i < k; i++) {
        info_c[i] = MPI_INFO_NULL;
        if (!root_here)
            continue;
        info_c[i] = fh_Info_f2c(infos[i]);
        if (!(cmds[i] = fg_str_in_trim(commands + i * commands_len, commands_len)))
            goto out;
        /* argument j of command i is element (i, j) of the (count, *) array */
        if (argvs != FH_SENTINEL_ARGVS_NULL && !(args[i] = argv_in(argvs + i * argvs_len,
                                                                   argvs_len, k)))
            goto out;
    }
    rc = (prof ? PMPI_Comm_spawn_multiple : MPI_Comm_spawn_multiple)(
        n, root_here ? cmds : NULL,
        root_here && argvs != FH_SENTINEL_ARGVS_NULL ? args : MPI_ARGVS_NULL, (int *)maxprocs,
        info_c, (int)*root, comm_c, &inter, errcodes_in(errcodes));
    if (rc == MPI_SUCCESS)
        *intercomm = fh_Comm_c2f(inter);
out:
    for (size_t i = 0; cmds && args && i < k; i++) {
        free(cmds[i]);
        free(args[i]);
    }
    free(cmds);
    free(args);
    free(info_c);
    if (ierr)
        *ierr = rc;
}

FG_API void mpi_comm_spawn_multiple_(MPI_Fint *count, char *commands, char *argvs,
                                     MPI_Fint *maxprocs, MPI_Fint *infos, MPI_Fint *root,
                                     MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                                     MPI_Fint *ierr, size_t commands_len, size_t argvs_len)
{
    spawn_multiple(0, count, commands, argvs, maxprocs, infos, root, comm, intercomm, errcodes,
                   ierr, commands_len, argvs_len);
}

FG_API void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *commands, char *argvs,
                                      MPI_Fint *maxprocs, MPI_Fint *infos, MPI_Fint *root,
                                      MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                                      MPI_Fint *ierr, size_t commands_len, size_t argvs_len)
{
    spawn_multiple(1, count, commands, argvs, maxprocs, infos, root, comm, intercomm, errcodes,
                   ierr, commands_len, argvs_len);
}

/* mpi_f08's specifics X_f08 (gen.py's f08_specific) */
FG_F08_ALIAS(mpi_comm_spawn_, mpi_comm_spawn_f08_)
FG_F08_ALIAS(pmpi_comm_spawn_, pmpi_comm_spawn_f08_)
FG_F08_ALIAS(mpi_comm_spawn_multiple_, mpi_comm_spawn_multiple_f08_)
FG_F08_ALIAS(pmpi_comm_spawn_multiple_, pmpi_comm_spawn_multiple_f08_)
