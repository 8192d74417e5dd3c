/*
 * MPI_Group_* entry points: argument checks and error messages; the set
 * algebra itself is in core/group.c. New groups learn the caller's rank from
 * its world rank (core_rt->rank).
 */
#include "api/api.h"
#include "core/group.h"
#include "core/group_ops.h"

/* A group argument must be a live group handle (not MPI_GROUP_NULL, not freed). */
static int check_group(MPI_Group g, const char *what, const char *fn)
{
    (void)what;
    return api_check_group(g, fn);
}

/* A NULL pointer argument is an argument error. */
static int check_ptr(const void *p, const char *what, const char *fn)
{
    if (!p)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "%s is NULL", what);
    return 0;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    API_ENTER;
    const char *fn = "MPI_Group_size";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_group(group, "group", fn));
    API_CHECK(check_ptr(size, "size", fn));
    *size = group->size;
    return MPI_SUCCESS;
}
int MPI_Group_size(MPI_Group group, int *size) API_ALIAS(MPI_Group_size);

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    API_ENTER;
    const char *fn = "MPI_Group_rank";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_group(group, "group", fn));
    API_CHECK(check_ptr(rank, "rank", fn));
    *rank = group->my_rank;
    return MPI_SUCCESS;
}
int MPI_Group_rank(MPI_Group group, int *rank) API_ALIAS(MPI_Group_rank);

/* Reports a rank-list error found by core_group_incl/excl at ranks[bad]. */
static int rank_list_error(MPI_Group g, int rc, int n, const int ranks[], int bad,
                           const char *fn)
{
    if (rc != CORE_ERANK)
        return api_error(MPI_COMM_NULL, rc, fn, "cannot build the group of %d ranks", n);
    int r = ranks[bad];
    if (r < 0 || r >= g->size)
        return api_error(MPI_COMM_NULL, rc, fn, "ranks[%d] = %d is not a rank of the group (size %d)",
                         bad, r, g->size);
    return api_error(MPI_COMM_NULL, rc, fn, "ranks[%d] = %d repeats an earlier entry", bad, r);
}

/* Checks and runs incl (excl = 0) or excl (excl = 1). */
static int incl_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup, int excl,
                     const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(check_group(group, "group", fn));
    API_CHECK(check_ptr(newgroup, "newgroup", fn));
    if (n < 0 || n > group->size)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "n = %d is outside [0, group size %d]",
                         n, group->size);
    if (n > 0)
        API_CHECK(check_ptr(ranks, "ranks", fn));
    int bad = 0, rc;
    if (excl)
        rc = core_group_excl(group, n, ranks, core_rt->rank, newgroup, &bad);
    else
        rc = core_group_incl(group, n, ranks, core_rt->rank, newgroup, &bad);
    if (rc != 0)
        return rank_list_error(group, rc, n, ranks, bad, fn);
    return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    API_ENTER;
    return incl_excl(group, n, ranks, newgroup, 0, "MPI_Group_incl");
}
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
    API_ALIAS(MPI_Group_incl);

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    API_ENTER;
    return incl_excl(group, n, ranks, newgroup, 1, "MPI_Group_excl");
}
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
    API_ALIAS(MPI_Group_excl);

/* Reports an error core_group_range_incl/excl found in ranges[bad]. */
static int range_error(MPI_Group g, int rc, int ranges[][3], int bad, const char *fn)
{
    int first = ranges[bad][0], last = ranges[bad][1], stride = ranges[bad][2];
    const char *why;
    if (rc == CORE_EINVAL)
        why = stride == 0 ? "the stride is 0" : "the stride leads away from last";
    else if (rc != CORE_ERANK)
        return api_error(MPI_COMM_NULL, rc, fn, "cannot expand the ranges");
    else if (first < 0 || first >= g->size || last < 0 || last >= g->size)
        why = "first or last is not a rank of the group";
    else
        why = "it names a rank that an earlier triplet or itself already named";
    return api_error(MPI_COMM_NULL, rc, fn, "ranges[%d] = (%d, %d, %d) in a group of size %d: %s",
                     bad, first, last, stride, g->size, why);
}

