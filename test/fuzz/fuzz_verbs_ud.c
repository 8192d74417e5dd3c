/*
 * Fuzz target: receiving UD packets in the verbs transport
 * (transports/verbs/verbs_ud.c: vb_ud_recv, the reliability header, acks
 * and NAKs of verbs_rel.c, reassembly of messages cut into packets, the
 * out-of-order store), without a device: packets are written into the
 * receive buffers and vb_ud_recv is given the completion an HCA would give.
 *
 * Input: records of (peer byte, 16-bit length, bytes): the packet's bytes
 * after the GRH, as received from the QP of rank (peer & 3) (peer & 4: from
 * a QP no rank has). Rank 0 is this process; ranks 1-3 are peers on UD.
 * Handler 0 takes whole messages, handler 3 takes pieces (as p2p's DATA).
 * Properties: every message handed up lies in memory the transport owns
 * (its bytes are read) and comes from a peer rank; pieces arrive in order,
 * each within the message's payload; receive buffers are neither lost nor
 * handed back twice (every one not handed back is in the out-of-order
 * store); nothing leaks.
 */
#include "verbs_stubs.h"

/* Opening and closing the UD QP are not fuzzed. */
int vb_mtu_bytes(enum ibv_mtu mtu) { abort(); }
int vb_pool_init(vb_iface_t *s, vb_pool_t *pl, unsigned n, size_t bufsz) { abort(); }
void vb_pool_fini(vb_pool_t *pl) { abort(); }
int vb_sq_init(vb_sq_t *q, uint32_t size) { abort(); }
void vb_sq_fini(vb_sq_t *q) { abort(); }

#define NBUF 64
#define MTU 1024
#define BUFSZ (VB_GRH + MTU)

static struct {
    size_t next_off[NPEERS];    /* piece handler: where the next piece must start */
    int in_msg[NPEERS];
    unsigned whole, pieces;
} got;

static int whole_cb(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                     size_t len)
{
    FUZZ_CHECK(src > 0 && src < NPEERS);
    stub_touch(hdr, hdr_len);
    stub_touch(payload, len);
    got.whole++;
    return 0;
}

static int piece_cb(void *arg, int src, const void *hdr, size_t hdr_len, size_t off,
                     const void *data, size_t n, size_t len)
{
    FUZZ_CHECK(src > 0 && src < NPEERS);
    stub_touch(hdr, hdr_len);
    stub_touch(data, n);
    FUZZ_CHECK(off <= len && n <= len - off);
    /* In order: a piece continues the message, or starts a new one at 0
     * (a message cut short by a malformed packet is abandoned). */
    FUZZ_CHECK(off == 0 || (got.in_msg[src] && off == got.next_off[src]));
    got.in_msg[src] = off + n < len;
    got.next_off[src] = off + n;
    got.pieces++;
    return 0;
}

/* verbs_iface.c is not linked: its dispatch with V left and its deferred completions
 * (vb_dispatch_up, vb_comp_fire, for MULTIPLE) are the plain calls here, where V is never
 * held. */
