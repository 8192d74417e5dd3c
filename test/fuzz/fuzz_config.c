/*
 * Fuzz target: the settings registry (src/core/config.c) with every
 * component's table (rt_config_register): RDMPI_* values of
 * every type, sizes with suffixes, bounds, enums.
 *
 * Input: (row byte, value, NUL) records: each sets the row's variable (row
 * byte modulo the number of settings, in the registry's enumeration order)
 * to the value, a row byte of 0xff sets an unknown RDMPI_ variable; then
 * every component's group is registered again, reading them all.
 * Properties: every field ends inside its row's bounds (a refused value
 * leaves the default, which is inside them too), doubles are finite, enums
 * index their names; a value shown by core_config_format reads back as the
 * same value; and a size that core_config_parse_size accepts is exactly its
 * digits times its suffix, with no wrap-around.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "rt/rt.h"
#include "fuzz.h"

/* The registry with every component's settings, and its rows by index. */
static core_config_t reg;

static size_t nrows(void)
{
    return core_config_count(&reg);
}

static const core_config_row_t *row_at(size_t i)
{
    core_config_param_t p;
    return core_config_param(&reg, i, &p) == 0 ? p.row : NULL;
}

static const void *field_at(const core_config_t *r, size_t i)
{
    core_config_param_t p;
    return core_config_param(r, i, &p) == 0 ? p.value : NULL;
}

static double value_of(const void *f, const core_config_row_t *r)
{
    switch (r->type) {
    case CORE_CFG_BOOL:
    case CORE_CFG_INT:
    case CORE_CFG_ENUM: return *(const int *)f;
    case CORE_CFG_SIZE: return (double)*(const size_t *)f;
    case CORE_CFG_DOUBLE: return *(const double *)f;
    default: return 0;
    }
}

static void check_row(const void *f, const core_config_row_t *r)
{
    if (r->type == CORE_CFG_EXTERNAL)
        return;
    double v = value_of(f, r);
    FUZZ_CHECK(isfinite(v));
    if (r->min != 0 || r->max != 0)
        FUZZ_CHECK(v >= r->min && v <= r->max);
    if (r->type == CORE_CFG_BOOL)
        FUZZ_CHECK(v == 0 || v == 1);
    if (r->type == CORE_CFG_ENUM) {
        int n = 0;
        while (r->choices[n])
            n++;
        FUZZ_CHECK(v >= 0 && v < n);
    }
    if (r->type == CORE_CFG_STRING)
        FUZZ_CHECK(memchr(f, '\0', r->size) != NULL);
}

/* An independent reading of a size: digits, then k/m/g, then b. */
static void check_size(const char *s)
{
    size_t got;
    int rc = core_config_parse_size(s, &got);
    FUZZ_CHECK(rc == 0 || rc == CORE_EINVAL);
    size_t v = 0, i = 0;
    int overflow = 0;
    while (isdigit((unsigned char)s[i])) {
        overflow |= __builtin_mul_overflow(v, 10, &v);
        overflow |= __builtin_add_overflow(v, (size_t)(s[i++] - '0'), &v);
    }
    size_t mult = 1;
    int c = tolower((unsigned char)s[i]);
    if (i && (c == 'k' || c == 'm' || c == 'g')) {
        mult = c == 'k' ? 1u << 10 : c == 'm' ? 1u << 20 : 1u << 30;
        i++;
    }
    if (i && (s[i] == 'b' || s[i] == 'B'))
        i++;
    overflow |= __builtin_mul_overflow(v, mult, &v);
    int valid = i > 0 && s[i] == '\0' && !overflow && isdigit((unsigned char)s[0]);
    FUZZ_CHECK(valid == (rc == 0));
    if (valid)
        FUZZ_CHECK(got == v);
}

static void clear_env(void)
{
    for (size_t i = 0; i < nrows(); i++)
        unsetenv(row_at(i)->name);
    unsetenv("RDMPI_FUZZ_UNKNOWN");
}

