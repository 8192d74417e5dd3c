/*
 * Operations at the origin: checks against what the window's creation told
 * us of the target (its size, displacement unit), the target's memory
 * flattened into segments (displacement, length) from the target datatype,
 * and the operation cut into OP pieces that each fit one active message
 * (segments and data in the payload, the answer in one REPLY). The pieces of
 * one operation, and the operations to one target, leave in order.
 */
#include <stdlib.h>
#include <string.h>
#include "rma/rma.h"
#include "core/datatype.h"
#include "core/log.h"
#include "core/op.h"

typedef rma_segs_t segs_t;

static void segs_init(segs_t *v)
{
    v->s = v->inl;
    v->n = 0;
    v->cap = sizeof(v->inl) / sizeof(v->inl[0]);
}

static void segs_free(segs_t *v)
{
    if (v->s != v->inl)
        free(v->s);
}

static int seg_push(segs_t *v, uint64_t disp, uint64_t len)
{
    if (v->n == v->cap) {
        size_t cap = 2 * v->cap;
        rma_seg_t *p = v->s == v->inl ? malloc(cap * sizeof(*p))
                                      : realloc(v->s, cap * sizeof(*p));
        if (!p)
            return CORE_ENOMEM;
        if (v->s == v->inl)
            memcpy(p, v->inl, sizeof(v->inl));
        v->s = p;
        v->cap = cap;
    }
    v->s[v->n++] = (rma_seg_t){ disp, len };
    return 0;
}

static int seg_add(segs_t *v, uint64_t disp, uint64_t len)
{
    if (len == 0)
        return 0;
    if (v->n && v->s[v->n - 1].disp + v->s[v->n - 1].len == disp) {
        v->s[v->n - 1].len += len;   /* adjacent runs travel as one */
        return 0;
    }
    return seg_push(v, disp, len);
}

/* Adds the element at disp: to the last run when it is that run's next (ext apart). */
static int elem_add(segs_t *v, uint64_t disp, size_t esz, MPI_Aint ext)
{
    if (v->n) {
        rma_seg_t *l = &v->s[v->n - 1];
        if (l->disp + l->len / esz * (uint64_t)ext == disp) {
            l->len += esz;   /* the next element of the run */
            return 0;
        }
    }
    return seg_push(v, disp, esz);
}

/*
 * The ELEMS form of the target memory (rma_wire.h): accumulates on a pair type with holes.
 * Each element of the target type begins at its value, which is where its packed bytes
 * begin: walking the type's runs with the packed offset finds every element's start
 * (elements are never cut by a type constructor); runs of elements one extent apart
 * travel as one segment. Each element's span (value to index) must lie in the window.
 */
static int flatten_elems(MPI_Win win, const rma_args_t *a, MPI_Datatype elem, MPI_Aint start,
                         segs_t *v)
{
    const rma_peer_t *p = &win->peers[a->target];
    int dynamic = win->flavor == MPI_WIN_FLAVOR_DYNAMIC;
    MPI_Datatype dt = a->tdt;
    size_t esz = elem->size, nruns = core_dt_nruns(dt);
    uint64_t span = (uint64_t)elem->true_extent;
    for (int i = 0; i < a->tcount; i++) {
        size_t pos = 0;   /* packed offset of run k in the item */
        for (size_t k = 0; k < nruns; k++) {
            core_dt_block_t b = core_dt_run(dt, k);
            for (size_t e = (pos + esz - 1) / esz * esz; e < pos + b.len; e += esz) {
                MPI_Aint d = start + (MPI_Aint)i * dt->extent + b.off + (MPI_Aint)(e - pos);
                if (d < 0 || (!dynamic && ((uint64_t)d > p->size || span > p->size - (uint64_t)d)))
                    return CORE_ERMA_RANGE;
                int rc = elem_add(v, (uint64_t)d, esz, elem->extent);
                if (rc)
                    return rc;
            }
            pos += b.len;
        }
    }
    return 0;
}

/* The element type whose holes make an accumulate's segments ELEMS, or NULL (BYTES). */
static MPI_Datatype holed_elem(const rma_args_t *a)
{
    if (a->kind != RMA_ACC && a->kind != RMA_GACC)
        return NULL;
    MPI_Datatype elem = rma_wire_elem_type(a->tdt->basic);
    return elem && rma_wire_acc_form(elem) == RMA_FORM_ELEMS ? elem : NULL;
}

