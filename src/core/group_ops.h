/*
 * The group algebra behind MPI_Group_*: subsets by rank list or range,
 * union, intersection, difference, comparison and rank translation. These
 * take the caller's world rank explicitly (my_world) instead of reading the
 * runtime, so the unit test can drive them alone.
 *
 * Every builder stores its result in *out only on success; an empty result is
 * MPI_GROUP_EMPTY. Functions that check rank arguments store in *bad (which
 * may be NULL) the index of the first offending entry: a rank list element or
 * a range triplet.
 */
#ifndef RDMPI_CORE_GROUP_OPS_H
#define RDMPI_CORE_GROUP_OPS_H

#include "mpi.h"

/*
 * The members of g at the n given ranks, in that order. CORE_ERANK if a rank
 * is outside [0, size) or repeats an earlier one; CORE_EINVAL if n < 0.
 */
int core_group_incl(MPI_Group g, int n, const int *ranks, int my_world, MPI_Group *out,
                    int *bad);
/* The members of g except those at the n given ranks, in g's order; errors as incl. */
int core_group_excl(MPI_Group g, int n, const int *ranks, int my_world, MPI_Group *out,
                    int *bad);

/*
 * Expands n (first, last, stride) triplets into the ranks they name, in order,
 * into a malloc'd array (*ranks_out, NULL when *count_out is 0; the caller
 * frees it). CORE_EINVAL: a stride is 0 or leads away from last.
 * CORE_ERANK: first or last outside [0, size), or a rank named twice.
 */
int core_group_expand_ranges(MPI_Group g, int n, int ranges[][3], int **ranks_out,
                             int *count_out, int *bad);
int core_group_range_incl(MPI_Group g, int n, int ranges[][3], int my_world, MPI_Group *out,
                          int *bad);
int core_group_range_excl(MPI_Group g, int n, int ranges[][3], int my_world, MPI_Group *out,
                          int *bad);

/* All of a, then the members of b not in a, in b's order. */
int core_group_union(MPI_Group a, MPI_Group b, int my_world, MPI_Group *out);
/* The members of a that are also in b, in a's order. */
int core_group_intersection(MPI_Group a, MPI_Group b, int my_world, MPI_Group *out);
/* The members of a that are not in b, in a's order. */
int core_group_difference(MPI_Group a, MPI_Group b, int my_world, MPI_Group *out);

/* MPI_IDENT (same members, same order), MPI_SIMILAR (same members) or MPI_UNEQUAL;
 * a negative CORE_* code if memory runs out. */
int core_group_compare(MPI_Group a, MPI_Group b);

/*
 * For each ranks1[i] (a rank in a, or MPI_PROC_NULL) stores the rank of that
 * process in b, MPI_UNDEFINED if it is not a member, and MPI_PROC_NULL for
 * MPI_PROC_NULL. CORE_ERANK if some ranks1[i] is not a rank of a.
 */
int core_group_translate(MPI_Group a, int n, const int *ranks1, MPI_Group b, int *ranks2,
                         int *bad);

#endif
