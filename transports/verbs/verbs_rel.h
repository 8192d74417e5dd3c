/*
 * The UD reliability window: pure sequence-number logic, no verbs calls, so
 * test/unit/test_verbs_rel.c can drive it through a simulated lossy channel.
 *
 * One vb_rel_tx_t per (sender, peer) and one vb_rel_rx_t per (receiver,
 * peer). Packets carry a 16-bit sequence number (psn) and a cumulative ack
 * (the last psn received in order). The receiver delivers in psn order;
 * a packet that arrives ahead of a gap is held in a store shared by all
 * peers of the process (vb_rel_ooo_t, bounded, so memory per peer stays
 * constant) or, when the store is full, dropped. A gap is answered at once
 * with a NAK (resend the missing packet) or NAK_ALL (packets were dropped:
 * resend everything unacknowledged) at the third packet past it (two may be
 * merely reordered), repeated every 8th packet while the gap lasts and at
 * once when a filled gap reveals the next one; the sender
 * resends a given packet for a NAK at most once per round trip.
 * Duplicates are dropped and acked at once. Otherwise acks ride on reverse
 * traffic, or go alone after ack_every packets, or once no packet came for
 * ack_delay (the burst ended and no reply carried the ack), or at the
 * latest ack_max after the oldest packet they acknowledge: a slow but
 * steady stream (a packet every few hundred microseconds, as on a loaded
 * Soft-RoCE guest) is then acked every ack_max rather than every
 * ack_delay; in a stream the sender's requests at half the window keep it
 * moving anyway.
 *
 * The sender keeps at most cwnd (<= window) packets unacknowledged: a
 * congestion window that grows by one packet per acknowledged packet up to
 * ssthresh, then by one per window, halves on a NAK and drops to 2 on a
 * timeout (AIMD), so several senders converge on what one receive queue
 * holds. When half the window is in flight the sender asks for an ack in
 * the packet it sends. Its timer (adaptive: srtt + 4 rttvar, clamped to
 * [rto_min, rto_max], doubling on every expiry) resends the oldest packet;
 * the next ack that advances resends everything still unacknowledged. A peer whose oldest
 * packet stays unacknowledged for peer_timeout seconds is reported dead.
 */
#ifndef RDMPI_TP_VERBS_REL_H
#define RDMPI_TP_VERBS_REL_H

#include <stdint.h>

typedef struct vb_rel_params {
    unsigned window;       /* packets in flight per peer (< 32768) */
    unsigned ack_every;    /* ack at once after this many unacknowledged packets */
    double ack_delay;      /* longest a standalone ack waits, seconds */
    double rto_init, rto_min, rto_max;
    double peer_timeout;   /* no progress for this long: the peer is dead */
    double ack_max;        /* longest a standalone ack waits while packets keep coming,
                            * seconds (at most ack_delay: 0) */
} vb_rel_params_t;

typedef struct vb_rel_tx {
    uint16_t next;         /* psn of the next new packet */
    uint16_t una;          /* oldest unacknowledged psn */
    uint16_t sample_psn;   /* psn whose ack measures the round trip */
    uint16_t fast_psn;     /* psn last resent for a NAK */
    uint16_t req_psn;      /* psn of the last packet that asked for an ack */
    uint8_t sampling;
    uint8_t recovering;    /* a timer expired: resend the next one on the next ack */
    uint8_t req_out;       /* that ack request is not answered yet */
    uint32_t expiries;     /* consecutive timer expiries */
    float cwnd, ssthresh;  /* congestion window, packets */
    float rto, srtt, rttvar;
    double deadline;       /* retransmission timer, 0 when disarmed */
    double since;          /* last time una advanced (or the first send) */
    double sample_t;
    double last_fast;      /* last resend asked for by a NAK */
} vb_rel_tx_t;

typedef struct vb_rel_rx {
    uint16_t expected;     /* next psn in order */
    uint16_t pending;      /* packets accepted since our last ack */
    uint8_t ack_now;       /* an ack is owed at once (duplicate or gap) */
    uint8_t nak;           /* that ack reports a gap: VB_REL_NAK* */
    uint8_t ahead;         /* packets seen past the current gap */
    uint16_t held;         /* packets of this peer in the out-of-order store */
    uint16_t drop_hi;      /* highest psn dropped past a gap (valid when dropped) */
    uint8_t dropped;       /* packets past the gap were dropped: resend all */
    double ack_deadline;   /* a delayed ack is due then, 0 when none */
    double ack_first;      /* arrival of the oldest packet not acknowledged yet */
} vb_rel_rx_t;

enum { VB_REL_DELIVER = 0, VB_REL_DUP, VB_REL_AHEAD };         /* vb_rel_rx_accept */
enum { VB_REL_IDLE = 0, VB_REL_RESEND_ONE, VB_REL_RESEND_ALL, VB_REL_DEAD };
enum { VB_REL_NAK = 1, VB_REL_NAK_ALL = 2 };                   /* rx->nak, acks' flags */

/* The out-of-order store: (peer, psn) -> a value (the caller's buffer id),
 * open addressing with linear probing, fixed capacity. */
