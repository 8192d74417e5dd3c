/*
 * Fuzz target: the RDMA-write eager ring a peer writes its small messages
 * into (transports/verbs/verbs_fp.c: vb_fp_poll, vb_fp_catch_up), without a
 * device: the peer's RDMA writes are memcpy's into the ring.
 *
 * Input: records of (16-bit offset, length byte, bytes): a write of those
 * bytes at that offset of the ring (as the peer may write anywhere in the
 * ring it was given the key of); after each record the ring is polled, and
 * a record whose offset has the top bit set instead announces that message
 * (offset & 0xff) was sent (vb_fp_catch_up, as a sent message of that
 * number arriving does); with 0xc000 set, a write with immediate completed
 * (vb_fp_imm_in: the ring is one written with immediate); with 0xa000 set,
 * the next sizeof(vb_conn_t) bytes are the ring a peer offers in its RC
 * handshake (vb_fp_conn_take, on a connection of its own).
 * Properties: every message handed up lies inside its slot of the ring (its
 * bytes are read, and checked against the slot's bounds), with the handler
 * id and lengths its slot header gave; messages come in sequence order; a
 * malformed slot is refused with a fatal error naming the peer (today's
 * contract; counted, not a failure), never by reading outside the ring; an
 * offered ring is taken only with known flags, a slot size that holds a
 * header, and as many free slots as it has; a write with immediate owes
 * the peer one more credit.
 */
#include "verbs_stubs.h"

#define SLOTS 4
#define SLOT 256

static const uint8_t *ring_lo, *ring_hi;
static unsigned handed;

static void check_in_ring(const void *p, size_t n)
{
    const uint8_t *b = p;
    FUZZ_CHECK(n == 0 || (b >= ring_lo && b + n <= ring_hi));
    /* within one slot: a message never spans two */
    FUZZ_CHECK(n == 0 || (size_t)(b - ring_lo) / SLOT == (size_t)(b + n - 1 - ring_lo) / SLOT);
    stub_touch(p, n);
}

static int cb(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
               size_t len)
{
    FUZZ_CHECK(src == 1);
    check_in_ring(hdr, hdr_len);
    check_in_ring(payload, len);
    handed++;
    return 0;
}

/* The RC side of the transport is not fuzzed here. */
void vb_rc_return_credits(vb_iface_t *s, vb_peer_t *p)
{
    p->rc->fp_owed = 0; /* as the credit message would */
}

void vb_rc_post(vb_iface_t *s, vb_peer_t *p, struct ibv_send_wr *wr)
{
    abort();
}

int vb_rc_send(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
               const void *payload, size_t len)
{
    abort();
}

/* A ring offered in a handshake: taken only when it is one we know how to write. */
static void offer(fuzz_in_t *in)
{
    vb_conn_t c;
    memset(&c, 0, sizeof(c));
    size_t n = in->left < sizeof(c) ? in->left : sizeof(c);
    memcpy(&c, in->p, n);
    in->p += n;
    in->left -= n;
    vb_rc_t orc;
    vb_peer_t op;
    memset(&orc, 0, sizeof(orc));
    memset(&op, 0, sizeof(op));
    op.rc = &orc;
    vb_fp_conn_take(&op, &c);
    if (orc.fp_credits == 0)
        return;
    FUZZ_CHECK(!(c.fp_flags & ~VB_FP_FLAGS));
    FUZZ_CHECK(orc.fp_size >= sizeof(vb_fp_hdr_t) + 64 && orc.fp_n == c.fp_slots);
    FUZZ_CHECK(orc.fp_credits == (int)orc.fp_n && orc.fp_imm == !!(c.fp_flags & VB_FP_IMM));
}

/* verbs_iface.c is not linked: its dispatch with V left (vb_dispatch_up, for MULTIPLE) is
 * the plain call here, where V is never held. */
