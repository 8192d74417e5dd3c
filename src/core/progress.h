/*
 * The progress engine and the wait policy. Progress is driven from MPI calls
 * (no hidden threads): each call polls every transport that has a progress
 * function and, when there are any, retries queued sends, advances
 * collective schedules and delivers messages to self (the hooks below:
 * woken when work is queued, not polled). A blocked call spins for
 * RDMPI_SPIN_COUNT polls, then yields the CPU between polls; when this
 * node's ranks outnumber its cores it yields at once and, once idle for
 * RDMPI_WAIT_SLEEP (0.0001 s by default then), sleeps until a message
 * arrives, when every open transport can wake a sleeping rank (TP_CAP_WAIT:
 * self; shm, whose senders ring the sleeper's futex doorbell; verbs, through
 * its completion channel; tcp, through its epoll descriptor). A call that
 * finds its core taken by other processes while it spins (noisy neighbours)
 * does the same for the rest of its wait; then (or after a yield that lasted
 * a time slice; with more ranks than cores, once such signs come often) the
 * rank asks the scheduler for short time slices (RDMPI_WAIT_SLICE), so that a
 * rank woken by a message runs at once instead of after a neighbour's slice.
 * Over Soft-RoCE in a TCG guest sleeping raised 1 MiB
 * bandwidth 1.6-2.5x when the host's cores were overcommitted (the spinning
 * rank's vCPU took host time from the one moving the data). A call that has
 * found nothing for 10 ms sleeps until a message arrives, whatever the node's
 * load, and where a transport cannot wake it (verbs' RDMA-write rings)
 * it naps between polls, for a hundredth of the time it has been idle (at
 * most 1 ms): a rank waiting long in a barrier, e.g. the passive target of
 * one-sided operations that need no CPU of its, leaves its core to others,
 * and no wait grows by more than about 1%. RDMPI_WAIT_SLEEP=0 and
 * RDMPI_YIELD=never keep it spinning.
 * A call blocked longer
 * than RDMPI_WAIT_WARN seconds says where it is stuck, and so does every
 * rank when the launcher sends SIGRTMIN+3 (rdmpirun --timeout does).
 */
#ifndef RDMPI_CORE_PROGRESS_H
#define RDMPI_CORE_PROGRESS_H

#include "mpi.h"
#include "core/runtime.h"


/* Polls everything once; returns the number of events handled. */
int core_progress(void);

/* Progress hooks of the layers above transports (queued sends, collective
 * schedules, context agreements). A hook runs only while its layer has work:
 * the layer wakes it when it queues something, and the hook rests itself
 * when it leaves its queues empty. An idle pass then costs one test instead
 * of a call per layer: a blocked 8-byte receive polls on its critical path. */
typedef int (*core_progress_hook_t)(void *arg);
/* Returns the hook's id for core_progress_wake/rest. */
int core_progress_add_hook(struct core_runtime *rt, core_progress_hook_t fn, void *arg);
/* Written inside the critical section only (or without threads); read by the engine's
 * holder outside it too (core_wait_req_outside): relaxed atomic accesses, plain moves. */
static inline void core_progress_wake(struct core_runtime *rt, int id)
{
    __atomic_store_n(&rt->progress_pending,
                     __atomic_load_n(&rt->progress_pending, __ATOMIC_RELAXED) | 1u << id,
                     __ATOMIC_RELAXED);
}
static inline void core_progress_rest(struct core_runtime *rt, int id)
{
    __atomic_store_n(&rt->progress_pending,
                     __atomic_load_n(&rt->progress_pending, __ATOMIC_RELAXED) & ~(1u << id),
                     __ATOMIC_RELAXED);
}
static inline unsigned core_progress_pending(const struct core_runtime *rt)
{
    return __atomic_load_n(&rt->progress_pending, __ATOMIC_RELAXED);
}
/* Adds fn(arg) to what every pass polls (a transport interface's progress). outside, if not
 * NULL, is what a pass of the engine outside the critical section calls instead (MULTIPLE:
 * core_wait_req_outside): it touches only its channels' consumer side and leaves a message
 * it may not handle there in the channel for a pass inside (core_cs_pass_defer). Pollers
 * without it run only in passes inside the section. unread (with outside; may be NULL): 1
 * while some peer has not taken everything sent to it through this poller's interface. */
int core_progress_add_poller(struct core_runtime *rt, int (*fn)(void *arg), void *arg,
                             int (*outside)(void *arg), int (*unread)(void *arg));
/* fn(arg) puts an idle rank to sleep until something arrives (the transports layer sets it
 * when every interface can wake the rank; NULL: never sleep); it returns 0 after a sleep, 1
 * without sleeping when there is work, 2 when an interface cannot wake the rank now. */
void core_progress_set_sleep(struct core_runtime *rt, int (*fn)(void *arg), void *arg);

/* A layer above the transports whose hook waits on words other processes store to in
 * shared memory (no message, so nothing rings a sleeper's doorbell) keeps blocked calls
 * awake while it does: between +1 and -1 they yield instead of sleeping. Otherwise every
 * wait for such a store would last a whole bounded sleep. */
