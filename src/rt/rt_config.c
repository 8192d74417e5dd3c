/*
 * Every component's settings, registered in one place by the layer that
 * sits above them all (the library's runtime and rdmpi_info both call
 * rt_config_register), plus the variables read outside the library (the
 * launcher, the test suite): known, so they draw no warning, and listed.
 */
#include <stddef.h>
#include "core/config.h"
#include "core/errors.h"
#include "rt/rt.h"
#include "p2p/p2p.h"
#include "collectives/coll.h"
#include "transports/transport.h"

static const core_config_row_t external_rows[] = {
    { "RDMPI_TIMEOUT", CORE_CFG_EXTERNAL, "0",
      "rdmpirun: seconds before the job is killed (same as --timeout)", 0, 0, NULL },
    { "RDMPI_TEST_LARGE", CORE_CFG_EXTERNAL, "0",
      "test suite: 1 runs the 2 GiB message test", 0, 0, NULL },
    { "RDMPI_TEST_PEER_TRANSPORT", CORE_CFG_EXTERNAL, "",
      "test suite: the transport the spawn tests expect between the two jobs", 0, 0, NULL },
    { "RDMPI_TEST_ENV", CORE_CFG_EXTERNAL, "",
      "test suite: VAR=VALUE pairs applied to every MPI test run", 0, 0, NULL },
    { "RDMPI_TEST_TIMEOUT", CORE_CFG_EXTERNAL, "60",
      "test suite: seconds per MPI test run", 0, 0, NULL },
    { "RDMPI_TEST_TIMEOUT_SCALE", CORE_CFG_EXTERNAL, "1",
      "test suite: factor applied to every MPI test timeout (slow machines)", 0, 0, NULL },
    { "RDMPI_TEST_NPS", CORE_CFG_EXTERNAL, "",
      "test suite: rank counts every MPI test line runs at instead of its own (max: the "
      "largest of its own)", 0, 0, NULL },
    { "RDMPI_TEST_MIN_NP", CORE_CFG_EXTERNAL, "1",
      "test suite: MPI test runs with fewer ranks are skipped", 0, 0, NULL },
    { "RDMPI_TEST_BINDIR", CORE_CFG_EXTERNAL, "",
      "test suite: where built MPI test programs are kept and reused", 0, 0, NULL },
    { "RDMPI_TEST_MPICC", CORE_CFG_EXTERNAL, "",
      "test suite: another MPI's compiler wrapper", 0, 0, NULL },
    { "RDMPI_TEST_MPIRUN", CORE_CFG_EXTERNAL, "",
      "test suite: another launcher (or rdmpirun with host options)", 0, 0, NULL },
    { "RDMPI_LAUNCHER", CORE_CFG_EXTERNAL, "",
      "set by rdmpirun in every rank's environment", 0, 0, NULL },
};

static const core_config_group_t external_group = {
    "external", external_rows, sizeof(external_rows) / sizeof(external_rows[0]), 0
};

int rt_config_register(core_config_t *reg)
{
    if (!core_config_add(reg, &core_settings_group))
        return CORE_ENOMEM;
    int rc = tp_config_register(reg);
    if (rc)
        return rc;
    if (!core_config_add(reg, &p2p_config_group) || !core_config_add(reg, &coll_config_group) ||
        !core_config_add(reg, &external_group))
        return CORE_ENOMEM;
    return 0;
}
