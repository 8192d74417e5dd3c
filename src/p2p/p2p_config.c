/*
 * p2p's settings: the rendezvous protocol (registered by the runtime,
 * rt_config_register; p2p_init reads them).
 */
#include "p2p/p2p.h"

#define OFF(f) offsetof(p2p_config_t, f)

static const char *const rndv_protos[] = { "read", "write", "pipelined", NULL };

static const core_config_row_t rows[] = {
    { "RDMPI_RNDV_PROTO", CORE_CFG_ENUM, "read",
      "rendezvous of large messages: read (the receiver reads the sender's buffer: RDMA read, "
      "CMA), write (the sender writes into the receiver's buffer once it is matched), "
      "pipelined (copied in chunks through active messages); a transport that cannot do the "
      "one asked uses the other zero-copy one, else pipelined (read by the sender at each "
      "send)", OFF(rndv_proto), 0, rndv_protos, 0, 0, CORE_CFG_LIVE },
    { "RDMPI_RNDV_FRAG_SIZE", CORE_CFG_SIZE, "0",
      "chunk size of the pipelined rendezvous (transports without RDMA get); 0: the "
      "transport's preferred size (tcp 512k, others 64k)", OFF(rndv_frag_size), 0, NULL },
};

const core_config_group_t p2p_config_group = {
    "p2p", rows, sizeof(rows) / sizeof(rows[0]), sizeof(p2p_config_t)
};
