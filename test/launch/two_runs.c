/*
 * Two separately started rdmpirun runs (test/launch/run, case two_runs) meet through
 * accept/connect (docs/dynamic.md, design b). The server's run (2 ranks; its last rank is
 * the root, the client's is rank 0, so the two leaders differ in rank) opens a port,
 * publishes it under a service name (RDMPI_NAME_SERVER, when the test gives one) and writes
 * it to a file, and opens a second port on which nobody ever accepts. The client's run
 * (2 ranks):
 *   - connects to the second port: no acceptor, so MPI_ERR_PORT within RDMPI_CONNECT_TIMEOUT;
 *   - connects with the first port's key altered: the acceptor refuses it (MPI_ERR_PORT);
 *   - looks the service up (or reads the file) and connects for real: then p2p both ways
 *     and an allreduce across the intercommunicator, MPI_Intercomm_merge and an allreduce
 *     over the merged communicator, and MPI_Comm_disconnect;
 *   - connects to the second port once the server closed it: refused at once.
 * Before the real connect the client also sends garbage to the port's address, which the
 * acceptor must refuse (and go on accepting).
 * Then the roots join each other over a socket at the port's address (MPI_Comm_join), exchange a
 * message and disconnects.
 * With TWO_RUNS_FAULT=1 (case two_runs_fail: the client's run has RDMPI_TEST_XRUN_FAIL=0,
 * so its rank 0 fails to add the other run's processes after the roots met, and the
 * server's RDMPI_ACCEPT_TIMEOUT=20) both runs instead check that the failure of one side
 * reaches the other in bounded time: client rank 1 first holds a silent connection to the
 * port (the acceptor must serve the real connector at once all the same, and close the
 * silent one with its port), then the
 * connect and the accept fail with MPI_ERR_OTHER, and so does the join on both sides.
 * With TWO_RUNS_FAULT=2 (case two_runs_drop: the client's RDMPI_TEST_XRUN_DROP=0) the roots'
 * connection breaks after the client's last word: the client's connect fails, the server's
 * root, which read DONE, waits in the context-id agreement for at most the server's
 * RDMPI_CONNECT_TIMEOUT while the client's run stays (until DONEFILE.drop appears),
 * then its accept fails (MPI_ERR_OTHER) at every member.
 *   two_runs server PORTFILE DONEFILE   prints "server ok"
 *   two_runs client PORTFILE DONEFILE   prints "client ok"
 */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fails, rank, size;
static const char *done_file; /* DONEFILE */

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAIL: rank %d: ", rank);                                                       \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
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

/* Reads the port file: the MPI port, the idle port, then the server's TCP port for the join. */
static int read_ports(const char *file, char *port, char *idle, int len, int *tcp)
{
    if (wait_file(file, port, len))
        return -1;
    FILE *f = fopen(file, "r");
    char line[MPI_MAX_PORT_NAME + 2];
    int ok = f && fgets(line, sizeof(line), f) && fgets(idle, len, f) && fscanf(f, "%d", tcp) == 1;
    if (f)
        fclose(f);
    idle[strcspn(idle, "\n")] = '\0';
    return ok ? 0 : -1;
}

/* MPI_Comm_join over fd with a process of the other run, then a message each way (val:
 * ours, the other sends want) and a disconnect. */
static void join_other(int fd, const char *who, int val, int want)
{
    MPI_Comm inter = MPI_COMM_NULL;
    double t0 = now();
    int rc = MPI_Comm_join(fd, &inter);
    CHECK(rc == MPI_SUCCESS && inter != MPI_COMM_NULL, "%s: join with the other run: rc %d",
          who, rc);
    CHECK(now() - t0 < 10, "%s: the join took %.1f s", who, now() - t0);
    if (rc != MPI_SUCCESS)
        return;
    int in = -1, rsize = 0;
    MPI_Comm_remote_size(inter, &rsize);
    rc = MPI_Sendrecv(&val, 1, MPI_INT, 0, 3, &in, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && in == want && rsize == 1, "%s: over the joined communicator: "
          "rc %d, got %d (want %d), remote size %d", who, rc, in, want, rsize);
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "%s: disconnect after the join", who);
    /* nothing is left unread on the socket: a byte written after the join comes next */
    char c = who[0], d = 0;
    CHECK(write(fd, &c, 1) == 1 && read(fd, &d, 1) == 1 && d == (c == 's' ? 'c' : 's'),
          "%s: the socket after the join: got '%c'", who, d);
}

