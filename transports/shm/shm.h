/*
 * Internal declarations of the shm transport, shared by its files:
 * shm_seg.c (the node's segment), shm_iface.c (the component, active
 * messages, progress) and shm_cma.c (single copy through process_vm_readv).
 */
#ifndef RDMPI_TP_SHM_H
#define RDMPI_TP_SHM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "core/runtime.h"
#include "transports/shm/shm_ring.h"
#include "transports/transport.h"

#define TP_SHM_SEG_MAGIC 0x31676573696d6472ull /* "rdmiseg1" */
#define TP_SHM_SEG_HDR 4096                    /* header page before the rings */
#define TP_SHM_RING_AUTO_TOTAL (32u << 20)     /* auto ring size: this over local_size^2 */
#define TP_SHM_RING_AUTO_MIN (64u << 10)
#define TP_SHM_RING_AUTO_MAX (1u << 20)
#define TP_SHM_RING_FLOOR (4u << 10)           /* never smaller, even when /dev/shm is tight */
#define TP_SHM_RING_CEIL (1u << 30)
#define TP_SHM_MAX_AM_HDR 128

/* The segment's first page. Written by the creator before it publishes the
 * magic word (release); read by the others after the bootstrap fence. */
typedef struct tp_shm_seg_hdr {
    _Atomic uint64_t magic;
    uint32_t local_size;
    uint32_t reserved;
    uint64_t ring_size;   /* data bytes of every ring */
    uint64_t ring_stride; /* bytes from one ring to the next */
    uint64_t total;       /* bytes of the whole segment */
    _Atomic uint32_t attached; /* ranks that have mapped it, the creator included */
    _Atomic uint32_t unlinked; /* set by whoever removes the name */
    /* Nonzero once a rank of the node has gone to sleep in a blocked call: from then on
     * senders look at the receiver's doorbell after each record (shm_bell.h). Until then
     * they skip even the fence, so a job whose ranks never sleep pays nothing. */
    _Alignas(64) _Atomic uint32_t sleepers;
    /* Nonzero once a rank of the node rings bells without a fence (shm_bell.h,
     * tp_shm_bell_ring_light): set before its first record; a sleeper that reads it after
     * arming calls the membarrier that stands in for the senders' fences. */
    _Atomic uint32_t light;
} tp_shm_seg_hdr_t;

typedef struct tp_shm_seg {
    char name[336]; /* with the leading '/' */
    void *base;
    size_t len;
    int creator;
} tp_shm_seg_t;

/* Cooperative copy (shm_coop.c): per ordered pair of local ranks, a few
 * slots in the segment, after each ring. */
#define TP_SHM_COOP_SLOTS 8
#define TP_SHM_COOP_AREA (TP_SHM_COOP_SLOTS * 64)
#define TP_SHM_ID_COOP 255 /* ring record id of a HELP request (not an AM) */

typedef struct tp_shm_coop_slot {
    _Alignas(64) _Atomic uint64_t claim; /* gen << 32 | next chunk */
    _Atomic uint64_t done;               /* gen << 32 | chunks copied */
} tp_shm_coop_slot_t;

/* The requester's private record of a slot in use. */
typedef struct tp_shm_coop_job {
    int busy;
    uint32_t gen;
    uint64_t nchunks;
    tp_comp_t *comp;
    void *local;   /* the requester's buffer, which the helper writes a part of */
    size_t len;
} tp_shm_coop_job_t;

/* Whether one side has mapped a ring yet (tp_shm_seg_fill): the offset in the ring (of head
 * or tail) past which it maps it, UINT64_MAX once done. */
typedef struct tp_shm_fill {
    uint64_t at;
} tp_shm_fill_t;

/* The endpoint to one local peer: the producer side of the my->peer ring. */
typedef struct tp_shm_ep {
    tp_ep_t base;
    tp_shm_prod_t prod;
    _Atomic uint32_t *bell; /* the peer's doorbell */
    int lpeer;
    int ready;
    tp_shm_fill_t fill; /* how much of the ring is mapped ahead (tp_shm_seg_fill) */
    /* prod.head after each message sent (shm_am_send), for shm_unread: the engine's holder
     * reads it outside G while a thread pushes under S(peer) */
    _Atomic uint64_t pushed;
} tp_shm_ep_t;

