/*
 * Single copy between ranks of a node with CMA (process_vm_readv/writev):
 * the rendezvous data moves straight from the sender's buffer to the
 * receiver's. There is nothing to register; a remote key is the owner's pid.
 *
 * CMA needs ptrace permission over the peer, which Yama (ptrace_scope >= 1)
 * or a container's seccomp profile may deny. Each rank therefore allows any
 * process to trace it (PR_SET_PTRACER_ANY; harmless where Yama is absent)
 * and publishes its pid and the address of a magic word before the fence;
 * after it, each rank reads its neighbor's word. If that fails, or
 * RDMPI_SHM_CMA=0, get/put are not offered and p2p pipelines large messages
 * through the rings instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include "core/bootstrap.h"
#include "core/log.h"
#include "transports/shm/shm.h"

#define SHM_KEY_CMA "rdmpi.shm.cma"
#define CMA_MAGIC 0x616d632d69706d72ull /* "rmpi-cma" */
#define CMA_CHUNK ((size_t)1 << 30)     /* below the kernel's per-call limit */

typedef struct cma_card {
    int32_t pid;
    uint32_t reserved;
    uint64_t magic_addr;
} cma_card_t;

void tp_shm_cma_allow(volatile uint64_t *word)
{
#ifdef PR_SET_PTRACER
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* EINVAL without Yama: fine */
#endif
    *word = CMA_MAGIC ^ (uint64_t)getpid();
}

int tp_shm_cma_try(int32_t pid, uint64_t addr)
{
    uint64_t word = 0;
    struct iovec l = {.iov_base = &word, .iov_len = sizeof(word)};
    struct iovec r = {.iov_base = (void *)(uintptr_t)addr, .iov_len = sizeof(word)};
    if (pid <= 0 || process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof(word)) {
        core_debug("shm: process_vm_readv from pid %d: %s", (int)pid, strerror(errno));
        return 0;
    }
    return word == (CMA_MAGIC ^ (uint64_t)(uint32_t)pid);
}

void tp_shm_cma_open(tp_shm_iface_t *s)
{
    if (!s->cfg->shm_cma)
        return;
    tp_shm_cma_allow(&s->cma_magic);
    cma_card_t card = {.pid = (int32_t)getpid(), .magic_addr = (uint64_t)(uintptr_t)&s->cma_magic};
    /* If publishing fails the probe finds nothing and CMA stays off. */
    core_boot_put(s->rt, SHM_KEY_CMA, &card, sizeof(card), 1);
}

/* Reads the neighbor's magic word; sets or clears TP_CAP_GET|PUT. */
void tp_shm_cma_probe(tp_shm_iface_t *s)
{
    unsigned cma = TP_CAP_GET | TP_CAP_PUT;
    s->base.caps.flags &= ~cma;
    if (!s->cfg->shm_cma) {
        core_info("shm: single copy (CMA) off: RDMPI_SHM_CMA=0");
        return;
    }
    int peer = s->rt->local_ranks[(s->me + 1) % s->nlocal];
    void *val;
    size_t len;
    if (core_boot_get(s->rt, peer, SHM_KEY_CMA, &val, &len) != 0) {
        core_info("shm: single copy (CMA) off: rank %d published no CMA address", peer);
        return;
    }
    cma_card_t card;
    int ok = len == sizeof(card);
    if (ok)
        memcpy(&card, val, sizeof(card));
    free(val);
    if (!ok) {
        core_info("shm: single copy (CMA) off: bad CMA address from rank %d", peer);
        return;
    }
    uint64_t word = 0;
    struct iovec l = {.iov_base = &word, .iov_len = sizeof(word)};
    struct iovec r = {.iov_base = (void *)(uintptr_t)card.magic_addr, .iov_len = sizeof(word)};
    ssize_t n = process_vm_readv(card.pid, &l, 1, &r, 1, 0);
    if (n != (ssize_t)sizeof(word)) {
        core_info("shm: single copy (CMA) off: process_vm_readv from rank %d (pid %d): %s%s", peer,
                  (int)card.pid, n < 0 ? strerror(errno) : "short read",
                  n < 0 && errno == EPERM ? " (ptrace not permitted: Yama or a container)" : "");
        return;
    }
    if (word != (CMA_MAGIC ^ (uint64_t)(uint32_t)card.pid)) {
        core_info("shm: single copy (CMA) off: rank %d's probe word does not match", peer);
        return;
    }
    s->pids = calloc((size_t)s->nlocal, sizeof(*s->pids));
    if (!s->pids) {
        core_info("shm: single copy (CMA) off: out of memory");
        return;
    }
    s->base.caps.flags |= cma;
    s->coop = calloc((size_t)s->nlocal * TP_SHM_COOP_SLOTS, sizeof(*s->coop));
    core_debug("shm: single copy (CMA) on");
}

