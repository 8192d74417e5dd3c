/*
 * MPI entry points of the collectives that only move data, blocking and
 * nonblocking: gather, scatter, allgather and alltoall with their v and w
 * forms. Argument checks (shared by the two forms of each call), one call
 * down to collectives/, and the error-handler dispatch of api_error.
 */
#include "api/coll_check.h"
#include "collectives/coll.h"
#include "core/datatype.h"

/* ---- gather and scatter ---------------------------------------------------------- */

static int check_gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, int root, MPI_Comm comm, const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_root(comm, root, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    int is_root = api_coll_is_root(comm, root);
    if (api_coll_idle(comm, root))
        return 0;
    if (sbuf == MPI_IN_PLACE && !is_root)
        return api_coll_inplace_error(comm, "the send buffer away from the root", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(api_coll_data(comm, sbuf, scount, sdt, fn));
    if (!is_root)
        return 0;
    if (rbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the receive buffer", fn);
    API_CHECK(api_coll_data(comm, rbuf, rcount, rdt, fn));
    return api_coll_alias(comm, sbuf, rbuf, rcount > 0, fn);
}

RDMPI_API int PMPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                          MPI_Datatype rdt, int root, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Gather";
    API_CHECK(check_gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, fn));
    return api_coll_done(comm, coll_gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm),
                         fn);
}
RDMPI_API int MPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, int root, MPI_Comm comm) API_ALIAS(MPI_Gather);

RDMPI_API int PMPI_Igather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                           MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Igather";
    API_CHECK(check_gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(
        comm, coll_igather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, req), fn);
}
RDMPI_API int MPI_Igather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                          MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req)
    API_ALIAS(MPI_Igather);

static int check_gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                         const int *rcounts, const int *displs, MPI_Datatype rdt, int root,
                         MPI_Comm comm, const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_root(comm, root, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    int is_root = api_coll_is_root(comm, root);
    if (api_coll_idle(comm, root))
        return 0;
    if (sbuf == MPI_IN_PLACE && !is_root)
        return api_coll_inplace_error(comm, "the send buffer away from the root", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(api_coll_data(comm, sbuf, scount, sdt, fn));
    if (!is_root)
        return 0;
    if (rbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the receive buffer", fn);
    API_CHECK(api_coll_counts(comm, rcounts, displs, 1, api_coll_nranks(comm), fn));
    API_CHECK(api_check_type(comm, rdt, fn));
    int nonempty = api_coll_any(rcounts, api_coll_nranks(comm));
    API_CHECK(api_check_buf(comm, rbuf, nonempty, rdt, fn));
    return api_coll_alias(comm, sbuf, rbuf, nonempty, fn);
}

RDMPI_API int PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                           MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Gatherv";
    API_CHECK(check_gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm, fn));
    return api_coll_done(
        comm, coll_gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm), fn);
}
RDMPI_API int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                          MPI_Comm comm) API_ALIAS(MPI_Gatherv);

RDMPI_API int PMPI_Igatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                            MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Igatherv";
    API_CHECK(check_gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(
        comm, coll_igatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm, req),
        fn);
}
RDMPI_API int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                           MPI_Comm comm, MPI_Request *req) API_ALIAS(MPI_Igatherv);

static int check_scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, int root, MPI_Comm comm, const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_root(comm, root, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    int is_root = api_coll_is_root(comm, root);
    if (api_coll_idle(comm, root))
        return 0;
    if (rbuf == MPI_IN_PLACE && !is_root)
        return api_coll_inplace_error(comm, "the receive buffer away from the root", fn);
    if (rbuf != MPI_IN_PLACE)
        API_CHECK(api_coll_data(comm, rbuf, rcount, rdt, fn));
    if (!is_root)
        return 0;
    if (sbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the send buffer", fn);
    API_CHECK(api_coll_data(comm, sbuf, scount, sdt, fn));
    return api_coll_alias(comm, sbuf, rbuf, scount > 0, fn);
}

RDMPI_API int PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                           MPI_Datatype rdt, int root, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Scatter";
    API_CHECK(check_scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, fn));
    return api_coll_done(comm, coll_scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm),
                         fn);
}
RDMPI_API int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                          MPI_Datatype rdt, int root, MPI_Comm comm) API_ALIAS(MPI_Scatter);

