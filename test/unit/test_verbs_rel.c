/*
 * The UD reliability window (transports/verbs/verbs_rel.c) through a
 * simulated channel that loses, duplicates and reorders packets in both
 * directions: every packet must be delivered exactly once and in order,
 * across 16-bit sequence wrap-around, with acks piggybacked or standalone;
 * a peer that stops answering must be declared dead after peer_timeout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "transports/verbs/verbs_rel.h"

static int failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            printf("FAIL: unit/verbs_rel: ");                              \
            printf(__VA_ARGS__);                                           \
            printf(" (%s:%d)\n", __FILE__, __LINE__);                      \
            failures++;                                                    \
            return;                                                        \
        }                                                                  \
    } while (0)

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* A packet in flight: data (psn + message number) or a bare ack. */
typedef struct pkt {
    double arrive;
    int is_ack, nak, ackreq;
    uint16_t psn, ack;
    uint32_t msg;
} pkt_t;

typedef struct chan {
    pkt_t *q;
    int n, cap;
    int limit;       /* packets the receiver can buffer: more are dropped (0: no limit) */
    long overflow;
    double loss, dup, jitter;
} chan_t;

static void chan_put(chan_t *c, pkt_t p, double now)
{
    int copies = 1;
    if (urand() < c->loss)
        return;
    if (c->limit && c->n >= c->limit) {
        c->overflow++;
        return;
    }
    if (urand() < c->dup)
        copies = 2;
    for (int k = 0; k < copies; k++) {
        if (c->n == c->cap) {
            c->cap = c->cap ? 2 * c->cap : 256;
            c->q = realloc(c->q, (size_t)c->cap * sizeof(pkt_t));
        }
        p.arrive = now + 0.0005 + urand() * c->jitter;
        c->q[c->n++] = p;
    }
}

/* Takes the packet that arrived first by now (jitter reorders them). */
static int chan_get(chan_t *c, double now, pkt_t *out)
{
    int best = -1;
    for (int i = 0; i < c->n; i++)
        if (c->q[i].arrive <= now && (best < 0 || c->q[i].arrive < c->q[best].arrive))
            best = i;
    if (best < 0)
        return 0;
    *out = c->q[best];
    memmove(&c->q[best], &c->q[best + 1], (size_t)(c->n - best - 1) * sizeof(pkt_t));
    c->n--;
    return 1;
}

/* The sender's unacknowledged packets: message numbers by psn offset. */
typedef struct sender {
    vb_rel_tx_t tx;
    uint32_t *msg; /* msg[psn % window] */
    uint32_t next_msg;
} sender_t;

static long resent;

static void resend(sender_t *s, const vb_rel_params_t *p, chan_t *c, uint16_t ack, double now,
                   int what)
{
    if (what == VB_REL_IDLE)
        return;
    uint16_t end = what == VB_REL_RESEND_ONE ? (uint16_t)(s->tx.una + 1) : s->tx.next;
    for (uint16_t psn = s->tx.una; psn != end; psn++) {
        chan_put(c, (pkt_t){ 0, 0, 0, 0, psn, ack, s->msg[psn % p->window] }, now);
        resent++;
    }
}

/* One side of a simulated connection: a sender window (message numbers by
 * psn) and a receiver with its store. */
typedef struct side {
    sender_t out;
    vb_rel_rx_t in;
    vb_rel_ooo_t ooo;
    uint32_t got;      /* messages delivered in order */
} side_t;

/* Receives everything that has arrived on c for s; sends s's acks on back. */
static void side_receive(side_t *s, chan_t *c, chan_t *back, const vb_rel_params_t *p,
                         double now, const char *name, int *bad)
{
    pkt_t k;
    while (chan_get(c, now, &k)) {
        int what;
        vb_rel_tx_ack(&s->out.tx, p, k.ack, k.nak, now, &what);
        resend(&s->out, p, back, vb_rel_rx_ack(&s->in), now, what);
        if (k.is_ack)
            continue;
        int r = vb_rel_rx_accept(&s->in, p, k.psn, now);
        if (k.ackreq)
            vb_rel_rx_ack_asked(&s->in);
        if (r == VB_REL_AHEAD)
            vb_rel_rx_hold(&s->in, &s->ooo, 0, k.psn, k.msg);
        if (r != VB_REL_DELIVER)
            continue;
        uint32_t m = k.msg;
        do {
            if (m != s->got && !*bad) {
                printf("FAIL: unit/verbs_rel/%s: delivered message %u where %u was due\n", name,
                       m, s->got);
                *bad = 1;
            }
            s->got++;
        } while (vb_rel_rx_next_held(&s->in, p, &s->ooo, 0, now, &m));
    }
    if (vb_rel_rx_ack_due(&s->in, now)) {
        chan_put(back, (pkt_t){ 0, 1, s->in.nak, 0, 0, vb_rel_rx_ack(&s->in), 0 }, now);
        vb_rel_rx_acked(&s->in);
    }
}