int32_t tp_shm_peer_pid(tp_shm_iface_t *s, int lrank)
{
    if (lrank < 0 || lrank >= s->nlocal || !s->pids)
        return -1;
    if (s->pids[lrank] == 0) {
        void *val;
        size_t len;
        cma_card_t card;
        s->pids[lrank] = -1;
        if (core_boot_get(s->rt, s->rt->local_ranks[lrank], SHM_KEY_CMA, &val, &len) == 0) {
            if (len == sizeof(card)) {
                memcpy(&card, val, sizeof(card));
                if (card.pid > 0)
                    s->pids[lrank] = card.pid;
            }
            free(val);
        }
    }
    return s->pids[lrank];
}

int tp_shm_mem_reg(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p)
{
    (void)addr;
    (void)len;
    *memh_p = (tp_memh_t *)(void *)&tp_shm_iface(iface)->memh_token;
    return 0;
}

void tp_shm_mem_dereg(tp_iface_t *iface, tp_memh_t *memh)
{
    (void)iface;
    (void)memh;
}

size_t tp_shm_rkey_pack(tp_iface_t *iface, tp_memh_t *memh, void *buf)
{
    (void)iface;
    (void)memh;
    int32_t pid = (int32_t)getpid();
    memcpy(buf, &pid, sizeof(pid));
    return sizeof(pid);
}

static int cma_error(tp_shm_iface_t *s, int err, int write, pid_t pid, int peer)
{
    if (!s->cma_logged) {
        s->cma_logged = 1;
        core_error("shm: process_vm_%s %s rank %d (pid %d) failed: %s", write ? "writev" : "readv",
                   write ? "to" : "from", peer, (int)pid, strerror(err));
    }
    switch (err) {
    case EPERM:
        return CORE_EPERM;
    case ESRCH:
        return CORE_EPEER;
    case EFAULT:
        return CORE_EBUFFER;
    case ENOMEM:
        return CORE_ENOMEM;
    default:
        return CORE_EIO;
    }
}

