/*
 * Unit test of what the roots of two runs exchange (src/core/xwire.c) and of the name
 * directory shared by runs (src/core/namedir.c), with no sockets. The handshake: both
 * sides holding the port key agree on the bridge key; a connector with another key is
 * caught by the acceptor, a proof sent back to its author fails, and fresh nonces give
 * another bridge key. Tables: encoded and decoded back; one altered byte, the other role
 * or another key fail the MAC; malformed ones are refused with a reason. The directory:
 * publish, lookup, a second publish refused, unpublish only with the right port, and a
 * directory open to others refused.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/errors.h"
#include "core/namedir.h"
#include "core/xwire.h"

static int failures;

static void check(int cond, const char *name, const char *fmt, ...)
{
    if (cond)
        return;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: unit/xwire/%s ", name);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

static void pass(const char *name, int before)
{
    if (failures == before)
        printf("PASS: unit/xwire/%s\n", name);
}

static uint8_t port_key[CORE_KEY_LEN], other[CORE_KEY_LEN];

/* A connector (key ckey) and an acceptor (port_key) after the nonces are out. */
static void sessions(const uint8_t *ckey, core_xwire_session_t *c, core_xwire_session_t *a)
{
    core_xwire_session_key(c, ckey);
    core_xwire_session_key(a, port_key);
    c->seq = a->seq = 3;
    c->run_c = a->run_c = 0x1111;
    c->run_a = a->run_a = 0x2222;
    core_random(c->nonce_c, CORE_XWIRE_NONCE);
    core_random(c->nonce_a, CORE_XWIRE_NONCE);
    memcpy(a->nonce_c, c->nonce_c, CORE_XWIRE_NONCE);
    memcpy(a->nonce_a, c->nonce_a, CORE_XWIRE_NONCE);
}

static void test_handshake(void)
{
    int before = failures;
    core_xwire_session_t c, a;
    uint8_t mc[CORE_MAC_LEN], ma[CORE_MAC_LEN], bc[CORE_MAC_LEN], ba[CORE_MAC_LEN];
    sessions(port_key, &c, &a);
    core_xwire_mac(&c, 'C', mc);
    check(core_xwire_mac_ok(&a, 'C', mc), "handshake", "the acceptor refused a right proof");
    check(!core_xwire_mac_ok(&c, 'A', mc), "handshake", "a reflected proof passed");
    core_xwire_mac(&a, 'A', ma);
    check(core_xwire_mac_ok(&c, 'A', ma), "handshake", "the connector refused the answer");
    core_xwire_mac(&c, 'B', bc);
    core_xwire_mac(&a, 'B', ba);
    check(!memcmp(bc, ba, sizeof(bc)), "handshake", "the two sides' bridge keys differ");
    check(memcmp(bc, mc, sizeof(bc)) && memcmp(bc, ma, sizeof(bc)), "handshake",
          "the bridge key is a proof that crossed the wire");
    sessions(port_key, &c, &a);
    core_xwire_mac(&c, 'B', bc);
    check(memcmp(bc, ba, sizeof(bc)), "handshake", "fresh nonces gave the same bridge key");
    sessions(other, &c, &a);
    core_xwire_mac(&c, 'C', mc);
    check(!core_xwire_mac_ok(&a, 'C', mc), "handshake", "a proof with another key passed");
    /* messages: encoded, decoded back; a malformed one refused with a reason */
    core_xwire_hs_t m = { CORE_XWIRE_PROOF, 3, 0, 0x1111, { 0 }, { 0 } }, d;
    memcpy(m.mac, mc, sizeof(mc));
    uint8_t b[CORE_XWIRE_HS];
    const char *why = NULL;
    core_xwire_hs_encode(&m, b);
    check(core_xwire_hs_decode(b, sizeof(b), &d, &why) == 0 && d.type == m.type &&
          !memcmp(d.mac, m.mac, sizeof(m.mac)), "handshake", "a PROOF did not decode back");
    b[30] = 1; /* a nonce in a PROOF */
    check(core_xwire_hs_decode(b, sizeof(b), &d, &why) == CORE_EPROTO && why, "handshake",
          "a PROOF with a nonce passed");
    check(core_xwire_hs_decode(b, sizeof(b) - 1, &d, &why) == CORE_EPROTO, "handshake",
          "a message cut short passed");
    /* a root's last word when its group gave up; no reason past it */
    core_xwire_hs_t g = { CORE_XWIRE_REFUSE, 0, CORE_XWIRE_GAVE_UP, 0x1111, { 0 }, { 0 } };
    core_xwire_hs_encode(&g, b);
    check(core_xwire_hs_decode(b, sizeof(b), &d, &why) == 0 && d.reason == CORE_XWIRE_GAVE_UP,
          "handshake", "a REFUSE(GAVE_UP) did not decode back");
    b[12] = CORE_XWIRE_GAVE_UP + 1;
    check(core_xwire_hs_decode(b, sizeof(b), &d, &why) == CORE_EPROTO, "handshake",
          "a REFUSE with an unknown reason passed");
    pass("handshake", before);
}

