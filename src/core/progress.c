/*
 * The progress engine and the wait policy (see progress.h).
 */
#include <sched.h>
#include <poll.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/progress.h"
#include "core/comm.h"
#include "core/log.h"
#include "core/request.h"
#include "core/runtime.h"
#include "core/waitslice.h"
#include "core/hot.h"
#include "core/procfile.h"


double core_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int core_progress_add_hook(core_runtime_t *rt, core_progress_hook_t fn, void *arg)
{
    if (rt->nhooks >= CORE_MAX_HOOKS)
        core_fatal("internal error: more than %d progress hooks", CORE_MAX_HOOKS);
    rt->hooks[rt->nhooks] = fn;
    rt->hook_args[rt->nhooks] = arg;
    return rt->nhooks++;
}

int core_progress_add_poller(core_runtime_t *rt, int (*fn)(void *arg), void *arg,
                             int (*outside)(void *arg), int (*unread)(void *arg))
{
    if (rt->npollers >= CORE_MAX_POLLERS)
        return CORE_ENOMEM;
    rt->pollers[rt->npollers] = (core_poller_t){ fn, arg, outside, outside ? unread : NULL };
    if (outside)
        __atomic_store_n(&rt->npollers_outside, rt->npollers_outside + 1, __ATOMIC_RELAXED);
    /* release: the engine's holder outside the section reads the count with acquire (an
     * interface opened for another job adds a poller while it polls) */
    __atomic_store_n(&rt->npollers, rt->npollers + 1, __ATOMIC_RELEASE);
    return 0;
}

void core_progress_set_sleep(core_runtime_t *rt, int (*fn)(void *arg), void *arg)
{
    rt->sleep = fn;
    rt->sleep_arg = arg;
    /* transports opened later (for other jobs) may take the sleep away: decide again */
    if (rt->settings)
        core_wait_policy(rt);
}

/* Inline in core_wait_req: a blocked call polls in a loop. Without MULTIPLE. */
static inline int progress_single(core_runtime_t *rt)
{
    int events = 0;
    rt->cs.progressing++;
    for (int i = 0; i < rt->npollers; i++)
        events += rt->pollers[i].fn(rt->pollers[i].arg);
    unsigned pending = rt->progress_pending;
    if (pending)
        for (int i = 0; i < rt->nhooks; i++)
            if (pending & (1u << i))
                events += rt->hooks[i](rt->hook_args[i]);
    rt->cs.progressing--;
    return events;
}

/* MULTIPLE, inside the section, by the holder of P (a wait's engine): progress_single but
 * for the hooks' bits, which the engine outside the section reads too. */
static inline int progress_held(core_runtime_t *rt)
{
    int events = 0;
    rt->cs.progressing++;
    for (int i = 0; i < rt->npollers; i++)
        events += rt->pollers[i].fn(rt->pollers[i].arg);
    unsigned pending = core_progress_pending(rt);
    if (pending)
        for (int i = 0; i < rt->nhooks; i++)
            if (pending & (1u << i))
                events += rt->hooks[i](rt->hook_args[i]);
    rt->cs.progressing--;
    return events;
}

/* MULTIPLE, inside the section: the transports are polled only by the holder of P (the
 * progress engine, ARCHITECTURE.md "Threads"), claimed by trylock for this pass unless this
 * thread holds it already (a wait's engine, a handler waiting inside a pass). A thread that
 * finds it taken (by a waiter outside the section, which polls for everyone) runs the hooks
 * only (they are the section's: queued sends, schedules, messages to self) and says so
 * (g_wants): the holder outside leaves P at its next look, so what it defers to the section
 * (core_cs_pass_defer) is handled by a pass here soon. */
static int progress_mt(core_runtime_t *rt)
{
    core_cs_t *cs = &rt->cs;
    int events = 0;
    int mine = core_cs_engine_claim(cs);
    if (!mine)
        atomic_store_explicit(&cs->g_wants, 1, memory_order_relaxed);
    else if (atomic_load_explicit(&cs->g_wants, memory_order_relaxed))
        atomic_store_explicit(&cs->g_wants, 0, memory_order_relaxed);
    cs->progressing++;
    if (mine)
        for (int i = 0; i < rt->npollers; i++)
            events += rt->pollers[i].fn(rt->pollers[i].arg);
    unsigned pending = core_progress_pending(rt);
    if (pending)
        for (int i = 0; i < rt->nhooks; i++)
            if (pending & (1u << i))
                events += rt->hooks[i](rt->hook_args[i]);
    cs->progressing--;
    if (mine)
        core_cs_engine_drop(cs);
    return events;
}

static inline int progress_once(void)
{
    core_runtime_t *rt = core_rt;
    if (__builtin_expect(rt->cs.on, 0))
        return progress_mt(rt);
    return progress_single(rt);
}

int core_progress(void)
{
    return progress_once();
}

