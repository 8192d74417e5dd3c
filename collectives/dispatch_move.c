/*
 * Entry points of the collectives that only move data (coll.h): gather,
 * scatter, allgather and alltoall with their v and w forms. Each makes a
 * schedule, asks the selector, has the algorithm build it, and runs or
 * starts it (see dispatch.c).
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"
#include "collectives/inter.h"

static size_t nbytes(int count, MPI_Datatype dt)
{
    return (size_t)count * dt->size;
}

static int go(coll_sched_t *s, MPI_Request *req)
{
    return req ? coll_sched_start(s, req) : coll_sched_run(s);
}

static coll_sched_t *create(MPI_Comm comm, int id, MPI_Request *req, MPI_Datatype sdt,
                            MPI_Datatype rdt)
{
    coll_sched_t *s = coll_sched_create(comm, id);
    if (s && req) {
        coll_sched_hold_dt(s, sdt);
        coll_sched_hold_dt(s, rdt);
    }
    return s;
}

static enum coll_alg pick(enum coll_id id, size_t bytes, MPI_Comm comm)
{
    coll_query_t q = { bytes, comm->size, 0, 1, 0, 0, coll_comm_crowded(comm) };
    return coll_select(id, &q);
}

/* Whether a rank that sends the blocks of l to its peers one after the other
 * (fast.c) has them leave at once: one peer, or blocks below
 * COLL_FAST_SERIAL_BYTES. Each rank decides for itself: the fast paths send
 * the messages of the schedules. */
static int serial_ok(const coll_layout_t *l, MPI_Comm comm)
{
    for (int i = 0; comm->size > 2 && i < comm->size; i++)
        if (i != comm->rank && lay_bytes(l, i) > COLL_FAST_SERIAL_BYTES)
            return 0;
    return 1;
}

/* ---- gather and scatter ----------------------------------------------------- */

static int gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_gather(COLL_GATHER, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt,
                                 root, comm, req);
    /* One block's size, the same on every rank (the root may pass MPI_IN_PLACE). */
    size_t blk = comm->rank == root ? nbytes(rcount, rdt) : nbytes(scount, sdt);
    enum coll_alg alg = pick(COLL_GATHER, blk, comm);
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL, NULL, NULL };
    if (!req && alg == COLL_ALG_LINEAR && comm->size == 2)
        return coll_fast2_gather(sbuf, scount, sdt, &rl, root, comm, COLL_GATHER);
    if (!req && alg == COLL_ALG_LINEAR && comm->size <= COLL_FAST_A2A_MAX)
        return coll_fast_gather(sbuf, scount, sdt, &rl, root, comm, COLL_GATHER);
    coll_sched_t *s = create(comm, COLL_GATHER, req, sdt, rdt);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = { comm->size, comm->rank, NULL };
    if (alg == COLL_ALG_LINEAR) {
        coll_gather_linear(s, &g, sbuf, scount, sdt, &rl, root);
    } else {
        coll_gather_binomial(s, &g, sbuf, scount, sdt, rbuf, rcount, rdt, root);
    }
    return go(s, req);
}
int coll_gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    return gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, NULL);
}
int coll_igather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req)
{
    return gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, req);
}

static int gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                   const int *rcounts, const int *displs, MPI_Datatype rdt, int root,
                   MPI_Comm comm, MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_gather(COLL_GATHERV, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt,
                                 root, comm, req);
    (void)pick(COLL_GATHERV, 0, comm);
    coll_layout_t rl = { rbuf, rdt, 0, rcounts, displs, NULL, NULL };
    if (!req && comm->size == 2)
        return coll_fast2_gather(sbuf, scount, sdt, &rl, root, comm, COLL_GATHERV);
    if (!req && comm->size <= COLL_FAST_A2A_MAX)
        return coll_fast_gather(sbuf, scount, sdt, &rl, root, comm, COLL_GATHERV);
    coll_sched_t *s = create(comm, COLL_GATHERV, req, sdt, comm->rank == root ? rdt : NULL);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = { comm->size, comm->rank, NULL };
    coll_gather_linear(s, &g, sbuf, scount, sdt, &rl, root);
    return go(s, req);
}
int coll_gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int *rcounts,
                 const int *displs, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    return gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm, NULL);
}
int coll_igatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                  const int *rcounts, const int *displs, MPI_Datatype rdt, int root,
                  MPI_Comm comm, MPI_Request *req)
{
    return gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm, req);
}

