/*
 * coll_errors: the argument checks of the collective calls. With
 * MPI_ERRORS_RETURN every bad call must return the right error class and
 * do nothing (bad on every rank alike, or on MPI_COMM_SELF, so the ranks
 * stay in step): a root out of range, an operation not defined for the
 * datatype, MPI_IN_PLACE where MPI forbids it, the same buffer passed
 * twice, negative counts, NULL count arrays, uncommitted or null datatypes,
 * freeing a predefined or null operation; the nonblocking forms,
 * reduce_scatter, scan, exscan, alltoallw, and the topology calls (bad
 * dimensions, no topology, a neighbor out of range). Then one good
 * collective checks that nothing was left half-done. Runs at any number of ranks; exit 0 on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include "mpi.h"

static int rank, failures;

static void expect(int rc, int want_class, const char *what)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != want_class) {
        fprintf(stderr, "coll_errors: FAIL rank %d: %s returned class %d, expected %d\n", rank,
                what, cls, want_class);
        failures++;
    }
}

static void noop(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)dt;
}

int main(int argc, char **argv)
{
    int n, buf[8] = { 0 }, out[64] = { 0 }, counts[64], displs[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n > 64) {
        if (rank == 0)
            printf("SKIP: coll_errors handles at most 64 ranks\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm w = MPI_COMM_WORLD;
    for (int i = 0; i < n; i++) {
        counts[i] = 1;
        displs[i] = i;
    }

    expect(MPI_Bcast(buf, 1, MPI_INT, n, w), MPI_ERR_ROOT, "MPI_Bcast with root = size");
    expect(MPI_Bcast(buf, 1, MPI_INT, -1, w), MPI_ERR_ROOT, "MPI_Bcast with root -1");
    expect(MPI_Bcast(buf, -1, MPI_INT, 0, w), MPI_ERR_COUNT, "MPI_Bcast with count -1");
    expect(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, w), MPI_ERR_BUFFER, "MPI_Bcast(MPI_IN_PLACE)");
    expect(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, w), MPI_ERR_TYPE,
           "MPI_Bcast with MPI_DATATYPE_NULL");
    expect(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM,
           "MPI_Bcast on MPI_COMM_NULL");

    expect(MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, n + 3, w), MPI_ERR_ROOT,
           "MPI_Reduce with a bad root");
    expect(MPI_Allreduce(buf, out, 1, MPI_DOUBLE_INT, MPI_SUM, w), MPI_ERR_OP,
           "MPI_Allreduce(MPI_SUM on MPI_DOUBLE_INT)");
    expect(MPI_Allreduce(buf, out, 1, MPI_DOUBLE, MPI_BAND, w), MPI_ERR_OP,
           "MPI_Allreduce(MPI_BAND on MPI_DOUBLE)");
    expect(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP,
           "MPI_Allreduce(MPI_OP_NULL)");
    expect(MPI_Allreduce(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
           "MPI_Allreduce with MPI_IN_PLACE as receive buffer");
    expect(MPI_Allreduce(buf, buf, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
           "MPI_Allreduce with aliased buffers");
    expect(MPI_Reduce_local(buf, out, 1, MPI_DOUBLE, MPI_BXOR), MPI_ERR_OP,
           "MPI_Reduce_local(MPI_BXOR on MPI_DOUBLE)");

    expect(MPI_Gather(buf, 1, MPI_INT, out, 1, MPI_INT, n, w), MPI_ERR_ROOT,
           "MPI_Gather with a bad root");
    /* Checks that fail on the root only would leave the others waiting: on MPI_COMM_SELF. */
    expect(MPI_Gather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_SELF),
           MPI_ERR_BUFFER, "MPI_Gather with MPI_IN_PLACE as the root's receive buffer");
    expect(MPI_Scatter(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_BUFFER,
           "MPI_Scatter with aliased buffers at the root");
    expect(MPI_Reduce(MPI_IN_PLACE, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF),
           MPI_ERR_BUFFER, "MPI_Reduce with MPI_IN_PLACE as receive buffer");
    expect(MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, n, w), MPI_ERR_ROOT,
           "MPI_Scatter with a bad root");
    counts[0] = -1;
    expect(MPI_Allgatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, w), MPI_ERR_COUNT,
           "MPI_Allgatherv with a negative count");
    counts[0] = 1;
    expect(MPI_Allgatherv(buf, 1, MPI_INT, out, NULL, displs, MPI_INT, w), MPI_ERR_ARG,
           "MPI_Allgatherv with NULL counts");
    expect(MPI_Alltoall(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w), MPI_ERR_BUFFER,
           "MPI_Alltoall with MPI_IN_PLACE as receive buffer");
    expect(MPI_Alltoallv(buf, counts, displs, MPI_INT, out, counts, NULL, MPI_INT, w),
           MPI_ERR_ARG, "MPI_Alltoallv with NULL displacements");
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    expect(MPI_Allgather(buf, 1, t, out, 1, t, w), MPI_ERR_TYPE,
           "MPI_Allgather with an uncommitted type");
    MPI_Type_free(&t);

    /* The collectives MPI added later, nonblocking forms and topologies. */
    MPI_Request req;
    expect(MPI_Ibarrier(w, NULL), MPI_ERR_REQUEST, "MPI_Ibarrier with a NULL request");
    expect(MPI_Ibcast(buf, 1, MPI_INT, n, w, &req), MPI_ERR_ROOT, "MPI_Ibcast with a bad root");
    expect(MPI_Iallreduce(buf, out, 1, MPI_DOUBLE, MPI_BAND, w, &req), MPI_ERR_OP,
           "MPI_Iallreduce(MPI_BAND on MPI_DOUBLE)");
    expect(MPI_Reduce_scatter_block(buf, out, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT,
           "MPI_Reduce_scatter_block with count -1");
    counts[0] = -1;
    expect(MPI_Reduce_scatter(buf, out, counts, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT,
           "MPI_Reduce_scatter with a negative count");
    counts[0] = 1;
    expect(MPI_Scan(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
           "MPI_Scan with MPI_IN_PLACE as receive buffer");
    expect(MPI_Exscan(buf, out, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP,
           "MPI_Exscan(MPI_OP_NULL)");
    MPI_Datatype types[64];
    for (int i = 0; i < n; i++)
        types[i] = MPI_INT;
    types[0] = MPI_DATATYPE_NULL;
    expect(MPI_Alltoallw(buf, counts, displs, types, out, counts, displs, types, w),
           MPI_ERR_TYPE, "MPI_Alltoallw with MPI_DATATYPE_NULL");
    int dims[2] = { 0, 3 }, periods[2] = { 0, 0 };
    MPI_Comm cart;
    expect(MPI_Cart_create(w, 2, dims, periods, 0, &cart), MPI_ERR_DIMS,
           "MPI_Cart_create with a zero dimension");
    dims[0] = n + 1;
    dims[1] = 1;
    expect(MPI_Cart_create(w, 2, dims, periods, 0, &cart), MPI_ERR_DIMS,
           "MPI_Cart_create with more ranks than the communicator");
    expect(MPI_Cart_shift(w, 0, 1, &buf[0], &buf[1]), MPI_ERR_TOPOLOGY,
           "MPI_Cart_shift without a topology");
    expect(MPI_Neighbor_alltoall(buf, 1, MPI_INT, out, 1, MPI_INT, w), MPI_ERR_TOPOLOGY,
           "MPI_Neighbor_alltoall without a topology");
    int src = n, dst = 0;
    expect(MPI_Dist_graph_create_adjacent(w, 1, &src, MPI_UNWEIGHTED, 1, &dst, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &cart),
           MPI_ERR_RANK, "MPI_Dist_graph_create_adjacent with a bad source");

    MPI_Op op = MPI_SUM, uop;
    expect(MPI_Op_free(&op), MPI_ERR_OP, "MPI_Op_free(MPI_SUM)");
    op = MPI_OP_NULL;
    expect(MPI_Op_free(&op), MPI_ERR_OP, "MPI_Op_free(MPI_OP_NULL)");
    expect(MPI_Op_create(noop, 1, &uop), MPI_SUCCESS, "MPI_Op_create");
    expect(MPI_Op_free(&uop), MPI_SUCCESS, "MPI_Op_free");
    if (uop != MPI_OP_NULL) {
        fprintf(stderr, "coll_errors: FAIL rank %d: MPI_Op_free left the handle set\n", rank);
        failures++;
    }

    /* Everything above failed before communicating: a good call still matches up. */
    int one = 1, sum = 0;
    expect(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, w), MPI_SUCCESS, "MPI_Allreduce");
    if (sum != n) {
        fprintf(stderr, "coll_errors: FAIL rank %d: allreduce gave %d, expected %d\n", rank, sum,
                n);
        failures++;
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, w);
    if (rank == 0 && total == 0)
        printf("coll_errors: %d ranks: all passed\n", n);
    MPI_Finalize();
    return total ? 1 : 0;
}
