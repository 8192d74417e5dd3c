/*
 * What the collective algorithms share: groups of ranks they run over,
 * temporary buffers, local copies between datatypes, the block layouts of
 * the v- and w-collectives, the pieces of the reduction algorithms, the
 * prototypes of every algorithm, and the selector. The entry points
 * (dispatch*.c) see the algorithms only through this header.
 *
 * Every algorithm is a builder: it appends the rounds of its collective to
 * a schedule (sched.h) and never waits. Builders handle any group size,
 * count 0, derived datatypes and MPI_IN_PLACE where MPI allows it, and end
 * with a fence, so another builder may append to the same schedule (the
 * node-aware algorithms compose flat ones this way).
 */
#ifndef RDMPI_COLL_IMPL_H
#define RDMPI_COLL_IMPL_H

#include <stddef.h>
#include "mpi.h"
#include "core/comm.h"
#include "core/config.h"
#include "core/runtime.h"
#include "core/datatype.h"
#include "core/request.h"
#include "core/errors.h"
#include "core/op.h"
#include "collectives/coll.h"
#include "collectives/sched.h"

/* ---- the ranks an algorithm runs over ------------------------------------ */
/* A group of n communicator ranks; this rank is member me. map[i] is the
 * communicator rank of member i (NULL: member i is rank i). */
typedef struct coll_grp {
    int n, me;
    const int *map;
} coll_grp_t;

static inline int grp_peer(const coll_grp_t *g, int i)
{
    return g->map ? g->map[i] : i;
}

/* ---- buffers ------------------------------------------------------------ */
/* Copies the data of scount items of sdt to rcount items of rdt (the type
 * signatures match, as MPI requires); CORE_ETRUNC when the receive is short. */
int coll_copy(const void *src, size_t scount, MPI_Datatype sdt, void *dst, size_t rcount,
              MPI_Datatype rdt);

/* Largest power of two <= n (n >= 1). */
/* A completed receive's error as a CORE_* code (0 when it succeeded). */
static inline int coll_req_err(MPI_Request r)
{
    int err = r->status.MPI_ERROR;
    if (err == MPI_SUCCESS)
        return 0;
    return err == MPI_ERR_TRUNCATE ? CORE_ETRUNC : CORE_EPEER;
}

static inline int coll_pof2(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}
static inline int coll_is_pof2(int n) { return n > 0 && (n & (n - 1)) == 0; }
static inline int coll_log2(int pof2)
{
    int k = 0;
    while ((1 << k) < pof2)
        k++;
    return k;
}

/* ---- block layouts (rank i's block of a gather/scatter/all* buffer) ----- */
typedef struct coll_layout {
    char *buf;
    MPI_Datatype dt;
    int count;                 /* every block's count when counts is NULL */
    const int *counts;         /* v/w-collectives: per-block counts ... */
    const int *displs;         /* ... and displacements in extents of dt */
    const MPI_Datatype *dts;   /* w-collectives: per-block datatypes ... */
    const MPI_Aint *bdispls;   /* ... and displacements in bytes */
} coll_layout_t;

static inline int lay_count(const coll_layout_t *l, int i)
{
    return l->counts ? l->counts[i] : l->count;
}
static inline MPI_Datatype lay_dt(const coll_layout_t *l, int i)
{
    return l->dts ? l->dts[i] : l->dt;
}
static inline char *lay_ptr(const coll_layout_t *l, int i)
{
    if (l->dts)
        return l->buf + l->bdispls[i];
    MPI_Aint d = l->displs ? (MPI_Aint)l->displs[i] : (MPI_Aint)i * l->count;
    return l->buf + d * l->dt->extent;
}
static inline size_t lay_bytes(const coll_layout_t *l, int i)
{
    return (size_t)lay_count(l, i) * lay_dt(l, i)->size;
}

