/*
 * A test endpoint for p2p's message handlers: a fake runtime (no bootstrap,
 * no real transport) in which p2p_init has registered its handlers, so a test
 * or a fuzz target can feed (handler id, source rank, header, payload) to
 * them with tp_am_dispatch(p2p_fake.tp.am, id, src, hdr, hdr_len, payload, len) as a
 * transport would, and see what p2p sent back (control messages, DATA).
 *
 * The fake transport "fake" reaches every rank of an nranks-rank job: am_send
 * records each message (and never says busy), mem_reg/rkey_pack hand out a
 * 4-byte key, get fills the local buffer with 0x5a, put does nothing; both
 * complete at once. Link with p2p_fake.c, the src/p2p files and the core objects
 * listed in test/local.mk (test_p2p_wire). core_fatal returns to the test
 * through p2p_fake_try (a longjmp), so a fatal path can be checked too.
 */
#ifndef RDMPI_TEST_P2P_FAKE_H
#define RDMPI_TEST_P2P_FAKE_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include "core/runtime.h"
#include "p2p/proto.h"

#define P2P_FAKE_MAX_RANKS 8
#define P2P_FAKE_MAX_SENT 64

typedef struct p2p_fake_msg {
    int dest;
    unsigned id;
    uint8_t hdr[256];
    size_t hdr_len, len;
    uint8_t payload[256]; /* the first bytes */
} p2p_fake_msg_t;

typedef struct p2p_fake {
    core_runtime_t *rt;
    tp_iface_t iface;
    tp_layer_t tp;         /* the fake transports layer: endpoints, handler table */
    tp_ep_t ep[P2P_FAKE_MAX_RANKS];
    p2p_fake_msg_t sent[P2P_FAKE_MAX_SENT];
    int nsent;
    int busy;              /* set: every send says CORE_EBUSY (a full transport) */
    /* Called when p2p asks for an endpoint the fake has none for (tp_ep_get_slow), then
     * the endpoint of that rank is handed out: what another thread's progress does while
     * a real transport, connecting to a process of another job, has left the critical
     * section (MPI_THREAD_MULTIPLE). NULL: no endpoint (CORE_EPEER). */
    void (*on_connect)(int peer);
    /* fatal paths */
    jmp_buf jmp;
    int armed;
    char fatal[512];
} p2p_fake_t;

extern p2p_fake_t p2p_fake;

/* Builds the runtime (core_rt) of rank `rank` in an nranks-rank job whose transport has
 * caps flags `flags` (TP_CAP_GET/PUT), eager limit 64 bytes and max_rkey 4, and runs
 * p2p_init. Returns 0. */
int p2p_fake_init(int nranks, int rank, unsigned flags);
void p2p_fake_fini(void);
/* The last message p2p sent, or NULL; p2p_fake_clear forgets them all. */
const p2p_fake_msg_t *p2p_fake_last(void);
void p2p_fake_clear(void);
/* Builds a communicator over the world ranks `ranks` (n of them, this rank among them)
 * with context id ctx (even). Free with p2p_fake_comm_free. */
MPI_Comm p2p_fake_comm(const int *ranks, int n, uint32_t ctx);
void p2p_fake_comm_free(MPI_Comm c);

/* Runs fn(arg); returns 1 if it ended in core_fatal (message in p2p_fake.fatal), else 0. */
int p2p_fake_try(void (*fn)(void *), void *arg);

#endif
