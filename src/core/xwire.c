/*
 * The messages between the roots of two runs (core/xwire.h).
 */
#include <string.h>
#include "core/errors.h"
#include "core/xwire.h"

#define KDF_LABEL "rdmpi xrun auth"
#define UID_LIMIT (1u << 30)

static const uint8_t hs_magic[4] = { 'r', 'd', 'X', 'R' };
static const uint8_t tab_magic[4] = { 'r', 'd', 'X', 'T' };

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static int zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

void core_xwire_hs_encode(const core_xwire_hs_t *m, uint8_t out[CORE_XWIRE_HS])
{
    memset(out, 0, CORE_XWIRE_HS);
    memcpy(out, hs_magic, 4);
    put16(out + 4, CORE_XWIRE_VERSION);
    out[6] = (uint8_t)m->type;
    put32(out + 8, m->seq);
    if (m->type == CORE_XWIRE_REFUSE)
        put32(out + 12, m->reason);
    put64(out + 16, m->run);
    if (m->type == CORE_XWIRE_HELLO || m->type == CORE_XWIRE_CHALLENGE)
        memcpy(out + 24, m->nonce, CORE_XWIRE_NONCE);
    if (m->type == CORE_XWIRE_PROOF || m->type == CORE_XWIRE_ACCEPT)
        memcpy(out + 40, m->mac, CORE_MAC_LEN);
}

static int bad(const char **why, const char *what)
{
    *why = what;
    return CORE_EPROTO;
}

int core_xwire_hs_decode(const uint8_t *in, size_t len, core_xwire_hs_t *m, const char **why)
{
    if (len != CORE_XWIRE_HS)
        return bad(why, "a handshake message of the wrong size");
    if (memcmp(in, hs_magic, 4))
        return bad(why, "no handshake of rdmpi roots (not an rdmpi port)");
    if (get16(in + 4) != CORE_XWIRE_VERSION)
        return bad(why, "another version of the handshake between runs");
    unsigned type = in[6];
    if (type < CORE_XWIRE_HELLO || type > CORE_XWIRE_DONE || in[7])
        return bad(why, "a malformed handshake message");
    int nonce = type == CORE_XWIRE_HELLO || type == CORE_XWIRE_CHALLENGE;
    int mac = type == CORE_XWIRE_PROOF || type == CORE_XWIRE_ACCEPT;
    uint32_t reason = get32(in + 12);
    if ((type == CORE_XWIRE_REFUSE) != (reason != 0) || reason > CORE_XWIRE_GAVE_UP ||
        (!nonce && !zero(in + 24, CORE_XWIRE_NONCE)) || (!mac && !zero(in + 40, CORE_MAC_LEN)))
        return bad(why, "a malformed handshake message");
    memset(m, 0, sizeof(*m));
    m->type = type;
    m->seq = get32(in + 8);
    m->reason = reason;
    m->run = get64(in + 16);
    memcpy(m->nonce, in + 24, CORE_XWIRE_NONCE);
    memcpy(m->mac, in + 40, CORE_MAC_LEN);
    if (m->seq >= UID_LIMIT)
        return bad(why, "a port number out of range");
    if (m->run == 0 && (type == CORE_XWIRE_HELLO || type == CORE_XWIRE_CHALLENGE))
        return bad(why, "run id 0");
    return 0;
}

void core_xwire_session_key(core_xwire_session_t *s, const uint8_t port_key[CORE_KEY_LEN])
{
    core_kdf(port_key, KDF_LABEL, s->k, sizeof(s->k));
}

#define TRANSCRIPT (2 + 1 + 4 + 8 + 8 + 2 * CORE_XWIRE_NONCE)

void core_xwire_mac(const core_xwire_session_t *s, uint8_t role, uint8_t out[CORE_MAC_LEN])
{
    uint8_t t[TRANSCRIPT];
    put16(t, CORE_XWIRE_VERSION);
    t[2] = role;
    put32(t + 3, s->seq);
    put64(t + 7, s->run_c);
    put64(t + 15, s->run_a);
    memcpy(t + 23, s->nonce_c, CORE_XWIRE_NONCE);
    memcpy(t + 23 + CORE_XWIRE_NONCE, s->nonce_a, CORE_XWIRE_NONCE);
    core_mac(s->k, t, sizeof(t), out);
}

int core_xwire_mac_ok(const core_xwire_session_t *s, uint8_t role, const uint8_t *mac)
{
    uint8_t want[CORE_MAC_LEN];
    core_xwire_mac(s, role, want);
    return core_mem_eq(want, mac, CORE_MAC_LEN);
}

size_t core_xwire_table_size(uint32_t n, uint32_t k)
{
    return CORE_XWIRE_TABLE_HDR + (size_t)n * CORE_XWIRE_ENTRY + (size_t)k * 8 + CORE_MAC_LEN;
}

/* The index entry e's run gets in t (0: the table's own; i: the i-th of runs[]), adding it
 * to runs[] (k so far) on its first use; -1 past CORE_XWIRE_MAX_RUNS. */
static int run_index(const core_xwire_table_t *t, const core_xwire_entry_t *e, uint64_t *runs,
                     uint32_t *k)
{
    if (!e->run || e->run == t->run)
        return 0;
    for (uint32_t i = 0; i < *k; i++)
        if (runs[i] == e->run)
            return (int)i + 1;
    if (*k >= CORE_XWIRE_MAX_RUNS)
        return -1;
    runs[(*k)++] = e->run;
    return (int)*k;
}

uint32_t core_xwire_table_runs(const core_xwire_table_t *t)
{
    uint64_t runs[CORE_XWIRE_MAX_RUNS];
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (run_index(t, &t->e[i], runs, &k) < 0)
            return CORE_XWIRE_MAX_RUNS + 1;
    return k;
}

