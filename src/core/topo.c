/*
 * Process topologies (see topo.h): building and freeing them, grid
 * coordinate arithmetic, and the balanced factorization of MPI_Dims_create.
 */
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "core/topo.h"
#include "mpi.h"

static int *dup_ints(const int *a, int n)
{
    int *p = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (p && n > 0 && a)
        memcpy(p, a, sizeof(int) * (size_t)n);
    return p;
}

void core_topo_free(core_topo_t *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->sources);
    free(t->dests);
    free(t->sweights);
    free(t->dweights);
    free(t->index);
    free(t->edges);
    free(t);
}

void core_cart_coords(const core_topo_t *t, int rank, int *coords)
{
    for (int d = t->ndims - 1; d >= 0; d--) {
        coords[d] = rank % t->dims[d];
        rank /= t->dims[d];
    }
}

int core_cart_rank(const core_topo_t *t, const int *coords, int *rank)
{
    int r = 0;
    for (int d = 0; d < t->ndims; d++) {
        int c = coords[d], n = t->dims[d];
        if (c < 0 || c >= n) {
            if (!t->periods[d])
                return CORE_ERANK;
            c = ((c % n) + n) % n;
        }
        r = r * n + c;
    }
    *rank = r;
    return 0;
}

void core_cart_shift(const core_topo_t *t, int rank, int dim, int disp, int *src, int *dst)
{
    int coords[t->ndims > 0 ? t->ndims : 1];
    core_cart_coords(t, rank, coords);
    int mine = coords[dim];
    coords[dim] = mine + disp;
    if (core_cart_rank(t, coords, dst))
        *dst = MPI_PROC_NULL;
    coords[dim] = mine - disp;
    if (core_cart_rank(t, coords, src))
        *src = MPI_PROC_NULL;
}

core_topo_t *core_topo_cart(int ndims, const int *dims, const int *periods, int rank)
{
    core_topo_t *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->kind = CORE_TOPO_CART;
    t->ndims = ndims;
    t->dims = dup_ints(dims, ndims);
    t->periods = malloc(sizeof(int) * (size_t)(ndims > 0 ? ndims : 1));
    t->indegree = t->outdegree = 2 * ndims;
    t->sources = malloc(sizeof(int) * (size_t)(2 * ndims + 1));
    t->dests = malloc(sizeof(int) * (size_t)(2 * ndims + 1));
    if (!t->dims || !t->periods || !t->sources || !t->dests) {
        core_topo_free(t);
        return NULL;
    }
    for (int d = 0; d < ndims; d++)
        t->periods[d] = periods[d] != 0;
    for (int d = 0; d < ndims; d++) {
        int down, up;
        core_cart_shift(t, rank, d, 1, &down, &up);
        t->sources[2 * d] = t->dests[2 * d] = down;
        t->sources[2 * d + 1] = t->dests[2 * d + 1] = up;
    }
    return t;
}

core_topo_t *core_topo_graph(int indegree, const int *sources, const int *sweights,
                             int outdegree, const int *dests, const int *dweights,
                             int weighted)
{
    core_topo_t *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->kind = CORE_TOPO_DIST_GRAPH;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->weighted = weighted;
    t->sources = dup_ints(sources, indegree);
    t->dests = dup_ints(dests, outdegree);
    int ok = t->sources && t->dests;
    if (weighted) {
        t->sweights = dup_ints(sweights, indegree);
        t->dweights = dup_ints(dweights, outdegree);
        ok = ok && t->sweights && t->dweights;
    }
    if (!ok) {
        core_topo_free(t);
        return NULL;
    }
    return t;
}

core_topo_t *core_topo_dup(const core_topo_t *t)
{
    if (!t)
        return NULL;
    core_topo_t *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    *c = *t;
    c->dims = dup_ints(t->dims, t->ndims);
    c->periods = dup_ints(t->periods, t->ndims);
    c->sources = dup_ints(t->sources, t->indegree);
    c->dests = dup_ints(t->dests, t->outdegree);
    c->sweights = t->sweights ? dup_ints(t->sweights, t->indegree) : NULL;
    c->dweights = t->dweights ? dup_ints(t->dweights, t->outdegree) : NULL;
    c->index = t->index ? dup_ints(t->index, t->nnodes) : NULL;
    c->edges = t->edges ? dup_ints(t->edges, t->nedges) : NULL;
    if ((t->index && !c->index) || (t->edges && !c->edges) ||
        (t->kind == CORE_TOPO_CART && (!c->dims || !c->periods)) || !c->sources || !c->dests ||
        (t->sweights && !c->sweights) || (t->dweights && !c->dweights)) {
        core_topo_free(c);
        return NULL;
    }
    return c;
}