/* ---- shared pieces of the reduction algorithms -------------------------- */
/* Non-power-of-two fold-in of recursive doubling/halving: of the first
 * 2 * (n - pof2) members, each even one sends its vector cur to the odd one
 * above, which combines them (even's data first) into cur and takes part
 * in place of both. Returns the member's index in the power-of-two group,
 * or -1 for one that sits out. tmp is scratch for count items. */
int coll_fold_in(coll_sched_t *s, const coll_grp_t *g, void *cur, void *tmp, int count,
                 MPI_Datatype dt, MPI_Op op);
/* The group member standing for power-of-two group member newrank. */
static inline int coll_fold_real(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

/* Recursive halving reduce-scatter over the power-of-two group (ascending
 * distances, so every partial result covers a contiguous run of ranks and
 * operations that do not commute keep MPI's order). The vector is split in
 * pof2 chunks (disps in items, disps[pof2] = count); *cur holds this
 * member's vector and *other is scratch of the same size; they may be
 * swapped. Afterwards this member's chunk range [*lo, *hi) of *cur is
 * reduced over the group, and los/his (log2(pof2) entries) record the range
 * before each halving step, for the mirrored allgather or gather. With ro
 * (not NULL), *cur is only read (it may be the user's send buffer), and ro
 * is scratch of the same size that takes its place after the first step:
 * only for operations coll_op_symmetric accepts. */
void coll_rs_halving(coll_sched_t *s, const coll_grp_t *g, void **cur, void **other,
                     const int *disps, MPI_Datatype dt, MPI_Op op, int newrank, int pof2,
                     void *ro, int *lo, int *hi, int *los, int *his);
/* Whether op gives bitwise the same result whatever the order of its two
 * operands (the predefined operations; a user's "commutative" function
 * need not), which lets an algorithm combine into whichever buffer is free,
 * and read the user's send buffer instead of copying it first (ro above). */
static inline int coll_op_symmetric(MPI_Op op)
{
    return op->predefined;
}
/* Splits count items in n chunks (sizes differ by at most one, larger
 * first); disps has n + 1 entries, disps[n] = count. */
void coll_split(int count, int n, int *cnts, int *disps);

/* ---- algorithms --------------------------------------------------------- */
void coll_barrier_dissemination(coll_sched_t *s, const coll_grp_t *g);
void coll_barrier_linear(coll_sched_t *s, const coll_grp_t *g);

void coll_bcast_binomial(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                         MPI_Datatype dt, int root);
void coll_bcast_scatter_ring(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                             MPI_Datatype dt, int root);
void coll_bcast_scatter_recdbl(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                               MPI_Datatype dt, int root);
void coll_bcast_linear(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                       MPI_Datatype dt, int root);

void coll_reduce_binomial(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                          int count, MPI_Datatype dt, MPI_Op op, int root);
void coll_reduce_rsag(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                      int count, MPI_Datatype dt, MPI_Op op, int root);
/* The linear reduce and allreduce's shared steps: the scratch buffer of n slots (rank i's
 * vector in slot i, native layout, count items apart) with this rank's own copied in and the
 * others' receives scheduled (NULL if it cannot be had: the schedule failed); and, after a
 * fence, the combination v0 op (v1 op ... (vn-2 op vn-1)) into rbuf (MPI's canonical order,
 * the same operands in the same order on every rank), then a fence. */
char *coll_linear_gather(coll_sched_t *s, const coll_grp_t *g, const void *mine, size_t cnt,
                         MPI_Datatype dt);
void coll_linear_combine(coll_sched_t *s, int n, const char *all, void *rbuf, size_t cnt,
                         MPI_Datatype dt, MPI_Op op);
void coll_reduce_linear(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                        int count, MPI_Datatype dt, MPI_Op op, int root);

void coll_allreduce_recdbl(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                           int count, MPI_Datatype dt, MPI_Op op);
void coll_allreduce_rabenseifner(coll_sched_t *s, const coll_grp_t *g, const void *sbuf,
                                 void *rbuf, int count, MPI_Datatype dt, MPI_Op op);
void coll_allreduce_ring(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                         int count, MPI_Datatype dt, MPI_Op op);
void coll_allreduce_linear(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                           int count, MPI_Datatype dt, MPI_Op op);

/* Gather/scatter: the root's buffer is described by a layout (uniform for
 * gather/scatter, counts and displacements for the v forms). */
void coll_gather_binomial(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                          MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root);
void coll_gather_linear(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                        MPI_Datatype sdt, const coll_layout_t *rl, int root);
void coll_scatter_binomial(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                           MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                           int root);
void coll_scatter_linear(coll_sched_t *s, const coll_grp_t *g, const coll_layout_t *sl,
                         void *rbuf, int rcount, MPI_Datatype rdt, int root);

/* Allgather(v): sbuf may be MPI_IN_PLACE (this rank's block is already in rl). */
void coll_allgather_recdbl(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                           MPI_Datatype sdt, const coll_layout_t *rl);
void coll_allgather_bruck(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                          MPI_Datatype sdt, const coll_layout_t *rl);
void coll_allgather_ring(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                         MPI_Datatype sdt, const coll_layout_t *rl);
void coll_allgather_linear(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                           MPI_Datatype sdt, const coll_layout_t *rl);

/* Alltoall(v/w): sl->buf may be MPI_IN_PLACE (then rl describes both). */
void coll_alltoall_pairwise(coll_sched_t *s, const coll_grp_t *g, const coll_layout_t *sl,
                            const coll_layout_t *rl);
void coll_alltoall_linear(coll_sched_t *s, const coll_grp_t *g, const coll_layout_t *sl,
                          const coll_layout_t *rl);
void coll_alltoall_bruck(coll_sched_t *s, const coll_grp_t *g, const coll_layout_t *sl,
                         const coll_layout_t *rl);
/* MPI_IN_PLACE: adds the copy of rl's n blocks to scratch with the same
 * layout, which *sl then describes (and returns 0), or fails the schedule. */
int coll_alltoall_inplace_src(coll_sched_t *s, const coll_layout_t *rl, int n,
                              coll_layout_t *sl);

/* Reduce-scatter: rank i gets the reduction of block i (counts[i] items,
 * blocks back to back in rank order); sbuf may be MPI_IN_PLACE (the input
 * is in rbuf, which must hold the whole vector). */
void coll_reduce_scatter_halving(coll_sched_t *s, const coll_grp_t *g, const void *sbuf,
                                 void *rbuf, const int *counts, MPI_Datatype dt, MPI_Op op);
void coll_reduce_scatter_pairwise(coll_sched_t *s, const coll_grp_t *g, const void *sbuf,
                                  void *rbuf, const int *counts, MPI_Datatype dt, MPI_Op op);

/* Scan (exclusive when excl): sbuf may be MPI_IN_PLACE. */
void coll_scan_recdbl(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                      int count, MPI_Datatype dt, MPI_Op op, int excl);
void coll_scan_linear(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                      int count, MPI_Datatype dt, MPI_Op op, int excl);

/* ---- node-aware (two-level) algorithms (two_level.c) --------------------- */
/* This communicator's node layout: *nodes is the number of nodes its ranks
 * span and *shared is 1 when some node holds more than one of them. The
 * same on every rank (see comm_nodes in two_level.c). */
void coll_comm_nodes(MPI_Comm comm, int *nodes, int *shared);
/* Whether comm is crowded (coll_query_t): the same on every rank. */
int coll_comm_crowded(MPI_Comm comm);
void coll_barrier_two_level(coll_sched_t *s);
void coll_bcast_two_level(coll_sched_t *s, void *buf, int count, MPI_Datatype dt, int root);
void coll_reduce_two_level(coll_sched_t *s, const void *sbuf, void *rbuf, int count,
                           MPI_Datatype dt, MPI_Op op, int root);
void coll_allreduce_two_level(coll_sched_t *s, const void *sbuf, void *rbuf, int count,
                              MPI_Datatype dt, MPI_Op op);

/* ---- selected builders (dispatch.c): the table's choice for group g ----- */
void coll_build_barrier(coll_sched_t *s, const coll_grp_t *g);
void coll_build_bcast(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                      MPI_Datatype dt, int root);
void coll_build_reduce(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                       int count, MPI_Datatype dt, MPI_Op op, int root);
void coll_build_allreduce(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                          int count, MPI_Datatype dt, MPI_Op op);

/* ---- blocking fast paths (fast.c) ---------------------------------------- */
/* The selected algorithm as direct p2p calls, for blocking calls the
 * dispatchers find eligible (the conditions are in fast.c); each sends the
 * messages of its schedule builder, so the two mix across ranks. */
#define COLL_FAST_A2A_MAX 16
/* Largest message a fast path sends to several peers one after the other:
 * below the default eager limits of the transports, so the sends leave at
 * once. (Above an eager limit a send waits for its receiver, which has
 * posted already: slower, never stuck.) */
#define COLL_FAST_SERIAL_BYTES ((size_t)8192)
int coll_fast_barrier(MPI_Comm comm);
int coll_fast_barrier_linear(MPI_Comm comm);
int coll_fast_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int coll_fast_bcast_linear(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int coll_fast_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm);
int coll_fast_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, MPI_Comm comm);
int coll_fast_alltoall(const coll_layout_t *sl, const coll_layout_t *rl, MPI_Comm comm, int id);
int coll_fast_scatter(const coll_layout_t *sl, void *rbuf, int rcount, MPI_Datatype rdt,
                      int root, MPI_Comm comm, int id);
