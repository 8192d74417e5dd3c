/*
 * Blocking fast paths of 2-rank communicators: the barrier, allreduce,
 * allgather(v) and alltoall(v,w) as one exchange with the partner, the
 * scatter(v) with the root's own copy beside its send, and the gather(v)
 * with the leaf's long block taken first; the broadcast's message and the
 * allgather's blocks of a few tens of KiB in eager chunks (pair_chunks,
 * COLL_PAIR_CHUNK in coll_impl.h).
 *
 * Why a file of their own: fast.c's paths post every receive before any
 * send, since a blocking send above the eager limit waits for its partner's
 * receive. On 2 ranks the exchange is the whole collective, and the time
 * from one rank's arrival to the partner's release is what OSU measures
 * (the barrier is nothing else): posting the receive first puts its cost
 * (a request, the unexpected queue's search) on that path. Here the send
 * leaves first when p2p_send_eager can take it at once (no request, no
 * wait), and only then is the receive posted; a send that cannot leave at
 * once falls back to fast.c's order, so two rendezvous sends never wait on
 * each other.
 *
 * The exchange paths send exactly the messages of fast.c's (and so of the
 * schedule builders they stand for) and take the sequence number the same
 * way, so a rank here and a rank on another path still pair up. (A reduce
 * of 32 KiB or more with each rank combining one half, the halves crossing,
 * was slower in OSU's back-to-back loop: 64 KiB MPI_CHAR sums 10.4-12.1 us
 * against 8.3-8.9, load average 15: three rendezvous handshakes per call
 * instead of one.)
 */
#include <string.h>
#include "collectives/coll_impl.h"
#include "core/progress.h"
#include "p2p/p2p.h"

/* One call in progress: its messages' tag and context, the partner, the name for errors. */
typedef struct pair {
    MPI_Comm comm;
    uint32_t ctx;
    int tag, peer;
    const char *fn;
} pair_t;

static pair_t pair_begin(MPI_Comm comm, int id)
{
    return (pair_t){ comm, comm->ctx + 1, coll_sched_tag(comm, id), comm->rank ^ 1,
                     coll_name(id) };
}

static int post(const pair_t *p, void *buf, size_t count, MPI_Datatype dt, MPI_Request *r)
{
    return p2p_irecv(buf, count, dt, p->peer, p->tag, p->comm, p->ctx, r);
}

static int send(const pair_t *p, const void *buf, size_t count, MPI_Datatype dt)
{
    return p2p_send(buf, count, dt, p->peer, p->tag, p->comm, p->ctx, CORE_MODE_STANDARD,
                    p->fn);
}

/* Waits for a posted receive and frees it: its error as a CORE_* code. */
static int wait(const pair_t *p, MPI_Request r)
{
    core_wait_req(r, p->fn);
    int rc = coll_req_err(r);
    core_req_free(r);
    return rc;
}

/* Takes back a receive after a local error (or waits for it if it matched). */
static void drop(const pair_t *p, MPI_Request r)
{
    p2p_cancel(r);
    (void)wait(p, r);
}

/* Sends sbuf to the partner and posts the receive of its message into rbuf: the send first
 * when it leaves at once, else the receive first (the partner may be in a blocking
 * rendezvous send too). *r is the posted receive when this returns 0. */
static int swap_start(const pair_t *p, const void *sbuf, size_t scount, MPI_Datatype sdt,
                      void *rbuf, size_t rcount, MPI_Datatype rdt, MPI_Request *r)
{
    int rc = p2p_send_eager(sbuf, scount, sdt, p->peer, p->tag, p->comm, p->ctx);
    if (rc != 1)
        return rc ? rc : post(p, rbuf, rcount, rdt, r);
    if ((rc = post(p, rbuf, rcount, rdt, r)))
        return rc;
    if ((rc = send(p, sbuf, scount, sdt)))
        drop(p, *r);
    return rc;
}

