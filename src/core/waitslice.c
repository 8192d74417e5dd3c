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
 * against 7-11 with the kernel's slice). There a sign is no proof of others: a yield may
 * last while the job's own ranks run, and low-weight neighbours get a core for a slice now
 * and then, yet one slow yield used to make the rank ask for short slices for good; a busy
 * neighbour of the ranks' weight takes the core at nearly every yield. So a crowded job's
 * rank asks at the CROWD_SIGNS-th sign within CROWD_WINDOW. A job whose ranks fit the cores
 * asks at the first: its ranks spin, so signs are rare (a wait found descheduled for 2 ms;
 * 2 ranks among busy loops saw none in some 50 ms spells), and each is someone else's.
 */
#include "core/waitslice.h"

/* 4 signs in 50 ms (3 rounds of OSU 7.4, 8 ranks on 2 cores): as fast as the kernel's slice
 * without neighbours, but among busy loops the ranks took the short slice late and most
 * collectives took ~2x main's time (still under Open MPI's). 2 in 0.1 s, one round: about
 * main's time among busy loops at 8 ranks, some cells 1.5-5x at 4; quiet allreduce 8 B
 * 2.5x the kernel slice's. A first setting, not a tuned one. */
#define CROWD_SIGNS 2
#define CROWD_WINDOW 0.1 /* seconds */

int core_crowd_note(core_crowd_t *c, double now, int crowded)
{
    if (!crowded)
        return 1;
    if (c->count == 0 || now - c->first > CROWD_WINDOW || now < c->first) {
        c->first = now;
        c->count = 0;
    }
    return ++c->count >= CROWD_SIGNS;
}
