/*
 * Unit test of the configuration registry: defaults, parsing, bad values,
 * sizes with suffixes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"

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

    core_config_t cfg;
    unsetenv("RDMPI_SHM_EAGER_LIMIT");
    core_config_load(&cfg);
    CHECK("default_eager", cfg.shm_eager_limit == 16384);
    CHECK("default_yield", cfg.yield_mode == CORE_YIELD_AUTO);

    setenv("RDMPI_SHM_EAGER_LIMIT", "32k", 1);
    setenv("RDMPI_YIELD", "always", 1);
    setenv("RDMPI_SHM_CMA", "no", 1);
    setenv("RDMPI_TRANSPORTS", "self,shm", 1);
    core_config_load(&cfg);
    CHECK("env_size", cfg.shm_eager_limit == 32768);
    CHECK("env_enum", cfg.yield_mode == CORE_YIELD_ALWAYS);
    CHECK("env_bool", cfg.shm_cma == 0);
    CHECK("env_string", strcmp(cfg.transports, "self,shm") == 0);

    /* A bad value keeps the default (and warns on stderr). */
    setenv("RDMPI_SPIN_COUNT", "many", 1);
    setenv("RDMPI_YIELD", "sometimes", 1);
    core_config_load(&cfg);
    CHECK("bad_int_default", cfg.spin_count == 50000);
    CHECK("bad_enum_default", cfg.yield_mode == CORE_YIELD_AUTO);

    /* Out of the row's bounds, out of an int, not finite: the default stays. */
    setenv("RDMPI_VERBS_UD_WINDOW", "40000", 1);
    setenv("RDMPI_VERBS_RQ_SIZE", "4294967297", 1);
    setenv("RDMPI_VERBS_RC_TIMEOUT", "32", 1);
    setenv("RDMPI_WAIT_WARN", "nan", 1);
    setenv("RDMPI_VERBS_UD_DROP", "0.6", 1);
    setenv("RDMPI_VERBS_FP_SIZE", "2M", 1);
    core_config_load(&cfg);
    CHECK("bound_window", cfg.verbs_ud_window == 256);
    CHECK("int_range", cfg.verbs_rq_size == 512);
    CHECK("bound_int", cfg.verbs_rc_timeout == 18);
    CHECK("double_nan", cfg.wait_warn == 60);
    CHECK("bound_double", cfg.verbs_ud_drop == 0);
    CHECK("bound_size", cfg.verbs_fp_size == 2048);
    setenv("RDMPI_VERBS_UD_WINDOW", "32767", 1);
    setenv("RDMPI_VERBS_UD_DROP", "0.5", 1);
    core_config_load(&cfg);
    CHECK("bound_inclusive", cfg.verbs_ud_window == 32767 && cfg.verbs_ud_drop == 0.5);
    unsetenv("RDMPI_VERBS_UD_WINDOW");
    unsetenv("RDMPI_VERBS_RQ_SIZE");
    unsetenv("RDMPI_VERBS_RC_TIMEOUT");
    unsetenv("RDMPI_WAIT_WARN");
    unsetenv("RDMPI_VERBS_UD_DROP");
    unsetenv("RDMPI_VERBS_FP_SIZE");

    size_t n;
    const core_config_row_t *rows = core_config_table(&n);
    int documented = 1;
    for (size_t i = 0; i < n; i++)
        documented &= rows[i].help && rows[i].help[0] && !strncmp(rows[i].name, "RDMPI_", 6);
    CHECK("rows_documented", n > 5 && documented);

    char buf[64];
    const char *origin;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].name, "RDMPI_SHM_EAGER_LIMIT")) {
            core_config_format(&cfg, &rows[i], buf, sizeof(buf), &origin);
            CHECK("format_value", !strcmp(buf, "32768") && !strcmp(origin, "environment"));
        }
    return failures ? 1 : 0;
}