static void load(core_config_t *r)
{
    core_config_fini(r);
    FUZZ_CHECK(rt_config_register(r) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    if (!reg.nslots)
        load(&reg);
    size_t n = nrows();
    char *copy = malloc(size + 1);
    FUZZ_CHECK(copy);
    memcpy(copy, data, size);
    copy[size] = '\0';
    clear_env();
    size_t pos = 0;
    while (pos + 1 <= size) {
        uint8_t row = (uint8_t)copy[pos];
        const char *val = copy + pos + 1;
        pos += 1 + strlen(val) + 1;
        check_size(val);
        setenv(row == 0xff ? "RDMPI_FUZZ_UNKNOWN" : row_at(row % n)->name, val, 1);
    }
    load(&reg);
    FUZZ_CHECK(nrows() == n);
    for (size_t i = 0; i < n; i++)
        check_row(field_at(&reg, i), row_at(i));
    /* What rdmpi_info shows is read back as the same value. */
    core_config_t again = { .nslots = 0 };
    char shown[256];
    for (size_t i = 0; i < n; i++) {
        core_config_param_t p;
        core_config_param(&reg, i, &p);
        if (p.row->type == CORE_CFG_EXTERNAL)
            continue;
        core_config_format(&p, shown, sizeof(shown));
        setenv(p.row->name, shown, 1);
    }
    load(&again);
    for (size_t i = 0; i < n; i++) {
        const core_config_row_t *r = row_at(i);
        if (r->type == CORE_CFG_EXTERNAL)
            continue;
        const void *a = field_at(&reg, i), *b = field_at(&again, i);
        if (r->type == CORE_CFG_STRING) {
            FUZZ_CHECK(!strcmp(a, b));
        } else {
            double va = value_of(a, r), vb = value_of(b, r);
            /* "%g" keeps 6 significant digits */
            FUZZ_CHECK(r->type == CORE_CFG_DOUBLE ? fabs(va - vb) <= 1e-5 * fabs(va) : va == vb);
        }
    }
    core_config_fini(&again);
    clear_env();
    free(copy);
    return 0;
}

#ifdef FUZZ_SEEDS
static size_t row_of(const char *name)
{
    if (!reg.nslots)
        load(&reg);
    long i = core_config_find(&reg, name);
    if (i < 0)
        abort();
    return (size_t)i;
}

/* Pairs of (name, value), NULL-ended, as one seed. */
static void seed(const char *file, const char *const *kv)
{
    fuzz_buf_t b = { 0 };
    for (int i = 0; kv[i]; i += 2) {
        fuzz_put_u8(&b, kv[i][0] == '?' ? 0xff : (uint8_t)row_of(kv[i]));
        fuzz_put(&b, kv[i + 1], strlen(kv[i + 1]) + 1);
    }
    fuzz_seed(file, b.p, b.len);
    free(b.p);
}

void fuzz_make_seeds(void)
{
    seed("sizes", (const char *[]){ "RDMPI_SHM_EAGER_LIMIT", "16k", "RDMPI_TCP_QUEUE_LIMIT", "4MB",
                                    "RDMPI_VERBS_RCACHE_MAX", "2G", "RDMPI_VERBS_FP_SIZE", "4096",
                                    NULL });
    seed("enums-bools", (const char *[]){ "RDMPI_LOG_LEVEL", "DEBUG", "RDMPI_VERBS_MODE", "rc",
                                          "RDMPI_SHM_CMA", "off", "RDMPI_VERBS_RCACHE", "yes",
                                          "RDMPI_RNDV_PROTO", "pipelined", NULL });
    seed("numbers", (const char *[]){ "RDMPI_SPIN_COUNT", "100", "RDMPI_WAIT_SLEEP", "-1",
                                      "RDMPI_VERBS_UD_RTO", "0.005", "RDMPI_VERBS_UD_WINDOW", "32767",
                                      "RDMPI_VERBS_GID_INDEX", "-1", NULL });
    seed("strings", (const char *[]){ "RDMPI_TRANSPORTS", "self,tcp", "RDMPI_TCP_IF", "10.1.0.0/16",
                                      "RDMPI_VERBS_DEVICE", "rxe0:1", "?", "x", NULL });
    seed("bad-values", (const char *[]){ "RDMPI_SHM_EAGER_LIMIT", " -1", "RDMPI_VERBS_RQ_SIZE",
                                         "4294967297", "RDMPI_WAIT_WARN", "nan",
                                         "RDMPI_VERBS_UD_DROP", "2", "RDMPI_VERBS_RC_TIMEOUT", "99",
                                         "RDMPI_TCP_SOCKBUF", "99999999999999999999k", NULL });
}
#endif
