/*
 * The fake runtime and transport of p2p_fake.h, and stand-ins for the parts
 * of the library the p2p handlers reach that a unit test does not link.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/comm.h"
#include "core/datatype.h"
#include "core/log.h"
#include "test/unit/p2p_fake.h"

p2p_fake_t p2p_fake;
core_runtime_t *core_rt;

/* ---- stand-ins ---- */

void core_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p2p_fake.fatal, sizeof(p2p_fake.fatal), fmt, ap);
    va_end(ap);
    if (p2p_fake.armed) {
        p2p_fake.armed = 0;
        longjmp(p2p_fake.jmp, 1);
    }
    fprintf(stderr, "FAIL: unit/p2p_fake unexpected fatal error: %s\n", p2p_fake.fatal);
    abort();
}

const char *core_rank_host(core_runtime_t *rt, int rank)
{
    (void)rt;
    (void)rank;
    return "fakehost";
}

int tp_ep_get_slow(tp_layer_t *tp, int peer, tp_ep_t **ep_p)
{
    if (!p2p_fake.on_connect || peer < 0 || peer >= P2P_FAKE_MAX_RANKS)
        return CORE_EPEER;
    p2p_fake.on_connect(peer);
    *ep_p = tp->eps[peer] = &p2p_fake.ep[peer];
    return 0;
}

/* A first contact from a thread outside G: the fake's connections are made inside G. */
int tp_ep_get_outside(tp_layer_t *tp, int peer, tp_ep_t **ep_p)
{
    (void)tp;
    (void)peer;
    (void)ep_p;
    return 1;
}

/* tp.c's locked send under MULTIPLE: the fake's ranks each run one thread at a time. */
int tp_am_send_shared(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len)
{
    return tp_am_send_locked(ep, id, hdr, hdr_len, payload, len);
}

const char *core_comm_label(MPI_Comm comm)
{
    (void)comm;
    return "fake communicator";
}

void core_comm_release(MPI_Comm c)
{
    (void)c; /* the tests own their communicators */
}

void tp_am_refused(tp_iface_t *iface, int peer, unsigned id, int rc)
{
    (void)iface;
    (void)rc;
    core_fatal("rank %d sent a malformed message %u", peer, id);
}

/* ---- the fake transport ---- */

static int fake_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                        const void *payload, size_t len)
{
    if (p2p_fake.busy)
        return CORE_EBUSY;
    if (p2p_fake.nsent == P2P_FAKE_MAX_SENT)
        memmove(p2p_fake.sent, p2p_fake.sent + 1, sizeof(p2p_fake.sent) - sizeof(p2p_fake.sent[0]));
    else
        p2p_fake.nsent++;
    p2p_fake_msg_t *m = &p2p_fake.sent[p2p_fake.nsent - 1];
    memset(m, 0, sizeof(*m));
    m->dest = ep->peer;
    m->id = id;
    m->hdr_len = hdr_len;
    m->len = len;
    memcpy(m->hdr, hdr, hdr_len < sizeof(m->hdr) ? hdr_len : sizeof(m->hdr));
    if (len)
        memcpy(m->payload, payload, len < sizeof(m->payload) ? len : sizeof(m->payload));
    return 0;
}

static char fake_memh;

static int fake_mem_reg(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p)
{
    (void)iface;
    (void)addr;
    (void)len;
    *memh_p = (tp_memh_t *)(void *)&fake_memh;
    return 0;
}

static void fake_mem_dereg(tp_iface_t *iface, tp_memh_t *memh)
{
    (void)iface;
    (void)memh;
}

static size_t fake_rkey_pack(tp_iface_t *iface, tp_memh_t *memh, void *buf)
{
    (void)iface;
    (void)memh;
    memcpy(buf, "key!", 4);
    return 4;
}

