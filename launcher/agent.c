/*
 * The launch agent: the command that starts rdmpid on another host,
 * "ssh -x -o BatchMode=yes" unless --launch-agent says otherwise (any
 * command that runs its remaining arguments on the host named by its next
 * one: "ip netns exec", "nsenter ...", a wrapper script). It runs as
 * `AGENT... HOST RDMPID [ARGS]`, in its own process group so that terminal
 * signals reach only rdmpirun, with a pipe as stdin (the boot line, then
 * held open: its EOF tells the daemon rdmpirun is gone) and one pipe for
 * its stdout and stderr. Until the daemon is up, what the agent prints is
 * kept to explain a failure; afterwards it is passed on to our stderr.
 */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_AGENT "ssh -x -o BatchMode=yes"
#define MAX_ARGS 64

/* Splits cmd at blanks into argv (no quoting), appending the extra args. */
static int build_argv(const char *cmd, char *copy, size_t len, char *const extra[], char **argv)
{
    int n = 0;
    char *save = NULL, *tok;

    snprintf(copy, len, "%s", cmd && *cmd ? cmd : DEFAULT_AGENT);
    for (tok = strtok_r(copy, " \t", &save); tok && n < MAX_ARGS; tok = strtok_r(NULL, " \t", &save))
        argv[n++] = tok;
    for (int i = 0; extra[i] && n < MAX_ARGS + 8; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    return n;
}

const char *launch_agent_cmd(const char *cmd)
{
    return cmd && *cmd ? cmd : DEFAULT_AGENT;
}

static void child(char **argv, int in_fd, int out_fd)
{
    char msg[600];
    int n;

    launch_signals_child_reset();
    setpgid(0, 0);
    dup2(in_fd, STDIN_FILENO);
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    execvp(argv[0], argv);
    n = snprintf(msg, sizeof(msg), "cannot run the launch agent '%s': %s\n", argv[0],
                 strerror(errno));
    if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0)
        _exit(LAUNCH_EXIT_NOPROG);
    _exit(LAUNCH_EXIT_NOPROG);
}

/*
 * Starts `cmd host extra...` and writes input (may be NULL) to its stdin,
 * which stays open unless input is NULL.
 */
int launch_agent_start(struct launch_agent *a, const char *cmd, const char *host,
                       char *const extra[], const char *input)
{
    char copy[4096], *argv[MAX_ARGS + 10], *args[12];
    int in[2], out[2], k = 0;
    sigset_t old;

    memset(a, 0, sizeof(*a));
    a->in_fd = a->out_fd = -1;
    a->quiet = 1;
    args[k++] = (char *)host;
    for (int i = 0; extra[i] && k < 11; i++)
        args[k++] = extra[i];
    args[k] = NULL;
    build_argv(cmd, copy, sizeof(copy), args, argv);
    if (pipe2(in, O_CLOEXEC))
        return -errno;
    if (pipe2(out, O_CLOEXEC)) {
        close(in[0]);
        close(in[1]);
        return -errno;
    }
    launch_signals_block(&old);
    a->pid = fork();
    if (a->pid == 0)
        child(argv, in[0], out[1]);
    launch_signals_restore(&old);
    close(in[0]);
    close(out[1]);
    if (a->pid < 0) {
        int err = errno;
        close(in[1]);
        close(out[0]);
        return -err;
    }
    setpgid(a->pid, a->pid);
    a->in_fd = in[1];
    a->out_fd = out[0];
    fcntl(a->out_fd, F_SETFL, fcntl(a->out_fd, F_GETFL) | O_NONBLOCK);
    if (input) {
        size_t len = strlen(input), off = 0;
        while (off < len) { /* one short line: the pipe takes it at once */
            ssize_t n = write(a->in_fd, input + off, len - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break; /* the agent is gone; its exit explains why */
            off += (size_t)n;
        }
        fcntl(a->in_fd, F_SETFL, fcntl(a->in_fd, F_GETFL) | O_NONBLOCK);
    } else {
        launch_agent_close_stdin(a);
    }
    return 0;
}

static void keep_line(struct launch_agent *a, const char *line, size_t len)
{
    if (len == 0)
        return;
    if (!a->quiet) {
        char out[1100];
        int n = snprintf(out, sizeof(out), "%.*s\n", (int)(len < 1024 ? len : 1024), line);
        if (write(STDERR_FILENO, out, (size_t)n) < 0)
            return;
        return;
    }
    memmove(a->last[0], a->last[1], sizeof(a->last) - sizeof(a->last[0]));
    snprintf(a->last[LAUNCH_AGENT_LINES - 1], sizeof(a->last[0]), "%.*s", (int)len, line);
    if (a->nlast < LAUNCH_AGENT_LINES)
        a->nlast++;
}

/* Reads what the agent printed; returns -1 at EOF. */
int launch_agent_read(struct launch_agent *a)
{
    char buf[4096];
    ssize_t n;

    if (a->out_fd < 0)
        return -1;
    while ((n = read(a->out_fd, buf, sizeof(buf))) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n' || a->plen == sizeof(a->part) - 1) {
                keep_line(a, a->part, a->plen);
                a->plen = 0;
                if (buf[i] == '\n')
                    continue;
            }
            a->part[a->plen++] = buf[i];
        }
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        keep_line(a, a->part, a->plen);
        a->plen = 0;
        close(a->out_fd);
        a->out_fd = -1;
        return -1;
    }
    return 0;
}