/* Waits for the receive swap_start posted, or takes it back when rc (local work done
 * meanwhile) failed. */
static int swap_end(const pair_t *p, MPI_Request r, int rc)
{
    if (rc) {
        drop(p, r);
        return rc;
    }
    return wait(p, r);
}

/* How many chunks of COLL_PAIR_CHUNK a message of the given bytes between the 2 ranks of comm
 * goes in, up to max bytes (at most COLL_PAIR_CHUNK_MAX): 0 for one plain message. The same
 * on both ranks (the bytes and the node layout are). */
static size_t pair_chunks(MPI_Comm comm, size_t bytes, size_t max)
{
    if (bytes <= COLL_PAIR_CHUNK_MIN || bytes > max)
        return 0;
    int nodes = 0, shared = 0;
    coll_comm_nodes(comm, &nodes, &shared);
    return nodes == 1 ? (bytes + COLL_PAIR_CHUNK - 1) / COLL_PAIR_CHUNK : 0;
}

static size_t chunk_len(size_t bytes, size_t k)
{
    size_t off = k * COLL_PAIR_CHUNK;
    return bytes - off < COLL_PAIR_CHUNK ? bytes - off : COLL_PAIR_CHUNK;
}

/* Sends cnt items of dt at buf to the partner as n chunks of its packed bytes. */
static int chunks_send(const pair_t *p, const void *buf, size_t cnt, MPI_Datatype dt, size_t n)
{
    size_t bytes = cnt * dt->size, pbytes = bytes;
    const char *d = buf;
    void *packed = NULL;
    if (!core_dt_is_contig(dt)) {
        if (!(packed = coll_scratch_get(&pbytes)))
            return CORE_ENOMEM;
        core_dt_pack(packed, buf, cnt, dt);
        d = packed;
    }
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++)
        rc = send(p, d + k * COLL_PAIR_CHUNK, chunk_len(bytes, k), MPI_BYTE);
    if (packed)
        coll_scratch_put(packed, pbytes);
    return rc;
}

/* The receiving side of chunks_send: the chunks' receives, posted into the user's buffer, or
 * into packed scratch when the datatype has holes (unpacked once all are in). */
typedef struct chunks_in {
    MPI_Request r[COLL_PAIR_CHUNK_MAX / COLL_PAIR_CHUNK];
    size_t posted, cnt, bytes, pbytes;
    void *buf, *packed;
    MPI_Datatype dt;
} chunks_in_t;

/* Posts the n chunks of cnt items of dt into buf; on failure, chunks_end takes back those
 * posted. */
static int chunks_post(const pair_t *p, chunks_in_t *in, void *buf, size_t cnt,
                       MPI_Datatype dt, size_t n)
{
    *in = (chunks_in_t){ .cnt = cnt, .bytes = cnt * dt->size, .buf = buf, .dt = dt };
    in->pbytes = in->bytes;
    if (n > sizeof(in->r) / sizeof(in->r[0]))
        return CORE_EINVAL;   /* not a count pair_chunks gives */
    char *d = buf;
    if (!core_dt_is_contig(dt)) {
        if (!(in->packed = coll_scratch_get(&in->pbytes)))
            return CORE_ENOMEM;
        d = in->packed;
    }
    for (; in->posted < n; in->posted++) {
        int rc = post(p, d + in->posted * COLL_PAIR_CHUNK, chunk_len(in->bytes, in->posted),
                      MPI_BYTE, &in->r[in->posted]);
        if (rc)
            return rc;
    }
    return 0;
}

/* Waits for every chunk posted (their first error), or takes them back when rc (a local
 * failure to post or send) is an error; then the data in place. */