/* One incoming ring (peer->me). */
typedef struct tp_shm_in {
    tp_shm_cons_t cons;
    int src;  /* the producer's world rank */
    int lsrc; /* and its local rank */
    tp_shm_fill_t fill; /* how much of the ring is mapped ahead (tp_shm_seg_fill) */
    int failed;    /* the producer broke the protocol: the ring is read no more */
} tp_shm_in_t;

/* The settings (shm_config.c). */
typedef struct tp_shm_config {
    size_t shm_eager_limit;     /* RDMPI_SHM_EAGER_LIMIT */
    size_t shm_ring_size;       /* RDMPI_SHM_RING_SIZE (0: sized from the node's rank count) */
    int shm_cma;                /* RDMPI_SHM_CMA: single copy through process_vm_readv */
    int shm_bell_fence; /* RDMPI_SHM_BELL_FENCE: a fence per record (shm_bell.h) */
    size_t shm_bridge_ring;     /* RDMPI_SHM_BRIDGE_RING: bytes per ring of a bridge */
    int test_bridge_fail;       /* RDMPI_TEST_SHM_BRIDGE_FAIL: TP_SHM_TEST_FAIL_* */
} tp_shm_config_t;
enum { TP_SHM_TEST_FAIL_NONE, TP_SHM_TEST_FAIL_CREATE, TP_SHM_TEST_FAIL_ATTACH };
/* The eager limit of an interface or bridge whose messages are at most max_am bytes: the
 * setting, or when it is 0 the default for whether single copy (cma) works and the size of
 * its rings (ring_size). */
size_t tp_shm_eager_limit(const tp_shm_config_t *cfg, int cma, size_t ring_size, size_t max_am);
/* tp_caps_t.eager_idle_limit of the node's rings (shm_config.c). */
size_t tp_shm_eager_idle_limit(const tp_shm_config_t *cfg, int cma, size_t ring_size,
                               size_t max_am);

/*
 * Bridges (shm_bridge.c, shm_bseg.c; docs/dynamic.md design a): a segment of its own per
 * pair of processes of two jobs of one run on one node, made by the lower uid, with a
 * header page and two rings (lower->higher first). The header is written by the creator
 * before it publishes the magic word, but for the attacher's half of the single-copy probe
 * (pid[1], probe[1], cma[1], then ACK over tcp) and the creator's verdict (cma[0]).
 */
#define TP_SHM_BRIDGE_MAGIC 0x31656764697262ull /* "bridge1" */
#define TP_SHM_BRIDGE_HDR 4096
enum { TP_SHM_CMA_UNKNOWN = 0, TP_SHM_CMA_YES, TP_SHM_CMA_NO };

typedef struct tp_shm_bridge_hdr {
    _Atomic uint64_t magic;
    uint32_t uid_lo, uid_hi;
    uint64_t ring_size;        /* data bytes of each ring */
    uint64_t ring_stride;      /* bytes from one ring to the next */
    uint64_t total;            /* bytes of the segment */
    _Atomic uint32_t attached; /* 1 by the creator, 2 once the other side mapped it */
    _Atomic uint32_t unlinked;
    int32_t pid[2];            /* creator's, attacher's: the only process a remote key names */
    uint64_t probe[2];         /* the address of each one's probe word */
    _Atomic uint32_t cma[2];   /* what each found reading the other (TP_SHM_CMA_*) */
} tp_shm_bridge_hdr_t;

/* A bridge segment's mapping. */
typedef struct tp_shm_bseg {
    char name[96];
    void *base;
    size_t len;
    size_t ring_size, stride; /* as checked (the header stays writable by the peer) */
    int creator;
} tp_shm_bseg_t;