/* Formats what call fn waits for (req: its request, or NULL):
 * "MPI_Recv(source=0, tag=5, comm=MPI_COMM_WORLD)". */
static int describe_wait(const char *fn, MPI_Request r, char *buf, size_t len)
{
    if (!r || (r->kind != CORE_REQ_SEND && r->kind != CORE_REQ_RECV) || !r->comm)
        return snprintf(buf, len, "%s", fn);
    const char *who = r->kind == CORE_REQ_SEND ? "dest" : "source";
    char peer[32], tag[32];
    if (r->peer == MPI_ANY_SOURCE)
        snprintf(peer, sizeof(peer), "MPI_ANY_SOURCE");
    else
        snprintf(peer, sizeof(peer), "%d", r->peer);
    if (r->tag == MPI_ANY_TAG)
        snprintf(tag, sizeof(tag), "MPI_ANY_TAG");
    else
        snprintf(tag, sizeof(tag), "%d", r->tag);
    return snprintf(buf, len, "%s(%s=%s, tag=%s, comm=%s, %zu bytes)", fn, who, peer, tag,
                    core_comm_label(r->comm), r->kind == CORE_REQ_SEND ? r->len : r->len);
}

/* A slot of rt->waits being filled in by its new owner. */
#define WAIT_CLAIMING ((const char *)1)

/* MULTIPLE: lists a blocked call for the report (one slot per call, claimed by
 * compare-and-swap: the report runs in a signal handler, which may not take a lock). Returns
 * the slot + 1, or 0 when every slot is taken (that call goes unreported, and the next look
 * tries again). */
static int wait_register(core_runtime_t *rt, const char *fn, MPI_Request req, double start)
{
    for (int i = 0; i < CORE_WAIT_SLOTS; i++) {
        core_wait_slot_t *s = &rt->waits[i];
        const char *none = NULL;
        if (__atomic_load_n(&s->fn, __ATOMIC_RELAXED) ||
            !__atomic_compare_exchange_n(&s->fn, &none, WAIT_CLAIMING, 0, __ATOMIC_ACQUIRE,
                                         __ATOMIC_RELAXED))
            continue;
        __atomic_store_n(&s->req, req, __ATOMIC_RELAXED);
        __atomic_store(&s->start, &start, __ATOMIC_RELAXED);
        __atomic_store_n(&s->fn, fn, __ATOMIC_RELEASE);
        return i + 1;
    }
    return 0;
}

static void wait_unregister(core_runtime_t *rt, int slot)
{
    __atomic_store_n(&rt->waits[slot - 1].fn, NULL, __ATOMIC_RELEASE);
}

/* One line of the report: fn blocked on req (or NULL) since start (0: not known). */
static void diag_line(const core_runtime_t *rt, const char *fn, MPI_Request req, double start)
{
    char line[512], what[384];
    describe_wait(fn, req, what, sizeof(what));
    int n = snprintf(line, sizeof(line), "rdmpi: rank %d on %s (pid %d) is blocked in %s for %.1f s\n",
                     rt->rank, rt->hostname, (int)getpid(), what,
                     start > 0 ? core_wtime() - start : 0.0); /* start: once the wait is slow */
    ssize_t wr = write(STDERR_FILENO, line, (size_t)n);
    (void)wr;
}

/* SIGRTMIN+3: the launcher asks where we are (it is about to kill the job). A line per
 * blocked call: the one of the process (but MULTIPLE), and every thread's under MULTIPLE,
 * inside the critical section or outside it. */
static void diag_handler(int sig)
{
    core_runtime_t *rt = core_rt;
    int blocked = 0;
    (void)sig;
    if (!rt)
        return;
    core_wait_ctx_t *w = rt->current_wait;
    if (w) {
        diag_line(rt, w->fn, w->req, w->start);
        blocked++;
    }
    for (int i = 0; i < CORE_WAIT_SLOTS; i++) {
        core_wait_slot_t *s = &rt->waits[i];
        const char *fn = __atomic_load_n(&s->fn, __ATOMIC_ACQUIRE);
        if (!fn || fn == WAIT_CLAIMING)
            continue;
        double start;
        __atomic_load(&s->start, &start, __ATOMIC_RELAXED);
        diag_line(rt, fn, __atomic_load_n(&s->req, __ATOMIC_RELAXED), start);
        blocked++;
    }
    if (!blocked) {
        char line[256];
        int n = snprintf(line, sizeof(line),
                         "rdmpi: rank %d on %s (pid %d) is not inside a blocking MPI call\n",
                         rt->rank, rt->hostname, (int)getpid());
        ssize_t wr = write(STDERR_FILENO, line, (size_t)n);
        (void)wr;
    }
}

/* The stuck-call diagnostics of a wait once it is slow (core_wait_idle_slow, a sleep on its
 * request): its start, its place in MULTIPLE's report, and after RDMPI_WAIT_WARN seconds a
 * warning saying where it is stuck. */
