/*
 * Unit test of the settings registry: every component's groups registered,
 * defaults, parsing, bad values, bounds, sizes with suffixes, typed reads,
 * enumeration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "rt/rt.h"

static int failures;
#define CHECK(name, cond)                                                      \
    do {                                                                       \
        if (cond)                                                              \
            printf("PASS: unit/config/%s\n", name);                            \
        else {                                                                 \
            printf("FAIL: unit/config/%s (%s)\n", name, #cond);                \
            failures++;                                                        \
        }                                                                      \
    } while (0)

int main(void)
{
    size_t v;
    CHECK("size_plain", core_config_parse_size("4096", &v) == 0 && v == 4096);
    CHECK("size_k", core_config_parse_size("16k", &v) == 0 && v == 16384);
    CHECK("size_M", core_config_parse_size("4M", &v) == 0 && v == 4u << 20);
    CHECK("size_GB", core_config_parse_size("1GB", &v) == 0 && v == 1u << 30);
    CHECK("size_bad_suffix", core_config_parse_size("12q", &v) == CORE_EINVAL);
    CHECK("size_negative", core_config_parse_size("-1", &v) == CORE_EINVAL);
    CHECK("size_empty", core_config_parse_size("", &v) == CORE_EINVAL);
    CHECK("size_bytes", core_config_parse_size("512B", &v) == 0 && v == 512);
    /* strtoull alone would read these as huge values */
    CHECK("size_blank_negative", core_config_parse_size(" -1", &v) == CORE_EINVAL);
    CHECK("size_plus", core_config_parse_size("+5", &v) == CORE_EINVAL);
    CHECK("size_wraps", core_config_parse_size("17179869184G", &v) == CORE_EINVAL);
    CHECK("size_too_long", core_config_parse_size("99999999999999999999", &v) == CORE_EINVAL);

    unsetenv("RDMPI_SHM_EAGER_LIMIT");
    core_config_t reg = { .nslots = 0 };
    CHECK("register", rt_config_register(&reg) == 0);
    int i;
    size_t z;
    double d;
    CHECK("default_eager", core_config_get_size(&reg, "RDMPI_SHM_EAGER_LIMIT", &z) == 0 &&
                               z == 0);
    CHECK("default_yield", core_config_get_int(&reg, "RDMPI_YIELD", &i) == 0 &&
                               i == CORE_YIELD_AUTO);
    CHECK("typed_wrong_type", core_config_get_int(&reg, "RDMPI_SHM_EAGER_LIMIT", &i) ==
                                  CORE_EINVAL);
    CHECK("typed_unknown", core_config_get_int(&reg, "RDMPI_NO_SUCH", &i) == CORE_EINVAL);
    CHECK("register_twice", core_config_add(&reg, &core_settings_group) ==
                                core_config_values(&reg, &core_settings_group));
    core_config_fini(&reg);

    setenv("RDMPI_SHM_EAGER_LIMIT", "32k", 1);
    setenv("RDMPI_YIELD", "always", 1);
    setenv("RDMPI_SHM_CMA", "no", 1);
    setenv("RDMPI_TRANSPORTS", "self,shm", 1);
    setenv("RDMPI_COLL_BCAST", "scatter_ring", 1);
    rt_config_register(&reg);
    const core_settings_t *core = core_config_values(&reg, &core_settings_group);
    CHECK("env_size", core_config_get_size(&reg, "RDMPI_SHM_EAGER_LIMIT", &z) == 0 && z == 32768);
    CHECK("env_enum", core->yield_mode == CORE_YIELD_ALWAYS);
    CHECK("env_bool", core_config_get_int(&reg, "RDMPI_SHM_CMA", &i) == 0 && i == 0);
    CHECK("env_string", core_config_get_string(&reg, "RDMPI_TRANSPORTS") &&
                            strcmp(core_config_get_string(&reg, "RDMPI_TRANSPORTS"), "self,shm") == 0);
    CHECK("env_coll_enum", core_config_get_int(&reg, "RDMPI_COLL_BCAST", &i) == 0 && i == 2);
    unsetenv("RDMPI_COLL_BCAST");
    core_config_fini(&reg);

    /* A bad value keeps the default (and warns on stderr). */
    setenv("RDMPI_SPIN_COUNT", "many", 1);
    setenv("RDMPI_YIELD", "sometimes", 1);
    setenv("RDMPI_COLL_ALLREDUCE", "bruck", 1);  /* an algorithm allreduce does not have */
    rt_config_register(&reg);
    core = core_config_values(&reg, &core_settings_group);
    CHECK("bad_int_default", core->spin_count == 50000);
    CHECK("bad_enum_default", core->yield_mode == CORE_YIELD_AUTO);
    CHECK("bad_coll_default", core_config_get_int(&reg, "RDMPI_COLL_ALLREDUCE", &i) == 0 && i == 0);
    unsetenv("RDMPI_COLL_ALLREDUCE");
    core_config_fini(&reg);

    /* Out of the row's bounds, out of an int, not finite: the default stays. */
    setenv("RDMPI_TCP_SOCKBUF", "99999999999999999999k", 1);
    setenv("RDMPI_WAIT_WARN", "nan", 1);
    setenv("RDMPI_WAIT_SLEEP", "-2", 1);
    setenv("RDMPI_COLL_SIM_PPN", "-1", 1);
    setenv("RDMPI_SPIN_COUNT", "4294967297", 1);
    rt_config_register(&reg);
    core = core_config_values(&reg, &core_settings_group);
    CHECK("size_range", core_config_get_size(&reg, "RDMPI_TCP_SOCKBUF", &z) == 0 && z == 0);
    CHECK("double_nan", core->wait_warn == 60);
    CHECK("bound_double", core_config_get_double(&reg, "RDMPI_WAIT_SLEEP", &d) == 0 && d == -1);
    CHECK("bound_int", core_config_get_int(&reg, "RDMPI_COLL_SIM_PPN", &i) == 0 && i == 0);
    CHECK("int_range", core->spin_count == 50000);
    core_config_fini(&reg);
    setenv("RDMPI_WAIT_SLEEP", "1e9", 1);
    rt_config_register(&reg);
    CHECK("bound_inclusive", core_config_get_double(&reg, "RDMPI_WAIT_SLEEP", &d) == 0 && d == 1e9);
    core_config_fini(&reg);
    unsetenv("RDMPI_TCP_SOCKBUF");
    unsetenv("RDMPI_WAIT_WARN");
    unsetenv("RDMPI_WAIT_SLEEP");
    unsetenv("RDMPI_COLL_SIM_PPN");
    unsetenv("RDMPI_SPIN_COUNT");

    /* Enumeration: every setting of every component, documented, named once. */
    rt_config_register(&reg);
    size_t n = core_config_count(&reg);
    int documented = 1, unique = 1, found_each = 1;
    core_config_param_t p;
    for (size_t k = 0; k < n; k++) {
        if (core_config_param(&reg, k, &p) != 0) {
            documented = 0;
            break;
        }
        documented &= p.row->help && p.row->help[0] && !strncmp(p.row->name, "RDMPI_", 6) &&
                      p.component && (p.value != NULL) == (p.row->type != CORE_CFG_EXTERNAL);
        unique &= core_config_find(&reg, p.row->name) == (long)k;
    }
    const char *expect[] = { "RDMPI_LOG_LEVEL", "RDMPI_TRANSPORTS", "RDMPI_SHM_CMA", "RDMPI_TCP_IF",
                             "RDMPI_RNDV_PROTO", "RDMPI_COLL_SIM_PPN", "RDMPI_TEST_ENV" };
    for (size_t k = 0; k < sizeof(expect) / sizeof(expect[0]); k++)
        found_each &= core_config_find(&reg, expect[k]) >= 0;
    CHECK("rows_documented", n > 40 && documented);
    CHECK("rows_unique", unique);
    CHECK("rows_every_component", found_each);
    CHECK("param_out_of_range", core_config_param(&reg, n, &p) == CORE_EINVAL);

    char buf[64];
    long k = core_config_find(&reg, "RDMPI_SHM_EAGER_LIMIT");
    CHECK("format_value", k >= 0 && core_config_param(&reg, (size_t)k, &p) == 0 &&
                              (core_config_format(&p, buf, sizeof(buf)), !strcmp(buf, "32768")) &&
                              !strcmp(p.origin, "environment") && !strcmp(p.component, "shm"));

    /* core_config_set (MPI_T writes): the environment's checks, the origin, nothing on refusal */
    core = core_config_values(&reg, &core_settings_group);
    k = core_config_find(&reg, "RDMPI_SPIN_COUNT");
    CHECK("set_int", k >= 0 && core_config_set(&reg, (size_t)k, "77") == 0 &&
                         core->spin_count == 77 && core_config_param(&reg, (size_t)k, &p) == 0 &&
                         !strcmp(p.origin, "MPI_T"));
    CHECK("set_out_of_bounds", core_config_set(&reg, (size_t)k, "-3") == CORE_EINVAL &&
                                   core->spin_count == 77);
    k = core_config_find(&reg, "RDMPI_WAIT_SLEEP");
    CHECK("set_double_bounds", core_config_set(&reg, (size_t)k, "2e9") == CORE_EINVAL &&
                                   core_config_set(&reg, (size_t)k, "0.5") == 0 &&
                                   core->wait_sleep == 0.5);
    k = core_config_find(&reg, "RDMPI_YIELD");
    CHECK("set_enum", core_config_set(&reg, (size_t)k, "never") == 0 &&
                          core->yield_mode == CORE_YIELD_NEVER &&
                          core_config_set(&reg, (size_t)k, "sometimes") == CORE_EINVAL &&
                          core->yield_mode == CORE_YIELD_NEVER);
    k = core_config_find(&reg, "RDMPI_TRANSPORTS");
    char longname[300];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    CHECK("set_string_too_long", core_config_set(&reg, (size_t)k, longname) == CORE_EINVAL &&
                                     core_config_get_string(&reg, "RDMPI_TRANSPORTS") &&
                                     strlen(core_config_get_string(&reg, "RDMPI_TRANSPORTS")) < 128);
    k = core_config_find(&reg, "RDMPI_TIMEOUT");
    CHECK("set_external", core_config_set(&reg, (size_t)k, "5") == CORE_EINVAL);
    CHECK("set_out_of_range", core_config_set(&reg, n, "1") == CORE_EINVAL);
    k = core_config_find(&reg, "RDMPI_COLL_BCAST");
    CHECK("live_flags", k >= 0 && core_config_param(&reg, (size_t)k, &p) == 0 &&
                            (p.row->flags & CORE_CFG_LIVE) && (p.row->flags & CORE_CFG_SAME));
    core_config_fini(&reg);
    return failures ? 1 : 0;
}