/* shm_bseg.c */
size_t tp_shm_bseg_stride(size_t ring_size);
/* The segment's name for the pair (uid_lo < uid_hi) of the run of job_key. */
void tp_shm_bseg_name(char *buf, size_t len, const uint8_t *job_key, uint32_t lo, uint32_t hi);
/* Whether h, a copy of the header of a segment of size bytes that the creator should have
 * made for the pair (lo, hi), is one: 0, or CORE_EIO with what is wrong in why. Every field is
 * checked. Pure: fuzzing calls it directly. */
int tp_shm_bseg_check(const tp_shm_bridge_hdr_t *h, uint32_t lo, uint32_t hi, uint64_t size,
                      char *why, size_t len);
/* The creator's header (over zeroed memory), published last by its magic word. */
void tp_shm_bseg_hdr_init(tp_shm_bridge_hdr_t *h, uint32_t lo, uint32_t hi, size_t ring_size,
                          int32_t pid, uint64_t probe);
int tp_shm_bseg_create(tp_shm_bseg_t *b, uint32_t lo, uint32_t hi, size_t ring_size,
                       int32_t pid, uint64_t probe);
int tp_shm_bseg_attach(tp_shm_bseg_t *b, uint32_t lo, uint32_t hi);
void tp_shm_bseg_destroy(tp_shm_bseg_t *b);
/* Ring dir (0: lower->higher, 1: higher->lower). */
void *tp_shm_bseg_ring(tp_shm_bseg_t *b, int dir);

/* shm_bridge.c: the interface of the bridges (the component's open_dynamic). */
extern const tp_ops_t tp_shm_bridge_ops;
int tp_shm_bridge_open(core_runtime_t *rt, tp_iface_t **iface_p);
int tp_shm_bridge_reachable(tp_iface_t *iface, int peer);
extern const core_config_group_t tp_shm_config_group;

/* Reads (rendezvous gets) asked for while progress hands records to the handlers wait here
 * and go in one process_vm_readv when the ring's batch ends (shm_cma.c): a system call per
 * message was a third of the time of an 8-16 KiB one (0.71 us alone, 0.48 batched). */
#define TP_SHM_GETQ_MAX 64
#define TP_SHM_GETQ_BYTES ((size_t)1 << 20) /* more than this per call: already copy-bound */

typedef struct tp_shm_getq_item {
    tp_comp_t *comp;
    void *local;
    size_t len;
    uint64_t raddr;
} tp_shm_getq_item_t;

typedef struct tp_shm_getq {
    int on;            /* inside a ring's batch: gets may wait */
    int n;
    int32_t pid;       /* whose memory every waiting read names */
    tp_shm_ep_t *ep;   /* the endpoint to that process */
    int peer;          /* its world rank, for the error report */
    size_t bytes;
    tp_shm_getq_item_t item[TP_SHM_GETQ_MAX];
} tp_shm_getq_t;

typedef struct tp_shm_iface {
    tp_iface_t base;
    core_runtime_t *rt;
    const tp_shm_config_t *cfg;
    int me, nlocal;  /* local rank and local size */
    tp_shm_seg_t seg;
    size_t ring_size;
    tp_shm_ep_t *eps; /* by local rank; eps[me] unused */
    int *out;         /* the local ranks of the endpoints made ready, in order ... */
    _Atomic int nout; /* ... so many (written in G, read outside it by shm_unread) */
    tp_shm_in_t *in;  /* incoming rings of the local ranks that have written to us */
    int nin;
    _Atomic uint64_t *senders; /* ours in the segment: bit k once local rank k writes to us */
    uint64_t *senders_seen;    /* the bits already turned into entries of in */
    int nsender_words;
    _Atomic uint32_t *bell; /* ours: rung by peers while we sleep (shm_bell.h) */
    _Atomic uint32_t *sleepers; /* the segment header's: ring bells only once it is set */
    int light;                  /* this process rings bells without a fence (shm_bell.h) */
    int cma_logged;  /* a CMA failure has been reported */
    char memh_token; /* what mem_reg hands out: CMA needs no registration */
    tp_shm_coop_job_t *coop; /* nlocal * TP_SHM_COOP_SLOTS, NULL when CMA is off */
    int32_t *pids;           /* by local rank: tp_shm_peer_pid's cache (0: not read yet) */
    uint32_t coop_gen;
    int coop_pending;
    tp_shm_getq_t getq;
    _Alignas(8) volatile uint64_t cma_magic; /* read by a peer to probe CMA */
} tp_shm_iface_t;

