/*
 * MPI_THREAD_MULTIPLE: the library's critical section.
 *
 * When MULTIPLE is granted, every MPI_* entry point runs inside one lock
 * (API_ENTER, src/api/api.h), taken once per thread (calls made from inside
 * the library, such as a user callback's, nest). A thread blocked in a call
 * (Wait, Recv, a collective) polls for everyone while it holds the lock; between
 * two polls, when another thread sleeps in the lock (an entry point, or a blocked
 * call taking it back), it leaves the lock, waits until that thread got it, and
 * sleeps in the lock itself (core_cs_pause from core_wait_idle); meanwhile it
 * watches its own request's completion flag, published with release ordering by
 * core_req_complete: once another thread's progress completed that request, it stops
 * deferring and queues for the lock at once, to hand the status out. A thread waiting for
 * one request (core_wait_req) that finds another driving the progress engine sleeps outside
 * the lock instead, on its request's bell, until the request completes or the engine is free
 * (core_cs_engine_claim, core_cs_sleep). So several blocking calls never deadlock, a message from one thread to
 * another in the same process gets delivered, and whichever thread holds the lock
 * progresses for all. Without MULTIPLE, cs.on is 0 and the entry points test
 * that one flag: SINGLE, FUNNELED and SERIALIZED pay one load and one branch
 * per call.
 *
 * This serializes most of the library's work (one thread progresses or posts at a
 * time). Of the split of issue 21 item 3, the matching lock of each context and the send
 * lock of each peer are built: MPI_Irecv posts under the first without this section,
 * MPI_Send/MPI_Isend send eager messages under the second, Wait/Test/Waitall/Recv hand
 * out completed point-to-point requests without it, and Wait/Waitall/Recv wait for
 * point-to-point requests without it over shm, driving the progress engine P outside the
 * section or asleep outside it (core_wait_req_outside; ARCHITECTURE.md, "Threads": the lock
 * order, what keeps this section, what is left).
 */
#ifndef RDMPI_CORE_THREAD_H
#define RDMPI_CORE_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "core/lock.h"

/* A thread asleep outside the section until its request completes or the progress engine is
 * free (core_cs_sleep): on its own stack, linked into the section's list while it sleeps. */
typedef struct core_cs_sleeper {
    _Atomic uint32_t *bell;    /* the futex word it sleeps on: its request's bell */
    struct core_cs_sleeper *next;
    const volatile int *done;  /* its request's completion flag (outside sleepers) */
} core_cs_sleeper_t;

typedef struct core_cs {
    int on;                    /* MULTIPLE granted: set by MPI_Init, read-only afterwards */
    int progressing;           /* a pass of the progress engine is under way (under the
                                * section): core_cs_usleep keeps the section then */
    core_lock_t lock;          /* G (core/lock.h: a futex word, cheaper than a mutex) */
    atomic_int waiters;        /* threads asleep in the lock (core_cs_pause hands over) */
    atomic_uint handovers;     /* acquisitions after a wait (core_cs_pause waits for one) */
    /* P, the progress engine (ARCHITECTURE.md, "Threads"): the thread that polls the
     * transports' consumer side, one at a time. Taken only by trylock (compare-and-swap),
     * recursively by its holder (a handler that waits polls again: a per-thread depth), with
     * or without the section: a thread outside the section drives it for the point-to-point
     * waits (core_wait_req_outside), a thread inside for every other wait and pass. A thread
     * that holds P never blocks on anything (the section included): it leaves P before it
     * takes the section, so the order is G -> P and no thread holding the section waits for
     * P either (it skips the poll or sleeps outside the section). */
    atomic_int engine;
    /* A thread inside the section found P taken by another (a poll it skipped, a wait that
     * sleeps): the holder outside the section leaves P at its next look, so that work only
     * the section may do (the handlers of the layers that keep it, the hooks) is not held
     * up by a pass that defers it. Relaxed: a stale value costs one more look. */
    atomic_int g_wants;
    core_cs_sleeper_t *sleepers; /* threads asleep in core_cs_sleep (inside the section) */
    atomic_int nsleepers;      /* how many: read by the engine's holder outside the section */
    /* Threads waiting outside the section for a request while another holds P
     * (core_cs_sleep_outside), under their own lock Q (a leaf: nothing is taken inside it);
     * whoever leaves P rings the first of them to take the engine over. */
    pthread_mutex_t osleep_lock;
    core_cs_sleeper_t *osleepers;
    atomic_int nosleepers;
    /* Threads waiting outside the section for a request while another holds P, asleep or
     * not (core_wait_req_outside): the holder lets them run between passes. */
    atomic_int nowaiting;
    /* Completions of outside sleepers' requests whose ring the engine's holder held back
     * (core_cs_defer_ring): it rings them once it idles (core_cs_ring_deferred). */
    atomic_int ndeferred;
    /* Threads that made point-to-point calls from outside the section (core_cs_note_thread):
     * from 2 on, MPI_Recv posts and waits outside it on any communicator. */
    atomic_int nthreads;
} core_cs_t;