/* Sends up to nmsg messages from s on c while the window allows. */
static void side_send(side_t *s, chan_t *c, const vb_rel_params_t *p, uint32_t nmsg, double now)
{
    while (s->out.next_msg < nmsg && vb_rel_tx_space(&s->out.tx, p) > 0) {
        int req;
        uint16_t psn = vb_rel_tx_send(&s->out.tx, p, now, &req);
        s->out.msg[psn % p->window] = s->out.next_msg;
        chan_put(c, (pkt_t){ 0, 0, 0, req, psn, vb_rel_rx_ack(&s->in), s->out.next_msg++ }, now);
        vb_rel_rx_acked(&s->in); /* the ack rode along */
    }
}

static int side_timer(side_t *s, chan_t *c, const vb_rel_params_t *p, double now)
{
    int t = vb_rel_tx_timer(&s->out.tx, p, now);
    if (t == VB_REL_RESEND_ONE)
        resend(&s->out, p, c, vb_rel_rx_ack(&s->in), now, t);
    return t;
}

/* Streams nmsg messages from A to B and nmsg/7 from B to A at the same time
 * (acks ride on data both ways, or go alone). */
static void run(const char *name, uint32_t nmsg, double loss, double dup, double jitter,
                uint32_t store, int limit)
{
    vb_rel_params_t p = { 64, 64, 0.001, 0.01, 0.002, 0.2, 30.0, 0.0015 };
    side_t a = { 0 }, b = { 0 };
    chan_t ab = { 0 }, ba = { 0 };
    ab.limit = limit;
    ab.loss = ba.loss = loss;
    ab.dup = ba.dup = dup;
    ab.jitter = ba.jitter = jitter;
    side_t *sides[2] = { &a, &b };
    for (int i = 0; i < 2; i++) {
        sides[i]->out.msg = calloc(p.window, sizeof(uint32_t));
        vb_rel_tx_init(&sides[i]->out.tx, &p);
        vb_rel_rx_init(&sides[i]->in);
        vb_rel_ooo_init(&sides[i]->ooo, store);
    }
    resent = 0;
    uint32_t nback = nmsg / 7;
    double now = 0;
    int bad = 0;
    long steps = 0;
    while (!bad && (b.got < nmsg || a.got < nback || vb_rel_tx_inflight(&a.out.tx) ||
                    vb_rel_tx_inflight(&b.out.tx))) {
        now += 0.0001;
        if (++steps > 20000000L)
            break;
        side_send(&a, &ab, &p, nmsg, now);
        side_send(&b, &ba, &p, b.got / 7 < nback ? b.got / 7 : nback, now);
        side_receive(&b, &ab, &ba, &p, now, name, &bad);
        side_receive(&a, &ba, &ab, &p, now, name, &bad);
        if (side_timer(&a, &ab, &p, now) == VB_REL_DEAD ||
            side_timer(&b, &ba, &p, now) == VB_REL_DEAD) {
            printf("FAIL: unit/verbs_rel/%s: a live peer was declared dead\n", name);
            bad = 1;
        }
    }
    if (!bad && (b.got != nmsg || a.got != nback))
        printf("FAIL: unit/verbs_rel/%s: delivered %u/%u and %u/%u, %u and %u unacknowledged\n",
               name, b.got, nmsg, a.got, nback, vb_rel_tx_inflight(&a.out.tx),
               vb_rel_tx_inflight(&b.out.tx)),
            bad = 1;
    if (bad)
        failures++;
    else
        printf("PASS: unit/verbs_rel/%s (%u+%u messages, %ld resent, %ld overflowed, %.2f s "
               "simulated)\n", name, nmsg, nback, resent, ab.overflow, now);
    for (int i = 0; i < 2; i++) {
        vb_rel_ooo_fini(&sides[i]->ooo);
        free(sides[i]->out.msg);
    }
    free(ab.q);
    free(ba.q);
}