static inline tp_shm_iface_t *tp_shm_iface(tp_iface_t *iface)
{
    return (tp_shm_iface_t *)iface; /* base is the first member */
}

/* shm_seg.c */
size_t tp_shm_ring_size_pick(const core_runtime_t *rt, const tp_shm_config_t *cfg);
int tp_shm_seg_create(tp_shm_iface_t *s, size_t ring_size);
/* Maps the segment named s->seg.name, which local rank 0 made expect bytes long. */
int tp_shm_seg_attach(tp_shm_iface_t *s, size_t expect);
/* Whether the object st describes may be the segment: a regular object of
 * user uid, open to no other user, of expect bytes. 0, or CORE_EPERM/CORE_EIO
 * with what is wrong in why. */
int tp_shm_seg_check(const struct stat *st, uid_t uid, size_t expect, char *why, size_t len);
void tp_shm_seg_destroy(tp_shm_iface_t *s);
void *tp_shm_seg_ring(tp_shm_iface_t *s, int src, int dst);
/* The part of a ring its producer would keep to while the consumer keeps up
 * (tp_shm_prod_keep; not used: shm_ep_create says why): the ring's first page. Records of a few bytes to a few KiB exchanged back and forth (a
 * barrier, the 2-rank collectives, a ping-pong) then never touch the rest: mapping it, in
 * pieces or whole, cost 0.2 us per 2-rank OSU barrier and ~1 us per 1 KiB allgather at
 * -i 200 (a page fault is ~4 us on a VM), and cycling through a ring of 1 MiB evicts the
 * caches that the first page stays in. */
#define TP_SHM_RING_KEEP (4096 - TP_SHM_RING_CTRL)
/* Offset in a small ring (below TP_SHM_FILL_EARLY bytes: a node of 12 or more ranks) past
 * which its sides map it: a ring that only ever carried a few small records (a peer met in a
 * tree collective, a barrier) stays at its first page, the memory model of docs/scale.md
 * (one 4 KiB page per peer met with small messages, where a node has hundreds of peers). */
#define TP_SHM_FILL_AFTER 4096
/* Rings of this size or more (nodes of up to 11 ranks, a few peers each) are mapped at their
 * first record: mapping 256 KiB-1 MiB costs 0.3-1 ms, which a short timed loop must not
 * meet (a 2-rank OSU barrier of -i 200 took 3.1 us instead of 0.3 when its ring crossed the
 * 4 KiB mark inside the loop), and it is at most a few MiB per process there. */
#define TP_SHM_FILL_EARLY (256u << 10)
/* Maps the whole ring into this process (each side once: at its first record, or once its
 * offset first passes TP_SHM_FILL_AFTER in a small ring), so that the rest of its first lap
 * takes no fault per page. The whole ring, not pieces ahead of use as before: the first lap
 * of the 1 MiB ring of 2 ranks is osu_bw's and osu_bibw's 1-8 B (each size moves ~280 KB),
 * which paid a page fault or a 16 KiB populate every few hundred messages inside their timed
 * loops (osu_bw 1-4 B ran 5-14% faster with a 16-64 KiB ring, mapped in its first messages,
 * than on the first lap of the 1 MiB one). */