static int range_incl_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup,
                           int excl, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(check_group(group, "group", fn));
    API_CHECK(check_ptr(newgroup, "newgroup", fn));
    if (n < 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "n = %d is negative", n);
    if (n > 0)
        API_CHECK(check_ptr(ranges, "ranges", fn));
    int bad = 0, rc;
    if (excl)
        rc = core_group_range_excl(group, n, ranges, core_rt->rank, newgroup, &bad);
    else
        rc = core_group_range_incl(group, n, ranges, core_rt->rank, newgroup, &bad);
    if (rc != 0)
        return range_error(group, rc, ranges, bad, fn);
    return MPI_SUCCESS;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    API_ENTER;
    return range_incl_excl(group, n, ranges, newgroup, 0, "MPI_Group_range_incl");
}
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
    API_ALIAS(MPI_Group_range_incl);

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    API_ENTER;
    return range_incl_excl(group, n, ranges, newgroup, 1, "MPI_Group_range_excl");
}
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
    API_ALIAS(MPI_Group_range_excl);

typedef int set_op_fn(MPI_Group a, MPI_Group b, int my_world, MPI_Group *out);

static int set_op(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, set_op_fn *op,
                  const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(check_group(group1, "group1", fn));
    API_CHECK(check_group(group2, "group2", fn));
    API_CHECK(check_ptr(newgroup, "newgroup", fn));
    int rc = op(group1, group2, core_rt->rank, newgroup);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "cannot build the group (sizes %d and %d)",
                         group1->size, group2->size);
    return MPI_SUCCESS;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    API_ENTER;
    return set_op(group1, group2, newgroup, core_group_union, "MPI_Group_union");
}
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
    API_ALIAS(MPI_Group_union);

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    API_ENTER;
    return set_op(group1, group2, newgroup, core_group_intersection, "MPI_Group_intersection");
}
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
    API_ALIAS(MPI_Group_intersection);

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    API_ENTER;
    return set_op(group1, group2, newgroup, core_group_difference, "MPI_Group_difference");
}
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
    API_ALIAS(MPI_Group_difference);

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    API_ENTER;
    const char *fn = "MPI_Group_compare";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_group(group1, "group1", fn));
    API_CHECK(check_group(group2, "group2", fn));
    API_CHECK(check_ptr(result, "result", fn));
    int r = core_group_compare(group1, group2);
    if (r < 0)
        return api_error(MPI_COMM_NULL, r, fn, "cannot compare groups of size %d", group1->size);
    *result = r;
    return MPI_SUCCESS;
}
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
    API_ALIAS(MPI_Group_compare);

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    API_ENTER;
    const char *fn = "MPI_Group_translate_ranks";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_group(group1, "group1", fn));
    API_CHECK(check_group(group2, "group2", fn));
    if (n < 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "n = %d is negative", n);
    if (n > 0) {
        API_CHECK(check_ptr(ranks1, "ranks1", fn));
        API_CHECK(check_ptr(ranks2, "ranks2", fn));
    }
    int bad = 0;
    int rc = core_group_translate(group1, n, ranks1, group2, ranks2, &bad);
    if (rc == CORE_ERANK)
        return api_error(MPI_COMM_NULL, rc, fn,
                         "ranks1[%d] = %d is not a rank of group1 (size %d) nor MPI_PROC_NULL",
                         bad, ranks1[bad], group1->size);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "cannot translate %d ranks", n);
    return MPI_SUCCESS;
}
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]) API_ALIAS(MPI_Group_translate_ranks);

int PMPI_Group_free(MPI_Group *group)
{
    API_ENTER;
    const char *fn = "MPI_Group_free";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_ptr(group, "group", fn));
    API_CHECK(check_group(*group, "*group", fn));
    /* Freeing MPI_GROUP_EMPTY only clears the handle (release ignores predefined groups). */
    core_group_release(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
int MPI_Group_free(MPI_Group *group) API_ALIAS(MPI_Group_free);