/* Connects to port, which must be refused with MPI_ERR_PORT within limit seconds. */
static void refused(const char *port, const char *what, double limit)
{
    MPI_Comm inter = MPI_COMM_WORLD;
    double t0 = now();
    int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_PORT, "connect to %s: error class %d, expected MPI_ERR_PORT", what, cls);
    char msg[MPI_MAX_ERROR_STRING] = "";
    int ml = 0;
    if (rc != MPI_SUCCESS && rank == 0) {
        MPI_Error_string(rc, msg, &ml);
        printf("refused: %s: %s\n", what, msg);
    }
    CHECK(inter == MPI_COMM_NULL, "connect to %s: newcomm not MPI_COMM_NULL", what);
    CHECK(now() - t0 < limit, "connect to %s took %.1f s", what, now() - t0);
}

/* The address in port (its seventh '/' field, "ip:port"): 0, or -1 if there is none. */
static int port_addr(const char *port, struct sockaddr_in *a)
{
    char copy[MPI_MAX_PORT_NAME], *f = copy, *colon = NULL;
    snprintf(copy, sizeof(copy), "%s", port);
    for (int i = 0; i < 6 && f; i++)
        if ((f = strchr(f, '/')))
            f++;
    if (!f || !(colon = strchr(f, ':')))
        return -1;
    *colon = '\0';
    memset(a, 0, sizeof(*a));
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)atoi(colon + 1));
    return inet_pton(AF_INET, f, &a->sin_addr) == 1 ? 0 : -1;
}

/* Connects a raw socket to the address in port, writes what no root would send and waits
 * for the acceptor to close it. */
static void garbage_at(const char *port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(port_addr(port, &a) == 0 && fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0,
          "cannot reach the address of the port '%s'", port);
    char junk[72];
    memset(junk, 'x', sizeof(junk));
    CHECK(write(fd, junk, sizeof(junk)) == (ssize_t)sizeof(junk), "cannot write to the port");
    struct pollfd p = { fd, POLLIN, 0 };
    char c;
    CHECK(poll(&p, 1, 10000) == 1 && read(fd, &c, 1) <= 0, "the acceptor kept a connection "
          "that sent garbage");
    close(fd);
}

/* rc must be an error of class MPI_ERR_OTHER, the call having taken less than limit s. */
static void failed(int rc, MPI_Comm c, const char *what, double t0, double limit)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    char msg[MPI_MAX_ERROR_STRING] = "";
    int ml = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, msg, &ml);
    printf("%s (rank %d): %s\n", what, rank, msg);
    CHECK(cls == MPI_ERR_OTHER, "%s: error class %d, expected MPI_ERR_OTHER", what, cls);
    CHECK(c == MPI_COMM_NULL, "%s: newcomm not MPI_COMM_NULL", what);
    CHECK(now() - t0 < limit, "%s took %.1f s", what, now() - t0);
}

/* TWO_RUNS_FAULT: the server's part (root: the last rank; l: its join socket). */
static void server_fault(const char *port, int l, int drop)
{
    MPI_Comm inter = MPI_COMM_NULL;
    double t0 = now();
    int rc = MPI_Comm_accept(port, MPI_INFO_NULL, size - 1, MPI_COMM_WORLD, &inter);
    failed(rc, inter, drop ? "accept whose connector vanished" : "accept with a failing "
           "connector group", t0, 15);
    if (drop && rank == size - 1) { /* the client's run may end now */
        char mark[4096];
        snprintf(mark, sizeof(mark), "%s.drop", done_file);
        FILE *f = fopen(mark, "w");
        if (f)
            fclose(f);
    }
    if (rank == size - 1 && !drop) {
        struct pollfd p = { l, POLLIN, 0 };
        int fd = poll(&p, 1, 30000) == 1 ? accept(l, NULL, NULL) : -1;
        CHECK(fd >= 0, "the client never connected for the join");
        t0 = now();
        rc = MPI_Comm_join(fd, &inter);
        failed(rc, inter, "join with a failing process", t0, 10);
        if (fd >= 0)
            close(fd);
    }
}

