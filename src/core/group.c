/*
 * Groups: creation, reference counting, the predefined MPI_GROUP_EMPTY, and
 * the set algebra behind MPI_Group_* (declared in group_ops.h). Nothing here
 * reads the runtime; callers pass their world rank, so the unit test can use
 * these functions alone.
 *
 * Membership tests go through a lookup from world rank to group rank built
 * once per operation, so every operation is linear (or n log n for sparse
 * groups) in the sizes of its groups, never quadratic.
 */
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/group.h"
#include "core/group_ops.h"
#include "core/handle.h"

struct rdmpi_group rdmpi_group_empty = {
    .refcount = 1,
    .predefined = 1,
    .size = 0,
    .my_rank = MPI_UNDEFINED,
    .ranks = NULL,
};

/* MPI_GROUP_EMPTY is a valid handle for as long as the library is loaded. */
__attribute__((constructor)) static void group_predefine(void)
{
    const void *empty = MPI_GROUP_EMPTY;
    core_handle_predefine(&core_handles.group, &empty, 1);
}

/* Allocates a group of n members (n > 0) for the caller to fill. */
static struct rdmpi_group *group_alloc(int n)
{
    struct rdmpi_group *g = core_handle_alloc(&core_handles.group, sizeof(*g));
    if (!g)
        return NULL;
    g->ranks = malloc((size_t)n * sizeof(int));
    if (!g->ranks) {
        core_handle_free(&core_handles.group, g);
        return NULL;
    }
    g->refcount = 1;
    g->predefined = 0;
    g->size = n;
    g->my_rank = MPI_UNDEFINED;
    return g;
}

static void group_set_my_rank(struct rdmpi_group *g, int my_world)
{
    for (int i = 0; i < g->size; i++) {
        if (g->ranks[i] == my_world) {
            g->my_rank = i;
            return;
        }
    }
}

int core_group_create(int n, const int *world_ranks, int my_world, MPI_Group *out)
{
    if (n < 0)
        return CORE_EINVAL;
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return 0;
    }
    struct rdmpi_group *g = group_alloc(n);
    if (!g)
        return CORE_ENOMEM;
    memcpy(g->ranks, world_ranks, (size_t)n * sizeof(int));
    group_set_my_rank(g, my_world);
    *out = g;
    return 0;
}

void core_group_retain(MPI_Group g)
{
    if (g && !g->predefined)
        core_ref_get(&g->refcount);
}

void core_group_release(MPI_Group g)
{
    if (!g || g->predefined)
        return;
    if (core_ref_put(&g->refcount) == 0) {
        free(g->ranks);
        core_handle_free(&core_handles.group, g);
    }
}

int core_group_rank_of(MPI_Group g, int world_rank)
{
    /* Fast path for groups that start like MPI_COMM_WORLD's. */
    if (world_rank >= 0 && world_rank < g->size && g->ranks[world_rank] == world_rank)
        return world_rank;
    for (int i = 0; i < g->size; i++) {
        if (g->ranks[i] == world_rank)
            return i;
    }
    return MPI_UNDEFINED;
}

/* ---- Lookup from world rank to group rank -------------------------------- */

/*
 * Dense groups (most of them: world, halves, node groups) use a table indexed
 * by world rank. A group whose largest world rank dwarfs its size uses a
 * sorted array and binary search instead, so a small group in a huge job does
 * not cost a world-sized table.
 */
typedef struct wpair {
    int world, rank;
} wpair_t;

typedef struct wmap {
    int *table;       /* dense: table[w] = rank + 1, 0 for non-members */
    int table_len;
    wpair_t *sorted;  /* sparse: members by world rank */
    int n;
} wmap_t;

static int cmp_world(const void *x, const void *y)
{
    const wpair_t *a = x, *b = y;
    return (a->world > b->world) - (a->world < b->world);
}

static int wmap_build(wmap_t *m, MPI_Group g)
{
    memset(m, 0, sizeof(*m));
    m->n = g->size;
    if (g->size == 0)
        return 0;
    int maxw = 0;
    for (int i = 0; i < g->size; i++) {
        if (g->ranks[i] > maxw)
            maxw = g->ranks[i];
    }
    if ((long long)maxw < 4LL * g->size + 4096) {
        m->table = calloc((size_t)maxw + 1, sizeof(int));
        if (!m->table)
            return CORE_ENOMEM;
        m->table_len = maxw + 1;
        for (int i = 0; i < g->size; i++)
            m->table[g->ranks[i]] = i + 1;
        return 0;
    }
    m->sorted = malloc((size_t)g->size * sizeof(wpair_t));
    if (!m->sorted)
        return CORE_ENOMEM;
    for (int i = 0; i < g->size; i++)
        m->sorted[i] = (wpair_t){ g->ranks[i], i };
    qsort(m->sorted, (size_t)g->size, sizeof(wpair_t), cmp_world);
    return 0;
}

