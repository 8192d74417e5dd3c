/*
 * The verbs transport's decoders (transports/verbs/verbs_wire.c) against
 * malformed input: UD packets (short, from outside the job, unknown kinds and
 * flags, oversized or inconsistent lengths), reassembly (a packet of no
 * message, a new message inside another, disagreeing headers, bytes past the
 * end), RC headers and RDMA-write slots (lengths beyond the slot, headers
 * beyond the message, padding), and the reliability window's answer to
 * sequence numbers and acks a peer could never have sent, and the mapping of a sender's
 * uid to a process index (our job's ranks, other jobs' processes once added, never a
 * process of another run or one whose job is not known yet). Random bytes must
 * never be accepted in a shape that would read outside the buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/procs.h"
#include "transports/verbs/verbs_rel.h"
#include "transports/verbs/verbs_wire.h"

static int failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            printf("FAIL: unit/verbs_wire: ");                             \
            printf(__VA_ARGS__);                                           \
            printf(" (%s:%d)\n", __FILE__, __LINE__);                      \
            failures++;                                                    \
            return;                                                        \
        }                                                                  \
    } while (0)

#define NRANKS 4

static uint32_t make_pkt(uint8_t *buf, uint32_t src, uint8_t type, uint8_t id, uint16_t hdr_len,
                         uint32_t len, uint32_t dn)
{
    vb_ud_hdr_t h = { src, 7, 3, type, id, hdr_len, len };
    memcpy(buf, &h, sizeof(h));
    memset(buf + sizeof(h), 0x33, dn);
    return (uint32_t)sizeof(h) + dn;
}

static void test_ud_decode(void)
{
    uint8_t buf[4096];
    vb_ud_pkt_t k;
    const char *why = NULL;
    uint32_t n = make_pkt(buf, 1, VB_UD_DATA | VB_UD_FIRST | VB_UD_LAST, 0, 16, 100, 116);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == 0 && k.dn == 116 && k.h.src == 1,
          "a good one-packet message refused: %s", why);
    CHECK(vb_ud_decode(buf, sizeof(vb_ud_hdr_t) - 1, NRANKS, &k, &why) == CORE_EPROTO,
          "a short packet accepted");
    n = make_pkt(buf, NRANKS, VB_UD_DATA | VB_UD_FIRST | VB_UD_LAST, 0, 0, 0, 0);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO, "rank outside the job accepted");
    n = make_pkt(buf, 0xffffffffu, VB_UD_ACK, 0, 0, 0, 0);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO, "rank 2^32-1 accepted");
    n = make_pkt(buf, 1, 3, 0, 0, 0, 0);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO, "unknown kind accepted");
    n = make_pkt(buf, 1, VB_UD_ACK | VB_UD_LAST, 0, 0, 0, 0);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO, "ack with LAST accepted");
    n = make_pkt(buf, 1, VB_UD_ACK, 0, 0, 0, 8);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO, "ack with a body accepted");
    n = make_pkt(buf, 1, VB_UD_DATA | VB_UD_FIRST | VB_UD_LAST, 0, 16, 100, 115);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO,
          "one-packet message shorter than it says accepted");
    n = make_pkt(buf, 1, VB_UD_DATA | VB_UD_FIRST | VB_UD_LAST, 0, 16, 100, 117);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO,
          "one-packet message longer than it says accepted");
    n = make_pkt(buf, 1, VB_UD_DATA | VB_UD_FIRST | VB_UD_LAST, 0, VB_MAX_AM_HDR + 1, 0,
                 VB_MAX_AM_HDR + 1);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO, "oversized AM header accepted");
    n = make_pkt(buf, 1, VB_UD_DATA | VB_UD_FIRST, 0, 16, 0xffffffffu, 1000);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO, "4 GiB message accepted");
    n = make_pkt(buf, 1, VB_UD_DATA | VB_UD_FIRST, 0, 64, 5000, 32);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO,
          "first packet without the whole AM header accepted");
    n = make_pkt(buf, 1, VB_UD_DATA | VB_UD_FIRST, 0, 16, 100, 116);
    CHECK(vb_ud_decode(buf, n, NRANKS, &k, &why) == CORE_EPROTO,
          "first (not last) packet holding the whole message accepted");
    /* Random bytes: whatever is accepted is self-consistent. */
    unsigned seed = 12345;
    for (int i = 0; i < 200000; i++) {
        uint32_t len = (uint32_t)(rand_r(&seed) % 64);
        for (uint32_t j = 0; j < len; j++)
            buf[j] = (uint8_t)rand_r(&seed);
        if (len >= 8 && (rand_r(&seed) & 1))
            buf[0] = (uint8_t)(rand_r(&seed) % 5), buf[1] = buf[2] = buf[3] = 0;
        if (vb_ud_decode(buf, len, NRANKS, &k, &why) != 0)
            continue;
        CHECK(k.h.src < NRANKS && k.dn == len - sizeof(vb_ud_hdr_t) &&
                  k.data == buf + sizeof(vb_ud_hdr_t),
              "random packet %d decoded inconsistently", i);
        unsigned fl = k.h.type & (VB_UD_FIRST | VB_UD_LAST);
        if ((k.h.type & VB_UD_KIND) == VB_UD_DATA && fl == (VB_UD_FIRST | VB_UD_LAST))
            CHECK(k.dn == (uint32_t)k.h.hdr_len + k.h.len, "random packet %d: lengths", i);
    }
    printf("PASS: unit/verbs_wire/ud_decode\n");
}

