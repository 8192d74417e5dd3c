/*
 * What rdmpi_info prints about RDMA: every device with its limits, ports and
 * GID tables, the device, port and GID the verbs transport would choose
 * here, the inline sizes its queue pairs get, its thresholds, and the memory
 * it needs per peer in UD mode.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "core/config.h"
#include "core/memhooks.h"
#include "transports/verbs/verbs.h"

void tp_verbs_info_print(const vb_config_t *cfg);

static const char *port_state(enum ibv_port_state s)
{
    switch (s) {
    case IBV_PORT_ACTIVE: return "ACTIVE";
    case IBV_PORT_DOWN: return "DOWN";
    case IBV_PORT_INIT: return "INIT";
    case IBV_PORT_ARMED: return "ARMED";
    default: return "?";
    }
}

static void gid_str(const union ibv_gid *g, char *buf, size_t len)
{
    static const uint8_t v4[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
    if (!memcmp(g->raw, v4, 12))
        snprintf(buf, len, "::ffff:%u.%u.%u.%u", g->raw[12], g->raw[13], g->raw[14], g->raw[15]);
    else if (!inet_ntop(AF_INET6, g->raw, buf, (socklen_t)len))
        snprintf(buf, len, "?");
}

/* Creates throw-away UD and RC queue pairs to read the inline sizes. */
static void probe_inline(struct ibv_context *ctx, const struct ibv_device_attr *da, int *ud,
                         int *rc)
{
    *ud = *rc = -1;
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
    for (int k = 0; cq && k < 2; k++) {
        struct ibv_qp_init_attr ia;
        memset(&ia, 0, sizeof(ia));
        ia.send_cq = ia.recv_cq = cq;
        ia.qp_type = k ? IBV_QPT_RC : IBV_QPT_UD;
        ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
        ia.cap.max_send_sge = 1;
        ia.cap.max_recv_sge = 1;
        ia.cap.max_inline_data = VB_INLINE_WANT;
        struct ibv_qp *qp = ibv_create_qp(pd, &ia);
        if (!qp) {
            ia.cap.max_inline_data = 0;
            qp = ibv_create_qp(pd, &ia);
        }
        if (!qp)
            continue;
        struct ibv_qp_attr qa;
        struct ibv_qp_init_attr qia;
        if (ibv_query_qp(qp, &qa, IBV_QP_CAP, &qia) == 0)
            *(k ? rc : ud) = (int)qia.cap.max_inline_data;
        ibv_destroy_qp(qp);
    }
    (void)da;
    if (cq)
        ibv_destroy_cq(cq);
    if (pd)
        ibv_dealloc_pd(pd);
}

