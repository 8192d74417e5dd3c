/*
 * Ranks' output. With --tag-output each rank's stdout and stderr arrive on
 * pipes (or, for ranks on other nodes, in IO messages from their daemon),
 * are cut into lines per stream, and every complete line is written with
 * one write() as "[1,<rank>]<stdout>:<line>" (Open MPI's format) to the same
 * stream of rdmpirun. Lines of different ranks therefore never mix within a
 * line, whatever sizes the ranks write in. Without --tag-output local ranks
 * write to rdmpirun's stdout/stderr directly, and remote output is written
 * as it comes. In a daemon every local rank has pipes, and what they carry
 * goes to a sink (the IO messages) untouched.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK 65536
#define MAX_LINE (1 << 20) /* a longer "line" is emitted in pieces */

struct stream {
    int fd;        /* read end, -1 after EOF */
    int rank;
    int is_err;
    char *buf;     /* bytes of the current, incomplete line */
    size_t len, cap;
};

struct launch_iofwd {
    int nstreams;
    struct stream *s;       /* 2 * rank + is_err */
    launch_io_sink_fn sink; /* daemon: where pipe data goes */
    void *sink_ctx;
};

static void write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) { /* our stdout may be non-blocking */
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            poll(&pfd, 1, 100);
            continue;
        }
        if (n <= 0)
            return; /* reader gone (EPIPE): drop output, keep the job */
        p += n;
        len -= (size_t)n;
    }
}

static void emit(const struct stream *s, const char *line, size_t len)
{
    char prefix[48];
    int plen = snprintf(prefix, sizeof(prefix), "[1,%d]<%s>:", s->rank,
                        s->is_err ? "stderr" : "stdout");
    char *out = malloc((size_t)plen + len + 1);

    if (!out)
        return;
    memcpy(out, prefix, (size_t)plen);
    memcpy(out + plen, line, len);
    out[(size_t)plen + len] = '\n';
    write_all(s->is_err ? STDERR_FILENO : STDOUT_FILENO, out, (size_t)plen + len + 1);
    free(out);
}

/* Appends data to the stream and emits every line it completes. */
static void feed(struct stream *s, const char *data, size_t n)
{
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->len + n)
            cap *= 2;
        char *b = realloc(s->buf, cap);
        if (!b)
            return;
        s->buf = b;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;

    size_t start = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (s->buf[i] == '\n') {
            emit(s, s->buf + start, i - start);
            start = i + 1;
        }
    }
    if (s->len - start >= MAX_LINE) {
        emit(s, s->buf + start, s->len - start);
        start = s->len;
    }
    memmove(s->buf, s->buf + start, s->len - start);
    s->len -= start;
}

static void close_stream(struct stream *s)
{
    if (s->len)
        emit(s, s->buf, s->len); /* a last line without its newline */
    s->len = 0;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

static int open_pipe(int p[2], struct stream *s, int rank, int is_err)
{
    if (pipe2(p, O_CLOEXEC))
        return -errno;
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    s->fd = p[0];
    s->rank = rank;
    s->is_err = is_err;
    return 0;
}

static int create(struct launch_job *job, launch_io_sink_fn sink, void *ctx)
{
    struct launch_iofwd *io = calloc(1, sizeof(*io));

    if (!io || !(io->s = calloc((size_t)job->nranks * 2, sizeof(*io->s)))) {
        free(io);
        return -ENOMEM;
    }
    job->io = io;
    io->sink = sink;
    io->sink_ctx = ctx;
    io->nstreams = job->nranks * 2;
    for (int i = 0; i < io->nstreams; i++) {
        io->s[i].fd = -1;
        io->s[i].rank = i / 2;
        io->s[i].is_err = i % 2;
    }
    for (int i = 0; i < job->nranks; i++) {
        struct launch_rank *r = &job->ranks[i];
        int rc = 0;
        if (r->local)
            rc = open_pipe(r->out_pipe, &io->s[2 * i], i, 0);
        if (r->local && !rc)
            rc = open_pipe(r->err_pipe, &io->s[2 * i + 1], i, 1);
        if (rc) {
            fprintf(stderr, "%s: cannot create output pipes: %s\n", launch_who, strerror(-rc));
            return rc;
        }
    }
    return 0;
}

int launch_io_create(struct launch_job *job)
{
    job->io = NULL;
    return job->opts->tag_output ? create(job, NULL, NULL) : 0;
}

int launch_io_create_forward(struct launch_job *job, launch_io_sink_fn sink, void *ctx)
{
    job->io = NULL;
    return create(job, sink, ctx);
}

/* Output of a rank on another node, as its daemon sent it. */
void launch_io_remote(struct launch_job *job, int rank, int is_err, const char *data, size_t n)
{
    if (rank < 0 || rank >= job->nranks)
        return;
    if (job->io && !job->io->sink)
        feed(&job->io->s[2 * rank + !!is_err], data, n);
    else
        write_all(is_err ? STDERR_FILENO : STDOUT_FILENO, data, n);
}

/* In the forked rank: async-signal-safe only. */
void launch_io_child(const struct launch_rank *r)
{
    if (r->out_pipe[1] >= 0)
        dup2(r->out_pipe[1], STDOUT_FILENO);
    if (r->err_pipe[1] >= 0)
        dup2(r->err_pipe[1], STDERR_FILENO);
}

/* The parent's copies of the write ends must go, or EOF never comes. */
void launch_io_after_fork(struct launch_rank *r)
{
    if (r->out_pipe[1] >= 0)
        close(r->out_pipe[1]);
    if (r->err_pipe[1] >= 0)
        close(r->err_pipe[1]);
    r->out_pipe[1] = r->err_pipe[1] = -1;
}

int launch_io_fill_pollfds(struct launch_job *job, struct pollfd *pfd, int max)
{
    int n = 0;

    for (int i = 0; job->io && i < job->io->nstreams && n < max; i++) {
        if (job->io->s[i].fd >= 0) {
            pfd[n].fd = job->io->s[i].fd;
            pfd[n].events = POLLIN;
            pfd[n].revents = 0;
            n++;
        }
    }
    return n;
}

/* pfd/n are what launch_io_fill_pollfds() filled, in the same order. */
void launch_io_handle(struct launch_job *job, const struct pollfd *pfd, int n)
{
    static char chunk[READ_CHUNK];
    int k = 0;

    for (int i = 0; job->io && i < job->io->nstreams && k < n; i++) {
        struct stream *s = &job->io->s[i];
        if (s->fd < 0 || s->fd != pfd[k].fd)
            continue;
        if (pfd[k++].revents) {
            ssize_t got = read(s->fd, chunk, sizeof(chunk));
            if (got > 0 && job->io->sink)
                job->io->sink(job->io->sink_ctx, s->rank, s->is_err, chunk, (size_t)got);
            else if (got > 0)
                feed(s, chunk, (size_t)got);
            else if (got == 0 || (errno != EAGAIN && errno != EINTR))
                close_stream(s);
        }
    }
}

int launch_io_open_streams(const struct launch_job *job)
{
    int n = 0;
    for (int i = 0; job->io && i < job->io->nstreams; i++)
        n += job->io->s[i].fd >= 0;
    return n;
}

void launch_io_destroy(struct launch_job *job)
{
    if (!job->io)
        return;
    for (int i = 0; i < job->io->nstreams; i++) {
        close_stream(&job->io->s[i]);
        free(job->io->s[i].buf);
    }
    free(job->io->s);
    free(job->io);
    job->io = NULL;
}
