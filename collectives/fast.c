/*
 * Blocking fast paths: the barrier, broadcast, allreduce, allgather,
 * alltoall(v,w), gather(v) and scatter(v) algorithms the selector picks for
 * short messages and small communicators, run as direct p2p calls instead
 * of a schedule.
 *
 * Why: at 2 and 4 ranks on shared memory a message costs a fraction of a
 * microsecond, and building, selecting, running and releasing a schedule
 * (steps, rounds, one request per send, the progress hook) cost as much
 * again (callgrind: about 1500 instructions per 8-byte allreduce beside
 * the messages). Here a send leaves through p2p_send, which needs no
 * request when the transport takes it at once, and the only requests are
 * the receives, posted before the sends so no send can wait on a partner
 * that has not posted (rendezvous included).
 *
 * Each path sends exactly the messages (peers, order, tags, bytes) of the
 * schedule builder it stands for, and takes the collective sequence number
 * the same way, so ranks that take the fast path and ranks that build a
 * schedule (a different datatype with the same signature) still pair up.
 * The callers (dispatch*.c) check when a path applies; the conditions are
 * in the contract of each function below.
 */
#include <string.h>
#include "collectives/coll_impl.h"
#include "core/progress.h"
#include "p2p/p2p.h"

/* One call in progress: where its messages go and what to call it. */
typedef struct fast {
    MPI_Comm comm;
    uint32_t ctx;
    int tag;
    const char *fn;
} fast_t;

static fast_t fast_begin(MPI_Comm comm, int id)
{
    return (fast_t){ comm, comm->ctx + 1, coll_sched_tag(comm, id), coll_name(id) };
}

static int post(const fast_t *f, void *buf, size_t count, MPI_Datatype dt, int peer,
                MPI_Request *r)
{
    return p2p_irecv(buf, count, dt, peer, f->tag, f->comm, f->ctx, r);
}

static int send(const fast_t *f, const void *buf, size_t count, MPI_Datatype dt, int peer)
{
    return p2p_send(buf, count, dt, peer, f->tag, f->comm, f->ctx, CORE_MODE_STANDARD, f->fn);
}

/* Waits for a posted receive and frees it: its error as a CORE_* code. */
static int wait(const fast_t *f, MPI_Request r)
{
    core_wait_req(r, f->fn);
    int rc = coll_req_err(r);
    core_req_free(r);
    return rc;
}

/* Takes back a receive after a failed send (or waits for it if it matched). */
static void drop(const fast_t *f, MPI_Request r)
{
    p2p_cancel(r);
    (void)wait(f, r);
}

/* One step: receive into rbuf from src, send sbuf to dst, wait. */
static int exchange(const fast_t *f, const void *sbuf, size_t scount, MPI_Datatype sdt, int dst,
                    void *rbuf, size_t rcount, MPI_Datatype rdt, int src)
{
    MPI_Request r;
    int rc = post(f, rbuf, rcount, rdt, src, &r);
    if (rc)
        return rc;
    rc = send(f, sbuf, scount, sdt, dst);
    if (rc) {
        drop(f, r);
        return rc;
    }
    return wait(f, r);
}

int coll_fast_barrier(MPI_Comm comm)
{
    /* coll_barrier_dissemination */
    fast_t f = fast_begin(comm, COLL_BARRIER);
    int n = comm->size, r = comm->rank;
    for (int d = 1; d < n; d <<= 1) {
        int rc = exchange(&f, NULL, 0, MPI_BYTE, (r + d) % n, NULL, 0, MPI_BYTE, (r - d + n) % n);
        if (rc)
            return rc;
    }
    return 0;
}

static int barrier_linear(const fast_t *f, MPI_Comm comm)
{
    int n = comm->size, rc = 0;
    if (comm->rank != 0)
        return exchange(f, NULL, 0, MPI_BYTE, 0, NULL, 0, MPI_BYTE, 0);
    for (int i = 1; i < n && rc == 0; i++) {
        MPI_Request r;
        if ((rc = post(f, NULL, 0, MPI_BYTE, i, &r)) == 0)
            rc = wait(f, r);
    }
    for (int i = 1; i < n && rc == 0; i++)
        rc = send(f, NULL, 0, MPI_BYTE, i);
    return rc;
}

