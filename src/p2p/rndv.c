/*
 * Rendezvous: large messages move once the receive has matched. With
 * TP_CAP_GET the receiver reads the sender's buffer directly (zero copy on
 * RDMA, single copy on shm through CMA) and answers FIN; with put
 * (RDMPI_RNDV_PROTO=write) it sends the address of its own buffer (RTR) and
 * the sender writes into it, then says PUT_FIN; otherwise it asks for the
 * data with CTS and the sender streams DATA chunks, from its registered
 * buffer where the transport has TP_CAP_AM_ZC (verbs ud: no copy into send
 * buffers; the send completes when the transport gives every chunk back).
 */
#include <stdlib.h>
#include <string.h>
#include "core/datatype.h"
#include "core/log.h"
#include "core/memcheck.h"
#include "p2p/proto.h"

#define P2P_RNDV_FRAG (64u << 10) /* pipelined chunk when the transport has no preference */
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

static void get_done(tp_comp_t *comp, int status)
{
    MPI_Request r = container_of(comp, struct rdmpi_request, comp);
    if (status != 0)
        core_fatal("reading a %zu-byte message from rank %d failed: %s", r->want, r->world_peer,
                   core_strerror(status));
    /* a NIC's RDMA read (or a peer's share of a copy) wrote it, unseen by valgrind */
    CORE_MEM_DEFINED(r->tmp ? r->tmp : r->buf, r->want);
    p2p_req_hdr_t fin = { r->remote };
    p2p_send_ctrl(r->world_peer, P2P_AM_FIN, &fin, sizeof(fin));
    p2p_recv_done(r, r->want, r->offset);
}

/* Where the data lands: the user's buffer when contiguous, else staging. */
static void *recv_target(MPI_Request r, size_t want)
{
    if (core_dt_is_contig(r->dt) || want == 0)
        return r->buf;
    r->tmp = malloc(want);
    if (!r->tmp)
        core_fatal("out of memory staging a %zu-byte message", want);
    return r->tmp;
}

static void start_get(MPI_Request r, const p2p_unexp_t *u, void *dst)
{
    tp_ep_t *ep;
    int rc = tp_ep_get(P2P->tp, u->world_src, &ep);
    if (rc == 0)
        rc = ep->iface->ops->mem_reg(ep->iface, dst, r->want, &r->memh);
    if (rc == 0) {
        r->comp.done = get_done;
        rc = tp_get(ep, dst, r->want, r->memh, u->raddr, u->rkey, &r->comp);
    }
    if (rc == 0)
        get_done(&r->comp, 0);
    else if (rc != CORE_INPROGRESS)
        core_fatal("cannot read a %zu-byte message from rank %d: %s", r->want, u->world_src,
                   core_strerror(rc));
}

/* Offers the sender our buffer to write into. Returns 0 if the receive could not be
 * registered: the caller falls back to the pipelined rendezvous. */
static int start_rtr(MPI_Request r, const p2p_unexp_t *u, void *dst)
{
    tp_ep_t *ep;
    int rc = tp_ep_get(P2P->tp, u->world_src, &ep);
    if (rc == 0)
        rc = ep->iface->ops->mem_reg(ep->iface, dst, r->want, &r->memh);
    if (rc != 0) {
        core_debug("registration of a %zu-byte receive failed (%s): pipelined rendezvous",
                   r->want, core_strerror(rc));
        r->memh = NULL;
        return 0;
    }
    p2p_rtr_hdr_t rtr;
    rtr.sreq = u->sreq;
    rtr.rreq = p2p_req_id(r);
    rtr.want = r->want;
    rtr.raddr = (uint64_t)(uintptr_t)dst;
    rtr.rkey_len = (uint32_t)ep->iface->ops->rkey_pack(ep->iface, r->memh, rtr.rkey);
    r->wait = P2P_WAIT_PUT_FIN;
    p2p_send_ctrl(u->world_src, P2P_AM_RTR, &rtr, offsetof(p2p_rtr_hdr_t, rkey) + rtr.rkey_len);
    p2p_fail_if_lost(r);
    return 1;
}