/* The target memory of count items of dt at displacement disp (in disp_unit), checked
 * against the target's window size (dynamic windows: absolute addresses, checked there). */
static int flatten(MPI_Win win, const rma_args_t *a, segs_t *v)
{
    const rma_peer_t *p = &win->peers[a->target];
    int dynamic = win->flavor == MPI_WIN_FLAVOR_DYNAMIC;
    MPI_Aint unit = dynamic ? 1 : p->disp_unit;
    MPI_Aint start;
    if (__builtin_mul_overflow(a->tdisp, unit, &start))
        return CORE_ERMA_RANGE;
    MPI_Datatype holed = holed_elem(a);
    if (holed)
        return flatten_elems(win, a, holed, start, v);
    MPI_Datatype dt = a->tdt;
    int items = a->tcount;
    uint64_t item_len = 0;
    if (dt->nblocks == 1 && dt->extent == (MPI_Aint)dt->size && dt->blocks[0].len == dt->size) {
        /* one run (count items of a contiguous type): one segment, checked once */
        item_len = (uint64_t)dt->size * (uint64_t)items;
        items = items > 0 ? 1 : 0;
    }
    for (int i = 0; i < items; i++) {
        for (size_t b = 0; b < dt->nblocks; b++) {
            MPI_Aint d = start + (MPI_Aint)i * dt->extent + dt->blocks[b].off;
            size_t len = item_len ? item_len : dt->blocks[b].len;
            if (!dynamic && (d < 0 || (uint64_t)d > p->size || len > p->size - (uint64_t)d))
                return CORE_ERMA_RANGE;
            if (dynamic && d < 0)
                return CORE_ERMA_RANGE;
            int rc = seg_add(v, (uint64_t)d, len);
            if (rc)
                return rc;
        }
    }
    return 0;
}

void rma_opr_done(rma_state_t *st, rma_opr_t *o)
{
    if (o->result && o->ubuf)
        core_dt_unpack(o->ubuf, o->ucount, o->udt, o->result, o->result_len);
    if (o->udt)
        core_dt_release(o->udt);
    if (o->status == RMA_ST_RANGE && o->win->err == 0)
        o->win->err = CORE_ERMA_RANGE;
    if (o->req) {
        o->req->status.MPI_ERROR = o->status == RMA_ST_OK ? MPI_SUCCESS : MPI_ERR_RMA_RANGE;
        core_req_complete(o->req);
    }
    rma_opr_free(st, o);
}

/* Checks of types, sizes and the op that need no message. *esz: the element size the
 * pieces are cut at; *dtk, *aop: what the target applies. */
static int check_args(const rma_args_t *a, size_t tbytes, size_t *esz, int *dtk, int *aop)
{
    *esz = 1;
    *dtk = 0;
    *aop = 0;
    if (tbytes == 0)   /* moves nothing: whatever the types, nothing to check or apply */
        return 0;
    int acc = a->kind == RMA_ACC || a->kind == RMA_GACC || a->kind == RMA_CAS;
    if (acc) {
        enum core_dt_kind k = a->tdt->basic;
        MPI_Datatype elem = rma_wire_elem_type(k);
        if (!elem)
            return CORE_ETYPE;
        if (a->kind == RMA_CAS && !rma_wire_cas_kind(k))
            return CORE_ETYPE;   /* the target would refuse the message */
        if (a->kind != RMA_CAS) {
            if (!a->op->predefined || a->op->kind == CORE_OP_USER)
                return CORE_EOP;
            if (!core_op_valid(a->op, elem))
                return CORE_EOP;
            *aop = a->op->kind;
        }
        if (a->odt && a->op != MPI_NO_OP && a->odt->basic != k && a->ocount > 0)
            return CORE_ETYPE;
        if (a->rdt && a->rdt->basic != k && a->rcount > 0)
            return CORE_ETYPE;
        *esz = elem->size;
        *dtk = (int)k;
    }
    int has_origin = a->kind == RMA_PUT || a->kind == RMA_ACC || a->kind == RMA_CAS ||
                     (a->kind == RMA_GACC && a->op != MPI_NO_OP);
    if (has_origin && (size_t)a->ocount * a->odt->size != tbytes)
        return CORE_ETYPE;
    int fetch = a->kind == RMA_GET || a->kind == RMA_GACC || a->kind == RMA_CAS;
    if (fetch && (size_t)a->rcount * a->rdt->size != tbytes)
        return CORE_ETYPE;
    return 0;
}

