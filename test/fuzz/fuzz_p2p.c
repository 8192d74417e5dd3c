/*
 * Fuzz target: p2p's message handlers (src/p2p) behind the test endpoint of
 * test/unit/p2p_fake.h: rank 0 of a 4-rank job whose fake transport records
 * what p2p sends. Messages go in through tp_am_dispatch, as a transport
 * feeds them, interleaved with local operations, so that ids taken from what
 * p2p really sent (request ids of live requests) meet forged headers.
 *
 * Input: a byte of transport capabilities (none, get, put), then operations:
 *   op % 8 == 0: post a receive (size, source, tag) into a buffer between guard bytes;
 *             1: start a send (size: eager or rendezvous, dest, tag, standard or sync);
 *             7: MPI_Cancel of a send (which one): CANCEL_REQ, its sreq then known;
 *             2..6: a message: handler id (one past p2p's too), source rank, header
 *                length and bytes, payload length and bytes; a byte says whether the
 *                header's first (and second) 8 bytes become a request id p2p sent.
 * p2p_init runs for every input, on a new runtime instance (with a hook table of its own).
 * Properties: no byte written outside a posted receive buffer (guards), a
 * handler returns 0 or a negative code, a malformed message ends in
 * tp_am_refused (the fake's core_fatal, caught; a fatal error in a local call ends
 * the run, as it ends the job), never a crash or a sanitizer
 * report; after cancelling and freeing everything, nothing is left allocated
 * (LeakSanitizer).
 */
#include <string.h>
#include "fuzz.h"
#include "core/datatype.h"
#include "core/progress.h"
#include "test/unit/p2p_fake.h"

#define GUARD 32
#define GUARD_BYTE 0xee
#define MAXREQ 8
#define MAXIDS 16

static struct {
    MPI_Comm world;
    MPI_Request recv[MAXREQ], send[MAXREQ];
    uint8_t *mem[MAXREQ]; /* receive buffers with guards */
    size_t len[MAXREQ];
    int nrecv, nsend;
    uint64_t ids[MAXIDS];
    int nids;
    uint8_t sendbuf[4096];
    uint8_t *pending; /* a receive buffer while p2p_irecv runs (it may end in a fatal error) */
} st;

static void guards_ok(void)
{
    for (int i = 0; i < st.nrecv; i++)
        for (size_t k = 0; k < GUARD; k++)
            FUZZ_CHECK(st.mem[i][k] == GUARD_BYTE && st.mem[i][GUARD + st.len[i] + k] == GUARD_BYTE);
}

static void add_id(const uint8_t *hdr, size_t off, size_t hdr_len)
{
    uint64_t id;
    if (off + 8 > hdr_len)
        return;
    memcpy(&id, hdr + off, 8);
    st.ids[st.nids++ % MAXIDS] = id;
}

/* Learns the request ids in what p2p sent: they name live requests of ours. */
static void harvest(void)
{
    for (int i = 0; i < p2p_fake.nsent; i++) {
        const p2p_fake_msg_t *m = &p2p_fake.sent[i];
        if (m->id == P2P_AM_RTS)
            add_id(m->hdr, offsetof(p2p_rts_hdr_t, sreq), m->hdr_len);
        else if (m->id == P2P_AM_EAGER && m->hdr_len == sizeof(p2p_sync_hdr_t))
            add_id(m->hdr, offsetof(p2p_sync_hdr_t, sreq), m->hdr_len);
        else if (m->id == P2P_AM_CTS)
            add_id(m->hdr, offsetof(p2p_cts_hdr_t, rreq), m->hdr_len);
        else if (m->id == P2P_AM_RTR)
            add_id(m->hdr, offsetof(p2p_rtr_hdr_t, rreq), m->hdr_len);
        else if (m->id == P2P_AM_CANCEL_REQ)
            add_id(m->hdr, offsetof(p2p_cancel_hdr_t, sreq), m->hdr_len);
    }
    p2p_fake_clear();
}

struct msg {
    unsigned id;
    int src;
    const void *hdr, *payload;
    size_t hdr_len, len;
    int rc;
};

static void deliver(void *arg)
{
    struct msg *m = arg;
    p2p_fake.rt->wire_why[0] = 0;
    m->rc = tp_am_dispatch(p2p_fake.tp.am, m->id, m->src, m->hdr, m->hdr_len, m->payload, m->len);
}

