/*
 * Collective data access (the _all calls, blocking, nonblocking and split)
 * as a chain of steps that MPI's progress engine advances, so
 * MPI_File_iwrite_all returns before the other ranks have entered it and a
 * rank computes while its access goes on.
 *
 * The call itself does only local work: it turns the access into file runs
 * and starts the first exchange (a nonblocking allreduce of the runs' span
 * and shape, which decides whether collective buffering pays). From then on
 * the file's job moves in io's progress hook: each time the nonblocking
 * collective it waits for has completed, it does the local work that
 * follows (cutting runs at a round's windows, writing or reading an
 * aggregator's window with pwrite/pread) and starts the next exchange
 * (twophase.c's: counts and descriptors once, then each round's data),
 * ending with an allreduce of the ranks' results (a write through the
 * node-shared windows of push.c has no exchange per round: the hook polls
 * the other ranks' counters instead). A blocking call is the
 * same start plus a wait. A non-contiguous memory type is packed (or
 * unpacked) a round at a time, only the part of the user's buffer the round
 * moves (stream.c), so the access's data is never held twice.
 *
 * Order: every exchange is a collective on the file's private communicator,
 * so all ranks must start them in the same order. The jobs of one file
 * therefore run one at a time, in the order they were started (which MPI
 * makes the same on every rank), and anything else that uses the file's
 * communicator first waits for the file's jobs (io_drain): a hook starting
 * a job's next exchange at different moments on different ranks must never
 * interleave with another collective differently on two ranks.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include "core/datatype.h"
#include "core/errors.h"
#include "core/progress.h"
#include "core/request.h"
#include "core/runtime.h"
#include "io/io.h"
#include "io/twophase.h"

/* On a node-local file system (tmpfs, ext4, ...) the ranks share one page cache: a rank's
 * own pread of each of its runs copies each byte once, all ranks at once, where collective
 * buffering copies most bytes twice (the aggregator's pread, then the exchange) and leaves
 * the pread to one process. Measured (docs/io-bench.md: 4 ranks, 64 MiB each, 8 KiB and
 * 4 KiB runs) a system call per run costs less than that second copy from runs of a page
 * up: the smallest average run over the ranks from which the collective calls take this
 * path, unless the hints ask for collective buffering (romio_cb_read/write "enable", or
 * cb_nodes given). Writes the same on tmpfs only: ext4 (6.x, large folios) walks every
 * block of the page-cache folio a write touches, so 8 KiB writes into the large folios a
 * contiguous write left cost far more than their copy (5x slower than collective
 * buffering's one large write per window). No sieving on this path: a rank writes only its
 * own bytes, so no read-modify-write and no lock. */
enum { IO_DIRECT_MIN = 4096 };

enum { ST_DECIDE, ST_COUNTS, ST_DESC, ST_PUSHOK, ST_PUSH, ST_DATA, ST_RESULT, ST_DONE };

struct io_job {
    io_job_t *next;        /* the file's queue */
    io_job_t *anext;       /* the runtime's list of running jobs (queue heads) */
    MPI_File fh;
    int write, state;
    void *buf;             /* the user's buffer */
    int count;
    MPI_Datatype dt;       /* held while the job runs */
    char *data;            /* the contiguous stream (buf itself when contiguous), or NULL */
    int contig;
    io_cursor_t mem;       /* data NULL: the stream's parts come from and go to buf through it */
    io_piece_t *p;
    size_t n;
    MPI_Offset nbytes, bytes;
    long long shape[6], gshape[6];
    int rc, first, all;
    int push, allpush;     /* a write through the node-shared windows: this rank can, all can */
    tp_t t;
    MPI_Offset r;
    MPI_Request sub;       /* the exchange the job waits for */
    io_done_fn *done;
    void *arg;
};

/* Whether this access can take collective buffering at all: a setting every
 * rank shares (the rest of the decision needs everyone's runs). */
static int may_twophase(MPI_File fh, int write)
{
    int mode = write ? fh->hints.cb_write : fh->hints.cb_read;
    return !(fh->atomic || mode == IO_DISABLE || (fh->size == 1 && mode != IO_ENABLE));
}

static int indep(io_job_t *j, int sieve)
{
    if (!j->data && j->nbytes)
        return io_access_indep_mem(j->fh, j->write, sieve, j->p, j->n, &j->mem, j->nbytes,
                                   &j->bytes);
    return io_access_indep(j->fh, j->write, sieve, j->p, j->n, j->data, j->nbytes, &j->bytes);
}

