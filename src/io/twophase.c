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
 *   1. once, before the rounds: every rank cuts its runs at all the windows
 *      and sends each aggregator the (offset, length) descriptors of its
 *      pieces, round after round (MPI_Alltoall of counts, MPI_Alltoallv of
 *      descriptors); each round then takes its own from them;
 *   2. write: the data follows (MPI_Alltoallv); the aggregator lays it out
 *      in its window and writes the window's span with one pwrite, first
 *      reading it under a write lock when the pieces leave holes (data
 *      sieving, so the bytes between them survive);
 *      read: the aggregator reads the span with one pread and sends each
 *      rank its pieces back in the order they were asked for.
 * The rounds' exchanges are nonblocking collectives chained by icoll.c, so
 * MPI_File_iwrite_all and friends run in the background; this file holds the
 * local work between them.
 * An aggregator's own pieces are not exchanged: it writes them from (reads
 * them into) its own stream. Cost per round: one all-to-all exchange and one
 * large system call per aggregator, against one call per run and rank
 * without it. It wins for
 * interleaved (strided) access; for large contiguous blocks per rank it
 * only moves data around, so "automatic" (the default of romio_cb_read/
 * romio_cb_write) uses it only when some rank's access is not one run, and
 * not on a node-local file system when the runs are a page or more (reads;
 * writes on tmpfs only): there the ranks share the page cache, and each
 * rank's own pread/pwrite per run copies each byte once (icoll.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <errno.h>
#include "core/comm.h"
#include "core/errors.h"
#include "core/runtime.h"
#include "io/io.h"
#include "io/twophase.h"

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

/* A received piece, for sorting by offset (rank order breaks ties). */
typedef struct rseg {
    MPI_Offset off, len;
    char *ptr;      /* its data: in the received data, or the aggregator's own stream */
    size_t order;
} rseg_t;