int coll_fast_barrier_linear(MPI_Comm comm)
{
    /* coll_barrier_linear: the arrivals are 0-byte eager messages, so member 0 takes them
     * one by one in rank order whatever order they came in. */
    fast_t f = fast_begin(comm, COLL_BARRIER);
    /* Oversubscribed with at most two ranks per core, the waits yield and do not sleep
     * (as Open MPI's do): every rank waits there about as long as the barrier lasts, so
     * once one barrier outlasts the idle time before sleeping (core/progress.c) the ranks
     * sleep, each wake-up makes the next barrier slower, and a run stays there (OSU 7.4 at
     * 4 ranks on 2 cores, load average 4-7: some runs at 73-98 us against 13-29). A yield
     * hands the core to the one other rank there; with a busy loop per core the woken
     * sleepers lose more (osu_barrier 0.41 ms against 2.8, Open MPI 3.4; medians of 5).
     * Quiet, medians of 9: 15.1 us against 31.0, Open MPI 12.9. With more ranks per core
     * too: there every sleeper the root releases is a FUTEX_WAKE and a woken rank that may
     * take the root's core before it sends what follows the barrier (OSU 7.4 at 8 ranks on
     * 2 cores, medians of 4: osu_bcast 8 B 9.7 us sleeping against 0.48 awake quiet, 197
     * against 1.2 with a busy loop per core, MPICH 4.2; 1 KiB 13.2 against 0.93 quiet, 189
     * against 4.9 busy, MPICH 16.8; allgather and alltoall 8 B quiet 20-26 against 13-17). */
    core_runtime_t *rt = core_rt;
    int awake = rt->oversubscribed && !rt->cs.on;
    if (awake)
        core_progress_awake(rt, 1);
    int rc = barrier_linear(&f, comm);
    if (awake)
        core_progress_awake(rt, -1);
    return rc;
}

/* Conditions: messages the transport takes at once (the root's sends go one
 * after the other). */
int coll_fast_bcast_linear(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    /* coll_bcast_linear */
    int n = comm->size;
    fast_t f = fast_begin(comm, COLL_BCAST);
    if (n == 1 || count == 0 || dt->size == 0)
        return 0;
    if (comm->rank != root) {
        MPI_Request r;
        int rc = post(&f, buf, (size_t)count, dt, root, &r);
        return rc ? rc : wait(&f, r);
    }
    for (int i = 1; i < n; i++) {
        int rc = send(&f, buf, (size_t)count, dt, (root + i) % n);
        if (rc)
            return rc;
    }
    return 0;
}

/* The sends go one after the other: the caller keeps a root with several
 * children to messages the transport takes at once. */
