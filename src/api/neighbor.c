/*
 * MPI entry points of the neighborhood collectives, blocking and
 * nonblocking: the communicator must have a topology (MPI_ERR_TOPOLOGY
 * otherwise); buffers and count arrays are checked against its in- and
 * out-degree. MPI_IN_PLACE is not allowed.
 */
#include "api/coll_check.h"
#include "collectives/coll.h"
#include "core/topo.h"

/* comm has a topology; *in and *out are its degrees. */
static int check_topo(MPI_Comm comm, int *in, int *out, const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    if (!comm->topo)
        return api_error(comm, CORE_ETOPOLOGY, fn, "%s has no topology (MPI_Cart_create, "
                         "MPI_Dist_graph_create...)", core_comm_label(comm));
    *in = comm->topo->indegree;
    *out = comm->topo->outdegree;
    return 0;
}

static int no_inplace(MPI_Comm comm, const void *sbuf, const void *rbuf, const char *fn)
{
    if (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "a buffer of a neighborhood collective", fn);
    return 0;
}

static int check_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, MPI_Comm comm, const char *fn)
{
    int in, out;
    API_CHECK(check_topo(comm, &in, &out, fn));
    API_CHECK(no_inplace(comm, sbuf, rbuf, fn));
    API_CHECK(api_coll_data(comm, sbuf, scount, sdt, fn));
    return api_coll_data(comm, rbuf, rcount, rdt, fn);
}

static int check_v(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype sdt,
                   void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rdt,
                   MPI_Comm comm, const char *fn)
{
    int in, out;
    API_CHECK(check_topo(comm, &in, &out, fn));
    API_CHECK(no_inplace(comm, sbuf, rbuf, fn));
    if (scounts)
        API_CHECK(api_coll_counts(comm, scounts, sdispls, 1, out, fn));
    API_CHECK(api_check_type(comm, sdt, fn));
    API_CHECK(api_coll_counts(comm, rcounts, rdispls, 1, in, fn));
    API_CHECK(api_check_type(comm, rdt, fn));
    return 0;
}

static int check_w(const void *sbuf, const int *scounts, const MPI_Aint *sdispls,
                   const MPI_Datatype *sdts, void *rbuf, const int *rcounts,
                   const MPI_Aint *rdispls, const MPI_Datatype *rdts, MPI_Comm comm,
                   const char *fn)
{
    int in, out;
    API_CHECK(check_topo(comm, &in, &out, fn));
    API_CHECK(no_inplace(comm, sbuf, rbuf, fn));
    API_CHECK(api_coll_counts(comm, scounts, sdispls, 1, out, fn));
    API_CHECK(api_coll_types(comm, sdts, scounts, out, fn));
    API_CHECK(api_coll_counts(comm, rcounts, rdispls, 1, in, fn));
    return api_coll_types(comm, rdts, rcounts, in, fn);
}

static int check_req(MPI_Comm comm, MPI_Request *req, const char *fn)
{
    return api_coll_req(comm, req, fn);
}

RDMPI_API int PMPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype sdt,
                                      void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Neighbor_allgather";
    API_CHECK(check_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, fn));
    return api_coll_done(
        comm, coll_neighbor_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, NULL), fn);
}
RDMPI_API int MPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                     int rcount, MPI_Datatype rdt, MPI_Comm comm)
    API_ALIAS(MPI_Neighbor_allgather);

RDMPI_API int PMPI_Ineighbor_allgather(const void *sbuf, int scount, MPI_Datatype sdt,
                                       void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm,
                                       MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ineighbor_allgather";
    API_CHECK(check_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, fn));
    API_CHECK(check_req(comm, req, fn));
    return api_coll_done(
        comm, coll_neighbor_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req), fn);
}
RDMPI_API int MPI_Ineighbor_allgather(const void *sbuf, int scount, MPI_Datatype sdt,
                                      void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm,
                                      MPI_Request *req) API_ALIAS(MPI_Ineighbor_allgather);

RDMPI_API int PMPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt,
                                       void *rbuf, const int rcounts[], const int displs[],
                                       MPI_Datatype rdt, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Neighbor_allgatherv";
    API_CHECK(check_v(sbuf, NULL, NULL, sdt, rbuf, rcounts, displs, rdt, comm, fn));
    API_CHECK(api_check_buf(comm, sbuf, scount, sdt, fn));
    return api_coll_done(comm,
                         coll_neighbor_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt,
                                                  comm, NULL),
                         fn);
}
RDMPI_API int MPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                      const int rcounts[], const int displs[], MPI_Datatype rdt,
                                      MPI_Comm comm) API_ALIAS(MPI_Neighbor_allgatherv);

