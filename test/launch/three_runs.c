/*
 * Three separately started rdmpirun runs (test/launch/run, case three_runs): a server that
 * grows by merging its clients (docs/dynamic.md, design b, groups of several runs).
 *   - run A (2 ranks) opens a port and writes it to PORTFILE; it accepts run B (2 ranks) over
 *     MPI_COMM_WORLD and merges the intercommunicator into AB (A low);
 *   - AB (processes of two runs) accepts again on the same port, now with run C (2 ranks),
 *     which connects once DIR/ab exists (so that it cannot take B's place); C's processes
 *     meet B's too, which never talked to C's root;
 *   - every process checks the intercommunicator (remote size, an allreduce across it), merges
 *     it into ABC (6 processes, AB low), and then sends its rank in ABC to the next process
 *     and receives from the previous one (so each pair of neighbouring runs talks directly:
 *     B<->C without any root in between), and an allreduce and a barrier over ABC;
 *   - a connect from a group holding two runs' processes to a port of its own run is refused
 *     at once (MPI_ERR_*) with a message; tried by AB against a port of A before C connects.
 *   three_runs a|b|c DIR     prints "a ok", "b ok", "c ok"
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fails, wrank;

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAIL: %s rank %d: ", role, wrank);                                             \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

static const char *role = "?";

/* Waits (at most 60 s) for file; with buf, reads its first line into it. 0 when found. */
static int wait_file(const char *file, char *buf, int len)
{
    for (int i = 0; i < 6000; i++, usleep(10000)) {
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

static void write_file(const char *file, const char *text)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) || rename(tmp, file))
        MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Checks an intercommunicator with a remote group of rsize processes; high: our side is the
 * high group of the merge. Returns the merged communicator. */
static MPI_Comm check_inter(MPI_Comm inter, int rsize, int high)
{
    int flag = 0, rs = -1, size, rank;
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_remote_size(inter, &rs);
    MPI_Comm_size(inter, &size);
    MPI_Comm_rank(inter, &rank);
    CHECK(flag && rs == rsize, "intercommunicator: inter %d, remote size %d (want %d)", flag, rs,
          rsize);
    /* an allreduce across: each side gets the sum of the other side's (rank + 1) * 10 */
    int mine = (rank + 1) * 10, got = -1;
    CHECK(MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS &&
              got == 10 * rsize * (rsize + 1) / 2,
          "allreduce across: %d (want %d)", got, 10 * rsize * (rsize + 1) / 2);
    MPI_Comm merged = MPI_COMM_NULL;
    CHECK(MPI_Intercomm_merge(inter, high, &merged) == MPI_SUCCESS, "MPI_Intercomm_merge");
    int ms = -1, mr = -1;
    MPI_Comm_size(merged, &ms);
    MPI_Comm_rank(merged, &mr);
    CHECK(ms == size + rsize && mr == (high ? rsize : 0) + rank, "merged: rank %d of %d", mr, ms);
    return merged;
}

/* Over all six: a ring of messages (neighbouring runs talk directly), an allreduce, a
 * barrier. */
static void check_all(MPI_Comm abc)
{
    int size, rank;
    MPI_Comm_size(abc, &size);
    MPI_Comm_rank(abc, &rank);
    CHECK(size == 6, "ABC has %d processes", size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size, from = -1;
    MPI_Status st;
    CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &from, 1, MPI_INT, left, 7, abc, &st) ==
                  MPI_SUCCESS && from == left && st.MPI_SOURCE == left,
          "ring: got %d from %d (want %d)", from, st.MPI_SOURCE, left);
    /* and the other way, with a message past the eager limits */
    int n = 1 << 18;
    int *big = malloc(sizeof(int) * n), *in = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        big[i] = rank * n + i;
    CHECK(MPI_Sendrecv(big, n, MPI_INT, left, 8, in, n, MPI_INT, right, 8, abc, &st) ==
              MPI_SUCCESS, "large ring");
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += in[i] != right * n + i;
    CHECK(!bad, "large ring: %d wrong ints from %d", bad, right);
    free(big);
    free(in);
    int sum = -1;
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, abc) == MPI_SUCCESS && sum == 15,
          "allreduce over ABC: %d", sum);
    CHECK(MPI_Barrier(abc) == MPI_SUCCESS, "barrier over ABC");
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    role = argv[1];
    const char *dir = argv[2];
    char portfile[4096], abfile[4096], donefile[4096], port[MPI_MAX_PORT_NAME] = "";
    snprintf(portfile, sizeof(portfile), "%s/port", dir);
    snprintf(abfile, sizeof(abfile), "%s/ab", dir);
    snprintf(donefile, sizeof(donefile), "%s/done", dir);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm inter = MPI_COMM_NULL, ab = MPI_COMM_NULL, abc = MPI_COMM_NULL;
    if (!strcmp(role, "a") || !strcmp(role, "b")) {
        int a = !strcmp(role, "a");
        if (a && wrank == 0) {
            CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "MPI_Open_port");
            write_file(portfile, port);
        } else if (!a && wrank == 0) {
            CHECK(wait_file(portfile, port, sizeof(port)) == 0, "no port from run A");
        }
        int rc = a ? MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter)
                   : MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        CHECK(rc == MPI_SUCCESS, "A-B %s: rc %d", a ? "accept" : "connect", rc);
        if (rc != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        ab = check_inter(inter, 2, !a);
        MPI_Comm_disconnect(&inter);
        MPI_Comm_set_errhandler(ab, MPI_ERRORS_RETURN);
        /* AB cannot connect to a port of its own run's launcher (A's second port) */
        int abrank;
        MPI_Comm_rank(ab, &abrank);
        char own[MPI_MAX_PORT_NAME] = "";
        if (abrank == 0)
            CHECK(MPI_Open_port(MPI_INFO_NULL, own) == MPI_SUCCESS, "MPI_Open_port (own)");
        MPI_Comm no = MPI_COMM_NULL;
        rc = MPI_Comm_connect(own, MPI_INFO_NULL, 0, ab, &no);
        CHECK(rc != MPI_SUCCESS && no == MPI_COMM_NULL, "AB connected to its own run's port");
        if (abrank == 0) {
            MPI_Close_port(own);
            write_file(abfile, "ready"); /* now C may connect */
        }
        rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, ab, &inter);
        CHECK(rc == MPI_SUCCESS, "AB accept: rc %d", rc);
        if (rc != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        abc = check_inter(inter, 2, 0);
        if (a && wrank == 0)
            MPI_Close_port(port);
    } else {
        if (wrank == 0) {
            CHECK(wait_file(portfile, port, sizeof(port)) == 0, "no port from run A");
            CHECK(wait_file(abfile, NULL, 0) == 0, "AB never got ready");
        }
        int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        CHECK(rc == MPI_SUCCESS, "C connect: rc %d", rc);
        if (rc != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        abc = check_inter(inter, 4, 1);
    }
    check_all(abc);
    MPI_Comm_free(&abc);
    MPI_Comm_disconnect(&inter);
    if (ab != MPI_COMM_NULL)
        MPI_Comm_free(&ab);
    int all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!all && wrank == 0)
        printf("%s ok\n", role);
    MPI_Finalize();
    return fails ? 1 : 0;
}
