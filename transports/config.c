/*
 * The transports layer's settings (which transports to use) and the list of
 * every transport's settings group, registered together by
 * tp_config_register. Kept apart from registry.c (no code, only tables) so
 * that rdmpi_info can list the settings without linking the transports.
 */
#include "config.h"
#include <stddef.h>
#include "transports/transport.h"

#define OFF(f) offsetof(tp_config_t, f)

static const core_config_row_t rows[] = {
    { "RDMPI_TRANSPORTS", CORE_CFG_STRING, "self,shm,verbs,tcp",
      "transports allowed, in order of preference", OFF(transports),
      sizeof(((tp_config_t *)0)->transports), NULL },
};

const core_config_group_t tp_config_group = {
    "transports", rows, sizeof(rows) / sizeof(rows[0]), sizeof(tp_config_t)
};

extern const core_config_group_t tp_shm_config_group;
#ifdef RDMPI_HAVE_VERBS
extern const core_config_group_t tp_verbs_config_group;
#endif
extern const core_config_group_t tp_tcp_config_group;

static const core_config_group_t *const groups[] = {
    &tp_config_group,
    &tp_shm_config_group,
#ifdef RDMPI_HAVE_VERBS
    &tp_verbs_config_group,
#endif
    &tp_tcp_config_group,
};

int tp_config_register(core_config_t *reg)
{
    for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
        if (!core_config_add(reg, groups[i]))
            return CORE_ENOMEM;
    return 0;
}