static int chunks_end(const pair_t *p, chunks_in_t *in, int rc)
{
    int local = rc;
    for (size_t k = 0; k < in->posted; k++) {
        if (local) {
            drop(p, in->r[k]);
            continue;
        }
        int wrc = wait(p, in->r[k]);
        rc = rc ? rc : wrc;
    }
    if (rc == 0 && in->packed)
        core_dt_unpack(in->buf, in->cnt, in->dt, in->packed, in->bytes);
    if (in->packed)
        coll_scratch_put(in->packed, in->pbytes);
    return rc;
}

int coll_fast2_barrier(MPI_Comm comm)
{
    /* coll_barrier_dissemination on 2 ranks: one empty message each way */
    pair_t p = pair_begin(comm, COLL_BARRIER);
    MPI_Request r;
    int rc = swap_start(&p, NULL, 0, MPI_BYTE, NULL, 0, MPI_BYTE, &r);
    return rc ? rc : swap_end(&p, r, 0);
}

/* The vectors crossing in chunks (coll_reduce2_chunks: the messages of the recdbl schedule's
 * coll_reduce2_send): every receive of the partner's chunks posted into theirs, then each
 * chunk sent, and after each send the partner's chunks that have landed combined into rbuf
 * in order; the rest once all have left. So each side copies its chunks into the ring while
 * the other takes them out, without waiting for the partner's chunk k before sending k + 1
 * (a lockstep stalls whenever the partner is descheduled). Chunk k of in (rbuf with
 * MPI_IN_PLACE) has left before it is overwritten: chunks are combined only once sent.
 * Whole items per chunk (the chunk a multiple of the item size), else the whole vector at
 * the end. */
static int allreduce2_chunks(const pair_t *p, const void *in, void *rbuf, void *theirs,
                             size_t cnt, MPI_Datatype dt, MPI_Op op, size_t n)
{
    MPI_Request r[COLL_REDUCE2_MAX / COLL_REDUCE2_CHUNK + 1];
    size_t bytes = cnt * dt->size;
    int each = COLL_REDUCE2_CHUNK % dt->size == 0;
    if (n > sizeof(r) / sizeof(r[0]))
        return CORE_EINVAL;   /* not a size coll_reduce2_chunks chunks */
    int rc = 0;
    size_t posted = 0, sent = 0, done = 0;
    for (; posted < n; posted++) {
        size_t off = posted * COLL_REDUCE2_CHUNK, len = coll_reduce2_len(bytes, posted);
        if ((rc = post(p, (char *)theirs + off, len, MPI_BYTE, &r[posted])))
            break;
    }
    while (rc == 0 && done < n) {
        if (sent < n) {
            size_t off = sent * COLL_REDUCE2_CHUNK, len = coll_reduce2_len(bytes, sent);
            if ((rc = send(p, (const char *)in + off, len, MPI_BYTE)))
                break;
            sent++;
        }
        /* the landed chunks among those sent, or (all sent) the next one */
        while (rc == 0 && done < sent && (sent == n || core_req_is_complete(r[done]))) {
            size_t off = done * COLL_REDUCE2_CHUNK, len = coll_reduce2_len(bytes, done);
            if ((rc = wait(p, r[done++])) == 0 && each)
                rc = theirs == rbuf
                         ? core_op_apply(op, (const char *)in + off, (char *)rbuf + off,
                                         (int)(len / dt->size), dt)
                         : core_op_apply(op, (const char *)theirs + off, (char *)rbuf + off,
                                         (int)(len / dt->size), dt);
        }
    }
    /* After a failure (to post, send or combine) the receives left are taken back. */
    for (; done < posted; done++)
        drop(p, r[done]);
    if (rc == 0 && !each)
        rc = theirs == rbuf ? core_op_apply(op, in, rbuf, (int)cnt, dt)
                            : core_op_apply(op, theirs, rbuf, (int)cnt, dt);
    return rc;
}

