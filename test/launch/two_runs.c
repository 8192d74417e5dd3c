/*
 * Two separately started rdmpirun runs (test/launch/run, case two_runs): the server's run
 * opens a port and writes it to a file; the client's run reads it and connects. Accept and
 * connect between runs are not supported (docs/dynamic.md, design b): the connect must fail
 * at once with MPI_ERR_PORT, not wait or crash, and the server must not notice. The client
 * also checks that a port of its own run with an altered key, and malformed ports, are
 * refused with MPI_ERR_PORT. Then both join over a loopback TCP connection (the server's
 * listening port is the file's second line): MPI_Comm_join must fail on both sides at once
 * (MPI_ERR_OTHER), each seeing the other's hello is of another run.
 *   two_runs server PORTFILE DONEFILE   prints "server ok"
 *   two_runs client PORTFILE DONEFILE   prints "client ok"
 */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fails;

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAIL: " __VA_ARGS__);                                                          \
            printf("\n");                                                                          \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits up to 30 s for file to exist; reads its first line into buf (may be NULL). */
static int wait_file(const char *file, char *buf, int len)
{
    for (double until = now() + 30; now() < until; usleep(10000)) {
        FILE *f = fopen(file, "r");
        if (!f)
            continue;
        int ok = !buf || fgets(buf, len, f) != NULL;
        fclose(f);
        if (buf && ok)
            buf[strcspn(buf, "\n")] = '\0';
        if (ok && (!buf || buf[0]))
            return 0;
    }
    return -1;
}

/* Reads the port file: the MPI port, then the server's TCP port for the join. */
static int read_ports(const char *file, char *port, int len, int *tcp)
{
    if (wait_file(file, port, len))
        return -1;
    FILE *f = fopen(file, "r");
    char line[MPI_MAX_PORT_NAME + 2];
    int ok = f && fgets(line, sizeof(line), f) && fscanf(f, "%d", tcp) == 1;
    if (f)
        fclose(f);
    return ok ? 0 : -1;
}

/* MPI_Comm_join over fd with a process of the other run: must fail at once. */
static void join_refused(int fd, const char *who)
{
    MPI_Comm inter = MPI_COMM_WORLD;
    double t0 = now();
    int rc = MPI_Comm_join(fd, &inter), cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "%s: join with the other run: error class %d, expected "
          "MPI_ERR_OTHER", who, cls);
    CHECK(inter == MPI_COMM_NULL, "%s: a failed join left a communicator", who);
    CHECK(now() - t0 < 10, "%s: the join took %.1f s", who, now() - t0);
}

/* Connects to port, which must be refused with MPI_ERR_PORT within a few seconds. */
static void refused(const char *port, const char *what)
{
    MPI_Comm inter = MPI_COMM_WORLD;
    double t0 = now();
    int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_PORT, "connect to %s: error class %d, expected MPI_ERR_PORT", what, cls);
    CHECK(inter == MPI_COMM_NULL, "connect to %s: newcomm not MPI_COMM_NULL", what);
    CHECK(now() - t0 < 10, "connect to %s took %.1f s", what, now() - t0);
}

int main(int argc, char **argv)
{
    if (argc < 4) /* (a fifth: the test's marker, ignored) */
        return 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char port[MPI_MAX_PORT_NAME], mine[MPI_MAX_PORT_NAME];
    if (!strcmp(argv[1], "server")) {
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "MPI_Open_port");
        int l = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET };
        socklen_t alen = sizeof(a);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
            getsockname(l, (struct sockaddr *)&a, &alen))
            return 2;
        char tmp[4096];
        snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%s\n%d\n", port, ntohs(a.sin_port)) < 0 || fclose(f) ||
            rename(tmp, argv[2]))
            return 2;
        struct pollfd p = { l, POLLIN, 0 };
        int fd = poll(&p, 1, 30000) == 1 ? accept(l, NULL, NULL) : -1;
        CHECK(fd >= 0, "the client never connected for the join");
        if (fd >= 0) {
            join_refused(fd, "server");
            close(fd);
        }
        close(l);
        CHECK(wait_file(argv[3], NULL, 0) == 0, "the client never finished");
        CHECK(MPI_Close_port(port) == MPI_SUCCESS, "MPI_Close_port after the client's tries");
        if (!fails)
            printf("server ok\n");
    } else {
        int tcp = 0;
        CHECK(read_ports(argv[2], port, sizeof(port), &tcp) == 0, "no ports from the server");
        CHECK(!strncmp(port, "rdmpi-port2/", 12), "the port '%s' is not a port2", port);
        refused(port, "a port of another run");
        CHECK(MPI_Open_port(MPI_INFO_NULL, mine) == MPI_SUCCESS, "MPI_Open_port");
        char bad[MPI_MAX_PORT_NAME];
        size_t n = strlen(mine);
        snprintf(bad, sizeof(bad), "%s", mine);
        bad[n - 1] = bad[n - 1] == '0' ? '1' : '0'; /* the key's last digit */
        refused(bad, "our own port with an altered key");
        bad[n - 1] = '\0';
        refused(bad, "our own port cut short");
        refused("rdmpi-port2/", "an empty port2");
        refused("no port at all", "a string that is no port");
        CHECK(MPI_Close_port(mine) == MPI_SUCCESS, "MPI_Close_port");
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)tcp) };
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0,
              "cannot connect to the server's join socket (port %d)", tcp);
        join_refused(fd, "client");
        close(fd);
        FILE *f = fopen(argv[3], "w");
        if (f)
            fclose(f);
        if (!fails)
            printf("client ok\n");
    }
    MPI_Finalize();
    return fails ? 1 : 0;
}
