/*
 * The critical section of MPI_THREAD_MULTIPLE (see thread.h).
 */
#include <sched.h>
#include <unistd.h>
#include "core/thread.h"

/* How deeply this thread is nested in the critical section: per thread by nature. Read at
 * every entry point under MULTIPLE: initial-exec makes that one load off the thread pointer
 * instead of a call to __tls_get_addr (5% of a 2-thread message-rate profile); the cost is 4
 * bytes of the static TLS block, which glibc keeps spare room in for libraries dlopened later. */
static _Thread_local int cs_depth __attribute__((tls_model("initial-exec")));

void core_cs_init(core_cs_t *cs, int on)
{
    cs->on = on;
    pthread_mutex_init(&cs->lock, NULL);
    atomic_init(&cs->waiters, 0);
    atomic_init(&cs->handovers, 0);
}

void core_cs_destroy(core_cs_t *cs)
{
    if (cs->on)
        pthread_mutex_destroy(&cs->lock);
    cs->on = 0;
}

static void lock(core_cs_t *cs)
{
    if (pthread_mutex_trylock(&cs->lock) == 0)
        return;
    atomic_fetch_add(&cs->waiters, 1);
    pthread_mutex_lock(&cs->lock);
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
        pthread_mutex_unlock(&cs->lock);
}

int core_cs_held(void)
{
    return cs_depth > 0;
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
    pthread_mutex_unlock(&cs->lock);
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

void core_cs_usleep(core_cs_t *cs, unsigned us)
{
    int held = cs->on && cs_depth > 0 && !cs->progressing;
    if (held)
        pthread_mutex_unlock(&cs->lock);
    usleep(us);
    if (held)
        lock(cs);
}