static int scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_scatter(COLL_SCATTER, sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt,
                                  root, comm, req);
    size_t blk = comm->rank == root ? nbytes(scount, sdt) : nbytes(rcount, rdt);
    enum coll_alg alg = pick(COLL_SCATTER, blk, comm);
    coll_layout_t sl = { (void *)sbuf, sdt, scount, NULL, NULL, NULL, NULL };
    if (!req && alg == COLL_ALG_LINEAR && comm->size == 2)
        return coll_fast2_scatter(&sl, rbuf, rcount, rdt, root, comm, COLL_SCATTER);
    if (!req && alg == COLL_ALG_LINEAR && (comm->rank != root || serial_ok(&sl, comm)))
        return coll_fast_scatter(&sl, rbuf, rcount, rdt, root, comm, COLL_SCATTER);
    coll_sched_t *s = create(comm, COLL_SCATTER, req, sdt, rdt);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = { comm->size, comm->rank, NULL };
    if (alg == COLL_ALG_LINEAR) {
        coll_scatter_linear(s, &g, &sl, rbuf, rcount, rdt, root);
    } else {
        coll_scatter_binomial(s, &g, sbuf, scount, sdt, rbuf, rcount, rdt, root);
    }
    return go(s, req);
}
int coll_scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm)
{
    return scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, NULL);
}
int coll_iscatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req)
{
    return scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, req);
}

static int scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt,
                    void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                    MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_scatter(COLL_SCATTERV, sbuf, 0, scounts, displs, sdt, rbuf, rcount,
                                  rdt, root, comm, req);
    (void)pick(COLL_SCATTERV, 0, comm);
    coll_layout_t sl = { (void *)sbuf, sdt, 0, scounts, displs, NULL, NULL };
    if (!req && comm->size == 2)
        return coll_fast2_scatter(&sl, rbuf, rcount, rdt, root, comm, COLL_SCATTERV);
    if (!req && (comm->rank != root || serial_ok(&sl, comm)))
        return coll_fast_scatter(&sl, rbuf, rcount, rdt, root, comm, COLL_SCATTERV);
    coll_sched_t *s = create(comm, COLL_SCATTERV, req, comm->rank == root ? sdt : NULL, rdt);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = { comm->size, comm->rank, NULL };
    coll_scatter_linear(s, &g, &sl, rbuf, rcount, rdt, root);
    return go(s, req);
}
int coll_scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt,
                  void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    return scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm, NULL);
}
int coll_iscatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt,
                   void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                   MPI_Request *req)
{
    return scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm, req);
}

/* ---- allgather ---------------------------------------------------------------- */

static int allgather_any(enum coll_id id, const void *sbuf, int scount, MPI_Datatype sdt,
                         const coll_layout_t *rl, MPI_Comm comm, MPI_Request *req)
{
    size_t total = 0;
    for (int i = 0; i < comm->size; i++)
        total += lay_bytes(rl, i);
    enum coll_alg alg = pick(id, total, comm);
    /* On 2 ranks both are one message each way. */
    if (!req && comm->size == 2 &&
        (alg == COLL_ALG_LINEAR || (id == COLL_ALLGATHER && alg == COLL_ALG_RECDBL)))
        return coll_fast2_allgather(sbuf, scount, sdt, rl, id, comm);
    /* Each step sends to one peer: the fast path suits any size. */
    if (!req && id == COLL_ALLGATHER && alg == COLL_ALG_RECDBL && coll_is_pof2(comm->size))
        return coll_fast_allgather(sbuf, scount, sdt, rl->buf, rl->count, rl->dt, comm);
    /* On 2 ranks one message each way (allgatherv's choice there); crowded, blocks the
     * transport takes at once. */
    if (!req && alg == COLL_ALG_LINEAR && comm->size <= COLL_FAST_A2A_MAX &&
        serial_ok(rl, comm))
        return coll_fast_allgather_linear(sbuf, scount, sdt, rl, id, comm);
    coll_sched_t *s = create(comm, id, req, sbuf == MPI_IN_PLACE ? NULL : sdt, rl->dt);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = { comm->size, comm->rank, NULL };
    switch (alg) {
    case COLL_ALG_RECDBL: coll_allgather_recdbl(s, &g, sbuf, scount, sdt, rl); break;
    case COLL_ALG_BRUCK: coll_allgather_bruck(s, &g, sbuf, scount, sdt, rl); break;
    case COLL_ALG_LINEAR: coll_allgather_linear(s, &g, sbuf, scount, sdt, rl); break;
    default: coll_allgather_ring(s, &g, sbuf, scount, sdt, rl); break;
    }
    return go(s, req);
}
int coll_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm)
{
    if (comm->remote)
        return coll_inter_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, NULL);
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL, NULL, NULL };
    return allgather_any(COLL_ALLGATHER, sbuf, scount, sdt, &rl, comm, NULL);
}
int coll_iallgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                    MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req);
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL, NULL, NULL };
    return allgather_any(COLL_ALLGATHER, sbuf, scount, sdt, &rl, comm, req);
}
int coll_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                    const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm)
{
    if (comm->remote)
        return coll_inter_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, NULL);
    coll_layout_t rl = { rbuf, rdt, 0, rcounts, displs, NULL, NULL };
    return allgather_any(COLL_ALLGATHERV, sbuf, scount, sdt, &rl, comm, NULL);
}
int coll_iallgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                     const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm,
                     MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, req);
    coll_layout_t rl = { rbuf, rdt, 0, rcounts, displs, NULL, NULL };
    return allgather_any(COLL_ALLGATHERV, sbuf, scount, sdt, &rl, comm, req);
}

/* ---- alltoall ------------------------------------------------------------------ */

