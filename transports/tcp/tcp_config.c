/*
 * The tcp transport's settings (registered by the transports layer, see
 * transports/config.c; read at open through core_config_values).
 */
#include <limits.h>
#include "transports/tcp/tcp.h"

#define OFF(f) offsetof(tp_tcp_config_t, f)

static const core_config_row_t rows[] = {
    { "RDMPI_TCP_IF", CORE_CFG_STRING, "",
      "tcp: interfaces (eth0) or networks (10.1.0.0/16) to use, comma separated; empty: the "
      "first non-loopback IPv4 interface that is up, else loopback", OFF(tcp_if),
      sizeof(((tp_tcp_config_t *)0)->tcp_if), NULL },
    { "RDMPI_TCP_EAGER_LIMIT", CORE_CFG_SIZE, "64k",
      "largest message sent eagerly over tcp (larger ones: pipelined rendezvous)",
      OFF(tcp_eager_limit), 0, NULL },
    { "RDMPI_TCP_QUEUE_LIMIT", CORE_CFG_SIZE, "1M",
      "tcp: bytes queued for one peer when its socket is full before sends wait",
      OFF(tcp_queue_limit), 0, NULL },
    { "RDMPI_TCP_SOCKBUF", CORE_CFG_SIZE, "0",
      "tcp: socket send and receive buffer size (0: the kernel's autotuning)",
      OFF(tcp_sockbuf), 0, NULL },
};

const core_config_group_t tp_tcp_config_group = {
    "tcp", rows, sizeof(rows) / sizeof(rows[0]), sizeof(tp_tcp_config_t)
};