void core_cs_init(core_cs_t *cs, int on);
void core_cs_destroy(core_cs_t *cs);
/* Enters (or nests in) the critical section; core_cs_exit leaves one level. */
void core_cs_enter(core_cs_t *cs);
void core_cs_exit(core_cs_t *cs);
/* Called by a blocked call between two polls: when another thread sleeps in the lock, hands
 * the section over to it and waits for it again; stops waiting for the handover once *done
 * (the completion flag of the request the caller waits for, or NULL) is set. */
void core_cs_pause(core_cs_t *cs, const volatile int *done);
/* Sleeps us microseconds outside the critical section (re-entered after, at the same
 * depth): for the calls that poll something outside the library (a port's requests,
 * another job's PMIx data) while the other threads go on. Inside a pass of the progress
 * engine (a handler that meets a new peer and waits for its address) it sleeps holding the
 * section: another thread's progress would run beside a pass that is half done. */
void core_cs_usleep(core_cs_t *cs, unsigned us);
/* For a call that blocks outside the library (a PMIx call that waits for another job): leaves
 * the critical section as core_cs_usleep does (not inside a pass of progress, where it is
 * kept) and returns whether it left; core_cs_return(cs, left) takes it back at the same
 * depth. The caller must be at a point where other threads may run. */
int core_cs_leave(core_cs_t *cs);
void core_cs_return(core_cs_t *cs, int left);
/* The progress engine P (progress by trylock): a thread waiting for one request either
 * drives progress for everyone (claim returns 1; it leaves with core_cs_engine_leave) or,
 * when another thread does, sleeps outside the section until its request completes or the
 * engine is free (core_cs_sleep). So N waiting threads do not queue for the section after
 * every poll. Claimed by compare-and-swap, inside the section or outside it; recursive for
 * its holder. core_cs_engine_leave called inside the section rings a sleeper to take the
 * engine over; outside it (core_cs_engine_leave_outside) the section is entered for that
 * only when threads sleep. core_cs_engine_drop leaves one level of a single pass's claim
 * (core_progress inside the section) without ringing anyone. */
int core_cs_engine_claim(core_cs_t *cs);
void core_cs_engine_leave(core_cs_t *cs);
void core_cs_engine_leave_outside(core_cs_t *cs);
void core_cs_engine_drop(core_cs_t *cs);
/* Leaves P outside the section without ringing the sleepers outside it (the holder's own
 * request completed, and its thread likely takes P again at once; they wake by their bounded
 * sleep otherwise). */
void core_cs_engine_leave_quiet(core_cs_t *cs);
/* Whether a completion may leave its sleeper outside the section unrung for now: this thread
 * holds P in a pass outside the section (it counts the completion in ndeferred and rings it
 * with core_cs_ring_deferred when it idles or leaves without its own request complete). */
