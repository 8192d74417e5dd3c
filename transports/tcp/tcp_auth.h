/*
 * The tcp connection handshake as pure code (no sockets, no clock): the
 * four messages by which two ranks prove to each other that they hold the
 * job key, before a connection is bound to a rank or carries a frame.
 *
 *   connector                               acceptor
 *   HELLO(me, you, nonce_c)          ->
 *                                    <-     CHALLENGE(me, you, nonce_a)
 *   PROOF(mac_c)                     ->     checks mac_c, then decides
 *                                    <-     ACCEPT(mac_a) or REJECT(mac_a)
 *
 *   mac_x = HMAC-SHA-256(k, version | role | type | connector rank |
 *                           acceptor rank | nonce_c | nonce_a)
 *   k = core_kdf(job_key, "rdmpi tcp auth")
 *
 * Both nonces are fresh random bytes, so a recorded proof is worth nothing
 * on another connection; the role byte ('C' or 'A') makes the two sides'
 * MACs different functions, so a proof sent back to its author (reflected)
 * fails; both ranks are covered, so a proof for one pair of ranks cannot be
 * used for another. The acceptor proves itself only after the connector
 * did: a process without the key gets a challenge and nothing keyed. The
 * key itself never crosses the wire. Every message is TP_TCP_AUTH_MSG bytes
 * in a fixed little-endian layout, so a receiver reads exactly that many
 * bytes per step and never buffers more from an unauthenticated peer.
 *
 * What this proves is membership of the job: any member holds the key and
 * could claim another member's rank. Which rank is which is settled by the
 * job's own launcher (PMIx), which only members can ask.
 *
 * Between two rdmpirun runs (accept/connect, docs/dynamic.md design b) the
 * key is derived from a bridge key the two roots agreed instead of the job
 * key: the connector marks its HELLO (byte 7 = 1: "a bridge key"), and the
 * acceptor, which may share keys with several runs, finds which one the
 * PROOF was made with (tp_tcp_auth_prove). Ranks are then uids of two
 * numberings, so the two may be equal.
 */
#ifndef RDMPI_TP_TCP_AUTH_H
#define RDMPI_TP_TCP_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include "core/secret.h"

#define TP_TCP_AUTH_VERSION 1
#define TP_TCP_AUTH_MSG 64   /* bytes of every handshake message */
#define TP_TCP_AUTH_NONCE 16
#define TP_TCP_AUTH_LABEL "rdmpi tcp auth"

enum tp_tcp_auth_type {
    TP_TCP_AUTH_HELLO = 1,
    TP_TCP_AUTH_CHALLENGE,
    TP_TCP_AUTH_PROOF,
    TP_TCP_AUTH_ACCEPT,
    TP_TCP_AUTH_REJECT,
};

/* What tp_tcp_auth_recv asks of its caller next. */
enum tp_tcp_auth_step {
    TP_TCP_AUTH_SEND = 0, /* send out, then read the next message */
    TP_TCP_AUTH_DECIDE,   /* acceptor: the peer proved membership; answer with tp_tcp_auth_verdict */
    TP_TCP_AUTH_UP,       /* connector: accepted, the connection carries frames from now on */
    TP_TCP_AUTH_REJECTED, /* connector: a proven peer keeps another connection (simultaneous connect) */
    TP_TCP_AUTH_WHICH,    /* acceptor of a bridge HELLO: find the key with tp_tcp_auth_prove */
};

typedef struct tp_tcp_auth {
    const uint8_t *key; /* CORE_KEY_LEN bytes from tp_tcp_auth_key, owned by the caller */
    int me, size;       /* our world rank and the job's size */
    int connector;      /* 1: we connected, 0: we accepted */
    int peer;           /* the other side's world rank; -1 on the acceptor until HELLO */
    int expect;         /* the message type due next; 0 once finished or failed */
    int bridge;         /* keyed by a bridge key (another run), not the job key */
    uint8_t nonce_c[TP_TCP_AUTH_NONCE], nonce_a[TP_TCP_AUTH_NONCE];
    const char *why;    /* after a failure: what was wrong, for the log */
} tp_tcp_auth_t;

/* The handshake key derived from the job key. */
void tp_tcp_auth_key(const uint8_t job_key[CORE_KEY_LEN], uint8_t key[CORE_KEY_LEN]);

/* The connector's side: fills out with HELLO to rank peer. */
void tp_tcp_auth_connect(tp_tcp_auth_t *a, const uint8_t *key, int me, int size, int peer,
                         uint8_t out[TP_TCP_AUTH_MSG]);
/* After tp_tcp_auth_connect with a bridge key: marks the HELLO in out as such. */
void tp_tcp_auth_mark_bridge(tp_tcp_auth_t *a, uint8_t out[TP_TCP_AUTH_MSG]);
/* The acceptor's side: waits for a HELLO. */
void tp_tcp_auth_accept(tp_tcp_auth_t *a, const uint8_t *key, int me, int size);

/* Takes the len bytes the peer sent as the next message. Returns a step
 * (out filled for TP_TCP_AUTH_SEND), or CORE_EPEER with a->why set when the
 * message is malformed, unexpected, for other ranks, or its proof is wrong:
 * the connection must then be closed. */
int tp_tcp_auth_recv(tp_tcp_auth_t *a, const void *in, size_t len, uint8_t out[TP_TCP_AUTH_MSG]);

/* After TP_TCP_AUTH_WHICH: whether proof (the PROOF message just received) was made with
 * key; if so the handshake goes on with it (a->key = key, which the caller keeps) and the
 * acceptor decides as after TP_TCP_AUTH_DECIDE. */
int tp_tcp_auth_prove(tp_tcp_auth_t *a, const uint8_t *key, const void *proof);

/* Whether the first n bytes received of a message can begin one: lets a
 * reader drop a peer that speaks something else at once, before the whole
 * message is in. */
int tp_tcp_auth_plausible(const void *in, size_t n);

/* The acceptor's answer once the peer proved membership (TP_TCP_AUTH_DECIDE). */
void tp_tcp_auth_verdict(tp_tcp_auth_t *a, int accept, uint8_t out[TP_TCP_AUTH_MSG]);

#endif