static void wait_diag(core_wait_ctx_t *w, double now)
{
    core_runtime_t *rt = core_rt;
    if (w->start == 0)
        w->start = now;
    if (w->cs && !w->slot)
        w->slot = wait_register(rt, w->fn, w->req, w->start);
    if (!w->warned && rt->settings && rt->settings->wait_warn > 0 &&
        now - w->start > rt->settings->wait_warn) {
        char what[384];
        describe_wait(w->fn, w->req, what, sizeof(what));
        core_warn("%s has been waiting for %.0f s (RDMPI_WAIT_WARN=%g)", what, now - w->start,
                  rt->settings->wait_warn);
        w->warned = 1;
    }
}

void core_wait_asleep(core_wait_ctx_t *w)
{
    wait_diag(w, core_wtime());
}

void core_progress_init(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = diag_handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGRTMIN + 3, &sa, NULL);
}

CORE_HOT void core_wait_begin(core_wait_ctx_t *w, const char *fn, MPI_Request req)
{
    w->fn = fn;
    w->req = req;
    w->start = 0;
    w->idle_since = 0;
    w->spins = 0;
    w->sleeping = 0;
    w->napping = 0;
    w->nosleep = 0;
    w->contended = 0;
    w->last_check = 0;
    w->last_poll = 0;
    w->warned = 0;
    w->quiet = core_rt->wait_quiet;
    w->cs = core_rt->cs.on;
    w->done = NULL;
    w->slot = 0;
    /* MULTIPLE: listed in rt->waits once slow (wait_diag), not here: the wait of an 8-byte
     * ping-pong would pay a locked instruction for it. */
    if (!w->cs)
        core_rt->current_wait = w;
}

#define AUTO_SLEEP 0.00003  /* idle seconds before sleeping, oversubscribed (see below) */
#define AUTO_SLEEP_MANY 0.000001 /* the same with more than two ranks per core (see below) */
#define SLOW_YIELD 0.0005   /* a yield this long gave the core to another's time slice ... */
#define SLOW_SPELL 0.05     /* ... and for this long after one, waits sleep after one yield */
#define BUSY_SLEEP 0.0001  /* the same in a wait that found its core taken (see below) */
#define CONTENDED 0.002    /* 1024 idle polls this long: our core is shared (see below) */
#define NAP_AFTER 0.01     /* idle seconds before napping (see below) */
#define NAP_SHARE 0.01     /* a nap lasts this share of the time idle so far ... */
#define NAP_MAX 0.001      /* ... and at most this long (seconds) */
#define AUTO_SLICE 0.0001  /* the scheduler slice asked for among others' processes (below) */

void core_wait_policy(core_runtime_t *rt)
{
    int all = rt->sleep != NULL;  /* every poller can wake a sleeping rank */
    /* Oversubscribed, a rank that spins (even yielding) takes the CPU from the ranks that have
     * work and, over Soft-RoCE, from the kernel's packet processing: sleeping soon after going
     * idle made 4-8 ranks on 2 cores 1.1-1.6x faster there. */
    double ws = rt->settings->wait_sleep;
    double auto_ws = rt->settings->yield_mode == CORE_YIELD_NEVER ? 0
                     : rt->local_size <= 2 * rt->ncores ? AUTO_SLEEP : AUTO_SLEEP_MANY;
    if (ws < 0)
        ws = rt->oversubscribed ? auto_ws : 0;
    rt->wait_sleep = all && ws > 0 ? ws : 0;
    /* A wait that finds its core taken by others (noisy neighbours: see contended below)
     * behaves as if oversubscribed, unless RDMPI_WAIT_SLEEP says otherwise. */
    double busy_ws = rt->settings->yield_mode != CORE_YIELD_NEVER ? BUSY_SLEEP : 0;
    rt->wait_sleep_busy = rt->settings->wait_sleep < 0 ? (all ? busy_ws : 0) : rt->wait_sleep;
    /* The slow-yield spell (see below): not for an oversubscribed job with at most two ranks
     * per core, whose waits sleep once idle AUTO_SLEEP, slow yields included. */
    rt->wait_spell = !rt->oversubscribed || rt->local_size > 2 * rt->ncores;
    /* MULTIPLE: a thread asleep in the transports would keep the critical section from the
     * others (and a message between two of this process's threads never wakes it). */
    /* Naps: unless told never to sleep or yield (RDMPI_WAIT_SLEEP=0, RDMPI_YIELD=never). */
    rt->wait_nap = rt->settings->wait_sleep != 0 && rt->settings->yield_mode != CORE_YIELD_NEVER
                       ? NAP_AFTER : 0;
    if (rt->cs.on)
        rt->wait_sleep = rt->wait_sleep_busy = rt->wait_nap = 0;
    double slice = rt->settings->wait_slice;
    if (slice < 0)
        slice = rt->settings->yield_mode != CORE_YIELD_NEVER ? AUTO_SLICE : 0;
    rt->wait_slice = slice;
    if (rt->wait_sleep > 0)
        core_debug("blocked calls sleep after %g s without progress", rt->wait_sleep);
    /* The first idle poll at which core_wait_idle_slow can do something:
     * yield (at once, or after spin_count), look at the clock (every 64th
     * poll when it may sleep, every 1024th for the stuck-call warning). */
    int quiet = INT_MAX;
    if (rt->settings->yield_mode == CORE_YIELD_ALWAYS ||
        (rt->settings->yield_mode == CORE_YIELD_AUTO && rt->oversubscribed))
        quiet = 1;
    else if (rt->settings->yield_mode == CORE_YIELD_AUTO && rt->settings->spin_count < quiet - 1)
        quiet = rt->settings->spin_count + 1;
    if (rt->wait_sleep > 0 && quiet > 64)
        quiet = 64;
    if ((rt->settings->wait_warn > 0 || rt->wait_sleep_busy > 0 || rt->wait_nap > 0 ||
         rt->cs.on) && quiet > 1023)
        quiet = 1023; /* MULTIPLE: a slow wait lists itself for the report (wait_diag) */
    rt->wait_quiet = quiet > 1 ? quiet : 1;
}

