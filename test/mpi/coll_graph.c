/*
 * coll_graph: graph topologies (MPI_Graph_create and its queries), the
 * mapping queries MPI_Graph_map and MPI_Cart_map, and the neighborhood
 * collectives on a graph communicator. Graphs: a ring with chords (node i
 * linked to i-1, i+1 and i+2, i-2, so small rings repeat neighbors and
 * have self loops), a star over all ranks but one (that rank gets
 * MPI_COMM_NULL), and a graph with an isolated node. Checked:
 * MPI_Topo_test gives MPI_GRAPH; Graphdims_get, Graph_get (and with short
 * arrays), Graph_neighbors_count and Graph_neighbors for every node against
 * the arrays given; MPI_Comm_dup keeps the graph; Cartesian queries refuse a
 * graph and graph queries refuse a grid (MPI_ERR_TOPOLOGY); neighbor
 * allgather and alltoall (blocking and nonblocking) deliver, in neighbor
 * order, the blocks each neighbor sent; the maps give rank or
 * MPI_UNDEFINED.
 */
#include "check.h"

/* Node i's neighbors in the ring with chords of n nodes. */
static int ring_adj(int n, int i, int *adj)
{
    int k = 0;
    adj[k++] = (i + n - 1) % n;
    adj[k++] = (i + 1) % n;
    if (n > 2) {
        adj[k++] = (i + 2) % n;
        adj[k++] = (i + n - 2) % n;
    }
    return k;
}

typedef struct graph {
    int nnodes, *index, *edges;
} graph_t;

static graph_t make_ring(int n)
{
    graph_t g = { n, malloc(sizeof(int) * (size_t)n), malloc(sizeof(int) * 4 * (size_t)n) };
    int e = 0;
    for (int i = 0; i < n; i++) {
        e += ring_adj(n, i, g.edges + e);
        g.index[i] = e;
    }
    return g;
}

/* A star: node 0 linked to every other node and back. */
static graph_t make_star(int n)
{
    graph_t g = { n, malloc(sizeof(int) * (size_t)n), malloc(sizeof(int) * 2 * (size_t)n) };
    int e = 0;
    for (int j = 1; j < n; j++)
        g.edges[e++] = j;
    g.index[0] = e;
    for (int i = 1; i < n; i++) {
        g.edges[e++] = 0;
        g.index[i] = e;
    }
    return g;
}

/* Node 0 alone; the others a chain. */
static graph_t make_isolated(int n)
{
    graph_t g = { n, malloc(sizeof(int) * (size_t)n), malloc(sizeof(int) * 2 * (size_t)n) };
    int e = 0;
    g.index[0] = 0;
    for (int i = 1; i < n; i++) {
        if (i > 1)
            g.edges[e++] = i - 1;
        if (i < n - 1)
            g.edges[e++] = i + 1;
        g.index[i] = e;
    }
    return g;
}

static void free_graph(graph_t *g)
{
    free(g->index);
    free(g->edges);
}

static void check_queries(MPI_Comm c, const graph_t *g)
{
    int status, nn, ne, nedges = g->index[g->nnodes - 1];
    MPI_OK(MPI_Topo_test(c, &status));
    CHECK(status == MPI_GRAPH, "MPI_Topo_test gave %d, want MPI_GRAPH", status);
    MPI_OK(MPI_Graphdims_get(c, &nn, &ne));
    CHECK(nn == g->nnodes && ne == nedges, "Graphdims_get: %d nodes %d edges, want %d %d", nn,
          ne, g->nnodes, nedges);
    int *index = malloc(sizeof(int) * (size_t)nn), *edges = malloc(sizeof(int) * (size_t)(ne + 1));
    MPI_OK(MPI_Graph_get(c, nn, ne, index, edges));
    for (int i = 0; i < nn; i++)
        CHECK(index[i] == g->index[i], "index[%d] = %d, want %d", i, index[i], g->index[i]);
    for (int e = 0; e < ne; e++)
        CHECK(edges[e] == g->edges[e], "edges[%d] = %d, want %d", e, edges[e], g->edges[e]);
    if (nn > 1 && ne > 1) { /* short arrays get the first entries only */
        edges[ne - 1] = -99;
        MPI_OK(MPI_Graph_get(c, 1, ne - 1, index, edges));
        CHECK(edges[ne - 1] == -99 && edges[0] == g->edges[0], "Graph_get wrote past maxedges");
    }
    for (int r = 0; r < nn; r++) {
        int cnt, first = r ? g->index[r - 1] : 0, want = g->index[r] - first;
        MPI_OK(MPI_Graph_neighbors_count(c, r, &cnt));
        CHECK(cnt == want, "node %d: %d neighbors, want %d", r, cnt, want);
        int nb[8];
        MPI_OK(MPI_Graph_neighbors(c, r, 8, nb));
        for (int k = 0; k < cnt; k++)
            CHECK(nb[k] == g->edges[first + k], "node %d neighbor %d is %d, want %d", r, k,
                  nb[k], g->edges[first + k]);
    }
    free(index);
    free(edges);
}

/* Each rank sends rank*100 + slot to its k-th neighbor (alltoall) or its
 * rank to all (allgather); checks what came from each neighbor. */