/* Starts the first exchange: how many descriptors (pieces, all rounds) go to each rank. */
static int start_counts(io_job_t *j)
{
    tp_t *t = &j->t;
    int rc = io_tp_plan(t);
    if (rc)
        return rc;
    j->state = ST_COUNTS;
    if (PMPI_Ialltoall(t->acnt, 1, MPI_INT, t->arcnt, 1, MPI_INT, j->fh->comm, &j->sub) !=
        MPI_SUCCESS)
        return CORE_EINTERN;
    return 0;
}

/* The descriptors of every round, exchanged once (ROMIO too tells each aggregator all the
 * requests in its domain before the rounds): a round then costs one exchange, its data. */
static int start_desc(io_job_t *j)
{
    tp_t *t = &j->t;
    size_t tot;
    int rc = io_tp_plan_recv(t, &tot);
    if (rc)
        return rc;
    j->state = ST_DESC;
    if (PMPI_Ialltoallv(t->aseg, t->acnt, t->adsp, t->segt, t->rall, t->arcnt, t->ardsp, t->segt,
                        j->fh->comm, &j->sub) != MPI_SUCCESS)
        return CORE_EINTERN;
    return 0;
}

static int start_data(io_job_t *j);

/* Round j->r: its pieces cut and taken, its data exchange started. */
static int start_round(io_job_t *j)
{
    int rc = io_tp_round(&j->t, j->r);
    return rc ? rc : start_data(j);
}

/* The descriptors are in: a write sends its data, a read's aggregator reads and answers. */
static int start_data(io_job_t *j)
{
    tp_t *t = &j->t;
    MPI_File fh = j->fh;
    size_t stot = io_tp_layout(t, t->scnt, t->sdsp, t->sseg, t->sbc, t->sbd);
    size_t rtot = io_tp_layout(t, t->rcnt, t->rdsp, t->rseg, t->rbc, t->rbd);
    if (stot > INT_MAX || rtot > INT_MAX)
        return CORE_ENOMEM;
    int rc;
    if ((rc = io_tp_grow(&t->sbuf, &t->sbcap, stot ? stot : 1)) ||
        (rc = io_tp_grow(&t->rbuf, &t->rbcap, rtot ? rtot : 1)))
        return rc;
    j->state = ST_DATA;
    t->direct = io_tp_direct(t);
    /* an aggregator's own pieces: written from (read into) its stream where they are,
     * not exchanged with itself (a copy of all its data each round) */
    t->self = t->data && fh->is_aggr && t->scnt[fh->rank] > 0;
    if (t->self)
        t->sbc[fh->rank] = t->rbc[fh->rank] = 0;
    char *sb = t->direct ? t->data : t->sbuf;
    if (t->write) {
        for (int q = 0; q < fh->size && !t->direct; q++) {
            char *o = t->sbuf + t->sbd[q];   /* the pieces for rank q, in rank order */
            size_t s = (size_t)t->sdsp[q] / sizeof(seg_t);
            size_t e = s + (size_t)t->scnt[q] / sizeof(seg_t);
            for (; s < e && !(t->self && q == fh->rank); s++) {
                if (t->data)
                    memcpy(o, t->data + t->sstream[s], (size_t)t->sseg[s].len);
                else
                    io_cursor_pack(t->mem, o, t->sstream[s], (size_t)t->sseg[s].len);
                o += t->sseg[s].len;
            }
        }
        if (PMPI_Ialltoallv(sb, t->sbc, t->sbd, MPI_BYTE, t->rbuf, t->rbc, t->rbd, MPI_BYTE,
                            fh->comm, &j->sub) != MPI_SUCCESS)
            return CORE_EINTERN;
        return 0;
    }
    /* read: the aggregator's answers go back along the reverse counts; a failed read
     * still answers (with whatever the window holds) so no rank waits forever */
    size_t nr = 0;
    for (int q = 0; q < fh->size; q++)
        nr += (size_t)t->rcnt[q] / sizeof(seg_t);
    rc = io_tp_agg_read(t, nr, t->rbuf);
    if (rc && !j->first)
        j->first = rc;
    if (PMPI_Ialltoallv(t->rbuf, t->rbc, t->rbd, MPI_BYTE, sb, t->sbc, t->sbd, MPI_BYTE,
                        fh->comm, &j->sub) != MPI_SUCCESS)
        return CORE_EINTERN;
    return 0;
}

