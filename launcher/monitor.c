/*
 * The main loop of a running job and its failure semantics. One poll()
 * waits on the wake pipe (signals, child exits, PMIx upcalls), rank 0's
 * terminal stdin, the --tag-output pipes and, across nodes, the daemon
 * tree and the launch agents, with a timeout taken from the next deadline.
 * Ranks on other nodes are signalled through their daemons, and their
 * exits arrive as events (remote.c) judged exactly like local ones; a lost
 * daemon fails the job like a killed rank.
 *
 * The job fails the first time a rank is killed by a signal, exits
 * non-zero, calls PMIx_Abort, or exits 0 after connecting to the PMIx server
 * without finalizing. That first failure is reported in one line and sets
 * the exit status; the teardown is then: SIGTERM to every rank's process
 * group, SIGKILL one second later to what is left, and a final SIGKILL to
 * the groups once every rank is reaped, for processes the ranks forked.
 * Deaths caused by the teardown are not failures and are not reported.
 * A --timeout expiry first sends SIGRTMIN+3 (the MPI library prints where
 * each rank is blocked) and waits a second before that teardown.
 */
#include "launch.h"
#include "tree.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TERM_GRACE 1.0     /* SIGTERM, then SIGKILL this much later */
#define DUMP_GRACE 2.0     /* SIGRTMIN+3 on timeout, then the teardown (loaded nodes are slow) */
#define KILL_GIVEUP 5.0    /* stop waiting for ranks SIGKILL cannot end */
#define DRAIN_GRACE 0.5    /* output still held open by a rank's children */
#define SIGINT_WINDOW 5.0  /* a second SIGINT this soon means SIGKILL */

enum phase { RUNNING, DUMPING, TERMINATING, KILLING };

struct monitor {
    struct launch_job *job;
    enum phase phase;
    double deadline;     /* end of the current teardown step */
    double timeout_at;   /* --timeout expiry; 0: none */
    double last_sigint;
    double drain_until;  /* set once every rank has been reaped */
    int nalive;
    int all_gone;        /* all_reaped() ran */
    int exit_code;       /* -1 until the first failure (or end) decides it */
    int abort_seen;
    pid_t exited[64];    /* children whose SIGCHLD came, in order; judged first by reap() */
    int nexited;
};

/* Ranks still running: the job's, and those its ranks spawned. */
static int nalive(const struct monitor *m)
{
    return m->nalive + launch_dyn_alive(m->job);
}

static void set_exit(struct monitor *m, int code)
{
    if (m->exit_code < 0)
        m->exit_code = code;
}

/* Signals every rank's process group, reaped ranks included, so that
 * processes a rank forked are reached too. */
static void signal_groups(struct monitor *m, int sig)
{
    for (int i = 0; i < m->job->nranks; i++) {
        struct launch_rank *r = &m->job->ranks[i];
        if (r->local && r->pid > 0 && kill(-r->pid, sig) && r->alive)
            kill(r->pid, sig);
    }
    launch_dyn_signal(m->job, sig, 1);
    launch_remote_signal(m->job, sig, SIG_GROUPS_ALL);
}

static void forward(struct monitor *m, int sig)
{
    for (int i = 0; i < m->job->nranks; i++) {
        struct launch_rank *r = &m->job->ranks[i];
        if (r->local && r->alive && kill(-r->pid, sig))
            kill(r->pid, sig);
    }
    launch_dyn_signal(m->job, sig, 0);
    launch_remote_signal(m->job, sig, SIG_GROUPS_ALIVE);
}

static void begin_terminate(struct monitor *m)
{
    m->phase = TERMINATING;
    m->deadline = launch_now() + TERM_GRACE;
    signal_groups(m, SIGTERM);
}

static void begin_kill(struct monitor *m)
{
    m->phase = KILLING;
    m->deadline = launch_now() + KILL_GIVEUP;
    signal_groups(m, SIGKILL);
}

