/*
 * Collective buffering's write rounds through node-shared windows: when
 * every rank of the file is on one node, each aggregator's two windows of
 * cb_buffer_size live in a shared-memory window (MPI_Win_allocate_shared on
 * the file's communicator, made at open), and each rank copies its pieces of
 * round r straight into the aggregator's window r % 2 at their file offsets,
 * instead of sending them through an all-to-all.
 *
 * Why: on a local disk file system (ext4) writes to one file serialize on the
 * inode lock, so the plain write is about one core's worth of pwrite, and the
 * exchange's copies (3/4 of the data) are extra. Through the shm transport
 * the receiver, i.e. the aggregator, does every copy (process_vm_readv),
 * after which it writes: its core does both. Here the senders copy on their
 * own cores, into window (r+1) % 2 while the aggregator writes window r % 2.
 *
 * Synchronization, in the segment of each aggregator: a count of the rounds
 * it has written ("written"), and per rank the count of rounds that rank has
 * filled ("stamp"). Rounds are numbered over the file's life (cb_shseq, the
 * same on every rank), so the counters never go back. A rank fills round g
 * once written >= g - 1 (round g - 2, which used the same window, is on
 * disk), then stamps g + 1; the aggregator writes round g once every other
 * rank's stamp is g + 1. Nothing waits inside a call: the job's progress hook
 * polls the counters (io_push_poll), so the nonblocking calls stay so.
 *
 * On unless the hint rdmpi_cb_push says "disable": on the 2-core development
 * host (4 ranks, 8 KiB strided blocks, ext4) the strided collective write went
 * from 0.47-0.58x to 0.58-0.84x the plain pwrite (docs/io-bench.md): the
 * aggregator's CPU per access about that of the whole plain write, where the
 * all-to-all's receive copies had made it 1.75x.
 * Taken only when no two pieces overlap (the old path then lays them out in a
 * defined order) and the access has two rounds or more (one has nothing to
 * overlap), agreed by all ranks at each access; ranks on several nodes keep
 * the all-to-all. A store to shared memory wakes no rank asleep in poll()
 * (RDMPI_WAIT_SLEEP), so while the rounds go on blocked calls yield instead of
 * sleeping (core_progress_awake, icoll.c).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "core/comm.h"
#include "core/errors.h"
#include "core/runtime.h"
#include "io/io.h"
#include "io/twophase.h"

enum { CTL_LINE = 64, PAGE = 4096 };

/* The control words before an aggregator's windows: written, then one stamp per rank, each
 * on its own cache line (the ranks store them at once). */
static size_t hdr_size(int P)
{
    size_t h = (size_t)CTL_LINE * (1 + (size_t)P);
    return (h + PAGE - 1) / PAGE * PAGE;
}

static _Atomic long long *written(char *seg)
{
    return (_Atomic long long *)seg;
}

static _Atomic long long *stamp(char *seg, int q)
{
    return (_Atomic long long *)(seg + (size_t)CTL_LINE * (1 + (size_t)q));
}

static char *slot(MPI_File fh, char *seg, long long g)
{
    return seg + hdr_size(fh->size) + (size_t)(g & 1) * (size_t)fh->cb_shcb;
}

MPI_Offset io_tp_cbsize(MPI_File fh)
{
    MPI_Offset bs = fh->blksize > 0 ? fh->blksize : 4096;
    MPI_Offset cb = fh->hints.cb_buffer_size / bs * bs;
    return cb < bs ? bs : cb;
}

