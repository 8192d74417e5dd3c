/*
 * Unit test of the interval tree (core/itree.h): random inserts, removals
 * and overlap queries checked against a brute-force scan of the same
 * ranges, with the tree's invariants (order, AVL balance, heights, max_end,
 * count) checked after every change; ranges sharing a start, nested ranges,
 * queries at the edges, the early stop of a visit, and a sorted insertion
 * order (the worst case for an unbalanced tree) checked for depth.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/itree.h"

static int failures;
#define CHECK(name, cond)                                                                  \
    do {                                                                                   \
        if (cond)                                                                          \
            printf("PASS: unit/itree/%s\n", name);                                         \
        else {                                                                             \
            printf("FAIL: unit/itree/%s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond);  \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

#define N 2000

typedef struct item {
    core_itree_node_t node;
    int in;           /* in the tree */
    int seen;         /* visited by the current query */
} item_t;

static item_t items[N];

/* A small deterministic generator (the test must be reproducible). */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct query {
    uintptr_t s, e, last_start;
    int count, order_ok, false_hit, stop_after;
} query_t;

static int on_node(core_itree_node_t *n, void *arg)
{
    query_t *q = arg;
    item_t *it = core_itree_elem(n, item_t, node);
    if (!(n->start < q->e && n->end > q->s) || !it->in || it->seen)
        q->false_hit = 1;
    if (n->start < q->last_start)
        q->order_ok = 0;
    q->last_start = n->start;
    it->seen = 1;
    q->count++;
    return q->stop_after && q->count == q->stop_after ? 7 : 0;
}

/* The tree's answer for [s, e) against a scan of every item; 0 when equal. */
static int query_matches(core_itree_t *t, uintptr_t s, uintptr_t e)
{
    query_t q = { s, e, 0, 0, 1, 0, 0 };
    for (int i = 0; i < N; i++)
        items[i].seen = 0;
    if (core_itree_overlaps(t, s, e, on_node, &q) != 0)
        return -1;
    if (!q.order_ok || q.false_hit)
        return -1;
    int want = 0;
    for (int i = 0; i < N; i++) {
        int overlap = items[i].in && items[i].node.start < e && items[i].node.end > s && s < e;
        want += overlap;
        if (overlap && !items[i].seen)
            return -1;
    }
    return want == q.count ? 0 : -1;
}

static int depth(const core_itree_node_t *n)
{
    if (!n)
        return 0;
    int l = depth(n->left), r = depth(n->right);
    return (l > r ? l : r) + 1;
}

static void test_random(void)
{
    core_itree_t t;
    core_itree_init(&t);
    int bad_invariant = 0, bad_query = 0, ops = 0, queries = 0;
    /* Addresses in a small space so that ranges overlap, nest and share starts often. */
    for (int round = 0; round < 20000; round++) {
        int i = (int)(next() % N);
        unsigned op = (unsigned)(next() % 4);
        if (op < 2 && !items[i].in) {
            uintptr_t s = (uintptr_t)(next() % 100000) * 16;
            uintptr_t len = (uintptr_t)(1 + next() % (next() % 8 == 0 ? 50000 : 500)) * 16;
            items[i].node.start = s;
            items[i].node.end = s + len;
            core_itree_insert(&t, &items[i].node);
            items[i].in = 1;
            ops++;
        } else if (op == 2 && items[i].in) {
            core_itree_remove(&t, &items[i].node);
            items[i].in = 0;
            ops++;
        } else {
            uintptr_t s = (uintptr_t)(next() % 101000) * 16;
            uintptr_t e = s + (uintptr_t)(next() % 2000) * 16; /* may be empty */
            if (query_matches(&t, s, e) != 0)
                bad_query++;
            queries++;
            continue;
        }
        if (core_itree_check(&t) != 0)
            bad_invariant++;
    }
    printf("# %d inserts/removes, %d queries, %zu ranges at the end\n", ops, queries, t.n);
    CHECK("random_invariants", bad_invariant == 0);
    CHECK("random_queries_match_scan", bad_query == 0 && queries > 1000);
    /* Everything out again, in index order (not tree order). */
    for (int i = 0; i < N; i++)
        if (items[i].in) {
            core_itree_remove(&t, &items[i].node);
            items[i].in = 0;
        }
    CHECK("emptied", t.root == NULL && t.n == 0 && core_itree_check(&t) == 0);
}

static void test_edges(void)
{
    core_itree_t t;
    core_itree_init(&t);
    memset(items, 0, sizeof(items));
    /* [100, 200), [100, 150), [150, 300), [300, 400), [0, 1000) */
    static const uintptr_t r[][2] = { { 100, 200 }, { 100, 150 }, { 150, 300 }, { 300, 400 },
                                      { 0, 1000 } };
    for (int i = 0; i < 5; i++) {
        items[i].node.start = r[i][0];
        items[i].node.end = r[i][1];
        core_itree_insert(&t, &items[i].node);
        items[i].in = 1;
    }
    CHECK("edges_invariants", core_itree_check(&t) == 0);
    /* Half-open: a query ending where a range starts does not overlap it. */
    CHECK("edges_touching_end", query_matches(&t, 0, 100) == 0);
    CHECK("edges_touching_start", query_matches(&t, 400, 500) == 0);
    CHECK("edges_point", query_matches(&t, 150, 151) == 0);
    CHECK("edges_all", query_matches(&t, 0, UINTPTR_MAX) == 0);
    CHECK("edges_empty_query", query_matches(&t, 200, 200) == 0);
    /* A visit stops at the first non-zero return and passes it on. */
    query_t q = { 0, 1000, 0, 0, 1, 0, 2 };
    for (int i = 0; i < N; i++)
        items[i].seen = 0;
    int rc = core_itree_overlaps(&t, 0, 1000, on_node, &q);
    CHECK("visit_stops", rc == 7 && q.count == 2);
    /* Removing one of two ranges with the same start removes exactly that one. */
    core_itree_remove(&t, &items[1].node);
    items[1].in = 0;
    CHECK("same_start_remove", core_itree_check(&t) == 0 && t.n == 4 &&
                                   query_matches(&t, 100, 101) == 0);
    for (int i = 0; i < 5; i++)
        if (items[i].in)
            core_itree_remove(&t, &items[i].node);
    CHECK("edges_emptied", t.n == 0 && t.root == NULL);
}

static void test_sorted_depth(void)
{
    core_itree_t t;
    core_itree_init(&t);
    memset(items, 0, sizeof(items));
    for (int i = 0; i < N; i++) {
        items[i].node.start = (uintptr_t)i * 4096;
        items[i].node.end = (uintptr_t)i * 4096 + 4096;
        core_itree_insert(&t, &items[i].node);
        items[i].in = 1;
    }
    /* AVL: depth <= 1.44 log2(n + 2); for 2000 nodes that is 15. */
    int d = depth(t.root);
    printf("# %d ranges inserted in order: depth %d\n", N, d);
    CHECK("sorted_insert_balanced", core_itree_check(&t) == 0 && d <= 15);
    CHECK("sorted_query", query_matches(&t, 4096 * 1000 + 1, 4096 * 1003) == 0);
    for (int i = N - 1; i >= 0; i -= 2) {
        core_itree_remove(&t, &items[i].node);
        items[i].in = 0;
    }
    CHECK("sorted_half_removed", core_itree_check(&t) == 0 && t.n == N / 2 &&
                                     query_matches(&t, 0, 4096 * 20) == 0);
}

int main(void)
{
    test_random();
    test_edges();
    test_sorted_depth();
    return failures ? 1 : 0;
}
