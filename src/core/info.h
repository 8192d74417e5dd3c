/*
 * Info objects: ordered (key, value) string pairs.
 */
#ifndef RDMPI_CORE_INFO_H
#define RDMPI_CORE_INFO_H

#include "mpi.h"

typedef struct core_info_entry {
    char *key;
    char *value;
} core_info_entry_t;

struct rdmpi_info {
    int predefined;  /* MPI_INFO_ENV: never freed */
    int n, cap;
    core_info_entry_t *entries;
};

int core_info_create(MPI_Info *out);
void core_info_destroy(MPI_Info info);
/* Fills MPI_INFO_ENV (command, argv, maxprocs, host, thread_level ...) at init. */
void core_info_env_init(int argc, char **argv);

#endif
