/*
 * Malformed messages from peers (see runtime.h): the reason a handler gives,
 * and the one report the transport makes when it gives up on the peer.
 * Kept apart from runtime.c so that unit tests of the handlers can link the
 * first without the bootstrap.
 */
#include <stdarg.h>
#include <stdio.h>
#include "core/runtime.h"

int core_wire_reject(core_runtime_t *rt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->wire_why, sizeof(rt->wire_why), fmt, ap);
    va_end(ap);
    return CORE_EPROTO;
}

void core_wire_fail(core_runtime_t *rt, int peer, const char *tp, const char *what,
                    const char *why)
{
    if (!why)
        why = rt->wire_why[0] ? rt->wire_why : "no reason given";
    /* A dead peer ends the job today (tcp's lost connection, verbs' peer timeout): a
     * peer that breaks the protocol is no better, and nothing pending with it can end. */
    core_fatal("rank %d (host %s) sent a malformed %s over %s: %s; closing the connection",
               peer, core_rank_host(rt, peer), what, tp, why);
}