/* Sends the pieces of o, cutting the segments v at element size esz (ELEMS form: a cut
 * element run goes on ext bytes per element). */
static int send_pieces(MPI_Win win, rma_opr_t *o, rma_op_hdr_t *h, const segs_t *v,
                       const uint8_t *data, size_t esz, uint64_t ext)
{
    size_t cap = rma_piece_max(win, o->target);
    int carries = h->kind != RMA_GET;
    int world = core_comm_world_rank(win->comm, o->target);
    uint8_t *buf = malloc(cap);
    if (!buf)
        return CORE_ENOMEM;
    size_t si = 0, so = 0, off = 0;
    int rc = 0;
    while (si < v->n && rc == 0) {
        uint32_t nseg = 0;
        size_t dlen = 0;
        while (si < v->n && nseg < RMA_MAX_SEG) {
            size_t used = (nseg + 1) * sizeof(rma_seg_t);
            if (used > cap)
                break;
            size_t avail = carries ? cap - used - dlen : cap - dlen;
            if (carries && used + dlen > cap)
                break;
            avail -= avail % esz;
            if (avail == 0)
                break;
            size_t take = v->s[si].len - so;
            if (take > avail)
                take = avail;
            rma_seg_t s = { v->s[si].disp + so / esz * ext, take };
            memcpy(buf + nseg * sizeof(rma_seg_t), &s, sizeof(s));
            nseg++;
            dlen += take;
            so += take;
            if (so == v->s[si].len) {
                si++;
                so = 0;
            }
        }
        if (nseg == 0)
            return free(buf), CORE_EINTERN;
        size_t plen = nseg * sizeof(rma_seg_t);
        if (carries) {
            memcpy(buf + plen, data + off, dlen);
            plen += dlen;
        }
        h->off = off;
        h->len = dlen;
        h->nseg = nseg;
        o->left++;
        win->peers[o->target].pending++;
        rc = rma_send(win->st, world, RMA_AM_OP, h, sizeof(*h), buf, plen);
        off += dlen;
    }
    free(buf);
    return rc;
}

static int start(MPI_Win win, const rma_args_t *a, rma_opr_t *o, const segs_t *v, size_t tbytes,
                 size_t esz, int dtk, int aop)
{
    int rc;
    rma_peer_t *p = &win->peers[a->target];
    MPI_Datatype holed = holed_elem(a);
    rma_op_hdr_t h = { p->slot, p->gen, o->id, 0, 0, 0, (uint8_t)a->kind, (uint8_t)aop,
                       (uint8_t)dtk, holed ? RMA_FORM_ELEMS : RMA_FORM_BYTES };
    if (a->kind == RMA_GET || a->kind == RMA_GACC || a->kind == RMA_CAS) {
        o->result = malloc(tbytes ? tbytes : 1);
        if (!o->result)
            return CORE_ENOMEM;
        o->result_len = tbytes;
        o->ubuf = a->rbuf;
        o->ucount = (size_t)a->rcount;
        o->udt = a->rdt;
        core_dt_retain(o->udt);
    }
    if (a->kind == RMA_CAS) {
        uint8_t buf[sizeof(rma_seg_t) + 2 * 64];
        if (v->n != 1 || esz > 64)
            return CORE_ETYPE;
        memcpy(buf, &v->s[0], sizeof(rma_seg_t));
        memcpy(buf + sizeof(rma_seg_t), a->obuf, esz);
        memcpy(buf + sizeof(rma_seg_t) + esz, a->cbuf, esz);
        h.len = esz;
        h.nseg = 1;
        o->left = 1;
        p->pending++;
        return rma_send(win->st, core_comm_world_rank(win->comm, a->target), RMA_AM_OP, &h,
                        sizeof(h), buf, sizeof(rma_seg_t) + 2 * esz);
    }
    uint8_t *packed = NULL;
    int has_origin = a->kind == RMA_PUT || a->kind == RMA_ACC || a->kind == RMA_GACC;
    if (has_origin && tbytes) {
        packed = malloc(tbytes);
        if (!packed)
            return CORE_ENOMEM;
        if (a->kind == RMA_GACC && a->op == MPI_NO_OP)
            memset(packed, 0, tbytes);   /* NO_OP reads only: the origin buffer may be absent */
        else
            core_dt_pack(packed, a->obuf, (size_t)a->ocount, a->odt);
    }
    rc = send_pieces(win, o, &h, v, packed, esz, holed ? (uint64_t)holed->extent : esz);
    free(packed);
    return rc;
}

