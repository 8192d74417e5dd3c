/*
 * Unit test of the tcp connection handshake's messages
 * (transports/tcp/tcp_auth.c), with no sockets: two sides hand each other
 * byte arrays. A handshake between holders of the key succeeds both ways
 * (ACCEPT and REJECT); everything else must be refused with a reason:
 * proofs under another key, random MACs, a proof reflected back to its
 * author (either side's), a proof replayed on a later connection, a proof
 * moved to another pair of ranks, claimed ranks outside the job or equal to
 * the acceptor's, messages for another rank, cut short or too long, with a
 * wrong magic, version, type, reserved byte or stray MAC, and random bytes.
 * Between runs (a HELLO marked as keyed by a bridge key): the acceptor finds
 * the one of its keys the PROOF was made with, refuses one made with none of
 * them, and takes a uid equal to its own (another run's numbering).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "transports/tcp/tcp_auth.h"

static int failures;

static void check(int cond, const char *name, const char *fmt, ...)
{
    if (cond)
        return;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: unit/tcp_auth/%s ", name);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

static void pass(const char *name, int before)
{
    if (failures == before)
        printf("PASS: unit/tcp_auth/%s\n", name);
}

#define SIZE 8
#define MSG TP_TCP_AUTH_MSG

static uint8_t job_key[CORE_KEY_LEN], key[CORE_KEY_LEN], other_key[CORE_KEY_LEN];

/* A connector (rank c) and an acceptor (rank a) up to the point where the
 * acceptor holds the connector's PROOF in proof[]. */
typedef struct pair {
    tp_tcp_auth_t con, acc;
    uint8_t hello[MSG], challenge[MSG], proof[MSG];
} pair_t;

static int start(pair_t *p, const uint8_t *ckey, int c, int a)
{
    tp_tcp_auth_connect(&p->con, ckey, c, SIZE, a, p->hello);
    tp_tcp_auth_accept(&p->acc, key, a, SIZE);
    if (tp_tcp_auth_recv(&p->acc, p->hello, MSG, p->challenge) != TP_TCP_AUTH_SEND)
        return -1;
    if (tp_tcp_auth_recv(&p->con, p->challenge, MSG, p->proof) != TP_TCP_AUTH_SEND)
        return -2;
    return 0;
}

/* The acceptor's answer to msg: a step, or CORE_EPEER. */
static int acc_recv(pair_t *p, const uint8_t *msg, size_t len)
{
    uint8_t out[MSG];
    return tp_tcp_auth_recv(&p->acc, msg, len, out);
}

static void test_good(void)
{
    int before = failures;
    for (int accept = 0; accept <= 1; accept++) {
        pair_t p;
        uint8_t verdict[MSG], out[MSG];
        check(start(&p, key, 3, 5) == 0, "good", "the first two messages were refused");
        int rc = acc_recv(&p, p.proof, MSG);
        check(rc == TP_TCP_AUTH_DECIDE, "good", "a right proof gave %d (%s)", rc,
              p.acc.why ? p.acc.why : "");
        check(p.acc.peer == 3, "good", "the acceptor thinks the peer is %d", p.acc.peer);
        tp_tcp_auth_verdict(&p.acc, accept, verdict);
        rc = tp_tcp_auth_recv(&p.con, verdict, MSG, out);
        check(rc == (accept ? TP_TCP_AUTH_UP : TP_TCP_AUTH_REJECTED), "good",
              "the verdict (%s) gave %d (%s)", accept ? "accept" : "reject", rc,
              p.con.why ? p.con.why : "");
        /* Nothing more is taken once it is over. */
        check(tp_tcp_auth_recv(&p.con, verdict, MSG, out) == CORE_EPEER, "good",
              "a second verdict was taken");
        check(acc_recv(&p, p.proof, MSG) == CORE_EPEER, "good", "a second proof was taken");
    }
    /* The nonces are fresh: two HELLOs differ. */
    tp_tcp_auth_t a, b;
    uint8_t h1[MSG], h2[MSG];
    tp_tcp_auth_connect(&a, key, 1, SIZE, 2, h1);
    tp_tcp_auth_connect(&b, key, 1, SIZE, 2, h2);
    check(memcmp(h1, h2, MSG) != 0, "good", "two HELLOs are the same (no fresh nonce)");
    pass("good", before);
}

