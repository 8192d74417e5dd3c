/*
 * The tcp connection handshake's messages and checks (see tcp_auth.h for
 * the protocol). Pure code: the caller moves the bytes.
 *
 * Message layout (TP_TCP_AUTH_MSG bytes, integers little-endian):
 *   0  magic "rdTA"     4  version (u16)   6  type (u8)
 *   7  zero (HELLO: 1 when keyed by a bridge key, tcp_auth.h)
 *   8  sender's rank (i32)   12  receiver's rank (i32)
 *   16 nonce (16 bytes: HELLO, CHALLENGE; else zero)
 *   32 MAC (32 bytes: PROOF, ACCEPT, REJECT; else zero)
 */
#include <string.h>
#include "core/errors.h"
#include "transports/tcp/tcp_auth.h"

#define OFF_FROM 8
#define OFF_TO 12
#define OFF_NONCE 16
#define OFF_MAC 32
#define TRANSCRIPT 44

static const uint8_t magic[4] = {'r', 'd', 'T', 'A'};

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void tp_tcp_auth_key(const uint8_t job_key[CORE_KEY_LEN], uint8_t key[CORE_KEY_LEN])
{
    core_kdf(job_key, TP_TCP_AUTH_LABEL, key, CORE_KEY_LEN);
}

/* The bytes a MAC covers: everything both sides know once the nonces are out. */
static void transcript(const tp_tcp_auth_t *a, uint8_t role, unsigned type, uint8_t t[TRANSCRIPT])
{
    int conn_rank = a->connector ? a->me : a->peer;
    int acc_rank = a->connector ? a->peer : a->me;
    t[0] = (uint8_t)TP_TCP_AUTH_VERSION;
    t[1] = (uint8_t)(TP_TCP_AUTH_VERSION >> 8);
    t[2] = role;
    t[3] = (uint8_t)type;
    put32(t + 4, (uint32_t)conn_rank);
    put32(t + 8, (uint32_t)acc_rank);
    memcpy(t + 12, a->nonce_c, TP_TCP_AUTH_NONCE);
    memcpy(t + 28, a->nonce_a, TP_TCP_AUTH_NONCE);
}

static void build(const tp_tcp_auth_t *a, unsigned type, uint8_t out[TP_TCP_AUTH_MSG])
{
    memset(out, 0, TP_TCP_AUTH_MSG);
    memcpy(out, magic, sizeof(magic));
    out[4] = (uint8_t)TP_TCP_AUTH_VERSION;
    out[5] = (uint8_t)(TP_TCP_AUTH_VERSION >> 8);
    out[6] = (uint8_t)type;
    put32(out + OFF_FROM, (uint32_t)a->me);
    put32(out + OFF_TO, (uint32_t)a->peer);
    if (type == TP_TCP_AUTH_HELLO)
        memcpy(out + OFF_NONCE, a->nonce_c, TP_TCP_AUTH_NONCE);
    else if (type == TP_TCP_AUTH_CHALLENGE)
        memcpy(out + OFF_NONCE, a->nonce_a, TP_TCP_AUTH_NONCE);
    if (type >= TP_TCP_AUTH_PROOF) {
        uint8_t t[TRANSCRIPT];
        transcript(a, a->connector ? 'C' : 'A', type, t);
        core_mac(a->key, t, sizeof(t), out + OFF_MAC);
    }
}

void tp_tcp_auth_connect(tp_tcp_auth_t *a, const uint8_t *key, int me, int size, int peer,
                         uint8_t out[TP_TCP_AUTH_MSG])
{
    memset(a, 0, sizeof(*a));
    a->key = key;
    a->me = me;
    a->size = size;
    a->connector = 1;
    a->peer = peer;
    core_random(a->nonce_c, sizeof(a->nonce_c));
    a->expect = TP_TCP_AUTH_CHALLENGE;
    build(a, TP_TCP_AUTH_HELLO, out);
}

void tp_tcp_auth_mark_bridge(tp_tcp_auth_t *a, uint8_t out[TP_TCP_AUTH_MSG])
{
    a->bridge = 1;
    out[7] = 1;
}

void tp_tcp_auth_accept(tp_tcp_auth_t *a, const uint8_t *key, int me, int size)
{
    memset(a, 0, sizeof(*a));
    a->key = key;
    a->me = me;
    a->size = size;
    a->peer = -1;
    a->expect = TP_TCP_AUTH_HELLO;
}

static int fail(tp_tcp_auth_t *a, const char *why)
{
    a->why = why;
    a->expect = 0;
    return CORE_EPEER;
}

static int all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