static void rx_rules(void)
{
    vb_rel_params_t p = { 8, 4, 0.001, 0.01, 0.002, 0.2, 1.0 };
    vb_rel_rx_t rx;
    vb_rel_ooo_t o;
    uint32_t v;
    vb_rel_ooo_init(&o, 2);
    vb_rel_rx_init(&rx);
    CHECK(vb_rel_rx_accept(&rx, &p, 0, 0) == VB_REL_DELIVER, "psn 0 not delivered");
    CHECK(!rx.ack_now && rx.ack_deadline > 0, "first packet should delay its ack");
    CHECK(vb_rel_rx_accept(&rx, &p, 0, 0) == VB_REL_DUP, "duplicate not detected");
    CHECK(rx.ack_now, "duplicate should be acked at once");
    vb_rel_rx_acked(&rx);
    CHECK(vb_rel_rx_accept(&rx, &p, 2, 0) == VB_REL_AHEAD, "gap not seen");
    CHECK(vb_rel_rx_hold(&rx, &o, 7, 2, 102) == 1, "packet past the gap not held");
    CHECK(!rx.nak, "NAK for the first packet past a gap (may be reordering)");
    CHECK(vb_rel_rx_accept(&rx, &p, 3, 0) == VB_REL_AHEAD, "second packet past the gap");
    CHECK(vb_rel_rx_hold(&rx, &o, 7, 3, 103) == 1 && !rx.nak, "NAK for the second packet");
    CHECK(vb_rel_rx_accept(&rx, &p, 4, 0) == VB_REL_AHEAD, "third packet past the gap");
    CHECK(vb_rel_rx_hold(&rx, &o, 7, 4, 104) == 0 && rx.nak == (VB_REL_NAK | VB_REL_NAK_ALL) &&
          rx.ack_now, "a full store must drop and NAK for everything (nak %d)", rx.nak);
    vb_rel_rx_acked(&rx);
    CHECK(vb_rel_rx_accept(&rx, &p, 5, 0) == VB_REL_AHEAD, "fourth packet past the gap");
    CHECK(vb_rel_rx_hold(&rx, &o, 7, 5, 105) == 0 && !(rx.nak & VB_REL_NAK), "NAK repeated too soon");
    CHECK(vb_rel_rx_accept(&rx, &p, 12, 0) == VB_REL_DUP, "psn beyond the window accepted");
    CHECK(vb_rel_rx_ack(&rx) == 0, "cumulative ack %u, expected 0", vb_rel_rx_ack(&rx));
    CHECK(vb_rel_rx_accept(&rx, &p, 1, 0) == VB_REL_DELIVER, "the missing psn refused");
    CHECK(vb_rel_rx_next_held(&rx, &p, &o, 7, 0, &v) && v == 102, "held psn 2 not next");
    CHECK(vb_rel_rx_next_held(&rx, &p, &o, 7, 0, &v) && v == 103, "held psn 3 not next");
    CHECK(!vb_rel_rx_next_held(&rx, &p, &o, 7, 0, &v), "psn 4 was dropped, not held");
    CHECK(vb_rel_rx_ack(&rx) == 3 && rx.held == 0, "ack %u held %u", vb_rel_rx_ack(&rx), rx.held);
    CHECK(rx.ack_now, "ack_every did not force an ack");
    vb_rel_ooo_fini(&o);
    printf("PASS: unit/verbs_rel/rx-rules\n");
}

/* When a standalone ack falls due: ack_delay after the last packet, but at
 * most ack_max after the oldest one it acknowledges; without ack_max (0),
 * ack_delay after the oldest. */
static void ack_timing(void)
{
    vb_rel_params_t p = { 64, 8, 0.001, 0.01, 0.002, 0.2, 1.0, 0.004 };
    vb_rel_rx_t rx;
    vb_rel_rx_init(&rx);
    double t = 0;
    for (uint16_t psn = 0; psn < 5; psn++, t += 0.0008)
        CHECK(vb_rel_rx_accept(&rx, &p, psn, t) == VB_REL_DELIVER, "psn %u not delivered", psn);
    /* packets at 0, 0.8, 1.6, 2.4, 3.2 ms: each pushed it on, until 4 ms after the first */
    CHECK(!vb_rel_rx_ack_due(&rx, 0.0039), "ack due before ack_max (deadline %g)", rx.ack_deadline);
    CHECK(vb_rel_rx_ack_due(&rx, 0.0040) && !rx.ack_now, "no ack at ack_max (deadline %g)",
          rx.ack_deadline);
    vb_rel_rx_acked(&rx);
    CHECK(vb_rel_rx_accept(&rx, &p, 5, 0.0041) == VB_REL_DELIVER, "psn 5 not delivered");
    CHECK(!vb_rel_rx_ack_due(&rx, 0.0050) && vb_rel_rx_ack_due(&rx, 0.0051),
          "after an ack, the next one not ack_delay after the next packet (deadline %g)",
          rx.ack_deadline);
    CHECK(vb_rel_rx_accept(&rx, &p, 6, 0.0045) == VB_REL_DELIVER, "psn 6 not delivered");
    CHECK(!vb_rel_rx_ack_due(&rx, 0.0054) && vb_rel_rx_ack_due(&rx, 0.0055),
          "a packet did not push the ack on (deadline %g)", rx.ack_deadline);
    for (uint16_t psn = 7; psn < 13; psn++)
        vb_rel_rx_accept(&rx, &p, psn, 0.0046);
    CHECK(rx.ack_now, "the 8th packet since the ack did not ask for one at once");
    p.ack_max = 0; /* a fixed delay from the oldest packet */
    vb_rel_rx_init(&rx);
    vb_rel_rx_accept(&rx, &p, 0, 0);
    vb_rel_rx_accept(&rx, &p, 1, 0.0008);
    CHECK(vb_rel_rx_ack_due(&rx, 0.001), "without ack_max: not due ack_delay after the first");
    printf("PASS: unit/verbs_rel/ack-timing\n");
}

