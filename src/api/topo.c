/*
 * MPI entry points of process topologies: MPI_Dims_create, Cartesian grids
 * (create, queries, shift, sub-grids), distributed graphs (adjacent and
 * general creation, neighbor queries) and MPI_Topo_test. A new topology
 * communicator is made by MPI_Comm_split (grids: the first prod(dims) ranks,
 * in order; reorder is not used) or MPI_Comm_dup (graphs), and the
 * topology is attached to it (comm->topo, see core/topo.h).
 */
#include <stdlib.h>
#include <string.h>
#include "api/api.h"
#include "api/coll_check.h"
#include "collectives/coll.h"
#include "core/topo.h"

static int enter(MPI_Comm comm, const char *fn)
{
    API_CHECK(api_check_init(fn));
    return api_check_comm(comm, fn);
}

/* comm's topology, which must be of kind (0: any). */
static int topo_of(MPI_Comm comm, int kind, const core_topo_t **t, const char *fn)
{
    API_CHECK(enter(comm, fn));
    if (!comm->topo || (kind && comm->topo->kind != kind))
        return api_error(comm, CORE_ETOPOLOGY, fn, "%s has no %s topology",
                         core_comm_label(comm),
                         kind == CORE_TOPO_CART ? "Cartesian"
                         : kind == CORE_TOPO_DIST_GRAPH ? "distributed graph" : "process");
    *t = comm->topo;
    return 0;
}

static int nomem(MPI_Comm comm, const char *fn)
{
    return api_error(comm, CORE_ENOMEM, fn, "out of memory");
}

/* Attaches t (NULL: out of memory) to *newcomm, which then owns it. */
static int attach(MPI_Comm *newcomm, core_topo_t *t, const char *fn)
{
    MPI_Comm c = *newcomm;
    if (!t) {
        PMPI_Comm_free(newcomm);
        return nomem(c, fn);
    }
    core_topo_free(c->topo);
    c->topo = t;
    return MPI_SUCCESS;
}

RDMPI_API int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    API_ENTER;
    static const char fn[] = "MPI_Dims_create";
    API_CHECK(api_check_init(fn));
    if (nnodes < 1 || ndims < 0 || (ndims > 0 && !dims))
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "nnodes %d, ndims %d: invalid", nnodes,
                         ndims);
    int rc = core_dims_create(nnodes, ndims, dims);
    if (rc == CORE_EDIMS)
        return api_error(MPI_COMM_NULL, rc, fn,
                         "%d processes cannot be split over the %d dimensions given", nnodes,
                         ndims);
    return rc ? api_error(MPI_COMM_NULL, rc, fn, "%s", core_strerror(rc)) : MPI_SUCCESS;
}
RDMPI_API int MPI_Dims_create(int nnodes, int ndims, int dims[]) API_ALIAS(MPI_Dims_create);

/* ---- Cartesian grids --------------------------------------------------------------- */

RDMPI_API int PMPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                               int reorder, MPI_Comm *newcomm)
{
    API_ENTER;
    static const char fn[] = "MPI_Cart_create";
    (void)reorder;
    API_CHECK(enter(comm, fn));
    API_CHECK(api_coll_intra(comm, fn));   /* no topologies on intercommunicators */
    if (ndims < 0 || (ndims > 0 && (!dims || !periods)) || !newcomm)
        return api_error(comm, CORE_EINVAL, fn, "ndims %d or a NULL argument", ndims);
    long nodes = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return api_error(comm, CORE_EDIMS, fn, "dims[%d] is %d", d, dims[d]);
        nodes *= dims[d];
        if (nodes > comm->size)
            break;
    }
    if (nodes > comm->size)
        return api_error(comm, CORE_EDIMS, fn, "the grid has more than the %d ranks of %s",
                         comm->size, core_comm_label(comm));
    int in = comm->rank < nodes;
    API_CHECK(PMPI_Comm_split(comm, in ? 0 : MPI_UNDEFINED, comm->rank, newcomm));
    if (!in)
        return MPI_SUCCESS;
    return attach(newcomm, core_topo_cart(ndims, dims, periods, (*newcomm)->rank), fn);
}
RDMPI_API int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                              int reorder, MPI_Comm *newcomm) API_ALIAS(MPI_Cart_create);

RDMPI_API int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    API_ENTER;
    static const char fn[] = "MPI_Cartdim_get";
    const core_topo_t *t = NULL;
    API_CHECK(topo_of(comm, CORE_TOPO_CART, &t, fn));
    API_CHECK(api_check_ptr(comm, ndims, "ndims", fn));
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Cartdim_get(MPI_Comm comm, int *ndims) API_ALIAS(MPI_Cartdim_get);