/* The round's data has moved: write the window, or scatter what came back. */
static int end_round(io_job_t *j)
{
    tp_t *t = &j->t;
    int rc = 0;
    if (t->write) {
        size_t nr = 0;
        for (int q = 0; q < j->fh->size; q++)
            nr += (size_t)t->rcnt[q] / sizeof(seg_t);
        rc = io_tp_agg_write(t, nr);
    } else if (!t->direct) {
        for (int q = 0; q < j->fh->size; q++) {
            const char *in = t->sbuf + t->sbd[q];
            size_t s = (size_t)t->sdsp[q] / sizeof(seg_t);
            size_t e = s + (size_t)t->scnt[q] / sizeof(seg_t);
            for (; s < e && !(t->self && q == j->fh->rank); s++) {
                if (t->data)
                    memcpy(t->data + t->sstream[s], in, (size_t)t->sseg[s].len);
                else
                    io_cursor_unpack(t->mem, in, t->sstream[s], (size_t)t->sseg[s].len);
                in += t->sseg[s].len;
            }
        }
    }
    return rc;
}

static int start_result(io_job_t *j)
{
    j->state = ST_RESULT;
    j->rc = j->first;
    if (PMPI_Iallreduce(&j->rc, &j->all, 1, MPI_INT, MPI_MIN, j->fh->comm, &j->sub) !=
        MPI_SUCCESS)
        return CORE_EINTERN;
    return 0;
}

/* Collective buffering is on: plan the domains and start round 0 (or go to the result
 * when no rank touches any byte). */
static int start_twophase(io_job_t *j)
{
    MPI_Offset gmin = j->gshape[0], gmax = -j->gshape[1];
    j->t = (tp_t){ .fh = j->fh, .write = j->write, .p = j->p, .n = j->n, .data = j->data,
                   .mem = &j->mem };
    if (gmin >= gmax)
        return start_result(j);
    int rc = io_tp_setup(&j->t, gmin, gmax);
    if (rc)
        return rc;
    j->r = 0;
    return start_counts(j);
}

/* One step once the awaited exchange is complete. Returns 1 when the job is
 * finished (j->rc says how), 0 when it waits again. */
static int step(io_job_t *j)
{
    int rc = 0;
    switch (j->state) {
    case ST_DECIDE: {
        /* gshape: the minimum of (lo, -hi, -(n > 1), -unsorted) over the ranks; the
         * domains need every rank's runs sorted */
        int mode = j->write ? j->fh->hints.cb_write : j->fh->hints.cb_read;
        if (j->gshape[3] != 0 || (j->gshape[2] == 0 && mode != IO_ENABLE)) {
            j->rc = indep(j, 1);
            return 1;
        }
        if (j->gshape[4] && j->gshape[5] >= IO_DIRECT_MIN) {
            j->rc = indep(j, 0);
            return 1;
        }
        rc = start_twophase(j);
        break;
    }
    case ST_COUNTS:
        rc = start_desc(j);
        break;
    case ST_DESC:
        free(j->t.aseg);   /* sent */
        j->t.aseg = NULL;
        if (j->write && j->fh->cb_shbase) {
            /* the ranks agree whether the rounds go through the node-shared windows */
            size_t nall = 0;
            for (int q = 0; q < j->fh->size; q++)
                nall += (size_t)j->t.arcnt[q];
            j->push = io_push_ok(&j->t, nall);
            j->state = ST_PUSHOK;
            if (PMPI_Iallreduce(&j->push, &j->allpush, 1, MPI_INT, MPI_MIN, j->fh->comm,
                                &j->sub) != MPI_SUCCESS)
                rc = CORE_EINTERN;
            break;
        }
        rc = start_round(j);
        break;
    case ST_PUSHOK:
        if (!j->allpush) {
            rc = start_round(j);
            break;
        }
        /* io_hook polls the rounds from here (push_step); the other ranks' stores to the
         * windows wake no sleeper, so blocked calls stay awake until the rounds are done */
        j->state = ST_PUSH;
        core_progress_awake(core_rt, 1);
        j->t.seq = j->fh->cb_shseq;
        j->t.pr = 0;
        j->t.pcut = 0;
        break;
    case ST_DATA:
        rc = end_round(j);
        if (rc && !j->first)
            j->first = rc;
        rc = 0;
        if (++j->r < j->t.rounds)
            rc = start_round(j);
        else
            rc = start_result(j);
        break;
    case ST_RESULT:
        j->rc = j->all;
        if (j->all && !j->first)
            snprintf(j->fh->last_error, sizeof(j->fh->last_error),
                     "collective access to \"%s\" failed on another rank", j->fh->path);
        j->state = ST_DONE;
        return 1;
    default:
        return 1;
    }
    if (rc) {
        /* an exchange could not start, or memory ran out: the other ranks may be left
         * waiting in this round (as a blocking collective that fails would leave them) */
        j->rc = rc;
        return 1;
    }
    return 0;
}