static void test_reasm(void)
{
    uint8_t buf[4][256];
    vb_ud_pkt_t k[4];
    const char *why;
    vb_reasm_state_t r = { 0 };
    /* hdr 16 + payload 300 = 316 bytes in 3 packets of 120, 120, 76 */
    make_pkt(buf[0], 2, VB_UD_DATA | VB_UD_FIRST, 3, 16, 300, 120);
    make_pkt(buf[1], 2, VB_UD_DATA, 3, 16, 300, 120);
    make_pkt(buf[2], 2, VB_UD_DATA | VB_UD_LAST, 3, 16, 300, 76);
    for (int i = 0; i < 3; i++)
        CHECK(vb_ud_decode(buf[i], (uint32_t)sizeof(vb_ud_hdr_t) + (i < 2 ? 120 : 76), NRANKS,
                           &k[i], &why) == 0, "packet %d refused: %s", i, why);
    CHECK(vb_reasm_step(&r, &k[1], &why) == CORE_EPROTO, "a packet of no message accepted");
    CHECK(vb_reasm_step(&r, &k[2], &why) == CORE_EPROTO, "a last packet of no message accepted");
    CHECK(vb_reasm_step(&r, &k[0], &why) == 0 && r.active && r.got == 120, "first packet");
    CHECK(vb_reasm_step(&r, &k[0], &why) == CORE_EPROTO, "a first packet inside a message");
    CHECK(vb_reasm_step(&r, &k[2], &why) == CORE_EPROTO && r.got == 120,
          "a last packet that ends the message early accepted");
    vb_ud_pkt_t other = k[1];
    other.h.id = 4;
    CHECK(vb_reasm_step(&r, &other, &why) == CORE_EPROTO, "a packet of another handler id");
    other = k[1];
    other.h.len = 10000;
    CHECK(vb_reasm_step(&r, &other, &why) == CORE_EPROTO, "a packet claiming another length");
    CHECK(vb_reasm_step(&r, &k[1], &why) == 0 && r.got == 240, "middle packet");
    vb_ud_pkt_t longer = k[2];
    longer.dn = 77;
    CHECK(vb_reasm_step(&r, &longer, &why) == CORE_EPROTO, "bytes past the message's end");
    CHECK(vb_reasm_step(&r, &k[1], &why) == CORE_EPROTO,
          "a middle packet that reaches the end accepted");
    CHECK(vb_reasm_step(&r, &k[2], &why) == 0 && !r.active && r.got == 316, "last packet");
    CHECK(vb_reasm_step(&r, &k[2], &why) == CORE_EPROTO, "a last packet after the last");
    printf("PASS: unit/verbs_wire/reassembly\n");
}