static void print_device(struct ibv_device *d, const vb_dev_t *chosen)
{
    const char *name = ibv_get_device_name(d);
    struct ibv_context *ctx = ibv_open_device(d);
    if (!ctx) {
        printf("  %s: cannot be opened (%s)\n", name, strerror(errno));
        return;
    }
    struct ibv_device_attr a;
    if (ibv_query_device(ctx, &a) != 0) {
        printf("  %s: cannot be queried\n", name);
        ibv_close_device(ctx);
        return;
    }
    int ud_inl, rc_inl;
    probe_inline(ctx, &a, &ud_inl, &rc_inl);
    printf("  %s%s: %s, firmware %s, %d port(s)\n", name,
           chosen->ctx && !strcmp(chosen->name, name) ? " (chosen)" : "",
           ibv_node_type_str(d->node_type), a.fw_ver[0] ? a.fw_ver : "-", a.phys_port_cnt);
    printf("    limits: QPs %d, WRs per QP %d, SGEs %d, CQEs %d, SRQ WRs %d, RDMA reads in "
           "flight %d, MR %llu bytes\n", a.max_qp, a.max_qp_wr, a.max_sge, a.max_cqe,
           a.max_srq_wr, a.max_qp_rd_atom, (unsigned long long)a.max_mr_size);
    printf("    inline data: UD %d bytes, RC %d bytes (asked %d)\n", ud_inl, rc_inl,
           VB_INLINE_WANT);
    for (uint8_t port = 1; port <= a.phys_port_cnt; port++) {
        struct ibv_port_attr pa;
        if (ibv_query_port(ctx, port, &pa) != 0)
            continue;
        printf("    port %u: %s, %s, MTU %d (max %d), LID %u, largest message %u bytes\n", port,
               port_state(pa.state),
               pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet (RoCE)" : "InfiniBand",
               vb_mtu_bytes(pa.active_mtu), vb_mtu_bytes(pa.max_mtu), pa.lid, pa.max_msg_sz);
        for (int i = 0; i < pa.gid_tbl_len; i++) {
            union ibv_gid g;
            static const uint8_t zero[16];
            if (ibv_query_gid(ctx, port, i, &g) != 0 || !memcmp(g.raw, zero, 16))
                continue;
            const char *type = vb_gid_type_str(ctx, name, port, i);
            char buf[64];
            gid_str(&g, buf, sizeof(buf));
            int mine = chosen->ctx && !strcmp(chosen->name, name) && chosen->port == port &&
                       chosen->gid_index == i;
            printf("      GID %-3d %-40s %s%s\n", i, buf, type, mine ? "  <- chosen" : "");
        }
    }
    ibv_close_device(ctx);
}

