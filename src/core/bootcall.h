/*
 * The boot layer's PMIx-call lock (bootstrap.c, bootdyn.c; nothing else calls PMIx).
 *
 * libpmix's client is not safe for calls from several threads of one process at once: its
 * shared-memory store (gds_ds21) reported lock errors when two threads of a rank read it
 * together (thread_spawn over verbs, once the critical section G was left around PMIx_Get).
 * So every PMIx call after PMIx_Init runs inside this lock, and libpmix never sees two
 * threads at once.
 *
 * A call that may wait long for another process (the card of a spawned child that has not
 * committed it yet, ~2 s a try; a spawn; the name service) is made without G when the
 * caller may leave it (core_cs_leave: not inside a pass of progress), so the rank's other
 * threads progress meanwhile; under load, holding G there for tens of seconds starved the
 * rank's peers of other jobs into verbs peer timeouts. Any other call takes this lock
 * inside G, waiting at most for one such call of another thread.
 *
 * Lock order: G, then this lock. A thread holding this lock never takes G.
 */
#ifndef RDMPI_CORE_BOOTCALL_H
#define RDMPI_CORE_BOOTCALL_H

#include "core/runtime.h"

typedef struct core_boot_call {
    int left; /* G was left for the call: taken back by core_boot_call_end */
} core_boot_call_t;

void core_boot_lock_init(core_runtime_t *rt);
void core_boot_lock_destroy(core_runtime_t *rt);
/* Before a PMIx call: leaves G if may_leave and G may be left here, then takes the lock. */
void core_boot_call_begin(core_runtime_t *rt, int may_leave, core_boot_call_t *c);
/* After it: releases the lock, then takes G back if it was left. */
void core_boot_call_end(core_runtime_t *rt, core_boot_call_t *c);
/* For PMIx_Abort: the lock if it comes within about a second (another thread may be in a
 * long call); returns whether it was taken (then core_boot_call_end). */
int core_boot_call_try(core_runtime_t *rt, core_boot_call_t *c);

#endif