/* Reports the first PMIx_Abort and tears the job down. */
static void check_abort(struct monitor *m)
{
    struct launch_job *job = m->job;
    int rank, status;
    char msg[sizeof(job->abort_msg)];

    pthread_mutex_lock(&job->lock);
    int fresh = job->aborted && !m->abort_seen;
    rank = job->abort_rank;
    status = job->abort_status;
    memcpy(msg, job->abort_msg, sizeof(msg));
    pthread_mutex_unlock(&job->lock);
    if (!fresh)
        return;
    m->abort_seen = 1;
    if (m->phase != RUNNING)
        return;
    /* The library's MPI_Abort message starts with the call; any other abort
     * (a fatal transport error, an error handler, a bare PMIx client) is
     * the rank stopping the job, not the application asking to. */
    const char *how = strncmp(msg, "MPI_Abort(", 10) ? "aborted the job" : "called MPI_Abort";
    if (rank < 0) /* a spawned rank (dyn.c): msg names it */
        fprintf(stderr, "rdmpirun: %s (aborted the job with error code %d)\n", msg, status);
    else
    fprintf(stderr, "rdmpirun: rank %d on host %s %s with error code %d%s%s\n", rank,
            launch_rank_host(job, rank), how, status, msg[0] ? ": " : "", msg);
    set_exit(m, status ? status : 1);
    begin_terminate(m);
}

/* Returns the exit status a failed rank gives the job, or 0 if it did not
 * fail; *before_finalize tells whether it died inside the MPI part. */
static int failure_code(const struct launch_rank *r, int *before_finalize)
{
    *before_finalize = atomic_load(&r->connected) && !atomic_load(&r->finalized);
    if (WIFSIGNALED(r->status))
        return 128 + WTERMSIG(r->status);
    if (WEXITSTATUS(r->status))
        return WEXITSTATUS(r->status);
    return *before_finalize ? 1 : 0;
}

static void report_failure(struct monitor *m, const struct launch_rank *r, int before_finalize)
{
    const char *then = m->nalive > 0 ? "; terminating the job" : "";

    const char *host = launch_rank_host(m->job, r->rank);

    if (WIFSIGNALED(r->status))
        fprintf(stderr, "rdmpirun: rank %d (pid %d) on host %s was killed by signal %d (%s)%s\n",
                r->rank, (int)r->pid, host, WTERMSIG(r->status),
                strsignal(WTERMSIG(r->status)), then);
    else
        fprintf(stderr, "rdmpirun: rank %d (pid %d) on host %s exited with status %d%s%s\n",
                r->rank, (int)r->pid, host, WEXITSTATUS(r->status),
                before_finalize ? " before MPI_Finalize" : "", then);
}

static struct launch_rank *rank_by_pid(struct monitor *m, pid_t pid)
{
    for (int i = 0; i < m->job->nranks; i++)
        if (m->job->ranks[i].local && m->job->ranks[i].pid == pid)
            return &m->job->ranks[i];
    return NULL;
}

/* A rank ended, here or (reported by its daemon) on another node. */
static void rank_exited(struct monitor *m, struct launch_rank *r, int status)
{
    int before_finalize;

    if (!r->alive)
        return;
    r->alive = 0;
    r->status = status;
    m->nalive--;
    if (m->phase != RUNNING)
        return;
    check_abort(m); /* an abort explains the exit that follows it */
    if (m->phase != RUNNING)
        return;
    int code = failure_code(r, &before_finalize);
    if (code) {
        report_failure(m, r, before_finalize);
        set_exit(m, code);
        begin_terminate(m);
    }
}

/* A spawned rank ended (code: what launch_dyn_reaped/exited made of it). */
static void dyn_exited(struct monitor *m, int code)
{
    if (code > 0 && m->phase == RUNNING) {
        check_abort(m);
        set_exit(m, code);
        if (m->phase == RUNNING)
            begin_terminate(m);
    }
}

static void judge_exit(struct monitor *m, pid_t pid, int status)
{
    struct launch_rank *r = rank_by_pid(m, pid);
    int code;

    if (r) {
        if (m->phase == RUNNING) /* the teardown's own kills are not judged */
            launch_lastwords_wait(r, status);
        launch_server_client_gone(m->job, r->rank); /* before the exit is acted on */
        rank_exited(m, r, status);
    } else if ((code = launch_dyn_reaped(m->job, pid, status, m->phase == RUNNING)) >= 0) {
        dyn_exited(m, code);
    } else {
        launch_remote_reaped(m->job, pid, status);
    }
}

/* The children named by SIGCHLD first, in the order they died, then any other zombie. */
static void reap(struct monitor *m)
{
    int status;
    pid_t pid;

    for (int i = 0; i < m->nexited; i++)
        if (waitpid(m->exited[i], &status, WNOHANG) > 0)
            judge_exit(m, m->exited[i], status);
    m->nexited = 0;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        judge_exit(m, pid, status);
}