/*
 * An idle poll once w->spins reached core_wait_quiet: the checks below
 * cannot fire before that.
 *
 * Costs measured on the 2-core EPYC VM this was tuned on: a progress pass
 * over idle shm rings ~20-50 ns, clock_gettime ~20 ns, sched_yield 0.35-0.45
 * us alone and a whole time slice (ms) when a busy process shares the core,
 * a futex wake-up from the sender's store to the sleeper running ~1.1 us.
 * Hence: oversubscribed, a blocked call yields at every idle poll and sleeps
 * once it has been idle AUTO_SLEEP, the clock read at every poll then (a
 * yield may have lasted a time slice); the scheduler runs a woken sleeper
 * ahead of a busy loop, while a yielding rank queues behind it. While only
 * the job's ranks share the cores, a yield hands the core to a rank of ours
 * and comes back within microseconds, and a partner's message then costs no
 * wake-up: a sleeper costs its sender a FUTEX_WAKE and itself a wake-up hop
 * (and an idle core's, on a VM), each more than a message (OSU 7.4, 4 ranks
 * on 2 cores, under the measurement lock: barrier 7 against 10-21 us
 * sleeping after one yield, scatterv 8 B 0.65 against 3-4 us). But a yield
 * that lasted SLOW_YIELD gave the core to another process's time slice (a
 * busy neighbour, other jobs): ranks that then wait in turn for each
 * other's yields take the core from the one rank that has work (OSU
 * allreduce 8 B by direct exchange, 8 ranks on 2 cores, load average 35,
 * medians of 3: 474 us sleeping after 100 us idle, 243 after 10, 183 after
 * 1), so for SLOW_SPELL after such a yield every wait sleeps after one
 * yield, as a sleeper woken runs ahead of the busy process; not with at
 * most two ranks per core, though (wait_spell), where a yield hands the
 * core to one other rank at most and a wait sleeps once idle AUTO_SLEEP,
 * slow yields included: there the spell made nearly every wait on a loaded
 * host (others' compilers, the ranks at nice -15) a wake-up (OSU 7.4, 4
 * ranks on 2 cores, load average 4-10, medians of 7: alltoall 8 B 17.8
 * against 10.6 us, Open MPI 10.6; bcast 8 B 0.41 against 0.15, Open MPI
 * 1.1, with the barrier kept awake, collectives/fast.c). With more than
 * two ranks per core the ranks that yield to each other take the core from
 * the ones with work as well (OSU, 8 ranks on 2 cores, load 8-15, medians
 * of 3: alltoallv 1 KiB 171 against 72 us, allgather 8 B 71 against 36
 * with 30 us of yields): AUTO_SLEEP_MANY, one yield, there. A wait that
 * found its core taken (below) keeps BUSY_SLEEP: no more ranks than cores,
 * its partner is likely running, not waiting for a yield.
 *
 * Among others' busy processes, though, sleeping and yielding cost a time
 * slice: Linux's scheduler (EEVDF, 6.6 and later) lets the running task
 * finish its protected slice (1.4 ms here) before a woken rank runs, and a
 * yield pushes the yielder's deadline a whole slice back. So the first slow
 * yield or contended wait asks for AUTO_SLICE slices (ask_short_slice): a
 * woken task with a shorter slice than the running one preempts it at once.
 * When the job's ranks outnumber the cores, not the first one, though: such
 * signs must come often (core/waitslice.c), as only neighbours that take a
 * fair share of our cores make them so, and the short slice weakens the
 * yields among the job's own ranks.
 *
 * Not oversubscribed, a rank spins; every 1024th idle poll looks at the
 * clock. 1024 idle polls take ~50 us on a core of our own: when they took
 * more than CONTENDED, something else ran on our core meanwhile (a noisy
 * neighbour, or more runnable ranks than the node count says), and the
 * rest of this wait yields and sleeps as if oversubscribed. The next
 * blocked call starts spinning again: making the waits of the next 0.1 s
 * start as contended too left 2 ranks among busy loops (one per core, OSU
 * 7.4, 2 rounds) as fast on small messages and made gather 1 MiB 1.6-2x
 * slower (a sleeping root).
 *
 * Idle for NAP_AFTER (seen at the same 1024th polls) a wait sleeps until
 * woken even where the policy above says spin (a wake-up is nothing next to
 * such a wait), and when a transport cannot wake it (verbs' RDMA-write
 * rings) it naps: nanosleep for NAP_SHARE of its idle time, at most
 * NAP_MAX, between polls. A rank spinning in a barrier while others work
 * takes a core they could use (over Soft-RoCE in a TCG guest, a passive
 * target's spinning vCPU took host time from the origin's; an RDMA-write
 * ring, which wakes no sleeper, kept it from sleeping); a nap of 1% of the
 * wait so far adds at most that much to it. A wait that must not sleep
 * (nosleep: an RDMA completion is due) never naps.
 */