int core_cs_defer_ring(void);
/* Completions deferred so (ndeferred) beyond which they ring at once again (core_req_complete):
 * one pending request per other thread of osu_latency_mt 4:4 stays under it. */
#define CORE_CS_DEFER_MAX 4
/* Rings every sleeper outside the section whose request completed, if any ring was deferred. */
void core_cs_ring_deferred(core_cs_t *cs);
/* Whether this thread holds P. */
int core_cs_engine_mine(void);
/* A pass of the progress engine without the section (core_wait_req_outside) is under way in
 * this thread: handlers that need the section refuse the message for now (CORE_EBUSY, left
 * in the channel: core_cs_pass_defer), and the pass ends. Set and read by the same thread. */
int core_cs_pass_outside(void);
void core_cs_pass_set_outside(int on);
/* Outside the section, while another thread holds P: sleeps on *bell (rung when the request
 * completes, *flag saying "asleep" as for core_cs_sleep) until *done is set or P is free,
 * or about a second went by (the caller looks at its diagnostics and sleeps again). */
void core_cs_sleep_outside(core_cs_t *cs, _Atomic uint32_t *bell, const volatile int *done,
                           uint8_t *flag);
/* Leaving a wait outside the section without P: rings the first sleeper outside when P is
 * free (the one rung for it may have found its own request complete and left). */
void core_cs_wait_done_outside(core_cs_t *cs);
/* Counts this thread's MPI_Test calls that would poll outside the section: 0 on every
 * every-th (that one polls inside it, where what only a pass inside may do moves on). */
int core_cs_test_turn(unsigned every);
/* Counts this thread once among those calling point-to-point operations from outside the
 * section; returns how many have. */
int core_cs_note_thread(core_cs_t *cs);
/* A handler in an outside pass leaves its message for a pass that holds the section; the
 * waiter reads (and clears) it with core_cs_pass_deferred. */
void core_cs_pass_defer(void);
int core_cs_pass_deferred(void);
/* The same without clearing it (the poller ending its pass). */
int core_cs_pass_deferring(void);
/* Inside the section, with another thread holding the engine: leaves the section and sleeps
 * on *bell (the request's, rung by core_cs_ring when it completes) until *done is set or
 * the engine is free (or about a second went by, as core_cs_sleep_outside), then takes the
 * section back. *flag says "asleep" to the completer. */
void core_cs_sleep(core_cs_t *cs, _Atomic uint32_t *bell, const volatile int *done,
                   uint8_t *flag);
/* The engine, after a poll that handled something: when threads sleep (one of them may have
 * been rung), leaves the section and the CPU for a moment so that a rung thread takes the
 * section at once instead of queueing in the mutex (a second sleep and wake-up). */
void core_cs_let_sleepers(core_cs_t *cs);
/* Wakes the thread that sleeps on bell (a request completed, or the engine is free). */
void core_cs_ring(_Atomic uint32_t *bell);
/* Leaving a wait with no engine: wakes one sleeper to take it over (a sleeper woken for
 * that may have found its own request complete and left instead). */
static inline void core_cs_wait_done(core_cs_t *cs)
{
    if (cs->sleepers && !atomic_load_explicit(&cs->engine, memory_order_seq_cst))
        core_cs_ring(cs->sleepers->bell);
}
/* This thread holds the critical section. */
int core_cs_held(void);
/* Enters (or nests in) the section only if it is free: 1 when entered (leave with
 * core_cs_exit). For the holder of P outside the section, which may not block on it. */
int core_cs_try_enter(core_cs_t *cs);
/* Whether a point-to-point entry point (API_ENTER_P2P) is called under MULTIPLE from outside
 * the section. */
static inline int core_cs_outside(const core_cs_t *cs)
{
    return __builtin_expect(cs->on, 0) && !core_cs_held();
}

#endif