static void test_rc_decode(void)
{
    uint8_t buf[256];
    vb_rc_hdr_t h = { 0, 16, 0, 1, 0, 0 }, out;
    const char *why;
    memcpy(buf, &h, sizeof(h));
    CHECK(vb_rc_decode(buf, sizeof(h) + 16, NRANKS, &out, &why) == 0, "good RC header refused");
    CHECK(vb_rc_decode(buf, sizeof(h) + 15, NRANKS, &out, &why) == CORE_EPROTO,
          "AM header past the message accepted");
    CHECK(vb_rc_decode(buf, sizeof(h) - 1, NRANKS, &out, &why) == CORE_EPROTO,
          "short RC message accepted");
    h.src = NRANKS;
    memcpy(buf, &h, sizeof(h));
    CHECK(vb_rc_decode(buf, sizeof(h) + 16, NRANKS, &out, &why) == CORE_EPROTO,
          "RC message from outside the job accepted");
    h.src = 0;
    h.hdr_len = VB_MAX_AM_HDR + 1;
    memcpy(buf, &h, sizeof(h));
    CHECK(vb_rc_decode(buf, sizeof(buf), NRANKS, &out, &why) == CORE_EPROTO,
          "oversized AM header accepted");
    printf("PASS: unit/verbs_wire/rc_decode\n");
}

static void test_fp_decode(void)
{
    enum { SIZE = 256 };
    uint8_t slot[SIZE];
    vb_fp_hdr_t h, out;
    const char *why;
    memset(slot, 0, sizeof(slot));
    CHECK(vb_fp_decode(slot, SIZE, &out, &why) == 0, "empty slot taken");
    memset(&h, 0, sizeof(h));
    h.len = 40;
    h.hdr_len = 16;
    h.mark = VB_FP_MARK;
    memcpy(slot, &h, sizeof(h));
    CHECK(vb_fp_decode(slot, SIZE, &out, &why) == 0, "slot without its trailing mark taken");
    slot[sizeof(h) + 40] = VB_FP_MARK;
    CHECK(vb_fp_decode(slot, SIZE, &out, &why) == 1 && out.len == 40 && out.hdr_len == 16,
          "landed slot not taken");
    h.len = SIZE - sizeof(h); /* one byte too long: no room for the trailing mark */
    memcpy(slot, &h, sizeof(h));
    CHECK(vb_fp_decode(slot, SIZE, &out, &why) == CORE_EPROTO, "message past the slot accepted");
    h.len = 0xffffffffu;
    memcpy(slot, &h, sizeof(h));
    CHECK(vb_fp_decode(slot, SIZE, &out, &why) == CORE_EPROTO, "4 GiB message accepted");
    h.len = 10;
    h.hdr_len = 11;
    memcpy(slot, &h, sizeof(h));
    CHECK(vb_fp_decode(slot, SIZE, &out, &why) == CORE_EPROTO,
          "AM header longer than the message accepted");
    h.hdr_len = 8;
    h.pad[1] = 1;
    memcpy(slot, &h, sizeof(h));
    CHECK(vb_fp_decode(slot, SIZE, &out, &why) == CORE_EPROTO, "non-zero padding accepted");
    printf("PASS: unit/verbs_wire/fp_decode\n");
}

/* Sequence numbers and acks a peer could not have sent: never delivered, never acknowledge
 * anything, never held past the window. */
static void test_rel_bad_seq(void)
{
    vb_rel_params_t p = { 64, 16, 0.001, 0.01, 0.001, 1.0, 30.0 };
    vb_rel_rx_t rx;
    vb_rel_tx_t tx;
    vb_rel_rx_init(&rx);
    vb_rel_tx_init(&tx, &p);
    CHECK(vb_rel_rx_accept(&rx, &p, 64, 0) == VB_REL_DUP, "psn a window ahead not dropped");
    CHECK(vb_rel_rx_accept(&rx, &p, 40000, 0) == VB_REL_DUP, "psn far ahead not dropped");
    CHECK(vb_rel_rx_accept(&rx, &p, 65535, 0) == VB_REL_DUP, "psn behind not dropped");
    CHECK(rx.expected == 0, "a bad psn moved the window");
    CHECK(vb_rel_rx_accept(&rx, &p, 0, 0) == VB_REL_DELIVER, "psn 0 not delivered");
    int ackreq, resend;
    for (int i = 0; i < 4; i++)
        vb_rel_tx_send(&tx, &p, 0, &ackreq);
    CHECK(vb_rel_tx_ack(&tx, &p, 100, 0, 0, &resend) == 0 && tx.una == 0,
          "an ack of packets never sent acknowledged something");
    CHECK(vb_rel_tx_ack(&tx, &p, 60000, 0, 0, &resend) == 0 && tx.una == 0,
          "an ack from far behind acknowledged something");
    CHECK(vb_rel_tx_ack(&tx, &p, 1, 0, 0, &resend) == 2 && tx.una == 2, "a good ack");
    printf("PASS: unit/verbs_wire/rel_bad_sequence_numbers\n");
}

