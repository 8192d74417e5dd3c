/*
 * The verbs transport's settings (registered by the transports layer, see
 * transports/config.c; read at open through core_config_values).
 */
#include <limits.h>
#include "transports/verbs/verbs.h"

#define OFF(f) offsetof(vb_config_t, f)

static const char *const verbs_modes[] = { "ud", "rc", "hybrid", NULL };

static const core_config_row_t rows[] = {
    { "RDMPI_VERBS_DEVICE", CORE_CFG_STRING, "",
      "RDMA device and port to use, \"name[:port]\" (empty: the one nearest to the rank's cores)",
      OFF(verbs_device), sizeof(((vb_config_t *)0)->verbs_device), NULL },
    { "RDMPI_VERBS_GID_INDEX", CORE_CFG_INT, "-1",
      "RoCE GID table index (-1: the RoCE v2 IPv4-mapped GID, found by querying the table)",
      OFF(verbs_gid_index), 0, NULL, -1, 65535 },
    { "RDMPI_VERBS_MODE", CORE_CFG_ENUM, "hybrid",
      "verbs connections: ud (datagrams only), rc (connected QP per peer), hybrid (UD, and RC "
      "for peers that exchange large or many messages)", OFF(verbs_mode), 0, verbs_modes },
    { "RDMPI_VERBS_MAX_RC", CORE_CFG_INT, "64",
      "hybrid mode: most RC connections per process (others stay on UD)", OFF(verbs_max_rc), 0,
      NULL, 0, INT_MAX },
    { "RDMPI_VERBS_RC_MSGS", CORE_CFG_INT, "16",
      "hybrid mode: messages to a peer before it gets an RC connection (RDMA reads connect at "
      "once)", OFF(verbs_rc_msgs), 0, NULL, 0, INT_MAX },
    { "RDMPI_VERBS_EAGER_LIMIT", CORE_CFG_SIZE, "8k",
      "largest message sent eagerly over RDMA (larger ones: rendezvous)", OFF(verbs_eager_limit),
      0, NULL },
    { "RDMPI_VERBS_MTU", CORE_CFG_SIZE, "0",
      "largest UD packet, 256..4096 (0: the port's active MTU)", OFF(verbs_mtu), 0, NULL, 0,
      65536 },
    { "RDMPI_VERBS_PEER_TIMEOUT", CORE_CFG_DOUBLE, "30",
      "seconds a peer may leave packets unacknowledged before it is reported dead",
      OFF(verbs_peer_timeout), 0, NULL, 0, 1e9 },
    { "RDMPI_VERBS_UD_WINDOW", CORE_CFG_INT, "256",
      "UD packets in flight per peer, unacknowledged (the sequence numbers are 16 bits)",
      OFF(verbs_ud_window), 0, NULL, 2, 32767 },
    { "RDMPI_VERBS_UD_RTO", CORE_CFG_DOUBLE, "0.01",
      "smallest UD retransmission timeout in seconds (it adapts to the round trip, doubles on "
      "every expiry, up to 1 s)", OFF(verbs_ud_rto), 0, NULL, 0, 10 },
    { "RDMPI_VERBS_UD_DROP", CORE_CFG_DOUBLE, "0",
      "testing: fraction of outgoing UD packets dropped on purpose (0..0.5); as many again are "
      "held back and sent after the next packet (reordered)", OFF(verbs_ud_drop), 0,
      NULL, 0, 0.5 },
    { "RDMPI_VERBS_RQ_SIZE", CORE_CFG_INT, "512",
      "receive buffers of the UD queue and of the RC shared receive queue (capped by the device)",
      OFF(verbs_rq_size), 0, NULL, 1, 1 << 20 },
    { "RDMPI_VERBS_RC_CREDITS", CORE_CFG_INT, "32",
      "RC messages a rank may send to one peer before the peer returns credits",
      OFF(verbs_rc_credits), 0, NULL, 1, 65535 },
    { "RDMPI_VERBS_RC_TIMEOUT", CORE_CFG_INT, "18",
      "RC ack timeout exponent: 4.096 us * 2^value per try, 7 tries (18: about 1 s)",
      OFF(verbs_rc_timeout), 0, NULL, 0, 31 },
    { "RDMPI_VERBS_FP_PEERS", CORE_CFG_INT, "16",
      "RDMA-write eager fast path: RC peers per process whose small messages are written "
      "straight into a ring of this process's memory that it polls, instead of sent (0: "
      "none); written with immediate, which wakes it, to a rank that may sleep while it waits "
      "(RDMPI_WAIT_SLEEP)",
      OFF(verbs_fp_peers), 0, NULL, 0, INT_MAX },
    { "RDMPI_VERBS_FP_SLOTS", CORE_CFG_INT, "32",
      "RDMA-write fast path: messages in flight per peer (slots of its ring)",
      OFF(verbs_fp_slots), 0, NULL, 0, 65535 },
    { "RDMPI_VERBS_FP_SIZE", CORE_CFG_SIZE, "2k",
      "RDMA-write fast path: bytes per slot (larger messages are sent, in order with the "
      "written ones)", OFF(verbs_fp_size), 0, NULL, 0, 1 << 20 },
    { "RDMPI_VERBS_RCACHE", CORE_CFG_BOOL, "1",
      "keep rendezvous buffers registered between messages (0: register per message); on only "
      "when the memory hooks that see every free/munmap/madvise/brk install and self-test",
      OFF(verbs_rcache), 0, NULL },
    { "RDMPI_VERBS_RCACHE_MAX", CORE_CFG_SIZE, "1G",
      "registration cache: most bytes kept registered while unused (least recently used go "
      "first; at most half of the locked-memory limit unless root)", OFF(verbs_rcache_max), 0, NULL },
    { "RDMPI_VERBS_RCACHE_ENTRIES", CORE_CFG_INT, "1024",
      "registration cache: most regions kept registered", OFF(verbs_rcache_entries), 0, NULL, 0,
      INT_MAX },
};

const core_config_group_t tp_verbs_config_group = {
    "verbs", rows, sizeof(rows) / sizeof(rows[0]), sizeof(vb_config_t)
};