int vb_dispatch_up(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                   const void *payload, size_t len)
{
    return s->base.am[id].cb(s->base.am[id].arg, p->ep.peer, hdr, hdr_len, payload, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vb_iface_t s;
    vb_peer_t peer, *fp[1] = { &peer };
    vb_rc_t rc;
    vb_fp_ring_t ring;
    struct ibv_qp qp = { .qp_num = 77 }; /* named in fatal errors */
    uint8_t *buf = calloc(SLOTS, SLOT);
    FUZZ_CHECK(buf);
    memset(&s, 0, sizeof(s));
    s.base.am = tp_am_table;
    memset(&peer, 0, sizeof(peer));
    memset(&rc, 0, sizeof(rc));
    ring = (vb_fp_ring_t){ .buf = buf, .size = SLOT, .n = SLOTS, .imm = 1 };
    vb_config_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.verbs_rc_credits = 1 << 20; /* credits go back in the stubbed credit message */
    s.cfg = &cfg;
    ring_lo = buf;
    ring_hi = buf + SLOTS * SLOT;
    rc.fpr = &ring;
    rc.qp = &qp;
    /* Room for the credits and ring slots a well-behaved peer could return (more is
     * refused as malformed: vb_credits_take). */
    rc.credits_max = 1 << 20;
    rc.fp_n = 1 << 20;
    peer.ep.peer = 1;
    peer.rc = &rc;
    peer.path = VB_PATH_RC;
    s.size = 2;
    s.fp = fp;
    s.nfp = 1;
    stub_peers[1] = &peer;
    memset(tp_am_table, 0, sizeof(tp_am_table));
    for (int id = 0; id < 8; id++)
        tp_am_table[id] = (tp_am_entry_t){ cb, NULL, NULL };
    handed = 0;
    stub_other = 0;

    jmp_buf jb;
    stub_fatal_jmp = &jb;
    if (setjmp(jb) == 0) {
        fuzz_in_t in = { data, size };
        while (in.left) {
            uint32_t off = fuzz_u8(&in);
            off |= (uint32_t)fuzz_u8(&in) << 8;
            if ((off & 0xe000) == 0xa000) {
                offer(&in);
                continue;
            }
            if ((off & 0xc000) == 0xc000) {
                int owed = rc.owed;
                vb_fp_imm_in(&s, &peer);
                FUZZ_CHECK(rc.owed == owed + 1 || stub_fatals || peer.failed);
                rc.owed = 0; /* as the credit message would */
                continue;
            }
            if (off & 0x8000) {
                vb_fp_catch_up(&s, &peer, (uint16_t)(off & 0xff));
                continue;
            }
            off %= SLOTS * SLOT;
            size_t n = fuzz_u8(&in);
            if (n > in.left)
                n = in.left;
            if (n > SLOTS * SLOT - off)
                n = SLOTS * SLOT - off;
            memcpy(buf + off, in.p, n);
            in.p += n;
            in.left -= n;
            uint16_t before = rc.rx_seq;
            int ev = vb_fp_poll(&s);
            FUZZ_CHECK((uint16_t)(rc.rx_seq - before) == (unsigned)ev);
            FUZZ_CHECK(ring.head < SLOTS);
        }
    }
    stub_fatal_jmp = NULL;
    FUZZ_CHECK(handed + stub_other == rc.rx_seq || stub_fatals);
    free(buf);
    return 0;
}

#ifdef FUZZ_SEEDS
/* A message written into slot `slot`, as vb_fp_send lays it out. */
static void put_msg(fuzz_buf_t *b, unsigned slot, uint16_t seq, unsigned id, size_t hdr_len,
                    size_t len)
{
    uint8_t m[SLOT];
    vb_fp_hdr_t fh = { .len = (uint32_t)(hdr_len + len), .seq = seq, .fcredits = 1,
                       .credits = 0, .id = (uint8_t)id, .hdr_len = (uint8_t)hdr_len,
                       .mark = VB_FP_MARK };
    size_t total = sizeof(fh) + hdr_len + len + 1;
    memcpy(m, &fh, sizeof(fh));
    for (size_t i = sizeof(fh); i < total - 1; i++)
        m[i] = (uint8_t)i;
    m[total - 1] = VB_FP_MARK;
    uint16_t off = (uint16_t)(slot * SLOT);
    fuzz_put(b, &off, 2);
    fuzz_put_u8(b, (uint8_t)total);
    fuzz_put(b, m, total);
}

void fuzz_make_seeds(void)
{
    fuzz_buf_t b = { 0 };
    for (unsigned k = 0; k < 6; k++)
        put_msg(&b, k % SLOTS, (uint16_t)k, k % 3, 16, k * 20);
    fuzz_seed("in-order", b.p, b.len);
    /* Slot 1 lands before slot 0, then message 2 was sent (catch up). */
    b.len = 0;
    put_msg(&b, 1, 1, 0, 24, 0);
    put_msg(&b, 0, 0, 0, 16, 7);
    uint16_t catch2 = 0x8000 | 2;
    fuzz_put(&b, &catch2, 2);
    fuzz_seed("out-of-order", b.p, b.len);
    /* Edge cases: a header longer than its message, the largest message,
     * a transport message (credits). */
    b.len = 0;
    put_msg(&b, 0, 0, 0, 16, 200);
    put_msg(&b, 1, 1, VB_AM_CREDIT, 0, 0);
    put_msg(&b, 2, 2, 0, 0, SLOT - sizeof(vb_fp_hdr_t) - 1);
    fuzz_seed("edges", b.p, b.len);
    /* A ring written with immediate: messages announced by their completions (one before
     * its message landed, one for two), and rings offered with and without known flags. */
    b.len = 0;
    uint16_t imm = 0xc000;
    fuzz_put(&b, &imm, 2);
    put_msg(&b, 0, 0, 0, 16, 9);
    fuzz_put(&b, &imm, 2);
    put_msg(&b, 1, 1, 1, 8, 0);
    put_msg(&b, 2, 2, 2, 0, 30);
    fuzz_put(&b, &imm, 2);
    uint16_t offer_rec = 0xa000;
    vb_conn_t c = { .qpn = 5, .psn = 6, .mtu = 3, .fp_flags = VB_FP_IMM, .fp_rkey = 7,
                    .fp_addr = 4096, .fp_size = SLOT, .fp_slots = SLOTS };
    fuzz_put(&b, &offer_rec, 2);
    fuzz_put(&b, &c, sizeof(c));
    c.fp_flags = 0x80 | VB_FP_IMM;
    fuzz_put(&b, &offer_rec, 2);
    fuzz_put(&b, &c, sizeof(c));
    c.fp_flags = 0;
    c.fp_size = 16;
    fuzz_put(&b, &offer_rec, 2);
    fuzz_put(&b, &c, sizeof(c));
    fuzz_seed("imm", b.p, b.len);
    free(b.p);
}
#endif
