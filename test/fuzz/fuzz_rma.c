/*
 * Fuzz target: the RMA message decoders (src/rma/wire.c) and the target's
 * application of an OP piece to a window (src/rma/apply.c), as the handlers
 * run them. The window is a fake one over a buffer between guard bytes:
 * either a plain window (flavor create, displacements from its base) or a
 * dynamic one with two attached regions (absolute addresses).
 *
 * Input: a selector byte (which decoder; window kind), then a header length
 * byte and the header, then the payload (the rest).
 * Properties: no crash or sanitizer report; a decoded OP's segments cover
 * exactly h.len bytes, each a multiple of the element size, in the form the
 * kind and element type call for (ELEMS: accumulates on pair types with
 * holes, whose segments span element extents, not their packed bytes, and
 * whose holes are never written); applying a piece
 * that rma_apply_check accepted never writes outside the window memory (the
 * guards) and writes exactly h.len bytes of result; a decoded REPLY's length
 * equals the payload's; a decoded CTRL has a known type.
 */
#include <string.h>
#include "fuzz.h"
#include "core/datatype.h"
#include "core/op.h"
#include "rma/rma.h"

#define WIN 256
#define GUARD 64
#define GUARD_BYTE 0xa5

static uint8_t mem[GUARD + WIN + GUARD + WIN + GUARD];

static void guards_ok(void)
{
    for (size_t i = 0; i < GUARD; i++) {
        FUZZ_CHECK(mem[i] == GUARD_BYTE);
        FUZZ_CHECK(mem[GUARD + WIN + i] == GUARD_BYTE);
        FUZZ_CHECK(mem[2 * GUARD + 2 * WIN + i] == GUARD_BYTE);
    }
}

static void op(uint8_t sel, const uint8_t *hdr, size_t hlen, const uint8_t *pay, size_t len)
{
    char why[256];
    rma_op_msg_t m;
    if (rma_wire_op_decode(hdr, hlen, pay, len, &m, why, sizeof(why)))
        return;
    size_t esz = m.elem ? m.elem->size : 1;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < m.h.nseg; i++) {
        rma_seg_t s = rma_wire_seg(&m, i);
        FUZZ_CHECK(s.len > 0 && s.len % esz == 0);
        sum += s.len;
    }
    FUZZ_CHECK(sum == m.h.len);
    FUZZ_CHECK(m.h.form == ((m.h.kind == RMA_ACC || m.h.kind == RMA_GACC)
                                ? rma_wire_acc_form(m.elem) : RMA_FORM_BYTES));
    struct rdmpi_win w;
    memset(&w, 0, sizeof(w));
    rma_region_t reg[2] = { { (uint64_t)(uintptr_t)(mem + GUARD), WIN },
                            { (uint64_t)(uintptr_t)(mem + 2 * GUARD + WIN), WIN } };
    if (sel & 0x10) {
        w.flavor = MPI_WIN_FLAVOR_DYNAMIC;
        w.regions = reg;
        w.nregions = 2;
    } else {
        w.flavor = MPI_WIN_FLAVOR_CREATE;
        w.base = mem + GUARD;
        w.len = WIN;
    }
    if (rma_apply_check(&w, &m, why, sizeof(why)))
        return;
    uint8_t *out = malloc(m.h.len + GUARD);
    memset(out, GUARD_BYTE, m.h.len + GUARD);
    int rc = rma_apply(&w, &m, out);
    FUZZ_CHECK(rc == 0);
    for (size_t i = 0; i < GUARD; i++)
        FUZZ_CHECK(out[m.h.len + i] == GUARD_BYTE);
    free(out);
    guards_ok();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    if (size < 2)
        return 0;
    memset(mem, GUARD_BYTE, sizeof(mem));
    for (size_t i = 0; i < WIN; i++) {
        mem[GUARD + i] = (uint8_t)i;
        mem[2 * GUARD + WIN + i] = (uint8_t)(i * 3);
    }
    uint8_t sel = data[0];
    size_t hlen = data[1];
    data += 2;
    size -= 2;
    if (hlen > size)
        hlen = size;
    const uint8_t *hdr = data, *pay = data + hlen;
    size_t len = size - hlen;
    char why[256];
    switch (sel % 3) {
    case 0:
        op(sel, hdr, hlen, pay, len);
        break;
    case 1: {
        rma_reply_hdr_t r;
        if (rma_wire_reply_decode(hdr, hlen, len, &r, why, sizeof(why)) == 0)
            FUZZ_CHECK(r.len == len && r.status <= RMA_ST_RANGE);
        break;
    }
    case 2: {
        rma_ctrl_hdr_t c;
        if (rma_wire_ctrl_decode(hdr, hlen, len, &c, why, sizeof(why)) == 0)
            FUZZ_CHECK(c.type >= RMA_CTRL_LOCK && c.type < RMA_CTRL_END && len == 0);
        break;
    }
    }
    return 0;
}