static void op_recv(void *arg)
{
    fuzz_in_t *in = arg;
    size_t n = (size_t)fuzz_u8(in) * 4;
    int src = fuzz_u8(in) % 5 - 1, tag = fuzz_u8(in) % 5;
    if (st.nrecv == MAXREQ)
        return;
    uint8_t *mem = malloc(n + 2 * GUARD);
    FUZZ_CHECK(mem);
    memset(mem, GUARD_BYTE, n + 2 * GUARD);
    MPI_Request r;
    st.pending = mem;
    if (p2p_irecv(mem + GUARD, n, MPI_BYTE, src < 0 ? MPI_ANY_SOURCE : src,
                  tag == 4 ? MPI_ANY_TAG : tag, st.world, 0, &r) != 0) {
        st.pending = NULL;
        free(mem);
        return;
    }
    st.pending = NULL;
    st.mem[st.nrecv] = mem;
    st.len[st.nrecv] = n;
    st.recv[st.nrecv++] = r;
}

static void op_send(void *arg)
{
    fuzz_in_t *in = arg;
    size_t n = fuzz_u8(in);
    n = n < 128 ? n : (n - 128) * 32; /* eager below 64 bytes, rendezvous above */
    int dest = 1 + fuzz_u8(in) % 3, tag = fuzz_u8(in) % 4, sync = fuzz_u8(in) & 1;
    if (st.nsend == MAXREQ)
        return;
    MPI_Request s;
    if (p2p_isend(st.sendbuf, n, MPI_BYTE, dest, tag, st.world, 0,
                  sync ? CORE_MODE_SYNC : CORE_MODE_STANDARD, &s) == 0)
        st.send[st.nsend++] = s;
}

static void op_cancel(void *arg)
{
    fuzz_in_t *in = arg;
    int i = fuzz_u8(in);
    if (st.nsend)
        p2p_cancel(st.send[i % st.nsend]);
}

static void op_msg(fuzz_in_t *in)
{
    uint8_t hdr[160] = { 0 }, payload[1024];
    struct msg m = { 0 };
    m.id = fuzz_u8(in) % (P2P_AM_CANCEL_RESP + 2); /* 8..10: the RMA ids, not registered here */
    m.src = 1 + fuzz_u8(in) % 3;
    m.hdr_len = fuzz_u8(in) % sizeof(hdr);
    int use = fuzz_u8(in);
    m.len = (size_t)fuzz_u8(in) * 4;
    for (size_t i = 0; i < m.hdr_len; i++)
        hdr[i] = fuzz_u8(in);
    for (size_t i = 0; i < m.len; i++)
        payload[i] = fuzz_u8(in);
    if (st.nids && (use & 1) && m.hdr_len >= 8)
        memcpy(hdr, &st.ids[(use >> 2) % (st.nids < MAXIDS ? st.nids : MAXIDS)], 8);
    if (st.nids && (use & 2) && m.hdr_len >= 16)
        memcpy(hdr + 8, &st.ids[(use >> 5) % (st.nids < MAXIDS ? st.nids : MAXIDS)], 8);
    m.hdr = hdr;
    /* A transport hands a pointer into its buffer even for an empty payload (with NULL,
     * eager_handler's memcpy(u->data, NULL, 0) is a UBSan report: see the report). */
    m.payload = payload;
    m.rc = 0;
    if (!p2p_fake_try(deliver, &m))
        FUZZ_CHECK(m.rc <= 0);
}

static void progress3(void *arg)
{
    for (int k = 0; k < 3; k++)
        core_progress();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned caps[] = { 0, TP_CAP_GET, TP_CAP_PUT, TP_CAP_GET | TP_CAP_PUT };
    static const int world_ranks[4] = { 0, 1, 2, 3 };
    fuzz_quiet();
    if (size < 1)
        return 0;
    fuzz_in_t in = { data + 1, size - 1 };
    memset(&st, 0, sizeof(st));
    memset(st.sendbuf, 0x33, sizeof(st.sendbuf));
    p2p_fake_init(4, 0, caps[data[0] & 3]);
    st.world = p2p_fake_comm(world_ranks, 4, 0);
    for (int ops = 0; in.left && ops < 64; ops++) {
        int op = fuzz_u8(&in) & 7;
        /* A local call can end the job too: a receive that matches an unexpected
         * message whose claimed source is a lie (p2p reports it then, core_wire_fail). */
        int fatal = 0;
        if (op == 0)
            fatal = p2p_fake_try(op_recv, &in);
        else if (op == 1)
            fatal = p2p_fake_try(op_send, &in);
        else if (op == 7)
            fatal = p2p_fake_try(op_cancel, &in);
        else
            op_msg(&in);
        if (!fatal)
            fatal = p2p_fake_try(progress3, NULL);
        if (fatal)
            break; /* the job would end here */
        harvest();
        guards_ok();
    }
    for (int i = 0; i < st.nrecv; i++) {
        p2p_cancel(st.recv[i]);
        core_req_free(st.recv[i]);
    }
    guards_ok();
    for (int i = 0; i < st.nrecv; i++)
        free(st.mem[i]);
    free(st.pending);
    for (int i = 0; i < st.nsend; i++)
        core_req_free(st.send[i]);
    p2p_fake_comm_free(st.world);
    p2p_fake_fini();
    return 0;
}

