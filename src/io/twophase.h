/*
 * Collective buffering's state and local steps (twophase.c), for the
 * collective access that chains them with nonblocking exchanges (icoll.c).
 * Private to src/io.
 */
#ifndef RDMPI_IO_TWOPHASE_H
#define RDMPI_IO_TWOPHASE_H

#include "io/io.h"

/* A piece sent to or received by an aggregator. */
typedef struct seg {
    MPI_Offset off, len;
} seg_t;

typedef struct tp {
    MPI_File fh;
    int write;
    const io_piece_t *p;
    size_t n;
    char *data;                  /* the stream, or NULL: then mem packs and unpacks it */
    io_cursor_t *mem;
    MPI_Offset *soff;            /* stream offset of each run */
    MPI_Offset base, per, cb;    /* domains: [base + i*per, +per); windows of cb */
    MPI_Offset gmin, gmax;
    MPI_Offset rounds;
    size_t *cur;                 /* per aggregator: the first run not yet sent */
    /* one round's exchange */
    int *scnt, *sdsp, *rcnt, *rdsp, *sbc, *sbd, *rbc, *rbd;
    seg_t *sseg;
    MPI_Offset *sstream;         /* stream offset of each sent piece */
    size_t nsseg, capsseg;
    seg_t *rseg;
    char *sbuf, *rbuf, *win;
    size_t rsegcap, sbcap, rbcap;
    /* every round's descriptors, exchanged once before the rounds (counts in pieces) */
    seg_t *aseg;                 /* this rank's, grouped by aggregator rank */
    int *acnt, *adsp, *arcnt, *ardsp;
    seg_t *rall;                 /* an aggregator's, from every rank, round after round */
    size_t rallcap;
    size_t *acur;                /* per rank: its first piece in rall not yet taken */
    int me;                      /* this rank's aggregator index, or -1 */
    MPI_Datatype segt;           /* one seg_t, for the descriptor exchange */
    int direct;                  /* this round exchanges from/into data itself */
    int self;                    /* this round's own pieces stay in data (not exchanged) */
    int borrowed;                /* holds the file's buffers (io_tp_teardown gives them back) */
    /* the rounds through the node-shared windows (push.c) */
    long long seq;               /* the file's count of such rounds at this access's round 0 */
    MPI_Offset pr;               /* the round under way */
    int pcut;                    /* it is cut (io_tp_round) */
    int pi;                      /* the next aggregator whose window this rank fills */
} tp_t;

/* Plans the domains of the runs [gmin, gmax) of all ranks and takes the
 * file's buffers; t->fh, write, p, n and data are set. */
int io_tp_setup(tp_t *t, MPI_Offset gmin, MPI_Offset gmax);
/* The window size of the file's collective buffering: cb_buffer_size in whole blocks. */
MPI_Offset io_tp_cbsize(MPI_File fh);
/* Aggregator i's window in round r: [*lo, *hi), empty when lo >= hi. */
void io_tp_window(const tp_t *t, int i, MPI_Offset r, MPI_Offset *lo, MPI_Offset *hi);
void io_tp_teardown(tp_t *t);
/* Cuts this rank's runs at round r's windows: the pieces for each aggregator
 * (sseg, scnt/sdsp in bytes of descriptors). */
int io_tp_cut(tp_t *t, MPI_Offset r);
int io_tp_grow(char **buf, size_t *cap, size_t want);
/* Every round's pieces of this rank for each aggregator (aseg, acnt/adsp in pieces), the
 * exchange type segt; t->cur left at round 0. */
int io_tp_plan(tp_t *t);
/* After the descriptor exchange (rall, arcnt/ardsp): rall's room, ardsp filled. */
int io_tp_plan_recv(tp_t *t, size_t *total);
/* Round r: this rank's pieces (io_tp_cut) and, on an aggregator, the pieces it receives
 * (rseg, rcnt/rdsp in bytes of descriptors) taken from rall. */
int io_tp_round(tp_t *t, MPI_Offset r);
/* Byte counts of the data that goes with descriptors segs (cnt/dsp in bytes of
 * descriptors): per rank into bc/bd; returns the total. */
size_t io_tp_layout(tp_t *t, const int *cnt, const int *dsp, const seg_t *segs, int *bc,
                    int *bd);
/* Whether this round's exchange can use the data stream itself (no packing, no
 * scattering): then sbd holds the stream offsets (after io_tp_layout). */
int io_tp_direct(tp_t *t);
/* The aggregator's part of a write round: lay the nr received pieces out in the
 * window, write it (sieving holes). */
int io_tp_agg_write(tp_t *t, size_t nr);
/* The aggregator's part of a read round: read the span, put each rank's pieces
 * at out in the order they were asked for. */
int io_tp_agg_read(tp_t *t, size_t nr, char *out);

/* The write rounds through node-shared windows (push.c). Whether this rank can take them
 * for this access, nall descriptors in rall (the ranks agree on the minimum). */
int io_push_ok(tp_t *t, size_t nall);
/* Advances the rounds from t->pr: 1 when all are done, 0 when waiting for another rank, or
 * a CORE_* code; a failed write goes to *first (the rounds go on), *moved counts rounds. */
int io_push_poll(tp_t *t, int *first, int *moved);

#endif