/* Best split of n into k factors, each <= cap, non-increasing: the one with
 * the smallest spread (largest - smallest); among those, the one whose
 * smallest factor is largest, then its second smallest, ... (the choice
 * MPICH's search makes, so programs get the same grids under both). The candidates are the divisors
 * of the original count (div, descending; those of n are among them). f
 * holds the current choice, best the best so far; *spread its spread. */
static void split(int n, int k, int cap, const int *div, int ndiv, int *f, int depth, int *best,
                  int *spread)
{
    if (k == 0) {
        if (n != 1)
            return;
        int s = depth ? f[0] - f[depth - 1] : 0;
        int better = *spread < 0 || s < *spread;
        if (!better && s == *spread) {
            int i = depth - 1;
            while (i >= 0 && f[i] == best[i])
                i--;
            better = i >= 0 && f[i] > best[i];
        }
        if (better) {
            *spread = s;
            memcpy(best, f, sizeof(int) * (size_t)depth);
        }
        return;
    }
    for (int i = 0; i < ndiv; i++) {
        int d = div[i];
        if (d > cap || d > n || n % d)
            continue;
        /* The largest remaining factor is at least the k-th root of n. */
        long p = 1;
        for (int j = 0; j < k && p < n; j++)
            p *= d;
        if (p < n)
            break;   /* d^k < n: smaller factors cannot make n */
        if (*spread >= 0 && depth > 0 && f[0] - d > *spread)
            break;   /* smaller d only widen the spread */
        f[depth] = d;
        split(n / d, k - 1, d, div, ndiv, f, depth + 1, best, spread);
    }
}

/* The divisors of n in descending order; *ndiv of them. */
static int *divisors_desc(int n, int *ndiv)
{
    int cap = 2, cnt = 0;
    for (long d = 1; d * d <= n; d++)
        if (n % d == 0)
            cap += 2;
    int *lo = malloc(sizeof(int) * (size_t)cap), *out = malloc(sizeof(int) * (size_t)cap);
    if (!lo || !out) {
        free(lo);
        free(out);
        return NULL;
    }
    int nlo = 0;
    for (long d = 1; d * d <= n; d++)
        if (n % d == 0)
            lo[nlo++] = (int)d;
    /* large halves n/d (ascending d gives descending n/d), then the small ones descending */
    for (int i = 0; i < nlo; i++)
        out[cnt++] = n / lo[i];
    for (int i = nlo - 1; i >= 0; i--)
        if (lo[i] != n / lo[i])
            out[cnt++] = lo[i];
    free(lo);
    *ndiv = cnt;
    return out;
}

int core_dims_create(int nnodes, int ndims, int *dims)
{
    int fixed = 1, free_dims = 0;
    if (nnodes < 1 || ndims < 0)
        return CORE_EDIMS;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 0)
            return CORE_EDIMS;
        if (dims[d] > 0)
            fixed *= dims[d];
        else
            free_dims++;
    }
    if (nnodes % fixed)
        return CORE_EDIMS;
    int rest = nnodes / fixed;
    if (free_dims == 0)
        return rest == 1 ? 0 : CORE_EDIMS;
    int *f = malloc(sizeof(int) * (size_t)free_dims * 2);
    if (!f)
        return CORE_ENOMEM;
    int *best = f + free_dims, spread = -1, ndiv = 0;
    int *div = divisors_desc(rest, &ndiv);
    if (!div) {
        free(f);
        return CORE_ENOMEM;
    }
    split(rest, free_dims, rest, div, ndiv, f, 0, best, &spread);
    free(div);
    for (int d = 0, k = 0; d < ndims; d++)
        if (dims[d] == 0)
            dims[d] = best[k++];
    free(f);
    return 0;
}