RDMPI_API int PMPI_Iscatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                            MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Iscatter";
    API_CHECK(check_scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(
        comm, coll_iscatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, req), fn);
}
RDMPI_API int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                           MPI_Request *req) API_ALIAS(MPI_Iscatter);

static int check_scatterv(const void *sbuf, const int *scounts, const int *displs,
                          MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                          MPI_Comm comm, const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_root(comm, root, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    int is_root = api_coll_is_root(comm, root);
    if (api_coll_idle(comm, root))
        return 0;
    if (rbuf == MPI_IN_PLACE && !is_root)
        return api_coll_inplace_error(comm, "the receive buffer away from the root", fn);
    if (rbuf != MPI_IN_PLACE)
        API_CHECK(api_coll_data(comm, rbuf, rcount, rdt, fn));
    if (!is_root)
        return 0;
    if (sbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the send buffer", fn);
    API_CHECK(api_coll_counts(comm, scounts, displs, 1, api_coll_nranks(comm), fn));
    API_CHECK(api_check_type(comm, sdt, fn));
    int nonempty = api_coll_any(scounts, api_coll_nranks(comm));
    API_CHECK(api_check_buf(comm, sbuf, nonempty, sdt, fn));
    return api_coll_alias(comm, sbuf, rbuf, nonempty, fn);
}

RDMPI_API int PMPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
                            MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                            MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Scatterv";
    API_CHECK(check_scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm, fn));
    return api_coll_done(
        comm, coll_scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm), fn);
}
RDMPI_API int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
                           MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                           MPI_Comm comm) API_ALIAS(MPI_Scatterv);

RDMPI_API int PMPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[],
                             MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                             int root, MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Iscatterv";
    API_CHECK(check_scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(
        comm, coll_iscatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm, req),
        fn);
}
RDMPI_API int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[],
                            MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                            MPI_Comm comm, MPI_Request *req) API_ALIAS(MPI_Iscatterv);

/* ---- allgather -------------------------------------------------------------------- */

static int check_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, MPI_Comm comm, const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    if (rbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(api_coll_data(comm, sbuf, scount, sdt, fn));
    API_CHECK(api_coll_data(comm, rbuf, rcount, rdt, fn));
    return api_coll_alias(comm, sbuf, rbuf, rcount > 0, fn);
}

RDMPI_API int PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Allgather";
    API_CHECK(check_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, fn));
    return api_coll_done(comm, coll_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm), fn);
}
RDMPI_API int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, MPI_Comm comm) API_ALIAS(MPI_Allgather);

RDMPI_API int PMPI_Iallgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                              int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Iallgather";
    API_CHECK(check_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm, coll_iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req),
                         fn);
}
RDMPI_API int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
    API_ALIAS(MPI_Iallgather);

static int check_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            const int *rcounts, const int *displs, MPI_Datatype rdt,
                            MPI_Comm comm, const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    if (rbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(api_coll_data(comm, sbuf, scount, sdt, fn));
    API_CHECK(api_coll_counts(comm, rcounts, displs, 1, api_coll_nranks(comm), fn));
    API_CHECK(api_check_type(comm, rdt, fn));
    int nonempty = api_coll_any(rcounts, api_coll_nranks(comm));
    API_CHECK(api_check_buf(comm, rbuf, nonempty, rdt, fn));
    return api_coll_alias(comm, sbuf, rbuf, nonempty, fn);
}

RDMPI_API int PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                              const int rcounts[], const int displs[], MPI_Datatype rdt,
                              MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Allgatherv";
    API_CHECK(check_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, fn));
    return api_coll_done(
        comm, coll_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm), fn);
}
RDMPI_API int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rdt,
                             MPI_Comm comm) API_ALIAS(MPI_Allgatherv);

RDMPI_API int PMPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                               const int rcounts[], const int displs[], MPI_Datatype rdt,
                               MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Iallgatherv";
    API_CHECK(check_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(
        comm, coll_iallgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, req), fn);
}
RDMPI_API int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                              const int rcounts[], const int displs[], MPI_Datatype rdt,
                              MPI_Comm comm, MPI_Request *req) API_ALIAS(MPI_Iallgatherv);

