/*
 * The verbs transport's wire formats (UD packet, RC send and RDMA-write slot
 * headers) and their decoders: pure functions over (bytes, length) that
 * check every field a peer controls before the transport uses it, so
 * test/unit/test_verbs_wire.c and fuzz targets can call them without a
 * device.
 */
#ifndef RDMPI_TP_VERBS_WIRE_H
#define RDMPI_TP_VERBS_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "transports/transport.h"

#define VB_MAX_AM_HDR 128
#define VB_REASM_MAX (64u << 20)  /* no message reassembled from UD is larger */

/* Handler ids of the transport's own messages, above p2p's. */
enum {
    VB_AM_CONN_REQ = TP_AM_MAX, /* vb_conn_t: please connect an RC QP */
    VB_AM_CONN_REP,             /* vb_conn_t: mine is ready to receive */
    VB_AM_CONN_RTU,             /* yours may send now */
    VB_AM_CONN_REJ,             /* no RC for us: stay on UD */
    VB_AM_GET_REQ,              /* vb_xfer_t: copy your memory to me */
    VB_AM_GET_RESP,             /* vb_xfer_t + data */
    VB_AM_PUT,                  /* vb_xfer_t + data: copy this into your memory */
    VB_AM_PUT_ACK,              /* vb_xfer_t: the put has landed */
    VB_AM_BYE,                  /* closing: I send nothing more */
    VB_AM_CREDIT,               /* RC only: credits, nothing else */
    VB_AM_NOP,                  /* RC only: ignored (flushes the send queue) */
    VB_AM_END
};

/* UD wire header, first in every UD packet (16 bytes). */
typedef struct vb_ud_hdr {
    uint32_t src;      /* sender's uid (core/procs.h: its job's first uid plus its rank) */
    uint16_t psn;      /* sequence number (data packets) */
    uint16_t ack;      /* cumulative ack: last psn the sender has in order from us */
    uint8_t type;      /* VB_UD_* kind | flags */
    uint8_t id;        /* first segment: handler id */
    uint16_t hdr_len;  /* first segment: AM header bytes */
    uint32_t len;      /* first segment: AM payload bytes */
} vb_ud_hdr_t;

enum { VB_UD_DATA = 1, VB_UD_ACK = 2 };
#define VB_UD_KIND 0x0f
#define VB_UD_FIRST 0x10
#define VB_UD_LAST 0x20
#define VB_UD_WANT_ACK 0x40 /* on DATA: answer with an ack at once */
#define VB_UD_NAK 0x40      /* on ACK: VB_REL_NAK */
#define VB_UD_NAK_ALL 0x80  /* on ACK: VB_REL_NAK_ALL */
#define VB_UD_ACKREQ VB_UD_FIRST /* on ACK: answer with an ack at once */

/* RC wire header, first in every RC send (12 bytes). */
typedef struct vb_rc_hdr {
    uint8_t id;
    uint8_t hdr_len;
    uint16_t credits;  /* credits returned to the receiver */
    uint32_t src;      /* sender's uid */
    uint16_t seq;      /* counted messages: number among the RC messages to this peer */
    uint16_t fcredits; /* ring slots returned to the receiver (verbs_fp.c) */
} vb_rc_hdr_t;

/* Start of an RDMA-written message in a ring slot (verbs_fp.c); the byte
 * after the message repeats mark, so the slot is whole once both are set
 * (16 bytes). */
typedef struct vb_fp_hdr {
    uint32_t len;      /* AM header + payload bytes */
    uint16_t seq;      /* as vb_rc_hdr_t.seq: written and sent messages share the numbers */
    uint16_t fcredits;
    uint16_t credits;
    uint8_t id;
    uint8_t hdr_len;
    uint8_t pad[3];
    uint8_t mark;      /* VB_FP_MARK */
} vb_fp_hdr_t;

#define VB_FP_MARK 0xa5

/* A UD packet, decoded: its header and the bytes after it. */
typedef struct vb_ud_pkt {
    vb_ud_hdr_t h;
    const uint8_t *data;
    uint32_t dn;
} vb_ud_pkt_t;

/* Decodes a UD packet of n bytes (the GRH already skipped), its sender named by a uid below
 * nuids (CORE_UID_MAX: the processes of every job of one launcher, core/procs.h):
 * 0 (out filled) or CORE_EPROTO when it is too short, names a sender beyond nuids, has an
 * unknown kind or flag, or (data packets) a header larger than VB_MAX_AM_HDR, a message
 * larger than VB_REASM_MAX, a first packet that does not hold the whole AM header, or a
 * single-packet message whose length disagrees with the packet's. Sets *why on error. */
int vb_ud_decode(const uint8_t *pkt, uint32_t n, uint32_t nuids, vb_ud_pkt_t *out,
                 const char **why);

struct core_proc;
/* The process index (core/procs.h) of the sender named uid: a rank of our job (uids
 * uid_base .. uid_base + size - 1), or a process of another job of our launcher that this
 * process has added (dyn: the ndyn entries of the table of other jobs' processes; one with
 * no job yet, or of another run, does not count). -1 otherwise: the packet is from no
 * process we can check (its published address is read from its job's data), and is
 * dropped (a reliable sender sends it again once we know it). */
int vb_uid_index(uint32_t uid, int uid_base, int size, const struct core_proc *dyn, int ndyn);

/* Reassembly of a message from its packets, as state the receiver keeps per peer. */
typedef struct vb_reasm_state {
    uint32_t hdr_len, len, got; /* got: bytes of header and payload so far */
    uint8_t id;
    uint8_t active;             /* a first packet came, the last not yet */
} vb_reasm_state_t;

/* Checks data packet p (decoded, in sequence order) against the reassembly state r and
 * advances r: 0, or CORE_EPROTO (*why set, r unchanged) for a first packet while a message
 * is still open, a later packet with none open or that disagrees with the open message's
 * id and lengths, or bytes past the message's end (a last packet must end it exactly).
 * Single-packet messages leave r alone. */
int vb_reasm_step(vb_reasm_state_t *r, const vb_ud_pkt_t *p, const char **why);

/* Decodes the header of an RC send of n bytes: 0 (h filled) or CORE_EPROTO (*why set) when
 * it is too short, names a sender uid beyond nuids, or its AM header overruns the message or
 * VB_MAX_AM_HDR. */
int vb_rc_decode(const uint8_t *buf, uint32_t n, uint32_t nuids, vb_rc_hdr_t *h,
                 const char **why);

/* Looks at an RDMA-write ring slot of size bytes: 0 when no whole message has landed yet,
 * 1 when one has (h filled: read once, after its mark, so a later rewrite by the peer
 * cannot change what was checked), CORE_EPROTO (*why set) when the header is malformed
 * (a message longer than the slot, a header longer than the message or VB_MAX_AM_HDR,
 * padding that is not zero). */
int vb_fp_decode(const uint8_t *slot, uint32_t size, vb_fp_hdr_t *h, const char **why);

/* An RC connection's send credits and free slots of the peer's RDMA-write ring. */
typedef struct vb_credits {
    int *credits;
    int max;          /* what *credits started at */
    int *fp_credits;
    int fp_max;       /* slots of the peer's ring (0: none) */
} vb_credits_t;

/* Takes the credits and ring slots a peer returns with a message. They only ever make up
 * for messages we sent, so a count from the wire that would raise ours past where they
 * started is refused: CORE_EPROTO, nothing taken. */
int vb_credits_take(vb_credits_t *c, unsigned credits, unsigned fcredits);

#endif