/* sched_attr as sched_setattr(2) takes it (its header clashes with glibc's sched.h). */
struct slice_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};
#define SLICE_KEEP_POLICY 0x08 /* SCHED_FLAG_KEEP_POLICY */
#define SLICE_BATCH 3          /* SCHED_BATCH (glibc shows it only with _GNU_SOURCE) */

/* Others' processes share our cores (see above): ask the scheduler for short slices, once.
 * Since Linux 6.12 (EEVDF) a fair task's sched_runtime is its slice, and a task woken with a
 * shorter slice than the running one's preempts it at once (PREEMPT_SHORT): a rank woken
 * by its partner's message runs then, not when a busy neighbour's slice (0.75-3 ms) ends,
 * and a yield puts it behind the others for its own short slice only. Its share of the CPU
 * is the same. Older kernels ignore the field; any error leaves the slice as it was. */
/* Whether tasks other than this job's ranks on the node are runnable: /proc/loadavg's
 * runnable count (ours that yield are in it) against the job's local ranks, read at most
 * every 0.1 s. An oversubscribed job's own ranks make its yields slow too; only others'
 * tasks are a reason for the short slice (quiet host, OSU 7.4 osu_bcast 8 B at 4 ranks:
 * 8.8 us with it, 0.73 without; Open MPI 1.5). -1 where it cannot be read: assume others. */
static int others_runnable(core_runtime_t *rt, double now)
{
    if (now - rt->wait_slice_looked < 0.1 && now >= rt->wait_slice_looked)
        return 0;
    rt->wait_slice_looked = now;
    char buf[128];
    if (core_procfile_read("/proc/loadavg", buf, sizeof(buf)) < 0)
        return -1;
    double a, b, c;
    int running, total;
    if (sscanf(buf, "%lf %lf %lf %d/%d", &a, &b, &c, &running, &total) != 5)
        return -1;
    return running > rt->local_size + 1;
}

static void ask_short_slice(core_runtime_t *rt)
{
    if (rt->oversubscribed && !others_runnable(rt, core_wtime()))
        return; /* asked again at the next signs */
    rt->wait_slice_asked = 1;
    int policy = sched_getscheduler(0);
    if (rt->wait_slice <= 0 || (policy != SCHED_OTHER && policy != SLICE_BATCH))
        return;
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0); /* kept: the call sets it too */
    if (errno)
        return;
    struct slice_attr a = { .size = sizeof(a), .flags = SLICE_KEEP_POLICY, .nice = nice,
                            .runtime = (uint64_t)(rt->wait_slice * 1e9) };
    if (syscall(SYS_sched_setattr, 0, &a, 0) != 0)
        core_debug("sched_setattr (a %g s slice): %s", rt->wait_slice, strerror(errno));
}

/* One nap of a long idle wait (see above). */
static void nap(const core_wait_ctx_t *w)
{
    double idle = w->idle_since > 0 ? core_wtime() - w->idle_since : NAP_AFTER;
    double t = idle * NAP_SHARE;
    if (t > NAP_MAX)
        t = NAP_MAX;
    struct timespec ts = { 0, (long)(t * 1e9) };
    nanosleep(&ts, NULL);
}

/* A wait kept awake by a layer above (core_progress_awake) yields instead of sleeping for at
 * most this long idle: a barrier whose last rank computes for seconds must not have the others
 * spin beside it that long (on an oversubscribed node they share its core). Long beside a
 * barrier's or a shared-word wait's usual microseconds, and a bounded sleep (10 ms) after it
 * costs such a wait at most a tenth more. */
#define AWAKE_MAX 0.1