/* Conditions: those of coll_fast_allreduce (a predefined operation, items back to back). */
int coll_fast2_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm)
{
    /* coll_allreduce_recdbl on 2 ranks: the inputs cross, each rank combines the two (a
     * predefined operation gives bitwise the same result in either order). The partner's
     * vector lands in rbuf, or with MPI_IN_PLACE (rbuf holds the input) in scratch. */
    pair_t p = pair_begin(comm, COLL_ALLREDUCE);
    size_t cnt = (size_t)count, bytes = cnt * dt->size;
    if (count == 0)
        return 0;
    char local[2048];
    void *tmp = rbuf, *scratch = NULL;
    size_t tmp_bytes = bytes;
    if (sbuf == MPI_IN_PLACE) {
        if (bytes <= sizeof(local))
            tmp = local;
        else if (!(tmp = scratch = coll_scratch_get(&tmp_bytes)))
            return CORE_ENOMEM;
    }
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    size_t chunks = bytes <= COLL_ALLREDUCE2_MAX
                        ? coll_reduce2_chunks(comm, &(coll_grp_t){ 2, comm->rank, NULL }, bytes, op)
                        : 0;
    MPI_Request r;
    int rc = 0;
    if (chunks)
        rc = allreduce2_chunks(&p, in, rbuf, tmp, cnt, dt, op, chunks);
    else if ((rc = swap_start(&p, in, cnt, dt, tmp, cnt, dt, &r)) == 0 &&
             (rc = swap_end(&p, r, 0)) == 0)
        rc = tmp == rbuf ? core_op_apply(op, in, rbuf, count, dt)
                         : core_op_apply(op, tmp, rbuf, count, dt);
    if (scratch)
        coll_scratch_put(scratch, tmp_bytes);
    return rc;
}

/* A block: count items of dt at buf. */
typedef struct blk {
    const void *buf;
    size_t count;
    MPI_Datatype dt;
} blk_t;

static blk_t blk_of(const coll_layout_t *l, int i)
{
    return (blk_t){ lay_ptr(l, i), (size_t)lay_count(l, i), lay_dt(l, i) };
}

/* One block each way with the partner, either or both in chunks (out: the chunks of the
 * block sent, in: of the block received; 0 for one plain message): every receive posted,
 * then the send, then the own block's copy from `from` to `to` (none when from.buf is
 * NULL), then the waits. */
static int swap_chunks(const pair_t *p, blk_t s, size_t out, blk_t r, size_t in, blk_t from,
                       blk_t to)
{
    chunks_in_t ci;
    MPI_Request q = NULL;
    int rc = in ? chunks_post(p, &ci, (void *)r.buf, r.count, r.dt, in)
                : post(p, (void *)r.buf, r.count, r.dt, &q);
    if (rc == 0)
        rc = out ? chunks_send(p, s.buf, s.count, s.dt, out) : send(p, s.buf, s.count, s.dt);
    if (rc == 0 && from.buf)
        rc = coll_copy(from.buf, from.count, from.dt, (void *)to.buf, to.count, to.dt);
    if (in)
        return chunks_end(p, &ci, rc);
    return q ? swap_end(p, q, rc) : rc;
}

/* No conditions (MPI_IN_PLACE allowed, any layout: the v form too). */
int coll_fast2_allgather(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                         int id, MPI_Comm comm)
{
    /* coll_allgather_recdbl and _linear on 2 ranks: the own block to the partner, its block
     * straight into place; the own block's copy while the messages travel */
    pair_t p = pair_begin(comm, id);
    int me = comm->rank, inplace = sbuf == MPI_IN_PLACE;
    size_t out = pair_chunks(comm, lay_bytes(rl, me), COLL_PAIR_CHUNK_MAX);
    size_t in = pair_chunks(comm, lay_bytes(rl, p.peer), COLL_PAIR_CHUNK_MAX);
    if (out || in) {
        blk_t own = { sbuf, (size_t)scount, sdt };
        return swap_chunks(&p, inplace ? blk_of(rl, me) : own, out, blk_of(rl, p.peer), in,
                           inplace ? (blk_t){ NULL, 0, NULL } : own, blk_of(rl, me));
    }
    MPI_Request r;
    int rc = inplace ? swap_start(&p, lay_ptr(rl, me), (size_t)lay_count(rl, me), lay_dt(rl, me),
                                  lay_ptr(rl, p.peer), (size_t)lay_count(rl, p.peer),
                                  lay_dt(rl, p.peer), &r)
                     : swap_start(&p, sbuf, (size_t)scount, sdt, lay_ptr(rl, p.peer),
                                  (size_t)lay_count(rl, p.peer), lay_dt(rl, p.peer), &r);
    if (rc)
        return rc;
    if (!inplace)
        rc = coll_copy(sbuf, (size_t)scount, sdt, lay_ptr(rl, me), (size_t)lay_count(rl, me),
                       lay_dt(rl, me));
    return swap_end(&p, r, rc);
}