#ifdef FUZZ_SEEDS
static void put_msg(fuzz_buf_t *b, unsigned id, int src, const void *hdr, size_t hdr_len,
                    int use, const void *payload, size_t len4)
{
    uint8_t h[5] = { 2, (uint8_t)id, (uint8_t)(src - 1), (uint8_t)hdr_len, (uint8_t)use };
    fuzz_put(b, h, 5);
    fuzz_put_u8(b, (uint8_t)len4);
    fuzz_put(b, hdr, hdr_len);
    for (size_t i = 0; i < len4 * 4; i++)
        fuzz_put_u8(b, payload ? ((const uint8_t *)payload)[i] : (uint8_t)i);
}

static void put_recv(fuzz_buf_t *b, int n4, int src, int tag)
{
    uint8_t o[4] = { 0, (uint8_t)n4, (uint8_t)(src + 1), (uint8_t)tag };
    fuzz_put(b, o, 4);
}

static void put_send(fuzz_buf_t *b, int sz, int dest, int tag, int sync)
{
    uint8_t o[5] = { 1, (uint8_t)sz, (uint8_t)(dest - 1), (uint8_t)tag, (uint8_t)sync };
    fuzz_put(b, o, 5);
}

void fuzz_make_seeds(void)
{
    fuzz_buf_t b = { 0 };
    p2p_hdr_t h = { 0, 1, 2, 0 };
    p2p_sync_hdr_t sh = { { 0, 2, 3, P2P_F_SYNC }, 0 };
    /* An eager message into a posted receive, a sync one unexpected, then its receive. */
    fuzz_put_u8(&b, 0);
    put_recv(&b, 4, 1, 2);
    put_msg(&b, P2P_AM_EAGER, 1, &h, sizeof(h), 0, NULL, 4);
    sh.sreq = 0x100000003ull;
    put_msg(&b, P2P_AM_EAGER, 2, &sh, sizeof(sh), 0, NULL, 2);
    put_recv(&b, 4, -1, 4);
    fuzz_seed("eager", b.p, b.len);
    b.len = 0;
    /* A pipelined rendezvous send (no get): CTS naming the real sreq, then stale ones. */
    fuzz_put_u8(&b, 0);
    put_send(&b, 128 + 7, 2, 1, 0);  /* 224 bytes */
    p2p_cts_hdr_t cts = { 0, 77, 224 };
    put_msg(&b, P2P_AM_CTS, 2, &cts, sizeof(cts), 1, NULL, 0);
    put_msg(&b, P2P_AM_CTS, 2, &cts, sizeof(cts), 1, NULL, 0);
    p2p_req_hdr_t rh = { 0 };
    put_msg(&b, P2P_AM_FIN, 2, &rh, sizeof(rh), 1, NULL, 0);
    fuzz_seed("send-pipelined-cts", b.p, b.len);
    b.len = 0;
    /* A sync eager send and its ACK. */
    fuzz_put_u8(&b, 0);
    put_send(&b, 16, 3, 0, 1);
    put_msg(&b, P2P_AM_ACK, 3, &rh, sizeof(rh), 1, NULL, 0);
    fuzz_seed("send-sync-ack", b.p, b.len);
    b.len = 0;
    /* A get rendezvous send and its FIN. */
    fuzz_put_u8(&b, 1);
    put_send(&b, 128 + 4, 1, 0, 0);
    put_msg(&b, P2P_AM_FIN, 1, &rh, sizeof(rh), 1, NULL, 0);
    fuzz_seed("send-get-fin", b.p, b.len);
    b.len = 0;
    /* A put rendezvous send: RTR with the real sreq, then PUT_FIN. */
    fuzz_put_u8(&b, 2);
    put_send(&b, 128 + 4, 1, 0, 0);
    p2p_rtr_hdr_t rtr;
    memset(&rtr, 0, sizeof(rtr));
    rtr.want = 128;
    rtr.raddr = 0x1000;
    rtr.rkey_len = 4;
    memcpy(rtr.rkey, "key!", 4);
    put_msg(&b, P2P_AM_RTR, 1, &rtr, offsetof(p2p_rtr_hdr_t, rkey) + 4, 1, NULL, 0);
    fuzz_seed("send-put-rtr", b.p, b.len);
    b.len = 0;
    /* A receive that gets a pipelined RTS, answers CTS; DATA with its rreq. */
    for (int caps = 0; caps < 3; caps++) {
        b.len = 0;
        fuzz_put_u8(&b, (uint8_t)caps);
        put_recv(&b, 64, 1, 2);
        p2p_rts_hdr_t rts;
        memset(&rts, 0, sizeof(rts));
        rts.m = (p2p_hdr_t){ 0, 1, 2, caps == 2 ? P2P_F_PUT : 0 };
        rts.len = 200;
        rts.sreq = 0x100000009ull;
        rts.raddr = caps == 1 ? 0x2000 : 0;
        rts.rkey_len = caps == 1 ? 4 : 0;
        memcpy(rts.rkey, "key!", 4);
        put_msg(&b, P2P_AM_RTS, 1, &rts, offsetof(p2p_rts_hdr_t, rkey) + rts.rkey_len, 0, NULL, 0);
        p2p_data_hdr_t dh = { 0, 0 };
        put_msg(&b, P2P_AM_DATA, 1, &dh, sizeof(dh), 1, NULL, 32);
        dh.offset = 128;
        put_msg(&b, P2P_AM_DATA, 1, &dh, sizeof(dh), 1, NULL, 32);
        put_msg(&b, P2P_AM_PUT_FIN, 1, &rh, sizeof(rh), 1, NULL, 0);
        char name[32];
        snprintf(name, sizeof(name), "recv-rts-%d", caps);
        fuzz_seed(name, b.p, b.len);
    }
    /* Cancels: a sync eager send and a rendezvous send cancelled, the receiver's answers
     * (cancelled, not cancelled, then the protocol's own answer); a CANCEL_REQ for an
     * unexpected message, from its sender and from another rank. */
    for (int rndv = 0; rndv < 2; rndv++) {
        b.len = 0;
        fuzz_put_u8(&b, 0);
        put_send(&b, rndv ? 128 + 7 : 16, 3, 1, !rndv);
        uint8_t c[2] = { 7, 0 };
        fuzz_put(&b, c, 2);
        p2p_cancel_resp_hdr_t cr = { 0, (uint32_t)rndv, 0 };
        put_msg(&b, P2P_AM_CANCEL_RESP, 3, &cr, sizeof(cr), 1, NULL, 0);
        if (rndv) {
            p2p_cts_hdr_t cts2 = { 0, 77, 224 };
            put_msg(&b, P2P_AM_CTS, 3, &cts2, sizeof(cts2), 1, NULL, 0);
        } else {
            put_msg(&b, P2P_AM_ACK, 3, &rh, sizeof(rh), 1, NULL, 0);
        }
        put_msg(&b, P2P_AM_CANCEL_RESP, 3, &cr, sizeof(cr), 1, NULL, 0);
        fuzz_seed(rndv ? "cancel-send-rndv" : "cancel-send-sync", b.p, b.len);
    }
    /* A standard eager send (complete at once, its id in the EAGER) cancelled. */
    b.len = 0;
    fuzz_put_u8(&b, 0);
    put_send(&b, 16, 2, 1, 0);
    uint8_t c2[2] = { 7, 0 };
    fuzz_put(&b, c2, 2);
    p2p_cancel_resp_hdr_t cr2 = { 0, 1, 0 };
    put_msg(&b, P2P_AM_CANCEL_RESP, 2, &cr2, sizeof(cr2), 1, NULL, 0);
    put_msg(&b, P2P_AM_CANCEL_RESP, 2, &cr2, sizeof(cr2), 1, NULL, 0);
    fuzz_seed("cancel-send-eager", b.p, b.len);
    b.len = 0;
    fuzz_put_u8(&b, 0);
    sh.sreq = 0x100000005ull;
    put_msg(&b, P2P_AM_EAGER, 2, &sh, sizeof(sh), 0, NULL, 2);
    p2p_cancel_hdr_t ch = { { 0, 2, 3, 0 }, 0x100000005ull };
    put_msg(&b, P2P_AM_CANCEL_REQ, 1, &ch, sizeof(ch), 0, NULL, 0);
    put_msg(&b, P2P_AM_CANCEL_REQ, 2, &ch, sizeof(ch), 0, NULL, 0);
    put_msg(&b, P2P_AM_CANCEL_REQ, 2, &ch, sizeof(ch), 0, NULL, 0);
    put_recv(&b, 4, 2, 3);
    fuzz_seed("cancel-recv-side", b.p, b.len);
    /* Edge cases: a handler id without a handler, a header too short. */
    b.len = 0;
    fuzz_put_u8(&b, 0);
    put_msg(&b, P2P_AM_PUT_FIN + 1, 1, &rh, sizeof(rh), 0, NULL, 0);
    put_msg(&b, P2P_AM_EAGER, 1, &h, sizeof(h) - 1, 0, NULL, 1);
    fuzz_seed("edge", b.p, b.len);
    free(b.p);
}
#endif
