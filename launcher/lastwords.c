/*
 * A rank's last words to our PMIx server: whether a reaped rank's finalize may still be
 * unread.
 *
 * libpmix's client waits only 2 s for the server's answer to PMIx_Finalize, then exits
 * anyway. On a node loaded far beyond its cores (256 ranks on 2 cores beside other jobs) the
 * server's thread can be that late, and the main loop then reaped a rank whose finalize
 * message still sat unread in its connection: judged at once, it looked like a rank that
 * exited inside MPI ("exited with status 0 before MPI_Finalize") and the whole job was
 * killed. So before such an exit is judged, launch_lastwords_wait waits, bounded, until the
 * server has read everything its clients sent: the connections to its TCP port (libpmix 4
 * clients connect over loopback TCP, so a connection does not name its process) hold no
 * unread byte. The finalize message of the rank, if it sent one, was then read; libpmix
 * queues its handling behind the read, and the deregistration that follows in the caller
 * (launch_server_client_gone) runs after it on the same thread. A rank whose finalize was
 * seen, or that exited non-zero, costs nothing here; one that never finalized costs a look at
 * the descriptors (the server reads its end at once when idle).
 */
#include "launch.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LASTWORDS_WAIT 30.0 /* the server may be this late on a loaded node */
#define LASTWORDS_POLL_NS 10000000L /* a look costs two syscalls per descriptor: ~1 ms at 256 ranks */

static int local_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    if (getsockname(fd, (struct sockaddr *)&ss, &len))
        return -1;
    if (ss.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return -1;
}

/* Bytes our PMIx server's client connections hold unread. */
static long unread_by_server(int port)
{
    DIR *dir = opendir("/proc/self/fd");
    struct dirent *e;
    long total = 0;

    if (!dir)
        return 0;
    while ((e = readdir(dir)) != NULL) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        struct stat st;
        int n = 0;

        if (*end || end == e->d_name || fd == dirfd(dir) || fstat((int)fd, &st) ||
            !S_ISSOCK(st.st_mode) || local_port((int)fd) != port)
            continue;
        if (ioctl((int)fd, FIONREAD, &n) == 0 && n > 0) /* the listener says EINVAL */
            total += n;
    }
    closedir(dir);
    return total;
}

void launch_lastwords_wait(const struct launch_rank *r, int status)
{
    int port = launch_server_port();

    if (!port || !WIFEXITED(status) || WEXITSTATUS(status) || !atomic_load(&r->connected) ||
        atomic_load(&r->finalized))
        return;
    double until = launch_now() + LASTWORDS_WAIT;
    struct timespec nap = {0, LASTWORDS_POLL_NS};

    while (!atomic_load(&r->finalized) && unread_by_server(port) > 0 && launch_now() < until)
        nanosleep(&nap, NULL);
}