static int awake_over(const core_wait_ctx_t *w)
{
    /* idle_since is kept while sleeping (set once the wait went idle) */
    return (w->sleeping || w->napping) && w->idle_since > 0 &&
           core_wtime() - w->idle_since > AWAKE_MAX;
}

void core_wait_idle_slow(core_wait_ctx_t *w)
{
    core_runtime_t *rt = core_rt;
    if (__builtin_expect(w->cs && !w->slot, 0))
        wait_diag(w, core_wtime());
    if (!rt->settings) /* a runtime without settings (test harnesses): spin */
        return;
    int over = rt->oversubscribed || w->contended;
    double ws = w->contended ? rt->wait_sleep_busy : rt->wait_sleep;
    int yielding = rt->settings->yield_mode == CORE_YIELD_ALWAYS ||
                   (rt->settings->yield_mode == CORE_YIELD_AUTO &&
                    (over || w->spins > rt->settings->spin_count));
    if (!w->sleeping && ws > 0 && (yielding || (w->spins & 63) == 0)) {
        double now = core_wtime();
        if (w->idle_since == 0) {
            w->idle_since = now;
        } else {
            /* Two idle polls in a row: what lay between them was our yield. */
            if (yielding && now - w->last_poll > SLOW_YIELD) {
                rt->wait_slow_yield = now;
                if (!rt->wait_slice_asked &&
                    core_crowd_note(&rt->wait_crowd, now, rt->oversubscribed))
                    ask_short_slice(rt);
            }
            if (now - w->idle_since >= ws ||
                (rt->wait_spell && rt->wait_slow_yield > 0 &&
                 now - rt->wait_slow_yield < SLOW_SPELL))
                w->sleeping = 1;
        }
        w->last_poll = now;
    }
    /* The sleep returns 1 at once when there is work, 2 when a transport cannot wake a
     * sleeper now (then nap when the wait is that long, else yield, as a rank that may not
     * sleep would); nosleep yields instead of sleeping, which costs no wake-up, and so does a
     * wait while a layer above needs the ranks awake (core_progress_awake: no nap either). */
    int awake = w->nosleep || (rt->wait_awake > 0 && !awake_over(w));
    int slept = 0;
    if ((w->sleeping || w->napping) && !awake && rt->sleep)
        slept = rt->sleep(rt->sleep_arg) != 2;
    if (slept)
        ;
    else if (w->napping && !awake)
        nap(w);
    else if (yielding || ((w->sleeping || w->napping) && awake))
        sched_yield();
    /* Look at the clock only now and then: it is not free. */
    if ((w->spins & 1023) != 1023 ||
        (rt->settings->wait_warn <= 0 && (over || rt->wait_sleep_busy <= 0) &&
         rt->wait_nap <= 0))
        return;
    double now = core_wtime();
    if (rt->wait_nap > 0 && !w->nosleep && !w->napping) {
        if (w->idle_since == 0)
            w->idle_since = now;
        else if (now - w->idle_since >= rt->wait_nap)
            w->napping = 1;
    }
    if (!over && w->last_check > 0 && now - w->last_check > CONTENDED &&
        rt->wait_sleep_busy > 0) {
        w->contended = 1;
        w->idle_since = 0;
        if (!rt->wait_slice_asked && core_crowd_note(&rt->wait_crowd, now, rt->oversubscribed))
            ask_short_slice(rt);
        w->quiet = 1; /* every idle poll now yields and may sleep */
    }
    w->last_check = now;
    wait_diag(w, now);
}

CORE_HOT void core_wait_end(core_wait_ctx_t *w)
{
    if (w->slot)
        wait_unregister(core_rt, w->slot);
    else if (!w->cs)
        core_rt->current_wait = NULL;
}

/* MULTIPLE: progress by trylock. The first waiting thread claims the engine and polls for
 * everyone (handing the section to the threads queued for it between polls, as any blocked
 * call does); the others sleep outside the section on their request's bell, which its
 * completion rings, or the engine's leaving (one of them then takes it over). Only a thread
 * whose request completed queues for the section, to hand the status out, so N waiting
 * threads do not take turns after every poll. Inside a pass of the progress engine (a
 * handler waiting) the section may not be left: poll as before. */
static void wait_req_mt(MPI_Request req, core_wait_ctx_t *w)
{
    core_cs_t *cs = &core_rt->cs;
    int engine = 0;
    if (cs->progressing || !core_cs_held()) {
        while (!core_req_is_complete(req))
            core_wait_idle(w, progress_once());
        return;
    }
    while (!core_req_is_complete(req)) {
        if (!engine && !(engine = core_cs_engine_claim(cs))) {
            /* The engine may be held by a waiter outside the section, which leaves it for
             * us once it sees this (it defers what needs the section). */
            atomic_store_explicit(&cs->g_wants, 1, memory_order_relaxed);
            core_wait_asleep(w);
            core_cs_sleep(cs, &req->bell, &req->complete, &req->sleeping);
            continue;
        }
        if (__builtin_expect(atomic_load_explicit(&cs->g_wants, memory_order_relaxed), 0))
            atomic_store_explicit(&cs->g_wants, 0, memory_order_relaxed); /* we have it */
        int events = progress_held(core_rt); /* P is ours for the whole wait */
        if (!core_req_is_complete(req))
            core_cs_let_sleepers(cs);
        core_wait_idle(w, events);
    }
    if (engine)
        core_cs_engine_leave(cs);
    else
        core_cs_wait_done(cs);
}

