/*
 * MPI entry points of graph topologies (MPI_Graph_create and its queries)
 * and the mapping queries MPI_Graph_map and MPI_Cart_map. Like a grid, a
 * graph communicator holds the first nnodes ranks of the old one, in order
 * (reorder is allowed to do nothing, and the maps say so: rank r keeps
 * rank r when r < nnodes, the others are MPI_UNDEFINED). Each rank keeps
 * the whole graph (core_topo_graph_full) because MPI_Graph_get and
 * MPI_Graph_neighbors may ask about any node.
 */
#include <stdlib.h>
#include "api/api.h"
#include "core/topo.h"

static int enter(MPI_Comm comm, const char *fn)
{
    API_CHECK(api_check_init(fn));
    return api_check_comm(comm, fn);
}

/* comm's graph topology (MPI_ERR_TOPOLOGY if it has none). */
static int graph_of(MPI_Comm comm, const core_topo_t **t, const char *fn)
{
    API_CHECK(enter(comm, fn));
    if (!comm->topo || comm->topo->kind != CORE_TOPO_GRAPH)
        return api_error(comm, CORE_ETOPOLOGY, fn, "%s has no graph topology",
                         core_comm_label(comm));
    *t = comm->topo;
    return 0;
}

/* The graph arguments of Graph_create/Graph_map: nnodes within comm, index
 * non-decreasing from 0, every edge a node of the graph. Self loops and
 * repeated edges are allowed (MPI-2.2 on). */
static int check_graph(MPI_Comm comm, int nnodes, const int *index, const int *edges,
                       const char *fn)
{
    if (nnodes < 0 || nnodes > comm->size)
        return api_error(comm, CORE_EINVAL, fn, "nnodes %d: %s has %d ranks", nnodes,
                         core_comm_label(comm), comm->size);
    if (nnodes == 0)
        return 0;
    if (!index)
        return api_error(comm, CORE_EINVAL, fn, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return api_error(comm, CORE_EINVAL, fn, "index[%d] = %d is below the one before",
                             i, index[i]);
    if (index[nnodes - 1] > 0 && !edges)
        return api_error(comm, CORE_EINVAL, fn, "edges is NULL");
    for (int e = 0; e < index[nnodes - 1]; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return api_error(comm, CORE_ERANK, fn, "edges[%d] = %d is not a node of the graph",
                             e, edges[e]);
    return 0;
}

RDMPI_API int PMPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                                int reorder, MPI_Comm *newcomm)
{
    API_ENTER;
    static const char fn[] = "MPI_Graph_create";
    (void)reorder;
    API_CHECK(enter(comm, fn));
    API_CHECK(api_check_ptr(comm, newcomm, "comm_graph", fn));
    API_CHECK(check_graph(comm, nnodes, index, edges, fn));
    int in = comm->rank < nnodes;
    API_CHECK(PMPI_Comm_split(comm, in ? 0 : MPI_UNDEFINED, comm->rank, newcomm));
    if (!in)
        return MPI_SUCCESS;
    MPI_Comm c = *newcomm;
    core_topo_t *t = core_topo_graph_full(nnodes, index, edges, c->rank);
    if (!t) {
        PMPI_Comm_free(newcomm);
        return api_error(c, CORE_ENOMEM, fn, "out of memory");
    }
    core_topo_free(c->topo);
    c->topo = t;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                               int reorder, MPI_Comm *newcomm) API_ALIAS(MPI_Graph_create);

RDMPI_API int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    API_ENTER;
    static const char fn[] = "MPI_Graphdims_get";
    const core_topo_t *t = NULL;
    API_CHECK(graph_of(comm, &t, fn));
    if (!nnodes || !nedges)
        return api_error(comm, CORE_EINVAL, fn, "nnodes or nedges is NULL");
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
    API_ALIAS(MPI_Graphdims_get);

RDMPI_API int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    API_ENTER;
    static const char fn[] = "MPI_Graph_get";
    const core_topo_t *t = NULL;
    API_CHECK(graph_of(comm, &t, fn));
    if (maxindex < 0 || maxedges < 0 || (maxindex > 0 && !index) || (maxedges > 0 && !edges))
        return api_error(comm, CORE_EINVAL, fn, "maxindex %d, maxedges %d or a NULL array",
                         maxindex, maxedges);
    /* MPI returns the first maxindex/maxedges entries (the arrays may be short). */
    for (int i = 0; i < t->nnodes && i < maxindex; i++)
        index[i] = t->index[i];
    for (int e = 0; e < t->nedges && e < maxedges; e++)
        edges[e] = t->edges[e];
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
    API_ALIAS(MPI_Graph_get);

/* Where node rank's adjacency list starts in t->edges, and its length. */
static int node_edges(MPI_Comm comm, const core_topo_t *t, int rank, int *first, int *n,
                      const char *fn)
{
    if (rank < 0 || rank >= t->nnodes)
        return api_error(comm, CORE_ERANK, fn, "rank %d is not a node of the graph", rank);
    *first = rank ? t->index[rank - 1] : 0;
    *n = t->index[rank] - *first;
    return 0;
}

RDMPI_API int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    API_ENTER;
    static const char fn[] = "MPI_Graph_neighbors_count";
    const core_topo_t *t = NULL;
    int first, n;
    API_CHECK(graph_of(comm, &t, fn));
    API_CHECK(api_check_ptr(comm, nneighbors, "nneighbors", fn));
    API_CHECK(node_edges(comm, t, rank, &first, &n, fn));
    *nneighbors = n;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
    API_ALIAS(MPI_Graph_neighbors_count);

RDMPI_API int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    API_ENTER;
    static const char fn[] = "MPI_Graph_neighbors";
    const core_topo_t *t = NULL;
    int first, n;
    API_CHECK(graph_of(comm, &t, fn));
    API_CHECK(node_edges(comm, t, rank, &first, &n, fn));
    if (maxneighbors < 0 || (maxneighbors > 0 && n > 0 && !neighbors))
        return api_error(comm, CORE_EINVAL, fn, "maxneighbors %d or neighbors NULL",
                         maxneighbors);
    for (int i = 0; i < n && i < maxneighbors; i++)
        neighbors[i] = t->edges[first + i];
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
    API_ALIAS(MPI_Graph_neighbors);

RDMPI_API int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                             int *newrank)
{
    API_ENTER;
    static const char fn[] = "MPI_Graph_map";
    API_CHECK(enter(comm, fn));
    API_CHECK(api_check_ptr(comm, newrank, "newrank", fn));
    API_CHECK(check_graph(comm, nnodes, index, edges, fn));
    if (nnodes < 1)
        return api_error(comm, CORE_EINVAL, fn, "nnodes %d: a graph needs a node", nnodes);
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                            int *newrank) API_ALIAS(MPI_Graph_map);

RDMPI_API int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                            int *newrank)
{
    API_ENTER;
    static const char fn[] = "MPI_Cart_map";
    (void)periods;
    API_CHECK(enter(comm, fn));
    API_CHECK(api_check_ptr(comm, newrank, "newrank", fn));
    if (ndims < 0 || (ndims > 0 && !dims))
        return api_error(comm, CORE_EINVAL, fn, "ndims %d or dims NULL", ndims);
    long nodes = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return api_error(comm, CORE_EDIMS, fn, "dims[%d] is %d", d, dims[d]);
        nodes *= dims[d];
        if (nodes > comm->size)
            return api_error(comm, CORE_EDIMS, fn, "the grid has more than the %d ranks of %s",
                             comm->size, core_comm_label(comm));
    }
    *newrank = comm->rank < nodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                           int *newrank) API_ALIAS(MPI_Cart_map);