static void check_neighbor_colls(MPI_Comm c, const graph_t *g)
{
    int rank, deg, nb[8];
    MPI_Comm_rank(c, &rank);
    MPI_OK(MPI_Graph_neighbors_count(c, rank, &deg));
    MPI_OK(MPI_Graph_neighbors(c, rank, 8, nb));
    (void)g;
    for (int nbk = 0; nbk < 2; nbk++) {
        int sbuf[8], rbuf[8], one = rank * 7 + 1;
        for (int k = 0; k < 8; k++)
            rbuf[k] = -1;
        if (nbk) {
            MPI_Request req;
            MPI_OK(MPI_Ineighbor_allgather(&one, 1, MPI_INT, rbuf, 1, MPI_INT, c, &req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Neighbor_allgather(&one, 1, MPI_INT, rbuf, 1, MPI_INT, c));
        }
        for (int k = 0; k < deg; k++)
            CHECK(rbuf[k] == nb[k] * 7 + 1, "allgather from neighbor %d (rank %d): %d", k, nb[k],
                  rbuf[k]);
        /* alltoall: the block for neighbor k says who sent it and which of the
         * sender's edges it went along; the receiver finds the j-th edge to it */
        for (int k = 0; k < deg; k++)
            sbuf[k] = rank * 100 + k;
        if (nbk) {
            MPI_Request req;
            MPI_OK(MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, c, &req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, c));
        }
        for (int k = 0; k < deg; k++) {
            /* the how-many-th time nb[k] appears among my neighbors before k ... */
            int nth = 0;
            for (int j = 0; j < k; j++)
                nth += nb[j] == nb[k];
            /* ... pairs with the nth edge from nb[k] to me */
            int snb[8], sdeg, slot = -1;
            MPI_OK(MPI_Graph_neighbors_count(c, nb[k], &sdeg));
            MPI_OK(MPI_Graph_neighbors(c, nb[k], 8, snb));
            for (int j = 0, seen = 0; j < sdeg; j++)
                if (snb[j] == rank && seen++ == nth) {
                    slot = j;
                    break;
                }
            CHECK(rbuf[k] == nb[k] * 100 + slot, "alltoall from neighbor %d (rank %d): %d, want %d",
                  k, nb[k], rbuf[k], nb[k] * 100 + slot);
        }
    }
}

static void run_graph(const char *name, graph_t g)
{
    t_begin(name);
    MPI_Comm c;
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, g.nnodes, g.index, g.edges, 0, &c));
    int newrank;
    MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, g.nnodes, g.index, g.edges, &newrank));
    if (t_rank >= g.nnodes) {
        CHECK(c == MPI_COMM_NULL, "rank %d outside a graph of %d got a communicator", t_rank,
              g.nnodes);
#ifdef RDMPI /* Open MPI 4.1 gives the old rank (MPI says MPI_UNDEFINED) */
        CHECK(newrank == MPI_UNDEFINED, "Graph_map gave %d outside the graph", newrank);
#endif
        free_graph(&g);
        return;
    }
    CHECK(newrank == t_rank, "Graph_map gave %d", newrank);
    int size, rank;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    CHECK(size == g.nnodes && rank == t_rank, "graph communicator: rank %d of %d", rank, size);
    check_queries(c, &g);
    check_neighbor_colls(c, &g);
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(c, &d));
    check_queries(d, &g);
    check_neighbor_colls(d, &g);
    MPI_OK(MPI_Comm_free(&d));
    /* a graph is not a grid, a grid is not a graph */
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int nd, cls;
    int rc = MPI_Cartdim_get(c, &nd);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Cartdim_get on a graph: class %d", cls);
#ifdef RDMPI /* Open MPI 4.1 does not check the rank */
    rc = MPI_Graph_neighbors_count(c, g.nnodes, &nd);
    CHECK(rc != MPI_SUCCESS, "Graph_neighbors_count of node %d accepted", g.nnodes);
#endif
    MPI_OK(MPI_Comm_free(&c));
    free_graph(&g);
}

static void test_maps_and_errors(void)
{
    t_begin("cart-map");
    int dims[2] = { 0, 0 }, periods[2] = { 0, 1 }, newrank;
    MPI_Dims_create(t_size, 2, dims);
    MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank));
    CHECK(newrank == t_rank, "Cart_map over all ranks gave %d", newrank);
    int small[1] = { (t_size + 1) / 2 };
    MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, small, periods, &newrank));
    if (t_rank < small[0])
        CHECK(newrank == t_rank, "Cart_map on %d gave %d", small[0], newrank);
#ifdef RDMPI /* Open MPI 4.1 gives the old rank (MPI says MPI_UNDEFINED) */
    else
        CHECK(newrank == MPI_UNDEFINED, "Cart_map on %d gave %d", small[0], newrank);
#endif
    t_begin("graph-errors");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int index[2] = { 1, 2 }, edges[2] = { 1, 5 };
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Graph_create(MPI_COMM_WORLD, t_size + 1, index, edges, 0, &c);
    CHECK(rc != MPI_SUCCESS, "a graph larger than the communicator accepted");
#ifdef RDMPI /* Open MPI 4.1 does not check the edges */
    if (t_size >= 2) {
        rc = MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &c);
        CHECK(rc != MPI_SUCCESS, "an edge to node 5 of 2 accepted");
    }
#endif
    int gdims[1] = { t_size };
    MPI_Comm cart;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, gdims, periods, 0, &cart));
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    int nn, ne, cls;
    rc = MPI_Graphdims_get(cart, &nn, &ne);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Graphdims_get on a grid: class %d", cls);
    MPI_Comm_free(&cart);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    run_graph("ring", make_ring(t_size));
    run_graph("star", make_star(t_size > 1 ? t_size - 1 : 1));
    run_graph("isolated", make_isolated(t_size));
    test_maps_and_errors();
    t_finish();
    if (t_rank == 0)
        printf("coll_graph: OK\n");
    return 0;
}