void p2p_rndv_recv_start(MPI_Request r, const p2p_unexp_t *u)
{
    size_t cap = r->count * r->dt->size;
    r->want = u->len < cap ? u->len : cap;
    r->offset = u->len;    /* the message length, for truncation */
    r->remote = u->sreq;
    r->world_peer = u->world_src;
    r->status.MPI_SOURCE = u->src;
    r->status.MPI_TAG = u->tag;
    void *dst = recv_target(r, r->want);
    if (u->proto == P2P_PROTO_RNDV_GET && r->want > 0) {
        start_get(r, u, dst);
        return;
    }
    if (u->proto == P2P_PROTO_RNDV_GET) {   /* nothing to read: release the sender */
        get_done(&r->comp, 0);
        return;
    }
    /* r->offset keeps the message length until PUT_FIN. */
    if (u->proto == P2P_PROTO_RNDV_PUT && r->want > 0 && start_rtr(r, u, dst))
        return;
    p2p_cts_hdr_t cts = { u->sreq, p2p_req_id(r), r->want };
    /* Pipelined: count what arrives in want's place; len keeps the message length. */
    r->len = u->len;
    r->offset = 0;
    if (r->want > 0)
        r->wait = P2P_WAIT_DATA;
    p2p_send_ctrl(u->world_src, P2P_AM_CTS, &cts, sizeof(cts));
    if (r->want == 0)
        p2p_recv_done(r, 0, r->len);
    else
        p2p_fail_if_lost(r); /* its sender left after its RTS: no DATA will come */
}

/* A DATA chunk sent zero copy has left the buffer: the send is done with its last one. */
static void zc_done(tp_comp_t *comp, int status)
{
    MPI_Request s = container_of(comp, struct rdmpi_request, comp);
    if (status != 0)
        s->status.MPI_ERROR = MPI_ERR_OTHER; /* its receiver was lost */
    if (--s->zc_left == 0 && s->offset == s->want)
        p2p_send_done(s);
}

int p2p_rndv_push(MPI_Request s)
{
    tp_ep_t *ep = P2P->tp->eps[s->world_peer];
    const char *data = s->tmp ? s->tmp : s->buf;
    /* RDMPI_RNDV_FRAG_SIZE, if set, else what suits the transport: a
     * socket wants larger chunks than a shared-memory ring. */
    size_t frag = P2P->cfg->rndv_frag_size;
    if (frag == 0)
        frag = tp_ep_caps(ep)->rndv_frag ? tp_ep_caps(ep)->rndv_frag : P2P_RNDV_FRAG;
    if (frag > tp_ep_caps(ep)->max_am)
        frag = tp_ep_caps(ep)->max_am;
    while (s->offset < s->want) {
        size_t n = s->want - s->offset < frag ? s->want - s->offset : frag;
        p2p_data_hdr_t h = { s->remote, s->offset };
        int rc;
        if (s->memh && (tp_ep_caps(ep)->flags & TP_CAP_AM_ZC)) {
            s->comp.done = zc_done;
            rc = tp_am_send_zc(ep, P2P_AM_DATA, &h, sizeof(h), data + s->offset, n, s->memh,
                               &s->comp, s->offset + n == s->want ? TP_ZC_WAITED : 0);
        } else {
            rc = tp_am_send_hold(ep, P2P_AM_DATA, &h, sizeof(h), data + s->offset, n);
            if (rc == 1) /* held (1, as CORE_INPROGRESS): am_held below says when it left */
                rc = 0;
        }
        if (rc == CORE_EBUSY)
            return CORE_EBUSY;
        if (rc == CORE_INPROGRESS)
            s->zc_left++;
        else if (rc < 0)
            core_fatal("sending a message to rank %d failed: %s", s->world_peer,
                       core_strerror(rc));
        s->offset += n;
    }
    /* A socket may still send the end of the last chunk from the buffer (am_send_hold; an
     * earlier chunk's end kept the next one out until it had gone): done once it has. */
    if (ep->iface->ops->am_held && ep->iface->ops->am_held(ep, data, s->want))
        return 0;
    p2p_send_done(s); /* or, zero copy, the last chunk's comp does */
    return 1;
}

/* Copies a peer's fixed-size header, or refuses it. */
static int take_hdr(void *dst, size_t size, const void *hdr, size_t hdr_len, size_t len,
                    const char *what)
{
    if (hdr_len != size)
        return core_wire_reject(P2P->rt, "%s header of %zu bytes (expected %zu)", what, hdr_len,
                                size);
    if (len != 0)
        return core_wire_reject(P2P->rt, "%s with a %zu-byte payload", what, len);
    memcpy(dst, hdr, size);
    return 0;
}