static void test_forged(void)
{
    int before = failures;
    pair_t p;
    /* A connector with another job's key. */
    start(&p, other_key, 3, 5);
    check(acc_recv(&p, p.proof, MSG) == CORE_EPEER, "forged", "a proof under another key passed");
    check(p.acc.why && strstr(p.acc.why, "proof"), "forged", "reason: %s", p.acc.why);
    /* Random MACs. */
    for (int i = 0; i < 200; i++) {
        start(&p, key, 3, 5);
        for (int k = 32; k < MSG; k++)
            p.proof[k] = (uint8_t)rand();
        check(acc_recv(&p, p.proof, MSG) == CORE_EPEER, "forged", "a random MAC passed");
    }
    /* One bit off anywhere in the MAC. */
    for (int bit = 0; bit < 256; bit += 7) {
        start(&p, key, 3, 5);
        p.proof[32 + bit / 8] ^= (uint8_t)(1u << (bit % 8));
        check(acc_recv(&p, p.proof, MSG) == CORE_EPEER, "forged", "MAC bit %d flipped passed", bit);
    }
    /* The acceptor proves itself only after the connector did: a challenge carries no MAC. */
    start(&p, key, 3, 5);
    int zero = 1;
    for (int k = 32; k < MSG; k++)
        zero &= p.challenge[k] == 0;
    check(zero, "forged", "the challenge carries keyed bytes");
    /* An acceptor that answers with a verdict under another key. */
    start(&p, key, 3, 5);
    acc_recv(&p, p.proof, MSG);
    tp_tcp_auth_t fake = p.acc;
    fake.key = other_key;
    uint8_t verdict[MSG], out[MSG];
    tp_tcp_auth_verdict(&fake, 1, verdict);
    check(tp_tcp_auth_recv(&p.con, verdict, MSG, out) == CORE_EPEER, "forged",
          "an ACCEPT under another key passed");
    pass("forged", before);
}

static void test_reflected(void)
{
    int before = failures;
    pair_t p;
    uint8_t out[MSG];
    /* The acceptor's own verdict sent back to it as a proof. */
    start(&p, key, 3, 5);
    tp_tcp_auth_t copy = p.acc;
    copy.expect = 0;
    uint8_t verdict[MSG];
    tp_tcp_auth_verdict(&copy, 1, verdict);
    /* Make it look like a PROOF from rank 3 to rank 5. */
    uint8_t refl[MSG];
    memcpy(refl, p.proof, 32);
    memcpy(refl + 32, verdict + 32, 32);
    check(acc_recv(&p, refl, MSG) == CORE_EPEER, "reflected",
          "the acceptor's own MAC passed as a proof");
    /* The connector's own proof sent back to it as the verdict. */
    start(&p, key, 3, 5);
    memcpy(refl, p.proof, MSG);
    refl[6] = TP_TCP_AUTH_ACCEPT;
    refl[8] = 5, refl[12] = 3; /* from the acceptor, to the connector */
    check(tp_tcp_auth_recv(&p.con, refl, MSG, out) == CORE_EPEER, "reflected",
          "the connector's own MAC passed as the verdict");
    /* Two sessions against one acceptor: the second one's challenge nonce is
     * the first's, as an attacker would arrange by echoing it; the acceptor
     * still never signs as a connector. */
    pair_t q;
    start(&p, key, 3, 5);
    tp_tcp_auth_t att;
    uint8_t hello[MSG], chal[MSG];
    tp_tcp_auth_connect(&att, other_key, 3, SIZE, 5, hello);
    memcpy(hello + 16, p.challenge + 16, 16); /* nonce_c := nonce_a of session 1 */
    tp_tcp_auth_accept(&q.acc, key, 5, SIZE);
    check(tp_tcp_auth_recv(&q.acc, hello, MSG, chal) == TP_TCP_AUTH_SEND, "reflected",
          "the echoing HELLO was refused");
    check(acc_recv(&p, chal, MSG) == CORE_EPEER, "reflected",
          "a challenge passed as a proof");
    pass("reflected", before);
}