/* The store against a plain array model, with colliding keys. */
static void ooo_table(void)
{
    vb_rel_ooo_t o;
    enum { MAXH = 100 };
    static uint32_t model[8][256]; /* val+1, 0 = absent */
    memset(model, 0, sizeof(model));
    vb_rel_ooo_init(&o, MAXH);
    uint32_t n = 0;
    for (int it = 0; it < 200000; it++) {
        uint32_t peer = (uint32_t)(urand() * 8);
        uint16_t psn = (uint16_t)(urand() * 256);
        if (urand() < 0.5) {
            int rc = vb_rel_ooo_put(&o, peer, psn, (uint32_t)it);
            if (model[peer][psn]) {
                CHECK(rc == 1, "put of a held key returned %d", rc);
            } else if (n >= MAXH) {
                CHECK(rc == -1, "put into a full store returned %d", rc);
            } else {
                CHECK(rc == 0, "put returned %d", rc);
                model[peer][psn] = (uint32_t)it + 1;
                n++;
            }
        } else {
            uint32_t v;
            int rc = vb_rel_ooo_take(&o, peer, psn, &v);
            CHECK(rc == (model[peer][psn] != 0), "take found %d, model says %d", rc,
                  model[peer][psn] != 0);
            if (rc) {
                CHECK(v + 1 == model[peer][psn], "take returned the wrong value");
                model[peer][psn] = 0;
                n--;
            }
        }
        CHECK(o.n == n, "store counts %u entries, model %u", o.n, n);
    }
    vb_rel_ooo_fini(&o);
    printf("PASS: unit/verbs_rel/ooo-store\n");
}

static void dead_peer(void)
{
    vb_rel_params_t p = { 8, 4, 0.001, 0.01, 0.002, 0.2, 2.0 };
    vb_rel_tx_t tx;
    vb_rel_tx_init(&tx, &p);
    double now = 0;
    int req;
    vb_rel_tx_send(&tx, &p, now, &req);
    int resends = 0, r;
    while ((r = vb_rel_tx_timer(&tx, &p, now)) != VB_REL_DEAD && now < 10) {
        resends += r == VB_REL_RESEND_ONE;
        now += 0.001;
    }
    CHECK(r == VB_REL_DEAD, "peer never declared dead");
    CHECK(now >= 2.0 && now < 2.01, "declared dead after %.3f s, expected 2 s", now);
    CHECK(resends >= 5 && resends <= 20, "%d resends before giving up", resends);
    CHECK(tx.rto <= 0.2f + 1e-6f, "backoff exceeded rto_max: %f", (double)tx.rto);
    printf("PASS: unit/verbs_rel/dead-peer (%d resends with backoff)\n", resends);
}

