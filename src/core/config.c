/*
 * The settings registry (config.h): generic; each component's table lives in
 * the component's own file. Also the base services' own settings.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/config.h"
#include "core/errors.h"
#include "core/log.h"

extern char **environ;

#define OFF(f) offsetof(core_settings_t, f)
#define ORIGIN_MPIT 2 /* core_config_slot.from_env: set through core_config_set */

static const char *const log_levels[] = { "error", "warn", "info", "debug", NULL };
static const char *const yield_modes[] = { "auto", "always", "never", NULL };

static const core_config_row_t core_rows[] = {
    { "RDMPI_LOG_LEVEL", CORE_CFG_ENUM, "warn",
      "messages to print: error, warn, info, debug", OFF(log_level), 0, log_levels, 0, 0,
      CORE_CFG_LIVE },
    { "RDMPI_SPIN_COUNT", CORE_CFG_INT, "50000",
      "progress polls before a blocked call starts yielding the CPU", OFF(spin_count), 0, NULL,
      0, INT_MAX, CORE_CFG_LIVE },
    { "RDMPI_YIELD", CORE_CFG_ENUM, "auto",
      "yield the CPU while waiting: auto (at once when oversubscribed), always, never",
      OFF(yield_mode), 0, yield_modes, 0, 0, CORE_CFG_LIVE },
    { "RDMPI_WAIT_WARN", CORE_CFG_DOUBLE, "60",
      "seconds a blocking call may wait before it reports where it is stuck (0: never)",
      OFF(wait_warn), 0, NULL, 0, 1e9, CORE_CFG_LIVE },
    { "RDMPI_WAIT_SLEEP", CORE_CFG_DOUBLE, "-1",
      "seconds a blocked call polls without result before it sleeps until a message arrives "
      "(only when every transport in use can wake it: self, shm, verbs, tcp); 0: never sleep; "
      "-1: 0.00003 when the node has more ranks than cores, 0.000001 with over two per core "
      "or while yields last 0.5 ms, 0.0001 in a wait that finds its core taken by others (and "
      "RDMPI_YIELD is not never), else 0.01; not 0: a wait "
      "idle for 0.01 s that cannot sleep so (verbs RDMA-write rings) naps 1% of its idle time "
      "between polls",
      OFF(wait_sleep), 0, NULL, -1, 1e9 },
    { "RDMPI_WAIT_SLICE", CORE_CFG_DOUBLE, "-1",
      "seconds of the scheduler time slice (Linux 6.12 or later, EEVDF) a rank asks for once "
      "a blocked call finds other processes on its cores (a yield that lasted 0.5 ms, or "
      "polls descheduled; with more ranks than cores twice in 0.1 s): a rank woken from "
      "its sleep then runs at once instead of after their slice; -1: 0.0001 (RDMPI_YIELD is "
      "not never), 0: keep the kernel's; the kernel takes 0.0001-0.1",
      OFF(wait_slice), 0, NULL, -1, 0.1 },
    { "RDMPI_CONNECT_TIMEOUT", CORE_CFG_DOUBLE, "60",
      "seconds MPI_Comm_connect to a port of another rdmpirun run waits for its acceptor "
      "before failing with MPI_ERR_PORT; also how long the roots of two runs that met (by "
      "accept/connect or join) wait for each other's first word of the context-id agreement "
      "(a root whose last handshake word was lost has failed and left it)", OFF(connect_timeout), 0, NULL, 0.1, 1e6,
      CORE_CFG_LIVE },
    { "RDMPI_ACCEPT_TIMEOUT", CORE_CFG_DOUBLE, "3",
      "seconds a connector of another rdmpirun run has to say hello, and then for its "
      "handshake with an accepting root (which serves the first of its connections to speak, "
      "one handshake at a time: one that stalls mid-handshake holds the others this long)",
      OFF(accept_timeout), 0, NULL, 0.1, 600, CORE_CFG_LIVE },
    { "RDMPI_TEST_XRUN_FAIL", CORE_CFG_INT, "-1",
      "test suite only: the world rank that fails to add another run's processes after the "
      "roots met (MPI_Comm_accept/connect, MPI_Comm_join), as when out of process-table "
      "space; -1: none", OFF(test_xrun_fail), 0, NULL, -1, INT_MAX, CORE_CFG_LIVE },
    { "RDMPI_TEST_XRUN_DROP", CORE_CFG_INT, "-1",
      "test suite only: the world rank (a root of MPI_Comm_accept/connect across runs) whose "
      "connection to the other root breaks after it sent its last word, before it read the "
      "other's; -1: none", OFF(test_xrun_drop), 0, NULL, -1, INT_MAX, CORE_CFG_LIVE },
    { "RDMPI_NAME_SERVER", CORE_CFG_STRING, "",
      "where MPI_Publish_name/Lookup_name keep names: empty, the launcher (one rdmpirun run); "
      "dir:/path, a directory of the user's only (mode 0700), shared by every run given it",
      OFF(name_server), sizeof(((core_settings_t *)0)->name_server), NULL },
};

const core_config_group_t core_settings_group = {
    "core", core_rows, sizeof(core_rows) / sizeof(core_rows[0]), sizeof(core_settings_t)
};

