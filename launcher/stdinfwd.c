/*
 * Rank 0's stdin when rdmpirun's stdin is a terminal, or when rank 0 runs
 * under a daemon (then its stdin is a pipe fed by the STDIN messages that
 * rdmpirun sends, launch_stdin_push). Ranks run in their own
 * process groups, and a process outside the terminal's foreground group
 * that reads from it is stopped by SIGTTIN. So in that case rdmpirun, which
 * is in the foreground, reads the terminal and copies to a pipe that rank 0
 * has as stdin. Any other stdin (file, pipe, /dev/null) is simply inherited
 * by rank 0, and the other ranks read /dev/null.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct launch_stdin {
    int out_fd;         /* write end of rank 0's stdin pipe; -1 once closed */
    size_t len, off;    /* bytes read from the terminal, bytes passed on */
    char buf[65536];
    int pushed;         /* fed by launch_stdin_push, not by a terminal */
    char *q;            /* pushed bytes not yet written */
    size_t qlen, qoff;
    int eof;            /* close out_fd once q is written */
};

static int create(struct launch_job *job)
{
    int p[2];

    if (pipe2(p, O_CLOEXEC))
        return -errno;
    job->in = calloc(1, sizeof(*job->in));
    if (!job->in) {
        close(p[0]);
        close(p[1]);
        return -ENOMEM;
    }
    fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
    job->in->out_fd = p[1];
    job->ranks[0].stdin_fd = p[0];
    return 0;
}

int launch_stdin_create(struct launch_job *job)
{
    job->in = NULL;
    if (job->nranks < 1 || !job->ranks[0].local || !isatty(STDIN_FILENO))
        return 0;
    return create(job);
}

int launch_stdin_create_pipe(struct launch_job *job)
{
    int rc;

    job->in = NULL;
    if (job->nranks < 1 || !job->ranks[0].local)
        return 0;
    rc = create(job);
    if (!rc)
        job->in->pushed = 1;
    return rc;
}

void launch_stdin_after_fork(struct launch_rank *r)
{
    if (r->stdin_fd >= 0)
        close(r->stdin_fd);
    r->stdin_fd = -1;
}

static void stop(struct launch_stdin *in)
{
    if (in->out_fd >= 0)
        close(in->out_fd); /* rank 0 sees EOF */
    in->out_fd = -1;
    in->len = in->off = 0;
    free(in->q);
    in->q = NULL;
    in->qlen = in->qoff = 0;
}

/* Appends bytes for rank 0; none means EOF. */
void launch_stdin_push(struct launch_job *job, const char *data, size_t n)
{
    struct launch_stdin *in = job->in;

    if (!in || !in->pushed || in->out_fd < 0)
        return;
    if (n == 0) {
        in->eof = 1;
        if (in->qoff == in->qlen)
            stop(in);
        return;
    }
    char *q = realloc(in->q, in->qlen - in->qoff + n);
    if (!q)
        return;
    memmove(q, q + in->qoff, in->qlen - in->qoff);
    in->qlen -= in->qoff;
    in->qoff = 0;
    memcpy(q + in->qlen, data, n);
    in->qlen += n;
    in->q = q;
}

/* Fills at most one pollfd: the pipe while data is pending, else the
 * terminal, but only while we are its foreground group (reading it from
 * the background would stop rdmpirun). */
int launch_stdin_fill_pollfd(struct launch_job *job, struct pollfd *pfd)
{
    struct launch_stdin *in = job->in;

    if (!in || in->out_fd < 0)
        return 0;
    if (in->pushed) {
        if (in->qoff == in->qlen)
            return 0;
        pfd->fd = in->out_fd;
        pfd->events = POLLOUT;
    } else if (in->off < in->len) {
        pfd->fd = in->out_fd;
        pfd->events = POLLOUT;
    } else if (tcgetpgrp(STDIN_FILENO) == getpgrp()) {
        pfd->fd = STDIN_FILENO;
        pfd->events = POLLIN;
    } else {
        return 0;
    }
    pfd->revents = 0;
    return 1;
}

void launch_stdin_handle(struct launch_job *job, const struct pollfd *pfd)
{
    struct launch_stdin *in = job->in;
    ssize_t n;

    if (!in || in->out_fd < 0 || !pfd->revents)
        return;
    if (in->pushed) {
        n = write(in->out_fd, in->q + in->qoff, in->qlen - in->qoff);
        if (n > 0)
            in->qoff += (size_t)n;
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || (in->eof && in->qoff == in->qlen))
            stop(in);
        return;
    }
    if (pfd->fd == STDIN_FILENO) {
        n = read(STDIN_FILENO, in->buf, sizeof(in->buf));
        if (n <= 0) {
            if (n == 0 || (errno != EAGAIN && errno != EINTR))
                stop(in);
            return;
        }
        in->len = (size_t)n;
        in->off = 0;
    }
    n = write(in->out_fd, in->buf + in->off, in->len - in->off);
    if (n > 0)
        in->off += (size_t)n;
    else if (n < 0 && errno != EAGAIN && errno != EINTR)
        stop(in); /* rank 0 closed its stdin or is gone */
}

void launch_stdin_destroy(struct launch_job *job)
{
    if (!job->in)
        return;
    stop(job->in);
    free(job->in);
    job->in = NULL;
}