/* Rank of world rank w in the mapped group, or MPI_UNDEFINED. */
static int wmap_find(const wmap_t *m, int w)
{
    if (m->table) {
        if (w >= 0 && w < m->table_len && m->table[w])
            return m->table[w] - 1;
        return MPI_UNDEFINED;
    }
    if (m->sorted) {
        wpair_t key = { w, 0 };
        const wpair_t *p = bsearch(&key, m->sorted, (size_t)m->n, sizeof(wpair_t), cmp_world);
        return p ? p->rank : MPI_UNDEFINED;
    }
    return MPI_UNDEFINED;
}

static void wmap_free(wmap_t *m)
{
    free(m->table);
    free(m->sorted);
}

/* ---- Subsets by rank ----------------------------------------------------- */

/* Checks n ranks of a group of the given size: in range and distinct. mark
 * has size entries, all zero; it ends with the listed ranks set. */
static int check_ranks(int size, int n, const int *ranks, char *mark, int *bad)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= size || mark[r]) {
            if (bad)
                *bad = i;
            return CORE_ERANK;
        }
        mark[r] = 1;
    }
    return 0;
}

/* The group of g's members at the n (valid, distinct) ranks. */
static int build_incl(MPI_Group g, int n, const int *ranks, int my_world, MPI_Group *out)
{
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return 0;
    }
    struct rdmpi_group *ng = group_alloc(n);
    if (!ng)
        return CORE_ENOMEM;
    for (int i = 0; i < n; i++)
        ng->ranks[i] = g->ranks[ranks[i]];
    group_set_my_rank(ng, my_world);
    *out = ng;
    return 0;
}

/* The group of g's members whose mark is 0 (nmarked of them are set). */
static int build_unmarked(MPI_Group g, const char *mark, int nmarked, int my_world,
                          MPI_Group *out)
{
    int n = g->size - nmarked;
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return 0;
    }
    struct rdmpi_group *ng = group_alloc(n);
    if (!ng)
        return CORE_ENOMEM;
    int k = 0;
    for (int i = 0; i < g->size; i++) {
        if (!mark[i])
            ng->ranks[k++] = g->ranks[i];
    }
    group_set_my_rank(ng, my_world);
    *out = ng;
    return 0;
}

int core_group_incl(MPI_Group g, int n, const int *ranks, int my_world, MPI_Group *out,
                    int *bad)
{
    if (n < 0)
        return CORE_EINVAL;
    char *mark = calloc((size_t)g->size + 1, 1);
    if (!mark)
        return CORE_ENOMEM;
    int rc = check_ranks(g->size, n, ranks, mark, bad);
    if (rc == 0)
        rc = build_incl(g, n, ranks, my_world, out);
    free(mark);
    return rc;
}

int core_group_excl(MPI_Group g, int n, const int *ranks, int my_world, MPI_Group *out,
                    int *bad)
{
    if (n < 0)
        return CORE_EINVAL;
    char *mark = calloc((size_t)g->size + 1, 1);
    if (!mark)
        return CORE_ENOMEM;
    int rc = check_ranks(g->size, n, ranks, mark, bad);
    if (rc == 0)
        rc = build_unmarked(g, mark, n, my_world, out);
    free(mark);
    return rc;
}

/* ---- Subsets by range ---------------------------------------------------- */

/* Checks one triplet and returns how many ranks it names, or a CORE_* code. */
static int range_count(int size, const int r[3])
{
    int first = r[0], last = r[1], stride = r[2];
    if (first < 0 || first >= size || last < 0 || last >= size)
        return CORE_ERANK;
    if (stride == 0)
        return CORE_EINVAL;
    int steps = (last - first) / stride;   /* |last - first| < size: no overflow */
    if (steps < 0)
        return CORE_EINVAL;                /* the stride leads away from last */
    return steps + 1;
}

int core_group_expand_ranges(MPI_Group g, int n, int ranges[][3], int **ranks_out,
                             int *count_out, int *bad)
{
    if (n < 0)
        return CORE_EINVAL;
    /* Distinct ranks number at most size, so a list longer than that has
     * already hit a duplicate before it would overflow the array. */
    int *list = malloc(((size_t)g->size + 1) * sizeof(int));
    char *mark = calloc((size_t)g->size + 1, 1);
    int rc = 0, count = 0;
    if (!list || !mark) {
        rc = CORE_ENOMEM;
        goto out;
    }
    for (int t = 0; t < n; t++) {
        int cnt = range_count(g->size, ranges[t]);
        if (cnt < 0) {
            rc = cnt;
            if (bad)
                *bad = t;
            goto out;
        }
        for (int k = 0; k < cnt; k++) {
            int r = (int)(ranges[t][0] + (long long)k * ranges[t][2]);
            if (mark[r]) {
                rc = CORE_ERANK;
                if (bad)
                    *bad = t;
                goto out;
            }
            mark[r] = 1;
            list[count++] = r;
        }
    }
out:
    free(mark);
    if (rc != 0 || count == 0) {
        free(list);
        list = NULL;
    }
    if (rc == 0) {
        *ranks_out = list;
        *count_out = count;
    }
    return rc;
}