int core_config_parse_size(const char *s, size_t *out)
{
    char *end;
    /* strtoull would also take blanks and a sign, and "-1" as its largest value. */
    if (!isdigit((unsigned char)*s))
        return CORE_EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0)
        return CORE_EINVAL;
    unsigned long long mult = 1;
    switch (tolower((unsigned char)*end)) {
    case 'k': mult = 1ull << 10; end++; break;
    case 'm': mult = 1ull << 20; end++; break;
    case 'g': mult = 1ull << 30; end++; break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || v > SIZE_MAX / mult)
        return CORE_EINVAL;
    *out = (size_t)(v * mult);
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on"))
        *out = 1;
    else if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") ||
             !strcasecmp(s, "off"))
        *out = 0;
    else
        return CORE_EINVAL;
    return 0;
}

static int in_bounds(const core_config_row_t *r, double v)
{
    return (r->min == 0 && r->max == 0) || (v >= r->min && v <= r->max);
}

/* Stores the text value s into the row's field; CORE_EINVAL leaves it alone. */
static int set_value(void *values, const core_config_row_t *r, const char *s)
{
    char *field = (char *)values + r->offset;
    char *end;
    switch (r->type) {
    case CORE_CFG_BOOL:
        return parse_bool(s, (int *)field);
    case CORE_CFG_INT: {
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || *end || errno || v < INT_MIN || v > INT_MAX || !in_bounds(r, (double)v))
            return CORE_EINVAL;
        *(int *)field = (int)v;
        return 0;
    }
    case CORE_CFG_DOUBLE: {
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || *end || errno || !isfinite(v) || !in_bounds(r, v))
            return CORE_EINVAL;
        *(double *)field = v;
        return 0;
    }
    case CORE_CFG_SIZE: {
        size_t v;
        if (core_config_parse_size(s, &v) || !in_bounds(r, (double)v))
            return CORE_EINVAL;
        *(size_t *)field = v;
        return 0;
    }
    case CORE_CFG_STRING:
        if (strlen(s) >= r->size)
            return CORE_EINVAL;
        strcpy(field, s);
        return 0;
    case CORE_CFG_ENUM:
        for (int i = 0; r->choices[i]; i++)
            if (!strcasecmp(s, r->choices[i])) {
                *(int *)field = i;
                return 0;
            }
        return CORE_EINVAL;
    case CORE_CFG_EXTERNAL:
        return 0;
    }
    return CORE_EINVAL;
}

static const struct core_config_slot *slot_of(const core_config_t *reg,
                                              const core_config_group_t *g)
{
    for (int i = 0; i < reg->nslots; i++)
        if (reg->slots[i].group == g)
            return &reg->slots[i];
    return NULL;
}

void *core_config_values(const core_config_t *reg, const core_config_group_t *g)
{
    const struct core_config_slot *s = slot_of(reg, g);
    return s ? s->values : NULL;
}

void *core_config_add(core_config_t *reg, const core_config_group_t *g)
{
    const struct core_config_slot *old = slot_of(reg, g);
    if (old)
        return old->values;
    if (reg->nslots >= CORE_CONFIG_MAX_GROUPS)
        return NULL;
    void *values = calloc(1, g->size ? g->size : 1);
    unsigned char *from_env = calloc(g->nrows ? g->nrows : 1, 1);
    if (!values || !from_env) {
        free(values);
        free(from_env);
        return NULL;
    }
    for (size_t i = 0; i < g->nrows; i++) {
        const core_config_row_t *r = &g->rows[i];
        const char *env = getenv(r->name);
        from_env[i] = env != NULL;
        if (r->type == CORE_CFG_EXTERNAL)
            continue;
        set_value(values, r, r->defval);
        if (env && set_value(values, r, env) != 0) {
            char range[64] = "";
            if (r->min != 0 || r->max != 0)
                snprintf(range, sizeof(range), ", from %g to %g", r->min, r->max);
            core_warn("%s=\"%s\" is not a valid value (%s%s); using the default %s", r->name,
                      env, r->help, range, r->defval);
            set_value(values, r, r->defval);
            from_env[i] = 0;
        }
    }
    struct core_config_slot *s = &reg->slots[reg->nslots++];
    s->group = g;
    s->values = values;
    s->from_env = from_env;
    return values;
}

void core_config_fini(core_config_t *reg)
{
    for (int i = 0; i < reg->nslots; i++) {
        free(reg->slots[i].values);
        free(reg->slots[i].from_env);
    }
    reg->nslots = 0;
}

static int is_known(const core_config_t *reg, const char *name, size_t len)
{
    for (int s = 0; s < reg->nslots; s++)
        for (size_t i = 0; i < reg->slots[s].group->nrows; i++) {
            const char *n = reg->slots[s].group->rows[i].name;
            if (strlen(n) == len && !strncmp(n, name, len))
                return 1;
        }
    return 0;
}

void core_config_check_env(const core_config_t *reg)
{
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "RDMPI_", 6) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (!is_known(reg, *e, len))
            core_warn("unknown variable %.*s ignored (rdmpi_info lists the known ones)", (int)len,
                      *e);
    }
}