/* TWO_RUNS_FAULT: the client's part (its rank 0 fails after the roots met). */
static void client_fault(const char *port, int tcp, int drop)
{
    struct sockaddr_in a;
    int silent = -1;
    if (drop) { /* the roots' connection breaks after our last word: we fail and leave */
        MPI_Comm inter = MPI_COMM_NULL;
        double t0 = now();
        int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        failed(rc, inter, "connect whose last word was lost", t0, 10);
        /* stay until the server's accept failed: its bound must not be our goodbye */
        char mark[4096];
        snprintf(mark, sizeof(mark), "%s.drop", done_file);
        CHECK(wait_file(mark, NULL, 0) == 0, "the server's accept never failed");
        return;
    }
    if (rank == 1) { /* a connector that says nothing, ahead of the real one */
        char p0[MPI_MAX_PORT_NAME] = "";
        MPI_Recv(p0, sizeof(p0), MPI_CHAR, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        silent = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(port_addr(p0, &a) == 0 && silent >= 0 &&
              connect(silent, (struct sockaddr *)&a, sizeof(a)) == 0,
              "the silent connection to the port failed");
    } else if (rank == 0) {
        MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 9, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm inter = MPI_COMM_NULL;
    double t0 = now();
    int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    failed(rc, inter, "connect with a failing member", t0, 10);
    if (silent >= 0) { /* never served: the acceptor closes it with its port */
        struct pollfd p = { silent, POLLIN, 0 };
        char c;
        CHECK(poll(&p, 1, 30000) == 1 && read(silent, &c, 1) == 0,
              "the acceptor kept the silent connection after closing its port");
        close(silent);
    }
    if (rank == 0) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        port_addr(port, &a);
        a.sin_port = htons((uint16_t)tcp);
        CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0,
              "cannot connect to the server's join socket (port %d)", tcp);
        t0 = now();
        rc = MPI_Comm_join(fd, &inter);
        failed(rc, inter, "join failing here", t0, 10);
        close(fd);
    }
}

