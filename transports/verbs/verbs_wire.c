/*
 * Decoders of the verbs transport's wire formats (see verbs_wire.h). Pure:
 * no verbs calls, no logging, no runtime.
 */
#include <stdatomic.h>
#include <string.h>
#include "core/procs.h"
#include "transports/verbs/verbs_wire.h"

#define FAIL(msg)            \
    do {                     \
        *why = (msg);        \
        return CORE_EPROTO;  \
    } while (0)

int vb_ud_decode(const uint8_t *pkt, uint32_t n, uint32_t nuids, vb_ud_pkt_t *out,
                 const char **why)
{
    if (n < sizeof(vb_ud_hdr_t))
        FAIL("a packet shorter than its header");
    vb_ud_hdr_t h;
    memcpy(&h, pkt, sizeof(h));
    if (h.src >= nuids)
        FAIL("a packet from a sender uid out of range");
    unsigned kind = h.type & VB_UD_KIND;
    unsigned flags = h.type & ~VB_UD_KIND;
    uint32_t dn = n - (uint32_t)sizeof(h);
    if (kind == VB_UD_ACK) {
        if (flags & ~(VB_UD_ACKREQ | VB_UD_NAK | VB_UD_NAK_ALL))
            FAIL("an ack with unknown flags");
        if (dn != 0)
            FAIL("an ack with bytes after its header");
    } else if (kind == VB_UD_DATA) {
        if (flags & ~(VB_UD_FIRST | VB_UD_LAST | VB_UD_WANT_ACK))
            FAIL("a data packet with unknown flags");
        uint64_t total = (uint64_t)h.hdr_len + h.len;
        if (h.hdr_len > VB_MAX_AM_HDR)
            FAIL("a message header longer than the transport allows");
        if (total > VB_REASM_MAX)
            FAIL("a message longer than the transport allows");
        if ((flags & VB_UD_FIRST) && (flags & VB_UD_LAST) && dn != total)
            FAIL("a one-packet message whose length disagrees with the packet's");
        if ((flags & VB_UD_FIRST) && !(flags & VB_UD_LAST) && (dn < h.hdr_len || dn >= total))
            FAIL("a first packet that does not hold the message header, or holds it all");
    } else {
        FAIL("a packet of unknown kind");
    }
    out->h = h;
    out->data = pkt + sizeof(h);
    out->dn = dn;
    return 0;
}

int vb_reasm_step(vb_reasm_state_t *r, const vb_ud_pkt_t *p, const char **why)
{
    unsigned fl = p->h.type & (VB_UD_FIRST | VB_UD_LAST);
    uint64_t total = (uint64_t)p->h.hdr_len + p->h.len;
    if (fl == (VB_UD_FIRST | VB_UD_LAST)) {
        if (r->active)
            FAIL("a new message before the last packet of the previous one");
        return 0;
    }
    if (fl & VB_UD_FIRST) {
        if (r->active)
            FAIL("a new message before the last packet of the previous one");
        r->hdr_len = p->h.hdr_len;
        r->len = p->h.len;
        r->id = p->h.id;
        r->got = p->dn;
        r->active = 1;
        return 0;
    }
    if (!r->active)
        FAIL("a packet of no message");
    if (p->h.id != r->id || p->h.hdr_len != r->hdr_len || p->h.len != r->len)
        FAIL("a packet whose message header disagrees with its first packet's");
    uint64_t end = (uint64_t)r->got + p->dn;
    if (end > total || ((fl & VB_UD_LAST) ? end != total : end == total))
        FAIL("packets that do not add up to their message's length");
    r->got = (uint32_t)end;
    if (fl & VB_UD_LAST)
        r->active = 0;
    return 0;
}

int vb_rc_decode(const uint8_t *buf, uint32_t n, uint32_t nuids, vb_rc_hdr_t *h,
                 const char **why)
{
    if (n < sizeof(*h))
        FAIL("a message shorter than its header");
    memcpy(h, buf, sizeof(*h));
    if (h->src >= nuids)
        FAIL("a message from a sender uid out of range");
    if (h->hdr_len > VB_MAX_AM_HDR || h->hdr_len > n - sizeof(*h))
        FAIL("an AM header longer than the message or than the transport allows");
    return 0;
}

int vb_uid_index(uint32_t uid, int uid_base, int size, const struct core_proc *dyn, int ndyn)
{
    if (uid >= CORE_UID_MAX || uid_base < 0 || size < 0)
        return -1;
    if (uid >= (uint32_t)uid_base && uid - (uint32_t)uid_base < (uint32_t)size)
        return (int)(uid - (uint32_t)uid_base);
    for (int i = 0; dyn && i < ndyn; i++)
        if (dyn[i].uid == (int)uid && dyn[i].rank >= 0 && !dyn[i].run)
            return size + i;
    return -1;
}

int vb_fp_decode(const uint8_t *slot, uint32_t size, vb_fp_hdr_t *h, const char **why)
{
    /* The mark is the header's last byte and lands last (RDMA writes land in address
     * order): only once it is set is the rest of the header read, once, into h. */
    const volatile vb_fp_hdr_t *v = (const volatile vb_fp_hdr_t *)slot;
    if (v->mark != VB_FP_MARK)
        return 0;
    atomic_thread_fence(memory_order_acquire);
    memcpy(h, (const void *)slot, sizeof(*h));
    if (size < sizeof(*h) + 1 || h->len > size - sizeof(*h) - 1)
        FAIL("a message longer than its ring slot");
    if (h->hdr_len > h->len || h->hdr_len > VB_MAX_AM_HDR)
        FAIL("an AM header longer than the message or than the transport allows");
    if (h->pad[0] | h->pad[1] | h->pad[2])
        FAIL("a slot header with padding that is not zero");
    if (((const volatile uint8_t *)slot)[sizeof(*h) + h->len] != VB_FP_MARK)
        return 0;
    atomic_thread_fence(memory_order_acquire);
    return 1;
}

int vb_credits_take(vb_credits_t *c, unsigned credits, unsigned fcredits)
{
    if (credits > (unsigned)(c->max - *c->credits) ||
        fcredits > (unsigned)(c->fp_max - *c->fp_credits))
        return CORE_EPROTO;
    *c->credits += (int)credits;
    *c->fp_credits += (int)fcredits;
    return 0;
}