/* Credits a peer returns can only make up for what we sent. */
static void test_rc_credits(void)
{
    int credits = 32, fp = 8;
    vb_credits_t c = { &credits, 32, &fp, 8 };
    CHECK(vb_credits_take(&c, 1, 0) == CORE_EPROTO, "a credit for nothing sent taken");
    CHECK(vb_credits_take(&c, 0, 1) == CORE_EPROTO, "a ring slot for nothing written taken");
    credits = 2; /* 30 sends out */
    fp = 5;      /* 3 slots written */
    CHECK(vb_credits_take(&c, 30, 3) == 0 && credits == 32 && fp == 8, "the exact count refused");
    credits = 0;
    CHECK(vb_credits_take(&c, 0xffff, 0) == CORE_EPROTO && credits == 0, "65535 credits taken");
    CHECK(vb_credits_take(&c, 10, 9) == CORE_EPROTO && credits == 0,
          "more ring slots than the ring has taken (or half of a refused return kept)");
    c.fp_max = fp = 0;
    CHECK(vb_credits_take(&c, 0, 1) == CORE_EPROTO, "a ring slot taken without a ring");
    printf("PASS: unit/verbs_wire/rc_credits\n");
}

/* Senders are named by uid (core/procs.h); only processes we can check are taken. */
static void test_uid_index(void)
{
    struct core_proc dyn[4];
    memset(dyn, 0, sizeof(dyn));
    dyn[0].uid = 100; dyn[0].rank = 0;                 /* another job's rank 0, added */
    dyn[1].uid = 101; dyn[1].rank = -1;                /* met through a handshake: no job yet */
    dyn[2].uid = 7;   dyn[2].rank = 7; dyn[2].run = 99; /* another run's process 7 */
    dyn[3].uid = 3;   dyn[3].rank = 1;                 /* below our job's uids */
    /* our job: uids 10..13, indices 0..3 */
    CHECK(vb_uid_index(10, 10, 4, dyn, 4) == 0, "our rank 0");
    CHECK(vb_uid_index(13, 10, 4, dyn, 4) == 3, "our rank 3");
    CHECK(vb_uid_index(14, 10, 4, NULL, 0) == -1, "uid past our job without a table");
    CHECK(vb_uid_index(9, 10, 4, NULL, 0) == -1, "uid before our job without a table");
    CHECK(vb_uid_index(100, 10, 4, dyn, 4) == 4, "another job's added process");
    CHECK(vb_uid_index(101, 10, 4, dyn, 4) == -1, "a process with no job yet accepted");
    CHECK(vb_uid_index(7, 10, 4, dyn, 4) == -1, "a process of another run accepted");
    CHECK(vb_uid_index(3, 10, 4, dyn, 4) == 7, "another job's process below our uids");
    CHECK(vb_uid_index(100, 10, 4, dyn, 0) == -1, "an entry past the table's count");
    CHECK(vb_uid_index(CORE_UID_MAX, 0, 4, dyn, 4) == -1, "uid out of range");
    CHECK(vb_uid_index(0xffffffffu, 0, 4, dyn, 4) == -1, "uid 2^32-1");
    CHECK(vb_uid_index(0, 0, 1, NULL, 0) == 0, "uid base 0 (launchers that number no jobs)");
    printf("PASS: unit/verbs_wire/uid_index\n");
}

int main(void)
{
    test_uid_index();
    test_rc_credits();
    test_ud_decode();
    test_reasm();
    test_rc_decode();
    test_fp_decode();
    test_rel_bad_seq();
    return failures ? 1 : 0;
}