int coll_fast_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    /* coll_bcast_binomial (a packed non-contiguous message carries the same bytes) */
    int n = comm->size, vr = (comm->rank - root + n) % n;
    fast_t f = fast_begin(comm, COLL_BCAST);
    if (n == 1 || count == 0 || dt->size == 0)
        return 0;
    int mask = 1;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    if (vr != 0) {
        MPI_Request r;
        int rc = post(&f, buf, (size_t)count, dt, (vr - mask + root) % n, &r);
        if (rc || (rc = wait(&f, r)))
            return rc;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < n) {
            int rc = send(&f, buf, (size_t)count, dt, (vr + mask + root) % n);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Conditions: a power-of-two communicator, a predefined operation, and a
 * datatype whose items are back to back (contiguous, extent == size, lower
 * bound 0). */
int coll_fast_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm)
{
    /* coll_allreduce_recdbl without fold: the first exchange sends the send
     * buffer and receives into rbuf; later ones send rbuf and receive into
     * scratch. Both partners combine the same two operands, which for a
     * predefined operation gives bitwise the same result in either order. */
    int n = comm->size, me = comm->rank;
    fast_t f = fast_begin(comm, COLL_ALLREDUCE);
    size_t cnt = (size_t)count, bytes = cnt * dt->size;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (count == 0)
        return 0;
    if (n == 1)
        return in == rbuf ? 0 : (memcpy(rbuf, in, bytes), 0);
    /* Short vectors: scratch on the stack, no look-up of the block cache. */
    char local[2048];
    void *tmp = local;
    size_t tmp_bytes = bytes;
    int mask = 1, rc = 0;
    if (in != rbuf) {
        rc = exchange(&f, in, cnt, dt, me ^ 1, rbuf, cnt, dt, me ^ 1);
        if (rc || (rc = core_op_apply(op, in, rbuf, count, dt)))
            return rc;
        mask = 2;
    }
    if (mask < n && bytes > sizeof(local) && !(tmp = coll_scratch_get(&tmp_bytes)))
        return CORE_ENOMEM;
    for (; mask < n && rc == 0; mask <<= 1) {
        rc = exchange(&f, rbuf, cnt, dt, me ^ mask, tmp, cnt, dt, me ^ mask);
        if (rc == 0)
            rc = core_op_apply(op, tmp, rbuf, count, dt);
    }
    if (tmp != local)
        coll_scratch_put(tmp, tmp_bytes);
    return rc;
}

/* Conditions: a power-of-two communicator (rl uniform: allgather, not v). */
int coll_fast_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, MPI_Comm comm)
{
    /* coll_allgather_recdbl: step k swaps runs of 2^k blocks; the own block
     * leaves from the send buffer the first time and is copied into place
     * while that message travels. */
    int n = comm->size, me = comm->rank;
    fast_t f = fast_begin(comm, COLL_ALLGATHER);
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL, NULL, NULL };
    int own = sbuf != MPI_IN_PLACE;
    size_t blk = (size_t)rcount;
    for (int mask = 1; mask < n; mask <<= 1) {
        int peer = me ^ mask, mine = me & ~(mask - 1), theirs = peer & ~(mask - 1);
        MPI_Request r;
        int rc = post(&f, lay_ptr(&rl, theirs), blk * (size_t)mask, rdt, peer, &r);
        if (rc)
            return rc;
        if (own)
            rc = send(&f, sbuf, (size_t)scount, sdt, peer);
        else
            rc = send(&f, lay_ptr(&rl, mine), blk * (size_t)mask, rdt, peer);
        if (rc == 0 && own) {
            rc = coll_copy(sbuf, (size_t)scount, sdt, lay_ptr(&rl, me), blk, rdt);
            own = 0;
        }
        if (rc) {
            drop(&f, r);
            return rc;
        }
        if ((rc = wait(&f, r)))
            return rc;
    }
    return own ? coll_copy(sbuf, (size_t)scount, sdt, lay_ptr(&rl, me), blk, rdt) : 0;
}

/* Waits for the first n receives of r, or takes them back once rc is an error: the first
 * error. */
static int wait_all(const fast_t *f, MPI_Request *r, int n, int rc)
{
    for (int i = 0; i < n; i++) {
        if (rc)
            drop(f, r[i]);
        else
            rc = wait(f, r[i]);
    }
    return rc;
}

/* Posts the receives of the linear alltoall and allgather: from every other rank, in the
 * order (me + i) % n, each straight into its block of rl. Returns the first error; *posted
 * counts the receives in r. */
static int post_from_all(const fast_t *f, const coll_layout_t *rl, MPI_Request *r, int *posted)
{
    int n = f->comm->size, me = f->comm->rank, rc = 0;
    *posted = 0;
    for (int i = 1; i < n && rc == 0; i++) {
        int from = (me + i) % n;
        rc = post(f, lay_ptr(rl, from), (size_t)lay_count(rl, from), lay_dt(rl, from), from,
                  &r[*posted]);
        if (rc == 0)
            (*posted)++;
    }
    return rc;
}

/* Conditions: at most COLL_FAST_A2A_MAX ranks, not MPI_IN_PLACE, and
 * blocks the transport takes at once (the sends go one after the other).
 * sl and rl: the alltoall's uniform blocks or the v and w layouts. */