static int fake_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
                    const void *rkey, tp_comp_t *comp)
{
    (void)ep;
    (void)lmemh;
    (void)raddr;
    (void)rkey;
    (void)comp;
    memset(local, 0x5a, len);
    return 0;
}

static int fake_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh,
                    uint64_t raddr, const void *rkey, tp_comp_t *comp)
{
    (void)ep;
    (void)local;
    (void)len;
    (void)lmemh;
    (void)raddr;
    (void)rkey;
    (void)comp;
    return 0;
}

static const tp_ops_t fake_ops = {
    .am_send = fake_am_send,
    .mem_reg = fake_mem_reg,
    .mem_dereg = fake_mem_dereg,
    .rkey_pack = fake_rkey_pack,
    .get = fake_get,
    .put = fake_put,
};

int p2p_fake_init(int nranks, int rank, unsigned flags)
{
    memset(&p2p_fake, 0, sizeof(p2p_fake));
    core_runtime_t *rt = calloc(1, sizeof(*rt));
    if (!rt || nranks > P2P_FAKE_MAX_RANKS)
        abort();
    core_rt = rt;
    p2p_fake.rt = rt;
    rt->rank = rank;
    rt->size = nranks;
    p2p_config_t *pc = core_config_add(&rt->cfg, &p2p_config_group);
    if (!pc)
        abort();
    pc->rndv_proto = (flags & TP_CAP_PUT) && !(flags & TP_CAP_GET) ? P2P_RNDV_WRITE
                                                                   : P2P_RNDV_READ;
    snprintf(rt->hostname, sizeof(rt->hostname), "fakehost");
    tp_iface_t *f = &p2p_fake.iface;
    f->ops = &fake_ops;
    f->name = "fake";
    f->rt = rt;
    f->caps.max_am_hdr = 128;
    f->caps.max_am = 1 << 20;
    f->caps.eager_limit = 64;
    f->caps.rndv_frag = 32;
    f->caps.max_rkey = 4;
    f->caps.flags = flags;
    memset(&p2p_fake.tp, 0, sizeof(p2p_fake.tp));
    p2p_fake.tp.rt = rt;
    p2p_fake.tp.eps = calloc((size_t)nranks, sizeof(tp_ep_t *));
    f->am = p2p_fake.tp.am;
    for (int i = 0; i < nranks; i++) {
        p2p_fake.ep[i].iface = f;
        p2p_fake.ep[i].peer = i;
        p2p_fake.tp.eps[i] = &p2p_fake.ep[i];
    }
    core_dt_init();
    return p2p_init(rt, &p2p_fake.tp);
}

void p2p_fake_fini(void)
{
    p2p_fini();
    core_req_table_fini(&core_rt->reqs);
    free(p2p_fake.tp.eps);
    core_config_fini(&core_rt->cfg);
    free(core_rt);
    core_rt = NULL;
}

const p2p_fake_msg_t *p2p_fake_last(void)
{
    return p2p_fake.nsent ? &p2p_fake.sent[p2p_fake.nsent - 1] : NULL;
}

void p2p_fake_clear(void)
{
    p2p_fake.nsent = 0;
}

MPI_Comm p2p_fake_comm(const int *ranks, int n, uint32_t ctx)
{
    MPI_Group g;
    MPI_Comm c = calloc(1, sizeof(*c));
    if (!c || core_group_create(n, ranks, core_rt->rank, &g) != 0)
        abort();
    c->refcount = 1;
    c->ctx = ctx;
    c->group = g;
    c->size = n;
    c->rank = g->my_rank;
    return c;
}

void p2p_fake_comm_free(MPI_Comm c)
{
    core_group_release(c->group);
    free(c);
}

int p2p_fake_try(void (*fn)(void *), void *arg)
{
    if (setjmp(p2p_fake.jmp)) {
        p2p_fake.armed = 0;
        return 1;
    }
    p2p_fake.armed = 1;
    fn(arg);
    p2p_fake.armed = 0;
    return 0;
}
