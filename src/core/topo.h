/*
 * Process topologies: Cartesian grids, graphs and distributed graphs, attached to a
 * communicator (comm->topo, freed with it). Besides its own description a
 * topology lists the neighbors the neighborhood collectives talk to, in
 * MPI's order: for a grid, for each dimension the ranks one step down and
 * one step up (MPI_PROC_NULL off a non-periodic edge), as sources and as
 * destinations; for a graph, the sources and destinations as given.
 * Ranks are ranks of the communicator the topology is attached to; grid
 * ranks run in row-major order (the last dimension varies fastest).
 */
#ifndef RDMPI_CORE_TOPO_H
#define RDMPI_CORE_TOPO_H

enum { CORE_TOPO_CART = 1, CORE_TOPO_DIST_GRAPH, CORE_TOPO_GRAPH };

typedef struct core_topo {
    int kind;                  /* CORE_TOPO_* */
    int ndims;                 /* grid: dimensions, their sizes and periodicity */
    int *dims, *periods;
    int indegree, outdegree;   /* neighbors */
    int *sources, *dests;
    int weighted;              /* graph: weights given (else the arrays below are NULL) */
    int *sweights, *dweights;
    int nnodes, nedges;        /* MPI_Graph_create's whole graph (MPI_Graph_get needs it) */
    int *index, *edges;
} core_topo_t;

/* A grid of ndims dimensions (ndims 0: a single process); rank is this
 * process's rank in it. NULL when out of memory. */
core_topo_t *core_topo_cart(int ndims, const int *dims, const int *periods, int rank);
/* A graph; weights NULL for an unweighted graph. NULL when out of memory. */
core_topo_t *core_topo_graph(int indegree, const int *sources, const int *sweights,
                             int outdegree, const int *dests, const int *dweights,
                             int weighted);
/* A graph of MPI_Graph_create (index and edges as MPI gives them, already
 * checked), seen from rank: its neighbors are both its sources and its
 * destinations. NULL when out of memory. */
core_topo_t *core_topo_graph_full(int nnodes, const int *index, const int *edges, int rank);
core_topo_t *core_topo_dup(const core_topo_t *t);
void core_topo_free(core_topo_t *t);

/* Grid coordinates of rank, and the rank at coords (coordinates outside a
 * non-periodic dimension: CORE_ERANK). */
void core_cart_coords(const core_topo_t *t, int rank, int *coords);
int core_cart_rank(const core_topo_t *t, const int *coords, int *rank);
/* MPI_Cart_shift: the ranks disp steps down and up dimension dim from rank. */
void core_cart_shift(const core_topo_t *t, int rank, int dim, int disp, int *src, int *dst);

/* MPI_Dims_create: fills the zero entries of dims[ndims] so that their
 * product with the nonzero ones is nnodes, as close to each other as
 * possible, in non-increasing order. CORE_EDIMS when that is impossible. */
int core_dims_create(int nnodes, int ndims, int *dims);

#endif