int coll_fast_gather(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                     int root, MPI_Comm comm, int id);
/* The linear allgather over a layout (v form too) of collective id, and the reduce of 2
 * ranks (coll4: on 2 ranks each is one message). */
int coll_fast_allgather_linear(const void *sbuf, int scount, MPI_Datatype sdt,
                               const coll_layout_t *rl, int id, MPI_Comm comm);
int coll_fast_reduce2(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, MPI_Comm comm);
/* The reduce of 2 ranks (reduce_binomial.c, fast.c): on one node, with a commutative
 * operation, a vector of more than COLL_REDUCE2_MIN and at most COLL_REDUCE2_MAX bytes goes
 * from the leaf to the root as packed bytes in chunks of COLL_REDUCE2_CHUNK (the last one
 * shorter), each below the shm eager limit: the leaf copies chunk k + 1 into the ring while
 * the root takes chunk k out and combines it. One such message above the eager limit is a
 * rendezvous (a handshake and the root's own CMA read, then the whole reduction): OSU's
 * reduce of 64 KiB MPI_CHAR sums on 2 ranks took 13.9 us as one message, 6.8 as 4 KiB
 * chunks, 15 as two halves (two rendezvous). The chunk is a multiple of every predefined
 * element's size (pairs included: 6, 12, 20 bytes), so no chunk ends inside an element
 * whatever type either rank describes its vector with. Returns the number of chunks, 0
 * for one plain message; the same on both ranks (bytes, the operation and the node layout
 * are). */
