/*
 * The critical section of MPI_THREAD_MULTIPLE (see thread.h).
 */
#include <sched.h>
#include <unistd.h>
#include "core/futex.h"
#include "core/thread.h"

/* How deeply this thread is nested in the critical section: per thread by nature. Read at
 * every entry point under MULTIPLE: initial-exec makes that one load off the thread pointer
 * instead of a call to __tls_get_addr (5% of a 2-thread message-rate profile); the cost is 4
 * bytes of the static TLS block, which glibc keeps spare room in for libraries dlopened later. */
static _Thread_local int cs_depth __attribute__((tls_model("initial-exec")));
/* How deeply this thread holds P, the progress engine (a handler that waits polls again), and
 * whether its pass runs outside the section (what a handler there had to leave for a pass
 * inside it: pass_deferred). Per thread by nature, as cs_depth. */
static _Thread_local int engine_depth __attribute__((tls_model("initial-exec")));
static _Thread_local int pass_outside __attribute__((tls_model("initial-exec")));
static _Thread_local int pass_deferred __attribute__((tls_model("initial-exec")));
/* MPI_Test calls of this thread that asked for a pass outside the section (core_cs_test_turn). */
static _Thread_local unsigned test_turns __attribute__((tls_model("initial-exec")));
/* This thread was counted by core_cs_note_thread (in the section instance of that epoch). */
static _Thread_local const core_cs_t *noted __attribute__((tls_model("initial-exec")));

void core_cs_init(core_cs_t *cs, int on)
{
    cs->on = on;
    atomic_init(&cs->lock.word, 0);
    atomic_init(&cs->waiters, 0);
    atomic_init(&cs->handovers, 0);
    atomic_init(&cs->engine, 0);
    atomic_init(&cs->g_wants, 0);
    atomic_init(&cs->nsleepers, 0);
    cs->sleepers = NULL;
    pthread_mutex_init(&cs->osleep_lock, NULL);
    cs->osleepers = NULL;
    atomic_init(&cs->nosleepers, 0);
    atomic_init(&cs->nowaiting, 0);
    atomic_init(&cs->ndeferred, 0);
    atomic_init(&cs->nthreads, 0);
}

void core_cs_destroy(core_cs_t *cs)
{
    pthread_mutex_destroy(&cs->osleep_lock);
    cs->on = 0;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    sched_yield();
#endif
}

static void lock(core_cs_t *cs)
{
    if (core_lock_try(&cs->lock))
        return;
    atomic_fetch_add(&cs->waiters, 1);
    core_lock_lock(&cs->lock);
    atomic_fetch_sub(&cs->waiters, 1);
    atomic_fetch_add(&cs->handovers, 1);
}

void core_cs_enter(core_cs_t *cs)
{
    if (cs_depth++ == 0)
        lock(cs);
}

void core_cs_exit(core_cs_t *cs)
{
    if (--cs_depth == 0)
        core_lock_unlock(&cs->lock);
}

int core_cs_held(void)
{
    return cs_depth > 0;
}

int core_cs_try_enter(core_cs_t *cs)
{
    if (cs_depth > 0) {
        cs_depth++;
        return 1;
    }
    if (!core_lock_try(&cs->lock))
        return 0;
    cs_depth = 1;
    return 1;
}

/* Between two polls of a blocked call (see thread.h). The other thread sleeps in the mutex:
 * waking it costs a futex call, so the section is handed over only to such a thread, and
 * this one then sleeps there too (spinning for it, with trylock, was measured 13x slower
 * with two thread pairs on this 2-core machine: every poll became a handover, and the
 * spinning threads took the cores from the ranks that had work). */
void core_cs_pause(core_cs_t *cs, const volatile int *done)
{
    if (cs_depth == 0 || atomic_load_explicit(&cs->waiters, memory_order_relaxed) == 0)
        return;
    unsigned seen = atomic_load(&cs->handovers);
    core_lock_unlock(&cs->lock);
    /* The mutex is not fair: without waiting for the other thread to get it, this one
     * would usually take it straight back. Bounded, in case the waiter was leaving; cut
     * short once the caller's request completed (published with release by whoever
     * progressed it): then only the section itself is left to wait for. */
    for (int i = 0; i < 64 && atomic_load(&cs->handovers) == seen; i++) {
        if (done && __atomic_load_n(done, __ATOMIC_ACQUIRE))
            break;
        sched_yield();
    }
    lock(cs);
}

int core_cs_leave(core_cs_t *cs)
{
    int held = cs->on && cs_depth > 0 && !cs->progressing;
    if (held)
        core_lock_unlock(&cs->lock);
    return held;
}

void core_cs_return(core_cs_t *cs, int left)
{
    if (left)
        lock(cs);
}

void core_cs_usleep(core_cs_t *cs, unsigned us)
{
    int left = core_cs_leave(cs);
    usleep(us);
    core_cs_return(cs, left);
}

