/*
 * Unit test of src/core/group.c: building groups, subsets by rank list and
 * range (with their error cases), union/intersection/difference order rules,
 * compare, translate, and a randomized cross-check of the set algebra against
 * a naive reference on both the dense and the sparse lookup paths.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/group.h"
#include "core/group_ops.h"

static int failures;

static void report(const char *name, int ok, const char *fmt, ...)
{
    if (ok) {
        printf("PASS: unit/group/%s\n", name);
        return;
    }
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    printf("FAIL: unit/group/%s %s\n", name, detail);
    failures++;
}

/* A group of the given world ranks; my_world is the caller's world rank. */
static MPI_Group mk(int my_world, int n, const int *ranks)
{
    MPI_Group g = MPI_GROUP_NULL;
    if (core_group_create(n, ranks, my_world, &g) != 0) {
        fprintf(stderr, "core_group_create failed\n");
        exit(2);
    }
    return g;
}

/* Checks g against an expected member list and my_rank; writes a reason on mismatch. */
static int same(MPI_Group g, int n, const int *exp, int my_rank, char *why, size_t whylen)
{
    if (!g) {
        snprintf(why, whylen, "group is NULL");
        return 0;
    }
    if (n == 0 && g != MPI_GROUP_EMPTY) {
        snprintf(why, whylen, "empty result is not MPI_GROUP_EMPTY (size %d)", g->size);
        return 0;
    }
    if (g->size != n) {
        snprintf(why, whylen, "size %d, expected %d", g->size, n);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (g->ranks[i] != exp[i]) {
            snprintf(why, whylen, "member %d is world %d, expected %d", i, g->ranks[i], exp[i]);
            return 0;
        }
    }
    if (g->my_rank != my_rank) {
        snprintf(why, whylen, "my_rank %d, expected %d", g->my_rank, my_rank);
        return 0;
    }
    return 1;
}

#define CHECK_GROUP(name, g, my_rank, ...)                                       \
    do {                                                                         \
        const int exp_[] = { __VA_ARGS__ };                                      \
        char why_[256] = "";                                                     \
        int ok_ = same((g), (int)(sizeof(exp_) / sizeof(int)), exp_, (my_rank), \
                       why_, sizeof(why_));                                      \
        report((name), ok_, "%s", why_);                                         \
    } while (0)

#define CHECK_EMPTY(name, g)                                                                 \
    report((name), (g) == MPI_GROUP_EMPTY, "expected MPI_GROUP_EMPTY, got size %d",         \
           (g) ? (g)->size : -1)

static void test_create(void)
{
    const int w[] = { 4, 9, 2, 7 };
    MPI_Group g = mk(2, 4, w);
    CHECK_GROUP("create", g, 2, 4, 9, 2, 7);
    report("rank_of", core_group_rank_of(g, 7) == 3 && core_group_rank_of(g, 4) == 0 &&
                          core_group_rank_of(g, 5) == MPI_UNDEFINED &&
                          core_group_rank_of(g, 2) == 2,
           "wrong rank_of");
    MPI_Group h = mk(5, 4, w);
    report("create_not_member", h->my_rank == MPI_UNDEFINED, "my_rank %d", h->my_rank);

    core_group_retain(g);
    core_group_release(g);
    report("retain_release", g->refcount == 1, "refcount %d", g->refcount);
    core_group_release(g);
    core_group_release(h);

    MPI_Group e = MPI_GROUP_NULL;
    int rc = core_group_create(0, NULL, 0, &e);
    report("create_empty", rc == 0 && e == MPI_GROUP_EMPTY && e->size == 0 &&
                               e->my_rank == MPI_UNDEFINED && e->predefined,
           "rc %d", rc);
    core_group_retain(e);
    core_group_release(e);
    core_group_release(e);
    report("empty_survives_release", rdmpi_group_empty.size == 0 && rdmpi_group_empty.predefined,
           "predefined empty group changed");
    rc = core_group_create(-1, NULL, 0, &e);
    report("create_negative", rc == CORE_EINVAL, "rc %d", rc);
}