static int cts_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                       size_t len)
{
    p2p_cts_hdr_t h = { 0 };
    (void)arg;
    (void)payload;
    int rc = take_hdr(&h, sizeof(h), hdr, hdr_len, len, "CTS");
    if (rc)
        return rc;
    MPI_Request s = p2p_req_find(h.sreq, src, P2P_WAIT_CTS, "CTS");
    if (!s)
        return CORE_EPROTO;
    if (h.want > s->len)
        return core_wire_reject(P2P->rt, "CTS asks for %llu bytes of a %zu-byte message",
                                (unsigned long long)h.want, s->len);
    s->wait &= P2P_WAIT_CANCEL; /* matched: a CANCEL_RESP(0) may still come */
    s->remote = h.rreq;
    s->want = h.want;
    s->offset = 0;
    if (p2p_rndv_push(s) != 1)
        p2p_queue_data(s);
    return 0;
}

static void put_done(tp_comp_t *comp, int status)
{
    MPI_Request s = container_of(comp, struct rdmpi_request, comp);
    if (status != 0)
        core_fatal("writing a %zu-byte message to rank %d failed: %s", s->want, s->world_peer,
                   core_strerror(status));
    p2p_req_hdr_t fin = { s->remote };
    p2p_send_ctrl(s->world_peer, P2P_AM_PUT_FIN, &fin, sizeof(fin));
    p2p_send_done(s);
}

/* The receiver matched and registered its buffer: write the message into it. */
static int rtr_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                       size_t len)
{
    p2p_rtr_hdr_t h;
    (void)arg;
    (void)payload;
    const size_t fixed = offsetof(p2p_rtr_hdr_t, rkey);
    if (hdr_len < fixed || hdr_len > sizeof(h) || len != 0)
        return core_wire_reject(P2P->rt, "RTR of %zu + %zu bytes", hdr_len, len);
    memset(&h, 0, sizeof(h));
    memcpy(&h, hdr, hdr_len);
    MPI_Request s = p2p_req_find(h.sreq, src, P2P_WAIT_RTR, "RTR");
    if (!s)
        return CORE_EPROTO;
    tp_ep_t *ep = P2P->tp->eps[s->world_peer];
    if (h.rkey_len != hdr_len - fixed || h.rkey_len > tp_ep_caps(ep)->max_rkey)
        return core_wire_reject(P2P->rt, "RTR with a %u-byte remote key in a %zu-byte header "
                                "(%s takes %zu)", h.rkey_len, hdr_len, ep->iface->name,
                                tp_ep_caps(ep)->max_rkey);
    if (h.want == 0 || h.want > s->len || h.raddr == 0)
        return core_wire_reject(P2P->rt, "RTR for %llu bytes at 0x%llx of a %zu-byte message",
                                (unsigned long long)h.want, (unsigned long long)h.raddr,
                                s->len);
    s->wait &= P2P_WAIT_CANCEL; /* matched: a CANCEL_RESP(0) may still come */
    s->remote = h.rreq;
    s->want = h.want;
    s->comp.done = put_done;
    int rc = tp_put(ep, s->tmp ? s->tmp : s->buf, s->want, s->memh, h.raddr, h.rkey, &s->comp);
    if (rc == 0)
        put_done(&s->comp, 0);
    else if (rc != CORE_INPROGRESS)
        core_fatal("cannot write a %zu-byte message to rank %d: %s", s->want, s->world_peer,
                   core_strerror(rc));
    return 0;
}

/* The sender's write into our buffer is complete. */
static int put_fin_handler(void *arg, int src, const void *hdr, size_t hdr_len,
                           const void *payload, size_t len)
{
    p2p_req_hdr_t h = { 0 };
    (void)arg;
    (void)payload;
    int rc = take_hdr(&h, sizeof(h), hdr, hdr_len, len, "PUT_FIN");
    if (rc)
        return rc;
    MPI_Request r = p2p_req_find(h.req, src, P2P_WAIT_PUT_FIN, "PUT_FIN");
    if (!r)
        return CORE_EPROTO;
    CORE_MEM_DEFINED(r->tmp ? r->tmp : r->buf, r->want); /* the sender wrote it (RDMA, CMA) */
    p2p_recv_done(r, r->want, r->offset);
    return 0;
}