/* What both sides do on the intercommunicator (server: high 0, client: high 1). */
static void exercise(MPI_Comm inter, int server)
{
    int rsize = 0, flag = 0;
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(flag && rsize == 2, "intercommunicator: inter %d, remote size %d", flag, rsize);
    /* p2p: rank r of each side with rank r of the other, both ways */
    int out = (server ? 100 : 200) + rank, in = -1;
    MPI_Status st;
    int rc = MPI_Sendrecv(&out, 1, MPI_INT, rank, 7, &in, 1, MPI_INT, rank, 7, inter, &st);
    CHECK(rc == MPI_SUCCESS && in == (server ? 200 : 100) + rank && st.MPI_SOURCE == rank,
          "sendrecv across runs: rc %d, got %d from %d", rc, in, st.MPI_SOURCE);
    /* a bigger message (past eager limits), from client rank 1 to server rank 0 */
    int n = 1 << 18;
    int *big = malloc(sizeof(int) * (size_t)n);
    if (!server && rank == 1) {
        for (int i = 0; i < n; i++)
            big[i] = i * 3 + 1;
        CHECK(MPI_Send(big, n, MPI_INT, 0, 8, inter) == MPI_SUCCESS, "big send");
    } else if (server && rank == 0) {
        CHECK(MPI_Recv(big, n, MPI_INT, 1, 8, inter, &st) == MPI_SUCCESS, "big recv");
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += big[i] != i * 3 + 1;
        CHECK(!bad, "big message: %d wrong ints", bad);
    }
    free(big);
    /* intercommunicator allreduce: each side gets the other side's sum */
    int sum = 0;
    rc = MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(rc == MPI_SUCCESS && sum == (server ? 401 : 201), "inter allreduce: rc %d sum %d",
          rc, sum);
    MPI_Comm merged;
    rc = MPI_Intercomm_merge(inter, server ? 0 : 1, &merged);
    CHECK(rc == MPI_SUCCESS, "merge: rc %d", rc);
    if (rc == MPI_SUCCESS) {
        int mr = -1, ms = 0, all = 0;
        MPI_Comm_rank(merged, &mr);
        MPI_Comm_size(merged, &ms);
        CHECK(ms == 4 && mr == (server ? 0 : 2) + rank, "merged: rank %d of %d", mr, ms);
        MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
        rc = MPI_Allreduce(&mr, &all, 1, MPI_INT, MPI_SUM, merged);
        char msg[MPI_MAX_ERROR_STRING] = "";
        int ml = 0;
        if (rc != MPI_SUCCESS)
            MPI_Error_string(rc, msg, &ml);
        CHECK(rc == MPI_SUCCESS && all == 6, "merged allreduce: sum %d %s", all, msg);
        MPI_Barrier(merged);
        MPI_Comm_free(&merged);
    }
    /* both sides pass the same high: the order comes from the runs' ids, the same at all */
    rc = MPI_Intercomm_merge(inter, 0, &merged);
    CHECK(rc == MPI_SUCCESS, "merge with equal high: rc %d", rc);
    if (rc == MPI_SUCCESS) {
        int mr = -1, all = 0, lo = 0;
        MPI_Comm_rank(merged, &mr);
        rc = MPI_Allreduce(&mr, &all, 1, MPI_INT, MPI_SUM, merged);
        CHECK(rc == MPI_SUCCESS && all == 6, "merged with equal high: rank sums to %d", all);
        /* each side's ranks are contiguous, in their order */
        CHECK(mr == rank || mr == rank + 2, "merged with equal high: rank %d", mr);
        lo = mr < 2;
        int los = 0;
        MPI_Allreduce(&lo, &los, 1, MPI_INT, MPI_SUM, merged);
        CHECK(los == 2, "merged with equal high: %d processes took the low half", los);
        MPI_Comm_free(&merged);
    }
    rc = MPI_Comm_disconnect(&inter);
    CHECK(rc == MPI_SUCCESS && inter == MPI_COMM_NULL, "disconnect: rc %d", rc);
}