static void test_incl_excl(void)
{
    const int w[] = { 10, 11, 12, 13, 14, 15, 16, 17 };
    MPI_Group g = mk(13, 8, w), r = MPI_GROUP_NULL;
    int bad = -1, rc;

    rc = core_group_incl(g, 3, (const int[]){ 5, 1, 3 }, 13, &r, &bad);
    report("incl_rc", rc == 0, "rc %d", rc);
    CHECK_GROUP("incl_order", r, 2, 15, 11, 13);
    core_group_release(r);

    rc = core_group_incl(g, 0, NULL, 13, &r, &bad);
    report("incl_zero_rc", rc == 0, "rc %d", rc);
    CHECK_EMPTY("incl_zero", r);

    r = MPI_GROUP_NULL;
    rc = core_group_incl(g, 3, (const int[]){ 0, 8, 1 }, 13, &r, &bad);
    report("incl_out_of_range", rc == CORE_ERANK && bad == 1 && r == MPI_GROUP_NULL,
           "rc %d bad %d", rc, bad);
    rc = core_group_incl(g, 2, (const int[]){ -1, 1 }, 13, &r, &bad);
    report("incl_negative_rank", rc == CORE_ERANK && bad == 0, "rc %d bad %d", rc, bad);
    rc = core_group_incl(g, 4, (const int[]){ 2, 4, 6, 4 }, 13, &r, &bad);
    report("incl_duplicate", rc == CORE_ERANK && bad == 3 && r == MPI_GROUP_NULL,
           "rc %d bad %d", rc, bad);
    rc = core_group_incl(g, -1, NULL, 13, &r, &bad);
    report("incl_negative_n", rc == CORE_EINVAL, "rc %d", rc);

    rc = core_group_excl(g, 3, (const int[]){ 7, 0, 3 }, 14, &r, &bad);
    report("excl_rc", rc == 0, "rc %d", rc);
    CHECK_GROUP("excl_order", r, 2, 11, 12, 14, 15, 16);
    core_group_release(r);

    rc = core_group_excl(g, 0, NULL, 14, &r, &bad);
    CHECK_GROUP("excl_none", r, 4, 10, 11, 12, 13, 14, 15, 16, 17);
    report("excl_none_new_object", rc == 0 && r != g, "rc %d", rc);
    core_group_release(r);

    rc = core_group_excl(g, 8, (const int[]){ 7, 6, 5, 4, 3, 2, 1, 0 }, 14, &r, &bad);
    report("excl_all_rc", rc == 0, "rc %d", rc);
    CHECK_EMPTY("excl_all", r);

    r = MPI_GROUP_NULL;
    rc = core_group_excl(g, 3, (const int[]){ 1, 2, 1 }, 14, &r, &bad);
    report("excl_duplicate", rc == CORE_ERANK && bad == 2 && r == MPI_GROUP_NULL,
           "rc %d bad %d", rc, bad);
    rc = core_group_excl(g, 1, (const int[]){ 8 }, 14, &r, &bad);
    report("excl_out_of_range", rc == CORE_ERANK && bad == 0, "rc %d bad %d", rc, bad);

    rc = core_group_incl(MPI_GROUP_EMPTY, 1, (const int[]){ 0 }, 0, &r, &bad);
    report("incl_from_empty", rc == CORE_ERANK, "rc %d", rc);
    rc = core_group_excl(MPI_GROUP_EMPTY, 0, NULL, 0, &r, &bad);
    report("excl_from_empty", rc == 0 && r == MPI_GROUP_EMPTY, "rc %d", rc);
    core_group_release(g);
}

