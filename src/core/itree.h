/*
 * An intrusive interval tree: half-open address ranges [start, end) in an
 * AVL tree ordered by start, each node also holding the largest end in its
 * subtree, so that "which ranges overlap [s, e)" visits O(log n + k) nodes
 * instead of all n. Ranges may overlap and share a start.
 *
 * Nothing here allocates, frees or locks: nodes are embedded in the
 * caller's objects, and the tree is safe to use from a memory hook (inside
 * malloc or free) under the caller's own lock. The recursion is as deep as
 * the tree (at most 1.44 log2 n + 2 levels: 30 for a million ranges).
 */
#ifndef RDMPI_CORE_ITREE_H
#define RDMPI_CORE_ITREE_H

#include <stddef.h>
#include <stdint.h>

typedef struct core_itree_node {
    struct core_itree_node *left, *right;
    uintptr_t start, end;   /* set before insertion; must not change while in a tree */
    uintptr_t max_end;      /* largest end in this subtree */
    int height;             /* of this subtree: 1 for a leaf */
} core_itree_node_t;

typedef struct core_itree {
    core_itree_node_t *root;
    size_t n;
} core_itree_t;

/* The element of type `type` whose member `member` is the node `nd`. */
#define core_itree_elem(nd, type, member) ((type *)((char *)(nd) - offsetof(type, member)))

void core_itree_init(core_itree_t *t);
/* Adds n, whose start < end the caller has set. */
void core_itree_insert(core_itree_t *t, core_itree_node_t *n);
/* Takes n, which must be in t, out of t. */
void core_itree_remove(core_itree_t *t, core_itree_node_t *n);

/* Calls fn for each node overlapping [start, end) (node->start < end and
 * node->end > start), in order of start, until fn returns non-zero, which is
 * then returned (0 when every overlapping node was visited). fn must not
 * insert or remove nodes. */
typedef int (*core_itree_fn_t)(core_itree_node_t *n, void *arg);
int core_itree_overlaps(const core_itree_t *t, uintptr_t start, uintptr_t end, core_itree_fn_t fn,
                        void *arg);

/* Checks the tree's invariants (order, heights, balance, max_end, count);
 * returns 0 or -1. For tests. */
int core_itree_check(const core_itree_t *t);

#endif
