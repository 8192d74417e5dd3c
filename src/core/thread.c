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

/* Between two polls of a blocked call: outside the section, spin on the caller's own
 * completion flag and take the section back by trylock (never sleeping in the mutex). */
void core_cs_pause(core_cs_t *cs, const volatile int *done)
{
    if (cs_depth == 0 || atomic_load_explicit(&cs->waiters, memory_order_relaxed) == 0)
        return;
    unsigned seen = atomic_load(&cs->handovers);
    atomic_fetch_add(&cs->waiters, 1);
    pthread_mutex_unlock(&cs->lock);
    /* The mutex is not fair: without waiting for another thread to get it first, this one
     * would usually take it straight back. Bounded, in case the waiter was leaving. Once
     * the caller's request completed (published with release by whoever progressed it),
     * there is nothing left to wait for but the section itself. */
    for (int i = 0;; i++) {
        int handed = atomic_load(&cs->handovers) != seen || i >= 64 ||
                     (done && __atomic_load_n(done, __ATOMIC_ACQUIRE));
        if (handed && pthread_mutex_trylock(&cs->lock) == 0)
            break;
        sched_yield();
    }
    atomic_fetch_sub(&cs->waiters, 1);
    atomic_fetch_add(&cs->handovers, 1);
}

void core_cs_usleep(core_cs_t *cs, unsigned us)
{
    int held = cs->on && cs_depth > 0;
    if (held)
        pthread_mutex_unlock(&cs->lock);
    usleep(us);
    if (held)
        lock(cs);
}