static void test_ranges(void)
{
    const int w[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    MPI_Group g = mk(6, 10, w), r = MPI_GROUP_NULL;
    int bad = -1, rc;

    rc = core_group_range_incl(g, 1, (int[][3]){ { 0, 9, 3 } }, 6, &r, &bad);
    report("range_incl_rc", rc == 0, "rc %d", rc);
    CHECK_GROUP("range_incl_stride", r, 2, 0, 3, 6, 9);
    core_group_release(r);

    rc = core_group_range_incl(g, 1, (int[][3]){ { 9, 0, -4 } }, 6, &r, &bad);
    CHECK_GROUP("range_incl_negative_stride", r, MPI_UNDEFINED, 9, 5, 1);
    core_group_release(r);

    rc = core_group_range_incl(g, 1, (int[][3]){ { 8, 9, 5 } }, 6, &r, &bad);
    CHECK_GROUP("range_incl_stride_past_last", r, MPI_UNDEFINED, 8);
    core_group_release(r);

    rc = core_group_range_incl(g, 2, (int[][3]){ { 2, 2, 5 }, { 3, 3, INT_MAX } }, 6, &r, &bad);
    CHECK_GROUP("range_incl_single", r, MPI_UNDEFINED, 2, 3);
    core_group_release(r);

    rc = core_group_range_incl(g, 2, (int[][3]){ { 0, 4, 2 }, { 7, 5, -1 } }, 6, &r, &bad);
    CHECK_GROUP("range_incl_two", r, 4, 0, 2, 4, 7, 6, 5);
    core_group_release(r);

    rc = core_group_range_incl(g, 0, NULL, 6, &r, &bad);
    report("range_incl_zero", rc == 0 && r == MPI_GROUP_EMPTY, "rc %d", rc);

    r = MPI_GROUP_NULL;
    rc = core_group_range_incl(g, 2, (int[][3]){ { 0, 1, 1 }, { 0, 4, 0 } }, 6, &r, &bad);
    report("range_stride_zero", rc == CORE_EINVAL && bad == 1 && r == MPI_GROUP_NULL,
           "rc %d bad %d", rc, bad);
    rc = core_group_range_incl(g, 1, (int[][3]){ { 5, 2, 1 } }, 6, &r, &bad);
    report("range_wrong_direction", rc == CORE_EINVAL && bad == 0, "rc %d bad %d", rc, bad);
    rc = core_group_range_incl(g, 1, (int[][3]){ { 2, 5, -1 } }, 6, &r, &bad);
    report("range_wrong_direction_neg", rc == CORE_EINVAL && bad == 0, "rc %d bad %d", rc, bad);
    rc = core_group_range_incl(g, 2, (int[][3]){ { 0, 1, 1 }, { 0, 10, 1 } }, 6, &r, &bad);
    report("range_last_out", rc == CORE_ERANK && bad == 1, "rc %d bad %d", rc, bad);
    rc = core_group_range_incl(g, 1, (int[][3]){ { -1, 3, 1 } }, 6, &r, &bad);
    report("range_first_out", rc == CORE_ERANK && bad == 0, "rc %d bad %d", rc, bad);
    rc = core_group_range_incl(g, 2, (int[][3]){ { 0, 4, 2 }, { 4, 6, 1 } }, 6, &r, &bad);
    report("range_overlap", rc == CORE_ERANK && bad == 1 && r == MPI_GROUP_NULL,
           "rc %d bad %d", rc, bad);
    /* Many overlapping triplets: far more named ranks than members. */
    int many[40][3];
    for (int i = 0; i < 40; i++)
        many[i][0] = 0, many[i][1] = 9, many[i][2] = 1;
    rc = core_group_range_incl(g, 40, many, 6, &r, &bad);
    report("range_overlap_many", rc == CORE_ERANK && bad == 1, "rc %d bad %d", rc, bad);

    rc = core_group_range_excl(g, 1, (int[][3]){ { 0, 9, 3 } }, 6, &r, &bad);
    report("range_excl_rc", rc == 0, "rc %d", rc);
    CHECK_GROUP("range_excl", r, MPI_UNDEFINED, 1, 2, 4, 5, 7, 8);
    core_group_release(r);
    rc = core_group_range_excl(g, 2, (int[][3]){ { 9, 5, -1 }, { 0, 4, 1 } }, 6, &r, &bad);
    report("range_excl_all", rc == 0 && r == MPI_GROUP_EMPTY, "rc %d", rc);
    r = MPI_GROUP_NULL;
    rc = core_group_range_excl(g, 2, (int[][3]){ { 1, 3, 1 }, { 3, 1, -2 } }, 6, &r, &bad);
    report("range_excl_overlap", rc == CORE_ERANK && bad == 1 && r == MPI_GROUP_NULL,
           "rc %d bad %d", rc, bad);

    int *list = NULL, count = -1;
    rc = core_group_expand_ranges(g, 1, (int[][3]){ { 1, 7, 3 } }, &list, &count, &bad);
    report("expand_ranges", rc == 0 && count == 3 && list && list[0] == 1 && list[1] == 4 &&
                                list[2] == 7,
           "rc %d count %d", rc, count);
    free(list);
    rc = core_group_range_incl(MPI_GROUP_EMPTY, 1, (int[][3]){ { 0, 0, 1 } }, 0, &r, &bad);
    report("range_from_empty", rc == CORE_ERANK, "rc %d", rc);
    core_group_release(g);
}

static void test_set_ops(void)
{
    MPI_Group a = mk(3, 4, (const int[]){ 1, 3, 5, 7 });
    MPI_Group b = mk(3, 4, (const int[]){ 7, 2, 3, 0 });
    MPI_Group c = mk(3, 2, (const int[]){ 4, 6 });
    MPI_Group r;

    core_group_union(a, b, 3, &r);
    CHECK_GROUP("union_order", r, 1, 1, 3, 5, 7, 2, 0);
    core_group_release(r);
    core_group_union(b, a, 3, &r);
    CHECK_GROUP("union_order_swapped", r, 2, 7, 2, 3, 0, 1, 5);
    core_group_release(r);
    core_group_union(a, MPI_GROUP_EMPTY, 2, &r);
    CHECK_GROUP("union_with_empty", r, MPI_UNDEFINED, 1, 3, 5, 7);
    core_group_release(r);
    core_group_union(MPI_GROUP_EMPTY, b, 0, &r);
    CHECK_GROUP("union_empty_first", r, 3, 7, 2, 3, 0);
    core_group_release(r);
    core_group_union(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, 0, &r);
    CHECK_EMPTY("union_empty_empty", r);
    core_group_union(a, a, 5, &r);
    CHECK_GROUP("union_self", r, 2, 1, 3, 5, 7);
    core_group_release(r);

    core_group_intersection(a, b, 7, &r);
    CHECK_GROUP("intersection_order", r, 1, 3, 7);
    core_group_release(r);
    core_group_intersection(b, a, 7, &r);
    CHECK_GROUP("intersection_order_swapped", r, 0, 7, 3);
    core_group_release(r);
    core_group_intersection(a, c, 7, &r);
    CHECK_EMPTY("intersection_disjoint", r);
    core_group_intersection(a, MPI_GROUP_EMPTY, 7, &r);
    CHECK_EMPTY("intersection_empty", r);

    core_group_difference(a, b, 5, &r);
    CHECK_GROUP("difference_order", r, 1, 1, 5);
    core_group_release(r);
    core_group_difference(b, a, 0, &r);
    CHECK_GROUP("difference_order_swapped", r, 1, 2, 0);
    core_group_release(r);
    core_group_difference(a, a, 5, &r);
    CHECK_EMPTY("difference_self", r);
    core_group_difference(a, c, 5, &r);
    CHECK_GROUP("difference_disjoint", r, 2, 1, 3, 5, 7);
    core_group_release(r);
    core_group_difference(MPI_GROUP_EMPTY, a, 5, &r);
    CHECK_EMPTY("difference_of_empty", r);

    core_group_release(a);
    core_group_release(b);
    core_group_release(c);
}

static void test_compare_translate(void)
{
    MPI_Group a = mk(0, 4, (const int[]){ 1, 3, 5, 7 });
    MPI_Group a2 = mk(0, 4, (const int[]){ 1, 3, 5, 7 });
    MPI_Group p = mk(0, 4, (const int[]){ 7, 5, 3, 1 });
    MPI_Group d = mk(0, 4, (const int[]){ 1, 3, 5, 8 });
    MPI_Group s = mk(0, 3, (const int[]){ 1, 3, 5 });
    MPI_Group b = mk(0, 4, (const int[]){ 7, 2, 3, 0 });

    report("compare_same_handle", core_group_compare(a, a) == MPI_IDENT, "");
    report("compare_ident", core_group_compare(a, a2) == MPI_IDENT, "");
    report("compare_similar", core_group_compare(a, p) == MPI_SIMILAR, "");
    report("compare_unequal", core_group_compare(a, d) == MPI_UNEQUAL, "");
    report("compare_size", core_group_compare(a, s) == MPI_UNEQUAL, "");
    report("compare_empty", core_group_compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY) == MPI_IDENT, "");
    report("compare_empty_nonempty", core_group_compare(MPI_GROUP_EMPTY, a) == MPI_UNEQUAL, "");

    int r1[] = { 0, 1, 2, 3, MPI_PROC_NULL }, r2[5];
    int exp[] = { MPI_UNDEFINED, 2, MPI_UNDEFINED, 0, MPI_PROC_NULL };
    int bad = -1, rc = core_group_translate(a, 5, r1, b, r2, &bad);
    report("translate", rc == 0 && memcmp(r2, exp, sizeof(exp)) == 0,
           "rc %d got %d %d %d %d %d", rc, r2[0], r2[1], r2[2], r2[3], r2[4]);
    rc = core_group_translate(a, 4, r1, a, r2, &bad);
    report("translate_self", rc == 0 && r2[0] == 0 && r2[1] == 1 && r2[2] == 2 && r2[3] == 3,
           "rc %d", rc);
    rc = core_group_translate(a, 2, (const int[]){ 3, 0 }, MPI_GROUP_EMPTY, r2, &bad);
    report("translate_to_empty", rc == 0 && r2[0] == MPI_UNDEFINED && r2[1] == MPI_UNDEFINED,
           "rc %d", rc);
    int keep[2] = { 42, 42 };
    rc = core_group_translate(a, 2, (const int[]){ 1, 4 }, b, keep, &bad);
    report("translate_bad_rank", rc == CORE_ERANK && bad == 1 && keep[0] == 42,
           "rc %d bad %d", rc, bad);
    rc = core_group_translate(a, 1, (const int[]){ MPI_UNDEFINED }, b, keep, &bad);
    report("translate_undefined_rank", rc == CORE_ERANK && bad == 0, "rc %d", rc);
    rc = core_group_translate(a, 0, NULL, b, NULL, &bad);
    report("translate_zero", rc == 0, "rc %d", rc);

    MPI_Group groups[] = { a, a2, p, d, s, b };
    for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
        core_group_release(groups[i]);
}

