/*
 * What the collective algorithms share: the p2p wrappers they send and
 * receive with (always on the collective context comm->ctx + 1), temporary
 * buffers, local copies between datatypes, the block layouts of the
 * v-collectives, and the prototypes of every algorithm. The selector
 * (select.c) and the entry points (dispatch.c) see the algorithms only
 * through this header.
 *
 * Every algorithm is a blocking function over p2p that handles any
 * communicator size, count 0, derived datatypes and MPI_IN_PLACE where MPI
 * allows it, and returns 0 or a CORE_* code.
 */
#ifndef RDMPI_COLL_IMPL_H
#define RDMPI_COLL_IMPL_H

#include <stddef.h>
#include "mpi.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/errors.h"
#include "collectives/coll.h"

/* One tag per collective: a mismatched call sequence stalls instead of
 * silently pairing the data of two different collectives. */
enum {
    COLL_TAG_BARRIER = 1, COLL_TAG_BCAST, COLL_TAG_REDUCE, COLL_TAG_ALLREDUCE, COLL_TAG_GATHER,
    COLL_TAG_SCATTER, COLL_TAG_ALLGATHER, COLL_TAG_ALLTOALL
};

/* ---- p2p on the collective context ------------------------------------ */
int coll_send(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int coll_recv(void *buf, size_t count, MPI_Datatype dt, int src, int tag, MPI_Comm comm);
int coll_isend(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req);
int coll_irecv(void *buf, size_t count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
               MPI_Request *req);
/* Sends to dest and receives from src at the same time. */
int coll_sendrecv(const void *sbuf, size_t scount, MPI_Datatype sdt, int dest, void *rbuf,
                  size_t rcount, MPI_Datatype rdt, int src, int tag, MPI_Comm comm);
/* Waits for the n requests (NULL entries are skipped), frees them and
 * returns the first error. */
int coll_waitall(MPI_Request *reqs, int n);

/* ---- buffers ------------------------------------------------------------ */
/* Allocates room for count items of dt in their native layout (extents,
 * holes, lower bound): *raw is what to free, the result is where item 0
 * starts. count 0 gives NULL with *raw NULL. */
void *coll_tmp_alloc(size_t count, MPI_Datatype dt, void **raw);
/* Copies the data of scount items of sdt to rcount items of rdt (the type
 * signatures match, as MPI requires); CORE_ETRUNC when the receive is short. */
int coll_copy(const void *src, size_t scount, MPI_Datatype sdt, void *dst, size_t rcount,
              MPI_Datatype rdt);
/* Packs count items to dst (count * dt->size bytes) / unpacks them from src. */
void coll_pack(void *dst, const void *buf, size_t count, MPI_Datatype dt);
void coll_unpack(void *buf, size_t count, MPI_Datatype dt, const void *src);

/* Largest power of two <= n (n >= 1). */
static inline int coll_pof2(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}
static inline int coll_is_pof2(int n) { return n > 0 && (n & (n - 1)) == 0; }

/* ---- block layouts (rank i's block of a gather/scatter/all* buffer) ----- */
typedef struct coll_layout {
    char *buf;
    MPI_Datatype dt;
    int count;             /* every block's count when counts is NULL */
    const int *counts;     /* v-collectives: per-block counts ... */
    const int *displs;     /* ... and displacements in extents of dt */
} coll_layout_t;

static inline int lay_count(const coll_layout_t *l, int i)
{
    return l->counts ? l->counts[i] : l->count;
}
static inline char *lay_ptr(const coll_layout_t *l, int i)
{
    MPI_Aint d = l->displs ? (MPI_Aint)l->displs[i] : (MPI_Aint)i * l->count;
    return l->buf + d * l->dt->extent;
}
static inline size_t lay_bytes(const coll_layout_t *l, int i)
{
    return (size_t)lay_count(l, i) * l->dt->size;
}

/* ---- shared pieces of the reduction algorithms -------------------------- */
/* Non-power-of-two fold-in of recursive doubling/halving: of the first
 * 2 * (n - pof2) ranks, each even rank sends its vector to the odd rank
 * above, which combines them (even's data first) and takes part in place
 * of both. *newrank is the rank in the power-of-two group, or -1 for a
 * rank that sits out. tmp is scratch for count items. */
int coll_fold_in(void *cur, void *tmp, int count, MPI_Datatype dt, MPI_Op op, int tag,
                 MPI_Comm comm, int *newrank);
/* The real rank of power-of-two group member newrank. */
static inline int coll_fold_real(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

/* Recursive halving reduce-scatter over the power-of-two group (ascending
 * distances, so every partial result covers a contiguous run of ranks and
 * non-commutative operations keep MPI's order). The vector is split in
 * pof2 chunks (cnts/disps in items, disps[pof2] = count); *cur holds this rank's vector and
 * *other is scratch of the same size; they may be swapped. On return this
 * rank's chunk range [*lo, *hi) of *cur is reduced over the group, and
 * los/his (log2(pof2) entries) record the range before each halving step,
 * for the mirrored allgather or gather. */
int coll_rs_halving(void **cur, void **other, const int *cnts, const int *disps,
                    MPI_Datatype dt, MPI_Op op, int newrank, int pof2, int rem, int *lo, int *hi,
                    int *los, int *his, int tag, MPI_Comm comm);
/* Splits count items in n chunks (sizes differ by at most one, larger
 * first); disps has n + 1 entries, disps[n] = count. */
void coll_split(int count, int n, int *cnts, int *disps);

/* ---- algorithms --------------------------------------------------------- */
int coll_barrier_dissemination(MPI_Comm comm);

int coll_bcast_binomial(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int coll_bcast_scatter_ring(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);

int coll_reduce_binomial(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root, MPI_Comm comm);
int coll_reduce_rsag(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, MPI_Comm comm);

int coll_allreduce_recdbl(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                          MPI_Comm comm);
int coll_allreduce_rabenseifner(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                MPI_Op op, MPI_Comm comm);
int coll_allreduce_ring(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm);
int coll_allreduce_reduce_bcast(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                MPI_Op op, MPI_Comm comm);

/* Gather/scatter: the root's buffer is described by a layout (uniform for
 * gather/scatter, counts and displacements for the v forms). */
int coll_gather_binomial(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, int root, MPI_Comm comm);
int coll_gather_linear(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                       int root, MPI_Comm comm);
int coll_scatter_binomial(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                          MPI_Datatype rdt, int root, MPI_Comm comm);
int coll_scatter_linear(const coll_layout_t *sl, void *rbuf, int rcount, MPI_Datatype rdt,
                        int root, MPI_Comm comm);

/* Allgather(v): sbuf may be MPI_IN_PLACE (this rank's block is already in rl). */
int coll_allgather_recdbl(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                          MPI_Comm comm);
int coll_allgather_bruck(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                         MPI_Comm comm);
int coll_allgather_ring(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                        MPI_Comm comm);

/* Alltoall(v): sl->buf may be MPI_IN_PLACE (then rl describes both). */
int coll_alltoall_pairwise(const coll_layout_t *sl, const coll_layout_t *rl, MPI_Comm comm);
int coll_alltoall_linear(const coll_layout_t *sl, const coll_layout_t *rl, MPI_Comm comm);
int coll_alltoall_bruck(const coll_layout_t *sl, const coll_layout_t *rl, MPI_Comm comm);
/* MPI_IN_PLACE: copies rl's n blocks to scratch with the same layout, which
 * *sl then describes; *raw is what to free. */
int coll_alltoall_inplace_src(const coll_layout_t *rl, int n, coll_layout_t *sl, void **raw);

/* ---- selection (select.c) ------------------------------------------------ */
enum coll_id {
    COLL_BARRIER, COLL_BCAST, COLL_REDUCE, COLL_ALLREDUCE, COLL_GATHER, COLL_GATHERV,
    COLL_SCATTER, COLL_SCATTERV, COLL_ALLGATHER, COLL_ALLGATHERV, COLL_ALLTOALL, COLL_ALLTOALLV,
    COLL_NCOLLS
};

enum coll_alg {
    COLL_ALG_AUTO = 0,
    COLL_ALG_DISSEMINATION, COLL_ALG_BINOMIAL, COLL_ALG_SCATTER_RING, COLL_ALG_RSAG,
    COLL_ALG_RECDBL, COLL_ALG_RABENSEIFNER, COLL_ALG_RING, COLL_ALG_REDUCE_BCAST,
    COLL_ALG_LINEAR, COLL_ALG_BRUCK, COLL_ALG_PAIRWISE,
    COLL_NALGS
};

/* What the selection rules look at. Every field must be the same on all
 * ranks of the call, or ranks would pick different algorithms. */
typedef struct coll_query {
    size_t bytes;     /* message size as the table for this collective defines it */
    int size;         /* communicator size */
    int count;        /* reductions: items (count < pof2 favours recursive doubling) */
    int commute;      /* reductions: the operation commutes */
} coll_query_t;

/* The algorithm to run: the forced one (RDMPI_COLL_<NAME>) when it can
 * handle the query, else the first matching row of the table. */
enum coll_alg coll_select(enum coll_id id, const coll_query_t *q);
const char *coll_alg_name(enum coll_alg alg);

#endif
