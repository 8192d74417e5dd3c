/*
 * Choosing the RDMA device, port and address. The device is the one nearest
 * to the cores this process is bound to (hwloc), unless RDMPI_VERBS_DEVICE
 * names one; the port is the first active one (or the named one); on RoCE
 * the GID is found by querying the GID table for a RoCE v2 entry holding an
 * IPv4-mapped address (RDMPI_VERBS_GID_INDEX overrides); InfiniBand ports
 * are addressed by LID. Every limit comes from ibv_query_device/port.
 * Also linked into rdmpi_info, so it uses nothing of the runtime.
 */
#include <errno.h>
#include <hwloc.h>
#include <hwloc/openfabrics-verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "core/log.h"
#include "transports/verbs/verbs.h"

int vb_mtu_bytes(enum ibv_mtu mtu)
{
    return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

enum ibv_mtu vb_mtu_enum(size_t bytes)
{
    enum ibv_mtu m = IBV_MTU_256;
    while (m < IBV_MTU_4096 && (size_t)(128 << (m + 1)) <= bytes)
        m++;
    return m;
}

/* Reads the GID type from sysfs: the fallback when ibv_query_gid_ex is not
 * supported by the kernel. Returns IBV_GID_TYPE_* or -1. */
static int sysfs_gid_type(const char *name, uint8_t port, int index)
{
    char path[256], buf[32] = "";
    snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%d", name,
             port, index);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    if (!fgets(buf, sizeof(buf), f))
        buf[0] = '\0';
    fclose(f);
    if (strstr(buf, "v2"))
        return IBV_GID_TYPE_ROCE_V2;
    if (strstr(buf, "RoCE") || strstr(buf, "IB"))
        return IBV_GID_TYPE_ROCE_V1;
    return -1;
}

/* The type of GID index: IBV_GID_TYPE_*, or -1 when the entry is empty. */
static int gid_type(struct ibv_context *ctx, const char *name, uint8_t port, int index,
                    union ibv_gid *gid)
{
    struct ibv_gid_entry ent;
    if (ibv_query_gid_ex(ctx, port, (uint32_t)index, &ent, 0) == 0) {
        *gid = ent.gid;
        return (int)ent.gid_type;
    }
    if (errno == ENODATA || errno == EINVAL)
        return -1;
    if (ibv_query_gid(ctx, port, index, gid) != 0)
        return -1;
    static const uint8_t zero[16];
    if (!memcmp(gid->raw, zero, 16))
        return -1;
    return sysfs_gid_type(name, port, index);
}

const char *vb_gid_type_str(struct ibv_context *ctx, const char *name, uint8_t port, int index)
{
    union ibv_gid gid;
    switch (gid_type(ctx, name, port, index, &gid)) {
    case IBV_GID_TYPE_IB: return "IB";
    case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
    case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
    default: return "-";
    }
}

static int is_ipv4_mapped(const union ibv_gid *g)
{
    static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
    return !memcmp(g->raw, pfx, 12);
}

int vb_dev_pick_gid(struct ibv_context *ctx, const char *name, uint8_t port, int *index,
                    union ibv_gid *gid, const char **why)
{
    struct ibv_port_attr pa;
    if (ibv_query_port(ctx, port, &pa) != 0)
        return CORE_EIO;
    int best = -1, best_score = 0;
    union ibv_gid best_gid;
    for (int i = 0; i < pa.gid_tbl_len; i++) {
        union ibv_gid g;
        int t = gid_type(ctx, name, port, i, &g);
        if (t < 0)
            continue;
        int score;
        if (t == IBV_GID_TYPE_ROCE_V2)
            score = is_ipv4_mapped(&g) ? 5 : (g.raw[0] == 0xfe && g.raw[1] == 0x80) ? 3 : 4;
        else if (t == IBV_GID_TYPE_ROCE_V1)
            score = is_ipv4_mapped(&g) ? 2 : 1;
        else
            score = 1;
        if (score > best_score) {
            best = i;
            best_score = score;
            best_gid = g;
        }
    }
    if (best < 0) {
        *why = "the port's GID table has no usable entry (no IP address on its netdev?)";
        return CORE_EUNSUPPORTED;
    }
    *index = best;
    *gid = best_gid;
    *why = best_score == 5 ? "RoCE v2, IPv4-mapped" : best_score >= 3 ? "RoCE v2, IPv6" : "RoCE v1";
    return 0;
}

/* Orders the devices by how close they are to our cores (best first). */
static void order_by_locality(struct ibv_device **list, int n, int *order)
{
    int score[64] = { 0 };
    for (int i = 0; i < n; i++)
        order[i] = i;
    if (n < 2)
        return;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_bitmap_t mine = hwloc_bitmap_alloc(), dev = hwloc_bitmap_alloc();
        if (hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) != 0)
            hwloc_bitmap_copy(mine, hwloc_topology_get_complete_cpuset(topo));
        for (int i = 0; i < n && i < 64; i++) {
            if (hwloc_ibv_get_device_cpuset(topo, list[i], dev) != 0)
                continue;
            if (hwloc_bitmap_isincluded(mine, dev))
                score[i] = 2;
            else if (hwloc_bitmap_intersects(mine, dev))
                score[i] = 1;
        }
        hwloc_bitmap_free(mine);
        hwloc_bitmap_free(dev);
    }
    hwloc_topology_destroy(topo);
    for (int i = 1; i < n && i < 64; i++) /* stable insertion sort by score */
        for (int k = i; k > 0 && score[order[k]] > score[order[k - 1]]; k--) {
            int t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
}

