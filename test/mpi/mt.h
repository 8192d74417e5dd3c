/*
 * Helpers of the multi-threaded test programs (thread_*.c): MPI_Init_thread asking for
 * MPI_THREAD_MULTIPLE (a program that does not get it fails: rdmpi grants it), and a
 * pthread team running one function per thread.
 */
#ifndef RDMPI_TEST_MT_H
#define RDMPI_TEST_MT_H

#include <pthread.h>
#include "check.h"

#define MT_MAX 8

static inline void mt_init(int *argc, char ***argv)
{
    int provided = -1, flag = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    MPI_Comm_dup(MPI_COMM_WORLD, &t_sync_comm);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d, not MULTIPLE", provided);
    MPI_Query_thread(&provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Query_thread says %d", provided);
    MPI_Is_thread_main(&flag);
    CHECK(flag, "MPI_Is_thread_main is false in the thread that called MPI_Init_thread");
}

typedef struct mt_arg {
    int id, n;
    void *shared;
} mt_arg_t;

/* Runs fn in n threads (ids 0..n-1) and joins them. */
static inline void mt_run(int n, void *(*fn)(void *), void *shared)
{
    pthread_t th[MT_MAX];
    mt_arg_t args[MT_MAX];
    CHECK(n <= MT_MAX, "at most %d threads", MT_MAX);
    for (int i = 0; i < n; i++) {
        args[i] = (mt_arg_t){ i, n, shared };
        CHECK(pthread_create(&th[i], NULL, fn, &args[i]) == 0, "pthread_create failed");
    }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
}

#endif