/* From now on, what the agent prints goes to our stderr as it comes. */
void launch_agent_unmute(struct launch_agent *a)
{
    a->quiet = 0;
    a->nlast = 0;
}

void launch_agent_close_stdin(struct launch_agent *a)
{
    if (a->in_fd >= 0)
        close(a->in_fd);
    a->in_fd = -1;
}

/* "ssh: connect to host ...: No route to host; exited with status 255" */
void launch_agent_describe(const struct launch_agent *a, char *buf, size_t len)
{
    size_t n = 0;
    int first = LAUNCH_AGENT_LINES - a->nlast;

    buf[0] = '\0';
    for (int i = first; i < LAUNCH_AGENT_LINES && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " / " : "", a->last[i]);
    if (!a->reaped || n >= len)
        return;
    if (WIFSIGNALED(a->status))
        snprintf(buf + n, len - n, "%slaunch agent killed by signal %d", n ? "; " : "",
                 WTERMSIG(a->status));
    else
        snprintf(buf + n, len - n, "%slaunch agent exited with status %d", n ? "; " : "",
                 WEXITSTATUS(a->status));
}

/* Records the exit status if pid is this agent's. */
int launch_agent_reaped(struct launch_agent *a, pid_t pid, int status)
{
    if (a->pid <= 0 || a->pid != pid || a->reaped)
        return 0;
    a->reaped = 1;
    a->status = status;
    return 1;
}

void launch_agent_kill(struct launch_agent *a, int sig)
{
    if (a->pid > 0 && !a->reaped && kill(-a->pid, sig))
        kill(a->pid, sig);
}

/* Waits (polling) at most timeout seconds for the agent to exit. */
int launch_agent_wait(struct launch_agent *a, double timeout)
{
    for (double t = 0; !a->reaped && t < timeout; t += 0.01) {
        int status;
        if (a->pid <= 0)
            return 0;
        if (waitpid(a->pid, &status, WNOHANG) == a->pid) {
            a->reaped = 1;
            a->status = status;
            break;
        }
        launch_agent_read(a);
        usleep(10000);
    }
    return a->reaped ? 0 : -ETIMEDOUT;
}

void launch_agent_release(struct launch_agent *a)
{
    launch_agent_close_stdin(a);
    if (a->out_fd >= 0)
        close(a->out_fd);
    a->out_fd = -1;
}