/* The job's result: bytes moved, the read's data unpacked, the caller told. */
static void finish(io_job_t *j)
{
    int rc = j->rc;
    if (j->t.borrowed || j->t.soff) {
        io_tp_teardown(&j->t);
        if (!rc) {
            if (j->write) {
                j->bytes = j->nbytes;
            } else {
                struct stat st;
                if (fstat(j->fh->fd, &st) != 0)
                    rc = io_fail(j->fh, errno, "fstat");
                else
                    j->bytes = io_bytes_before(j->p, j->n, st.st_size);
            }
        }
    }
    if (!rc && !j->write && !j->contig && j->data)
        rc = io_stream_unpack(j->fh, j->buf, j->count, j->dt, j->data, j->bytes);
    if (!j->contig)
        free(j->data);
    free(j->p);
    core_dt_release(j->dt);
    j->done(j->arg, rc, rc ? 0 : j->bytes);
    free(j);
}

/* Advances a write through the node-shared windows; 1 when the job is finished, as step.
 * *moved: rounds done. */
static int push_step(io_job_t *j, int *moved)
{
    int rc = io_push_poll(&j->t, &j->first, moved);
    if (rc == 0)
        return 0;
    core_progress_awake(core_rt, -1);   /* out of ST_PUSH */
    if (rc == 1)
        rc = start_result(j);
    if (rc) {
        j->rc = rc;
        return 1;
    }
    return 0;
}

static int io_hook(void *arg);

static void activate(io_runtime_t *io, io_job_t *j)
{
    j->anext = io->running;
    io->running = j;
    if (io->hook < 0)
        io->hook = core_progress_add_hook(core_rt, io_hook, io);
    core_progress_wake(core_rt, io->hook);
}

/* Runs the job's first step (it just became the head of its file's queue). */
static void begin(io_runtime_t *io, io_job_t *j)
{
    if (j->state == ST_DONE)
        return;
    if (!may_twophase(j->fh, j->write)) {
        j->rc = indep(j, 1);
        j->state = ST_DONE;
        return;
    }
    int rc = PMPI_Iallreduce(j->shape, j->gshape, 6, MPI_LONG_LONG, MPI_MIN, j->fh->comm,
                             &j->sub);
    if (rc != MPI_SUCCESS) {
        j->rc = CORE_EINTERN;
        j->state = ST_DONE;
        return;
    }
    activate(io, j);
}

/* The job at the head of fh's queue is finished: the next one starts. */
static void pop(io_runtime_t *io, MPI_File fh)
{
    for (;;) {
        io_job_t *j = fh->jobs;
        fh->jobs = j->next;
        if (!fh->jobs)
            fh->jobs_tail = NULL;
        finish(j);
        io_job_t *h = fh->jobs;
        if (!h)
            return;
        begin(io, h);
        if (h->state != ST_DONE)
            return;
    }
}

/* Advances every running job whose exchange has completed. */
static int io_hook(void *arg)
{
    io_runtime_t *io = arg;
    if (io->in_hook)
        return 0;
    io->in_hook = 1;
    int events = 0;
    io_job_t **pp = &io->running;
    while (*pp) {
        io_job_t *j = *pp;
        int fin = 0;
        while (j->sub && j->sub->complete) {
            int err = j->sub->status.MPI_ERROR;
            core_req_free(j->sub);
            j->sub = NULL;
            events++;
            if (err != MPI_SUCCESS) {
                j->rc = CORE_EINTERN;
                fin = 1;
            } else {
                fin = step(j);
            }
            if (fin)
                break;
        }
        /* a write through the node-shared windows waits on other ranks' counters, not
         * on a request: polled each pass */
        if (!fin && !j->sub && j->state == ST_PUSH) {
            int moved = 0;
            fin = push_step(j, &moved);
            events += moved;
        }
        if (!fin) {
            pp = &j->anext;
            continue;
        }
        *pp = j->anext;   /* off the running list; the file's next job may join it */
        j->state = ST_DONE;
        pop(io, j->fh);
    }
    io->in_hook = 0;
    if (!io->running)
        core_progress_rest(core_rt, io->hook);
    return events;
}

