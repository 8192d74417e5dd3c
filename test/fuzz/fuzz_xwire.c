/*
 * Fuzz target: the messages between the roots of two runs (src/core/xwire.c), which come
 * from whoever connects to an open port's address, or answers there.
 *
 * Input: a flags byte (bit 0: a group table, else a handshake message), then the bytes.
 * Properties: a handshake message that decodes has a known type, a port number below
 * 2^30 and encodes back to the same bytes; a table that decodes (MAC not checked) has
 * 1..CORE_XWIRE_MAX entries, its leader among them, distinct uids below 2^30 and ports
 * 1..65535, and encodes back to the same bytes but for the MAC; with a key, a table whose
 * MAC was made with another key or role is refused.
 */
#include <string.h>
#include "fuzz.h"
#include "core/errors.h"
#include "core/xwire.h"

static const uint8_t key[CORE_KEY_LEN] = { 1, 2, 3 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *in = data + 1;
    size_t len = size - 1;
    const char *why = NULL;
    if (!(data[0] & 1)) {
        core_xwire_hs_t m;
        uint8_t again[CORE_XWIRE_HS];
        if (core_xwire_hs_decode(in, len, &m, &why) == 0) {
            FUZZ_CHECK(m.type >= CORE_XWIRE_HELLO && m.type <= CORE_XWIRE_DONE);
            FUZZ_CHECK(m.seq < (1u << 30));
            core_xwire_hs_encode(&m, again);
            FUZZ_CHECK(!memcmp(again, in, CORE_XWIRE_HS));
        } else {
            FUZZ_CHECK(why != NULL);
        }
        return 0;
    }
    uint32_t n = 0, k = 0;
    if (core_xwire_table_count(in, len, &n, &k, &why))
        return 0;
    FUZZ_CHECK(n >= 1 && n <= CORE_XWIRE_MAX && k <= CORE_XWIRE_MAX_RUNS && k < n);
    core_xwire_entry_t *e = calloc(n, sizeof(*e));
    FUZZ_CHECK(e);
    core_xwire_table_t t = { 0, 0, 0, e };
    if (core_xwire_table_decode(in, len, NULL, 'A', &t, &why) == 0) {
        FUZZ_CHECK(t.n == n && t.leader < n && t.run != 0 && e[t.leader].run == t.run);
        FUZZ_CHECK(core_xwire_table_runs(&t) == k && len == core_xwire_table_size(n, k));
        for (uint32_t i = 0; i < n; i++) {
            FUZZ_CHECK(e[i].uid < (1u << 30) && e[i].port >= 1 && e[i].run != 0);
            for (uint32_t j = 0; j < i; j++)
                FUZZ_CHECK(e[j].uid != e[i].uid || e[j].run != e[i].run);
        }
        uint8_t *again = malloc(len);
        FUZZ_CHECK(again);
        core_xwire_table_encode(&t, key, 'A', again);
        FUZZ_CHECK(!memcmp(again, in, len - CORE_MAC_LEN));
        /* the MAC just made passes; the same bytes under the other role do not */
        FUZZ_CHECK(core_xwire_table_decode(again, len, key, 'A', &t, &why) == 0);
        FUZZ_CHECK(core_xwire_table_decode(again, len, key, 'C', &t, &why) == CORE_EPROTO);
        free(again);
    }
    free(e);
    return 0;
}

#ifdef FUZZ_SEEDS
void fuzz_make_seeds(void)
{
    core_xwire_hs_t m = { CORE_XWIRE_HELLO, 3, 0, 0x0123456789abcdefULL, { 9, 9 }, { 0 } };
    uint8_t buf[1 + CORE_XWIRE_HS];
    char name[32];
    for (unsigned type = CORE_XWIRE_HELLO; type <= CORE_XWIRE_DONE; type++) {
        m.type = type;
        m.reason = type == CORE_XWIRE_REFUSE ? CORE_XWIRE_WRONG_KEY : 0;
        memset(m.mac, type == CORE_XWIRE_PROOF || type == CORE_XWIRE_ACCEPT ? type : 0,
               sizeof(m.mac));
        buf[0] = 0;
        core_xwire_hs_encode(&m, buf + 1);
        snprintf(name, sizeof(name), "hs%u", type);
        fuzz_seed(name, buf, sizeof(buf));
    }
    m.type = CORE_XWIRE_REFUSE; /* a root's last word when its group gave up */
    m.reason = CORE_XWIRE_GAVE_UP;
    memset(m.mac, 0, sizeof(m.mac));
    core_xwire_hs_encode(&m, buf + 1);
    fuzz_seed("hs7", buf, sizeof(buf));
    core_xwire_entry_t e[3] = { { 0, { 127, 0, 0, 1 }, 4000, 0 },
                                { 1, { 127, 0, 0, 1 }, 4001, 0 },
                                { 7, { 10, 1, 2, 3 }, 65535, 0 } };
    core_xwire_table_t t = { 3, 1, 0xfedcba9876543210ULL, e };
    uint8_t tab[1 + 32 + 3 * 12 + 32];
    tab[0] = 1;
    core_xwire_table_encode(&t, key, 'A', tab + 1);
    fuzz_seed("table3", tab, sizeof(tab));
    t.n = 1;
    t.leader = 0;
    core_xwire_table_encode(&t, key, 'C', tab + 1);
    fuzz_seed("table1", tab, 1 + 32 + 12 + 32);
    /* a group merged from earlier links: its second and third process of other runs */
    e[1].run = 0x1111;
    e[2].run = 0x2222;
    t.n = 3;
    uint8_t mixed[1 + 32 + 3 * 12 + 2 * 8 + 32];
    mixed[0] = 1;
    core_xwire_table_encode(&t, key, 'A', mixed + 1);
    fuzz_seed("table3r", mixed, sizeof(mixed));
}
#endif