int rma_op_start(MPI_Win win, const rma_args_t *a, MPI_Request *req)
{
    MPI_Request r = NULL;
    if (req) {
        r = core_req_alloc(CORE_REQ_COLL);
        if (!r)
            return CORE_ENOMEM;
    }
    if (a->target == MPI_PROC_NULL) {
        if (r) {
            core_req_complete(r);
            *req = r;
        }
        return 0;
    }
    int rc = rma_access_ok(win, a->target) ? 0 : CORE_ERMA_SYNC;
    segs_t v;
    segs_init(&v);
    size_t tbytes = (size_t)a->tcount * a->tdt->size, esz = 1;
    int dtk = 0, aop = 0;
    if (rc == 0)
        rc = flatten(win, a, &v);
    if (rc == 0)
        rc = check_args(a, tbytes, &esz, &dtk, &aop);
    if (rc == 0 && a->kind == RMA_CAS && tbytes && (v.n != 1 || esz > 64))
        rc = CORE_ETYPE;
    /* The direct paths complete the operation here; CORE_EUNSUPPORTED: take messages. */
    int path = win->peers[a->target].path, drc = CORE_EUNSUPPORTED;
    /* device atomics first: when the window has them, every rank's atomics on its 8-byte
     * integers go there, this rank's on its own window too (devatom.c) */
    if (rc == 0 && win->dev_atomics)
        drc = rma_dev_op(win, a, &v, tbytes);
    if (rc == 0 && drc == CORE_EUNSUPPORTED) {
        if (path == RMA_PATH_SHM)
            drc = rma_shm_op(win, a, &v, tbytes);
        else if (rma_self_usable(win, a->target))
            drc = rma_self_op(win, a, &v, tbytes);
        else if (path == RMA_PATH_CMA)
            drc = rma_cma_op(win, a, &v, tbytes);
    }
    if (rc == 0 && path == RMA_PATH_RDMA && drc == CORE_EUNSUPPORTED) {
        /* started here, completed by the transport (the request with it); not when the
         * operation was already done in place on the own window (RDMA is the path a rank
         * has to itself with verbs and no self transport: doing both applied accumulates
         * twice) */
        drc = rma_rdma_op(win, a, &v, tbytes, r);
        if (drc != CORE_EUNSUPPORTED) {
            segs_free(&v);
            if (drc == 0 && req)
                *req = r;
            else if (r)
                core_req_free(r);
            return drc;
        }
    }
    if (rc == 0 && drc != CORE_EUNSUPPORTED) {
        segs_free(&v);
        if (r && drc == 0) {
            core_req_complete(r);
            *req = r;
        } else if (r) {
            core_req_free(r);
        }
        return drc;
    }
    rma_opr_t *o = NULL;
    if (rc == 0 && !(o = rma_opr_alloc(win->st)))
        rc = CORE_ENOMEM;
    if (rc) {
        segs_free(&v);
        if (r)
            core_req_free(r);
        return rc;
    }
    o->win = win;
    o->target = a->target;
    o->kind = a->kind;
    o->req = r;
    rc = start(win, a, o, &v, tbytes, esz, dtk, aop);
    segs_free(&v);
    if (rc && o->left == 0) {
        /* nothing left: drop the record (a failure after a piece left is fatal below) */
        if (o->udt)
            core_dt_release(o->udt);
        rma_opr_free(win->st, o);
        if (r)
            core_req_free(r);
        return rc;
    }
    if (rc)
        core_fatal("RMA: cannot send an operation to rank %d: %s", a->target, core_strerror(rc));
    if (o->left == 0)
        rma_opr_done(win->st, o);
    if (req)
        *req = r;
    return 0;
}