RDMPI_API int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    API_ENTER;
    static const char fn[] = "MPI_Cart_get";
    const core_topo_t *t = NULL;
    API_CHECK(topo_of(comm, CORE_TOPO_CART, &t, fn));
    if (maxdims < t->ndims)
        return api_error(comm, CORE_EINVAL, fn, "maxdims %d is below the %d dimensions",
                         maxdims, t->ndims);
    if (t->ndims > 0 && (!dims || !periods || !coords))
        return api_error(comm, CORE_EINVAL, fn, "dims, periods or coords is NULL");
    int c[t->ndims > 0 ? t->ndims : 1];
    core_cart_coords(t, comm->rank, c);
    for (int d = 0; d < t->ndims; d++) {
        dims[d] = t->dims[d];
        periods[d] = t->periods[d];
        coords[d] = c[d];
    }
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
    API_ALIAS(MPI_Cart_get);

RDMPI_API int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    API_ENTER;
    static const char fn[] = "MPI_Cart_coords";
    const core_topo_t *t = NULL;
    API_CHECK(topo_of(comm, CORE_TOPO_CART, &t, fn));
    if (rank < 0 || rank >= comm->size)
        return api_error(comm, CORE_ERANK, fn, "rank %d is not in the grid", rank);
    if (maxdims < t->ndims)
        return api_error(comm, CORE_EINVAL, fn, "maxdims %d is below the %d dimensions",
                         maxdims, t->ndims);
    if (t->ndims > 0)
        API_CHECK(api_check_ptr(comm, coords, "coords", fn));
    core_cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
    API_ALIAS(MPI_Cart_coords);

RDMPI_API int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    API_ENTER;
    static const char fn[] = "MPI_Cart_rank";
    const core_topo_t *t = NULL;
    API_CHECK(topo_of(comm, CORE_TOPO_CART, &t, fn));
    API_CHECK(api_check_ptr(comm, rank, "rank", fn));
    if (t->ndims > 0)
        API_CHECK(api_check_ptr(comm, coords, "coords", fn));
    if (core_cart_rank(t, coords, rank))
        return api_error(comm, CORE_ERANK, fn,
                         "the coordinates lie outside a non-periodic dimension");
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
    API_ALIAS(MPI_Cart_rank);

RDMPI_API int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *source, int *dest)
{
    API_ENTER;
    static const char fn[] = "MPI_Cart_shift";
    const core_topo_t *t = NULL;
    API_CHECK(topo_of(comm, CORE_TOPO_CART, &t, fn));
    if (direction < 0 || direction >= t->ndims)
        return api_error(comm, CORE_EINVAL, fn, "direction %d: the grid has %d dimensions",
                         direction, t->ndims);
    if (!source || !dest)
        return api_error(comm, CORE_EINVAL, fn, "rank_source or rank_dest is NULL");
    core_cart_shift(t, comm->rank, direction, disp, source, dest);
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *source, int *dest)
    API_ALIAS(MPI_Cart_shift);

/* The sub-grids of the dimensions kept: one per value of the coordinates dropped. */
RDMPI_API int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    API_ENTER;
    static const char fn[] = "MPI_Cart_sub";
    const core_topo_t *t = NULL;
    API_CHECK(topo_of(comm, CORE_TOPO_CART, &t, fn));
    API_CHECK(api_check_ptr(comm, newcomm, "newcomm", fn));
    if (t->ndims > 0)
        API_CHECK(api_check_ptr(comm, remain_dims, "remain_dims", fn));
    int nd = t->ndims, kept = 0, color = 0, key = 0;
    int c[nd > 0 ? nd : 1], dims[nd > 0 ? nd : 1], periods[nd > 0 ? nd : 1];
    core_cart_coords(t, comm->rank, c);
    for (int d = 0; d < nd; d++) {
        if (remain_dims[d]) {
            key = key * t->dims[d] + c[d];
            dims[kept] = t->dims[d];
            periods[kept++] = t->periods[d];
        } else {
            color = color * t->dims[d] + c[d];
        }
    }
    API_CHECK(PMPI_Comm_split(comm, color, key, newcomm));
    return attach(newcomm, core_topo_cart(kept, dims, periods, (*newcomm)->rank), fn);
}
RDMPI_API int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
    API_ALIAS(MPI_Cart_sub);

/* ---- distributed graphs -------------------------------------------------------------- */

static int check_ranks(MPI_Comm comm, const int *ranks, int n, const char *fn)
{
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= comm->size)
            return api_error(comm, CORE_ERANK, fn, "neighbor %d is not a rank of %s", ranks[i],
                             core_comm_label(comm));
    return 0;
}

static int weighted_arg(const int *w, int degree)
{
    return w != MPI_UNWEIGHTED && !(degree == 0 && (w == MPI_WEIGHTS_EMPTY || !w)) ? 1
           : w == MPI_UNWEIGHTED                                                   ? 0
                                                                                   : -1;
}