static size_t heap_used(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* Measures what a UD peer costs in this process: allocates the state the
 * transport allocates for each peer it talks to (vb_peer_t, and an address
 * handle made by the provider, here to our own GID) for npeers peers and
 * returns the heap growth per peer, plus the peer's slot in the table of
 * every rank; 0 when it cannot be measured. Kernel memory behind the
 * address handle is not seen. */
static size_t measure_peer(const vb_dev_t *dev, struct ibv_pd *pd, int npeers)
{
    struct ibv_ah_attr a;
    memset(&a, 0, sizeof(a));
    a.port_num = dev->port;
    if (dev->pattr.link_layer == IBV_LINK_LAYER_INFINIBAND) {
        a.dlid = dev->pattr.lid;
    } else {
        a.is_global = 1;
        a.grh.dgid = dev->gid;
        a.grh.sgid_index = (uint8_t)dev->gid_index;
        a.grh.hop_limit = 64;
    }
    vb_peer_t **p = calloc((size_t)npeers, sizeof(*p));
    if (!p)
        return 0;
    size_t before = heap_used(), bytes = 0;
    int n = 0;
    for (; n < npeers; n++) {
        if (!(p[n] = calloc(1, sizeof(vb_peer_t))))
            break;
        if (!(p[n]->ah = ibv_create_ah(pd, &a))) {
            free(p[n]);
            break;
        }
    }
    if (n == npeers) {
        size_t after = heap_used();
        bytes = (after > before ? after - before : 0) / (size_t)npeers + sizeof(vb_peer_t *);
    }
    while (n-- > 0) {
        ibv_destroy_ah(p[n]->ah);
        free(p[n]);
    }
    free(p);
    return bytes;
}

static void print_memory(const vb_config_t *cfg, const vb_dev_t *dev)
{
    int mtu = dev->ctx ? vb_mtu_bytes(dev->pattr.active_mtu) : 4096;
    if (cfg->verbs_mtu && (int)cfg->verbs_mtu < mtu)
        mtu = vb_mtu_bytes(vb_mtu_enum(cfg->verbs_mtu));
    size_t rq = (size_t)cfg->verbs_rq_size;
    size_t ud_fixed = rq * ((VB_GRH + (size_t)mtu + 63) & ~(size_t)63) /* receive buffers */
                      + (size_t)VB_UD_POOL * (size_t)mtu             /* send buffers */
                      + VB_UD_SQ * sizeof(uintptr_t) + rq * 2 * sizeof(vb_rel_ooo_ent_t);
    size_t srq_buf = (sizeof(vb_rc_hdr_t) + VB_MAX_AM_HDR + cfg->verbs_eager_limit + 63) & ~(size_t)63;
    size_t rc_fixed = rq * srq_buf + (size_t)VB_RC_POOL * srq_buf;
    size_t per_peer = sizeof(vb_peer_t) + sizeof(vb_peer_t *);
    size_t per_rc = sizeof(vb_rc_t) + VB_RC_SQ * sizeof(uintptr_t);
    printf("    memory, UD: %zu KiB per process + per peer %zu bytes of state (vb_peer_t %zu, of "
           "which reliability window %zu + %zu) + an address handle, whatever the job size; "
           "while a message of several packets arrives from a peer, its reassembly buffer (up "
           "to %u KiB; only the header for rendezvous data, which goes packet by packet to the "
           "user's buffer) too\n", ud_fixed / 1024, per_peer, sizeof(vb_peer_t), sizeof(vb_rel_tx_t),
           sizeof(vb_rel_rx_t), (VB_UD_MAX_AM + VB_MAX_AM_HDR) / 1024 + 1);
    struct ibv_pd *pd = dev->ctx ? ibv_alloc_pd(dev->ctx) : NULL;
    int ranks[] = { 2, 16, 256 };
    for (int i = 0; i < 3; i++) {
        size_t peers = (size_t)ranks[i] - 1;
        size_t m = pd ? measure_peer(dev, pd, ranks[i] - 1) : 0;
        if (m)
            printf("      %3d ranks: %zu bytes per peer measured (state + address handle, user "
                   "space), %zu KiB in all\n", ranks[i], m, (ud_fixed + peers * m) / 1024);
        else
            printf("      %3d ranks: %zu bytes per peer of state + an address handle (not "
                   "measured: no device), %zu KiB in all without them\n", ranks[i], per_peer,
                   (ud_fixed + peers * per_peer) / 1024);
    }
    if (pd)
        ibv_dealloc_pd(pd);
    printf("    memory, RC (rc/hybrid): + %zu KiB per process (SRQ and bounce buffers) + %zu "
           "bytes per connected peer (+ its QP)\n", rc_fixed / 1024, per_rc);
}

/* Whether the registration cache would be on in a process like this one:
 * the memory hooks are installed (or not) when the library is loaded, as in
 * an MPI program started the same way; a program that dlopens librdmpi
 * while it already has threads gets no hooks (the reason says so). */
static void print_rcache(const vb_config_t *cfg)
{
    const char *why = NULL;
    if (!cfg->verbs_rcache)
        why = "RDMPI_VERBS_RCACHE=0";
    else if (core_memhooks_status(&why) != 0 && !why)
        why = "the memory hooks are not installed";
    if (why) {
        printf("  registration cache: off (%s): rendezvous buffers are registered per message\n",
               why);
        return;
    }
    size_t max = cfg->verbs_rcache_max;
    struct rlimit rl;
    if (geteuid() != 0 && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        max > rl.rlim_cur / 2)
        max = rl.rlim_cur / 2;
    printf("  registration cache: on (memory hooks on munmap, mremap, madvise, brk, shmat, "
           "shmdt, mmap installed at load time, before any thread, and self-tested), up to "
           "%zu MiB and %d regions unused\n", max >> 20, cfg->verbs_rcache_entries);
}

void tp_verbs_info_print(const vb_config_t *cfg)
{
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    printf("\nRDMA (verbs transport):\n");
    print_rcache(cfg);
    if (!list || n == 0) {
        printf("  no RDMA device found (the verbs transport stays off; on Linux: modprobe the "
               "driver, or rdma link add rxe0 type rxe netdev <if> for Soft-RoCE)\n");
        if (list)
            ibv_free_device_list(list);
        return;
    }
    vb_dev_t dev;
    int have = vb_dev_open(cfg, &dev, 1) == 0;
    for (int i = 0; i < n; i++)
        print_device(list[i], &dev);
    ibv_free_device_list(list);
    static const char *const modes[] = { "ud", "rc", "hybrid" };
    if (have)
        printf("  chosen: %s port %u, %s, GID index %d, UD MTU %d\n", dev.name, dev.port,
               dev.pattr.link_layer == IBV_LINK_LAYER_INFINIBAND ? "LID addressing" : "RoCE",
               dev.gid_index,
               vb_mtu_bytes(cfg->verbs_mtu && vb_mtu_enum(cfg->verbs_mtu) < dev.pattr.active_mtu
                                ? vb_mtu_enum(cfg->verbs_mtu) : dev.pattr.active_mtu));
    else
        printf("  chosen: none (no device with an active port%s)\n",
               cfg->verbs_device[0] ? " matching RDMPI_VERBS_DEVICE" : "");
    /* On RoCE the netdev's MTU caps the port's, and UD's packet size with it: ud mode's
     * large messages cost per packet (a receive completion, a copy, reliability). */
    if (have && dev.pattr.link_layer != IBV_LINK_LAYER_INFINIBAND &&
        dev.pattr.active_mtu < dev.pattr.max_mtu)
        printf("    the port runs at MTU %d of its %d: the network interface's MTU limits it (a "
               "jumbo MTU, 4200 or more, lets UD packets be %d bytes)\n",
               vb_mtu_bytes(dev.pattr.active_mtu), vb_mtu_bytes(dev.pattr.max_mtu),
               vb_mtu_bytes(dev.pattr.max_mtu));
    int mtu = have ? vb_mtu_bytes(cfg->verbs_mtu && vb_mtu_enum(cfg->verbs_mtu) < dev.pattr.active_mtu
                                      ? vb_mtu_enum(cfg->verbs_mtu) : dev.pattr.active_mtu) : 4096;
    size_t ud_max = (size_t)(mtu - (int)sizeof(vb_ud_hdr_t)) * VB_UD_MAX_PKTS - VB_MAX_AM_HDR;
    if (ud_max > VB_UD_MAX_AM)
        ud_max = VB_UD_MAX_AM;
    printf("  thresholds: mode %s, eager limit %zu bytes, largest UD message %zu bytes (mode ud; "
           "%d packets at most), UD window %d packets (congestion window from 16), "
           "retransmission %g s .. 1 s, peer timeout %g s\n",
           modes[cfg->verbs_mode], cfg->verbs_eager_limit, ud_max, VB_UD_MAX_PKTS,
           cfg->verbs_ud_window, cfg->verbs_ud_rto, cfg->verbs_peer_timeout);
    printf("    RC: hybrid connects after %d messages or the first RDMA read, at most %d peers; "
           "%d credits per peer, %d receive buffers shared, signaled 1 in %d, rnr_retry 7\n",
           cfg->verbs_rc_msgs, cfg->verbs_max_rc, cfg->verbs_rc_credits, cfg->verbs_rq_size,
           VB_SIG_EVERY);
    if (cfg->verbs_fp_peers > 0)
        printf("    RDMA-write fast path: the first %d RC peers write messages up to %zu bytes into "
               "a ring of %d slots (%zu KiB per peer) that the receiver polls; written with "
               "immediate (a completion that wakes it) to ranks that sleep while they wait\n", cfg->verbs_fp_peers,
               cfg->verbs_fp_size - sizeof(vb_fp_hdr_t) - 1, cfg->verbs_fp_slots,
               (size_t)cfg->verbs_fp_slots * ((cfg->verbs_fp_size + 63) & ~(size_t)63) / 1024);
    else
        printf("    RDMA-write fast path: off (RDMPI_VERBS_FP_PEERS=0)\n");
    print_memory(cfg, have ? &dev : &(vb_dev_t){ 0 });
    if (have)
        vb_dev_close(&dev);
}