#define COLL_REDUCE2_CHUNK ((size_t)3840)
/* Bytes in chunk k of a vector of the given bytes (the last one may be short). */
static inline size_t coll_reduce2_len(size_t bytes, size_t k)
{
    size_t off = k * COLL_REDUCE2_CHUNK;
    return bytes - off < COLL_REDUCE2_CHUNK ? bytes - off : COLL_REDUCE2_CHUNK;
}
#define COLL_REDUCE2_MIN ((size_t)4096)
#define COLL_REDUCE2_MAX ((size_t)256 << 10)
size_t coll_reduce2_chunks(MPI_Comm comm, const coll_grp_t *g, size_t bytes, MPI_Op op);
/* The allreduce of 2 ranks chunks only up to this many bytes: each rank then copies its
 * vector through the ring and the partner's out of it, where a rendezvous reads it once by
 * CMA; OSU 7.4 allreduce, 2 ranks, MPI_CHAR sums, medians of 5, load average 13-20: 8 KiB
 * 1.9 against 6.4 us, 64 KiB 10.8 against 15.1, 128 KiB 19.6 against 19.7, 256 KiB 38.9
 * against 31.1. */
#define COLL_ALLREDUCE2_MAX ((size_t)128 << 10)
/* A vector (cnt items of dt) to peer: one message (chunks 0), or its packed bytes in that
 * many chunks, all sent in one round. Used by the 2-rank reduce and allreduce (recdbl). */