int vb_dispatch_up(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                   const void *payload, size_t len)
{
    return s->base.am[id].cb(s->base.am[id].arg, p->ep.peer, hdr, hdr_len, payload, len);
}
void vb_comp_fire(vb_iface_t *s, tp_comp_t *comp, int status)
{
    (void)s;
    comp->done(comp, status);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vb_iface_t s;
    vb_peer_t peers[NPEERS];
    uint8_t *rx = malloc((size_t)NBUF * BUFSZ);
    uint32_t refill[NBUF], freeq[NBUF];
    uint8_t held[NBUF] = { 0 };
    unsigned nfree = NBUF;
    FUZZ_CHECK(rx);
    memset(&s, 0, sizeof(s));
    s.base.am = tp_am_table;
    memset(peers, 0, sizeof(peers));
    memset(&got, 0, sizeof(got));
    s.size = NPEERS;
    s.peers = stub_peers; /* read directly for a packet that fails to decode */
    s.me = 0;
    s.ud_rx = rx;
    s.ud_rx_bufsz = BUFSZ;
    s.ud_rq = s.ud_rq_posted = NBUF;
    s.ud_refill = refill;
    s.now = 1000.0;
    /* The parameters verbs_iface.c derives from the defaults. */
    s.rel = (vb_rel_params_t){ .window = 256, .ack_every = 128, .ack_delay = 0.001,
                               .rto_init = 0.05, .rto_min = 0.01, .rto_max = 1.0,
                               .peer_timeout = 30, .ack_max = 0.005 };
    FUZZ_CHECK(vb_rel_ooo_init(&s.ooo, NBUF / 2) == 0);
    for (int r = 0; r < NPEERS; r++) {
        vb_peer_t *p = &peers[r];
        p->ep.peer = r;
        p->card.qpn = 100 + (uint32_t)r;
        p->seg = MTU - sizeof(vb_ud_hdr_t);
        vb_rel_tx_init(&p->tx, &s.rel);
        vb_rel_rx_init(&p->rx);
        stub_peers[r] = r ? p : NULL; /* no UD peer for ourselves */
    }
    memset(tp_am_table, 0, sizeof(tp_am_table));
    tp_am_table[0] = (tp_am_entry_t){ whole_cb, NULL, NULL };
    tp_am_table[3] = (tp_am_entry_t){ whole_cb, NULL, piece_cb };
    for (unsigned i = 0; i < NBUF; i++)
        freeq[i] = i;

    fuzz_in_t in = { data, size };
    while (in.left && nfree) {
        uint8_t who = fuzz_u8(&in);
        size_t n = fuzz_u8(&in);
        n |= (size_t)fuzz_u8(&in) << 8;
        if (n > in.left)
            n = in.left;
        if (n > MTU)
            n = MTU;
        uint32_t idx = freeq[--nfree];
        FUZZ_CHECK(!held[idx]);
        held[idx] = 1;
        memset(rx + (size_t)idx * BUFSZ, 0xee, VB_GRH);
        memcpy(rx + (size_t)idx * BUFSZ + VB_GRH, in.p, n);
        in.p += n;
        in.left -= n;
        struct ibv_wc wc = { .wr_id = (uint64_t)idx << 3 | VB_WR_UD_RECV,
                             .status = IBV_WC_SUCCESS,
                             .byte_len = (uint32_t)(VB_GRH + n),
                             .src_qp = (who & 4) ? 999 : 100 + (uint32_t)(who & 3) };
        s.ud_nrefill = 0;
        vb_ud_recv(&s, &wc);
        s.ud_rq_posted++;
        /* Buffers handed back: this one unless the store holds it, and any
         * held ones delivered after it. */
        for (unsigned k = 0; k < s.ud_nrefill; k++) {
            uint32_t j = refill[k];
            FUZZ_CHECK(j < NBUF && held[j]);
            held[j] = 0;
            freeq[nfree++] = j;
        }
        s.now += 0.0001;
    }
    unsigned stored = 0;
    for (unsigned i = 0; i < NBUF; i++)
        stored += held[i];
    FUZZ_CHECK(stored == s.ooo.n); /* every buffer not handed back is in the store */
    for (int r = 1; r < NPEERS; r++) {
        FUZZ_CHECK(peers[r].rx.held <= s.ooo.n);
        free(peers[r].reasm);
    }
    vb_rel_ooo_fini(&s.ooo);
    free(rx);
    return 0;
}

#ifdef FUZZ_SEEDS
typedef struct seq {
    fuzz_buf_t b;
    uint16_t psn[NPEERS];
} seq_t;

/* One UD packet from rank src & 3 (src & 4: received from a foreign QP), as
 * vb_ud_send and push_unsent build it. */