/* ---- alltoall ----------------------------------------------------------------------- */

RDMPI_API int PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Alltoall";
    API_CHECK(check_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, fn));
    return api_coll_done(comm, coll_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm), fn);
}
RDMPI_API int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                           MPI_Datatype rdt, MPI_Comm comm) API_ALIAS(MPI_Alltoall);

RDMPI_API int PMPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ialltoall";
    API_CHECK(check_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm, coll_ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req),
                         fn);
}
RDMPI_API int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
    API_ALIAS(MPI_Ialltoall);

static int check_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                           MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                           MPI_Datatype rdt, MPI_Comm comm, const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    if (rbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE) {
        API_CHECK(api_coll_counts(comm, scounts, sdispls, 1, api_coll_nranks(comm), fn));
        API_CHECK(api_check_type(comm, sdt, fn));
        API_CHECK(api_check_buf(comm, sbuf, api_coll_any(scounts, api_coll_nranks(comm)), sdt, fn));
    }
    API_CHECK(api_coll_counts(comm, rcounts, rdispls, 1, api_coll_nranks(comm), fn));
    API_CHECK(api_check_type(comm, rdt, fn));
    int nonempty = api_coll_any(rcounts, api_coll_nranks(comm));
    API_CHECK(api_check_buf(comm, rbuf, nonempty, rdt, fn));
    return api_coll_alias(comm, sbuf, rbuf, nonempty, fn);
}

RDMPI_API int PMPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                             MPI_Datatype sdt, void *rbuf, const int rcounts[],
                             const int rdispls[], MPI_Datatype rdt, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Alltoallv";
    API_CHECK(check_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm,
                              fn));
    return api_coll_done(
        comm, coll_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm),
        fn);
}
RDMPI_API int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                            MPI_Datatype sdt, void *rbuf, const int rcounts[],
                            const int rdispls[], MPI_Datatype rdt, MPI_Comm comm)
    API_ALIAS(MPI_Alltoallv);

RDMPI_API int PMPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                              MPI_Datatype sdt, void *rbuf, const int rcounts[],
                              const int rdispls[], MPI_Datatype rdt, MPI_Comm comm,
                              MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ialltoallv";
    API_CHECK(check_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm,
                              fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm,
                         coll_ialltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls,
                                         rdt, comm, req),
                         fn);
}
RDMPI_API int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                             MPI_Datatype sdt, void *rbuf, const int rcounts[],
                             const int rdispls[], MPI_Datatype rdt, MPI_Comm comm,
                             MPI_Request *req) API_ALIAS(MPI_Ialltoallv);

static int check_alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                           const MPI_Datatype *sdts, void *rbuf, const int *rcounts,
                           const int *rdispls, const MPI_Datatype *rdts, MPI_Comm comm,
                           const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    int n = api_coll_nranks(comm);
    if (rbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE) {
        API_CHECK(api_coll_counts(comm, scounts, sdispls, 1, n, fn));
        API_CHECK(api_coll_types(comm, sdts, scounts, n, fn));
    }
    API_CHECK(api_coll_counts(comm, rcounts, rdispls, 1, n, fn));
    API_CHECK(api_coll_types(comm, rdts, rcounts, n, fn));
    return api_coll_alias(comm, sbuf, rbuf, api_coll_any(rcounts, n), fn);
}

RDMPI_API int PMPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                             const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                             const int rdispls[], const MPI_Datatype rdts[], MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Alltoallw";
    API_CHECK(check_alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm,
                              fn));
    return api_coll_done(
        comm, coll_alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm),
        fn);
}
RDMPI_API int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                            const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                            const int rdispls[], const MPI_Datatype rdts[], MPI_Comm comm)
    API_ALIAS(MPI_Alltoallw);

RDMPI_API int PMPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                              const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                              const int rdispls[], const MPI_Datatype rdts[], MPI_Comm comm,
                              MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ialltoallw";
    API_CHECK(check_alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm,
                              fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm,
                         coll_ialltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls,
                                         rdts, comm, req),
                         fn);
}
RDMPI_API int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                             const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                             const int rdispls[], const MPI_Datatype rdts[], MPI_Comm comm,
                             MPI_Request *req) API_ALIAS(MPI_Ialltoallw);