int core_cs_engine_claim(core_cs_t *cs)
{
    if (engine_depth > 0) {
        engine_depth++;
        return 1;
    }
    /* Acquire, against the last holder's release: the consumer side of every channel (the
     * shm rings' tails, the sockets' buffers) is P's, whichever thread held it last. */
    int free_ = 0;
    if (atomic_load_explicit(&cs->engine, memory_order_relaxed) != 0 ||
        !atomic_compare_exchange_strong_explicit(&cs->engine, &free_, 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return 0;
    engine_depth = 1;
    return 1;
}

/* After P was left (seq_cst store): the first thread asleep outside the section takes it
 * over. Q is held across the ring: the sleeper unlinks itself (its record is on its stack)
 * under Q. seq_cst read against core_cs_sleep_outside's count and then its read of P. */
static void ring_outside(core_cs_t *cs)
{
    if (atomic_load_explicit(&cs->nosleepers, memory_order_seq_cst) == 0)
        return;
    pthread_mutex_lock(&cs->osleep_lock);
    if (cs->osleepers)
        core_cs_ring(cs->osleepers->bell);
    pthread_mutex_unlock(&cs->osleep_lock);
}

void core_cs_engine_drop(core_cs_t *cs)
{
    if (--engine_depth == 0) {
        atomic_store_explicit(&cs->engine, 0, memory_order_seq_cst);
        ring_outside(cs);
    }
}

void core_cs_engine_leave(core_cs_t *cs)
{
    if (--engine_depth > 0)
        return;
    /* seq_cst (a release at least: P's data): a sleeper registered inside the section (so in
     * the list below) reads the bell and then the engine; the ring's increment comes after
     * this store, so a sleeper that reads the rung bell sees the engine free, and one that
     * read it before sleeps on a value the ring has changed. */
    atomic_store_explicit(&cs->engine, 0, memory_order_seq_cst);
    if (cs->sleepers)
        core_cs_ring(cs->sleepers->bell);
    ring_outside(cs);
}

/* After P was left (seq_cst store): rings the first sleeper of G's list, inside the section
 * (the list is the section's), unless none is counted or P was taken again meanwhile. */
static void ring_g_sleeper(core_cs_t *cs)
{
    if (atomic_load_explicit(&cs->nsleepers, memory_order_seq_cst) == 0)
        return;
    core_cs_enter(cs);
    if (cs->sleepers && !atomic_load_explicit(&cs->engine, memory_order_relaxed))
        core_cs_ring(cs->sleepers->bell);
    core_cs_exit(cs);
}

/* As core_cs_engine_leave_outside, without ringing the sleepers outside the section: they
 * wake by their bounded sleep (SLEEP_OUTSIDE_MAX) when no thread takes P again by then. */
void core_cs_engine_leave_quiet(core_cs_t *cs)
{
    if (--engine_depth > 0)
        return;
    atomic_store_explicit(&cs->engine, 0, memory_order_seq_cst);
    ring_g_sleeper(cs);
}

void core_cs_engine_leave_outside(core_cs_t *cs)
{
    if (--engine_depth > 0)
        return;
    /* seq_cst, against core_cs_sleep's count of sleepers and then its read of the engine:
     * either it sees the engine free or we see it counted and ring it, inside the section
     * (the list is the section's). P is left before the section is taken (G -> P). */
    atomic_store_explicit(&cs->engine, 0, memory_order_seq_cst);
    ring_outside(cs);
    ring_g_sleeper(cs);
}

int core_cs_engine_mine(void)
{
    return engine_depth > 0;
}

int core_cs_pass_outside(void)
{
    return pass_outside;
}

void core_cs_pass_set_outside(int on)
{
    pass_outside = on;
}

void core_cs_pass_defer(void)
{
    pass_deferred = 1;
}

int core_cs_pass_deferring(void)
{
    return pass_deferred;
}

int core_cs_pass_deferred(void)
{
    int d = pass_deferred;
    pass_deferred = 0;
    return d;
}

int core_cs_defer_ring(void)
{
    return pass_outside && engine_depth > 0;
}

void core_cs_ring_deferred(core_cs_t *cs)
{
    if (!atomic_exchange_explicit(&cs->ndeferred, 0, memory_order_seq_cst))
        return;
    pthread_mutex_lock(&cs->osleep_lock);
    for (core_cs_sleeper_t *s = cs->osleepers; s; s = s->next)
        if (__atomic_load_n(s->done, __ATOMIC_ACQUIRE))
            core_cs_ring(s->bell);
    pthread_mutex_unlock(&cs->osleep_lock);
}

void core_cs_ring(_Atomic uint32_t *bell)
{
    atomic_fetch_add(bell, 1);
    core_futex_wake(bell, 1);
}

/* Polls this many times before sleeping: a futex sleep and wake-up cost a few microseconds,
 * more than a message between two threads' ranks takes when the cores are free; longer
 * spinning takes the core from the engine on a machine with fewer cores than threads. */
#define SLEEP_SPINS 64
/* A sleep is bounded all the same (a missed ring would cost this much, not a hang). */
#define SLEEP_MAX 0.01
/* Sleeps of SLEEP_MAX before the sleeper returns to its caller whatever happened (about a
 * second): a waiter long asleep looks at its stuck-call diagnostics then (RDMPI_WAIT_WARN,
 * core_wait_asleep) and sleeps again. */
#define SLEEP_ROUNDS 100
/* A sleeper outside the section is not always rung: the engine's holder defers the ring of a
 * completed request (core_cs_defer_ring) and leaves P without ringing when its own request
 * completed (core_cs_engine_leave_quiet). Its sleeps are shorter, so that a completion or a
 * free engine nobody rings costs at most this much (1 ms: 3 ms measured the same, 50-200 us
 * woke the sleepers often enough to make them take turns with the running pair again). */
#define SLEEP_OUTSIDE_MAX 0.001

/* The sleep of core_cs_sleep and core_cs_sleep_outside: spins a little, then sleeps on the
 * bell (each sleep bounded) until the request is done or the engine is free. */
static void sleep_on_bell(core_cs_t *cs, _Atomic uint32_t *bell, const volatile int *done,
                          double max)
{
    int rounds = (int)(SLEEP_ROUNDS * SLEEP_MAX / max);
    for (int i = 0; i < SLEEP_SPINS + rounds; i++) {
        uint32_t rung = atomic_load(bell);
        if (__atomic_load_n(done, __ATOMIC_SEQ_CST) ||
            !atomic_load_explicit(&cs->engine, memory_order_seq_cst))
            break;
        if (i < SLEEP_SPINS)
            cpu_relax();
        else
            core_futex_wait(bell, rung, max);
    }
}

void core_cs_sleep(core_cs_t *cs, _Atomic uint32_t *bell, const volatile int *done,
                   uint8_t *flag)
{
    core_cs_sleeper_t me = { bell, cs->sleepers, done };
    cs->sleepers = &me;
    /* seq_cst, against core_cs_engine_leave_outside's store of the engine and then its read
     * of this count (the engine's holder outside the section rings us through it). */
    atomic_fetch_add_explicit(&cs->nsleepers, 1, memory_order_seq_cst);
    /* seq_cst, against core_req_complete's store of the flag and then its read of ours:
     * either it sees us asleep and rings, or we see the request complete. */
    __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
    core_lock_unlock(&cs->lock);
    sleep_on_bell(cs, bell, done, SLEEP_MAX);
    __atomic_store_n(flag, 0, __ATOMIC_RELAXED);
    /* Woken with the request complete, the engine has just rung us and yields the section
     * (core_cs_let_sleepers): a few trylocks spare a second sleep, in the mutex. */
    for (int i = 0; i < 4; i++) {
        if (core_lock_try(&cs->lock))
            goto unlink;
        sched_yield();
    }
    lock(cs);
unlink:;
    atomic_fetch_sub_explicit(&cs->nsleepers, 1, memory_order_relaxed);
    core_cs_sleeper_t **p = &cs->sleepers;
    while (*p != &me)
        p = &(*p)->next;
    *p = me.next;
}

void core_cs_sleep_outside(core_cs_t *cs, _Atomic uint32_t *bell, const volatile int *done,
                           uint8_t *flag)
{
    core_cs_sleeper_t me = { bell, NULL, done };
    pthread_mutex_lock(&cs->osleep_lock);
    me.next = cs->osleepers;
    cs->osleepers = &me;
    pthread_mutex_unlock(&cs->osleep_lock);
    /* seq_cst: against ring_outside (count, then P) and core_req_complete (flag, then the
     * completion), as in core_cs_sleep */
    atomic_fetch_add_explicit(&cs->nosleepers, 1, memory_order_seq_cst);
    __atomic_store_n(flag, 2, __ATOMIC_SEQ_CST);
    sleep_on_bell(cs, bell, done, SLEEP_OUTSIDE_MAX);
    __atomic_store_n(flag, 0, __ATOMIC_RELAXED);
    pthread_mutex_lock(&cs->osleep_lock);
    core_cs_sleeper_t **p = &cs->osleepers;
    while (*p != &me)
        p = &(*p)->next;
    *p = me.next;
    atomic_fetch_sub_explicit(&cs->nosleepers, 1, memory_order_relaxed);
    pthread_mutex_unlock(&cs->osleep_lock);
}

void core_cs_wait_done_outside(core_cs_t *cs)
{
    if (!atomic_load_explicit(&cs->engine, memory_order_seq_cst))
        ring_outside(cs);
}

int core_cs_test_turn(unsigned every)
{
    return ++test_turns % every != 0;
}

int core_cs_note_thread(core_cs_t *cs)
{
    if (noted == cs)
        return atomic_load_explicit(&cs->nthreads, memory_order_relaxed);
    noted = cs;
    return atomic_fetch_add_explicit(&cs->nthreads, 1, memory_order_relaxed) + 1;
}

void core_cs_let_sleepers(core_cs_t *cs)
{
    if (!cs->sleepers)
        return;
    core_lock_unlock(&cs->lock);
    sched_yield();
    lock(cs);
}