int coll_fast_alltoall(const coll_layout_t *sl, const coll_layout_t *rl, MPI_Comm comm, int id)
{
    /* coll_alltoall_linear, one window: every receive, then every send,
     * then the own block's copy, then the waits. */
    int n = comm->size, me = comm->rank, posted;
    fast_t f = fast_begin(comm, id);
    MPI_Request r[COLL_FAST_A2A_MAX];
    int rc = post_from_all(&f, rl, r, &posted);
    for (int i = 1; i < n && rc == 0; i++) {
        int to = (me - i + n) % n;
        rc = send(&f, lay_ptr(sl, to), (size_t)lay_count(sl, to), lay_dt(sl, to), to);
    }
    if (rc == 0)
        rc = coll_copy(lay_ptr(sl, me), (size_t)lay_count(sl, me), lay_dt(sl, me),
                       lay_ptr(rl, me), (size_t)lay_count(rl, me), lay_dt(rl, me));
    return wait_all(&f, r, posted, rc);
}

/* Conditions: at the root, blocks the transport takes at once (its sends
 * go one after the other); elsewhere none (one receive). sl: the root's
 * uniform blocks or scatterv's layout. */
int coll_fast_scatter(const coll_layout_t *sl, void *rbuf, int rcount, MPI_Datatype rdt,
                      int root, MPI_Comm comm, int id)
{
    /* coll_scatter_linear */
    int n = comm->size;
    fast_t f = fast_begin(comm, id);
    if (comm->rank != root) {
        MPI_Request r;
        int rc = post(&f, rbuf, (size_t)rcount, rdt, root, &r);
        return rc ? rc : wait(&f, r);
    }
    for (int i = 1; i < n; i++) {
        int to = (root + i) % n;
        int rc = send(&f, lay_ptr(sl, to), (size_t)lay_count(sl, to), lay_dt(sl, to), to);
        if (rc)
            return rc;
    }
    if (rbuf == MPI_IN_PLACE)
        return 0;
    return coll_copy(lay_ptr(sl, root), (size_t)lay_count(sl, root), lay_dt(sl, root), rbuf,
                     (size_t)rcount, rdt);
}

/* Conditions: at most COLL_FAST_A2A_MAX ranks. rl: the root's uniform
 * blocks or gatherv's layout. */
int coll_fast_gather(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                     int root, MPI_Comm comm, int id)
{
    /* coll_gather_linear: the root posts every receive before its own copy */
    int n = comm->size, rc = 0, posted = 0;
    fast_t f = fast_begin(comm, id);
    if (comm->rank != root)
        return send(&f, sbuf, (size_t)scount, sdt, root);
    MPI_Request r[COLL_FAST_A2A_MAX];
    for (int i = 1; i < n && rc == 0; i++) {
        int from = (root + i) % n;
        rc = post(&f, lay_ptr(rl, from), (size_t)lay_count(rl, from), lay_dt(rl, from), from,
                  &r[posted]);
        if (rc == 0)
            posted++;
    }
    if (rc == 0 && sbuf != MPI_IN_PLACE)
        rc = coll_copy(sbuf, (size_t)scount, sdt, lay_ptr(rl, root), (size_t)lay_count(rl, root),
                       lay_dt(rl, root));
    return wait_all(&f, r, posted, rc);
}

/* Conditions: at most COLL_FAST_A2A_MAX ranks, blocks the transport takes at once or one
 * peer (the sends go one after the other); MPI_IN_PLACE allowed. Any layout (v forms). */
