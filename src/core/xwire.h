/*
 * The messages two roots of separate rdmpirun runs exchange in MPI_Comm_accept/connect
 * (docs/dynamic.md, design b; api/xport.c moves them over a socket), as pure code.
 *
 *   connector                                   acceptor (listening at the port's address)
 *   HELLO(seq, run_c, nonce_c)           ->
 *                                        <-     CHALLENGE(seq, run_a, nonce_a)
 *   PROOF(mac_c)                         ->     checks mac_c
 *                                        <-     ACCEPT(mac_a) or REFUSE(reason)
 *   TABLE(connector's group, mac)        ->
 *                                        <-     TABLE(acceptor's group, mac)
 *   DONE                                 <->    DONE   (each side took the other's table)
 *   DONE or REFUSE(GAVE_UP)              <->    DONE or REFUSE(GAVE_UP)
 *                                               (every member of the sender's group added
 *                                               the other group: both go on only on two DONEs)
 *
 *   mac_x  = HMAC-SHA-256(k, version | role x | seq | run_c | run_a | nonce_c | nonce_a)
 *   k      = core_kdf(port key, "rdmpi xrun auth")
 *   bridge = HMAC-SHA-256(k, version | 'B' | seq | run_c | run_a | nonce_c | nonce_a)
 *
 * The port key (core/portname.h) is the shared secret: whoever was given the port may
 * connect, as in every MPI. Fresh nonces on both sides make a recorded proof worthless;
 * the role byte makes a reflected proof fail; the acceptor proves itself only after the
 * connector did. The bridge key never crosses the wire; the members of both groups
 * authenticate their tcp connections to each other with it (tcp_auth.h). A TABLE is MACed
 * with the bridge key and its sender's role, so it cannot be altered or sent back. DONE
 * (in both directions) says the sender took the other's table: neither goes on into the
 * intercommunicator's creation while the other may have refused it.
 *
 * Handshake messages are CORE_XWIRE_HS bytes, little-endian:
 *   0 magic "rdXR"  4 version (u16)  6 type (u8)  7 zero
 *   8 port number (u32)  12 REFUSE: reason (u32), else zero  16 sender's run id (u64)
 *   24 nonce (16: HELLO, CHALLENGE; else zero)  40 MAC (32: PROOF, ACCEPT; else zero)
 * A TABLE: a header of CORE_XWIRE_TABLE_HDR bytes
 *   0 magic "rdXT"  4 version (u16)  6 k: other runs (u16)  8 n (u32)  12 leader (u32)
 *   16 run id (u64)  24 zero (u64)
 * then n entries of 12 bytes (uid u32, IPv4 address 4 bytes, tcp port u16, run index u16:
 * 0 the header's run, i the i-th of the other runs), then the k other runs' ids (u64 each:
 * a group merged from earlier accept/connects holds processes of several runs), in the order
 * the entries first name them, then the MAC (32 bytes) over all that. The leader is of the
 * header's run; (run, uid) names one process once.
 *
 * Each member of one group shares with each run S of the other group the key
 * core_xwire_pair_key(bridge, its own run, S): its tcp connections to processes of S prove
 * that one, so a process that holds keys for several runs knows from the proof which run a
 * peer belongs to.
 */
#ifndef RDMPI_CORE_XWIRE_H
#define RDMPI_CORE_XWIRE_H

#include <stddef.h>
#include <stdint.h>
#include "core/secret.h"

#define CORE_XWIRE_VERSION 3 /* 2: the last words after DONE; 3: groups of several runs */
#define CORE_XWIRE_HS 72
#define CORE_XWIRE_NONCE 16
#define CORE_XWIRE_TABLE_HDR 32
#define CORE_XWIRE_ENTRY 12
#define CORE_XWIRE_MAX 1024      /* processes of one group (core/procs.h: CORE_PROCS_DYN) */
#define CORE_XWIRE_MAX_RUNS 15   /* runs in one group besides its leader's */

enum core_xwire_type {
    CORE_XWIRE_HELLO = 1,
    CORE_XWIRE_CHALLENGE,
    CORE_XWIRE_PROOF,
    CORE_XWIRE_ACCEPT,
    CORE_XWIRE_REFUSE,
    CORE_XWIRE_DONE,
};

