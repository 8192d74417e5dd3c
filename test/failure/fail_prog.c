/*
 * A job that goes wrong on purpose, for test/failure/run. Usage:
 *   fail_prog MODE MARKER
 * MARKER is ignored (it makes the processes findable with pgrep). Rank 1 (or
 * every rank, for deadlock) misbehaves as MODE says while the other ranks
 * block in MPI_Recv from rank 1 (or in MPI_Barrier for kill-barrier):
 *   kill-recv, kill-barrier  print "rank 1 pid P ready" and sleep (the test kills it)
 *   abort        MPI_Abort(MPI_COMM_WORLD, 7)
 *   segv         a write through a null pointer
 *   no-finalize  return from main without MPI_Finalize
 *   deadlock     every rank receives from its right neighbour; nobody sends
 *   deadlock-threads  the same under MPI_THREAD_MULTIPLE, from two threads of each rank: one
 *                in MPI_Recv (tag 99), one in MPI_Irecv + MPI_Wait (tag 98), waits that run
 *                outside the library's critical section (or asleep outside it)
 *   errfatal     MPI_Send to rank = size under MPI_ERRORS_ARE_FATAL
 * Every rank prints "rank R waiting" just before it blocks.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int right;

static void *waiter(void *arg)
{
    int buf = 0;
    MPI_Request req;
    (void)arg;
    MPI_Irecv(&buf, 1, MPI_INT, right, 98, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size, buf = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: fail_prog MODE MARKER\n");
        return 2;
    }
    const char *mode = argv[1];
    if (!strcmp(mode, "deadlock-threads")) {
        int provided = 0;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        right = (rank + 1) % size;
        pthread_t t;
        pthread_create(&t, NULL, waiter, NULL);
        printf("rank %d waiting\n", rank);
        fflush(stdout);
        MPI_Recv(&buf, 1, MPI_INT, right, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pthread_join(t, NULL);
        MPI_Finalize();
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (!strcmp(mode, "deadlock")) {
        printf("rank %d waiting\n", rank);
        fflush(stdout);
        MPI_Recv(&buf, 1, MPI_INT, (rank + 1) % size, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Finalize();
        return 0;
    }
    if (rank != 1) {
        printf("rank %d waiting\n", rank);
        fflush(stdout);
        if (!strcmp(mode, "kill-barrier"))
            MPI_Barrier(MPI_COMM_WORLD);
        else
            MPI_Recv(&buf, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Finalize();
        return 0;
    }

    /* rank 1: give the others time to block first */
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    if (!strncmp(mode, "kill-", 5)) {
        printf("rank 1 pid %d ready\n", (int)getpid());
        fflush(stdout);
        for (;;)
            sleep(60);
    } else if (!strcmp(mode, "abort")) {
        MPI_Abort(MPI_COMM_WORLD, 7);
    } else if (!strcmp(mode, "segv")) {
        volatile int *p = NULL;
        *p = 1;
    } else if (!strcmp(mode, "no-finalize")) {
        return 0;
    } else if (!strcmp(mode, "errfatal")) {
        MPI_Send(&buf, 1, MPI_INT, size, 5, MPI_COMM_WORLD);
    }
    fprintf(stderr, "fail_prog: rank 1 survived mode %s\n", mode);
    MPI_Finalize();
    return 3;
}