int io_push_setup(MPI_File fh)
{
    if (fh->cb_shbase || fh->size < 2 || fh->hints.cb_push == IO_DISABLE ||
        fh->hints.cb_write == IO_DISABLE || (fh->amode & MPI_MODE_RDONLY))
        return 0;
    /* every rank on this node (agreed: a process of another job numbers ranks its own way) */
    int one = 1, all = 0;
    for (int r = 0; r < fh->size && one; r++) {
        int w = core_comm_world_rank(fh->comm, r), here = 0;
        for (int i = 0; i < core_rt->local_size && !here; i++)
            here = core_rt->local_ranks[i] == w;
        one = here && w < core_rt->size;
    }
    if (PMPI_Allreduce(&one, &all, 1, MPI_INT, MPI_MIN, fh->comm) != MPI_SUCCESS || !all)
        return 0;
    MPI_Offset cb = io_tp_cbsize(fh);
    MPI_Aint size = fh->is_aggr ? (MPI_Aint)(hdr_size(fh->size) + 2 * (size_t)cb) : 0;
    char *base = NULL;
    MPI_Win win;
    if (PMPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, fh->comm, &base, &win) != MPI_SUCCESS)
        return 0;   /* every rank fails alike: the all-to-all it is */
    PMPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    char **segs = calloc((size_t)fh->naggr, sizeof(char *));
    int ok = segs != NULL;
    for (int i = 0; ok && i < fh->naggr; i++) {
        MPI_Aint sz;
        int du;
        if (PMPI_Win_shared_query(win, fh->aggr[i], &sz, &du, &segs[i]) != MPI_SUCCESS ||
            sz < (MPI_Aint)(hdr_size(fh->size) + 2 * (size_t)cb))
            ok = 0;
    }
    int allok = 0;
    if (PMPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, fh->comm) != MPI_SUCCESS || !allok) {
        free(segs);
        PMPI_Win_free(&win);
        return 0;
    }
    fh->cb_shwin = win;
    fh->cb_shbase = segs;
    fh->cb_shcb = cb;
    fh->cb_shseq = 0;
    return 0;
}

void io_push_free(MPI_File fh)
{
    if (!fh->cb_shbase)
        return;
    PMPI_Win_free(&fh->cb_shwin);
    free(fh->cb_shbase);
    fh->cb_shbase = NULL;
}

/* A piece of the window being written, by offset. */
typedef struct wp {
    MPI_Offset off, len;
    char *ptr;
} wp_t;