static void test_replay(void)
{
    int before = failures;
    pair_t p, q;
    start(&p, key, 3, 5);
    check(acc_recv(&p, p.proof, MSG) == TP_TCP_AUTH_DECIDE, "replay", "the original failed");
    /* A later connection with the same HELLO: new challenge, old proof. */
    tp_tcp_auth_accept(&q.acc, key, 5, SIZE);
    uint8_t chal[MSG];
    check(tp_tcp_auth_recv(&q.acc, p.hello, MSG, chal) == TP_TCP_AUTH_SEND, "replay",
          "a replayed HELLO was refused (it may be taken; its proof may not)");
    check(memcmp(chal + 16, p.challenge + 16, 16) != 0, "replay", "the challenge repeats");
    check(acc_recv(&q, p.proof, MSG) == CORE_EPEER, "replay", "a replayed proof passed");
    /* An old verdict for a new connection. */
    pair_t r;
    start(&r, key, 3, 5);
    acc_recv(&r, r.proof, MSG);
    uint8_t old_verdict[MSG], out[MSG];
    tp_tcp_auth_verdict(&r.acc, 1, old_verdict);
    start(&p, key, 3, 5);
    check(tp_tcp_auth_recv(&p.con, old_verdict, MSG, out) == CORE_EPEER, "replay",
          "a replayed ACCEPT passed");
    pass("replay", before);
}

static void test_ranks(void)
{
    int before = failures;
    pair_t p;
    uint8_t out[MSG], hello[MSG];
    tp_tcp_auth_t a, c;
    int bad_from[] = {5, -1, SIZE, SIZE + 100, 0x7fffffff};
    for (size_t i = 0; i < sizeof(bad_from) / sizeof(bad_from[0]); i++) {
        tp_tcp_auth_connect(&c, key, 0, SIZE, 5, hello);
        hello[8] = (uint8_t)bad_from[i];
        hello[9] = (uint8_t)(bad_from[i] >> 8);
        hello[10] = (uint8_t)(bad_from[i] >> 16);
        hello[11] = (uint8_t)(bad_from[i] >> 24);
        tp_tcp_auth_accept(&a, key, 5, SIZE);
        check(tp_tcp_auth_recv(&a, hello, MSG, out) == CORE_EPEER, "ranks",
              "a HELLO claiming rank %d to rank 5 of %d passed", bad_from[i], SIZE);
    }
    /* A HELLO for another rank. */
    tp_tcp_auth_connect(&c, key, 3, SIZE, 4, hello);
    tp_tcp_auth_accept(&a, key, 5, SIZE);
    check(tp_tcp_auth_recv(&a, hello, MSG, out) == CORE_EPEER, "ranks",
          "a HELLO meant for rank 4 passed at rank 5");
    /* A proof naming another connector than the HELLO did. */
    start(&p, key, 3, 5);
    p.proof[8] = 2;
    check(acc_recv(&p, p.proof, MSG) == CORE_EPEER, "ranks", "a proof from another rank passed");
    /* A proof moved to another pair: the connector proves as rank 2, the acceptor
     * was told rank 3 (HELLO and PROOF both rewritten). */
    pair_t q;
    uint8_t chal[MSG];
    tp_tcp_auth_connect(&q.con, key, 2, SIZE, 5, q.hello);
    q.hello[8] = 3;
    tp_tcp_auth_accept(&q.acc, key, 5, SIZE);
    tp_tcp_auth_recv(&q.acc, q.hello, MSG, chal);
    chal[12] = 2; /* the connector expects its challenge addressed to rank 2 */
    check(tp_tcp_auth_recv(&q.con, chal, MSG, q.proof) == TP_TCP_AUTH_SEND, "ranks",
          "the rewritten challenge was refused");
    q.proof[8] = 3;
    check(acc_recv(&q, q.proof, MSG) == CORE_EPEER, "ranks",
          "a proof made for rank 2 passed for rank 3");
    /* A challenge from another acceptor than the one we called, or for another rank. */
    start(&p, key, 3, 5);
    tp_tcp_auth_connect(&c, key, 3, SIZE, 5, hello);
    uint8_t bad[MSG];
    memcpy(bad, p.challenge, MSG);
    bad[8] = 6;
    check(tp_tcp_auth_recv(&c, bad, MSG, out) == CORE_EPEER, "ranks",
          "a challenge from rank 6 passed on a connection to rank 5");
    tp_tcp_auth_connect(&c, key, 3, SIZE, 5, hello);
    memcpy(bad, p.challenge, MSG);
    bad[12] = 4;
    check(tp_tcp_auth_recv(&c, bad, MSG, out) == CORE_EPEER, "ranks",
          "a challenge for rank 4 passed at rank 3");
    pass("ranks", before);
}