RDMPI_API int PMPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                              const int sweights[], int outdegree,
                                              const int dests[], const int dweights[],
                                              MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    API_ENTER;
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    (void)reorder;
    API_CHECK(enter(comm, fn));
    API_CHECK(api_coll_intra(comm, fn));   /* no topologies on intercommunicators */
    API_CHECK(api_check_info(comm, info, 1, fn));
    if (indegree < 0 || outdegree < 0 || (indegree && !sources) || (outdegree && !dests) ||
        !newcomm)
        return api_error(comm, CORE_EINVAL, fn, "a degree is negative or an array is NULL");
    API_CHECK(check_ranks(comm, sources, indegree, fn));
    API_CHECK(check_ranks(comm, dests, outdegree, fn));
    int ws = weighted_arg(sweights, indegree), wd = weighted_arg(dweights, outdegree);
    int weighted = ws != 0 && wd != 0;
    if (weighted && ((indegree && (ws < 0 || sweights == MPI_WEIGHTS_EMPTY)) ||
                     (outdegree && (wd < 0 || dweights == MPI_WEIGHTS_EMPTY))))
        return api_error(comm, CORE_EINVAL, fn, "a weight array is missing");
    API_CHECK(PMPI_Comm_dup(comm, newcomm));
    return attach(newcomm,
                  core_topo_graph(indegree, sources, weighted ? sweights : NULL, outdegree,
                                  dests, weighted ? dweights : NULL, weighted),
                  fn);
}
RDMPI_API int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                             const int sweights[], int outdegree,
                                             const int dests[], const int dweights[],
                                             MPI_Info info, int reorder, MPI_Comm *newcomm)
    API_ALIAS(MPI_Dist_graph_create_adjacent);

/* Every rank learns the edges that start or end at it: each edge s -> d given
 * anywhere travels as (0, d, w) to s and as (1, s, w) to d, by alltoall(v);
 * the lists keep the order of the contributing ranks, then of their edges. */
static int exchange_edges(MPI_Comm comm, int n, const int *srcs, const int *degrees,
                          const int *dests, const int *weights, core_topo_t **out)
{
    int size = comm->size, rc = CORE_ENOMEM;
    int *scnt = calloc((size_t)size * 4, sizeof(int)), *sdsp = scnt + size;
    int *rcnt = sdsp + size, *rdsp = rcnt + size;
    int *sbuf = NULL, *rbuf = NULL, *lists = NULL;
    if (!scnt)
        return CORE_ENOMEM;
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            scnt[srcs[i]] += 3;
            scnt[dests[k]] += 3;
        }
    if ((rc = coll_alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm)))
        goto out;
    long stot = 0, rtot = 0;
    for (int p = 0; p < size; p++) {
        sdsp[p] = (int)stot;
        rdsp[p] = (int)rtot;
        stot += scnt[p];
        rtot += rcnt[p];
    }
    rc = CORE_ENOMEM;
    if (!(sbuf = malloc(sizeof(int) * (size_t)(stot + 1))) ||
        !(rbuf = malloc(sizeof(int) * (size_t)(rtot + 1))))
        goto out;
    int *fill = calloc((size_t)size, sizeof(int));
    if (!fill)
        goto out;
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            int s = srcs[i], d = dests[k], w = weights == MPI_UNWEIGHTED ? 1 : weights[k];
            int *a = sbuf + sdsp[s] + fill[s];
            a[0] = 0, a[1] = d, a[2] = w;
            fill[s] += 3;
            int *b = sbuf + sdsp[d] + fill[d];
            b[0] = 1, b[1] = s, b[2] = w;
            fill[d] += 3;
        }
    free(fill);
    if ((rc = coll_alltoallv(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, comm)))
        goto out;
    int indeg = 0, outdeg = 0;
    for (long e = 0; e < rtot; e += 3) {
        if (rbuf[e])
            indeg++;
        else
            outdeg++;
    }
    rc = CORE_ENOMEM;
    if (!(lists = malloc(sizeof(int) * (size_t)(2 * (indeg + outdeg) + 1))))
        goto out;
    int *in = lists, *inw = in + indeg, *outl = inw + indeg, *outw = outl + outdeg;
    int ni = 0, no = 0;
    for (long e = 0; e < rtot; e += 3) {
        if (rbuf[e]) {
            in[ni] = rbuf[e + 1];
            inw[ni++] = rbuf[e + 2];
        } else {
            outl[no] = rbuf[e + 1];
            outw[no++] = rbuf[e + 2];
        }
    }
    int weighted = weights != MPI_UNWEIGHTED;
    *out = core_topo_graph(indeg, in, inw, outdeg, outl, outw, weighted);
    rc = *out ? 0 : CORE_ENOMEM;