int main(int argc, char **argv)
{
    if (argc < 4) /* (a fifth: the test's marker, ignored) */
        return 2;
    MPI_Init(&argc, &argv);
    done_file = argc > 3 ? argv[3] : "done";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *svc = getenv("TWO_RUNS_SERVICE");
    char port[MPI_MAX_PORT_NAME] = "", idle[MPI_MAX_PORT_NAME] = "";
    if (!strcmp(argv[1], "server")) {
        int l = -1;
        struct sockaddr_in a = { .sin_family = AF_INET };
        if (rank == size - 1) {
            CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "MPI_Open_port");
            CHECK(MPI_Open_port(MPI_INFO_NULL, idle) == MPI_SUCCESS, "MPI_Open_port (idle)");
            if (svc)
                CHECK(MPI_Publish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS,
                      "MPI_Publish_name");
            /* the join socket listens where the port does: loopback in the launch test */
            l = socket(AF_INET, SOCK_STREAM, 0);
            socklen_t alen = sizeof(a);
            if (port_addr(port, &a))
                MPI_Abort(MPI_COMM_WORLD, 2);
            a.sin_port = 0;
            if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
                getsockname(l, (struct sockaddr *)&a, &alen))
                MPI_Abort(MPI_COMM_WORLD, 2);
            char tmp[4096];
            snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
            FILE *f = fopen(tmp, "w");
            if (!f || fprintf(f, "%s\n%s\n%d\n", port, idle, ntohs(a.sin_port)) < 0 ||
                fclose(f) || rename(tmp, argv[2]))
                MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (getenv("TWO_RUNS_FAULT")) {
            server_fault(port, l, atoi(getenv("TWO_RUNS_FAULT")) == 2);
            if (rank == size - 1) {
                close(l);
                CHECK(MPI_Close_port(idle) == MPI_SUCCESS, "MPI_Close_port (idle)");
                if (svc)
                    CHECK(MPI_Unpublish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS,
                          "MPI_Unpublish_name");
                CHECK(MPI_Close_port(port) == MPI_SUCCESS, "MPI_Close_port");
            }
            goto end;
        }
        MPI_Comm inter = MPI_COMM_NULL;
        int rc = MPI_Comm_accept(port, MPI_INFO_NULL, size - 1, MPI_COMM_WORLD, &inter);
        CHECK(rc == MPI_SUCCESS, "MPI_Comm_accept: rc %d", rc);
        if (rc == MPI_SUCCESS)
            exercise(inter, 1);
        if (rank == size - 1) {
            char closed[4096];
            snprintf(closed, sizeof(closed), "%s.closed", argv[3]);
            CHECK(MPI_Close_port(idle) == MPI_SUCCESS, "MPI_Close_port (idle)");
            FILE *cf = fopen(closed, "w");
            if (cf)
                fclose(cf);
            struct pollfd p = { l, POLLIN, 0 };
            int fd = poll(&p, 1, 30000) == 1 ? accept(l, NULL, NULL) : -1;
            CHECK(fd >= 0, "the client never connected for the join");
            if (fd >= 0) {
                join_other(fd, "server", 55, 66);
                close(fd);
            }
            close(l);
            CHECK(wait_file(argv[3], NULL, 0) == 0, "the client never finished");
            if (svc)
                CHECK(MPI_Unpublish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS,
                      "MPI_Unpublish_name");
            CHECK(MPI_Close_port(port) == MPI_SUCCESS, "MPI_Close_port");
        }
    } else {
        int tcp = 0;
        char bad[MPI_MAX_PORT_NAME];
        if (rank == 0) {
            CHECK(read_ports(argv[2], port, idle, sizeof(port), &tcp) == 0,
                  "no ports from the server");
            CHECK(!strncmp(port, "rdmpi-port3/", 12), "the port '%s' is not a port3", port);
        }
        if (getenv("TWO_RUNS_FAULT")) {
            client_fault(port, tcp, atoi(getenv("TWO_RUNS_FAULT")) == 2);
            goto end;
        }
        /* nobody accepts on the idle port: refused after RDMPI_CONNECT_TIMEOUT (the test
         * sets 2 s) */
        refused(idle, "a port nobody accepts on", 10);
        /* the right port, its key altered: the acceptor refuses, and goes on accepting */
        size_t n = strlen(port);
        snprintf(bad, sizeof(bad), "%s", port);
        if (rank == 0)
            bad[n - 1] = bad[n - 1] == '0' ? '1' : '0'; /* the key's last digit */
        refused(bad, "the port with an altered key", 10);
        refused("rdmpi-port3/", "an empty port3", 10);
        if (rank == 0)
            garbage_at(port);
        if (rank == 0 && svc) {
            char found[MPI_MAX_PORT_NAME];
            int rc = MPI_Lookup_name(svc, MPI_INFO_NULL, found);
            CHECK(rc == MPI_SUCCESS && !strcmp(found, port), "MPI_Lookup_name of the other "
                  "run's name: rc %d, '%s'", rc, rc == MPI_SUCCESS ? found : "");
            snprintf(port, sizeof(port), "%s", found);
        }
        MPI_Comm inter = MPI_COMM_NULL;
        int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        CHECK(rc == MPI_SUCCESS, "MPI_Comm_connect: rc %d", rc);
        if (rc == MPI_SUCCESS)
            exercise(inter, 0);
        /* the idle port, once the server closed it: refused at once */
        char closed[4096];
        snprintf(closed, sizeof(closed), "%s.closed", argv[3]);
        if (rank == 0)
            CHECK(wait_file(closed, NULL, 0) == 0, "the server never closed its idle port");
        refused(idle, "a closed port", 2);
        if (rank == 0) {
            int fd = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in a;
            port_addr(port, &a);
            a.sin_port = htons((uint16_t)tcp);
            CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0,
                  "cannot connect to the server's join socket (port %d)", tcp);
            join_other(fd, "client", 66, 55);
            close(fd);
            FILE *f = fopen(argv[3], "w");
            if (f)
                fclose(f);
        }
    }
end:;
    int all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!all && rank == 0)
        printf("%s ok\n", argv[1]);
    MPI_Finalize();
    return fails ? 1 : 0;
}
