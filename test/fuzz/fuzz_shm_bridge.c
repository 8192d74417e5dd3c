/*
 * Fuzz target: what a process of another job controls when two jobs of one run meet over a
 * shm bridge (docs/dynamic.md, design a): the bridge segment's header as the attacher checks
 * it before use (tp_shm_bseg_check, transports/shm/shm_bseg.c), and the tcp control frames
 * that announce, accept and refuse a bridge (tp_tcp_ctrl_decode, transports/tcp/tcp_frame.c).
 *
 * Input: one byte choosing the decoder. 0 (even): a header (sizeof(tp_shm_bridge_hdr_t)
 * bytes), then the object's size (u64) and the pair's uids (two u32). Properties: an accepted
 * header describes rings of a power-of-two size within the limits, whose two strides after
 * the header page end exactly at the object's end, for exactly that pair, first attached.
 * Odd: a control frame's header length (u8, up to 32), that many bytes and the two uids.
 * Properties: an accepted frame is a BYE of 8 bytes from that uid, or a bridge message of
 * 16 bytes naming both uids.
 */
#include <string.h>
#include "core/errors.h"
#include "fuzz.h"
#include "transports/shm/shm.h"
#include "transports/tcp/tcp_frame.h"

int core_log_level = -1;
void core_log_emit(int level, const char *fmt, ...)
{
    (void)level;
    (void)fmt;
}

static void header(fuzz_in_t *in)
{
    tp_shm_bridge_hdr_t h;
    uint8_t raw[sizeof(h)];
    for (size_t i = 0; i < sizeof(raw); i++)
        raw[i] = fuzz_u8(in);
    memcpy(&h, raw, sizeof(h));
    uint64_t size = (uint64_t)fuzz_u32(in) | (uint64_t)fuzz_u32(in) << 32;
    uint32_t lo = fuzz_u32(in), hi = fuzz_u32(in);
    char why[160];
    if (tp_shm_bseg_check(&h, lo, hi, size, why, sizeof(why)) != 0) {
        FUZZ_CHECK(memchr(why, '\0', sizeof(why)) != NULL);
        return;
    }
    uint64_t rs = h.ring_size;
    FUZZ_CHECK(rs >= TP_SHM_RING_FLOOR && rs <= TP_SHM_RING_CEIL && (rs & (rs - 1)) == 0);
    FUZZ_CHECK(h.ring_stride >= tp_shm_ring_footprint(rs) && h.ring_stride % 4096 == 0);
    FUZZ_CHECK(TP_SHM_BRIDGE_HDR + 2 * h.ring_stride == size && h.total == size);
    FUZZ_CHECK(h.uid_lo == lo && h.uid_hi == hi && h.pid[0] > 0);
    FUZZ_CHECK(atomic_load(&h.attached) == 1 && atomic_load(&h.unlinked) == 0);
}

static void ctrl(fuzz_in_t *in)
{
    uint8_t buf[32];
    size_t len = fuzz_u8(in) % (sizeof(buf) + 1);
    for (size_t i = 0; i < len; i++)
        buf[i] = fuzz_u8(in);
    int32_t from = (int32_t)fuzz_u32(in), to = (int32_t)fuzz_u32(in);
    size_t payload = fuzz_u8(in) & 1;
    int t = tp_tcp_ctrl_decode(buf, len, payload, from, to);
    if (t < 0) {
        FUZZ_CHECK(t == CORE_EPROTO);
        return;
    }
    FUZZ_CHECK(payload == 0);
    int32_t who;
    memcpy(&who, buf + 4, sizeof(who));
    FUZZ_CHECK(who == from);
    if (t == TP_TCP_BYE) {
        FUZZ_CHECK(len == sizeof(tp_tcp_ctrl_t));
        return;
    }
    tp_tcp_shm_ctrl_t m;
    FUZZ_CHECK(len == sizeof(m) && t >= TP_TCP_SHM_OFFER && t <= TP_TCP_SHM_WANT);
    memcpy(&m, buf, sizeof(m));
    FUZZ_CHECK(m.to == to && m.zero == 0 && m.type == (uint32_t)t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = { data, size };
    if (size < 1)
        return 0;
    if (fuzz_u8(&in) & 1)
        ctrl(&in);
    else
        header(&in);
    return 0;
}

#ifdef FUZZ_SEEDS
static void put_u32(fuzz_buf_t *b, uint32_t v)
{
    fuzz_put(b, &v, sizeof(v));
}

/* A header as the creator writes it, for an object of size bytes, checked for (lo, hi). */
static void put_header(fuzz_buf_t *b, size_t ring, uint64_t size, uint32_t lo, uint32_t hi)
{
    tp_shm_bridge_hdr_t h;
    memset(&h, 0, sizeof(h));
    tp_shm_bseg_hdr_init(&h, 3, 7, ring, 4242, 0x7ffd1000);
    fuzz_put_u8(b, 0);
    fuzz_put(b, &h, sizeof(h));
    put_u32(b, (uint32_t)size);
    put_u32(b, (uint32_t)(size >> 32));
    put_u32(b, lo);
    put_u32(b, hi);
}

static void put_ctrl(fuzz_buf_t *b, const void *m, size_t len, uint32_t from, uint32_t to)
{
    fuzz_put_u8(b, 1);
    fuzz_put_u8(b, (uint8_t)len);
    fuzz_put(b, m, len);
    put_u32(b, from);
    put_u32(b, to);
    fuzz_put_u8(b, 0);
}

void fuzz_make_seeds(void)
{
    fuzz_buf_t b = { 0 };
    size_t ring = 1u << 20;
    uint64_t size = TP_SHM_BRIDGE_HDR + 2 * tp_shm_bseg_stride(ring);
    put_header(&b, ring, size, 3, 7);
    fuzz_seed("header", b.p, b.len);
    b.len = 0;
    put_header(&b, TP_SHM_RING_FLOOR, TP_SHM_BRIDGE_HDR + 2 * tp_shm_bseg_stride(4096), 3, 7);
    fuzz_seed("header-smallest", b.p, b.len);
    b.len = 0;
    put_header(&b, ring, size - 4096, 3, 7);
    fuzz_seed("header-short-object", b.p, b.len);
    b.len = 0;
    put_header(&b, ring, size, 7, 3);
    fuzz_seed("header-other-pair", b.p, b.len);
    static const uint32_t types[] = { TP_TCP_SHM_OFFER, TP_TCP_SHM_ACK, TP_TCP_SHM_REFUSE,
                                      TP_TCP_SHM_WANT };
    static const char *names[] = { "offer", "ack", "refuse", "want" };
    for (int i = 0; i < 4; i++) {
        tp_tcp_shm_ctrl_t m = { types[i], 3, 7, 0 };
        b.len = 0;
        put_ctrl(&b, &m, sizeof(m), 3, 7);
        fuzz_seed(names[i], b.p, b.len);
    }
    tp_tcp_ctrl_t bye = { TP_TCP_BYE, 7 };
    b.len = 0;
    put_ctrl(&b, &bye, sizeof(bye), 7, 3);
    fuzz_seed("bye", b.p, b.len);
    tp_tcp_shm_ctrl_t bad = { TP_TCP_SHM_OFFER, 3, 8, 0 };
    b.len = 0;
    put_ctrl(&b, &bad, sizeof(bad), 3, 7);
    fuzz_seed("offer-wrong-uid", b.p, b.len);
    free(b.p);
}
#endif