/* The ranks of a node whose daemon is gone (or never started them). */
static void node_failed(struct monitor *m, const struct launch_event *ev, int code)
{
    launch_dyn_node_lost(m->job, ev->node);
    for (int i = 0; i < m->job->nranks; i++) {
        struct launch_rank *r = &m->job->ranks[i];
        if (r->alive && !r->local && r->node == ev->node) {
            r->alive = 0;
            m->nalive--;
        }
    }
    if (m->phase != RUNNING || !ev->text[0])
        return;
    check_abort(m);
    if (m->phase != RUNNING)
        return;
    fprintf(stderr, "rdmpirun: %s%s\n", ev->text, m->nalive > 0 ? "; terminating the job" : "");
    set_exit(m, code);
    begin_terminate(m);
}

static void remote_events(struct monitor *m)
{
    struct launch_event ev;

    while (launch_remote_next_event(m->job, &ev)) {
        if (ev.kind == LAUNCH_EV_EXIT && ev.rank >= 0 && ev.rank < m->job->nranks)
            rank_exited(m, &m->job->ranks[ev.rank], ev.status);
        else if (ev.kind == LAUNCH_EV_DYN_EXIT)
            dyn_exited(m, launch_dyn_exited(m->job, ev.node, ev.rank, ev.status,
                                            m->phase == RUNNING));
        else if (ev.kind == LAUNCH_EV_LOST)
            node_failed(m, &ev, LAUNCH_EXIT_LOST);
        else if (ev.kind == LAUNCH_EV_START_FAIL)
            node_failed(m, &ev, ev.status ? ev.status : LAUNCH_EXIT_INTERNAL);
    }
}

static void expire_timeout(struct monitor *m)
{
    char list[4096];
    size_t len = 0;

    list[0] = '\0';
    for (int i = 0; i < m->job->nranks && len < sizeof(list) - 16; i++)
        if (m->job->ranks[i].alive)
            len += (size_t)snprintf(list + len, sizeof(list) - len, len ? ",%d" : "%d", i);
    fprintf(stderr, "rdmpirun: job timed out after %g s; ranks still running: %s\n",
            m->job->opts->timeout, list);
    set_exit(m, LAUNCH_EXIT_TIMEOUT);
    for (int i = 0; i < m->job->nranks; i++)
        if (m->job->ranks[i].local && m->job->ranks[i].alive)
            kill(m->job->ranks[i].pid, SIGRTMIN + 3);
    launch_remote_signal(m->job, SIGRTMIN + 3, SIG_PIDS_ALIVE);
    m->phase = DUMPING;
    m->deadline = launch_now() + DUMP_GRACE;
}

static void handle_signal(struct monitor *m, int sig)
{
    double now = launch_now();

    if (sig == 0) {
        check_abort(m);
    } else if (sig == SIGINT && m->last_sigint > 0 && now - m->last_sigint < SIGINT_WINDOW) {
        fprintf(stderr, "rdmpirun: second SIGINT: killing all ranks\n");
        set_exit(m, 128 + SIGINT);
        begin_kill(m);
    } else if (sig != SIGCHLD) {
        if (sig == SIGINT)
            m->last_sigint = now;
        if (m->phase == RUNNING || m->phase == DUMPING)
            forward(m, sig);
    }
}

/* Moves the teardown on when its current step has run out of time.
 * Returns 1 when the monitor should stop waiting for ranks. */
static int check_deadlines(struct monitor *m, double now)
{
    if (m->phase == RUNNING && m->timeout_at > 0 && now >= m->timeout_at && nalive(m) > 0)
        expire_timeout(m);
    else if (m->phase == DUMPING && now >= m->deadline)
        begin_terminate(m);
    else if (m->phase == TERMINATING && now >= m->deadline)
        begin_kill(m);
    else if (m->phase == KILLING && now >= m->deadline && nalive(m) > 0) {
        fprintf(stderr, "rdmpirun: warning: %d rank(s) still alive after SIGKILL; giving up\n",
                nalive(m));
        return 1;
    }
    return 0;
}