static void test_malformed(void)
{
    int before = failures;
    pair_t p;
    uint8_t out[MSG], hello[MSG], m[MSG + 8];
    tp_tcp_auth_t a, c;
    /* Cut short, empty or too long, at every step. */
    size_t lens[] = {0, 1, 8, 31, 63, 65, 128};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        tp_tcp_auth_connect(&c, key, 3, SIZE, 5, hello);
        memset(m, 0, sizeof(m));
        memcpy(m, hello, MSG);
        tp_tcp_auth_accept(&a, key, 5, SIZE);
        check(tp_tcp_auth_recv(&a, m, lens[i], out) == CORE_EPEER, "malformed",
              "a HELLO of %zu bytes passed", lens[i]);
        start(&p, key, 3, 5);
        memcpy(m, p.proof, MSG);
        check(acc_recv(&p, m, lens[i]) == CORE_EPEER, "malformed",
              "a PROOF of %zu bytes passed", lens[i]);
    }
    /* One field wrong at a time in a HELLO. */
    struct {
        int off;
        uint8_t xor;
        const char *what;
    } edits[] = {{0, 0x20, "magic"},   {3, 1, "magic"},          {4, 1, "version"},
                 {5, 1, "version"},    {6, 2, "type"},           {7, 2, "reserved byte"},
                 {40, 1, "MAC area"},  {63, 0x80, "MAC area"}};
    for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        tp_tcp_auth_connect(&c, key, 3, SIZE, 5, hello);
        hello[edits[i].off] ^= edits[i].xor;
        tp_tcp_auth_accept(&a, key, 5, SIZE);
        check(tp_tcp_auth_recv(&a, hello, MSG, out) == CORE_EPEER, "malformed",
              "a HELLO with a wrong %s (byte %d) passed", edits[i].what, edits[i].off);
        check(a.why != NULL, "malformed", "no reason given");
    }
    /* A PROOF with a nonce where zeros belong. */
    start(&p, key, 3, 5);
    p.proof[20] ^= 1;
    check(acc_recv(&p, p.proof, MSG) == CORE_EPEER, "malformed", "a PROOF with a nonce passed");
    /* Out of order: a PROOF first, a HELLO where the PROOF is due, a CHALLENGE to an acceptor. */
    start(&p, key, 3, 5);
    tp_tcp_auth_accept(&a, key, 5, SIZE);
    check(tp_tcp_auth_recv(&a, p.proof, MSG, out) == CORE_EPEER, "malformed",
          "a PROOF before the HELLO passed");
    check(acc_recv(&p, p.hello, MSG) == CORE_EPEER, "malformed",
          "a second HELLO passed where the PROOF was due");
    tp_tcp_auth_accept(&a, key, 5, SIZE);
    check(tp_tcp_auth_recv(&a, p.challenge, MSG, out) == CORE_EPEER, "malformed",
          "a CHALLENGE passed as a HELLO");
    /* A reader drops a peer at its first wrong byte. */
    check(tp_tcp_auth_plausible("", 0) && tp_tcp_auth_plausible("rd", 2) &&
              tp_tcp_auth_plausible(p.hello, MSG), "malformed", "a right prefix was refused");
    check(!tp_tcp_auth_plausible("x", 1) && !tp_tcp_auth_plausible("rdTB", 4) &&
              !tp_tcp_auth_plausible("\0\0\0\0\xff\xff\x10", 7), "malformed",
          "a wrong prefix was taken");
    /* Random bytes behind a right magic and version, at both sides' first step. */
    int passed = 0;
    for (int i = 0; i < 20000; i++) {
        for (int k = 0; k < MSG; k++)
            m[k] = (uint8_t)rand();
        memcpy(m, "rdTA\x01\x00", 6);
        if (i & 1) {
            m[6] = TP_TCP_AUTH_PROOF;
            start(&p, key, 3, 5);
            passed += acc_recv(&p, m, MSG) != CORE_EPEER;
        } else {
            m[6] = TP_TCP_AUTH_ACCEPT;
            start(&p, key, 3, 5);
            passed += tp_tcp_auth_recv(&p.con, m, MSG, out) != CORE_EPEER;
        }
    }
    check(passed == 0, "malformed", "%d random messages passed", passed);
    pass("malformed", before);
}