void coll_reduce2_send(coll_sched_t *s, const void *mine, size_t cnt, MPI_Datatype dt, int peer,
                       size_t chunks);
/* The receiving side of coll_reduce2_send: the vector in dst (cnt items of dt) by the start
 * of the next round (this fences). */
void coll_reduce2_recv(coll_sched_t *s, void *dst, size_t cnt, MPI_Datatype dt, int peer,
                       size_t chunks);
/* The allreduce by exchange of every vector (crowded nodes: coll_allreduce_linear). */
int coll_fast_allreduce_linear(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                               MPI_Op op, MPI_Comm comm);

/* ---- blocking fast paths of 2 ranks (fast2.c) ------------------------------ */
/* The exchange paths send the messages of fast.c's (same conditions), sending first when the
 * message leaves at once. */
int coll_fast2_barrier(MPI_Comm comm);
int coll_fast2_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm);
int coll_fast2_allgather(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                         int id, MPI_Comm comm);
int coll_fast2_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
/* The blocking collectives of 2 ranks on one node (fast2.c: broadcast, scatter(v), gather(v),
 * allgather(v), alltoall(v,w)) send a message of more than COLL_PAIR_CHUNK_MIN bytes, and at
 * most COLL_PAIR_ONEWAY_MAX (one way: broadcast, scatter, gather) or COLL_PAIR_CHUNK_MAX (a
 * block of an exchange: allgather, alltoall), as its packed bytes in chunks of
 * COLL_PAIR_CHUNK (the last one shorter), each below the shm eager limit (32 KiB at 2
 * local ranks), all receives posted before any chunk is sent: the sender copies chunk k + 1
 * into the ring while the receiver takes chunk k out, where one message would be a
 * rendezvous (a handshake, then the receiver's CMA read of the whole message once the
 * sender has arrived). OSU 7.4, 2 ranks, medians of 3, load average ~15, 2026-12-07, one
 * message against chunks: bcast 64 KiB 8.2 against 3.5 us (Open MPI 6.1-6.5), 128 KiB 9.4-9.9
 * against 6.0-6.2 (8.2-8.8), 256 KiB 11.7 against 12.9 (so one message there); allgather
 * 64 KiB blocks 13.1 against 6.2 (8.3-8.6), 128 KiB 16.6-16.8 against 11.4-11.5 (11.7-12.9),
 * 256 KiB 26.8 against 21.9 (21.1-22.2); alltoall 64 KiB 17.9 against 7.3 (11.0), 256 KiB
 * 38.3 against 29.2 (31.3); gather 64 KiB 12.2 against 4.2 (7.4-9.2); scatter 64 KiB 10.1
 * against 4.1 (8.8). Nothing is combined, so a chunk may end inside an element. */
#define COLL_PAIR_CHUNK ((size_t)16 << 10)
#define COLL_PAIR_CHUNK_MIN ((size_t)32 << 10)
#define COLL_PAIR_ONEWAY_MAX ((size_t)128 << 10)
#define COLL_PAIR_CHUNK_MAX ((size_t)256 << 10)
int coll_fast2_alltoall(const coll_layout_t *sl, const coll_layout_t *rl, MPI_Comm comm, int id);
int coll_fast2_gather(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                      int root, MPI_Comm comm, int id);
int coll_fast2_scatter(const coll_layout_t *sl, void *rbuf, int rcount, MPI_Datatype rdt,
                       int root, MPI_Comm comm, int id);