RDMPI_API int PMPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt,
                                        void *rbuf, const int rcounts[], const int displs[],
                                        MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ineighbor_allgatherv";
    API_CHECK(check_v(sbuf, NULL, NULL, sdt, rbuf, rcounts, displs, rdt, comm, fn));
    API_CHECK(api_check_buf(comm, sbuf, scount, sdt, fn));
    API_CHECK(check_req(comm, req, fn));
    return api_coll_done(comm,
                         coll_neighbor_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt,
                                                  comm, req),
                         fn);
}
RDMPI_API int MPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt,
                                       void *rbuf, const int rcounts[], const int displs[],
                                       MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
    API_ALIAS(MPI_Ineighbor_allgatherv);

RDMPI_API int PMPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                     int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Neighbor_alltoall";
    API_CHECK(check_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, fn));
    return api_coll_done(
        comm, coll_neighbor_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, NULL), fn);
}
RDMPI_API int MPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                    int rcount, MPI_Datatype rdt, MPI_Comm comm)
    API_ALIAS(MPI_Neighbor_alltoall);

RDMPI_API int PMPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype sdt,
                                      void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm,
                                      MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ineighbor_alltoall";
    API_CHECK(check_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, fn));
    API_CHECK(check_req(comm, req, fn));
    return api_coll_done(
        comm, coll_neighbor_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req), fn);
}
RDMPI_API int MPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                     int rcount, MPI_Datatype rdt, MPI_Comm comm,
                                     MPI_Request *req) API_ALIAS(MPI_Ineighbor_alltoall);

RDMPI_API int PMPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                                      MPI_Datatype sdt, void *rbuf, const int rcounts[],
                                      const int rdispls[], MPI_Datatype rdt, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Neighbor_alltoallv";
    API_CHECK(check_v(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm, fn));
    return api_coll_done(comm,
                         coll_neighbor_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts,
                                                 rdispls, rdt, comm, NULL),
                         fn);
}
RDMPI_API int MPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                                     MPI_Datatype sdt, void *rbuf, const int rcounts[],
                                     const int rdispls[], MPI_Datatype rdt, MPI_Comm comm)
    API_ALIAS(MPI_Neighbor_alltoallv);

RDMPI_API int PMPI_Ineighbor_alltoallv(const void *sbuf, const int scounts[],
                                       const int sdispls[], MPI_Datatype sdt, void *rbuf,
                                       const int rcounts[], const int rdispls[],
                                       MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ineighbor_alltoallv";
    API_CHECK(check_v(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm, fn));
    API_CHECK(check_req(comm, req, fn));
    return api_coll_done(comm,
                         coll_neighbor_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts,
                                                 rdispls, rdt, comm, req),
                         fn);
}
RDMPI_API int MPI_Ineighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                                      MPI_Datatype sdt, void *rbuf, const int rcounts[],
                                      const int rdispls[], MPI_Datatype rdt, MPI_Comm comm,
                                      MPI_Request *req) API_ALIAS(MPI_Ineighbor_alltoallv);

RDMPI_API int PMPI_Neighbor_alltoallw(const void *sbuf, const int scounts[],
                                      const MPI_Aint sdispls[], const MPI_Datatype sdts[],
                                      void *rbuf, const int rcounts[], const MPI_Aint rdispls[],
                                      const MPI_Datatype rdts[], MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Neighbor_alltoallw";
    API_CHECK(check_w(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm, fn));
    return api_coll_done(comm,
                         coll_neighbor_alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts,
                                                 rdispls, rdts, comm, NULL),
                         fn);
}
RDMPI_API int MPI_Neighbor_alltoallw(const void *sbuf, const int scounts[],
                                     const MPI_Aint sdispls[], const MPI_Datatype sdts[],
                                     void *rbuf, const int rcounts[], const MPI_Aint rdispls[],
                                     const MPI_Datatype rdts[], MPI_Comm comm)
    API_ALIAS(MPI_Neighbor_alltoallw);

RDMPI_API int PMPI_Ineighbor_alltoallw(const void *sbuf, const int scounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sdts[],
                                       void *rbuf, const int rcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype rdts[],
                                       MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ineighbor_alltoallw";
    API_CHECK(check_w(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm, fn));
    API_CHECK(check_req(comm, req, fn));
    return api_coll_done(comm,
                         coll_neighbor_alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts,
                                                 rdispls, rdts, comm, req),
                         fn);
}
RDMPI_API int MPI_Ineighbor_alltoallw(const void *sbuf, const int scounts[],
                                      const MPI_Aint sdispls[], const MPI_Datatype sdts[],
                                      void *rbuf, const int rcounts[], const MPI_Aint rdispls[],
                                      const MPI_Datatype rdts[], MPI_Comm comm,
                                      MPI_Request *req) API_ALIAS(MPI_Ineighbor_alltoallw);