static void table_mac(const uint8_t *body, size_t len, const uint8_t key[CORE_KEY_LEN],
                      uint8_t role, uint8_t out[CORE_MAC_LEN])
{
    core_mac_part_t parts[2] = { { &role, 1 }, { body, len } };
    core_mac_parts(key, parts, 2, out);
}

void core_xwire_table_encode(const core_xwire_table_t *t, const uint8_t key[CORE_KEY_LEN],
                             uint8_t role, uint8_t *out)
{
    uint64_t runs[CORE_XWIRE_MAX_RUNS];
    uint32_t k = 0;
    size_t body = core_xwire_table_size(t->n, core_xwire_table_runs(t)) - CORE_MAC_LEN;
    memset(out, 0, body);
    memcpy(out, tab_magic, 4);
    put16(out + 4, CORE_XWIRE_VERSION);
    put32(out + 8, t->n);
    put32(out + 12, t->leader);
    put64(out + 16, t->run);
    for (uint32_t i = 0; i < t->n; i++) {
        uint8_t *e = out + CORE_XWIRE_TABLE_HDR + (size_t)i * CORE_XWIRE_ENTRY;
        put32(e, t->e[i].uid);
        memcpy(e + 4, t->e[i].ip, 4);
        put16(e + 8, t->e[i].port);
        put16(e + 10, (uint16_t)run_index(t, &t->e[i], runs, &k));
    }
    put16(out + 6, (uint16_t)k);
    for (uint32_t i = 0; i < k; i++)
        put64(out + CORE_XWIRE_TABLE_HDR + (size_t)t->n * CORE_XWIRE_ENTRY + 8 * i, runs[i]);
    table_mac(out, body, key, role, out + body);
}

int core_xwire_table_count(const uint8_t *hdr, size_t len, uint32_t *n, uint32_t *k,
                           const char **why)
{
    if (len < CORE_XWIRE_TABLE_HDR)
        return bad(why, "a group table cut short");
    if (memcmp(hdr, tab_magic, 4) || get16(hdr + 4) != CORE_XWIRE_VERSION ||
        !zero(hdr + 24, 8))
        return bad(why, "a malformed group table header");
    *n = get32(hdr + 8);
    *k = get16(hdr + 6);
    if (*n < 1 || *n > CORE_XWIRE_MAX)
        return bad(why, "a group table of no or too many processes");
    if (*k > CORE_XWIRE_MAX_RUNS || *k >= *n)
        return bad(why, "a group table of too many runs");
    return 0;
}

int core_xwire_table_decode(const uint8_t *in, size_t len, const uint8_t *key, uint8_t role,
                            core_xwire_table_t *t, const char **why)
{
    uint32_t n, k;
    int rc = core_xwire_table_count(in, len, &n, &k, why);
    if (rc)
        return rc;
    if (len != core_xwire_table_size(n, k))
        return bad(why, "a group table of the wrong size");
    size_t body = len - CORE_MAC_LEN;
    if (key) {
        uint8_t want[CORE_MAC_LEN];
        table_mac(in, body, key, role, want);
        if (!core_mem_eq(want, in + body, CORE_MAC_LEN))
            return bad(why, "a group table whose MAC is wrong (altered on the way)");
    }
    uint32_t leader = get32(in + 12);
    uint64_t run = get64(in + 16), runs[CORE_XWIRE_MAX_RUNS + 1] = { run };
    if (leader >= n || run == 0)
        return bad(why, "a group table with its leader out of range or run id 0");
    const uint8_t *list = in + CORE_XWIRE_TABLE_HDR + (size_t)n * CORE_XWIRE_ENTRY;
    for (uint32_t i = 0; i < k; i++) {
        runs[i + 1] = get64(list + 8 * i);
        for (uint32_t j = 0; j <= i; j++)
            if (runs[i + 1] == 0 || runs[i + 1] == runs[j])
                return bad(why, "a group table listing run id 0, or a run twice");
    }
    uint32_t used = 0; /* other runs named so far: each must be the next in the list */
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = in + CORE_XWIRE_TABLE_HDR + (size_t)i * CORE_XWIRE_ENTRY;
        uint32_t uid = get32(e), ri = get16(e + 10);
        uint16_t port = get16(e + 8);
        if (uid >= UID_LIMIT || port == 0 || ri > k || (i == leader && ri))
            return bad(why, "a group table entry out of range");
        if (ri > used + 1)
            return bad(why, "a group table whose runs are not listed in order of use");
        if (ri == used + 1)
            used++;
        for (uint32_t j = 0; j < i; j++)
            if (t->e[j].uid == uid && t->e[j].run == runs[ri])
                return bad(why, "a group table naming one process twice");
        t->e[i].uid = uid;
        memcpy(t->e[i].ip, e + 4, 4);
        t->e[i].port = port;
        t->e[i].run = runs[ri];
    }
    if (used != k)
        return bad(why, "a group table listing a run no entry names");
    t->n = n;
    t->leader = leader;
    t->run = run;
    return 0;
}

void core_xwire_pair_key(const uint8_t bridge[CORE_KEY_LEN], uint64_t mine, uint64_t theirs,
                         uint8_t out[CORE_KEY_LEN])
{
    static const char label[] = "rdmpi xrun pair";
    uint8_t m[sizeof(label) + 16];
    memcpy(m, label, sizeof(label));
    put64(m + sizeof(label), mine < theirs ? mine : theirs);
    put64(m + sizeof(label) + 8, mine < theirs ? theirs : mine);
    uint8_t mac[CORE_MAC_LEN];
    core_mac(bridge, m, sizeof(m), mac);
    memcpy(out, mac, CORE_KEY_LEN);
}
