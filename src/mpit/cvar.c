/*
 * Control variables: every RDMPI_* setting of the registry, by its index in
 * the registry's enumeration (see mpit.h), and the enumerations that give
 * the choices of the ENUM ones. Types: BOOL, INT and ENUM are MPI_INT (an
 * ENUM's value is the index of its choice, as its MPI_T_enum lists them),
 * SIZE is MPI_UNSIGNED_LONG (size_t), DOUBLE is MPI_DOUBLE, STRING and the
 * variables read outside the library are MPI_CHAR strings. A setting the
 * library reads where it uses it (CORE_CFG_LIVE) is writable while the
 * library runs (scope LOCAL, or ALL_EQ when every rank must agree); the
 * others are read once at MPI_Init (READONLY), and the variables of the
 * launcher and the test suite cannot change (CONSTANT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api/api.h"
#include "mpit/mpit.h"
#include "rt/rt.h"

_Static_assert(sizeof(size_t) == sizeof(unsigned long), "SIZE settings are MPI_UNSIGNED_LONG");

#define CVAR_MAGIC 0x63766172u

struct rdmpi_t_cvar_handle {
    unsigned magic;
    int index;
};

static int param(mpit_state_t *st, int i, core_config_param_t *p)
{
    if (i < 0 || i >= st->ncvars || core_config_param(mpit_cfg(st), (size_t)i, p) != 0)
        return MPI_T_ERR_INVALID_INDEX;
    return 0;
}

static int scope_of(const core_config_row_t *r)
{
    if (r->type == CORE_CFG_EXTERNAL)
        return MPI_T_SCOPE_CONSTANT;
    if (!(r->flags & CORE_CFG_LIVE))
        return MPI_T_SCOPE_READONLY;
    return (r->flags & CORE_CFG_SAME) ? MPI_T_SCOPE_ALL_EQ : MPI_T_SCOPE_LOCAL;
}

static int verbosity_of(const core_config_param_t *p)
{
    const char *c = p->component;
    if (!strncmp(p->row->help, "testing:", 8))
        return MPI_T_VERBOSITY_MPIDEV_DETAIL;
    if (!strcmp(p->row->name, "RDMPI_LOG_LEVEL"))
        return MPI_T_VERBOSITY_USER_BASIC;
    if (!strcmp(c, "external"))
        return MPI_T_VERBOSITY_USER_DETAIL;
    if (!strcmp(c, "core") || !strcmp(c, "transports") || !strcmp(c, "p2p") ||
        !strcmp(c, "coll"))
        return MPI_T_VERBOSITY_TUNER_BASIC;
    return MPI_T_VERBOSITY_TUNER_DETAIL;
}

static MPI_Datatype type_of(const core_config_row_t *r, int *count)
{
    *count = 1;
    switch (r->type) {
    case CORE_CFG_SIZE: return MPI_UNSIGNED_LONG;
    case CORE_CFG_DOUBLE: return MPI_DOUBLE;
    case CORE_CFG_STRING: *count = (int)r->size; return MPI_CHAR;
    case CORE_CFG_EXTERNAL: *count = MPIT_EXT_LEN; return MPI_CHAR;
    default: return MPI_INT;
    }
}

/* The description: the row's help, its bounds and default, and when it may change. */
static void describe(const core_config_param_t *p, char *buf, size_t len)
{
    const core_config_row_t *r = p->row;
    int n = snprintf(buf, len, "%s", r->help);
    if (r->min != 0 || r->max != 0)
        n += snprintf(buf + n, len > (size_t)n ? len - n : 0, " [bounds: %g to %g]", r->min,
                      r->max);
    n += snprintf(buf + n, len > (size_t)n ? len - n : 0, " [default: \"%s\"]", r->defval);
    const char *when = r->type == CORE_CFG_EXTERNAL ? " [read outside the library]"
                       : !(r->flags & CORE_CFG_LIVE) ? " [read at MPI_Init: not writable]"
                       : (r->flags & CORE_CFG_SAME)
                           ? " [writable while the library runs; the same value on every rank]"
                           : " [writable while the library runs]";
    snprintf(buf + n, len > (size_t)n ? len - n : 0, "%s", when);
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    if (!num_cvar)
        return MPI_T_ERR_INVALID;
    *num_cvar = st->ncvars;
    return MPI_SUCCESS;
}
int MPI_T_cvar_get_num(int *num_cvar) API_ALIAS(MPI_T_cvar_get_num);

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    core_config_param_t p;
    int rc = param(st, cvar_index, &p);
    if (rc)
        return rc;
    char text[1024];
    int count;
    describe(&p, text, sizeof(text));
    mpit_put_str(p.row->name, name, name_len);
    mpit_put_str(text, desc, desc_len);
    if (verbosity)
        *verbosity = verbosity_of(&p);
    if (datatype)
        *datatype = type_of(p.row, &count);
    if (enumtype)
        *enumtype = st->enums[cvar_index].row ? &st->enums[cvar_index] : MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = scope_of(p.row);
    return MPI_SUCCESS;
}
int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                        int *bind, int *scope) API_ALIAS(MPI_T_cvar_get_info);

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    if (!name || !cvar_index)
        return MPI_T_ERR_INVALID;
    long i = core_config_find(mpit_cfg(st), name);
    if (i < 0 || i >= st->ncvars)
        return MPI_T_ERR_INVALID_NAME;
    *cvar_index = (int)i;
    return MPI_SUCCESS;
}
int MPI_T_cvar_get_index(const char *name, int *cvar_index) API_ALIAS(MPI_T_cvar_get_index);

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    (void)obj_handle; /* every variable is bound to no object */
    core_config_param_t p;
    int rc = param(st, cvar_index, &p);
    if (rc)
        return rc;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct rdmpi_t_cvar_handle *h = malloc(sizeof(*h));
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->magic = CVAR_MAGIC;
    h->index = cvar_index;
    type_of(p.row, count);
    *handle = h;
    return MPI_SUCCESS;
}
int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                            int *count) API_ALIAS(MPI_T_cvar_handle_alloc);

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    (void)st;
    if (!handle || !*handle || (*handle)->magic != CVAR_MAGIC)
        return MPI_T_ERR_INVALID_HANDLE;
    (*handle)->magic = 0;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle) API_ALIAS(MPI_T_cvar_handle_free);

