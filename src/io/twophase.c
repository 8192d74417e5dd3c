/*
 * Collective buffering (two-phase I/O) for the _all calls.
 *
 * Many ranks each touching many small, interleaved runs of a file is what
 * file systems do worst. Instead a few aggregator ranks (by default one per
 * node, the hint cb_nodes sets how many) each own one contiguous file domain:
 * the span [min, max) that all ranks' runs of this call cover, cut into
 * equal parts aligned to the file system's block size (st_blksize), so no
 * two aggregators write the same block. The call proceeds in rounds; in
 * each round every aggregator handles a window of at most cb_buffer_size
 * bytes of its domain:
 *   1. every rank cuts its runs at the windows and sends each aggregator
 *      the (offset, length) descriptors of its pieces (MPI_Alltoall of
 *      counts, MPI_Alltoallv of descriptors);
 *   2. write: the data follows (MPI_Alltoallv); the aggregator lays it out
 *      in its window and writes the window's span with one pwrite, first
 *      reading it under a write lock when the pieces leave holes (data
 *      sieving, so the bytes between them survive);
 *      read: the aggregator reads the span with one pread and sends each
 *      rank its pieces back in the order they were asked for.
 * Cost per round: three all-to-all exchanges and one large system call per
 * aggregator, against one call per run and rank without it. It wins for
 * interleaved (strided) access; for large contiguous blocks per rank it
 * only moves data around, so "automatic" (the default of romio_cb_read/
 * romio_cb_write) uses it only when some rank's access is not one run.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>
#include "core/comm.h"
#include "core/errors.h"
#include "core/runtime.h"
#include "io/io.h"

int io_aggregators(MPI_File fh)
{
    int P = fh->size;
    int *order = malloc((size_t)P * sizeof(int));
    int *taken = calloc((size_t)P, sizeof(int));
    int *aggr = malloc((size_t)P * sizeof(int));
    if (!order || !taken || !aggr) {
        free(order);
        free(taken);
        free(aggr);
        return CORE_ENOMEM;
    }
    /* node leaders first (the lowest rank of each node), then the second rank of each
     * node, and so on: cb_nodes beyond the node count spreads over the nodes evenly */
    int nodes = core_rt->nnodes > 0 ? core_rt->nnodes : 1;
    int n = 0, *seen = calloc((size_t)nodes + 1, sizeof(int));
    if (!seen) {
        free(order);
        free(taken);
        free(aggr);
        return CORE_ENOMEM;
    }
    int leaders = 0;
    while (n < P) {
        memset(seen, 0, ((size_t)nodes + 1) * sizeof(int));
        for (int r = 0; r < P; r++) {
            int w = core_comm_world_rank(fh->comm, r); /* another job's process: >= size */
            int node = core_rt->node_of && w < core_rt->size ? core_rt->node_of[w] : nodes;
            if (node < 0 || node >= nodes)
                node = nodes;
            if (taken[r] || seen[node])
                continue;
            seen[node] = 1;
            taken[r] = 1;
            order[n++] = r;
        }
        if (!leaders)
            leaders = n;   /* the first pass took one rank of each node */
    }
    int want = fh->hints.cb_nodes > 0 ? fh->hints.cb_nodes : leaders;
    if (want > P)
        want = P;
    memcpy(aggr, order, (size_t)want * sizeof(int));
    free(seen);
    free(order);
    free(taken);
    free(fh->aggr);
    fh->aggr = aggr;
    fh->naggr = want;
    fh->is_aggr = 0;
    for (int i = 0; i < want; i++)
        fh->is_aggr |= aggr[i] == fh->rank;
    return 0;
}

/* A piece sent to or received by an aggregator. */
typedef struct seg {
    MPI_Offset off, len;
} seg_t;

/* A received piece, for sorting by offset (rank order breaks ties). */
typedef struct rseg {
    MPI_Offset off, len;
    size_t data;    /* offset into the received data */
    size_t order;
} rseg_t;