/* Why an acceptor refuses (REFUSE's reason). */
enum core_xwire_reason {
    CORE_XWIRE_WRONG_KEY = 1,    /* the proof was not made with the port's key */
    CORE_XWIRE_NO_PORT,          /* no such port open here */
    CORE_XWIRE_SAME_RUN,         /* a run connecting to itself this way */
    CORE_XWIRE_GAVE_UP,          /* (either root, in place of the last DONE) a member of
                                  * its group failed after the tables: nobody goes on */
};

typedef struct core_xwire_hs {
    unsigned type;
    uint32_t seq, reason;
    uint64_t run;
    uint8_t nonce[CORE_XWIRE_NONCE];
    uint8_t mac[CORE_MAC_LEN];
} core_xwire_hs_t;

/* Both sides' view of one handshake (fields filled as messages arrive). */
typedef struct core_xwire_session {
    uint8_t k[CORE_KEY_LEN];     /* from the port key */
    uint32_t seq;
    uint64_t run_c, run_a;
    uint8_t nonce_c[CORE_XWIRE_NONCE], nonce_a[CORE_XWIRE_NONCE];
} core_xwire_session_t;

typedef struct core_xwire_entry {
    uint32_t uid;
    uint8_t ip[4];
    uint16_t port;
    uint64_t run;                /* its run (encode: 0 is the table's; decode fills it in) */
} core_xwire_entry_t;

typedef struct core_xwire_table {
    uint32_t n, leader;
    uint64_t run;
    core_xwire_entry_t *e;       /* n entries (the caller's memory) */
} core_xwire_table_t;

void core_xwire_hs_encode(const core_xwire_hs_t *m, uint8_t out[CORE_XWIRE_HS]);
/* 0, or CORE_EPROTO with *why: not a well-formed handshake message (fields that must be
 * zero for its type checked too). */
int core_xwire_hs_decode(const uint8_t *in, size_t len, core_xwire_hs_t *m, const char **why);

/* The session key k from the port key. */
void core_xwire_session_key(core_xwire_session_t *s, const uint8_t port_key[CORE_KEY_LEN]);
/* mac_x for role 'C' (connector), 'A' (acceptor) or 'B' (the bridge key). */
void core_xwire_mac(const core_xwire_session_t *s, uint8_t role, uint8_t out[CORE_MAC_LEN]);
/* 1 when mac is right for role, in constant time. */
int core_xwire_mac_ok(const core_xwire_session_t *s, uint8_t role, const uint8_t *mac);

/* Bytes of a table of n entries naming k runs besides the header's, MAC included. */
size_t core_xwire_table_size(uint32_t n, uint32_t k);
/* The runs t's entries name besides t->run, or more than CORE_XWIRE_MAX_RUNS: too many. */
uint32_t core_xwire_table_runs(const core_xwire_table_t *t);
/* Encodes t into out (core_xwire_table_size(t->n, core_xwire_table_runs(t)) bytes, which
 * must be at most CORE_XWIRE_MAX_RUNS), MACed with key for role. */
void core_xwire_table_encode(const core_xwire_table_t *t, const uint8_t key[CORE_KEY_LEN],
                             uint8_t role, uint8_t *out);
/* The n and k a table header announces: 0, or CORE_EPROTO with *why. */
int core_xwire_table_count(const uint8_t *hdr, size_t len, uint32_t *n, uint32_t *k,
                           const char **why);
/* Decodes len bytes (exactly a whole table) into t; t->e must have room for the n the
 * header announced. Every field is checked (leader < n and of the header's run, uids below
 * 2^30, (run, uid) distinct, ports 1..65535, run indices within k, the other runs nonzero,
 * distinct, not the header's, each named by an entry and listed in order of first use,
 * zeros); key NULL skips the MAC (fuzzing), else a wrong MAC fails. Every entry's run is
 * filled in. 0, or CORE_EPROTO with *why. */
int core_xwire_table_decode(const uint8_t *in, size_t len, const uint8_t *key, uint8_t role,
                            core_xwire_table_t *t, const char **why);
/* The key a process of run mine shares with the processes of run theirs after a link whose
 * bridge key is bridge: the same at both ends (the runs in order). */
void core_xwire_pair_key(const uint8_t bridge[CORE_KEY_LEN], uint64_t mine, uint64_t theirs,
                         uint8_t out[CORE_KEY_LEN]);

#endif