static void window_limit(void)
{
    vb_rel_params_t p = { 4, 2, 0.001, 0.01, 0.002, 0.2, 2.0 };
    vb_rel_tx_t tx;
    vb_rel_tx_init(&tx, &p);
    int req, reqs = 0;
    for (int i = 0; i < 4; i++) {
        vb_rel_tx_send(&tx, &p, 0, &req);
        reqs += req;
    }
    CHECK(reqs == 1, "%d of 4 packets asked for an ack, expected 1 (at half the window)", reqs);
    CHECK(vb_rel_tx_space(&tx, &p) == 0, "window of 4 not full after 4 packets");
    int resend;
    CHECK(vb_rel_tx_ack(&tx, &p, 1, 0, 0.001, &resend) == 2, "ack of psn 1 freed wrong count");
    CHECK(vb_rel_tx_space(&tx, &p) == 2, "space after ack");
    CHECK(vb_rel_tx_ack(&tx, &p, 0, 0, 0.002, &resend) == 0, "stale ack acknowledged packets");
    CHECK(vb_rel_tx_ack(&tx, &p, 40, 0, 0.002, &resend) == 0, "ack beyond next accepted");
    CHECK(vb_rel_tx_ack(&tx, &p, 1, VB_REL_NAK, 0.02, &resend) == 0 && resend == VB_REL_RESEND_ONE,
          "NAK did not ask to resend one");
    CHECK(vb_rel_tx_ack(&tx, &p, 1, VB_REL_NAK_ALL, 0.02, &resend) == 0 && resend == VB_REL_IDLE,
          "a second NAK within a round trip was honoured");
    CHECK(vb_rel_tx_ack(&tx, &p, 1, VB_REL_NAK_ALL, 0.5, &resend) == 0 && resend == VB_REL_RESEND_ALL,
          "NAK_ALL did not ask to resend all");
    printf("PASS: unit/verbs_rel/window\n");
}

/* verbs_ud.c posts the packets of a message larger than the congestion
 * window as acks open it (ack clocking): the space must grow with every
 * ack, by the packets acknowledged and the window's growth, and be the
 * whole window again once nothing is in flight. */
static void ack_clocking(void)
{
    vb_rel_params_t p = { 256, 64, 0.001, 0.01, 0.002, 0.2, 2.0 };
    vb_rel_tx_t tx;
    vb_rel_tx_init(&tx, &p);
    int req, resend;
    unsigned first = vb_rel_tx_space(&tx, &p);
    CHECK(first == 256, "an idle sender may send %u packets, expected the window (256)", first);
    vb_rel_tx_send(&tx, &p, 0, &req);
    unsigned cw = (unsigned)tx.cwnd;
    CHECK(cw >= 2 && cw < 256, "initial congestion window %u", cw);
    CHECK(vb_rel_tx_space(&tx, &p) == cw - 1, "space %u with 1 of cwnd %u in flight",
          vb_rel_tx_space(&tx, &p), cw);
    while (vb_rel_tx_space(&tx, &p) > 0)
        vb_rel_tx_send(&tx, &p, 0, &req);
    CHECK(vb_rel_tx_inflight(&tx) == cw, "%u in flight, expected cwnd %u", vb_rel_tx_inflight(&tx), cw);
    CHECK(vb_rel_tx_ack(&tx, &p, (uint16_t)(cw / 2 - 1), 0, 0.001, &resend) == cw / 2,
          "half the flight not acknowledged");
    unsigned sp = vb_rel_tx_space(&tx, &p);
    CHECK(sp >= cw / 2 && sp == (unsigned)tx.cwnd - vb_rel_tx_inflight(&tx),
          "space %u after acknowledging %u of %u (cwnd now %.1f)", sp, cw / 2, cw, (double)tx.cwnd);
    unsigned rest = vb_rel_tx_inflight(&tx);
    CHECK(vb_rel_tx_ack(&tx, &p, (uint16_t)(tx.next - 1), 0, 0.002, &resend) == rest &&
          tx.una == tx.next, "the last %u packets not acknowledged", rest);
    CHECK(vb_rel_tx_space(&tx, &p) == 256, "idle again, space %u", vb_rel_tx_space(&tx, &p));
    printf("PASS: unit/verbs_rel/ack-clocking (cwnd %u, then %.1f)\n", cw, (double)tx.cwnd);
}

int main(void)
{
    rx_rules();
    window_limit();
    ack_clocking();
    ack_timing();
    dead_peer();
    ooo_table();
    run("clean", 20000, 0, 0, 0, 64, 0);
    run("loss-5pct", 20000, 0.05, 0, 0, 64, 0);
    run("loss-10pct", 20000, 0.10, 0, 0, 64, 0);
    run("reorder", 20000, 0, 0, 0.003, 64, 0);
    run("loss-dup-reorder", 20000, 0.10, 0.05, 0.003, 64, 0);
    run("loss-small-store", 20000, 0.05, 0.02, 0.001, 4, 0);
    run("loss-no-store", 5000, 0.05, 0, 0, 0, 0);
    run("overflow", 20000, 0, 0, 0.001, 16, 12);
    run("wraparound", 140000, 0.02, 0.02, 0.001, 64, 0);
    return failures ? 1 : 0;
}