#ifdef FUZZ_SEEDS
static void put_op(const char *name, uint8_t sel, rma_op_hdr_t h, const rma_seg_t *segs,
                   const void *data, size_t dlen)
{
    fuzz_buf_t b = { 0 };
    fuzz_put_u8(&b, sel);
    fuzz_put_u8(&b, sizeof(h));
    fuzz_put(&b, &h, sizeof(h));
    fuzz_put(&b, segs, h.nseg * sizeof(rma_seg_t));
    if (dlen)
        fuzz_put(&b, data, dlen);
    fuzz_seed(name, b.p, b.len);
    free(b.p);
}

void fuzz_make_seeds(void)
{
    uint8_t data[64];
    for (int i = 0; i < 64; i++)
        data[i] = (uint8_t)i;
    rma_seg_t two[2] = { { 8, 16 }, { 100, 8 } };
    put_op("put", 0, (rma_op_hdr_t){ 0, 1, 1, 0, 24, 2, RMA_PUT, 0, 0, 0 }, two, data, 24);
    put_op("get", 3, (rma_op_hdr_t){ 0, 1, 1, 0, 24, 2, RMA_GET, 0, 0, 0 }, two, NULL, 0);
    /* accumulate: SUM (3) on int (7), and get_accumulate REPLACE (13) on double (22) */
    put_op("acc-int-sum", 6, (rma_op_hdr_t){ 0, 1, 1, 0, 24, 2, RMA_ACC, 3, 7, 0 }, two, data,
           24);
    put_op("gacc-double", 9, (rma_op_hdr_t){ 0, 1, 1, 0, 24, 2, RMA_GACC, 13, 22, 0 }, two,
           data, 24);
    rma_seg_t one = { 16, 8 };
    put_op("cas-long", 12, (rma_op_hdr_t){ 0, 1, 1, 0, 8, 1, RMA_CAS, 0, 9, 0 }, &one, data, 16);
    put_op("past-end", 0, (rma_op_hdr_t){ 0, 1, 1, 0, 16, 1, RMA_PUT, 0, 0, 0 },
           (rma_seg_t[]){ { 250, 16 } }, data, 16);
    /* dynamic window: absolute addresses are not known here, so an arbitrary one */
    put_op("dynamic", 0x10, (rma_op_hdr_t){ 0, 1, 1, 0, 8, 1, RMA_PUT, 0, 0, 0 },
           (rma_seg_t[]){ { 0x1000, 8 } }, data, 8);
    /* pair types with holes: element runs (ELEMS), a 2-element run of MPI_DOUBLE_INT spans
     * 28 bytes; MPI_SHORT_INT's last element ends past the window (span 8, not 6) */
    put_op("acc-elems-double-int", 15,
           (rma_op_hdr_t){ 0, 1, 1, 0, 36, 2, RMA_ACC, CORE_OP_MAXLOC, CORE_DT_DOUBLE_INT,
                           RMA_FORM_ELEMS },
           (rma_seg_t[]){ { 8, 24 }, { 200, 12 } }, data, 36);
    put_op("gacc-elems-short-int", 0,
           (rma_op_hdr_t){ 0, 1, 1, 0, 18, 2, RMA_GACC, CORE_OP_MINLOC, CORE_DT_SHORT_INT,
                           RMA_FORM_ELEMS },
           (rma_seg_t[]){ { 4, 12 }, { 100, 6 } }, data, 18);
    put_op("elems-past-end", 3,
           (rma_op_hdr_t){ 0, 1, 1, 0, 12, 2, RMA_ACC, CORE_OP_REPLACE, CORE_DT_SHORT_INT,
                           RMA_FORM_ELEMS },
           (rma_seg_t[]){ { 0, 6 }, { 250, 6 } }, data, 12);
    put_op("elems-dynamic", 0x12,
           (rma_op_hdr_t){ 0, 1, 1, 0, 20, 1, RMA_ACC, CORE_OP_MINLOC, CORE_DT_LDOUBLE_INT,
                           RMA_FORM_ELEMS },
           (rma_seg_t[]){ { 0x1000, 20 } }, data, 20);
    put_op("elems-form-on-int", 6,
           (rma_op_hdr_t){ 0, 1, 1, 0, 8, 1, RMA_ACC, CORE_OP_SUM, CORE_DT_INT, RMA_FORM_ELEMS },
           (rma_seg_t[]){ { 0, 8 } }, data, 8);
    fuzz_buf_t b = { 0 };
    rma_reply_hdr_t r = { 5, 0, 4, 0, 0 };
    fuzz_put_u8(&b, 1);
    fuzz_put_u8(&b, sizeof(r));
    fuzz_put(&b, &r, sizeof(r));
    fuzz_put(&b, data, 4);
    fuzz_seed("reply", b.p, b.len);
    b.len = 0;
    rma_ctrl_hdr_t c = { 0, 1, 2, 3, RMA_CTRL_LOCK, RMA_LOCK_EXCL_W, { 0 } };
    fuzz_put_u8(&b, 2);
    fuzz_put_u8(&b, sizeof(c));
    fuzz_put(&b, &c, sizeof(c));
    fuzz_seed("ctrl-lock", b.p, b.len);
    free(b.p);
}
#endif