static void packet(seq_t *q, int src, uint8_t type, unsigned id, size_t hdr_len, size_t len,
                   const uint8_t *bytes, size_t n, int psn)
{
    vb_ud_hdr_t h = { .src = (uint32_t)(src & 3),
                      .psn = (uint16_t)(psn >= 0 ? psn : q->psn[src & 3]++),
                      .ack = 0xffff, .type = type, .id = (uint8_t)id,
                      .hdr_len = (uint16_t)hdr_len, .len = (uint32_t)len };
    size_t total = sizeof(h) + n;
    fuzz_put_u8(&q->b, (uint8_t)src);
    fuzz_put_u8(&q->b, (uint8_t)total);
    fuzz_put_u8(&q->b, (uint8_t)(total >> 8));
    fuzz_put(&q->b, &h, sizeof(h));
    fuzz_put(&q->b, bytes, n);
}

/* A whole message from src, cut into packets as vb_ud_send cuts it. */
static void message(seq_t *q, int src, unsigned id, size_t hdr_len, size_t len)
{
    static uint8_t bytes[8192];
    size_t total = hdr_len + len, seg = MTU - sizeof(vb_ud_hdr_t);
    size_t nseg = total ? (total + seg - 1) / seg : 1;
    for (size_t i = 0; i < sizeof(bytes); i++)
        bytes[i] = (uint8_t)(i * 7 + src);
    for (size_t k = 0, off = 0; k < nseg; k++) {
        size_t n = total - off < seg ? total - off : seg;
        uint8_t type = VB_UD_DATA | (k == 0 ? VB_UD_FIRST : 0) | (k == nseg - 1 ? VB_UD_LAST : 0);
        packet(q, src, type, id, hdr_len, len, bytes + off, n, -1);
        off += n;
    }
}

void fuzz_make_seeds(void)
{
    seq_t q;
    memset(&q, 0, sizeof(q));
    message(&q, 1, 0, 16, 5);
    message(&q, 1, 0, 24, 0);
    message(&q, 2, 3, 16, 3000); /* pieces */
    message(&q, 1, 0, 16, 2500); /* reassembled */
    fuzz_seed("in-order", q.b.p, q.b.len);
    free(q.b.p);

    /* Reordered: rank 1's packets 1 and 2 arrive before 0; an ack with a NAK. */
    memset(&q, 0, sizeof(q));
    seq_t m;
    memset(&m, 0, sizeof(m));
    message(&m, 1, 3, 16, 2800); /* three packets, stored in m */
    size_t plen[3], off[3], pos = 0;
    for (int k = 0; k < 3; k++) {
        off[k] = pos;
        plen[k] = 3 + (m.b.p[pos + 1] | (size_t)m.b.p[pos + 2] << 8);
        pos += plen[k];
    }
    fuzz_put(&q.b, m.b.p + off[1], plen[1]);
    fuzz_put(&q.b, m.b.p + off[2], plen[2]);
    fuzz_put(&q.b, m.b.p + off[0], plen[0]);
    packet(&q, 1, VB_UD_ACK | VB_UD_NAK, 0, 0, 0, NULL, 0, 0);
    packet(&q, 1, VB_UD_DATA | VB_UD_FIRST | VB_UD_LAST, 0, 0, 0, NULL, 0, 0); /* duplicate */
    fuzz_seed("reordered", q.b.p, q.b.len);
    free(q.b.p);
    free(m.b.p);

    /* Edge cases: a transport message (RC handshake id), a forged source,
     * a last packet without a first, a total past the reassembly limit. */
    memset(&q, 0, sizeof(q));
    uint8_t conn[sizeof(vb_conn_t)] = { 0 };
    packet(&q, 3, VB_UD_DATA | VB_UD_FIRST | VB_UD_LAST | VB_UD_WANT_ACK, VB_AM_CONN_REQ,
           sizeof(conn), 0, conn, sizeof(conn), -1);
    packet(&q, 1 | 4, VB_UD_DATA | VB_UD_FIRST | VB_UD_LAST, 0, 0, 0, NULL, 0, -1);
    packet(&q, 2, VB_UD_DATA | VB_UD_LAST, 0, 0, 0, (const uint8_t *)"xyz", 3, -1);
    packet(&q, 2, VB_UD_DATA | VB_UD_FIRST, 0, 16, 0x7fffffff, conn, sizeof(conn), -1);
    fuzz_seed("edges", q.b.p, q.b.len);
    free(q.b.p);
}
#endif