static int rseg_cmp(const void *a, const void *b)
{
    const rseg_t *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

typedef struct tp {
    MPI_File fh;
    int write;
    const io_piece_t *p;
    size_t n;
    char *data;
    MPI_Offset *soff;            /* stream offset of each run */
    MPI_Offset base, per, cb;    /* domains: [base + i*per, +per); windows of cb */
    MPI_Offset gmin, gmax;
    size_t *cur;                 /* per aggregator: the first run not yet sent */
    /* one round's exchange */
    int *scnt, *sdsp, *rcnt, *rdsp, *sbc, *sbd, *rbc, *rbd;
    seg_t *sseg;
    MPI_Offset *sstream;         /* stream offset of each sent piece */
    size_t nsseg, capsseg;
    seg_t *rseg;
    char *sbuf, *rbuf, *win;
} tp_t;

static int push_seg(tp_t *t, MPI_Offset off, MPI_Offset len, MPI_Offset soff)
{
    if (t->nsseg == t->capsseg) {
        size_t cap = t->capsseg ? 2 * t->capsseg : 64;
        seg_t *s = realloc(t->sseg, cap * sizeof(*s));
        if (!s)
            return CORE_ENOMEM;
        t->sseg = s;
        MPI_Offset *o = realloc(t->sstream, cap * sizeof(*o));
        if (!o)
            return CORE_ENOMEM;
        t->sstream = o;
        t->capsseg = cap;
    }
    t->sseg[t->nsseg].off = off;
    t->sseg[t->nsseg].len = len;
    t->sstream[t->nsseg++] = soff;
    return 0;
}

/* Aggregator i's window in round r: [*lo, *hi), empty when lo >= hi. */
static void window(const tp_t *t, int i, MPI_Offset r, MPI_Offset *lo, MPI_Offset *hi)
{
    MPI_Offset dlo = t->base + i * t->per, dhi = dlo + t->per;
    if (dlo < t->gmin)
        dlo = t->gmin;
    if (dhi > t->gmax)
        dhi = t->gmax;
    *lo = t->base + i * t->per + r * t->cb;
    if (*lo < dlo)
        *lo = dlo;
    *hi = t->base + i * t->per + (r + 1) * t->cb;
    if (*hi > dhi)
        *hi = dhi;
}

/* Cuts this rank's runs at the round's windows: the pieces for each aggregator. */
static int cut(tp_t *t, MPI_Offset r)
{
    MPI_File fh = t->fh;
    int P = fh->size;
    t->nsseg = 0;
    memset(t->scnt, 0, (size_t)P * sizeof(int));
    memset(t->sdsp, 0, (size_t)P * sizeof(int));
    for (int i = 0; i < fh->naggr; i++) {
        MPI_Offset lo, hi;
        window(t, i, r, &lo, &hi);
        size_t first = t->nsseg, k = t->cur[i];
        while (lo < hi && k < t->n && t->p[k].off < hi) {
            MPI_Offset a = t->p[k].off, b = a + t->p[k].len;
            MPI_Offset s = a > lo ? a : lo, e = b < hi ? b : hi;
            if (e > s) {
                int rc = push_seg(t, s, e - s, t->soff[k] + (s - a));
                if (rc)
                    return rc;
            }
            if (b > hi)
                break;
            k++;
        }
        t->cur[i] = k;
        int a = fh->aggr[i];
        t->sdsp[a] = (int)(first * sizeof(seg_t));
        t->scnt[a] = (int)((t->nsseg - first) * sizeof(seg_t));
    }
    return 0;
}

static int grow(char **buf, size_t *cap, size_t want)
{
    if (want <= *cap)
        return 0;
    char *b = realloc(*buf, want);
    if (!b)
        return CORE_ENOMEM;
    *buf = b;
    *cap = want;
    return 0;
}

/* Exchanges the descriptors: rcnt/rdsp (bytes) and rseg get what each rank sends here. */
static int exchange_desc(tp_t *t, size_t *rsegcap)
{
    MPI_File fh = t->fh;
    int P = fh->size;
    if (PMPI_Alltoall(t->scnt, 1, MPI_INT, t->rcnt, 1, MPI_INT, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    size_t tot = 0;
    for (int q = 0; q < P; q++) {
        t->rdsp[q] = (int)tot;
        tot += (size_t)t->rcnt[q];
    }
    if (tot > INT_MAX)
        return CORE_ENOMEM;
    int rc = grow((char **)&t->rseg, rsegcap, tot ? tot : 1);
    if (rc)
        return rc;
    if (PMPI_Alltoallv(t->sseg, t->scnt, t->sdsp, MPI_BYTE, t->rseg, t->rcnt, t->rdsp, MPI_BYTE,
                       fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    return 0;
}

/* Byte counts of the data that goes with the descriptors: mine (sbc/sbd) and received. */
static size_t data_layout(tp_t *t, const int *cnt, const int *dsp, const seg_t *segs, int *bc,
                          int *bd)
{
    size_t tot = 0;
    for (int q = 0; q < t->fh->size; q++) {
        bd[q] = (int)tot;
        size_t b = 0;
        for (int s = dsp[q] / (int)sizeof(seg_t), e = s + cnt[q] / (int)sizeof(seg_t); s < e; s++)
            b += (size_t)segs[s].len;
        bc[q] = (int)b;
        tot += b;
    }
    return tot;
}

/* The aggregator's part of a write round: lay the pieces out in the window, write it. */
static int agg_write(tp_t *t, size_t nr)
{
    MPI_File fh = t->fh;
    if (nr == 0)
        return 0;
    rseg_t *v = malloc(nr * sizeof(*v));
    if (!v)
        return CORE_ENOMEM;
    size_t k = 0, d = 0;
    for (int q = 0; q < fh->size; q++)
        for (int s = t->rdsp[q] / (int)sizeof(seg_t), e = s + t->rcnt[q] / (int)sizeof(seg_t);
             s < e; s++) {
            v[k] = (rseg_t){ t->rseg[s].off, t->rseg[s].len, d, k };
            d += (size_t)t->rseg[s].len;
            k++;
        }
    qsort(v, nr, sizeof(*v), rseg_cmp);
    MPI_Offset lo = v[0].off, hi = lo, reach = lo;
    int holes = 0;
    for (size_t i = 0; i < nr; i++) {
        if (v[i].off > reach)
            holes = 1;
        if (v[i].off + v[i].len > reach)
            reach = v[i].off + v[i].len;
    }
    hi = reach;
    int rmw = holes && fh->hints.ds_write != IO_DISABLE && io_can_read(fh);
    int rc = 0;
    if (holes && !rmw) {
        /* write each covered run on its own: no read access, or sieving is off */
        for (size_t i = 0; i < nr && !rc; i++)
            rc = io_pwrite_all(fh, t->rbuf + v[i].data, (size_t)v[i].len, v[i].off);
        free(v);
        return rc;
    }
    if (rmw && (rc = io_lock(fh, 1, lo, hi - lo)) != 0) {
        free(v);
        return rc;
    }
    if (rmw) {
        size_t got;
        rc = io_pread_all(fh, t->win, (size_t)(hi - lo), lo, &got);
        if (!rc)
            memset(t->win + got, 0, (size_t)(hi - lo) - got);
    }
    for (size_t i = 0; i < nr && !rc; i++)
        memcpy(t->win + (v[i].off - lo), t->rbuf + v[i].data, (size_t)v[i].len);
    if (!rc)
        rc = io_pwrite_all(fh, t->win, (size_t)(hi - lo), lo);
    if (rmw) {
        int urc = io_unlock(fh, lo, hi - lo);
        if (!rc)
            rc = urc;
    }
    free(v);
    return rc;
}

/* The aggregator's part of a read round: read the span, answer each rank in its order. */
static int agg_read(tp_t *t, size_t nr, char *out)
{
    if (nr == 0)
        return 0;
    MPI_Offset lo = t->rseg[0].off, hi = lo;
    for (size_t i = 0; i < nr; i++) {
        if (t->rseg[i].off < lo)
            lo = t->rseg[i].off;
        if (t->rseg[i].off + t->rseg[i].len > hi)
            hi = t->rseg[i].off + t->rseg[i].len;
    }
    size_t got;
    int rc = io_pread_all(t->fh, t->win, (size_t)(hi - lo), lo, &got);
    if (rc)
        return rc;
    memset(t->win + got, 0, (size_t)(hi - lo) - got);
    for (size_t i = 0; i < nr; i++) {
        memcpy(out, t->win + (t->rseg[i].off - lo), (size_t)t->rseg[i].len);
        out += t->rseg[i].len;
    }
    return 0;
}

static int round_io(tp_t *t, MPI_Offset r, size_t *rsegcap, size_t *sbcap, size_t *rbcap)
{
    MPI_File fh = t->fh;
    int rc = cut(t, r);
    if (!rc)
        rc = exchange_desc(t, rsegcap);
    if (rc)
        return rc;
    size_t stot = data_layout(t, t->scnt, t->sdsp, t->sseg, t->sbc, t->sbd);
    size_t rtot = data_layout(t, t->rcnt, t->rdsp, t->rseg, t->rbc, t->rbd);
    size_t nr = 0;
    for (int q = 0; q < fh->size; q++)
        nr += (size_t)t->rcnt[q] / sizeof(seg_t);
    if (stot > INT_MAX || rtot > INT_MAX)
        return CORE_ENOMEM;
    if ((rc = grow(&t->sbuf, sbcap, stot ? stot : 1)) || (rc = grow(&t->rbuf, rbcap, rtot ? rtot : 1)))
        return rc;
    if (t->write) {
        char *o = t->sbuf;
        for (size_t s = 0; s < t->nsseg; s++) {
            memcpy(o, t->data + t->sstream[s], (size_t)t->sseg[s].len);
            o += t->sseg[s].len;
        }
        if (PMPI_Alltoallv(t->sbuf, t->sbc, t->sbd, MPI_BYTE, t->rbuf, t->rbc, t->rbd, MPI_BYTE,
                           fh->comm) != MPI_SUCCESS)
            return CORE_EINTERN;
        return agg_write(t, nr);
    }
    /* read: the aggregator's answers go back along the reverse counts */
    rc = agg_read(t, nr, t->rbuf);
    if (PMPI_Alltoallv(t->rbuf, t->rbc, t->rbd, MPI_BYTE, t->sbuf, t->sbc, t->sbd, MPI_BYTE,
                       fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    const char *in = t->sbuf;
    for (size_t s = 0; s < t->nsseg; s++) {
        memcpy(t->data + t->sstream[s], in, (size_t)t->sseg[s].len);
        in += t->sseg[s].len;
    }
    return rc;
}

static void tp_free(tp_t *t)
{
    free(t->soff);
    free(t->cur);
    free(t->scnt);
    free(t->sseg);
    free(t->sstream);
}

void io_twophase_free(MPI_File fh)
{
    free(fh->cb_win);
    free(fh->cb_sbuf);
    free(fh->cb_rbuf);
    free(fh->cb_rseg);
    fh->cb_win = fh->cb_sbuf = fh->cb_rbuf = fh->cb_rseg = NULL;
    fh->cb_wincap = fh->cb_sbcap = fh->cb_rbcap = fh->cb_rsegcap = 0;
}

/* The domains: [gmin, gmax) of all ranks' runs, split among the aggregators. */
static int plan(tp_t *t)
{
    MPI_File fh = t->fh;
    MPI_Offset lo = LLONG_MAX, hi = 0;   /* offsets are never negative */
    for (size_t i = 0; i < t->n; i++) {
        if (t->p[i].off < lo)
            lo = t->p[i].off;
        if (t->p[i].off + t->p[i].len > hi)
            hi = t->p[i].off + t->p[i].len;
    }
    long long mm[2] = { lo, -hi }, g[2];
    if (PMPI_Allreduce(mm, g, 2, MPI_LONG_LONG, MPI_MIN, fh->comm) != MPI_SUCCESS)
        return CORE_EINTERN;
    t->gmin = g[0];
    t->gmax = -g[1];
    if (t->gmin >= t->gmax)
        return 0;
    MPI_Offset bs = fh->blksize > 0 ? fh->blksize : 4096;
    t->base = t->gmin - t->gmin % bs;
    MPI_Offset span = t->gmax - t->base, A = fh->naggr;
    t->per = (span + A - 1) / A;
    t->per = (t->per + bs - 1) / bs * bs;
    t->cb = fh->hints.cb_buffer_size / bs * bs;
    if (t->cb < bs)
        t->cb = bs;
    return 0;
}

int io_twophase(MPI_File fh, int write, const io_piece_t *p, size_t n, char *data,
                MPI_Offset *bytes)
{
    tp_t t = { .fh = fh, .write = write, .p = p, .n = n, .data = data };
    int P = fh->size, rc = plan(&t);
    if (rc || t.gmin >= t.gmax) {
        *bytes = 0;
        return rc;
    }
    t.soff = malloc((n ? n : 1) * sizeof(MPI_Offset));
    t.cur = calloc((size_t)fh->naggr, sizeof(size_t));
    t.scnt = malloc(8 * (size_t)P * sizeof(int));
    if (fh->is_aggr && grow(&fh->cb_win, &fh->cb_wincap, (size_t)t.cb) != 0)
        fh->cb_win = NULL;
    t.win = fh->cb_win;
    t.sbuf = fh->cb_sbuf;
    t.rbuf = fh->cb_rbuf;
    t.rseg = (seg_t *)fh->cb_rseg;
    if (!t.soff || !t.cur || !t.scnt || (fh->is_aggr && !t.win)) {
        tp_free(&t);
        return CORE_ENOMEM;
    }
    t.sdsp = t.scnt + P;
    t.rcnt = t.sdsp + P;
    t.rdsp = t.rcnt + P;
    t.sbc = t.rdsp + P;
    t.sbd = t.sbc + P;
    t.rbc = t.sbd + P;
    t.rbd = t.rbc + P;
    MPI_Offset s = 0;
    for (size_t i = 0; i < n; i++) {
        t.soff[i] = s;
        s += p[i].len;
    }
    MPI_Offset rounds = (t.per + t.cb - 1) / t.cb;
    size_t rsegcap = fh->cb_rsegcap, sbcap = fh->cb_sbcap, rbcap = fh->cb_rbcap;
    /* a failure on one rank must not leave the others waiting in the next round's
     * exchange: every rank runs every round, and the first error is reported at the end */
    int first = 0;
    for (MPI_Offset r = 0; r < rounds; r++) {
        rc = round_io(&t, r, &rsegcap, &sbcap, &rbcap);
        if (rc == CORE_EINTERN || rc == CORE_ENOMEM) {
            first = rc;
            break;
        }
        if (rc && !first)
            first = rc;
    }
    rc = first;
    fh->cb_sbuf = t.sbuf;   /* kept for the next call (grown, perhaps moved) */
    fh->cb_rbuf = t.rbuf;
    fh->cb_rseg = (char *)t.rseg;
    fh->cb_sbcap = sbcap;
    fh->cb_rbcap = rbcap;
    fh->cb_rsegcap = rsegcap;
    int all;
    if (PMPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, fh->comm) != MPI_SUCCESS)
        all = CORE_EINTERN;
    if (all && !rc)
        snprintf(fh->last_error, sizeof(fh->last_error),
                 "collective access to \"%s\" failed on another rank", fh->path);
    tp_free(&t);
    if (all)
        return all;
    if (write) {
        *bytes = s;
        return 0;
    }
    struct stat st;
    if (fstat(fh->fd, &st) != 0)
        return io_fail(fh, errno, "fstat");
    *bytes = io_bytes_before(p, n, st.st_size);
    return 0;
}