static void test_bridge(void)
{
    int before = failures;
    uint8_t bkey[CORE_KEY_LEN], hello[MSG], challenge[MSG], proof[MSG], verdict[MSG], out[MSG];
    core_random(bkey, sizeof(bkey));
    for (int right = 0; right <= 1; right++) {
        tp_tcp_auth_t c, a;
        /* the same uid on both sides: two runs number alike */
        tp_tcp_auth_connect(&c, bkey, 5, SIZE, 5, hello);
        tp_tcp_auth_mark_bridge(&c, hello);
        tp_tcp_auth_accept(&a, key, 5, SIZE);
        int rc = tp_tcp_auth_recv(&a, hello, MSG, challenge);
        check(rc == TP_TCP_AUTH_SEND && a.bridge, "bridge", "a bridge HELLO gave %d (%s)", rc,
              a.why ? a.why : "");
        check(tp_tcp_auth_recv(&c, challenge, MSG, proof) == TP_TCP_AUTH_SEND, "bridge",
              "the challenge was refused");
        check(tp_tcp_auth_recv(&a, proof, MSG, out) == TP_TCP_AUTH_WHICH, "bridge",
              "a bridge PROOF did not ask which key");
        check(!tp_tcp_auth_prove(&a, key, proof), "bridge", "the job key proved a bridge PROOF");
        check(!tp_tcp_auth_prove(&a, other_key, proof), "bridge", "another key proved it");
        if (!right)
            continue;
        check(tp_tcp_auth_prove(&a, bkey, proof), "bridge", "the bridge key did not prove it");
        check(!tp_tcp_auth_prove(&a, bkey, proof), "bridge", "a proof was taken twice");
        tp_tcp_auth_verdict(&a, 1, verdict);
        check(tp_tcp_auth_recv(&c, verdict, MSG, out) == TP_TCP_AUTH_UP, "bridge",
              "the connector did not take the acceptor's answer (%s)", c.why ? c.why : "");
    }
    /* unmarked, the same uid is still a claim to be the acceptor */
    tp_tcp_auth_t c, a;
    tp_tcp_auth_connect(&c, key, 5, SIZE, 5, hello);
    tp_tcp_auth_accept(&a, key, 5, SIZE);
    check(tp_tcp_auth_recv(&a, hello, MSG, challenge) == CORE_EPEER, "bridge",
          "an unmarked HELLO from the acceptor's own rank passed");
    pass("bridge", before);
}

int main(void)
{
    if (core_crypto_init()) {
        printf("FAIL: unit/tcp_auth cannot initialize libsodium\n");
        return 1;
    }
    srand(7);
    core_random(job_key, sizeof(job_key));
    tp_tcp_auth_key(job_key, key);
    uint8_t other_job[CORE_KEY_LEN];
    core_random(other_job, sizeof(other_job));
    tp_tcp_auth_key(other_job, other_key);
    check(memcmp(key, job_key, CORE_KEY_LEN) != 0, "key", "the handshake key is the job key");
    test_good();
    test_forged();
    test_reflected();
    test_replay();
    test_ranks();
    test_malformed();
    test_bridge();
    return failures ? 1 : 0;
}