/* ---- Randomized cross-check against a quadratic reference ---------------- */

static int ref_find(MPI_Group g, int w)
{
    for (int i = 0; i < g->size; i++) {
        if (g->ranks[i] == w)
            return i;
    }
    return MPI_UNDEFINED;
}

/* A random group of n distinct world ranks drawn from [0, world) (scaled by spread). */
static MPI_Group random_group(int world, int n, int spread, int my_world)
{
    int *perm = malloc((size_t)world * sizeof(int));
    for (int i = 0; i < world; i++)
        perm[i] = i;
    for (int i = world - 1; i > 0; i--) {
        int j = rand() % (i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < n; i++)
        perm[i] *= spread;
    MPI_Group g = mk(my_world, n, perm);
    free(perm);
    return g;
}

static int check_against_ref(MPI_Group a, MPI_Group b, int my_world, char *why, size_t len)
{
    int *exp = malloc(((size_t)a->size + b->size + 1) * sizeof(int));
    MPI_Group r;
    int n, ok = 1;

    n = 0;
    for (int i = 0; i < a->size; i++)
        exp[n++] = a->ranks[i];
    for (int i = 0; i < b->size; i++)
        if (ref_find(a, b->ranks[i]) == MPI_UNDEFINED)
            exp[n++] = b->ranks[i];
    core_group_union(a, b, my_world, &r);
    ok = ok && same(r, n, exp, n ? ref_find(r, my_world) : MPI_UNDEFINED, why, len);
    core_group_release(r);

    n = 0;
    for (int i = 0; i < a->size; i++)
        if (ref_find(b, a->ranks[i]) != MPI_UNDEFINED)
            exp[n++] = a->ranks[i];
    core_group_intersection(a, b, my_world, &r);
    ok = ok && same(r, n, exp, n ? ref_find(r, my_world) : MPI_UNDEFINED, why, len);
    core_group_release(r);

    n = 0;
    for (int i = 0; i < a->size; i++)
        if (ref_find(b, a->ranks[i]) == MPI_UNDEFINED)
            exp[n++] = a->ranks[i];
    core_group_difference(a, b, my_world, &r);
    ok = ok && same(r, n, exp, n ? ref_find(r, my_world) : MPI_UNDEFINED, why, len);
    core_group_release(r);

    int *r1 = malloc(((size_t)a->size + 1) * sizeof(int));
    int *r2 = malloc(((size_t)a->size + 1) * sizeof(int));
    for (int i = 0; i < a->size; i++)
        r1[i] = a->size - 1 - i;
    if (ok && core_group_translate(a, a->size, r1, b, r2, NULL) != 0) {
        snprintf(why, len, "translate failed");
        ok = 0;
    }
    for (int i = 0; ok && i < a->size; i++) {
        int e = ref_find(b, a->ranks[r1[i]]);
        if (r2[i] != e) {
            snprintf(why, len, "translate[%d] = %d, expected %d", i, r2[i], e);
            ok = 0;
        }
    }
    free(r1);
    free(r2);
    free(exp);
    return ok;
}

static void test_random(void)
{
    srand(12345);
    char why[256] = "";
    int ok = 1;
    for (int iter = 0; iter < 300 && ok; iter++) {
        int world = 1 + rand() % 64;
        /* spread > 1 makes world ranks sparse, exercising the sorted lookup */
        int spread = iter % 3 == 0 ? 100000 : 1;
        int my_world = (rand() % world) * spread;
        MPI_Group a = random_group(world, rand() % (world + 1), spread, my_world);
        MPI_Group b = random_group(world, rand() % (world + 1), spread, my_world);
        ok = check_against_ref(a, b, my_world, why, sizeof(why)) &&
             check_against_ref(b, a, my_world, why, sizeof(why));

        /* compare against a permuted copy of a */
        if (ok && a->size > 1) {
            int *perm = malloc((size_t)a->size * sizeof(int));
            for (int i = 0; i < a->size; i++)
                perm[i] = a->ranks[(i + 1) % a->size];
            MPI_Group p = mk(my_world, a->size, perm);
            if (core_group_compare(a, p) != MPI_SIMILAR) {
                snprintf(why, sizeof(why), "rotated copy not MPI_SIMILAR");
                ok = 0;
            }
            core_group_release(p);
            free(perm);
        }
        core_group_release(a);
        core_group_release(b);
    }
    report("random_vs_reference", ok, "%s", why);
}

/* Large groups: would take minutes if any operation were quadratic. */
static void test_large(void)
{
    enum { WORLD = 400000 };
    int *ev = malloc(WORLD / 2 * sizeof(int)), *m3 = malloc((WORLD / 3 + 1) * sizeof(int));
    int ne = 0, n3 = 0;
    for (int i = 0; i < WORLD; i += 2)
        ev[ne++] = i;
    for (int i = WORLD - 1; i >= 0; i--)
        if (i % 3 == 0)
            m3[n3++] = i;
    MPI_Group a = mk(6, ne, ev), b = mk(6, n3, m3), r;

    core_group_union(a, b, 6, &r);
    int expect_union = ne + (n3 - (WORLD + 5) / 6);
    int ok = r->size == expect_union && r->ranks[ne] == m3[0] && r->my_rank == 3;
    core_group_release(r);
    core_group_intersection(a, b, 6, &r);
    ok = ok && r->size == (WORLD + 5) / 6 && r->ranks[1] == 6 && r->my_rank == 1;
    core_group_release(r);
    core_group_difference(b, a, 6, &r);
    ok = ok && r->size == n3 - (WORLD + 5) / 6 && r->ranks[0] % 2 == 1;
    core_group_release(r);
    ok = ok && core_group_compare(a, b) == MPI_UNEQUAL;

    int *r2 = malloc((size_t)ne * sizeof(int));
    int *r1 = malloc((size_t)ne * sizeof(int));
    for (int i = 0; i < ne; i++)
        r1[i] = i;
    ok = ok && core_group_translate(a, ne, r1, b, r2, NULL) == 0;
    ok = ok && r2[0] == n3 - 1 && r2[1] == MPI_UNDEFINED && r2[3] == n3 - 3;
    report("large_groups", ok, "wrong result on %d-rank groups", WORLD);

    free(r1);
    free(r2);
    free(ev);
    free(m3);
    core_group_release(a);
    core_group_release(b);
}

int main(void)
{
    test_create();
    test_incl_excl();
    test_ranges();
    test_set_ops();
    test_compare_translate();
    test_random();
    test_large();
    if (failures)
        printf("unit/group: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