/* Field by field: the entries' padding (after port) is not part of what decode fills in. */
static int entries_equal(const core_xwire_entry_t *a, const core_xwire_entry_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].uid != b[i].uid || memcmp(a[i].ip, b[i].ip, sizeof(a[i].ip)) ||
            a[i].port != b[i].port || a[i].run != b[i].run)
            return 0;
    return 1;
}

static void test_table(void)
{
    int before = failures;
    core_xwire_entry_t e[3] = { { 4, { 127, 0, 0, 1 }, 4000, 0x1234 },
                                { 5, { 127, 0, 0, 1 }, 4001, 0x1234 },
                                { 9, { 10, 0, 0, 2 }, 80, 0x1234 } }, got[3];
    core_xwire_table_t t = { 3, 2, 0x1234, e }, r = { 0, 0, 0, got };
    size_t n = core_xwire_table_size(3, 0);
    uint8_t *b = malloc(n);
    const char *why = NULL;
    check(core_xwire_table_runs(&t) == 0, "table", "one run counted as several");
    core_xwire_table_encode(&t, port_key, 'C', b);
    check(core_xwire_table_decode(b, n, port_key, 'C', &r, &why) == 0 && r.n == 3 &&
          r.leader == 2 && r.run == 0x1234 && entries_equal(got, e, 3), "table",
          "a table did not decode back (%s)", why ? why : "");
    check(core_xwire_table_decode(b, n, port_key, 'A', &r, &why) == CORE_EPROTO, "table",
          "a table passed under the other role");
    check(core_xwire_table_decode(b, n, other, 'C', &r, &why) == CORE_EPROTO, "table",
          "a table passed under another key");
    b[40] ^= 1;
    check(core_xwire_table_decode(b, n, port_key, 'C', &r, &why) == CORE_EPROTO, "table",
          "an altered table passed");
    e[2].uid = 4; /* twice the same process */
    core_xwire_table_encode(&t, port_key, 'C', b);
    check(core_xwire_table_decode(b, n, port_key, 'C', &r, &why) == CORE_EPROTO, "table",
          "a table naming a process twice passed");
    e[2].uid = 9;
    t.leader = 3;
    core_xwire_table_encode(&t, port_key, 'C', b);
    check(core_xwire_table_decode(b, n, port_key, 'C', &r, &why) == CORE_EPROTO, "table",
          "a table with its leader out of range passed");
    free(b);
    pass("table", before);
}

