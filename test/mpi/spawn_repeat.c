/*
 * MPI_Comm_spawn again and again, as a master/worker code that starts a new set of workers for
 * each phase: every round spawns NCHILD children, meets them in a barrier on the new
 * intercommunicator, and disconnects, while the children of the round before are ending. Two
 * launcher bugs made this hang or leak:
 *   - the launcher's forked ranks inherited its PMIx server's end of every client connection
 *     open at the fork (libpmix does not mark them close-on-exec): each child reports, before
 *     MPI_Init, any descriptor above stderr that is a socket (it must have none);
 *   - a child's exit reaped before libpmix read the end of its connection was deregistered,
 *     which closed the socket under libpmix's read event, and the next child given that
 *     descriptor number hung in MPI_Init (about one spawn in forty under load): ROUNDS spawns
 *     in a row each within the test's timeout.
 * Arguments: [rounds] (default 8).
 */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

#define NCHILD 3

/* Sockets open above stderr now (before MPI_Init, so all of them were inherited). */
static int inherited_sockets(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;

    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || fd <= 2 || fd == dirfd(d))
            continue;
        if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
            n++;
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    int socks = inherited_sockets();
    int rounds = argc > 1 ? atoi(argv[1]) : 8;
    MPI_Comm parent;

    t_init(&argc, &argv);
    t_begin("spawn_repeat");
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        MPI_OK(MPI_Send(&socks, 1, MPI_INT, 0, 7, parent));
        MPI_OK(MPI_Barrier(parent));
        MPI_OK(MPI_Comm_disconnect(&parent));
        MPI_Finalize();
        return 0;
    }
    CHECK(socks == 0, "rank started with %d inherited socket(s) above stderr", socks);
    CHECK(rounds >= 1 && rounds <= 100, "rounds %d out of 1..100", rounds);
    for (int r = 0; r < rounds; r++) {
        MPI_Comm inter;
        int errs[NCHILD], rsize;
        t_begin("spawn round");
        MPI_OK(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                              &inter, errs));
        for (int i = 0; i < NCHILD; i++)
            CHECK(errs[i] == MPI_SUCCESS, "round %d: errcode[%d] = %d", r, i, errs[i]);
        MPI_OK(MPI_Comm_remote_size(inter, &rsize));
        CHECK(rsize == NCHILD, "round %d: %d children, not %d", r, rsize, NCHILD);
        if (t_rank == 0) {
            for (int i = 0; i < NCHILD; i++) {
                int n = -1;
                MPI_Status st;
                MPI_OK(MPI_Recv(&n, 1, MPI_INT, MPI_ANY_SOURCE, 7, inter, &st));
                CHECK(n == 0, "round %d: child %d started with %d inherited socket(s)", r,
                      st.MPI_SOURCE, n);
            }
        }
        MPI_OK(MPI_Barrier(inter));
        MPI_OK(MPI_Comm_disconnect(&inter));
    }
    t_finish();
    return 0;
}