/* Bytes [off, off + n) of a DATA message's payload (len bytes, for the receive's bytes from
 * h->offset on); the receive completes with its last byte, whichever message or piece of one
 * brings it. Nothing is written unless the bytes lie within what the receive asked for and
 * has not received yet: a peer cannot write outside the matched receive buffer. */
static int data_piece(void *arg, int src, const void *hdr, size_t hdr_len, size_t off,
                      const void *data, size_t n, size_t len)
{
    p2p_data_hdr_t h;
    (void)arg;
    if (hdr_len != sizeof(h))
        return core_wire_reject(P2P->rt, "DATA header of %zu bytes (expected %zu)", hdr_len,
                                sizeof(h));
    memcpy(&h, hdr, sizeof(h));
    MPI_Request r = p2p_req_find(h.rreq, src, P2P_WAIT_DATA, "DATA");
    if (!r)
        return CORE_EPROTO;
    if (off > len || n > len - off || h.offset > r->want || len > r->want - h.offset ||
        n > r->want - r->offset)
        return core_wire_reject(P2P->rt, "DATA bytes %llu+%zu..+%zu (of %zu) for a receive of "
                                "%zu bytes that has %zu", (unsigned long long)h.offset, off,
                                n, len, r->want, r->offset);
    char *dst = (r->tmp ? r->tmp : r->buf) + h.offset + off;
    if (dst != data) /* else read there in place (data_place) */
        memcpy(dst, data, n);
    r->offset += n;
    if (r->offset == r->want)
        p2p_recv_done(r, r->want, r->len);
    return 0;
}

static int data_handler(void *arg, int src, const void *hdr, size_t hdr_len,
                        const void *payload, size_t len)
{
    return data_piece(arg, src, hdr, hdr_len, 0, payload, len, len);
}

/* Where a DATA message's len-byte payload may be read to directly (a stream transport's
 * tp_am_place_t): its bytes of the receive's buffer, when data_piece would take them all at
 * once; NULL otherwise (data_piece then says why it refuses them). */
static void *data_place(void *arg, int src, const void *hdr, size_t hdr_len, size_t len)
{
    p2p_data_hdr_t h;
    (void)arg;
    if (hdr_len != sizeof(h))
        return NULL;
    memcpy(&h, hdr, sizeof(h));
    MPI_Request r = core_req_lookup(&P2P->rt->reqs, h.rreq);
    if (!r || r->kind != CORE_REQ_RECV || r->world_peer != src || !(r->wait & P2P_WAIT_DATA) ||
        h.offset > r->want || len > r->want - h.offset || len > r->want - r->offset)
        return NULL;
    return (r->tmp ? r->tmp : r->buf) + h.offset;
}

static int fin_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                       size_t len)
{
    p2p_req_hdr_t h = { 0 };
    (void)arg;
    (void)payload;
    int rc = take_hdr(&h, sizeof(h), hdr, hdr_len, len, "FIN");
    if (rc)
        return rc;
    MPI_Request s = p2p_req_find(h.req, src, P2P_WAIT_FIN, "FIN");
    if (!s)
        return CORE_EPROTO;
    p2p_send_done(s);
    return 0;
}

void p2p_rndv_register(void)
{
    tp_am_register(P2P->tp, P2P_AM_CTS, (tp_am_entry_t){ cts_handler, NULL, NULL, "CTS" });
    tp_am_register(P2P->tp, P2P_AM_DATA, (tp_am_entry_t){ data_handler, NULL, data_piece, "DATA",
                                                    data_place });
    tp_am_register(P2P->tp, P2P_AM_FIN, (tp_am_entry_t){ fin_handler, NULL, NULL, "FIN" });
    tp_am_register(P2P->tp, P2P_AM_RTR, (tp_am_entry_t){ rtr_handler, NULL, NULL, "RTR" });
    tp_am_register(P2P->tp, P2P_AM_PUT_FIN,
                   (tp_am_entry_t){ put_fin_handler, NULL, NULL, "PUT_FIN" });
}