out:
    free(lists);
    free(sbuf);
    free(rbuf);
    free(scnt);
    return rc;
}

RDMPI_API int PMPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[],
                                     const int degrees[], const int dests[],
                                     const int weights[], MPI_Info info, int reorder,
                                     MPI_Comm *newcomm)
{
    API_ENTER;
    static const char fn[] = "MPI_Dist_graph_create";
    (void)reorder;
    API_CHECK(enter(comm, fn));
    API_CHECK(api_coll_intra(comm, fn));   /* no topologies on intercommunicators */
    API_CHECK(api_check_info(comm, info, 1, fn));
    if (n < 0 || (n > 0 && (!sources || !degrees)) || !newcomm)
        return api_error(comm, CORE_EINVAL, fn, "n %d or a NULL argument", n);
    long edges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return api_error(comm, CORE_EINVAL, fn, "degrees[%d] is %d", i, degrees[i]);
        edges += degrees[i];
    }
    if (edges && !dests)
        return api_error(comm, CORE_EINVAL, fn, "destinations is NULL");
    if (edges && weights != MPI_UNWEIGHTED && (!weights || weights == MPI_WEIGHTS_EMPTY))
        return api_error(comm, CORE_EINVAL, fn, "the weight array is missing");
    API_CHECK(check_ranks(comm, sources, n, fn));
    API_CHECK(check_ranks(comm, dests, (int)edges, fn));
    core_topo_t *t = NULL;
    int rc = exchange_edges(comm, n, sources, degrees, dests, weights, &t);
    if (rc)
        return api_error(comm, rc, fn, "exchanging the edges failed: %s", core_strerror(rc));
    rc = PMPI_Comm_dup(comm, newcomm);
    if (rc != MPI_SUCCESS) {
        core_topo_free(t);
        return rc;
    }
    return attach(newcomm, t, fn);
}
RDMPI_API int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[],
                                    const int degrees[], const int dests[], const int weights[],
                                    MPI_Info info, int reorder, MPI_Comm *newcomm)
    API_ALIAS(MPI_Dist_graph_create);

RDMPI_API int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                              int *weighted)
{
    API_ENTER;
    static const char fn[] = "MPI_Dist_graph_neighbors_count";
    const core_topo_t *t = NULL;
    API_CHECK(topo_of(comm, CORE_TOPO_DIST_GRAPH, &t, fn));
    if (!indegree || !outdegree || !weighted)
        return api_error(comm, CORE_EINVAL, fn, "indegree, outdegree or weighted is NULL");
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                             int *weighted)
    API_ALIAS(MPI_Dist_graph_neighbors_count);

RDMPI_API int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                        int sweights[], int maxoutdegree, int dests[],
                                        int dweights[])
{
    API_ENTER;
    static const char fn[] = "MPI_Dist_graph_neighbors";
    const core_topo_t *t = NULL;
    API_CHECK(topo_of(comm, CORE_TOPO_DIST_GRAPH, &t, fn));
    if (maxindegree < t->indegree || maxoutdegree < t->outdegree)
        return api_error(comm, CORE_EINVAL, fn, "room for %d/%d neighbors, %d/%d needed",
                         maxindegree, maxoutdegree, t->indegree, t->outdegree);
    if ((t->indegree > 0 && !sources) || (t->outdegree > 0 && !dests))
        return api_error(comm, CORE_EINVAL, fn, "sources or destinations is NULL");
    for (int i = 0; i < t->indegree; i++) {
        sources[i] = t->sources[i];
        if (t->weighted && sweights != MPI_UNWEIGHTED && sweights)
            sweights[i] = t->sweights[i];
    }
    for (int i = 0; i < t->outdegree; i++) {
        dests[i] = t->dests[i];
        if (t->weighted && dweights != MPI_UNWEIGHTED && dweights)
            dweights[i] = t->dweights[i];
    }
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                       int sweights[], int maxoutdegree, int dests[],
                                       int dweights[]) API_ALIAS(MPI_Dist_graph_neighbors);

RDMPI_API int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    API_ENTER;
    static const char fn[] = "MPI_Topo_test";
    API_CHECK(enter(comm, fn));
    API_CHECK(api_check_ptr(comm, status, "status", fn));
    *status = !comm->topo                           ? MPI_UNDEFINED
              : comm->topo->kind == CORE_TOPO_CART  ? MPI_CART
              : comm->topo->kind == CORE_TOPO_GRAPH ? MPI_GRAPH
                                                    : MPI_DIST_GRAPH;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Topo_test(MPI_Comm comm, int *status) API_ALIAS(MPI_Topo_test);