/* Conditions: not MPI_IN_PLACE. sl and rl: the alltoall's uniform blocks or the v and w
 * layouts. */
int coll_fast2_alltoall(const coll_layout_t *sl, const coll_layout_t *rl, MPI_Comm comm, int id)
{
    /* coll_alltoall_linear on 2 ranks: one block each way, the own block copied meanwhile */
    pair_t p = pair_begin(comm, id);
    int me = comm->rank, peer = p.peer;
    size_t out = pair_chunks(comm, lay_bytes(sl, peer), COLL_PAIR_CHUNK_MAX);
    size_t in = pair_chunks(comm, lay_bytes(rl, peer), COLL_PAIR_CHUNK_MAX);
    if (out || in)
        return swap_chunks(&p, blk_of(sl, peer), out, blk_of(rl, peer), in, blk_of(sl, me),
                           blk_of(rl, me));
    MPI_Request r;
    int rc = swap_start(&p, lay_ptr(sl, peer), (size_t)lay_count(sl, peer), lay_dt(sl, peer),
                        lay_ptr(rl, peer), (size_t)lay_count(rl, peer), lay_dt(rl, peer), &r);
    if (rc)
        return rc;
    rc = coll_copy(lay_ptr(sl, me), (size_t)lay_count(sl, me), lay_dt(sl, me), lay_ptr(rl, me),
                   (size_t)lay_count(rl, me), lay_dt(rl, me));
    return swap_end(&p, r, rc);
}

/* No conditions (the root's MPI_IN_PLACE allowed). sl: the root's uniform blocks or
 * scatterv's layout. */
int coll_fast2_scatter(const coll_layout_t *sl, void *rbuf, int rcount, MPI_Datatype rdt,
                       int root, MPI_Comm comm, int id)
{
    /* coll_scatter_linear on 2 ranks. A block above the eager limit leaves by rendezvous:
     * the leaf copies it (a single copy, CMA, on its core) while the root copies its own
     * block, instead of the root's copy after the send (OSU 1 MiB: the two in a row). */
    pair_t p = pair_begin(comm, id);
    size_t n = pair_chunks(comm, comm->rank != root ? (size_t)rcount * rdt->size
                                                    : lay_bytes(sl, p.peer), COLL_PAIR_ONEWAY_MAX);
    if (comm->rank != root) {
        chunks_in_t in;
        MPI_Request r;
        int rc = n ? chunks_post(&p, &in, rbuf, (size_t)rcount, rdt, n)
                   : post(&p, rbuf, (size_t)rcount, rdt, &r);
        if (n)
            return chunks_end(&p, &in, rc);
        return rc ? rc : wait(&p, r);
    }
    const void *b = lay_ptr(sl, p.peer);
    size_t c = (size_t)lay_count(sl, p.peer);
    MPI_Datatype dt = lay_dt(sl, p.peer);
    if (n) {
        int rc = chunks_send(&p, b, c, dt, n);
        if (rc || rbuf == MPI_IN_PLACE)
            return rc;
        return coll_copy(lay_ptr(sl, root), (size_t)lay_count(sl, root), lay_dt(sl, root), rbuf,
                         (size_t)rcount, rdt);
    }
    if (rbuf == MPI_IN_PLACE)
        return send(&p, b, c, dt);
    MPI_Request s = NULL;
    int rc = p2p_send_eager(b, c, dt, p.peer, p.tag, p.comm, p.ctx);
    if (rc == 1)
        rc = p2p_isend(b, c, dt, p.peer, p.tag, p.comm, p.ctx, CORE_MODE_STANDARD, &s);
    if (rc)
        return rc;
    rc = coll_copy(lay_ptr(sl, root), (size_t)lay_count(sl, root), lay_dt(sl, root), rbuf,
                   (size_t)rcount, rdt);
    if (s) {
        /* A send's error is the peer's (CORE_EPEER, as p2p_send says it) */
        core_wait_req(s, p.fn);
        if (rc == 0 && s->status.MPI_ERROR != MPI_SUCCESS)
            rc = CORE_EPEER;
        core_req_free(s);
    }
    return rc;
}