static int poll_timeout_ms(const struct monitor *m, double now)
{
    double next = INFINITY;

    if (m->phase == RUNNING && m->timeout_at > 0 && nalive(m) > 0)
        next = m->timeout_at;
    if (m->phase != RUNNING)
        next = m->deadline;
    if (nalive(m) == 0 && m->drain_until < next)
        next = m->drain_until;
    double remote = launch_remote_deadline(m->job);
    if (remote > 0 && remote < next)
        next = remote;
    if (isinf(next))
        return -1;
    return next <= now ? 0 : (int)((next - now) * 1000.0) + 1; /* round up */
}

static void on_wake(void *ctx, int sig, pid_t pid)
{
    struct monitor *m = ctx;

    if (sig == SIGCHLD && pid > 0 && m->nexited < (int)(sizeof(m->exited) / sizeof(m->exited[0])))
        m->exited[m->nexited++] = pid; /* more at once: the rest in waitpid's order */
    handle_signal(m, sig);
}

static void drain_wake_pipe(struct monitor *m)
{
    launch_wake_drain(m->job, on_wake, m);
}

/* Once every rank is gone: reach leftovers of a failed job, and give the
 * output pipes a moment to deliver their last lines. */
static void all_reaped(struct monitor *m)
{
    m->all_gone = 1;
    if (m->phase != RUNNING)
        signal_groups(m, SIGKILL);
    m->drain_until = launch_now() + DRAIN_GRACE;
    launch_remote_shutdown(m->job);
}

/* pfd has room for the wake pipe, stdin, two streams per rank and the
 * remote fds, as counted by pollfd_count(). */
static int pollfd_count(const struct monitor *m)
{
    return 2 + 2 * m->job->nranks + launch_remote_npollfds(m->job);
}

static void wait_once(struct monitor *m, struct pollfd *pfd)
{
    int n = 1, nstdin, nio, nrem;

    pfd[0].fd = m->job->wake_fd[0];
    pfd[0].events = POLLIN;
    pfd[0].revents = 0;
    nstdin = m->nalive > 0 ? launch_stdin_fill_pollfd(m->job, &pfd[n]) : 0;
    n += nstdin;
    nio = launch_io_fill_pollfds(m->job, &pfd[n], 2 * m->job->nranks);
    nrem = launch_remote_fill_pollfds(m->job, &pfd[n + nio], launch_remote_npollfds(m->job));
    if (poll(pfd, (nfds_t)(n + nio + nrem), poll_timeout_ms(m, launch_now())) < 0 &&
        errno != EINTR)
        fprintf(stderr, "rdmpirun: warning: poll failed: %s\n", strerror(errno));
    if (nstdin)
        launch_stdin_handle(m->job, &pfd[1]);
    launch_io_handle(m->job, &pfd[n], nio);
    launch_remote_handle(m->job, &pfd[n + nio], nrem);
}

int launch_monitor_run(struct launch_job *job, int start_failed)
{
    struct monitor m = {.job = job, .exit_code = -1};
    int cap = pollfd_count(&m);
    struct pollfd *pfd = calloc((size_t)cap, sizeof(*pfd));

    if (!pfd) {
        fprintf(stderr, "rdmpirun: out of memory\n");
        start_failed = 1;
    }
    for (int i = 0; i < job->nranks; i++)
        m.nalive += job->ranks[i].alive;
    if (job->opts->timeout > 0)
        m.timeout_at = launch_now() + job->opts->timeout;
    if (start_failed) {
        set_exit(&m, LAUNCH_EXIT_INTERNAL);
        begin_terminate(&m);
    }
    while (1) {
        drain_wake_pipe(&m);
        reap(&m);
        launch_dyn_progress(job);
        launch_remote_progress(job);
        remote_events(&m);
        double now = launch_now();
        int alive = nalive(&m);
        launch_remote_tick(job, now);
        remote_events(&m);
        if (alive == 0 && !m.all_gone)
            all_reaped(&m);
        if (check_deadlines(&m, now))
            break;
        if (alive == 0 && (launch_io_open_streams(job) == 0 || now >= m.drain_until) &&
            launch_remote_done(job))
            break;
        if (pfd && pollfd_count(&m) > cap) {
            struct pollfd *p = realloc(pfd, (size_t)pollfd_count(&m) * sizeof(*p));
            if (p) {
                pfd = p;
                cap = pollfd_count(&m);
            }
        }
        if (pfd && pollfd_count(&m) <= cap)
            wait_once(&m, pfd);
        else
            usleep(10000); /* still reap and escalate, just without poll */
    }
    free(pfd);
    return m.exit_code < 0 ? 0 : m.exit_code;
}