static int wp_cmp(const void *a, const void *b)
{
    const wp_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorts v[0, n) by offset into out, v being P lists (list q: [at[q], at[q + 1])) that each
 * come in file order, as every rank cuts its sorted runs: a P-way merge through a heap of
 * the lists' heads, n log P steps where qsort took n log n (its 2048 pieces a round, and
 * the 32768 of the whole access checked for overlap, were 4% of the aggregator's time in
 * docs/io-bench.md's strided write). A list out of order falls back to qsort. 0, or
 * CORE_ENOMEM. */
static int merge_sorted(const wp_t *v, size_t n, const size_t *at, int P, wp_t *out)
{
    int *heap = malloc((size_t)P * sizeof(int));
    size_t *head = malloc((size_t)P * sizeof(size_t));
    if (!heap || !head) {
        free(heap);
        free(head);
        return CORE_ENOMEM;
    }
    int h = 0;
    for (int q = 0; q < P; q++) {
        head[q] = at[q];
        if (at[q] == at[q + 1])
            continue;
        int i = h++;   /* sift up */
        while (i > 0 && v[head[heap[(i - 1) / 2]]].off > v[at[q]].off) {
            heap[i] = heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        heap[i] = q;
    }
    size_t k = 0;
    while (h > 0) {
        int q = heap[0];
        out[k++] = v[head[q]++];
        if (head[q] == at[q + 1]) {
            q = heap[--h];   /* the list is done: the heap's last list sifts down from the top */
            if (h == 0)
                break;
        }
        MPI_Offset key = v[head[q]].off;
        int i = 0;
        for (;;) {
            int c = 2 * i + 1;
            if (c >= h)
                break;
            if (c + 1 < h && v[head[heap[c + 1]]].off < v[head[heap[c]]].off)
                c++;
            if (v[head[heap[c]]].off >= key)
                break;
            heap[i] = heap[c];
            i = c;
        }
        heap[i] = q;
    }
    free(heap);
    free(head);
    int sorted = 1;
    for (size_t i = 1; i < n && sorted; i++)
        sorted = out[i].off >= out[i - 1].off;
    if (!sorted)
        qsort(out, n, sizeof(*out), wp_cmp);
    return 0;
}

int io_push_ok(tp_t *t, size_t nall)
{
    MPI_File fh = t->fh;
    if (!fh->cb_shbase || fh->cb_shcb != t->cb)
        return 0;
    /* One round has nothing to overlap the senders' copies with (the aggregator waits for
     * them, then writes) and would touch the windows' pages, first allocated then: at 4 MiB
     * per rank (one 16 MiB round) the windows made io_bw's strided write 15-30% slower. */
    if (t->rounds < 2)
        return 0;
    if (t->me < 0 || nall < 2)
        return 1;
    /* overlapping pieces (two ranks writing one byte) keep the old path's order */
    int P = fh->size;
    wp_t *v = malloc(nall * sizeof(*v)), *o = malloc(nall * sizeof(*o));
    size_t *at = malloc(((size_t)P + 1) * sizeof(size_t));
    int ok = v && o && at;
    size_t k = 0;
    for (int q = 0; q < P && ok; q++) {
        at[q] = k;
        for (int s = t->ardsp[q], e = s + t->arcnt[q]; s < e; s++)
            v[k++] = (wp_t){ t->rall[s].off, t->rall[s].len, NULL };
    }
    ok = ok && k == nall;   /* always: nall counts the same pieces */
    if (ok) {
        at[P] = k;
        ok = merge_sorted(v, k, at, P, o) == 0;
    }
    for (size_t i = 1; i < k && ok; i++)
        ok = o[i].off >= o[i - 1].off + o[i - 1].len;
    free(v);
    free(o);
    free(at);
    return ok;
}

/* Appends [ptr, +len) to the vector, joined to the last entry when it follows it in memory. */
static void iov_add(struct iovec *iov, int *c, char *ptr, size_t len)
{
    if (*c > 0 && (char *)iov[*c - 1].iov_base + iov[*c - 1].iov_len == ptr) {
        iov[*c - 1].iov_len += len;
        return;
    }
    iov[*c] = (struct iovec){ ptr, len };
    (*c)++;
}

/* The aggregator's write of round r from window w ([lo, hi) of the file): the other ranks'
 * pieces are in w at their offsets, its own in its stream (or packed into w). */
static int push_write(tp_t *t, MPI_Offset r, char *w)
{
    MPI_File fh = t->fh;
    MPI_Offset lo, hi;
    io_tp_window(t, t->me, r, &lo, &hi);
    size_t nr = 0;
    for (int q = 0; q < fh->size; q++)
        nr += (size_t)t->rcnt[q] / sizeof(seg_t);
    if (nr == 0)
        return 0;
    wp_t *v = malloc(nr * sizeof(*v));
    struct iovec *iov = malloc(2 * nr * sizeof(*iov));
    size_t *at = malloc(((size_t)fh->size + 1) * sizeof(size_t));   /* each rank's pieces */
    if (!v || !iov || !at) {
        free(v);
        free(iov);
        free(at);
        return CORE_ENOMEM;
    }
    size_t k = 0, mine = (size_t)t->sdsp[fh->rank] / sizeof(seg_t);
    int rc = 0;
    for (int q = 0; q < fh->size && !rc; q++) {
        at[q] = k;
        for (int s = t->rdsp[q] / (int)sizeof(seg_t), e = s + t->rcnt[q] / (int)sizeof(seg_t);
             s < e; s++) {
            MPI_Offset off = t->rseg[s].off, len = t->rseg[s].len;
            if (off < lo || len > hi - off) {
                rc = CORE_EINTERN;   /* outside the window: never with the same plan */
                break;
            }
            char *ptr = w + (off - lo);
            if (q == fh->rank) {
                if (t->data)
                    ptr = t->data + t->sstream[mine];
                else
                    io_cursor_pack(t->mem, ptr, t->sstream[mine], (size_t)len);
                mine++;
            }
            v[k++] = (wp_t){ off, len, ptr };
        }
    }
    at[fh->size] = k;
    if (rc) {
        free(v);
        free(iov);
        free(at);
        return rc;
    }
    wp_t *o = malloc(nr * sizeof(*o));
    if (!o || (rc = merge_sorted(v, nr, at, fh->size, o)) != 0) {
        free(o);
        free(v);
        free(iov);
        free(at);
        return rc ? rc : CORE_ENOMEM;
    }
    free(v);
    free(at);
    v = o;
    int holes = 0;
    for (size_t i = 1; i < nr; i++)
        holes |= v[i].off > v[i - 1].off + v[i - 1].len;
    MPI_Offset a = v[0].off, b = v[nr - 1].off + v[nr - 1].len;
    int rmw = holes && fh->hints.ds_write != IO_DISABLE && io_can_read(fh);
    if (holes && !rmw) {
        /* each covered run on its own: no read access, or sieving is off */
        for (size_t i = 0; i < nr && !rc; i++)
            rc = io_pwrite_all(fh, v[i].ptr, (size_t)v[i].len, v[i].off);
    } else {
        int c = 0, locked = rmw && (rc = io_lock(fh, 1, a, b - a)) == 0;
        if (locked) {
            /* the bytes between the pieces come from the file, read into their places in
             * the window (which no rank fills); the pieces' bytes go to the scratch */
            MPI_Offset reach = a;
            for (size_t i = 0; i < nr; i++) {
                if (v[i].off > reach)
                    iov_add(iov, &c, w + (reach - lo), (size_t)(v[i].off - reach));
                iov_add(iov, &c, t->win + (v[i].off - lo), (size_t)v[i].len);
                reach = v[i].off + v[i].len;
            }
            size_t got;
            rc = io_preadv_all(fh, iov, c, a, &got);
            /* past the end of the file the holes read as zeros */
            reach = a;
            for (size_t i = 0; i < nr && !rc; i++) {
                MPI_Offset z = reach > a + (MPI_Offset)got ? reach : a + (MPI_Offset)got;
                if (v[i].off > z)
                    memset(w + (z - lo), 0, (size_t)(v[i].off - z));
                reach = v[i].off + v[i].len;
            }
        }
        if (!rc) {
            c = 0;
            MPI_Offset reach = a;
            for (size_t i = 0; i < nr; i++) {
                if (v[i].off > reach)
                    iov_add(iov, &c, w + (reach - lo), (size_t)(v[i].off - reach));
                iov_add(iov, &c, v[i].ptr, (size_t)v[i].len);
                reach = v[i].off + v[i].len;
            }
            rc = io_pwritev_all(fh, iov, c, a);
        }
        if (locked) {
            int urc = io_unlock(fh, a, b - a);
            if (!rc)
                rc = urc;
        }
    }
    free(v);
    free(iov);
    return rc;
}

/* This rank's pieces of round r (cut by io_tp_round) copied into every other aggregator's
 * window, from t->pi on; 0 when one's window is still being written. */
static int fill(tp_t *t, MPI_Offset r, long long g)
{
    MPI_File fh = t->fh;
    for (; t->pi < fh->naggr; t->pi++) {
        int a = fh->aggr[t->pi];
        if (a == fh->rank)
            continue;
        char *seg = fh->cb_shbase[t->pi];
        if (atomic_load_explicit(written(seg), memory_order_acquire) < g - 1)
            return 0;
        MPI_Offset lo, hi;
        io_tp_window(t, t->pi, r, &lo, &hi);
        char *w = slot(fh, seg, g);
        size_t s = (size_t)t->sdsp[a] / sizeof(seg_t), e = s + (size_t)t->scnt[a] / sizeof(seg_t);
        for (; s < e; s++) {
            char *dst = w + (t->sseg[s].off - lo);
            if (t->data)
                memcpy(dst, t->data + t->sstream[s], (size_t)t->sseg[s].len);
            else
                io_cursor_pack(t->mem, dst, t->sstream[s], (size_t)t->sseg[s].len);
        }
        atomic_store_explicit(stamp(seg, fh->rank), g + 1, memory_order_release);
    }
    return 1;
}

int io_push_poll(tp_t *t, int *first, int *moved)
{
    MPI_File fh = t->fh;
    *moved = 0;
    while (t->pr < t->rounds) {
        MPI_Offset r = t->pr;
        long long g = t->seq + r;
        if (!t->pcut) {
            int rc = io_tp_round(t, r);
            if (rc)
                return rc;
            t->pcut = 1;
            t->pi = 0;
        }
        if (!fill(t, r, g))
            return 0;
        if (t->me >= 0) {
            char *seg = fh->cb_shbase[t->me];
            for (int q = 0; q < fh->size; q++)
                if (q != fh->rank &&
                    atomic_load_explicit(stamp(seg, q), memory_order_acquire) < g + 1)
                    return 0;
            int rc = push_write(t, r, slot(fh, seg, g));
            if (rc && !*first)
                *first = rc;
            /* even after a failure: the ranks filling the next rounds must not wait forever */
            atomic_store_explicit(written(seg), g + 1, memory_order_release);
        }
        (*moved)++;
        t->pr++;
        t->pcut = 0;
    }
    fh->cb_shseq += t->rounds;
    return 1;
}