/* ---- selection (select.c) ------------------------------------------------ */
enum coll_id {
    COLL_BARRIER, COLL_BCAST, COLL_REDUCE, COLL_ALLREDUCE, COLL_GATHER, COLL_GATHERV,
    COLL_SCATTER, COLL_SCATTERV, COLL_ALLGATHER, COLL_ALLGATHERV, COLL_ALLTOALL, COLL_ALLTOALLV,
    COLL_ALLTOALLW, COLL_REDUCE_SCATTER, COLL_REDUCE_SCATTER_BLOCK, COLL_SCAN, COLL_EXSCAN,
    COLL_NEIGHBOR_ALLGATHER, COLL_NEIGHBOR_ALLGATHERV, COLL_NEIGHBOR_ALLTOALL,
    COLL_NEIGHBOR_ALLTOALLV, COLL_NEIGHBOR_ALLTOALLW,
    COLL_NCOLLS
};

/* "MPI_Allreduce": for diagnostics. */
const char *coll_name(int id);

enum coll_alg {
    COLL_ALG_AUTO = 0,
    COLL_ALG_DISSEMINATION, COLL_ALG_BINOMIAL, COLL_ALG_SCATTER_RING, COLL_ALG_SCATTER_RECDBL,
    COLL_ALG_RSAG, COLL_ALG_RECDBL, COLL_ALG_RABENSEIFNER, COLL_ALG_RING,
    COLL_ALG_REDUCE_BCAST, COLL_ALG_LINEAR, COLL_ALG_BRUCK, COLL_ALG_PAIRWISE,
    COLL_ALG_HALVING, COLL_ALG_TWO_LEVEL,
    COLL_NALGS
};

/* What the selection rules look at. Every field must be the same on all
 * ranks of the call, or ranks would pick different algorithms. */
typedef struct coll_query {
    size_t bytes;     /* message size as the table for this collective defines it */
    int size;         /* group size */
    int count;        /* reductions: items (count < pof2 favours recursive doubling) */
    int commute;      /* reductions: the operation commutes */
    int nodes;        /* nodes the group spans (0: not the whole communicator) */
    int shared;       /* some node holds more than one rank of the group */
    int crowded;      /* the group is ranks of this job on one node, which has more ranks
                         than cores (waiting ranks yield or sleep: coll_comm_crowded) */
} coll_query_t;

/* The settings (coll_config.c): alg[id] is the index of the chosen name in the
 * RDMPI_COLL_<NAME> row's choices (0: "auto"). */
typedef struct coll_config {
    int alg[COLL_NCOLLS];
    int sim_ppn;
} coll_config_t;

/* The algorithm to run: the forced one (RDMPI_COLL_<NAME>) when it can
 * handle the query, else the first matching row of the table. */
enum coll_alg coll_select(enum coll_id id, const coll_query_t *q);
const char *coll_alg_name(enum coll_alg alg);
/* RDMPI_COLL_SIM_PPN: > 0 pretends every that many consecutive world
 * ranks form a node (testing the node-aware algorithms on one machine). */
int coll_sim_ppn(void);

/* The collectives layer's instance, hung off the base instance (core_rt->coll, opaque
 * there): made by coll_init, freed by coll_fini. */
struct coll_buf {
    void *p;
    size_t size;
};
#define COLL_CACHE_SLOTS 8
typedef struct coll_state {
    /* select.c: set by coll_init from the settings, read-only afterwards. */
    enum coll_alg forced[COLL_NCOLLS];
    size_t first_rule[COLL_NCOLLS];   /* the first row of each collective in the table */
    int sim_ppn;
    /* sched.c: the schedules of nonblocking collectives that are running, oldest first,
     * the pool of free ones, and scratch blocks kept for the next collectives. */
    struct coll_sched *active_head, *active_tail, *pool;
    int hook_id;                      /* progress hook: woken while schedules are active */
    int pool_size, in_hook;
    struct coll_buf cache[COLL_CACHE_SLOTS];
    size_t cache_bytes;
} coll_state_t;
#define COLL (core_rt->coll)

#endif
