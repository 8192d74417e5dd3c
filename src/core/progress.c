/*
 * The progress engine and the wait policy (see progress.h).
 */
#include <sched.h>
#include <poll.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/progress.h"
#include "core/comm.h"
#include "core/log.h"
#include "core/request.h"
#include "core/runtime.h"

#define MAX_HOOKS 8

static core_progress_hook_t hooks[MAX_HOOKS];
static int nhooks;
unsigned core_progress_pending;
static core_wait_ctx_t *volatile current_wait;
int core_wait_quiet; /* 0 until core_wait_policy: every idle poll takes the slow path */

double core_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int core_progress_add_hook(core_progress_hook_t fn)
{
    if (nhooks >= MAX_HOOKS)
        core_fatal("internal error: more than %d progress hooks", MAX_HOOKS);
    hooks[nhooks] = fn;
    return nhooks++;
}

/* Inline in core_wait_req: a blocked call polls in a loop. */
static inline int progress_once(void)
{
    core_runtime_t *rt = core_rt;
    int events = 0;
    for (int i = 0; i < rt->npolled; i++)
        events += rt->polled[i]->ops->progress(rt->polled[i]);
    if (core_progress_pending)
        for (int i = 0; i < nhooks; i++)
            if (core_progress_pending & (1u << i))
                events += hooks[i]();
    return events;
}

int core_progress(void)
{
    return progress_once();
}

/* Formats what w waits for: "MPI_Recv(source=0, tag=5, comm=MPI_COMM_WORLD)". */
static int describe_wait(const core_wait_ctx_t *w, char *buf, size_t len)
{
    MPI_Request r = w->req;
    if (!r || (r->kind != CORE_REQ_SEND && r->kind != CORE_REQ_RECV) || !r->comm)
        return snprintf(buf, len, "%s", w->fn);
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
    return snprintf(buf, len, "%s(%s=%s, tag=%s, comm=%s, %zu bytes)", w->fn, who, peer, tag,
                    core_comm_label(r->comm), r->kind == CORE_REQ_SEND ? r->len : r->len);
}

/* SIGRTMIN+3: the launcher asks where we are (it is about to kill the job). */
static void diag_handler(int sig)
{
    char line[512], what[384];
    core_wait_ctx_t *w = current_wait;
    core_runtime_t *rt = core_rt;
    int n;
    (void)sig;
    if (!rt)
        return;
    if (w) {
        describe_wait(w, what, sizeof(what));
        n = snprintf(line, sizeof(line), "rdmpi: rank %d on %s (pid %d) is blocked in %s for %.1f s\n",
                     rt->rank, rt->hostname, (int)getpid(), what,
                     w->start > 0 ? core_wtime() - w->start : 0.0); /* start: after 1024 polls */
    } else {
        n = snprintf(line, sizeof(line),
                     "rdmpi: rank %d on %s (pid %d) is not inside a blocking MPI call\n", rt->rank,
                     rt->hostname, (int)getpid());
    }
    ssize_t wr = write(STDERR_FILENO, line, (size_t)n);
    (void)wr;
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

void core_wait_begin(core_wait_ctx_t *w, const char *fn, MPI_Request req)
{
    w->fn = fn;
    w->req = req;
    w->start = 0;
    w->idle_since = 0;
    w->spins = 0;
    w->sleeping = 0;
    w->warned = 0;
    current_wait = w;
}

#define SLEEP_MAX 0.01 /* longest sleep: a missed wake-up costs no more */

void core_wait_policy(core_runtime_t *rt)
{
    unsigned all = TP_CAP_WAIT;
    for (int i = 0; i < rt->niface; i++)
        all &= rt->ifaces[i]->caps.flags;
    /* Oversubscribed, a rank that spins (even yielding) takes the CPU from the ranks that have
     * work and, over Soft-RoCE, from the kernel's packet processing: sleeping soon after going
     * idle made 4-8 ranks on 2 cores 1.1-1.6x faster there. */
    double ws = rt->settings->wait_sleep;
    if (ws < 0)
        ws = rt->oversubscribed && rt->settings->yield_mode != CORE_YIELD_NEVER ? 0.0001 : 0;
    rt->wait_sleep = all && ws > 0 ? ws : 0;
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
    if (rt->settings->wait_warn > 0 && quiet > 1023)
        quiet = 1023;
    core_wait_quiet = quiet > 1 ? quiet : 1;
}

/* Sleeps until a transport has something or max_sleep passes; returns
 * without sleeping when one of them has work now. */
static void sleep_on_transports(core_runtime_t *rt)
{
    struct pollfd pfd[CORE_MAX_TRANSPORTS];
    double max_sleep = SLEEP_MAX;
    int n = 0;
    for (int i = 0; i < rt->niface; i++) {
        int fd = -1;
        tp_iface_t *iface = rt->ifaces[i];
        if (iface->ops->arm(iface, &fd, &max_sleep) != 0)
            return;
        if (fd >= 0) {
            pfd[n].fd = fd;
            pfd[n].events = POLLIN;
            pfd[n++].revents = 0;
        }
    }
    int ms = (int)(max_sleep * 1000);
    poll(pfd, (nfds_t)n, ms > 0 ? ms : 1);
}

/* An idle poll once w->spins reached core_wait_quiet: the checks below
 * cannot fire before that. */
void core_wait_idle_slow(core_wait_ctx_t *w)
{
    core_runtime_t *rt = core_rt;
    if (!w->sleeping && rt->wait_sleep > 0 && (w->spins & 63) == 0) {
        double now = core_wtime();
        if (w->idle_since == 0)
            w->idle_since = now;
        else if (now - w->idle_since >= rt->wait_sleep)
            w->sleeping = 1;
    }
    if (w->sleeping)
        sleep_on_transports(rt);
    else if (rt->settings->yield_mode == CORE_YIELD_ALWAYS ||
             (rt->settings->yield_mode == CORE_YIELD_AUTO &&
              (rt->oversubscribed || w->spins > rt->settings->spin_count)))
        sched_yield();
    /* Look at the clock only now and then: it is not free. */
    if ((w->spins & 1023) != 1023 || rt->settings->wait_warn <= 0)
        return;
    double now = core_wtime();
    if (w->start == 0) {
        w->start = now;
        return;
    }
    if (!w->warned && now - w->start > rt->settings->wait_warn) {
        char what[384];
        describe_wait(w, what, sizeof(what));
        core_warn("%s has been waiting for %.0f s (RDMPI_WAIT_WARN=%g)", what, now - w->start,
                  rt->settings->wait_warn);
        w->warned = 1;
    }
}

void core_wait_end(core_wait_ctx_t *w)
{
    (void)w;
    current_wait = NULL;
}

void core_wait_req(MPI_Request req, const char *fn)
{
    if (req->complete)
        return;
    core_wait_ctx_t w;
    core_wait_begin(&w, fn, req);
    while (!req->complete)
        core_wait_idle(&w, progress_once());
    core_wait_end(&w);
}