size_t core_config_count(const core_config_t *reg)
{
    size_t n = 0;
    for (int s = 0; s < reg->nslots; s++)
        n += reg->slots[s].group->nrows;
    return n;
}

int core_config_param(const core_config_t *reg, size_t i, core_config_param_t *out)
{
    for (int s = 0; s < reg->nslots; s++) {
        const struct core_config_slot *sl = &reg->slots[s];
        if (i >= sl->group->nrows) {
            i -= sl->group->nrows;
            continue;
        }
        out->row = &sl->group->rows[i];
        out->component = sl->group->component;
        out->value = out->row->type == CORE_CFG_EXTERNAL
                         ? NULL
                         : (const char *)sl->values + out->row->offset;
        out->origin = sl->from_env[i] == ORIGIN_MPIT ? "MPI_T"
                      : sl->from_env[i]           ? "environment"
                                                  : "default";
        return 0;
    }
    return CORE_EINVAL;
}

int core_config_set(core_config_t *reg, size_t i, const char *text)
{
    for (int s = 0; s < reg->nslots; s++) {
        struct core_config_slot *sl = &reg->slots[s];
        if (i >= sl->group->nrows) {
            i -= sl->group->nrows;
            continue;
        }
        const core_config_row_t *r = &sl->group->rows[i];
        if (r->type == CORE_CFG_EXTERNAL)
            return CORE_EINVAL;
        /* set_value may store before it finds the value out of bounds: try it on a copy. */
        size_t fsize = r->type == CORE_CFG_STRING ? r->size
                       : r->type == CORE_CFG_SIZE ? sizeof(size_t)
                       : r->type == CORE_CFG_DOUBLE ? sizeof(double)
                                                    : sizeof(int);
        char tmp[1024];
        if (fsize > sizeof(tmp) || r->offset + fsize > sl->group->size)
            return CORE_EINVAL;
        core_config_row_t probe = *r;
        probe.offset = 0;
        if (set_value(tmp, &probe, text) != 0)
            return CORE_EINVAL;
        memcpy((char *)sl->values + r->offset, tmp, fsize);
        sl->from_env[i] = ORIGIN_MPIT;
        return 0;
    }
    return CORE_EINVAL;
}

long core_config_find(const core_config_t *reg, const char *name)
{
    long k = 0;
    for (int s = 0; s < reg->nslots; s++)
        for (size_t i = 0; i < reg->slots[s].group->nrows; i++, k++)
            if (!strcmp(reg->slots[s].group->rows[i].name, name))
                return k;
    return -1;
}

/* The field of setting `name` if it has one of the two types given. */
static const void *typed(const core_config_t *reg, const char *name, enum core_config_type t1,
                         enum core_config_type t2)
{
    core_config_param_t p;
    long i = core_config_find(reg, name);
    if (i < 0 || core_config_param(reg, (size_t)i, &p) != 0 || !p.value ||
        (p.row->type != t1 && p.row->type != t2))
        return NULL;
    return p.value;
}

int core_config_get_int(const core_config_t *reg, const char *name, int *out)
{
    const int *v = typed(reg, name, CORE_CFG_INT, CORE_CFG_BOOL);
    if (!v && !(v = typed(reg, name, CORE_CFG_ENUM, CORE_CFG_ENUM)))
        return CORE_EINVAL;
    *out = *v;
    return 0;
}

int core_config_get_size(const core_config_t *reg, const char *name, size_t *out)
{
    const size_t *v = typed(reg, name, CORE_CFG_SIZE, CORE_CFG_SIZE);
    if (!v)
        return CORE_EINVAL;
    *out = *v;
    return 0;
}

int core_config_get_double(const core_config_t *reg, const char *name, double *out)
{
    const double *v = typed(reg, name, CORE_CFG_DOUBLE, CORE_CFG_DOUBLE);
    if (!v)
        return CORE_EINVAL;
    *out = *v;
    return 0;
}

const char *core_config_get_string(const core_config_t *reg, const char *name)
{
    return typed(reg, name, CORE_CFG_STRING, CORE_CFG_STRING);
}

void core_config_format(const core_config_param_t *p, char *buf, size_t len)
{
    const core_config_row_t *r = p->row;
    const char *field = p->value;
    switch (r->type) {
    case CORE_CFG_BOOL: snprintf(buf, len, "%s", *(const int *)field ? "1" : "0"); break;
    case CORE_CFG_INT: snprintf(buf, len, "%d", *(const int *)field); break;
    case CORE_CFG_DOUBLE: snprintf(buf, len, "%g", *(const double *)field); break;
    case CORE_CFG_SIZE: snprintf(buf, len, "%zu", *(const size_t *)field); break;
    case CORE_CFG_STRING: snprintf(buf, len, "%s", field); break;
    case CORE_CFG_ENUM: snprintf(buf, len, "%s", r->choices[*(const int *)field]); break;
    case CORE_CFG_EXTERNAL: {
        const char *env = getenv(r->name);
        snprintf(buf, len, "%s", env ? env : r->defval);
        break;
    }
    }
}