/* A group merged from earlier links: processes of three runs, the same uid in two. */
static void test_table_runs(void)
{
    int before = failures;
    core_xwire_entry_t e[5] = { { 4, { 127, 0, 0, 1 }, 4000, 0xa },
                                { 4, { 127, 0, 0, 1 }, 4001, 0xb },
                                { 7, { 127, 0, 0, 1 }, 4002, 0xc },
                                { 5, { 127, 0, 0, 1 }, 4003, 0 },
                                { 6, { 127, 0, 0, 1 }, 4004, 0xb } }, got[5];
    core_xwire_table_t t = { 5, 0, 0xa, e }, r = { 0, 0, 0, got };
    const char *why = NULL;
    check(core_xwire_table_runs(&t) == 2, "table_runs", "runs besides the leader's: %u",
          core_xwire_table_runs(&t));
    size_t n = core_xwire_table_size(5, 2);
    uint8_t *b = malloc(n + 8);
    core_xwire_table_encode(&t, port_key, 'A', b);
    check(core_xwire_table_decode(b, n, port_key, 'A', &r, &why) == 0 && r.n == 5 &&
          got[0].run == 0xa && got[1].run == 0xb && got[2].run == 0xc && got[3].run == 0xa &&
          got[4].run == 0xb && got[1].uid == 4, "table_runs",
          "a table of three runs did not decode back (%s)", why ? why : "");
    uint32_t cn = 0, ck = 0;
    check(core_xwire_table_count(b, n, &cn, &ck, &why) == 0 && cn == 5 && ck == 2,
          "table_runs", "the header's counts: %u %u", cn, ck);
    check(core_xwire_table_decode(b, n - 8, NULL, 'A', &r, &why) == CORE_EPROTO, "table_runs",
          "a table cut by one run id passed");
    /* run list out of order of first use (the MAC skipped: only the check is tested) */
    uint8_t *list = b + CORE_XWIRE_TABLE_HDR + 5 * CORE_XWIRE_ENTRY, tmp[8];
    memcpy(tmp, list, 8);
    memcpy(list, list + 8, 8);
    memcpy(list + 8, tmp, 8);
    uint8_t *idx1 = b + CORE_XWIRE_TABLE_HDR + 1 * CORE_XWIRE_ENTRY + 10;
    uint8_t *idx2 = b + CORE_XWIRE_TABLE_HDR + 2 * CORE_XWIRE_ENTRY + 10;
    idx1[0] = 2; /* entry 1 names the (now) second run first */
    idx2[0] = 1;
    check(core_xwire_table_decode(b, n, NULL, 'A', &r, &why) == CORE_EPROTO, "table_runs",
          "a table whose runs are not in order of use passed");
    core_xwire_table_encode(&t, port_key, 'A', b);
    list[0] ^= 0xa ^ 0xb; /* the first other run becomes the leader's */
    check(core_xwire_table_decode(b, n, NULL, 'A', &r, &why) == CORE_EPROTO, "table_runs",
          "a table listing the leader's run as another passed");
    core_xwire_table_encode(&t, port_key, 'A', b);
    b[CORE_XWIRE_TABLE_HDR + 0 * CORE_XWIRE_ENTRY + 10] = 1; /* the leader of another run */
    check(core_xwire_table_decode(b, n, NULL, 'A', &r, &why) == CORE_EPROTO, "table_runs",
          "a table whose leader is of another run passed");
    core_xwire_table_encode(&t, port_key, 'A', b);
    b[CORE_XWIRE_TABLE_HDR + 2 * CORE_XWIRE_ENTRY + 10] = 3; /* past k */
    check(core_xwire_table_decode(b, n, NULL, 'A', &r, &why) == CORE_EPROTO, "table_runs",
          "a run index past the list passed");
    e[4].uid = 4; /* (0xb, 4) twice */
    core_xwire_table_encode(&t, port_key, 'A', b);
    check(core_xwire_table_decode(b, n, port_key, 'A', &r, &why) == CORE_EPROTO, "table_runs",
          "a table naming one process of another run twice passed");
    e[4].uid = 6;
    e[4].run = 0xd; /* a run no longer used by entry 1's neighbours: k 3 */
    e[1].run = 0xd;
    check(core_xwire_table_runs(&t) == 2, "table_runs", "runs after the change");
    /* the pair keys: the same at both ends, different per pair of runs */
    uint8_t k1[CORE_KEY_LEN], k2[CORE_KEY_LEN], k3[CORE_KEY_LEN];
    core_xwire_pair_key(port_key, 0xa, 0xc, k1);
    core_xwire_pair_key(port_key, 0xc, 0xa, k2);
    core_xwire_pair_key(port_key, 0xb, 0xc, k3);
    check(!memcmp(k1, k2, sizeof(k1)) && memcmp(k1, k3, sizeof(k1)) &&
          memcmp(k1, port_key, sizeof(k1)), "table_runs", "pair keys");
    free(b);
    pass("table_runs", before);
}

static void test_namedir(void)
{
    int before = failures;
    char dir[] = "/tmp/rdmpi-namedir-test.XXXXXX", port[256];
    if (!mkdtemp(dir)) {
        printf("SKIP: unit/xwire/namedir: mkdtemp failed\n");
        return;
    }
    const char *svc = "a service/with odd chars", *p1 = "rdmpi-port3/x";
    check(core_namedir_publish(dir, svc, p1) == 0, "namedir", "publish failed");
    check(core_namedir_publish(dir, svc, "another") == CORE_ESERVICE, "namedir",
          "a second publish of one name passed");
    check(core_namedir_lookup(dir, svc, port, sizeof(port)) == 0 && !strcmp(port, p1),
          "namedir", "lookup did not find the port");
    check(core_namedir_lookup(dir, "other", port, sizeof(port)) == CORE_ENAME, "namedir",
          "lookup of a name never published passed");
    check(core_namedir_unpublish(dir, svc, "another") == CORE_ESERVICE, "namedir",
          "unpublish with another port passed");
    check(core_namedir_unpublish(dir, svc, p1) == 0, "namedir", "unpublish failed");
    check(core_namedir_lookup(dir, svc, port, sizeof(port)) == CORE_ENAME, "namedir",
          "a name was found after its unpublish");
    chmod(dir, 0755);
    check(core_namedir_publish(dir, svc, p1) == CORE_EACCESS, "namedir",
          "a directory others can read was used");
    rmdir(dir);
    pass("namedir", before);
}

int main(void)
{
    if (core_crypto_init()) {
        printf("FAIL: unit/xwire cannot initialize libsodium\n");
        return 1;
    }
    core_random(port_key, sizeof(port_key));
    core_random(other, sizeof(other));
    test_handshake();
    test_table();
    test_table_runs();
    test_namedir();
    return failures ? 1 : 0;
}
