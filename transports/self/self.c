/*
 * The self transport: messages a rank sends to itself. An active message is
 * copied into a queue and delivered from progress, never from inside
 * am_send, so p2p is not re-entered while it is sending. get/put are memcpy.
 * Only this process fills the queue, so the core never polls it: am_send
 * wakes a progress hook, which rests once the queue is empty.
 */
#include <stdlib.h>
#include <string.h>
#include "core/progress.h"
#include "core/runtime.h"
#include "transports/transport.h"

typedef struct self_msg {
    struct self_msg *next;
    unsigned id;
    size_t hdr_len, len;
    /* header, then payload */
} self_msg_t;

struct tp_memh { int unused; };

typedef struct self_iface {
    tp_iface_t base;
    tp_ep_t ep;
    self_msg_t *head, *tail;
    int hook;                 /* progress hook id: woken while messages wait */
    struct tp_memh memh;      /* what mem_reg hands out: nothing to register */
} self_iface_t;

static int self_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                        const void *payload, size_t len)
{
    self_iface_t *s = (self_iface_t *)ep->iface;
    self_msg_t *m = malloc(sizeof(*m) + hdr_len + len);
    if (!m)
        return CORE_ENOMEM;
    m->next = NULL;
    m->id = id;
    m->hdr_len = hdr_len;
    m->len = len;
    memcpy(m + 1, hdr, hdr_len);
    if (len)
        memcpy((char *)(m + 1) + hdr_len, payload, len);
    if (s->tail)
        s->tail->next = m;
    else
        s->head = m;
    s->tail = m;
    core_progress_wake(s->base.rt, s->hook);
    return 0;
}

static int self_progress(tp_iface_t *iface)
{
    self_iface_t *s = (self_iface_t *)iface;
    int n = 0;
    /* Deliver only what is queued now: handlers may queue more. */
    self_msg_t *m = s->head;
    s->head = s->tail = NULL;
    while (m) {
        self_msg_t *next = m->next;
        int rc = tp_am_dispatch(iface->am, m->id, iface->rt->rank, m + 1, m->hdr_len,
                                (char *)(m + 1) + m->hdr_len, m->len);
        if (rc)  /* our own message: a bug here, reported as a peer's would be */
            tp_am_refused(iface, iface->rt->rank, m->id, rc);
        free(m);
        m = next;
        n++;
    }
    return n;
}

/* Handlers may queue more (and wake the hook again): those wait for the next pass. */
static int self_hook_run(void *arg)
{
    self_iface_t *s = arg;
    core_progress_rest(s->base.rt, s->hook);
    return self_progress(&s->base);
}

static int self_ep_create(tp_iface_t *iface, int peer, tp_ep_t **ep_p)
{
    self_iface_t *s = (self_iface_t *)iface;
    *ep_p = &s->ep;
    return 0;
}

static void self_ep_destroy(tp_ep_t *ep) { (void)ep; }

static int self_mem_reg(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p)
{
    *memh_p = &((self_iface_t *)iface)->memh;
    return 0;
}

static void self_mem_dereg(tp_iface_t *iface, tp_memh_t *memh) { }

static size_t self_rkey_pack(tp_iface_t *iface, tp_memh_t *memh, void *buf) { return 0; }

static int self_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
                    const void *rkey, tp_comp_t *comp)
{
    memmove(local, (const void *)(uintptr_t)raddr, len);
    return 0;
}

static int self_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
                    const void *rkey, tp_comp_t *comp)
{
    memmove((void *)(uintptr_t)raddr, local, len);
    return 0;
}

static int self_flush(tp_ep_t *ep) { return 0; }

/* Messages to ourselves wait in the queue until progress hands them over. */
static int self_drain(tp_iface_t *iface)
{
    return ((self_iface_t *)iface)->head ? CORE_EBUSY : 0;
}

/* Only this process queues messages to itself: idle, nothing can come. */
static int self_arm(tp_iface_t *iface, tp_arm_t *a)
{
    (void)a;
    return ((self_iface_t *)iface)->head ? CORE_EBUSY : 0;
}

static void self_close(tp_iface_t *iface)
{
    self_iface_t *s = (self_iface_t *)iface;
    for (self_msg_t *m = s->head, *n; m; m = n) {
        n = m->next;
        free(m);
    }
    core_progress_rest(s->base.rt, s->hook);
    free(s);
}

static const tp_ops_t self_ops = {
    .close = self_close,
    .ep_create = self_ep_create,
    .ep_destroy = self_ep_destroy,
    .am_send = self_am_send,
    .mem_reg = self_mem_reg,
    .mem_dereg = self_mem_dereg,
    .rkey_pack = self_rkey_pack,
    .get = self_get,
    .put = self_put,
    .progress = NULL, /* self_hook_run */
    .flush = self_flush,
    .drain = self_drain,
    .arm = self_arm,
};

static int self_open(core_runtime_t *rt, tp_iface_t **iface_p)
{
    self_iface_t *s = calloc(1, sizeof(*s));
    if (!s)
        return CORE_ENOMEM;
    s->base.ops = &self_ops;
    s->base.name = "self";
    s->base.rt = rt;
    s->base.caps.max_am_hdr = 256;
    s->base.caps.max_am = (size_t)1 << 20;
    s->base.caps.max_inline = 0;
    s->base.caps.eager_limit = 64 * 1024;
    s->base.caps.max_rkey = 0;
    s->base.caps.flags = TP_CAP_GET | TP_CAP_PUT | TP_CAP_WAIT;
    s->ep.iface = &s->base;
    s->ep.peer = rt->rank;
    s->hook = core_progress_add_hook(rt, self_hook_run, s);
    *iface_p = &s->base;
    return 0;
}

static int self_reachable(tp_iface_t *iface, int peer)
{
    return peer == iface->rt->rank;
}

const tp_component_t tp_self_component = {
    .name = "self",
    .node_local = 1,
    .open = self_open,
    .ready = NULL,
    .reachable = self_reachable,
    .create_outside = 1, /* its one endpoint, made at open */
};
