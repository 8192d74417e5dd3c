/*
 * MPI_THREAD_MULTIPLE, dynamic processes: a thread that spawns must not stop the rank's other
 * threads while the launcher starts the child and the child opens its transports. Rank 0's
 * thread A spawns one child over MPI_COMM_SELF that waits DELAY seconds before its MPI_Init
 * (a slow start, as on a loaded machine); meanwhile rank 0's thread B ping-pongs with rank 1
 * and counts its round trips per second. Before, the parent's look-ups of the child's data
 * (PMIx_Get, ~2 s a try until the child commits it) ran inside the library's critical
 * section, so thread B stood still for seconds at a time (4 round trips in 5 s): peers of
 * other jobs then reported the rank lost under load (verbs peer timeouts, thread_spawn in the
 * Soft-RoCE guest). The child and thread A then exchange a message, so the spawn is checked
 * too. The same round trips first run for DELAY seconds while thread A only sleeps: their
 * rate is this machine's (a loaded host deschedules ranks for a second or two, so the
 * longest gap alone tells nothing), and the rate while spawning must be at least a
 * FRACTION of it.
 * Arguments: [DELAY seconds, default 4] [FRACTION, default 0.15].
 */
#include "mt.h"

#include <stdatomic.h>
#include <unistd.h>

static char *self_path;
static atomic_int done;
static double delay = 4, fraction = 0.15;

static void *spawner(void *p)
{
    (void)p;
    char darg[32];
    snprintf(darg, sizeof(darg), "%g", delay);
    char *argv[] = { "child", darg, NULL };
    MPI_Comm inter;
    int err = -1;
    MPI_OK(MPI_Comm_spawn(self_path, argv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, &err));
    CHECK(err == MPI_SUCCESS, "the child's errcode is %d", err);
    int v = 41, back = -1;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 5, inter));
    MPI_OK(MPI_Recv(&back, 1, MPI_INT, 0, 6, inter, MPI_STATUS_IGNORE));
    CHECK(back == 42, "the child answered %d, expected 42", back);
    MPI_OK(MPI_Comm_disconnect(&inter));
    atomic_store(&done, 1);
    return NULL;
}

static void *sleeper(void *p)
{
    (void)p;
    usleep((useconds_t)(delay * 1e6));
    atomic_store(&done, 1);
    return NULL;
}

/* Rank 0's thread B: round trips with rank 1 until thread A is done; their rate. */
static void *pinger(void *p)
{
    MPI_Comm comm = *(MPI_Comm *)p;
    double t0 = MPI_Wtime(), last = t0, worst = 0;
    long n = 0;
    int stop = 0;
    while (!stop) {
        stop = atomic_load(&done);
        int v[2] = { stop, (int)n }, r[2] = { -1, -1 };
        MPI_OK(MPI_Send(v, 2, MPI_INT, 1, 1, comm));
        MPI_OK(MPI_Recv(r, 2, MPI_INT, 1, 2, comm, MPI_STATUS_IGNORE));
        CHECK(r[0] == stop && r[1] == (int)n + 1, "round trip %ld: got (%d, %d)", n, r[0],
              r[1]);
        double now = MPI_Wtime();
        if (now - last > worst)
            worst = now - last;
        last = now;
        n++;
        usleep(1000); /* a steady trickle, not a spin: the other ranks need the cores */
    }
    printf("rank 0: %ld round trips in %.2f s, longest gap %.3f s\n", n, last - t0, worst);
    *(double *)p = (double)n / (last - t0);
    return NULL;
}

/* Rank 0: thread A runs fn while thread B pings; returns B's round trips per second. */
static double phase(MPI_Comm comm, void *(*fn)(void *))
{
    union { MPI_Comm comm; double rate; } arg = { .comm = comm };
    pthread_t a, b;
    atomic_store(&done, 0);
    CHECK(pthread_create(&b, NULL, pinger, &arg) == 0, "pthread_create");
    CHECK(pthread_create(&a, NULL, fn, NULL) == 0, "pthread_create");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return arg.rate;
}

/* Rank 1: answers rank 0's round trips until it says stop. */
static void echo(MPI_Comm comm)
{
    for (int stop = 0; !stop;) {
        int v[2];
        MPI_OK(MPI_Recv(v, 2, MPI_INT, 0, 1, comm, MPI_STATUS_IGNORE));
        stop = v[0];
        v[1]++;
        MPI_OK(MPI_Send(v, 2, MPI_INT, 0, 2, comm));
    }
}

static void child(MPI_Comm parent)
{
    t_begin("child");
    int v = -1;
    MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 5, parent, MPI_STATUS_IGNORE));
    v++;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 6, parent));
    MPI_OK(MPI_Comm_disconnect(&parent));
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "child"))
        usleep((useconds_t)(atof(argv[2]) * 1e6)); /* a slow start, before MPI_Init */
    mt_init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        child(parent);
        t_finish();
        return 0;
    }
    t_begin("thread_spawn_stall");
    if (t_size != 2) {
        t_skip("needs 2 ranks");
        return 0;
    }
    if (argc > 1)
        delay = atof(argv[1]);
    if (argc > 2)
        fraction = atof(argv[2]);
    CHECK(delay > 0 && fraction > 0, "arguments: delay %g, fraction %g", delay, fraction);
    self_path = argv[0];
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (t_rank == 0) {
        double quiet = phase(comm, sleeper), spawning = phase(comm, spawner);
        printf("rank 0: %.1f round trips/s while a thread slept, %.1f while it spawned "
               "(at least %.1f expected)\n", quiet, spawning, quiet * fraction);
        CHECK(spawning >= quiet * fraction, "thread B made %.1f round trips/s while thread A "
              "spawned, %.1f while it slept", spawning, quiet);
    } else {
        echo(comm);
        echo(comm);
    }
    MPI_Comm_free(&comm);
    t_finish();
    return 0;
}
