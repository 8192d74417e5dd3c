/*
 * The settings registry. Every component declares its own RDMPI_* settings
 * (name, type, default, help, bounds) in a table of its own file, with the
 * struct that holds their values (a group, core_config_group_t), and
 * registers the group with the runtime instance's registry at init: the
 * registry fills the struct from the defaults and the environment (a value
 * out of bounds is refused with a warning and the default is kept), keeps
 * where each value came from, and can enumerate every setting (rdmpi_info,
 * and MPI_T control variables later) and read one by name with its type.
 * Core lists no other component's knob: it only knows groups.
 */
#ifndef RDMPI_CORE_CONFIG_H
#define RDMPI_CORE_CONFIG_H

#include <stddef.h>

enum core_config_type { CORE_CFG_BOOL, CORE_CFG_INT, CORE_CFG_SIZE, CORE_CFG_STRING,
                        CORE_CFG_ENUM, CORE_CFG_DOUBLE, CORE_CFG_EXTERNAL };

typedef struct core_config_row {
    const char *name;
    enum core_config_type type;
    const char *defval;
    const char *help;
    size_t offset;             /* into the group's struct; unused for CORE_CFG_EXTERNAL */
    size_t size;               /* of a string field */
    const char *const *choices; /* CORE_CFG_ENUM: NULL-terminated names, value = index */
    double min, max;           /* INT, SIZE, DOUBLE: the values accepted (both 0: any that fits
                                  the field; a DOUBLE must be finite either way) */
    unsigned flags;            /* CORE_CFG_LIVE, CORE_CFG_SAME */
} core_config_row_t;

/* Row flags. LIVE: its component reads the value where it uses it (or is told by the runtime
 * after a change, rt_config_changed), so it may change while the job runs (MPI_T control
 * variables writable at run time); without it a value is read once at init. SAME: every rank
 * must hold the same value (a collective algorithm): whoever changes it changes it everywhere. */
#define CORE_CFG_LIVE 1u
#define CORE_CFG_SAME 2u

/* One component's settings: its rows and the struct (of `size` bytes) their values land in.
 * CORE_CFG_EXTERNAL rows are read by someone else (the launcher, the test suite): they are
 * known (no warning) and listed, and hold no value. */
typedef struct core_config_group {
    const char *component;     /* "shm", "p2p", "coll", ... */
    const core_config_row_t *rows;
    size_t nrows;
    size_t size;
} core_config_group_t;

#define CORE_CONFIG_MAX_GROUPS 16

/* The registry: one per runtime instance (core_runtime_t.cfg). */
typedef struct core_config {
    struct core_config_slot {
        const core_config_group_t *group;
        void *values;          /* group->size bytes, owned by the registry */
        unsigned char *from_env;   /* per row: the environment set it */
    } slots[CORE_CONFIG_MAX_GROUPS];
    int nslots;
} core_config_t;

/* Adds a group (once; a second call returns the same values): fills its struct from the
 * defaults and the environment, warning about bad values. Returns the values, or NULL when
 * out of memory or slots. */
void *core_config_add(core_config_t *reg, const core_config_group_t *g);
/* The values of a registered group (NULL if it is not). */
void *core_config_values(const core_config_t *reg, const core_config_group_t *g);
/* Warns about RDMPI_* variables no registered group knows (call once all are added). */
void core_config_check_env(const core_config_t *reg);
void core_config_fini(core_config_t *reg);

/* Enumeration, in registration order: index 0 .. core_config_count() - 1. */
typedef struct core_config_param {
    const core_config_row_t *row;   /* name, type, default, help, bounds, choices */
    const char *component;
    const void *value;              /* the field (NULL for CORE_CFG_EXTERNAL) */
    const char *origin;             /* "default", "environment" or "MPI_T" */
} core_config_param_t;
size_t core_config_count(const core_config_t *reg);
int core_config_param(const core_config_t *reg, size_t i, core_config_param_t *out);
/* The index of a setting by name, or -1. */
long core_config_find(const core_config_t *reg, const char *name);
/* Typed reads: CORE_EINVAL when the name is unknown or of another type. BOOL and ENUM
 * read as int (an ENUM's value is the index of its choice). */
int core_config_get_int(const core_config_t *reg, const char *name, int *out);
int core_config_get_size(const core_config_t *reg, const char *name, size_t *out);
int core_config_get_double(const core_config_t *reg, const char *name, double *out);
const char *core_config_get_string(const core_config_t *reg, const char *name);
/* Sets setting i (an index of the enumeration) from text, as the environment would, with the
 * same checks (bounds, choices, length): CORE_EINVAL leaves it alone. Its origin becomes
 * "MPI_T". Whether the change takes effect is the caller's concern (CORE_CFG_LIVE). */
int core_config_set(core_config_t *reg, size_t i, const char *text);
/* Formats a setting's current value. */
void core_config_format(const core_config_param_t *p, char *buf, size_t len);

/* Parses sizes like "16384", "16k", "4M", "1G" (digits first: no sign or
 * blanks; a value that does not fit a size_t is refused). 0 or CORE_EINVAL. */
int core_config_parse_size(const char *s, size_t *out);

/* The base services' own settings (log level, progress and waiting): core_settings_group. */
enum { CORE_YIELD_AUTO = 0, CORE_YIELD_ALWAYS, CORE_YIELD_NEVER };
typedef struct core_settings {
    int log_level;              /* RDMPI_LOG_LEVEL */
    int spin_count;             /* RDMPI_SPIN_COUNT: polls before yielding the CPU */
    int yield_mode;             /* RDMPI_YIELD: auto, always, never */
    double wait_warn;           /* RDMPI_WAIT_WARN: seconds before a blocked call says so */
    double wait_sleep;          /* RDMPI_WAIT_SLEEP: idle seconds before sleeping (0: never) */
    double wait_slice;          /* RDMPI_WAIT_SLICE: the scheduler slice asked for once others'
                                   processes share our cores (-1: auto, 0: never ask) */
    double connect_timeout;     /* RDMPI_CONNECT_TIMEOUT: connect to another run's port */
    double accept_timeout;      /* RDMPI_ACCEPT_TIMEOUT: one connector's handshake */
    int test_xrun_fail;         /* RDMPI_TEST_XRUN_FAIL: test only, -1 or a world rank */
    int test_xrun_drop;         /* RDMPI_TEST_XRUN_DROP: test only, -1 or a world rank */
    char name_server[512];      /* RDMPI_NAME_SERVER: "" or dir:/path */
} core_settings_t;
extern const core_config_group_t core_settings_group;

#endif
