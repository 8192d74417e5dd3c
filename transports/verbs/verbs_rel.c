/*
 * The UD reliability window (see verbs_rel.h): sequence numbers, cumulative
 * acks with NAKs, the retransmission timer with backoff, duplicate
 * suppression, and the bounded out-of-order store.
 */
#include <stdlib.h>
#include "transports/verbs/verbs_rel.h"

static float clampf(float v, double lo, double hi)
{
    if (v < (float)lo)
        return (float)lo;
    if (v > (float)hi)
        return (float)hi;
    return v;
}

#define CWND_MIN 2.0f
#define CWND_INIT 16.0f

void vb_rel_tx_init(vb_rel_tx_t *tx, const vb_rel_params_t *p)
{
    *tx = (vb_rel_tx_t){ 0 };
    tx->rto = clampf((float)p->rto_init, p->rto_min, p->rto_max);
    tx->cwnd = CWND_INIT < (float)p->window ? CWND_INIT : (float)p->window;
    tx->ssthresh = (float)p->window;
}

void vb_rel_rx_init(vb_rel_rx_t *rx)
{
    *rx = (vb_rel_rx_t){ 0 };
}

uint16_t vb_rel_tx_send(vb_rel_tx_t *tx, const vb_rel_params_t *p, double now, int *ackreq)
{
    uint16_t psn = tx->next++;
    /* Ask for an ack once half the window is out, then not again until
     * that request is answered. */
    float w = tx->cwnd < (float)p->window ? tx->cwnd : (float)p->window;
    *ackreq = 0;
    if (!tx->req_out && (float)vb_rel_tx_inflight(tx) >= w / 2) {
        *ackreq = 1;
        tx->req_out = 1;
        tx->req_psn = psn;
    }
    if (tx->deadline == 0) {
        tx->deadline = now + tx->rto;
        tx->since = now;
    }
    if (!tx->sampling && !tx->recovering) {
        tx->sampling = 1;
        tx->sample_psn = psn;
        tx->sample_t = now;
    }
    return psn;
}

/* One round-trip sample (RFC 6298 gains). */
static void rtt_sample(vb_rel_tx_t *tx, const vb_rel_params_t *p, double rtt)
{
    float r = (float)rtt;
    if (tx->srtt == 0) {
        tx->srtt = r;
        tx->rttvar = r / 2;
    } else {
        float err = r > tx->srtt ? r - tx->srtt : tx->srtt - r;
        tx->rttvar = 0.75f * tx->rttvar + 0.25f * err;
        tx->srtt = 0.875f * tx->srtt + 0.125f * r;
    }
    tx->rto = clampf(tx->srtt + 4 * tx->rttvar, p->rto_min, p->rto_max);
}

unsigned vb_rel_tx_ack(vb_rel_tx_t *tx, const vb_rel_params_t *p, uint16_t ack, int nak,
                       double now, int *resend)
{
    unsigned inflight = vb_rel_tx_inflight(tx);
    unsigned n = (uint16_t)(ack + 1 - tx->una);
    *resend = VB_REL_IDLE;
    if (n > inflight)
        n = 0; /* old or foreign ack: acknowledges nothing new */
    if (n) {
        if (tx->req_out && (uint16_t)(tx->req_psn - tx->una) < n)
            tx->req_out = 0;
        /* Additive increase: +1 per packet below ssthresh, +1 per window above. */
        if (tx->cwnd < tx->ssthresh)
            tx->cwnd += (float)n;
        else
            tx->cwnd += (float)n / tx->cwnd;
        if (tx->cwnd > (float)p->window)
            tx->cwnd = (float)p->window;
        if (tx->sampling && (uint16_t)(tx->sample_psn - tx->una) < n) {
            rtt_sample(tx, p, now - tx->sample_t);
            tx->sampling = 0;
        }
        tx->una = (uint16_t)(ack + 1);
        tx->since = now;
        tx->expiries = 0;
        if (tx->una == tx->next) {
            tx->deadline = 0;
            tx->recovering = 0;
            return n;
        }
        tx->deadline = now + tx->rto;
        if (tx->recovering) {
            /* The probe sent at the timeout got through. A timeout with no
             * NAK means the tail of what we sent was lost (typically a
             * burst that overflowed the receive queue): resend all of it
             * now, rather than one packet per round trip and a timeout,
             * with its doubled RTO, for every packet after the next. */
            *resend = VB_REL_RESEND_ALL;
            tx->recovering = 0;
        }
    }
    if (nak && tx->una != tx->next && (uint16_t)(ack + 1) == tx->una &&
        (tx->una != tx->fast_psn || now - tx->last_fast >= (tx->srtt > 0 ? tx->srtt : tx->rto))) {
        /* The receiver wants una and has seen later packets. If we resent
         * una less than a round trip ago, it may still be on its way. */
        *resend = (nak & VB_REL_NAK_ALL) ? VB_REL_RESEND_ALL : VB_REL_RESEND_ONE;
        tx->last_fast = now;
        tx->fast_psn = tx->una;
        tx->ssthresh = tx->cwnd / 2 > CWND_MIN ? tx->cwnd / 2 : CWND_MIN; /* multiplicative decrease */
        tx->cwnd = tx->ssthresh;
        if (*resend == VB_REL_RESEND_ALL || tx->sample_psn == tx->una)
            tx->sampling = 0; /* Karn: the sample is being resent */
        tx->deadline = now + tx->rto;
    }
    return n;
}

