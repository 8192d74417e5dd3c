/*
 * The interval tree (itree.h): an AVL tree keyed by (start, node address),
 * the address making every key unique so that removal finds exactly the
 * node asked for among ranges with the same start. Each node's max_end is
 * recomputed from its children wherever the shape changes below it: on the
 * way back up from an insertion or removal, and in the rotations.
 *
 * Why AVL and not red-black: the removal needs no parent pointers when it
 * is recursive, which keeps the node small and the code short; the depth
 * bound (1.44 log2 n) makes the recursion safe in a memory hook.
 */
#include "core/itree.h"

static int height(const core_itree_node_t *n)
{
    return n ? n->height : 0;
}

/* Recomputes n's height and max_end from its children. */
static void update(core_itree_node_t *n)
{
    int hl = height(n->left), hr = height(n->right);
    n->height = (hl > hr ? hl : hr) + 1;
    uintptr_t m = n->end;
    if (n->left && n->left->max_end > m)
        m = n->left->max_end;
    if (n->right && n->right->max_end > m)
        m = n->right->max_end;
    n->max_end = m;
}

static core_itree_node_t *rotate_right(core_itree_node_t *n)
{
    core_itree_node_t *l = n->left;
    n->left = l->right;
    l->right = n;
    update(n);
    update(l);
    return l;
}

static core_itree_node_t *rotate_left(core_itree_node_t *n)
{
    core_itree_node_t *r = n->right;
    n->right = r->left;
    r->left = n;
    update(n);
    update(r);
    return r;
}

/* Restores the AVL balance at n, whose subtrees are balanced and differ in
 * height by at most 2; returns the subtree's new root. */
static core_itree_node_t *balance(core_itree_node_t *n)
{
    update(n);
    int bf = height(n->left) - height(n->right);
    if (bf > 1) {
        if (height(n->left->left) < height(n->left->right))
            n->left = rotate_left(n->left);
        return rotate_right(n);
    }
    if (bf < -1) {
        if (height(n->right->right) < height(n->right->left))
            n->right = rotate_right(n->right);
        return rotate_left(n);
    }
    return n;
}

static int before(const core_itree_node_t *a, const core_itree_node_t *b)
{
    if (a->start != b->start)
        return a->start < b->start;
    return (uintptr_t)a < (uintptr_t)b;
}

static core_itree_node_t *insert_at(core_itree_node_t *root, core_itree_node_t *n)
{
    if (!root)
        return n;
    if (before(n, root))
        root->left = insert_at(root->left, n);
    else
        root->right = insert_at(root->right, n);
    return balance(root);
}

/* Takes the leftmost node of root's subtree off into *min. */
static core_itree_node_t *remove_min(core_itree_node_t *root, core_itree_node_t **min)
{
    if (!root->left) {
        *min = root;
        return root->right;
    }
    root->left = remove_min(root->left, min);
    return balance(root);
}

static core_itree_node_t *remove_at(core_itree_node_t *root, core_itree_node_t *n, int *found)
{
    if (!root)
        return NULL; /* not in the tree: the caller broke the contract; change nothing */
    if (root == n) {
        *found = 1;
        if (!n->left)
            return n->right;
        if (!n->right)
            return n->left;
        core_itree_node_t *m;
        core_itree_node_t *right = remove_min(n->right, &m);
        m->left = n->left;
        m->right = right;
        return balance(m);
    }
    if (before(n, root))
        root->left = remove_at(root->left, n, found);
    else
        root->right = remove_at(root->right, n, found);
    return balance(root);
}

void core_itree_init(core_itree_t *t)
{
    t->root = NULL;
    t->n = 0;
}

void core_itree_insert(core_itree_t *t, core_itree_node_t *n)
{
    n->left = n->right = NULL;
    n->height = 1;
    n->max_end = n->end;
    t->root = insert_at(t->root, n);
    t->n++;
}

void core_itree_remove(core_itree_t *t, core_itree_node_t *n)
{
    int found = 0;
    t->root = remove_at(t->root, n, &found);
    if (found) {
        t->n--;
        n->left = n->right = NULL;
    }
}

static int visit(const core_itree_node_t *x, uintptr_t s, uintptr_t e, core_itree_fn_t fn,
                 void *arg)
{
    /* Left subtrees recursively, right ones in the loop: the left may hold
     * overlaps as long as its max_end passes s; nothing at or right of a
     * node starting at or after e can overlap. */
    while (x && x->max_end > s) {
        int r = visit(x->left, s, e, fn, arg);
        if (r)
            return r;
        if (x->start >= e)
            return 0;
        if (x->end > s && (r = fn((core_itree_node_t *)x, arg)) != 0)
            return r;
        x = x->right;
    }
    return 0;
}

int core_itree_overlaps(const core_itree_t *t, uintptr_t start, uintptr_t end, core_itree_fn_t fn,
                        void *arg)
{
    if (start >= end)
        return 0;
    return visit(t->root, start, end, fn, arg);
}

/* Returns the subtree's node count, or -1 when an invariant fails. */
static long check_at(const core_itree_node_t *n, const core_itree_node_t *lo,
                     const core_itree_node_t *hi)
{
    if (!n)
        return 0;
    if (n->start >= n->end || (lo && !before(lo, n)) || (hi && !before(n, hi)))
        return -1;
    long l = check_at(n->left, lo, n), r = check_at(n->right, n, hi);
    if (l < 0 || r < 0)
        return -1;
    int hl = height(n->left), hr = height(n->right);
    uintptr_t m = n->end;
    if (n->left && n->left->max_end > m)
        m = n->left->max_end;
    if (n->right && n->right->max_end > m)
        m = n->right->max_end;
    if (n->height != (hl > hr ? hl : hr) + 1 || hl - hr > 1 || hr - hl > 1 || n->max_end != m)
        return -1;
    return l + r + 1;
}

int core_itree_check(const core_itree_t *t)
{
    long n = check_at(t->root, NULL, NULL);
    return n >= 0 && (size_t)n == t->n ? 0 : -1;
}