static int rseg_cmp(const void *a, const void *b)
{
    const rseg_t *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

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

void io_tp_window(const tp_t *t, int i, MPI_Offset r, MPI_Offset *lo, MPI_Offset *hi)
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

int io_tp_cut(tp_t *t, MPI_Offset r)
{
    MPI_File fh = t->fh;
    int P = fh->size;
    t->nsseg = 0;
    memset(t->scnt, 0, (size_t)P * sizeof(int));
    memset(t->sdsp, 0, (size_t)P * sizeof(int));
    for (int i = 0; i < fh->naggr; i++) {
        MPI_Offset lo, hi;
        io_tp_window(t, i, r, &lo, &hi);
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

int io_tp_grow(char **buf, size_t *cap, size_t want)
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

int io_tp_plan(tp_t *t)
{
    MPI_File fh = t->fh;
    int P = fh->size;
    t->acnt = calloc(4 * (size_t)P, sizeof(int));
    t->acur = calloc((size_t)P, sizeof(size_t));
    if (!t->acnt || !t->acur)
        return CORE_ENOMEM;
    t->adsp = t->acnt + P;
    t->arcnt = t->adsp + P;
    t->ardsp = t->arcnt + P;
    /* two passes over the rounds' cuts: count, then fill at each aggregator's place */
    size_t tot = 0;
    for (MPI_Offset r = 0; r < t->rounds; r++) {
        int rc = io_tp_cut(t, r);
        if (rc)
            return rc;
        for (int q = 0; q < P; q++)
            t->acnt[q] += t->scnt[q] / (int)sizeof(seg_t);
    }
    for (int q = 0; q < P; q++) {
        t->adsp[q] = (int)tot;
        tot += (size_t)t->acnt[q];
        if (tot > INT_MAX)
            return CORE_ENOMEM;
    }
    t->aseg = malloc((tot ? tot : 1) * sizeof(seg_t));
    if (!t->aseg)
        return CORE_ENOMEM;
    memset(t->cur, 0, (size_t)fh->naggr * sizeof(size_t));
    memset(t->acur, 0, (size_t)P * sizeof(size_t));   /* fill positions, for now */
    for (MPI_Offset r = 0; r < t->rounds; r++) {
        int rc = io_tp_cut(t, r);
        if (rc)
            return rc;
        for (int q = 0; q < P; q++) {
            size_t n = (size_t)t->scnt[q] / sizeof(seg_t);
            memcpy(t->aseg + t->adsp[q] + t->acur[q], t->sseg + t->sdsp[q] / (int)sizeof(seg_t),
                   n * sizeof(seg_t));
            t->acur[q] += n;
        }
    }
    memset(t->cur, 0, (size_t)fh->naggr * sizeof(size_t));
    memset(t->acur, 0, (size_t)P * sizeof(size_t));
    t->me = -1;
    for (int i = 0; i < fh->naggr; i++)
        if (fh->aggr[i] == fh->rank)
            t->me = i;
    if (PMPI_Type_contiguous((int)sizeof(seg_t), MPI_BYTE, &t->segt) != MPI_SUCCESS ||
        PMPI_Type_commit(&t->segt) != MPI_SUCCESS)
        return CORE_EINTERN;
    return 0;
}

int io_tp_plan_recv(tp_t *t, size_t *total)
{
    size_t tot = 0;
    for (int q = 0; q < t->fh->size; q++) {
        t->ardsp[q] = (int)tot;
        t->acur[q] = tot;
        tot += (size_t)t->arcnt[q];
        if (tot > INT_MAX)
            return CORE_ENOMEM;
    }
    *total = tot;
    return io_tp_grow((char **)&t->rall, &t->rallcap, (tot ? tot : 1) * sizeof(seg_t));
}

int io_tp_round(tp_t *t, MPI_Offset r)
{
    MPI_File fh = t->fh;
    int P = fh->size;
    int rc = io_tp_cut(t, r);
    if (rc)
        return rc;
    memset(t->rcnt, 0, (size_t)P * sizeof(int));
    memset(t->rdsp, 0, (size_t)P * sizeof(int));
    if (t->me < 0)
        return 0;
    /* each rank's pieces for this aggregator come round after round, cut at its windows:
     * round r's are those before the window's end */
    MPI_Offset lo, hi;
    io_tp_window(t, t->me, r, &lo, &hi);
    size_t tot = 0;
    for (int q = 0; q < P; q++) {
        size_t k = t->acur[q], e = (size_t)t->ardsp[q] + (size_t)t->arcnt[q];
        while (k < e && lo < hi && t->rall[k].off < hi)
            k++;
        tot += k - t->acur[q];
    }
    if (tot * sizeof(seg_t) > INT_MAX)
        return CORE_ENOMEM;
    if ((rc = io_tp_grow((char **)&t->rseg, &t->rsegcap, (tot ? tot : 1) * sizeof(seg_t))) != 0)
        return rc;
    size_t o = 0;
    for (int q = 0; q < P; q++) {
        size_t k = t->acur[q], e = (size_t)t->ardsp[q] + (size_t)t->arcnt[q];
        while (k < e && lo < hi && t->rall[k].off < hi)
            k++;
        size_t n = k - t->acur[q];
        memcpy(t->rseg + o, t->rall + t->acur[q], n * sizeof(seg_t));
        t->rdsp[q] = (int)(o * sizeof(seg_t));
        t->rcnt[q] = (int)(n * sizeof(seg_t));
        o += n;
        t->acur[q] = k;
    }
    return 0;
}

size_t io_tp_layout(tp_t *t, const int *cnt, const int *dsp, const seg_t *segs, int *bc,
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

/* Sorts the nr received pieces (t->rseg, data at base in rank order) by offset into *out;
 * *tiled: whether they cover [lo, hi) exactly once (no hole, no overlap), *holes: whether
 * some bytes between them are left out. The aggregator's own pieces (t->self) point into its
 * stream: the same pieces, in the same order, as it cut for itself. */
static int sorted_pieces(tp_t *t, size_t nr, char *base, rseg_t **out, int *tiled, int *holes)
{
    MPI_File fh = t->fh;
    rseg_t *v = malloc(nr * sizeof(*v));
    if (!v)
        return CORE_ENOMEM;
    size_t k = 0, d = 0;
    for (int q = 0; q < fh->size; q++) {
        size_t mine = (size_t)t->sdsp[fh->rank] / sizeof(seg_t);
        for (int s = t->rdsp[q] / (int)sizeof(seg_t), e = s + t->rcnt[q] / (int)sizeof(seg_t);
             s < e; s++) {
            char *ptr = t->self && q == fh->rank ? t->data + t->sstream[mine++] : base + d;
            v[k] = (rseg_t){ t->rseg[s].off, t->rseg[s].len, ptr, k };
            d += (size_t)t->rseg[s].len;
            k++;
        }
    }
    qsort(v, nr, sizeof(*v), rseg_cmp);
    MPI_Offset reach = v[0].off;
    *holes = 0;
    *tiled = 1;
    for (size_t i = 0; i < nr; i++) {
        if (v[i].off > reach)
            *holes = 1;
        if (v[i].off != reach)
            *tiled = 0;
        if (v[i].off + v[i].len > reach)
            reach = v[i].off + v[i].len;
    }
    *out = v;
    return 0;
}

/* The pieces v as a vector over their data; gaps between them, when gap is not NULL, read
 * into gap (a scratch buffer of the window's size). */
static struct iovec *pieces_iov(const rseg_t *v, size_t nr, char *gap, int *cnt)
{
    struct iovec *iov = malloc(2 * nr * sizeof(*iov));
    if (!iov)
        return NULL;
    int c = 0;
    MPI_Offset reach = v[0].off;
    for (size_t i = 0; i < nr; i++) {
        if (v[i].off > reach)
            iov[c++] = (struct iovec){ gap, (size_t)(v[i].off - reach) };
        iov[c++] = (struct iovec){ v[i].ptr, (size_t)v[i].len };
        reach = v[i].off + v[i].len;
    }
    *cnt = c;
    return iov;
}

int io_tp_agg_write(tp_t *t, size_t nr)
{
    MPI_File fh = t->fh;
    if (nr == 0)
        return 0;
    rseg_t *v;
    int tiled, holes, rc = sorted_pieces(t, nr, t->rbuf, &v, &tiled, &holes);
    if (rc)
        return rc;
    if (tiled) {
        /* the pieces cover the span exactly: write them from where they arrived, with no
         * window to lay them out in and nothing to read first */
        int cnt;
        struct iovec *iov = pieces_iov(v, nr, NULL, &cnt);
        rc = iov ? io_pwritev_all(fh, iov, cnt, v[0].off) : CORE_ENOMEM;
        free(iov);
        free(v);
        return rc;
    }
    MPI_Offset lo = v[0].off, hi = lo;
    for (size_t i = 0; i < nr; i++)
        if (v[i].off + v[i].len > hi)
            hi = v[i].off + v[i].len;
    int rmw = holes && fh->hints.ds_write != IO_DISABLE && io_can_read(fh);
    if (holes && !rmw) {
        /* write each covered run on its own: no read access, or sieving is off */
        for (size_t i = 0; i < nr && !rc; i++)
            rc = io_pwrite_all(fh, v[i].ptr, (size_t)v[i].len, v[i].off);
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
    /* overlapping pieces land in offset order, rank order among equals: the last wins */
    for (size_t i = 0; i < nr && !rc; i++)
        memcpy(t->win + (v[i].off - lo), v[i].ptr, (size_t)v[i].len);
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

/* A read whose pieces do not overlap: one preadv straight into out, the gaps into the
 * window; what lies past the end of the file reads as zeros. */
static int agg_read_direct(tp_t *t, const rseg_t *v, size_t nr)
{
    int cnt;
    struct iovec *iov = pieces_iov(v, nr, t->win, &cnt);
    if (!iov)
        return CORE_ENOMEM;
    size_t got;
    int rc = io_preadv_all(t->fh, iov, cnt, v[0].off, &got);
    free(iov);
    if (rc)
        return rc;
    MPI_Offset eof = v[0].off + (MPI_Offset)got;
    for (size_t i = 0; i < nr; i++) {
        MPI_Offset a = v[i].off > eof ? v[i].off : eof;
        if (a < v[i].off + v[i].len)
            memset(v[i].ptr + (a - v[i].off), 0, (size_t)(v[i].off + v[i].len - a));
    }
    return 0;
}

int io_tp_agg_read(tp_t *t, size_t nr, char *out)
{
    if (nr == 0)
        return 0;
    rseg_t *v;
    int tiled, holes, rc = sorted_pieces(t, nr, out, &v, &tiled, &holes);
    if (rc)
        return rc;
    (void)holes;
    int overlap = 0;
    for (size_t i = 1; i < nr; i++)
        overlap |= v[i].off < v[i - 1].off + v[i - 1].len;
    if (!overlap) {
        rc = agg_read_direct(t, v, nr);
        free(v);
        return rc;
    }
    /* sorted: the span starts at the first piece */
    MPI_Offset lo = v[0].off, hi = lo;
    for (size_t i = 0; i < nr; i++)
        if (v[i].off + v[i].len > hi)
            hi = v[i].off + v[i].len;
    size_t got;
    rc = io_pread_all(t->fh, t->win, (size_t)(hi - lo), lo, &got);
    if (!rc) {
        memset(t->win + got, 0, (size_t)(hi - lo) - got);
        for (size_t i = 0; i < nr; i++)
            memcpy(v[i].ptr, t->win + (v[i].off - lo), (size_t)v[i].len);
    }
    free(v);
    return rc;
}

int io_tp_direct(tp_t *t)
{
    /* the pieces a rank exchanges with one aggregator in one round are consecutive in
     * its data stream (its runs are sorted, the windows cut them in order): the
     * exchange can then use the stream itself, at their first stream offset */
    MPI_File fh = t->fh;
    if (t->nsseg == 0 || !t->data)
        return 0;
    for (int q = 0; q < fh->size; q++) {
        if (t->scnt[q] == 0)
            continue;
        size_t s = (size_t)t->sdsp[q] / sizeof(seg_t), e = s + (size_t)t->scnt[q] / sizeof(seg_t);
        for (size_t i = s + 1; i < e; i++)
            if (t->sstream[i] != t->sstream[i - 1] + t->sseg[i - 1].len)
                return 0;
        if (t->sstream[s] > INT_MAX - (MPI_Offset)t->sbc[q])
            return 0;
    }
    for (int q = 0; q < fh->size; q++)
        if (t->scnt[q])
            t->sbd[q] = (int)t->sstream[(size_t)t->sdsp[q] / sizeof(seg_t)];
    return 1;
}

int io_tp_setup(tp_t *t, MPI_Offset gmin, MPI_Offset gmax)
{
    MPI_File fh = t->fh;
    int P = fh->size;
    t->gmin = gmin;
    t->gmax = gmax;
    MPI_Offset bs = fh->blksize > 0 ? fh->blksize : 4096;
    t->base = gmin - gmin % bs;
    MPI_Offset span = gmax - t->base, A = fh->naggr;
    t->per = (span + A - 1) / A;
    t->per = (t->per + bs - 1) / bs * bs;
    t->cb = io_tp_cbsize(fh);
    t->rounds = (t->per + t->cb - 1) / t->cb;
    t->soff = malloc((t->n ? t->n : 1) * sizeof(MPI_Offset));
    t->cur = calloc((size_t)fh->naggr, sizeof(size_t));
    t->scnt = malloc(8 * (size_t)P * sizeof(int));
    if (fh->is_aggr && io_tp_grow(&fh->cb_win, &fh->cb_wincap, (size_t)t->cb) != 0)
        return CORE_ENOMEM;
    if (!t->soff || !t->cur || !t->scnt)
        return CORE_ENOMEM;
    /* the file's buffers, kept from call to call; its accesses run one at a time */
    t->win = fh->cb_win;
    t->sbuf = fh->cb_sbuf;
    t->rbuf = fh->cb_rbuf;
    t->rseg = (seg_t *)fh->cb_rseg;
    t->sbcap = fh->cb_sbcap;
    t->rbcap = fh->cb_rbcap;
    t->rsegcap = fh->cb_rsegcap;
    t->borrowed = 1;
    t->sdsp = t->scnt + P;
    t->rcnt = t->sdsp + P;
    t->rdsp = t->rcnt + P;
    t->sbc = t->rdsp + P;
    t->sbd = t->sbc + P;
    t->rbc = t->sbd + P;
    t->rbd = t->rbc + P;
    MPI_Offset s = 0;
    for (size_t i = 0; i < t->n; i++) {
        t->soff[i] = s;
        s += t->p[i].len;
    }
    return 0;
}

void io_tp_teardown(tp_t *t)
{
    MPI_File fh = t->fh;
    if (t->borrowed) {
        fh->cb_sbuf = t->sbuf;   /* grown, perhaps moved */
        fh->cb_rbuf = t->rbuf;
        fh->cb_rseg = (char *)t->rseg;
        fh->cb_sbcap = t->sbcap;
        fh->cb_rbcap = t->rbcap;
        fh->cb_rsegcap = t->rsegcap;
        t->borrowed = 0;
    }
    free(t->aseg);
    free(t->acnt);
    free(t->acur);
    free(t->rall);
    if (t->segt && t->segt != MPI_DATATYPE_NULL)
        PMPI_Type_free(&t->segt);
    t->aseg = t->rall = NULL;
    t->acnt = NULL;
    t->acur = NULL;
    t->rallcap = 0;
    free(t->soff);
    free(t->cur);
    free(t->scnt);
    free(t->sseg);
    free(t->sstream);
    t->soff = NULL;
    t->cur = NULL;
    t->scnt = NULL;
    t->sseg = NULL;
    t->sstream = NULL;
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