/* Idle passes of a waiter outside the section before it yields the CPU between passes
 * (at once when the node is oversubscribed). */
#define OUTSIDE_QUIET 1024
/* Looks of a waiter outside the section at an engine another thread holds, with a pause of
 * the CPU, before it sleeps outside the section (core_cs_sleep_outside). */
#define OUTSIDE_RELAX 64
/* A pass of the engine outside the section looks at the pollers that need the section, and
 * runs the hooks, every this many passes (by trylock of the section). */
#define OUTSIDE_FULL_EVERY 64

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    sched_yield();
#endif
}

/* Threads waiting outside the section while another holds P sleep after OUTSIDE_RELAX looks,
 * and the holder keeps the CPU: with more threads than cores (osu_latency_mt, 2 and 4 thread
 * pairs on 2 cores), a yield to a waiter or a wake-up per completion made the pairs take turns
 * at every round trip, a thread switch (~2 us here) each time. Instead the running pair goes
 * on: the holder defers the ring of another thread's completed request (core_cs_defer_ring)
 * and leaves P without ringing when its own completes (its thread comes back for the next
 * message), and hands over only when it idles with deferred completions pending: it rings
 * them (core_cs_ring_deferred) and waits as the others do, so that the pair whose partner
 * runs in the other rank takes P (without that, the two ranks' holders could belong to
 * different pairs, and every round trip waited for a bounded sleep: 400-5000 us). Medians of
 * 3 rounds, 8 B: 2:2 4.7 -> 1.4 us, 4:4 10.2 -> 2.6 us; context switches per run (10100 round
 * trips) 23-31 k -> 0.6-2.6 k. */
#define OUTSIDE_HANDOFF_IDLE 20e-6
/* ... and after this much when every peer has taken all we sent (no poller's unread): then
 * nothing we sent is on its way back soon, and the other rank's holder may be idle too,
 * holding back the ring of the thread that would answer ours while we hold back the ring of
 * the thread its holder waits for. That state fed itself, hundreds of 20 us hand-offs per
 * run, in some runs of osu_latency_mt 2:2 (0.4-1.0 us in runs without it, 2.2-5.5 us with:
 * the counters of session 30). A short idle time alone ended it but cost 15-20% of the
 * 2-thread message rate, where the peer is still reading our window when we idle. */
#define OUTSIDE_HANDOFF_DRAINED 4e-6

/* Whether some poller's peer has not taken all we sent (core_progress_add_poller's unread). */
static int outside_unread(core_runtime_t *rt, int np)
{
    for (int i = 0; i < np; i++)
        if (!rt->pollers[i].unread || rt->pollers[i].unread(rt->pollers[i].arg))
            return 1; /* without unread: not known, so not taken for idle */
    return 0;
}

/* One pass inside the section, by trylock, for the holder of P outside it: the pollers that
 * need the section and the hooks. 0 when the section was taken. */
static int full_pass_try(core_runtime_t *rt, int *events)
{
    if (!core_cs_try_enter(&rt->cs))
        return 0;
    core_cs_pass_set_outside(0);
    *events += progress_mt(rt);
    core_cs_pass_set_outside(1);
    core_cs_exit(&rt->cs);
    return 1;
}

/* The diagnostics of a wait outside the section, once it is slow (a sleep, or every 1024
 * passes of the engine): listed for the report, warned about after RDMPI_WAIT_WARN. Its
 * record is set up only then, so a wait that is not slow costs nothing for them. */
static void outside_diag(core_wait_ctx_t *w, const char *fn, MPI_Request req)
{
    if (!w->fn) {
        w->fn = fn;
        w->req = req;
        w->start = 0;
        w->warned = 0;
        w->cs = 1;
        w->slot = 0;
    }
    wait_diag(w, core_wtime());
}

