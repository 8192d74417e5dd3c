/*
 * Signal plumbing. Handlers do nothing but write the signal number into the
 * wake pipe (the self-pipe trick), so that the main loop in monitor.c sees
 * signals, child exits and PMIx upcalls through one poll(). A handler may
 * run on any thread, libpmix's included; write() is safe there.
 *
 * A child's exit is written as SIGCHLD followed by the child's pid, in one
 * write (atomic on a pipe): the main loop judges exits in the order they
 * happened, which waitpid(-1) does not give when several children are
 * already zombies (it returns them in fork order). The first failure is
 * thus the one reported, not a rank that failed because of it.
 *
 * The dispositions and mask rdmpirun started with are kept so that each
 * rank starts with them again: an ignored SIGPIPE, in particular, would
 * otherwise survive exec and change how ranks die on a closed pipe.
 */
#include "launch.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD, SIGPIPE};
#define NHANDLED (sizeof(handled) / sizeof(handled[0]))

static int wake_write_fd = -1;
static struct sigaction saved_action[NHANDLED];
static sigset_t saved_mask;

void launch_wake(int wake_fd, unsigned char what)
{
    int saved_errno = errno;
    ssize_t n;

    /* A full pipe already holds wake-ups; losing one more is harmless
     * because the main loop reaps every child whenever it wakes. */
    do {
        n = write(wake_fd, &what, 1);
    } while (n < 0 && errno == EINTR);
    errno = saved_errno;
}

double launch_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_signal(int sig)
{
    launch_wake(wake_write_fd, (unsigned char)sig);
}

static void on_child(int sig, siginfo_t *si, void *ctx)
{
    unsigned char rec[LAUNCH_WAKE_CHILD_LEN];
    const unsigned char *pid = (const unsigned char *)&si->si_pid;
    int saved_errno = errno;
    ssize_t n;

    (void)ctx;
    rec[0] = (unsigned char)sig;
    for (size_t i = 0; i < sizeof(pid_t); i++) /* memcpy is not async-signal-safe everywhere */
        rec[1 + i] = pid[i];
    /* A full pipe refuses the whole record: the exit is still reaped, only unordered. */
    do {
        n = write(wake_write_fd, rec, sizeof(rec));
    } while (n < 0 && errno == EINTR);
    errno = saved_errno;
}

void launch_wake_drain(struct launch_job *job, void (*fn)(void *ctx, int sig, pid_t pid),
                       void *ctx)
{
    struct launch_wake_reader *rd = &job->wake_rd;
    unsigned char buf[256];
    ssize_t n;

    while ((n = read(job->wake_fd[0], buf, sizeof(buf))) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            pid_t pid = 0;
            rd->rec[rd->have++] = buf[i];
            if (rd->rec[0] == SIGCHLD && rd->have < LAUNCH_WAKE_CHILD_LEN)
                continue; /* the rest of the record is in the next read */
            if (rd->rec[0] == SIGCHLD)
                memcpy(&pid, rd->rec + 1, sizeof(pid));
            rd->have = 0;
            fn(ctx, rd->rec[0], pid);
        }
    }
}

int launch_signals_install(int wake_fd)
{
    struct sigaction sa;

    wake_write_fd = wake_fd;
    if (pthread_sigmask(SIG_SETMASK, NULL, &saved_mask))
        return -errno;
    for (size_t i = 0; i < NHANDLED; i++) {
        memset(&sa, 0, sizeof(sa));
        sigemptyset(&sa.sa_mask);
        if (handled[i] == SIGPIPE) {
            /* Our stdout may be a closed pipe; write() then fails with EPIPE. */
            sa.sa_handler = SIG_IGN;
        } else if (handled[i] == SIGCHLD) {
            sa.sa_sigaction = on_child;
            sa.sa_flags = SA_RESTART | SA_NOCLDSTOP | SA_SIGINFO;
        } else {
            sa.sa_handler = on_signal;
            sa.sa_flags = SA_RESTART;
        }
        if (sigaction(handled[i], &sa, &saved_action[i]))
            return -errno;
    }
    return 0;
}

/* Runs in a freshly forked rank before exec: only async-signal-safe calls. */
void launch_signals_child_reset(void)
{
    for (size_t i = 0; i < NHANDLED; i++) {
        struct sigaction sa = saved_action[i];
        if (sa.sa_handler != SIG_IGN)
            sa.sa_handler = SIG_DFL;
        sigaction(handled[i], &sa, NULL);
    }
    sigprocmask(SIG_SETMASK, &saved_mask, NULL);
}

/* Blocks every signal in the calling thread, so that a child forked now
 * cannot run our handlers before it resets them. */
void launch_signals_block(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

void launch_signals_restore(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}
