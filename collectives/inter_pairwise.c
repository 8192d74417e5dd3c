/*
 * Intercommunicator collectives where every rank exchanges a block with
 * every remote rank: alltoall(v,w) and allgatherv. All sends and receives
 * are posted in one round, each rank starting with a different remote rank
 * (its own rank modulo the remote size) so the first blocks do not all
 * land on one process: (remote size) alpha + n beta per rank, as the
 * linear intracommunicator alltoall. Allgatherv sends the same block to
 * every remote rank: its counts differ per rank, so there is no common
 * leader buffer to forward as inter_exchange.c does for allgather.
 */
#include "collectives/coll_impl.h"
#include "collectives/inter.h"

static int go(coll_sched_t *s, MPI_Request *req)
{
    return req ? coll_sched_start(s, req) : coll_sched_run(s);
}

static void hold(coll_sched_t *s, MPI_Request *req, const MPI_Datatype *dts, int n,
                 MPI_Datatype dt)
{
    if (!req)
        return;
    if (dts) {
        for (int i = 0; i < n; i++)
            coll_sched_hold_dt(s, dts[i]);
    } else {
        coll_sched_hold_dt(s, dt);
    }
}

int coll_inter_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          const int *rcounts, const int *displs, MPI_Datatype rdt,
                          MPI_Comm comm, MPI_Request *req)
{
    coll_sched_t *s = coll_sched_create(comm, COLL_ALLGATHERV);
    if (!s)
        return CORE_ENOMEM;
    hold(s, req, NULL, 0, sdt);
    hold(s, req, NULL, 0, rdt);
    int rn = core_comm_peer_size(comm);
    for (int k = 0; k < rn; k++) {
        int i = (comm->rank + k) % rn;
        coll_sched_recv(s, (char *)rbuf + (MPI_Aint)displs[i] * rdt->extent, (size_t)rcounts[i],
                        rdt, i);
        coll_sched_send(s, sbuf, (size_t)scount, sdt, i);
    }
    coll_sched_fence(s);
    return go(s, req);
}

static const void *block(const void *buf, int i, int count, const int *displs, int bytes,
                         MPI_Datatype dt)
{
    if (bytes)
        return (const char *)buf + displs[i];
    MPI_Aint d = displs ? (MPI_Aint)displs[i] : (MPI_Aint)i * count;
    return (const char *)buf + d * dt->extent;
}

int coll_inter_alltoall(const void *sbuf, int scount, const int *scounts, const int *sdispls,
                        const MPI_Datatype *sdts, MPI_Datatype sdt, void *rbuf, int rcount,
                        const int *rcounts, const int *rdispls, const MPI_Datatype *rdts,
                        MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    int id = sdts ? COLL_ALLTOALLW : scounts ? COLL_ALLTOALLV : COLL_ALLTOALL;
    coll_sched_t *s = coll_sched_create(comm, id);
    if (!s)
        return CORE_ENOMEM;
    int rn = core_comm_peer_size(comm);
    hold(s, req, sdts, rn, sdt);
    hold(s, req, rdts, rn, rdt);
    for (int k = 0; k < rn; k++) {
        int i = (comm->rank + k) % rn;
        MPI_Datatype st = sdts ? sdts[i] : sdt, rt = rdts ? rdts[i] : rdt;
        int sc = scounts ? scounts[i] : scount, rc = rcounts ? rcounts[i] : rcount;
        if (rc > 0)
            coll_sched_recv(s, (void *)block(rbuf, i, rcount, rdispls, rdts != NULL, rt),
                            (size_t)rc, rt, i);
        if (sc > 0)
            coll_sched_send(s, block(sbuf, i, scount, sdispls, sdts != NULL, st), (size_t)sc,
                            st, i);
    }
    coll_sched_fence(s);
    return go(s, req);
}