/* No conditions (the root's MPI_IN_PLACE allowed). rl: the root's uniform blocks or
 * gatherv's layout. */
int coll_fast2_gather(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                      int root, MPI_Comm comm, int id)
{
    /* coll_gather_linear on 2 ranks. The root moves both blocks, the leaf's too (its
     * rendezvous block by single copy, CMA, on the root's core): a long one first, which
     * lets the leaf go one copy earlier (OSU averages the ranks' times); a short one is in
     * the ring already or on its way, and the own block's copy goes first. */
    pair_t p = pair_begin(comm, id);
    size_t n = pair_chunks(comm, comm->rank != root ? (size_t)scount * sdt->size
                                                    : lay_bytes(rl, p.peer), COLL_PAIR_ONEWAY_MAX);
    if (comm->rank != root)
        return n ? chunks_send(&p, sbuf, (size_t)scount, sdt, n)
                 : send(&p, sbuf, (size_t)scount, sdt);
    if (n) {
        chunks_in_t in;
        int rc = chunks_post(&p, &in, lay_ptr(rl, p.peer), (size_t)lay_count(rl, p.peer),
                             lay_dt(rl, p.peer), n);
        if (rc == 0 && sbuf != MPI_IN_PLACE)
            rc = coll_copy(sbuf, (size_t)scount, sdt, lay_ptr(rl, root),
                           (size_t)lay_count(rl, root), lay_dt(rl, root));
        return chunks_end(&p, &in, rc);
    }
    MPI_Request r;
    int rc = post(&p, lay_ptr(rl, p.peer), (size_t)lay_count(rl, p.peer), lay_dt(rl, p.peer), &r);
    if (rc || sbuf == MPI_IN_PLACE)
        return rc ? rc : wait(&p, r);
    int late = lay_bytes(rl, p.peer) > COLL_FAST_SERIAL_BYTES;
    if (late && (rc = wait(&p, r)))
        return rc;
    rc = coll_copy(sbuf, (size_t)scount, sdt, lay_ptr(rl, root), (size_t)lay_count(rl, root),
                   lay_dt(rl, root));
    return late ? rc : swap_end(&p, r, rc);
}

/* No conditions. */
int coll_fast2_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    /* coll_bcast_binomial on 2 ranks: one message, or (pair_chunks) its chunks, which the
     * root leaves behind in the ring */
    size_t n = pair_chunks(comm, (size_t)count * dt->size, COLL_PAIR_ONEWAY_MAX);
    if (!n)
        return coll_fast_bcast(buf, count, dt, root, comm);
    pair_t p = pair_begin(comm, COLL_BCAST);
    if (comm->rank == root)
        return chunks_send(&p, buf, (size_t)count, dt, n);
    chunks_in_t in;
    int rc = chunks_post(&p, &in, buf, (size_t)count, dt, n);
    return chunks_end(&p, &in, rc);
}