typedef struct vb_rel_ooo_ent {
    uint32_t peer;
    uint16_t psn;
    uint16_t used;
    uint32_t val;
} vb_rel_ooo_ent_t;

typedef struct vb_rel_ooo {
    vb_rel_ooo_ent_t *ent;
    uint32_t mask;         /* table size - 1 (a power of two) */
    uint32_t n, max;       /* entries held, and at most */
} vb_rel_ooo_t;

/* max: packets held at most (the table is sized for half load). */
int vb_rel_ooo_init(vb_rel_ooo_t *o, uint32_t max);
void vb_rel_ooo_fini(vb_rel_ooo_t *o);
/* 0 stored, 1 already held (a duplicate), -1 full. */
int vb_rel_ooo_put(vb_rel_ooo_t *o, uint32_t peer, uint16_t psn, uint32_t val);
/* 1 and *val when (peer, psn) was held (it is removed), else 0. */
int vb_rel_ooo_take(vb_rel_ooo_t *o, uint32_t peer, uint16_t psn, uint32_t *val);

void vb_rel_tx_init(vb_rel_tx_t *tx, const vb_rel_params_t *p);
void vb_rel_rx_init(vb_rel_rx_t *rx);

static inline unsigned vb_rel_tx_inflight(const vb_rel_tx_t *tx)
{
    return (uint16_t)(tx->next - tx->una);
}

/* Packets that may be sent now. The congestion window never blocks an
 * idle sender: with nothing in flight a message of up to `window` packets
 * may always go. */
static inline unsigned vb_rel_tx_space(const vb_rel_tx_t *tx, const vb_rel_params_t *p)
{
    unsigned n = vb_rel_tx_inflight(tx);
    unsigned w = n == 0 ? p->window : (unsigned)tx->cwnd;
    if (w > p->window)
        w = p->window;
    return n >= w ? 0 : w - n;
}

/* Assigns the psn of a new packet (call only when there is space). Returns
 * the psn; *ackreq says whether this packet should ask for an ack at once. */
uint16_t vb_rel_tx_send(vb_rel_tx_t *tx, const vb_rel_params_t *p, double now, int *ackreq);

/* Applies a cumulative ack (the last psn the peer has in order) and its NAK
 * flags. Returns how many packets it newly acknowledges (the oldest ones);
 * *resend says what to send again now: VB_REL_IDLE, VB_REL_RESEND_ONE (the
 * oldest unacknowledged) or VB_REL_RESEND_ALL. */
unsigned vb_rel_tx_ack(vb_rel_tx_t *tx, const vb_rel_params_t *p, uint16_t ack, int nak,
                       double now, int *resend);

/* Checks the retransmission timer: VB_REL_RESEND_ONE asks to resend the
 * oldest unacknowledged packet, VB_REL_DEAD says the peer stopped answering. */
int vb_rel_tx_timer(vb_rel_tx_t *tx, const vb_rel_params_t *p, double now);

/* Classifies an arriving sequenced packet. VB_REL_DELIVER: pass it up (then
 * take the next psn from the store while rx->held). VB_REL_AHEAD: past a gap
 * and within the window: the caller holds or drops it and says which with
 * vb_rel_rx_ahead. VB_REL_DUP: drop it. */
int vb_rel_rx_accept(vb_rel_rx_t *rx, const vb_rel_params_t *p, uint16_t psn, double now);
/* For a VB_REL_AHEAD packet: holds val for (peer, psn) in the store if it
 * has room and schedules the NAK. Returns 1 when the caller must keep the
 * packet (it was stored), 0 when it drops it (full, or held already). */
int vb_rel_rx_hold(vb_rel_rx_t *rx, vb_rel_ooo_t *o, uint32_t peer, uint16_t psn, uint32_t val);
/* After a delivery: takes the next packet in order from the store, if held,
 * and accepts it. Returns 1 with its value, to be delivered next. */
int vb_rel_rx_next_held(vb_rel_rx_t *rx, const vb_rel_params_t *p, vb_rel_ooo_t *o,
                        uint32_t peer, double now, uint32_t *val);

/* The packet just accepted asked for an ack: send one at once. */
static inline void vb_rel_rx_ack_asked(vb_rel_rx_t *rx)
{
    rx->ack_now = 1;
}

/* Whether a standalone ack should be sent now. */
static inline int vb_rel_rx_ack_due(const vb_rel_rx_t *rx, double now)
{
    return rx->ack_now || (rx->ack_deadline != 0 && now >= rx->ack_deadline);
}

/* Whether an ack is owed at all (now or later). */
static inline int vb_rel_rx_ack_owed(const vb_rel_rx_t *rx)
{
    return rx->ack_now || rx->ack_deadline != 0;
}

/* The cumulative ack to put in a packet. */
static inline uint16_t vb_rel_rx_ack(const vb_rel_rx_t *rx)
{
    return (uint16_t)(rx->expected - 1);
}

/* Records that a packet carrying vb_rel_rx_ack() left. */
static inline void vb_rel_rx_acked(vb_rel_rx_t *rx)
{
    rx->pending = 0;
    rx->ack_now = 0;
    rx->nak = 0;
    rx->ack_deadline = 0;
}

#endif