int core_group_range_incl(MPI_Group g, int n, int ranges[][3], int my_world, MPI_Group *out,
                          int *bad)
{
    int *list, count;
    int rc = core_group_expand_ranges(g, n, ranges, &list, &count, bad);
    if (rc != 0)
        return rc;
    rc = build_incl(g, count, list, my_world, out);
    free(list);
    return rc;
}

int core_group_range_excl(MPI_Group g, int n, int ranges[][3], int my_world, MPI_Group *out,
                          int *bad)
{
    int *list, count;
    int rc = core_group_expand_ranges(g, n, ranges, &list, &count, bad);
    if (rc != 0)
        return rc;
    char *mark = calloc((size_t)g->size + 1, 1);
    if (!mark) {
        free(list);
        return CORE_ENOMEM;
    }
    for (int i = 0; i < count; i++)
        mark[list[i]] = 1;
    rc = build_unmarked(g, mark, count, my_world, out);
    free(mark);
    free(list);
    return rc;
}

/* ---- Set operations ------------------------------------------------------ */

/*
 * The group of: all of prefix (may be NULL), then the members of src, in
 * src's order, whose membership in ref equals keep_members. Union, intersection
 * and difference are all of this shape.
 */
static int set_op(MPI_Group prefix, MPI_Group src, MPI_Group ref, int keep_members,
                  int my_world, MPI_Group *out)
{
    wmap_t m;
    int rc = wmap_build(&m, ref);
    if (rc != 0)
        return rc;
    int npre = prefix ? prefix->size : 0, n = npre;
    for (int i = 0; i < src->size; i++) {
        int member = wmap_find(&m, src->ranks[i]) != MPI_UNDEFINED;
        n += member == keep_members;
    }
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        goto out;
    }
    struct rdmpi_group *ng = group_alloc(n);
    if (!ng) {
        rc = CORE_ENOMEM;
        goto out;
    }
    if (npre)
        memcpy(ng->ranks, prefix->ranks, (size_t)npre * sizeof(int));
    int k = npre;
    for (int i = 0; i < src->size; i++) {
        int member = wmap_find(&m, src->ranks[i]) != MPI_UNDEFINED;
        if (member == keep_members)
            ng->ranks[k++] = src->ranks[i];
    }
    group_set_my_rank(ng, my_world);
    *out = ng;
out:
    wmap_free(&m);
    return rc;
}

int core_group_union(MPI_Group a, MPI_Group b, int my_world, MPI_Group *out)
{
    return set_op(a, b, a, 0, my_world, out);
}

int core_group_intersection(MPI_Group a, MPI_Group b, int my_world, MPI_Group *out)
{
    return set_op(NULL, a, b, 1, my_world, out);
}

int core_group_difference(MPI_Group a, MPI_Group b, int my_world, MPI_Group *out)
{
    return set_op(NULL, a, b, 0, my_world, out);
}

int core_group_compare(MPI_Group a, MPI_Group b)
{
    if (a == b)
        return MPI_IDENT;
    if (a->size != b->size)
        return MPI_UNEQUAL;
    if (a->size == 0 || memcmp(a->ranks, b->ranks, (size_t)a->size * sizeof(int)) == 0)
        return MPI_IDENT;
    wmap_t m;
    int rc = wmap_build(&m, a);
    if (rc != 0)
        return rc;
    /* Equal sizes and distinct members: b inside a means the same set. */
    int result = MPI_SIMILAR;
    for (int i = 0; i < b->size; i++) {
        if (wmap_find(&m, b->ranks[i]) == MPI_UNDEFINED) {
            result = MPI_UNEQUAL;
            break;
        }
    }
    wmap_free(&m);
    return result;
}

int core_group_translate(MPI_Group a, int n, const int *ranks1, MPI_Group b, int *ranks2,
                         int *bad)
{
    if (n < 0)
        return CORE_EINVAL;
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        if (r != MPI_PROC_NULL && (r < 0 || r >= a->size)) {
            if (bad)
                *bad = i;
            return CORE_ERANK;
        }
    }
    if (n == 0)
        return 0;
    wmap_t m;
    int rc = wmap_build(&m, b);
    if (rc != 0)
        return rc;
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        ranks2[i] = r == MPI_PROC_NULL ? MPI_PROC_NULL : wmap_find(&m, a->ranks[r]);
    }
    wmap_free(&m);
    return 0;
}
