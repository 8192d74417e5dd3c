/*
 * The compiled-in transports, in order of preference for a peer, and the
 * active-message handler table that p2p fills.
 */
#include "config.h"
#include <stddef.h>
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

tp_am_entry_t tp_am_table[TP_AM_MAX];