int io_coll_start(MPI_File fh, int write, MPI_Offset pos, void *buf, int count, MPI_Datatype dt,
                  io_done_fn *done, void *arg)
{
    MPI_Offset nbytes = (MPI_Offset)count * (MPI_Offset)dt->size;
    MPI_Offset es = (MPI_Offset)fh->etype->size;
    if (nbytes % es != 0) {
        snprintf(fh->last_error, sizeof(fh->last_error),
                 "%lld bytes are not a whole number of etypes (%lld bytes each)",
                 (long long)nbytes, (long long)es);
        return CORE_ETYPE;
    }
    if (fh->x32 && nbytes > 0) {
        int rc = io_x32_check(fh, dt, "memory datatype");
        if (rc)
            return rc;
    }
    io_job_t *j = calloc(1, sizeof(*j));
    if (!j)
        return CORE_ENOMEM;
    j->fh = fh;
    j->write = write;
    j->buf = buf;
    j->count = count;
    j->dt = dt;
    j->nbytes = nbytes;
    j->done = done;
    j->arg = arg;
    j->contig = (core_dt_is_contig(dt) && !fh->x32) || nbytes == 0;
    /* a non-contiguous type is packed and unpacked a round (or a chunk) at a time, from
     * and into buf, so the data is never held twice; an external32 view converts a whole
     * copy (its conversion works on whole items) */
    int lazy = !j->contig && !fh->x32;
    io_cursor_init(&j->mem, buf, (size_t)count, dt);
    j->data = j->contig ? buf : lazy ? NULL : malloc((size_t)nbytes);
    if (!j->contig && !lazy && !j->data) {   /* buf may be NULL for a count of 0 */
        free(j);
        return CORE_ENOMEM;
    }
    int rc = io_view_pieces(fh, pos * es, nbytes, &j->p, &j->n);
    if (rc) {
        if (!j->contig)
            free(j->data);
        free(j);
        return rc;
    }
    if (write && j->data && !j->contig && (rc = io_stream_pack(fh, j->data, buf, count, dt)) != 0) {
        free(j->p);
        free(j->data);
        free(j);
        return rc;
    }
    core_dt_retain(dt);
    MPI_Offset lo = LLONG_MAX, hi = 0;   /* offsets are never negative */
    for (size_t i = 0; i < j->n; i++) {
        if (j->p[i].off < lo)
            lo = j->p[i].off;
        if (j->p[i].off + j->p[i].len > hi)
            hi = j->p[i].off + j->p[i].len;
    }
    j->shape[0] = lo;
    j->shape[1] = -hi;
    j->shape[2] = -(long long)(j->n > 1);
    j->shape[3] = -(long long)!io_pieces_sorted(j->p, j->n);
    int mode = write ? fh->hints.cb_write : fh->hints.cb_read;
    j->shape[4] = fh->local >= (write ? 2 : 1) && !fh->cb_nodes_set && mode == IO_AUTOMATIC;
    j->shape[5] = j->n ? (long long)(j->nbytes / (MPI_Offset)j->n) : LLONG_MAX;
    io_runtime_t *io = io_rt();
    if (fh->jobs_tail)
        fh->jobs_tail->next = j;
    else
        fh->jobs = j;
    fh->jobs_tail = j;
    if (fh->jobs == j) {
        begin(io, j);
        if (j->state == ST_DONE)
            pop(io, fh);
    }
    return 0;
}

typedef struct wait_res {
    int finished, rc;
    MPI_Offset bytes;
} wait_res_t;

static void wait_done(void *arg, int rc, MPI_Offset bytes)
{
    wait_res_t *w = arg;
    w->rc = rc;
    w->bytes = bytes;
    w->finished = 1;
}

int io_coll_access(MPI_File fh, int write, MPI_Offset pos, void *buf, int count, MPI_Datatype dt,
                   MPI_Offset *bytes)
{
    wait_res_t w = { 0, 0, 0 };
    *bytes = 0;
    int rc = io_coll_start(fh, write, pos, buf, count, dt, wait_done, &w);
    if (rc)
        return rc;
    if (!w.finished) {
        core_wait_ctx_t wc;
        core_wait_begin(&wc, write ? "MPI_File_write_all" : "MPI_File_read_all", NULL);
        while (!w.finished)
            core_wait_idle(&wc, core_progress());
        core_wait_end(&wc);
    }
    if (!w.rc)
        *bytes = w.bytes;
    return w.rc;
}

void io_drain(MPI_File fh)
{
    if (!fh->jobs)
        return;
    core_wait_ctx_t wc;
    core_wait_begin(&wc, "MPI-IO (pending collective access)", NULL);
    while (fh->jobs)
        core_wait_idle(&wc, core_progress());
    core_wait_end(&wc);
}