int vb_rel_tx_timer(vb_rel_tx_t *tx, const vb_rel_params_t *p, double now)
{
    if (tx->deadline == 0)
        return VB_REL_IDLE;
    if (tx->una == tx->next) {
        tx->deadline = 0;
        return VB_REL_IDLE;
    }
    if (now - tx->since >= p->peer_timeout)
        return VB_REL_DEAD;
    if (now < tx->deadline)
        return VB_REL_IDLE;
    tx->expiries++;
    tx->rto = clampf(tx->rto * 2, p->rto_min, p->rto_max);
    tx->deadline = now + tx->rto;
    tx->sampling = 0; /* Karn: no samples from resent packets */
    tx->recovering = 1;
    tx->req_out = 0;
    tx->ssthresh = tx->cwnd / 2 > CWND_MIN ? tx->cwnd / 2 : CWND_MIN;
    tx->cwnd = CWND_MIN;
    return VB_REL_RESEND_ONE;
}

int vb_rel_rx_accept(vb_rel_rx_t *rx, const vb_rel_params_t *p, uint16_t psn, double now)
{
    int16_t d = (int16_t)(psn - rx->expected);
    if (d == 0) {
        rx->expected++;
        rx->ahead = 0;
        if (rx->dropped && (int16_t)(rx->drop_hi - rx->expected) < 0)
            rx->dropped = 0;
        if (++rx->pending >= p->ack_every) {
            rx->ack_now = 1;
        } else {
            /* Due ack_delay after the last packet, but no later than ack_max
             * after the first one it acknowledges. */
            if (rx->ack_deadline == 0)
                rx->ack_first = now;
            double most = rx->ack_first + (p->ack_max > p->ack_delay ? p->ack_max : p->ack_delay);
            rx->ack_deadline = now + p->ack_delay < most ? now + p->ack_delay : most;
        }
        return VB_REL_DELIVER;
    }
    if (d < 0 || (unsigned)d >= p->window) {
        rx->ack_now = 1; /* a resend: our ack was lost or late */
        return VB_REL_DUP;
    }
    return VB_REL_AHEAD;
}

int vb_rel_rx_hold(vb_rel_rx_t *rx, vb_rel_ooo_t *o, uint32_t peer, uint16_t psn, uint32_t val)
{
    int rc = vb_rel_ooo_put(o, peer, psn, val);
    if (rc == 0)
        rx->held++;
    if (rc < 0) {
        rx->nak |= VB_REL_NAK_ALL; /* dropped: the sender must resend it too */
        if (!rx->dropped || (int16_t)(psn - rx->drop_hi) > 0)
            rx->drop_hi = psn;
        rx->dropped = 1;
    }
    /* NAK the third packet past a gap (two may just be reordered), and
     * every 8th after it in case the NAK or the resent packet was lost. */
    if ((rx->ahead++ & 7) == 2) {
        rx->nak |= VB_REL_NAK;
        rx->ack_now = 1;
    }
    return rc == 0;
}

int vb_rel_rx_next_held(vb_rel_rx_t *rx, const vb_rel_params_t *p, vb_rel_ooo_t *o,
                        uint32_t peer, double now, uint32_t *val)
{
    if (!rx->held)
        return 0;
    if (!vb_rel_ooo_take(o, peer, rx->expected, val)) {
        /* Another gap behind the one just filled: ask for it now, and for
         * everything if packets beyond it were dropped. */
        rx->nak |= VB_REL_NAK;
        if (rx->dropped && (int16_t)(rx->drop_hi - rx->expected) >= 0)
            rx->nak |= VB_REL_NAK_ALL;
        rx->ack_now = 1;
        return 0;
    }
    rx->held--;
    vb_rel_rx_accept(rx, p, rx->expected, now);
    return 1;
}

/* ---- the out-of-order store ---- */

int vb_rel_ooo_init(vb_rel_ooo_t *o, uint32_t max)
{
    uint32_t size = 16;
    while (size < 2 * max)
        size *= 2;
    o->ent = calloc(size, sizeof(*o->ent));
    if (!o->ent)
        return -1;
    o->mask = size - 1;
    o->n = 0;
    o->max = max;
    return 0;
}

void vb_rel_ooo_fini(vb_rel_ooo_t *o)
{
    free(o->ent);
    o->ent = NULL;
}

static uint32_t ooo_hash(uint32_t peer, uint16_t psn)
{
    uint32_t h = peer * 0x9e3779b1u ^ (uint32_t)psn * 0x85ebca6bu;
    return h ^ (h >> 15);
}

int vb_rel_ooo_put(vb_rel_ooo_t *o, uint32_t peer, uint16_t psn, uint32_t val)
{
    uint32_t i = ooo_hash(peer, psn) & o->mask;
    for (; o->ent[i].used; i = (i + 1) & o->mask)
        if (o->ent[i].peer == peer && o->ent[i].psn == psn)
            return 1;
    if (o->n >= o->max)
        return -1;
    o->ent[i] = (vb_rel_ooo_ent_t){ peer, psn, 1, val };
    o->n++;
    return 0;
}

int vb_rel_ooo_take(vb_rel_ooo_t *o, uint32_t peer, uint16_t psn, uint32_t *val)
{
    uint32_t i = ooo_hash(peer, psn) & o->mask;
    for (; o->ent[i].used; i = (i + 1) & o->mask)
        if (o->ent[i].peer == peer && o->ent[i].psn == psn)
            break;
    if (!o->ent[i].used)
        return 0;
    *val = o->ent[i].val;
    o->n--;
    /* Backward-shift deletion keeps every probe chain unbroken. */
    uint32_t hole = i;
    for (uint32_t j = (i + 1) & o->mask; o->ent[j].used; j = (j + 1) & o->mask) {
        uint32_t home = ooo_hash(o->ent[j].peer, o->ent[j].psn) & o->mask;
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        if (((j - home) & o->mask) >= ((j - hole) & o->mask)) {
            o->ent[hole] = o->ent[j];
            hole = j;
        }
    }
    o->ent[hole].used = 0;
    return 1;
}