/* The checks every message passes before its contents mean anything. */
static int check_frame(tp_tcp_auth_t *a, const uint8_t *m, size_t len)
{
    if (a->expect == 0)
        return fail(a, "a message after the handshake ended");
    if (len != TP_TCP_AUTH_MSG)
        return fail(a, "a handshake message of the wrong size");
    if (memcmp(m, magic, sizeof(magic)) != 0)
        return fail(a, "no handshake (not an rdmpi tcp peer)");
    unsigned version = (unsigned)m[4] | (unsigned)m[5] << 8;
    if (version != TP_TCP_AUTH_VERSION)
        return fail(a, "another version of the handshake");
    if (m[6] != a->expect)
        return fail(a, "a handshake message out of order");
    if (m[7] != 0 && !(m[6] == TP_TCP_AUTH_HELLO && m[7] == 1))
        return fail(a, "a malformed handshake message");
    int from = (int)get32(m + OFF_FROM), to = (int)get32(m + OFF_TO);
    if (to != a->me)
        return fail(a, "a handshake meant for another rank");
    if (a->peer < 0) { /* the HELLO: who says it is connecting */
        if (from < 0 || from >= a->size)
            return fail(a, "a claimed rank outside the job");
        if (from == a->me && m[7] == 0) /* of another run (bridge): another numbering */
            return fail(a, "a claim to be this very rank");
    } else if (from != a->peer) {
        return fail(a, "a handshake from another rank than before");
    }
    int has_nonce = m[6] == TP_TCP_AUTH_HELLO || m[6] == TP_TCP_AUTH_CHALLENGE;
    if (has_nonce ? !all_zero(m + OFF_MAC, CORE_MAC_LEN)
                  : !all_zero(m + OFF_NONCE, TP_TCP_AUTH_NONCE))
        return fail(a, "a malformed handshake message");
    return 0;
}

int tp_tcp_auth_plausible(const void *in, size_t n)
{
    return memcmp(in, magic, n < sizeof(magic) ? n : sizeof(magic)) == 0;
}

static int mac_ok(const tp_tcp_auth_t *a, const uint8_t *m)
{
    uint8_t t[TRANSCRIPT];
    transcript(a, a->connector ? 'A' : 'C', m[6], t);
    return core_mac_ok(a->key, t, sizeof(t), m + OFF_MAC);
}

int tp_tcp_auth_recv(tp_tcp_auth_t *a, const void *in, size_t len, uint8_t out[TP_TCP_AUTH_MSG])
{
    const uint8_t *m = in;
    unsigned type = a->expect;
    if (a->connector && type == TP_TCP_AUTH_ACCEPT && len == TP_TCP_AUTH_MSG &&
        m[6] == TP_TCP_AUTH_REJECT)
        type = a->expect = TP_TCP_AUTH_REJECT; /* either verdict may come */
    int rc = check_frame(a, m, len);
    if (rc)
        return rc;
    switch (type) {
    case TP_TCP_AUTH_HELLO:
        a->peer = (int)get32(m + OFF_FROM);
        a->bridge = m[7];
        memcpy(a->nonce_c, m + OFF_NONCE, TP_TCP_AUTH_NONCE);
        core_random(a->nonce_a, sizeof(a->nonce_a));
        a->expect = TP_TCP_AUTH_PROOF;
        build(a, TP_TCP_AUTH_CHALLENGE, out);
        return TP_TCP_AUTH_SEND;
    case TP_TCP_AUTH_CHALLENGE:
        memcpy(a->nonce_a, m + OFF_NONCE, TP_TCP_AUTH_NONCE);
        if (core_mem_eq(a->nonce_a, a->nonce_c, TP_TCP_AUTH_NONCE))
            return fail(a, "a challenge that repeats our own nonce");
        a->expect = TP_TCP_AUTH_ACCEPT;
        build(a, TP_TCP_AUTH_PROOF, out);
        return TP_TCP_AUTH_SEND;
    case TP_TCP_AUTH_PROOF:
        if (a->bridge)
            return TP_TCP_AUTH_WHICH; /* expect stays: tp_tcp_auth_prove ends the step */
        if (!mac_ok(a, m))
            return fail(a, "a wrong proof of the job key (not a member of this job)");
        a->expect = 0;
        return TP_TCP_AUTH_DECIDE;
    default: /* ACCEPT or REJECT */
        if (!mac_ok(a, m))
            return fail(a, "a wrong proof of the job key in its answer");
        a->expect = 0;
        return type == TP_TCP_AUTH_ACCEPT ? TP_TCP_AUTH_UP : TP_TCP_AUTH_REJECTED;
    }
}

void tp_tcp_auth_verdict(tp_tcp_auth_t *a, int accept, uint8_t out[TP_TCP_AUTH_MSG])
{
    build(a, accept ? TP_TCP_AUTH_ACCEPT : TP_TCP_AUTH_REJECT, out);
}

int tp_tcp_auth_prove(tp_tcp_auth_t *a, const uint8_t *key, const void *proof)
{
    if (!a->bridge || a->connector || a->expect != TP_TCP_AUTH_PROOF)
        return 0;
    const uint8_t *was = a->key;
    a->key = key;
    if (mac_ok(a, proof)) {
        a->expect = 0;
        return 1;
    }
    a->key = was;
    return 0;
}
