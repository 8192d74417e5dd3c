/*
 * Graph topologies of MPI_Graph_create (MPI-1's graphs, see topo.h): every
 * process knows the whole graph, given as MPI gives it (index[i] is the
 * number of edges of nodes 0..i, edges the concatenated adjacency lists),
 * and its own adjacency list is both its sources and its destinations for
 * the neighborhood collectives, in the order listed.
 */
#include <stdlib.h>
#include <string.h>
#include "core/topo.h"

static int *copy_ints(const int *a, int n)
{
    int *p = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (p && n > 0)
        memcpy(p, a, sizeof(int) * (size_t)n);
    return p;
}

core_topo_t *core_topo_graph_full(int nnodes, const int *index, const int *edges, int rank)
{
    core_topo_t *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    int first = rank > 0 ? index[rank - 1] : 0, degree = index[rank] - first;
    t->kind = CORE_TOPO_GRAPH;
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = copy_ints(index, nnodes);
    t->edges = copy_ints(edges, nedges);
    t->indegree = t->outdegree = degree;
    t->sources = copy_ints(edges + first, degree);
    t->dests = copy_ints(edges + first, degree);
    if (!t->index || !t->edges || !t->sources || !t->dests) {
        core_topo_free(t);
        return NULL;
    }
    return t;
}