int tp_shm_cma_move(int32_t pid, void *local, size_t len, uint64_t raddr, int write)
{
    uint8_t *p = local;
    while (len > 0) {
        size_t chunk = len < CMA_CHUNK ? len : CMA_CHUNK;
        struct iovec l = {.iov_base = p, .iov_len = chunk};
        struct iovec r = {.iov_base = (void *)(uintptr_t)raddr, .iov_len = chunk};
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EFAULT;
        p += n;
        raddr += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

/* Moves len bytes between local and the peer's raddr (tp_shm_cma_move). Completes before
 * returning. */
static int cma_copy(tp_ep_t *ep, void *local, size_t len, uint64_t raddr, const void *rkey,
                    int write)
{
    tp_shm_iface_t *s = tp_shm_iface(ep->iface);
    if (!(s->base.caps.flags & (write ? TP_CAP_PUT : TP_CAP_GET)))
        return CORE_EUNSUPPORTED;
    int32_t pid;
    memcpy(&pid, rkey, sizeof(pid));
    if (pid != tp_shm_peer_pid(s, ((tp_shm_ep_t *)ep)->lpeer))
        return CORE_EPROTO; /* a remote key of another process than the peer's */
    tp_shm_copying(s, 1);
    int err = tp_shm_cma_move(pid, local, len, raddr, write);
    tp_shm_copying(s, -1);
    return err ? cma_error(s, err, write, pid, ep->peer) : 0;
}

void tp_shm_getq_flush(tp_shm_iface_t *s)
{
    tp_shm_getq_t *q = &s->getq;
    int n = q->n;
    if (n == 0)
        return;
    q->n = 0;
    q->bytes = 0;
    tp_shm_getq_item_t *one = &q->item[0];
    if (n == 1 && one->len >= TP_SHM_COOP_LONE) {
        int rc = tp_shm_coop_get(q->ep, one->local, one->len, one->raddr, q->pid, one->comp);
        if (rc == CORE_INPROGRESS)
            return;
        if (rc != CORE_EUNSUPPORTED) {
            one->comp->done(one->comp, rc);
            return;
        }
    }
    struct iovec l[TP_SHM_GETQ_MAX], r[TP_SHM_GETQ_MAX];
    for (int i = 0; i < n; i++) {
        l[i] = (struct iovec){.iov_base = q->item[i].local, .iov_len = q->item[i].len};
        r[i] = (struct iovec){.iov_base = (void *)(uintptr_t)q->item[i].raddr,
                              .iov_len = q->item[i].len};
    }
    ssize_t got;
    tp_shm_copying(s, 1);
    do
        got = process_vm_readv(q->pid, l, (unsigned long)n, r, (unsigned long)n, 0);
    while (got < 0 && errno == EINTR);
    tp_shm_copying(s, -1);
    /* A short count (a page it could not access, a signal): what it covered is in place,
     * the rest is read again one by one, which reports the error. */
    size_t done = got > 0 ? (size_t)got : 0;
    for (int i = 0; i < n; i++) {
        tp_shm_getq_item_t *it = &q->item[i];
        int rc = 0;
        if (done >= it->len) {
            done -= it->len;
        } else {
            int err = tp_shm_cma_move(q->pid, (uint8_t *)it->local + done, it->len - done,
                                      it->raddr + done, 0);
            done = 0;
            rc = err ? cma_error(s, err, 0, q->pid, q->peer) : 0;
        }
        it->comp->done(it->comp, rc);
    }
}

/* Queues a read for the end of the ring's batch (see tp_shm_getq_t): CORE_INPROGRESS, or 0
 * when it cannot wait (outside a batch, too large). */
static int getq_add(tp_shm_iface_t *s, tp_ep_t *ep, void *local, size_t len, uint64_t raddr,
                    int32_t pid, tp_comp_t *comp)
{
    tp_shm_getq_t *q = &s->getq;
    if (!q->on || !comp || len > TP_SHM_GETQ_BYTES)
        return 0;
    if (q->n && (q->pid != pid || q->n == TP_SHM_GETQ_MAX || q->bytes + len > TP_SHM_GETQ_BYTES))
        tp_shm_getq_flush(s);
    q->pid = pid;
    q->ep = (tp_shm_ep_t *)ep;
    q->peer = ep->peer;
    q->item[q->n++] = (tp_shm_getq_item_t){comp, local, len, raddr};
    q->bytes += len;
    return CORE_INPROGRESS;
}

int tp_shm_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
               const void *rkey, tp_comp_t *comp)
{
    (void)lmemh;
    tp_shm_iface_t *s = tp_shm_iface(ep->iface);
    if (!(s->base.caps.flags & TP_CAP_GET))
        return CORE_EUNSUPPORTED;
    int32_t pid;
    memcpy(&pid, rkey, sizeof(pid));
    if (pid != tp_shm_peer_pid(s, ((tp_shm_ep_t *)ep)->lpeer))
        return CORE_EPROTO; /* a remote key of another process than the peer's */
    /* Large: both ends copy (may complete later through comp). A get without comp must
     * be done on return: only a batch's (getq) or a large one may be shared. */
    if (len >= TP_SHM_COOP_MIN && comp) {
        int rc = tp_shm_coop_get((tp_shm_ep_t *)ep, local, len, raddr, pid, comp);
        if (rc != CORE_EUNSUPPORTED)
            return rc;
    }
    if (getq_add(s, ep, local, len, raddr, pid, comp) == CORE_INPROGRESS)
        return CORE_INPROGRESS;
    return cma_copy(ep, local, len, raddr, rkey, 0);
}

int tp_shm_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
               const void *rkey, tp_comp_t *comp)
{
    (void)lmemh;
    (void)comp;
    return cma_copy(ep, (void *)local, len, raddr, rkey, 1);
}