static inline void core_progress_awake(struct core_runtime *rt, int delta)
{
    rt->wait_awake += delta;
}

/* Describes a blocking call for diagnostics while it waits. */
typedef struct core_wait_ctx {
    const char *fn;        /* "MPI_Recv" */
    MPI_Request req;       /* the request waited on, if one */
    double start;
    double idle_since;     /* when polls stopped finding work (checked every 64 polls) */
    int spins;
    int sleeping;          /* idle for RDMPI_WAIT_SLEEP: sleep between polls */
    int napping;           /* idle for the runtime's wait_nap: short timed sleeps between
                              polls where sleeping until woken is not possible */
    int nosleep;           /* never sleep, yield instead (set after core_wait_begin): what is
                              awaited comes soon without anyone's help (an RDMA completion),
                              and sleeping for it costs a wake-up on the critical path */
    int contended;         /* polls found descheduled: waits as if oversubscribed */
    double last_check;     /* when the last 1024th idle poll looked at the clock */
    double last_poll;      /* when the last idle poll that may lead to a sleep looked at it */
    int warned;
    int quiet;             /* the runtime's wait_quiet, copied at core_wait_begin */
    int cs;                /* MULTIPLE: hand the critical section over between polls */
    const volatile int *done;  /* MULTIPLE: the completion flag of the request core_wait_req
                                  waits for, read outside the section (NULL: none) */
    int slot;              /* MULTIPLE: its place in the report's list (rt->waits) + 1, taken
                              once the wait is slow (0: not listed) */
} core_wait_ctx_t;

void core_wait_begin(core_wait_ctx_t *w, const char *fn, MPI_Request req);
void core_wait_idle_slow(core_wait_ctx_t *w);

/* Called once per loop iteration with the events the last poll handled.
 * Inline for the common cases, a poll that found work or a short idle
 * spell: a blocked receive runs this between every two polls. */
static inline void core_wait_idle(core_wait_ctx_t *w, int events)
{
    if (w->cs)
        core_cs_pause(&core_rt->cs, w->done);
    if (events) {
        w->spins = 0;
        w->idle_since = 0;
        w->sleeping = 0;
        w->napping = 0;
    } else if (++w->spins >= w->quiet) {
        core_wait_idle_slow(w);
    }
}
void core_wait_end(core_wait_ctx_t *w);
/* MULTIPLE, a blocked thread about to sleep outside the section on its request (a waiter of
 * core_wait_req while another thread drives the engine): lists w for the report and says
 * where it is stuck after RDMPI_WAIT_WARN seconds, as core_wait_idle does for a polling wait
 * (the sleep is bounded, so this runs again now and then). */
void core_wait_asleep(core_wait_ctx_t *w);

/* Waits until req completes. */
void core_wait_req(MPI_Request req, const char *fn);
/* MULTIPLE, outside the critical section (the point-to-point waits of MPI_Wait, MPI_Recv,
 * MPI_Waitall): waits for req by driving the progress engine P without the section, or, while
 * another thread drives it, by watching req for a while. 1 when req completed; 0 when the
 * caller must enter the section and wait there (core_wait_req): P stayed busy, a message
 * needs the section (core_cs_pass_defer), a thread inside the section wants P, or the
 * hooks have work and the section is busy. Whoever completes req publishes it with release
 * (core_req_complete). fn names the call for the stuck-call diagnostics (SIGRTMIN+3,
 * RDMPI_WAIT_WARN), which list the wait once it is slow (a sleep, or 1024 passes). */
int core_wait_req_outside(MPI_Request req, const char *fn);
/* MULTIPLE, outside the critical section (MPI_Test of a point-to-point request): one pass of
 * the engine outside it, as core_wait_req_outside's, when P is free and no hook has work.
 * 1 when the pass ran and left nothing for the section (no message deferred to it, no hook
 * with work, no thread inside it wanting P): the caller may say the request is not complete
 * yet without entering the section. 0 when it must test inside the section as before (P
 * busy, work that only a pass inside may do, or the thread's every 64th test: the outside
 * pass stops at some records without deferring them, which a pass inside then handles). */
int core_test_req_outside(void);
/* Whether every poller has a pass outside the critical section (a job over shm alone): only
 * then do waits drive the engine outside it. With a poller that needs the section (tcp,
 * verbs, another job's bridge) an engine outside would reach that one only now and then,
 * by trylock of the section, and a waiter for its messages would wait for that. */
static inline int core_progress_outside_ok(const struct core_runtime *rt)
{
    return __atomic_load_n(&rt->npollers_outside, __ATOMIC_RELAXED) ==
           __atomic_load_n(&rt->npollers, __ATOMIC_ACQUIRE);
}

/* Decides rt->wait_sleep from RDMPI_WAIT_SLEEP and the open transports. */
void core_wait_policy(struct core_runtime *rt);

/* Installs the SIGRTMIN+3 handler that prints where this rank is blocked. */
void core_progress_init(void);

double core_wtime(void);

#endif