void tp_shm_seg_fill(tp_shm_iface_t *s, void *ring, tp_shm_fill_t *f);
static inline void tp_shm_fill_init(tp_shm_fill_t *f, uint64_t ring_size)
{
    f->at = ring_size >= TP_SHM_FILL_EARLY ? 0 : TP_SHM_FILL_AFTER;
}
_Atomic uint32_t *tp_shm_seg_bell(tp_shm_iface_t *s, int r);
/* Local rank r's senders bitmap (nwords words), beside its doorbell; NULL if it does not fit. */
_Atomic uint64_t *tp_shm_seg_senders(tp_shm_iface_t *s, int r, int nwords);
tp_shm_coop_slot_t *tp_shm_seg_coop(tp_shm_iface_t *s, int requester, int helper, uint32_t k);
/* How many single copies local rank r is running now (shm_coop.c): the first word of its
 * diagonal coop slots, which no copy uses (a rank never asks itself for help). */
_Atomic uint32_t *tp_shm_seg_copying(tp_shm_iface_t *s, int r);

/* shm_coop.c */
/* Gets of at least TP_SHM_COOP_MIN bytes are copied by both sides; so are those of at least
 * TP_SHM_COOP_LONE bytes that are alone in their batch (a ping-pong: the sender waits with
 * nothing to do), while a batch of several goes in one process_vm_readv (osu_bw's window of
 * 64 KiB messages: 13.7-14.6 GB/s each copied by both sides, 18.9-19.0 batched). */
#define TP_SHM_COOP_MIN ((size_t)512 << 10)
#define TP_SHM_COOP_LONE ((size_t)64 << 10)
/* Copies len bytes of process pid at raddr into local with the peer's help: 0 when done,
 * CORE_INPROGRESS when comp fires later (from progress), CORE_EUNSUPPORTED when no slot is
 * free (the caller copies alone), CORE_EIO. */
int tp_shm_coop_get(tp_shm_ep_t *e, void *local, size_t len, uint64_t raddr, pid_t pid,
                    tp_comp_t *comp);
/* A HELP request (ring record TP_SHM_ID_COOP) from local rank lsrc: 0, or CORE_EPROTO
 * (reason given to core_wire_reject) when it is malformed. */
int tp_shm_coop_help(tp_shm_iface_t *s, int lsrc, const void *hdr, size_t hdr_len);
/* Counts a copy of ours (delta 1 before, -1 after; not the help we give) as under way, in
 * the segment, where a peer looks before it asks us for help (tp_shm_coop_get). */
static inline void tp_shm_copying(tp_shm_iface_t *s, int delta)
{
    atomic_fetch_add_explicit(tp_shm_seg_copying(s, s->me), (uint32_t)delta,
                              memory_order_relaxed);
}
/* The pid of local rank lrank as it published it (its CMA card), or -1; cached. A remote key
 * or copy request naming another process is refused: a peer must not direct our CMA reads
 * and writes at a third process. */
int32_t tp_shm_peer_pid(tp_shm_iface_t *s, int lrank);
int tp_shm_coop_progress(tp_shm_iface_t *s);

/* shm_cma.c */
/* Allows other processes of this user to read us with CMA (Yama); the word a peer reads. */
void tp_shm_cma_allow(volatile uint64_t *word);
/* Whether process pid's probe word at addr reads back with CMA (a bridge's peer). */
int tp_shm_cma_try(int32_t pid, uint64_t addr);
/* Moves len bytes between local and process pid's raddr (write: to it), looping over
 * chunks and partial transfers (process_vm_* stop at a page they cannot access and at
 * about 2 GiB per call): 0, or the errno that stopped it. */
int tp_shm_cma_move(int32_t pid, void *local, size_t len, uint64_t raddr, int write);
void tp_shm_cma_open(tp_shm_iface_t *s);
void tp_shm_cma_probe(tp_shm_iface_t *s);
int tp_shm_mem_reg(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p);
void tp_shm_mem_dereg(tp_iface_t *iface, tp_memh_t *memh);
size_t tp_shm_rkey_pack(tp_iface_t *iface, tp_memh_t *memh, void *buf);
/* Does the reads waiting in s->getq and fires their completions. */
void tp_shm_getq_flush(tp_shm_iface_t *s);
int tp_shm_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
               const void *rkey, tp_comp_t *comp);
int tp_shm_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
               const void *rkey, tp_comp_t *comp);

#endif
