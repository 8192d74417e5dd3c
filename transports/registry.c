/*
 * The compiled-in transports, in order of preference for a peer, and the
 * report of a refused active message.
 */
#include "config.h"
#include <stddef.h>
#include <stdio.h>
#include "core/runtime.h"
#include "transports/transport.h"

extern const tp_component_t tp_self_component;
extern const tp_component_t tp_shm_component;
#ifdef RDMPI_HAVE_VERBS
extern const tp_component_t tp_verbs_component;
#endif
extern const tp_component_t tp_tcp_component;

const tp_component_t *const tp_components[] = {
    &tp_self_component,
    &tp_shm_component,
#ifdef RDMPI_HAVE_VERBS
    &tp_verbs_component,
#endif
    &tp_tcp_component,
    NULL,
};

void tp_am_refused(tp_iface_t *iface, int peer, unsigned id, int rc)
{
    char why[64];
    const char *what = "message";
    const char *reason = NULL; /* the handler's, in rt->wire_why */
    if (!tp_am_valid(iface->am, id)) {
        snprintf(why, sizeof(why), "handler id %u is not in use", id);
        reason = why;
    } else {
        if (iface->am[id].name)
            what = iface->am[id].name;
        if (rc != CORE_EPROTO) {
            snprintf(why, sizeof(why), "%s", core_strerror(rc));
            reason = why;
        }
    }
    core_wire_fail(iface->rt, peer, iface->name, what, reason);
}
