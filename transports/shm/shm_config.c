/*
 * The shm transport's settings (registered by the transports layer, see
 * transports/config.c; read at open through core_config_values).
 */
#include <limits.h>
#include "transports/shm/shm.h"

#define OFF(f) offsetof(tp_shm_config_t, f)

static const char *const fail_points[] = { "none", "create", "attach", NULL };

static const core_config_row_t rows[] = {
    { "RDMPI_SHM_EAGER_LIMIT", CORE_CFG_SIZE, "16k",
      "largest message sent eagerly (copied through the ring) within a node",
      OFF(shm_eager_limit), 0, NULL },
    { "RDMPI_SHM_RING_SIZE", CORE_CFG_SIZE, "0",
      "bytes per ring between two ranks of a node (0: sized from the rank count)",
      OFF(shm_ring_size), 0, NULL },
    { "RDMPI_SHM_CMA", CORE_CFG_BOOL, "1",
      "single-copy large messages with process_vm_readv (0: pipelined copy)", OFF(shm_cma), 0,
      NULL },
    { "RDMPI_SHM_BRIDGE_RING", CORE_CFG_SIZE, "1m",
      "bytes per ring of a bridge between two processes of different jobs of one run on one "
      "node (spawned jobs and their parents; a power of two)", OFF(shm_bridge_ring), 0, NULL,
      4096, 1 << 30 },
    { "RDMPI_TEST_SHM_BRIDGE_FAIL", CORE_CFG_ENUM, "none",
      "test suite only: a shm bridge between jobs fails where said (create: the lower uid "
      "cannot make the segment; attach: the higher uid refuses it), so the pair stays on tcp",
      OFF(test_bridge_fail), 0, fail_points, 0, 0, 0 },
};

const core_config_group_t tp_shm_config_group = {
    "shm", rows, sizeof(rows) / sizeof(rows[0]), sizeof(tp_shm_config_t)
};
