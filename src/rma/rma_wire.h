/*
 * The RMA wire protocol: messages handled at the target (first data path,
 * every transport). Three active-message ids:
 *
 *   OP     origin -> target: one piece of a Put, Get, Accumulate,
 *          Get_accumulate or Compare_and_swap. Header rma_op_hdr_t; payload:
 *          nseg segments (byte displacement in the target window, length),
 *          then the data the segments cover (PUT, ACC, GACC), or the origin
 *          value and the compare value (CAS, one element). An operation too
 *          large for one message is cut into pieces, each self-contained.
 *          The header's form says what a segment covers:
 *            BYTES  len bytes from disp (the data is those bytes);
 *            ELEMS  len / esz elements of an element type with holes (the
 *                   pair types whose C struct is padded: MPI_DOUBLE_INT,
 *                   MPI_SHORT_INT, ...), the first at disp and each next one
 *                   its extent further, each in the type's own layout (the
 *                   value at 0, the index at its struct offset); the data is
 *                   packed (value then index, esz bytes per element) and the
 *                   holes of the target memory are never read or written.
 *          Accumulates on a type with holes are ELEMS, everything else BYTES.
 *   REPLY  target -> origin: one per OP: an acknowledgement, or the data
 *          read (GET, GACC, CAS: the target's contents before the update),
 *          at offset off of the operation's packed result.
 *   CTRL   synchronization: LOCK/UNLOCK (answered by GRANT/UNLOCKED),
 *          POST, COMPLETE.
 *
 * The target names the window by its slot in its own window table and the
 * slot's generation (exchanged at creation), the origin names the operation
 * by an id of its own operation table (slot | generation << 32): neither is a
 * pointer, and a stale or forged one is refused. The decoders below check
 * everything that does not depend on the window (structure, lengths, kinds,
 * ops and element types, segment sums); rma_wire_segs_fit checks the
 * segments against the window's memory. They are pure functions, so the
 * fuzz target (test/fuzz/fuzz_rma.c) runs them as the handlers do.
 */
#ifndef RDMPI_RMA_WIRE_H
#define RDMPI_RMA_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

enum { RMA_AM_OP = 8, RMA_AM_REPLY = 9, RMA_AM_CTRL = 10 };

enum rma_kind { RMA_PUT = 1, RMA_GET, RMA_ACC, RMA_GACC, RMA_CAS, RMA_KIND_END };

enum rma_ctrl { RMA_CTRL_LOCK = 1, RMA_CTRL_UNLOCK, RMA_CTRL_GRANT, RMA_CTRL_UNLOCKED,
                RMA_CTRL_POST, RMA_CTRL_COMPLETE, RMA_CTRL_END };
enum { RMA_LOCK_SHARED_W = 1, RMA_LOCK_EXCL_W = 2 };

/* REPLY status: the target refused the piece (dynamic window: no such attached memory). */
enum { RMA_ST_OK = 0, RMA_ST_RANGE = 1 };

/* Most segments one OP may carry (its payload stays below the transport's max_am anyway). */
#define RMA_MAX_SEG 4096

typedef struct rma_op_hdr {
    uint32_t win, gen;   /* the target's window slot and its generation */
    uint64_t op;         /* the origin's operation id, echoed in REPLY */
    uint64_t off;        /* offset of this piece in the operation's packed data */
    uint64_t len;        /* bytes the segments cover */
    uint32_t nseg;
    uint8_t kind;        /* enum rma_kind */
    uint8_t aop;         /* ACC, GACC: enum core_op_kind (predefined ops only) */
    uint8_t dtk;         /* ACC, GACC, CAS: enum core_dt_kind of the elements */
    uint8_t form;        /* enum rma_form: what a segment covers */
} rma_op_hdr_t;

enum rma_form { RMA_FORM_BYTES = 0, RMA_FORM_ELEMS = 1 };

typedef struct rma_seg {
    uint64_t disp, len;  /* bytes from the window's base (dynamic: an absolute address) */
} rma_seg_t;

typedef struct rma_reply_hdr {
    uint64_t op, off, len;
    uint32_t status;     /* RMA_ST_* */
    uint32_t pad;
} rma_reply_hdr_t;

typedef struct rma_ctrl_hdr {
    uint32_t win, gen;   /* the receiver's window slot and generation */
    uint32_t rwin, rgen; /* the sender's: where the answer to a LOCK or UNLOCK goes (the
                            target may not have everyone's creation data yet) */
    uint8_t type;        /* enum rma_ctrl */
    uint8_t arg;         /* LOCK: RMA_LOCK_* */
    uint8_t pad[6];
} rma_ctrl_hdr_t;

/* A decoded OP: the header copied out, the segments and data still in the payload. */
typedef struct rma_op_msg {
    rma_op_hdr_t h;
    const uint8_t *segs;   /* nseg packed rma_seg_t (unaligned: read with rma_wire_seg) */
    const uint8_t *data;   /* PUT/ACC/GACC: len bytes; CAS: 2 elements; GET: NULL */
    size_t data_len;
    MPI_Datatype elem;     /* ACC/GACC/CAS: the predefined element type; else NULL */
    MPI_Op aop;            /* ACC/GACC: the predefined op; else NULL */
} rma_op_msg_t;

/* The predefined type of an element kind, NULL for none; the predefined op of an op kind. */
MPI_Datatype rma_wire_elem_type(unsigned dtk);
MPI_Op rma_wire_op(unsigned aop);
/* Whether Compare_and_swap is defined on elements of kind dtk. */
int rma_wire_cas_kind(unsigned dtk);
/* The form of an accumulate's segments on elements of elem (ELEMS: elem has holes). */
int rma_wire_acc_form(MPI_Datatype elem);
/* The bytes of target memory that segment s of m spans, from s.disp (the elements' last
 * data byte included, their last hole not). */
uint64_t rma_wire_seg_span(const rma_op_msg_t *m, rma_seg_t s);

/* Each returns 0, or -1 with the reason in why (for core_wire_reject). */
int rma_wire_op_decode(const void *hdr, size_t hdr_len, const void *payload, size_t len,
                       rma_op_msg_t *m, char *why, size_t why_len);
int rma_wire_reply_decode(const void *hdr, size_t hdr_len, size_t len, rma_reply_hdr_t *r,
                          char *why, size_t why_len);
int rma_wire_ctrl_decode(const void *hdr, size_t hdr_len, size_t len, rma_ctrl_hdr_t *c,
                         char *why, size_t why_len);

static inline rma_seg_t rma_wire_seg(const rma_op_msg_t *m, uint32_t i)
{
    rma_seg_t s;
    __builtin_memcpy(&s, m->segs + (size_t)i * sizeof(rma_seg_t), sizeof(s));
    return s;
}

/* A region of window memory: [base, base + len), base as the wire's displacement. */
typedef struct rma_region {
    uint64_t base, len;
} rma_region_t;

/* 0 when every segment of m lies inside one of the n regions (a window of size S with base
 * displacement 0 is the single region {0, S}); -1 with why otherwise. */
int rma_wire_segs_fit(const rma_op_msg_t *m, const rma_region_t *reg, size_t n, char *why,
                      size_t why_len);

#endif