int coll_fast_allgather_linear(const void *sbuf, int scount, MPI_Datatype sdt,
                               const coll_layout_t *rl, int id, MPI_Comm comm)
{
    /* coll_allgather_linear: every receive straight into place, then the own block to each */
    int n = comm->size, me = comm->rank, posted;
    int inplace = sbuf == MPI_IN_PLACE;
    fast_t f = fast_begin(comm, id);
    MPI_Request r[COLL_FAST_A2A_MAX];
    int rc = post_from_all(&f, rl, r, &posted);
    for (int i = 1; i < n && rc == 0; i++) {
        int to = (me - i + n) % n;
        if (inplace)
            rc = send(&f, lay_ptr(rl, me), (size_t)lay_count(rl, me), lay_dt(rl, me), to);
        else
            rc = send(&f, sbuf, (size_t)scount, sdt, to);
    }
    if (rc == 0 && !inplace)
        rc = coll_copy(sbuf, (size_t)scount, sdt, lay_ptr(rl, me), (size_t)lay_count(rl, me),
                       lay_dt(rl, me));
    return wait_all(&f, r, posted, rc);
}

/* Conditions: at most COLL_FAST_A2A_MAX ranks and a vector the transport takes at once (the
 * sends go one after the other); any operation and datatype. */
int coll_fast_allreduce_linear(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                               MPI_Op op, MPI_Comm comm)
{
    /* coll_allreduce_linear: every vector from every rank into scratch (slot i for rank i),
     * the own one to each, then rbuf = v0 op (v1 op ... (vp-2 op vp-1)), the same operands
     * in the same order on every rank. The own vector is read where it is, unless it is rbuf
     * (MPI_IN_PLACE) and combining would overwrite it before its turn. */
    int n = comm->size, me = comm->rank, rc = 0, posted = 0;
    fast_t f = fast_begin(comm, COLL_ALLREDUCE);
    size_t cnt = (size_t)count;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (n == 1 || count == 0)
        return mine == rbuf ? 0 : coll_copy(mine, cnt, dt, rbuf, cnt, dt);
    /* Slot i starts at i * stride; items span [true_lb, true_lb + true_extent) from there. */
    MPI_Aint stride = (MPI_Aint)cnt * dt->extent;
    MPI_Aint last = (MPI_Aint)(cnt * (size_t)n - 1) * dt->extent;
    MPI_Aint lo = (last < 0 ? last : 0) + dt->true_lb;
    MPI_Aint hi = (last > 0 ? last : 0) + dt->true_lb + dt->true_extent;
    char local[2048];
    size_t tmp_bytes = (size_t)(hi - lo);
    void *tmp = local;
    if (tmp_bytes > sizeof(local) && !(tmp = coll_scratch_get(&tmp_bytes)))
        return CORE_ENOMEM;
    char *all = (char *)tmp - lo;
    MPI_Request r[COLL_FAST_A2A_MAX];
    for (int i = 1; i < n && rc == 0; i++) {
        int from = (me + i) % n;
        if ((rc = post(&f, all + from * stride, cnt, dt, from, &r[posted])) == 0)
            posted++;
    }
    for (int i = 1; i < n && rc == 0; i++)
        rc = send(&f, mine, cnt, dt, (me - i + n) % n);
    const char *own = mine;
    if (rc == 0 && mine == rbuf && me != n - 1) {
        own = all + me * stride;
        rc = coll_copy(mine, cnt, dt, all + me * stride, cnt, dt);
    }
    rc = wait_all(&f, r, posted, rc);
    for (int i = n - 1; i >= 0 && rc == 0; i--) {
        const void *v = i == me ? own : all + i * stride;
        rc = i == n - 1 ? coll_copy(v, cnt, dt, rbuf, cnt, dt)
                        : core_op_apply(op, v, rbuf, count, dt);
    }
    if (tmp != local)
        coll_scratch_put(tmp, tmp_bytes);
    return rc;
}

/* The leaf's vector in chunks of packed bytes (coll_reduce2_chunks), each sent when the
 * previous one has left. */
static int reduce2_send_chunks(const fast_t *f, const void *sbuf, size_t cnt, MPI_Datatype dt,
                               int root)
{
    size_t bytes = cnt * dt->size, pbytes = bytes;
    const char *p = sbuf;
    void *packed = NULL;
    if (!core_dt_is_contig(dt)) {
        if (!(packed = coll_scratch_get(&pbytes)))
            return CORE_ENOMEM;
        core_dt_pack(packed, sbuf, cnt, dt);
        p = packed;
    }
    int rc = 0;
    for (size_t off = 0; off < bytes && rc == 0; off += COLL_REDUCE2_CHUNK) {
        size_t len = bytes - off < COLL_REDUCE2_CHUNK ? bytes - off : COLL_REDUCE2_CHUNK;
        rc = send(f, p + off, len, MPI_BYTE, root);
    }
    if (packed)
        coll_scratch_put(packed, pbytes);
    return rc;
}