static int alltoall_any(enum coll_id id, size_t bytes, coll_layout_t *sl,
                        const coll_layout_t *rl, MPI_Comm comm, MPI_Request *req)
{
    enum coll_alg alg = pick(id, bytes, comm);
    /* The fast path sends one block after the other: fine for one peer or
     * short blocks. */
    if (!req && alg == COLL_ALG_LINEAR && sl->buf != MPI_IN_PLACE &&
        comm->size <= COLL_FAST_A2A_MAX && serial_ok(sl, comm))
        return comm->size == 2 ? coll_fast2_alltoall(sl, rl, comm, id)
                               : coll_fast_alltoall(sl, rl, comm, id);
    coll_sched_t *s = coll_sched_create(comm, id);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = { comm->size, comm->rank, NULL };
    if (req) {
        coll_sched_hold_dt(s, sl->buf == MPI_IN_PLACE ? NULL : sl->dt);
        coll_sched_hold_dt(s, rl->dt);
        for (int i = 0; rl->dts && i < comm->size; i++) {
            if (sl->buf != MPI_IN_PLACE)
                coll_sched_hold_dt(s, sl->dts[i]);
            coll_sched_hold_dt(s, rl->dts[i]);
        }
    }
    if (sl->buf == MPI_IN_PLACE && !rl->dts)
        sl->dt = rl->dt;
    if (alg == COLL_ALG_BRUCK && id != COLL_ALLTOALL)
        alg = COLL_ALG_PAIRWISE;   /* Bruck needs blocks of one size */
    switch (alg) {
    case COLL_ALG_BRUCK: coll_alltoall_bruck(s, &g, sl, rl); break;
    case COLL_ALG_PAIRWISE: coll_alltoall_pairwise(s, &g, sl, rl); break;
    default: coll_alltoall_linear(s, &g, sl, rl); break;
    }
    return go(s, req);
}

static int alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                    MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_alltoall(sbuf, scount, NULL, NULL, NULL, sdt, rbuf, rcount, NULL, NULL,
                                   NULL, rdt, comm, req);
    size_t blk = nbytes(rcount, rdt);
    coll_layout_t sl = { (void *)sbuf, sdt, scount, NULL, NULL, NULL, NULL };
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL, NULL, NULL };
    return alltoall_any(COLL_ALLTOALL, blk, &sl, &rl, comm, req);
}
int coll_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    return alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, NULL);
}
int coll_ialltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    return alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req);
}

int coll_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype sdt,
                   void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rdt,
                   MPI_Comm comm)
{
    return coll_ialltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm, NULL);
}
int coll_ialltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype sdt,
                    void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rdt,
                    MPI_Comm comm, MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_alltoall(sbuf, 0, scounts, sdispls, NULL, sdt, rbuf, 0, rcounts,
                                   rdispls, NULL, rdt, comm, req);
    coll_layout_t sl = { (void *)sbuf, sdt, 0, scounts, sdispls, NULL, NULL };
    coll_layout_t rl = { rbuf, rdt, 0, rcounts, rdispls, NULL, NULL };
    return alltoall_any(COLL_ALLTOALLV, 0, &sl, &rl, comm, req);
}

/* Alltoallw's displacements are ints (bytes); the layouts take MPI_Aint. */
static const MPI_Aint *aint_displs(const int *displs, int n)
{
    MPI_Aint *a = malloc(sizeof(MPI_Aint) * (size_t)(n ? n : 1));
    for (int i = 0; a && i < n; i++)
        a[i] = displs[i];
    return a;
}

int coll_alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                   const MPI_Datatype *sdts, void *rbuf, const int *rcounts, const int *rdispls,
                   const MPI_Datatype *rdts, MPI_Comm comm)
{
    return coll_ialltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm,
                           NULL);
}
int coll_ialltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                    const MPI_Datatype *sdts, void *rbuf, const int *rcounts,
                    const int *rdispls, const MPI_Datatype *rdts, MPI_Comm comm,
                    MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_alltoall(sbuf, 0, scounts, sdispls, sdts, MPI_BYTE, rbuf, 0, rcounts,
                                   rdispls, rdts, MPI_BYTE, comm, req);
    int n = comm->size, inplace = sbuf == MPI_IN_PLACE;
    const MPI_Aint *sd = inplace ? NULL : aint_displs(sdispls, n);
    const MPI_Aint *rd = aint_displs(rdispls, n);
    int rc = CORE_ENOMEM;
    if (rd && (inplace || sd)) {
        coll_layout_t sl = { (void *)sbuf, MPI_BYTE, 0, scounts, NULL, sdts, sd };
        coll_layout_t rl = { rbuf, MPI_BYTE, 0, rcounts, NULL, rdts, rd };
        if (inplace)
            sl = (coll_layout_t){ MPI_IN_PLACE, MPI_BYTE, 0, rcounts, NULL, rdts, rd };
        rc = alltoall_any(COLL_ALLTOALLW, 0, &sl, &rl, comm, req);
    }
    free((void *)sd);
    free((void *)rd);
    return rc;
}
