/*
 * The tcp transport's byte stream, as pure code (no sockets): the frame
 * layout, the per-peer send queue and the per-connection reassembly buffer.
 *
 * A frame is an 8-byte header {payload length, handler id, header length},
 * the active-message header padded to 8 bytes, then the payload padded to 8
 * bytes. Every frame thus starts 8-byte aligned in the reassembly buffer, so
 * handlers may read their headers in place. Handler id TP_TCP_CTRL_ID marks
 * the transport's own control frames (handshake, goodbye).
 */
#ifndef RDMPI_TP_TCP_FRAME_H
#define RDMPI_TP_TCP_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define TP_TCP_CTRL_ID 0xffffu
#define TP_TCP_FRAME_IOV 5 /* most iovecs one frame needs */

typedef struct tp_tcp_frame_hdr {
    uint32_t len;     /* payload bytes, without padding */
    uint16_t id;      /* handler id, or TP_TCP_CTRL_ID */
    uint16_t hdr_len; /* active-message header bytes, without padding */
} tp_tcp_frame_hdr_t;

/* One complete frame, pointing into the reassembly buffer. */
typedef struct tp_tcp_frame {
    unsigned id;
    const void *hdr;
    size_t hdr_len;
    const void *payload;
    size_t len;
} tp_tcp_frame_t;

static inline size_t tp_tcp_pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static inline size_t tp_tcp_frame_size(size_t hdr_len, size_t len)
{
    return sizeof(tp_tcp_frame_hdr_t) + tp_tcp_pad8(hdr_len) + tp_tcp_pad8(len);
}

/* Decodes the frame that starts buf, of which have bytes are there: 1 when it
 * is all there (f filled, pointing into buf), 0 when more bytes are needed,
 * CORE_EPROTO when its header is malformed: a header or payload longer than
 * max_hdr/max_len (the receiver's caps), or a handler id that is neither an
 * active-message id (< TP_AM_MAX) nor TP_TCP_CTRL_ID. *size gets the frame's
 * bytes, padding included, once its header is there. Pure: fuzzing calls it
 * directly. */
int tp_tcp_frame_decode(const void *buf, size_t have, size_t max_hdr, size_t max_len,
                        tp_tcp_frame_t *f, size_t *size);

/* Control frames (handler id TP_TCP_CTRL_ID) after the handshake, with no payload: BYE's
 * header is tp_tcp_ctrl_t; the shm bridge's messages between processes of two jobs of one
 * run (docs/dynamic.md: OFFER, ACK, REFUSE, WANT) carry tp_tcp_shm_ctrl_t, both uids and
 * nothing else (the segment's name is derived from them). */
enum { TP_TCP_BYE = 1, TP_TCP_SHM_OFFER, TP_TCP_SHM_ACK, TP_TCP_SHM_REFUSE, TP_TCP_SHM_WANT };

typedef struct tp_tcp_ctrl {
    uint32_t type;
    int32_t rank; /* the sender's uid (core/procs.h: its world rank within one job) */
} tp_tcp_ctrl_t;

typedef struct tp_tcp_shm_ctrl {
    uint32_t type;
    int32_t from, to; /* the sender's and the receiver's uids */
    uint32_t zero;
} tp_tcp_shm_ctrl_t;

/* Decodes a control frame's header (hdr_len bytes, and a payload of len) from the process
 * with uid from, received by the process with uid to: its type, or CORE_EPROTO when its size,
 * type, uids or padding are not what a peer following this file sends. Pure: fuzzing calls
 * it directly. */
int tp_tcp_ctrl_decode(const void *hdr, size_t hdr_len, size_t len, int32_t from, int32_t to);

/* Describes a frame as iovecs (fh is filled and must outlive them); returns
 * how many of iov[TP_TCP_FRAME_IOV] it used. */
int tp_tcp_frame_iov(struct iovec *iov, tp_tcp_frame_hdr_t *fh, unsigned id, const void *hdr,
                     size_t hdr_len, const void *payload, size_t len);

/* Bytes accepted by am_send but not yet taken by the socket, in order: a
 * ring that grows when full, so a partial write never moves queued bytes. */