/* The root's side: every chunk's receive posted, then each combined as it arrives when the
 * chunks are whole items in place (a contiguous type whose item size divides the chunk),
 * else the whole vector once all are in (unpacked first when the type has holes). */
static int reduce2_recv_chunks(const fast_t *f, const void *sbuf, void *rbuf, size_t cnt,
                               MPI_Datatype dt, MPI_Op op, int peer, size_t n)
{
    MPI_Request r[COLL_REDUCE2_MAX / COLL_REDUCE2_CHUNK + 1];
    size_t bytes = cnt * dt->size, pbytes = bytes;
    int contig = core_dt_is_contig(dt);
    int each = contig && COLL_REDUCE2_CHUNK % dt->size == 0;
    char *p = rbuf;
    void *packed = NULL;
    if (n > sizeof(r) / sizeof(r[0]))
        return CORE_EINVAL;   /* not a size coll_reduce2_chunks chunks */
    if (!contig) {
        if (!(packed = coll_scratch_get(&pbytes)))
            return CORE_ENOMEM;
        p = packed;
    }
    int rc = 0;
    size_t posted = 0;
    for (; posted < n && rc == 0; posted++) {
        size_t off = posted * COLL_REDUCE2_CHUNK, len = coll_reduce2_len(bytes, posted);
        if ((rc = post(f, p + off, len, MPI_BYTE, peer, &r[posted])))
            break;
    }
    /* After a local failure to post, the posted receives are taken back; after a failed
     * combination the rest still arrives (no chunk of this call is left unexpected). */
    int posting = rc;
    for (size_t k = 0; k < posted; k++) {
        if (posting) {
            drop(f, r[k]);
            continue;
        }
        int wrc = wait(f, r[k]);
        rc = rc ? rc : wrc;
        if (rc == 0 && each) {
            size_t off = k * COLL_REDUCE2_CHUNK, len = coll_reduce2_len(bytes, k);
            rc = core_op_apply(op, (const char *)sbuf + off, p + off, (int)(len / dt->size), dt);
        }
    }
    if (rc == 0 && !each) {
        if (packed)
            core_dt_unpack(rbuf, cnt, dt, packed, bytes);
        rc = core_op_apply(op, sbuf, rbuf, (int)cnt, dt);
    }
    if (packed)
        coll_scratch_put(packed, pbytes);
    return rc;
}

/* Conditions: 2 ranks, a commutative operation, and at the root a send buffer (not
 * MPI_IN_PLACE). The other rank's part is the same message whichever path the root takes. */
int coll_fast_reduce2(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, MPI_Comm comm)
{
    /* coll_reduce_binomial on 2 ranks: the leaf sends its vector to the root, which receives
     * it straight into rbuf and combines its own into it; one message, or chunks. */
    fast_t f = fast_begin(comm, COLL_REDUCE);
    coll_grp_t g = { comm->size, comm->rank, NULL };
    size_t chunks = coll_reduce2_chunks(comm, &g, (size_t)count * dt->size, op);
    if (chunks)
        return comm->rank != root
                   ? reduce2_send_chunks(&f, sbuf, (size_t)count, dt, root)
                   : reduce2_recv_chunks(&f, sbuf, rbuf, (size_t)count, dt, op, root ^ 1, chunks);
    if (comm->rank != root)
        return send(&f, sbuf, (size_t)count, dt, root);
    MPI_Request r;
    int rc = post(&f, rbuf, (size_t)count, dt, root ^ 1, &r);
    if (rc || (rc = wait(&f, r)))
        return rc;
    return core_op_apply(op, sbuf, rbuf, count, dt);
}