/* Opens dev and picks its port (want: 0 = first active). */
static int open_port(struct ibv_device *d, int want, vb_dev_t *dev, int quiet)
{
    struct ibv_context *ctx = ibv_open_device(d);
    if (!ctx) {
        if (!quiet)
            core_warn("verbs: cannot open %s: %s", ibv_get_device_name(d), strerror(errno));
        return CORE_EUNSUPPORTED;
    }
    if (ibv_query_device(ctx, &dev->attr) != 0)
        goto err_close;
    for (int port = 1; port <= dev->attr.phys_port_cnt; port++) {
        if (want && port != want)
            continue;
        if (ibv_query_port(ctx, (uint8_t)port, &dev->pattr) != 0)
            continue;
        if (dev->pattr.state != IBV_PORT_ACTIVE)
            continue;
        if (dev->pattr.link_layer != IBV_LINK_LAYER_ETHERNET &&
            dev->pattr.link_layer != IBV_LINK_LAYER_INFINIBAND &&
            dev->pattr.link_layer != IBV_LINK_LAYER_UNSPECIFIED)
            continue;
        dev->ctx = ctx;
        dev->port = (uint8_t)port;
        snprintf(dev->name, sizeof(dev->name), "%s", ibv_get_device_name(d));
        return 0;
    }
err_close:
    ibv_close_device(ctx);
    return CORE_EUNSUPPORTED;
}

int vb_dev_open(const vb_config_t *cfg, vb_dev_t *dev, int quiet)
{
    int n = 0, rc = CORE_EUNSUPPORTED;
    struct ibv_device **list = ibv_get_device_list(&n);
    memset(dev, 0, sizeof(*dev));
    if (!list || n <= 0) {
        if (list)
            ibv_free_device_list(list);
        return CORE_EUNSUPPORTED;
    }
    char want_name[64] = "";
    int want_port = 0;
    if (cfg->verbs_device[0]) {
        snprintf(want_name, sizeof(want_name), "%s", cfg->verbs_device);
        char *colon = strchr(want_name, ':');
        if (colon) {
            *colon = '\0';
            want_port = atoi(colon + 1);
        }
    }
    int order[64];
    if (n > 64)
        n = 64;
    order_by_locality(list, n, order);
    for (int k = 0; k < n && rc != 0; k++) {
        struct ibv_device *d = list[order[k]];
        if (want_name[0] && strcmp(ibv_get_device_name(d), want_name) != 0)
            continue;
        rc = open_port(d, want_port, dev, quiet);
    }
    ibv_free_device_list(list);
    if (rc) {
        if (want_name[0] && !quiet)
            core_warn("verbs: RDMPI_VERBS_DEVICE=%s: no such device with an active port",
                      cfg->verbs_device);
        return rc;
    }

    dev->gid_index = -1;
    if (dev->pattr.link_layer == IBV_LINK_LAYER_ETHERNET) {
        const char *why = "";
        if (cfg->verbs_gid_index >= 0) {
            dev->gid_index = cfg->verbs_gid_index;
            if (ibv_query_gid(dev->ctx, dev->port, dev->gid_index, &dev->gid) != 0) {
                if (!quiet)
                    core_warn("verbs: %s port %u: RDMPI_VERBS_GID_INDEX=%d cannot be read",
                              dev->name, dev->port, dev->gid_index);
                rc = CORE_EUNSUPPORTED;
            }
        } else {
            rc = vb_dev_pick_gid(dev->ctx, dev->name, dev->port, &dev->gid_index, &dev->gid, &why);
            if (rc && !quiet)
                core_warn("verbs: %s port %u: %s", dev->name, dev->port, why);
        }
        if (rc) {
            vb_dev_close(dev);
            return rc;
        }
        core_debug("verbs: %s port %u, GID index %d (%s)", dev->name, dev->port, dev->gid_index,
                   why);
    } else {
        /* InfiniBand: LID addressing; GID 0 only for the card. */
        ibv_query_gid(dev->ctx, dev->port, 0, &dev->gid);
        core_debug("verbs: %s port %u, LID %u", dev->name, dev->port, dev->pattr.lid);
    }
    return 0;
}

void vb_dev_close(vb_dev_t *dev)
{
    if (dev->ctx)
        ibv_close_device(dev->ctx);
    dev->ctx = NULL;
}

const char *vb_wc_hint(enum ibv_wc_status st)
{
    switch (st) {
    case IBV_WC_RETRY_EXC_ERR:
        return "the peer stopped answering: it died, the link is down, or the path (MTU, GID "
               "index, routing) is wrong";
    case IBV_WC_RNR_RETRY_EXC_ERR:
        return "the peer posted no receive buffers in time";
    case IBV_WC_REM_ACCESS_ERR:
        return "the remote key or address is stale (memory deregistered or freed too early)";
    case IBV_WC_LOC_PROT_ERR:
        return "a local buffer is not registered (freed or deregistered while in use)";
    case IBV_WC_LOC_LEN_ERR:
    case IBV_WC_REM_INV_REQ_ERR:
        return "a message was larger than the receiver's buffer";
    case IBV_WC_WR_FLUSH_ERR:
        return "the queue pair had already failed";
    default:
        return "";
    }
}