typedef struct tp_tcp_txq {
    char *buf;
    size_t cap, head, len; /* len queued bytes start at buf[head], wrapping at cap */
} tp_tcp_txq_t;

static inline size_t tp_tcp_txq_bytes(const tp_tcp_txq_t *q)
{
    return q->len;
}

/* Describes the queued bytes, oldest first, as at most 2 iovecs; returns the count. */
int tp_tcp_txq_iov(const tp_tcp_txq_t *q, struct iovec *iov);

/* Appends the bytes of iov[0..n) after the first skip of them. 0 or CORE_ENOMEM. */
int tp_tcp_txq_append(tp_tcp_txq_t *q, const struct iovec *iov, int n, size_t skip);
/* Drops the first n queued bytes (they were written). */
void tp_tcp_txq_consume(tp_tcp_txq_t *q, size_t n);
void tp_tcp_txq_free(tp_tcp_txq_t *q);

/* Reassembly of frames from a byte stream. A large frame whose handler id is in direct_ids
 * may have its payload read to a place of the handler's (tp_tcp_rx_direct), not into buf. */
typedef struct tp_tcp_rx {
    char *buf;
    size_t cap, start, end; /* unparsed bytes are buf[start, end) */
    size_t max_hdr, max_len; /* larger frames are a protocol error */
    int bulk;                /* the last frame was large: read the next header alone */
    unsigned direct_ids;     /* bit per handler id whose large payloads may go to a place */
    int no_place;            /* the pending frame's handler gave no place: buffer it */
    char *dst;               /* the place the pending frame's payload is read to (NULL: none) */
    size_t dst_have, dst_len; /* payload bytes there so far, of dst_len */
    size_t pad_have;         /* padding bytes after the payload read so far (into pad) */
    char pad[8];
} tp_tcp_rx_t;

void tp_tcp_rx_init(tp_tcp_rx_t *rx, size_t max_hdr, size_t max_len);
void tp_tcp_rx_free(tp_tcp_rx_t *rx);
/* Where the next bytes of the stream go (*p, up to *n bytes). Frames
 * returned by tp_tcp_rx_next before this call are no longer valid. Reads of
 * a large frame stop at its end (and the next frame's header), so its bytes
 * are never moved.
 * 0, CORE_ENOMEM, or CORE_EPROTO when the pending frame header is malformed. */
int tp_tcp_rx_space(tp_tcp_rx_t *rx, void **p, size_t *n);
/* n bytes were written at the place tp_tcp_rx_space gave. */
static inline void tp_tcp_rx_commit(tp_tcp_rx_t *rx, size_t n)
{
    rx->end += n;
}
/* The next complete frame: 1 (f filled), 0 (more bytes needed) or CORE_EPROTO
 * (malformed header: see tp_tcp_frame_decode). */
int tp_tcp_rx_next(tp_tcp_rx_t *rx, tp_tcp_frame_t *f);

/* Reading a payload in place. tp_tcp_rx_direct: 1 when the pending frame may have its payload
 * read to a place: a large frame of an id in direct_ids whose header and handler header are
 * in, but not all of its payload (f filled: payload and len describe the whole payload, of
 * which *got bytes are in the buffer); else 0. The caller then asks the handler and says
 * where with tp_tcp_rx_place (NULL: nowhere, the frame is buffered as any other). While
 * rx->dst is set, the stream's bytes go to tp_tcp_rx_direct_iov's iovecs (the rest of the
 * payload, then its padding), tp_tcp_rx_direct_commit counts them, and once it returns 1 the
 * frame is complete: tp_tcp_rx_direct_take gives it (payload at the place) and the buffer
 * starts afresh. */
int tp_tcp_rx_direct(const tp_tcp_rx_t *rx, tp_tcp_frame_t *f, size_t *got);
void tp_tcp_rx_place(tp_tcp_rx_t *rx, void *dst);
int tp_tcp_rx_direct_iov(tp_tcp_rx_t *rx, struct iovec *iov);
int tp_tcp_rx_direct_commit(tp_tcp_rx_t *rx, size_t n);
void tp_tcp_rx_direct_take(tp_tcp_rx_t *rx, tp_tcp_frame_t *f);

#endif
