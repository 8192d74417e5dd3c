/*
 * Groups: an ordered set of world ranks. Immutable once built, reference
 * counted (communicators hold one reference to their group).
 */
#ifndef RDMPI_CORE_GROUP_H
#define RDMPI_CORE_GROUP_H

#include "mpi.h"

struct rdmpi_group {
    int refcount;
    int predefined;   /* MPI_GROUP_EMPTY: never freed */
    int size;
    int my_rank;      /* my rank in the group, or MPI_UNDEFINED */
    int *ranks;       /* world rank of each member */
};

/* Builds a group of n world ranks (copied). my_world is the caller's world rank. */
int core_group_create(int n, const int *world_ranks, int my_world, MPI_Group *out);
void core_group_retain(MPI_Group g);
void core_group_release(MPI_Group g);
/* Rank of a world rank in g, or MPI_UNDEFINED. */
int core_group_rank_of(MPI_Group g, int world_rank);

#endif