int core_wait_req_outside(MPI_Request req, const char *fn)
{
    core_runtime_t *rt = core_rt;
    core_cs_t *cs = &rt->cs;
    if (!core_progress_outside_ok(rt))
        return 0;
    core_wait_ctx_t w;
    w.fn = NULL; /* set up by outside_diag once the wait is slow */
    int done = 0;
    /* Another thread drives the engine: watch the request for a while, then sleep on it
     * outside the section until it completes or the engine is free (the holder rings the
     * first sleeper when it leaves without its own request complete; otherwise the bounded
     * sleep ends it). After a handoff (below) the former holder waits here too. */
    int counted;
again:
    counted = 0;
    for (int spins = 0; !core_cs_engine_claim(cs); spins++) {
        if (!counted) {
            atomic_fetch_add_explicit(&cs->nowaiting, 1, memory_order_relaxed);
            counted = 1;
        }
        if (__atomic_load_n(&req->complete, __ATOMIC_ACQUIRE)) {
            atomic_fetch_sub_explicit(&cs->nowaiting, 1, memory_order_relaxed);
            core_cs_wait_done_outside(cs);
            done = 1;
            goto out;
        }
        if (spins < OUTSIDE_RELAX) {
            relax();
        } else {
            outside_diag(&w, fn, req);
            core_cs_sleep_outside(cs, &req->bell, &req->complete, &req->sleeping);
        }
    }
    if (counted)
        atomic_fetch_sub_explicit(&cs->nowaiting, 1, memory_order_relaxed);
    int idle = 0, quiet = rt->oversubscribed ? 1 : OUTSIDE_QUIET;
    unsigned pass = 0;
    int handoff = 0;
    double idle_since = 0;
    core_cs_pass_set_outside(1);
    for (;;) {
        if (__atomic_load_n(&req->complete, __ATOMIC_ACQUIRE)) {
            done = 1;
            break;
        }
        if (atomic_load_explicit(&cs->g_wants, memory_order_relaxed))
            break;
        int events = 0;
        if (++pass % OUTSIDE_FULL_EVERY == 0 || core_progress_pending(rt)) {
            if (!full_pass_try(rt, &events) && core_progress_pending(rt))
                break; /* the section is busy and has work for us: wait there */
            if (__builtin_expect(pass % 1024 == 0, 0))
                outside_diag(&w, fn, req);
        }
        int np = __atomic_load_n(&rt->npollers, __ATOMIC_ACQUIRE);
        for (int i = 0; i < np; i++)
            if (rt->pollers[i].outside)
                events += rt->pollers[i].outside(rt->pollers[i].arg);
        if (core_cs_pass_deferred())
            break;
        if (events) {
            idle = 0;
            idle_since = 0;
        } else if (atomic_load_explicit(&cs->ndeferred, memory_order_relaxed)) {
            double now = core_wtime();
            if (idle_since == 0)
                idle_since = now;
            else if (now - idle_since > OUTSIDE_HANDOFF_IDLE ||
                     (now - idle_since > OUTSIDE_HANDOFF_DRAINED && !outside_unread(rt, np))) {
                handoff = 1;
                break;
            }
        }
        if (!events && ++idle >= quiet)
            sched_yield();
    }
    core_cs_pass_set_outside(0);
    /* Our request completed: our thread is likely back for the next one soon, so the
     * sleepers are not rung to take P over (their bounded sleep takes it when we are not) */
    if (done || handoff)
        core_cs_engine_leave_quiet(cs);
    else
        core_cs_engine_leave_outside(cs);
    if (!done)
        core_cs_ring_deferred(cs);
    if (handoff)
        goto again;
    done = done || __atomic_load_n(&req->complete, __ATOMIC_ACQUIRE);
out:
    if (w.fn && w.slot)
        wait_unregister(rt, w.slot);
    return done;
}

int core_test_req_outside(void)
{
    core_runtime_t *rt = core_rt;
    core_cs_t *cs = &rt->cs;
    /* Every OUTSIDE_FULL_EVERY-th test of a thread polls inside G, as the wait's engine
     * does a whole pass inside every so many: the outside pass stops at a record it may not
     * handle without always saying so, and the cooperative copies and batched reads move in
     * passes inside G only. */
    if (!core_progress_outside_ok(rt) || core_progress_pending(rt) ||
        atomic_load_explicit(&cs->g_wants, memory_order_relaxed) ||
        !core_cs_test_turn(OUTSIDE_FULL_EVERY) || !core_cs_engine_claim(cs))
        return 0;
    core_cs_pass_set_outside(1);
    int np = __atomic_load_n(&rt->npollers, __ATOMIC_ACQUIRE);
    for (int i = 0; i < np; i++)
        if (rt->pollers[i].outside)
            rt->pollers[i].outside(rt->pollers[i].arg);
    int clean = !core_cs_pass_deferred();
    core_cs_pass_set_outside(0);
    clean = clean && !atomic_load_explicit(&cs->g_wants, memory_order_relaxed);
    core_cs_engine_leave_outside(cs);
    core_cs_ring_deferred(cs); /* a test polls once: nobody may come back soon */
    return clean && !core_progress_pending(rt);
}

void core_wait_req(MPI_Request req, const char *fn)
{
    if (core_req_is_complete(req))
        return;
    core_wait_ctx_t w;
    core_wait_begin(&w, fn, req);
    w.done = &req->complete;
    if (w.cs)
        wait_req_mt(req, &w);
    else
        while (!core_req_is_complete(req))
            core_wait_idle(&w, progress_single(core_rt));
    core_wait_end(&w);
}
