/*
 * Short slices only among neighbours that take a fair share of our cores (see waitslice.h).
 *
 * Linux's EEVDF scheduler lets the running task finish its protected slice (1.4 ms on a
 * 2-core host) before a woken one runs, unless the woken one's slice is shorter; a rank
 * with 0.1 ms slices, woken by its partner's message, preempts a busy neighbour at once
 * (OSU 7.4, 4 ranks on 2 cores with a busy loop per core at the ranks' nice: allreduce 8 B
 * 0.5 against 4.6 ms with the kernel's slice). But sched_yield moves the yielder back by
 * one slice of its own only, so with short slices the yields among the job's own ranks,
 * when they outnumber the cores, no longer hand the core to the rank that has work (OSU,
 * 8 ranks on 2 cores, a host whose other processes ran at nice 10: allgather 8 B 17-26 us
 * against 7-11 with the kernel's slice). Such low-weight neighbours get a core for a slice
 * now and then, and one slow yield used to make the rank ask for short slices for good;
 * a busy neighbour of the ranks' weight takes the core at nearly every yield. So the slice
 * is asked for at the CROWD_SIGNS-th sign within CROWD_WINDOW.
 */
#include "core/waitslice.h"

#define CROWD_SIGNS 4
#define CROWD_WINDOW 0.05 /* seconds */

int core_crowd_note(core_crowd_t *c, double now)
{
    if (c->count == 0 || now - c->first > CROWD_WINDOW || now < c->first) {
        c->first = now;
        c->count = 0;
    }
    return ++c->count >= CROWD_SIGNS;
}