static int handle_param(mpit_state_t *st, MPI_T_cvar_handle h, core_config_param_t *p)
{
    if (!h || h->magic != CVAR_MAGIC)
        return MPI_T_ERR_INVALID_HANDLE;
    return param(st, h->index, p);
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    core_config_param_t p;
    int rc = handle_param(st, handle, &p);
    if (rc)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    const core_config_row_t *r = p.row;
    switch (r->type) {
    case CORE_CFG_BOOL:
    case CORE_CFG_INT:
    case CORE_CFG_ENUM: *(int *)buf = *(const int *)p.value; break;
    case CORE_CFG_SIZE: *(unsigned long *)buf = *(const size_t *)p.value; break;
    case CORE_CFG_DOUBLE: *(double *)buf = *(const double *)p.value; break;
    case CORE_CFG_STRING: strcpy(buf, p.value); break;   /* fits: count is the field's size */
    case CORE_CFG_EXTERNAL: {
        const char *env = getenv(r->name);
        snprintf(buf, MPIT_EXT_LEN, "%s", env ? env : r->defval);
        break;
    }
    }
    return MPI_SUCCESS;
}
int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf) API_ALIAS(MPI_T_cvar_read);

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    core_config_param_t p;
    int rc = handle_param(st, handle, &p);
    if (rc)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    const core_config_row_t *r = p.row;
    int scope = scope_of(r);
    if (scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY)
        return MPI_T_ERR_CVAR_SET_NEVER;
    /* Before MPI_Init the value would be lost (MPI_Init reads the environment): say so. */
    if (!mpit_running())
        return MPI_T_ERR_CVAR_SET_NOT_NOW;
    char text[1024];
    switch (r->type) {
    case CORE_CFG_BOOL:
    case CORE_CFG_INT: snprintf(text, sizeof(text), "%d", *(const int *)buf); break;
    case CORE_CFG_ENUM: {
        int v = *(const int *)buf;
        if (v < 0 || v >= st->enums[handle->index].nitems)
            return MPI_T_ERR_INVALID;
        snprintf(text, sizeof(text), "%s", r->choices[v]);
        break;
    }
    case CORE_CFG_SIZE: snprintf(text, sizeof(text), "%lu", *(const unsigned long *)buf); break;
    case CORE_CFG_DOUBLE: snprintf(text, sizeof(text), "%.17g", *(const double *)buf); break;
    case CORE_CFG_STRING:
        if (!memchr(buf, '\0', r->size))
            return MPI_T_ERR_INVALID;
        snprintf(text, sizeof(text), "%s", (const char *)buf);
        break;
    case CORE_CFG_EXTERNAL: return MPI_T_ERR_CVAR_SET_NEVER;
    }
    if (core_config_set(&core_rt->cfg, (size_t)handle->index, text) != 0)
        return MPI_T_ERR_INVALID;
    rt_config_changed(core_rt);
    return MPI_SUCCESS;
}
int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf) API_ALIAS(MPI_T_cvar_write);

/* ---- Enumerations: the choices of an ENUM setting ---------------------------------------- */

static int enum_ok(mpit_state_t *st, MPI_T_enum e)
{
    return e && e >= st->enums && e < st->enums + st->ncvars && e->row;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    if (!enum_ok(st, enumtype))
        return MPI_T_ERR_INVALID_HANDLE;
    if (num)
        *num = enumtype->nitems;
    mpit_put_str(enumtype->row->name, name, name_len);
    return MPI_SUCCESS;
}
int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
    API_ALIAS(MPI_T_enum_get_info);

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    if (!enum_ok(st, enumtype))
        return MPI_T_ERR_INVALID_HANDLE;
    if (index < 0 || index >= enumtype->nitems)
        return MPI_T_ERR_INVALID_ITEM;
    if (value)
        *value = index;
    mpit_put_str(enumtype->row->choices[index], name, name_len);
    return MPI_SUCCESS;
}
int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
    API_ALIAS(MPI_T_enum_get_item);
