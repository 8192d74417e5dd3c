/*
 * The RMA OP decoder's checks of the segment forms (src/rma/wire.c) and the
 * target's application of pair types with holes (apply.c, atomic.c), on a
 * fake window over a buffer between guard bytes:
 *  - an ELEMS accumulate (MAXLOC on MPI_DOUBLE_INT, MINLOC with a fetch on
 *    MPI_SHORT_INT) is decoded, fits, updates value and index and leaves
 *    every hole byte as it was; the fetched contents are packed;
 *  - an element run whose span (not its packed length) passes the window's
 *    end is refused by the fit check;
 *  - the form must be the one the kind and type call for (BYTES for a pair
 *    with holes, ELEMS for an int or a PUT are refused), and the data must
 *    be what the segments cover;
 *  - Compare_and_swap only on the kinds MPI defines it for.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/datatype.h"
#include "core/op.h"
#include "rma/rma.h"

static int failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            printf("FAIL: unit/rma_wire: ");                               \
            printf(__VA_ARGS__);                                           \
            printf(" (%s:%d)\n", __FILE__, __LINE__);                      \
            failures++;                                                    \
            return;                                                        \
        }                                                                  \
    } while (0)

#define WIN 128
#define GUARD 32
#define FILL 0xa5

struct pdi { double v; int i; };
struct psi { short v; int i; };

static uint8_t mem[GUARD + WIN + GUARD];

static void win_init(struct rdmpi_win *w, size_t len)
{
    memset(w, 0, sizeof(*w));
    w->flavor = MPI_WIN_FLAVOR_CREATE;
    w->base = mem + GUARD;
    w->len = (MPI_Aint)len;
    memset(mem, FILL, sizeof(mem));
}

/* Header, segments and data as one message; returns the decoder's verdict. */
static int decode(rma_op_hdr_t h, const rma_seg_t *segs, const void *data, size_t dlen,
                  rma_op_msg_t *m, uint8_t *buf)
{
    char why[256];
    memcpy(buf, segs, h.nseg * sizeof(rma_seg_t));
    if (dlen)
        memcpy(buf + h.nseg * sizeof(rma_seg_t), data, dlen);
    return rma_wire_op_decode(&h, sizeof(h), buf, h.nseg * sizeof(rma_seg_t) + dlen, m, why,
                              sizeof(why));
}

static int guards_ok(void)
{
    for (size_t i = 0; i < GUARD; i++)
        if (mem[i] != FILL || mem[GUARD + WIN + i] != FILL)
            return 0;
    return 1;
}

static void maxloc_double_int(void)
{
    struct rdmpi_win w;
    win_init(&w, WIN);
    /* two elements one extent apart at 16 and 32, one alone at 80 */
    size_t ext = sizeof(struct pdi), esz = sizeof(double) + sizeof(int);
    size_t at[3] = { 16, 16 + ext, 80 };
    for (int k = 0; k < 3; k++) {
        struct pdi e = { 10.0 * k, 100 + k };
        memcpy(mem + GUARD + at[k], &e.v, sizeof(e.v));
        memcpy(mem + GUARD + at[k] + offsetof(struct pdi, i), &e.i, sizeof(e.i));
    }
    uint8_t data[3 * 12], buf[512];
    double in_v[3] = { 5.0, 20.0, 20.0 };   /* lower, higher, equal to element 2's 20 */
    int in_i[3] = { 7, 8, 1 };
    for (int k = 0; k < 3; k++) {
        memcpy(data + k * esz, &in_v[k], sizeof(double));
        memcpy(data + k * esz + sizeof(double), &in_i[k], sizeof(int));
    }
    rma_seg_t segs[2] = { { 16, 2 * esz }, { 80, esz } };
    rma_op_hdr_t h = { 0, 1, 1, 0, 3 * esz, 2, RMA_ACC, CORE_OP_MAXLOC, CORE_DT_DOUBLE_INT,
                       RMA_FORM_ELEMS };
    rma_op_msg_t m;
    CHECK(decode(h, segs, data, sizeof(data), &m, buf) == 0, "ELEMS MAXLOC refused");
    char why[256];
    CHECK(rma_apply_check(&w, &m, why, sizeof(why)) == 0, "ELEMS run does not fit: %s", why);
    CHECK(rma_apply(&w, &m, NULL) == 0, "apply failed");
    double want_v[3] = { 5.0, 20.0, 20.0 };
    int want_i[3] = { 7, 8, 1 };   /* equal values: the lower index */
    for (int k = 0; k < 3; k++) {
        double v;
        int i;
        memcpy(&v, mem + GUARD + at[k], sizeof(v));
        memcpy(&i, mem + GUARD + at[k] + offsetof(struct pdi, i), sizeof(i));
        CHECK(v == want_v[k] && i == want_i[k], "element %d is (%g, %d), want (%g, %d)", k, v,
              i, want_v[k], want_i[k]);
        for (size_t b = esz; b < ext; b++)
            CHECK(mem[GUARD + at[k] + b] == FILL, "hole byte %zu of element %d written", b, k);
    }
    CHECK(guards_ok(), "write outside the window");

    /* the same run ending 1 byte past a window whose end its packed length would fit */
    win_init(&w, 16 + ext + esz - 1);
    CHECK(decode(h, segs, data, sizeof(data), &m, buf) == 0, "ELEMS MAXLOC refused");
    rma_seg_t one = { 16, 2 * esz };
    h.nseg = 1;
    h.len = 2 * esz;
    CHECK(decode(h, &one, data, 2 * esz, &m, buf) == 0, "one run refused");
    CHECK(rma_apply_check(&w, &m, why, sizeof(why)) != 0, "a run past the end fits");
    win_init(&w, 16 + ext + esz);
    CHECK(rma_apply_check(&w, &m, why, sizeof(why)) == 0, "a run to the end refused: %s", why);
}

static void minloc_short_int(void)
{
    struct rdmpi_win w;
    win_init(&w, WIN);
    size_t ext = sizeof(struct psi), esz = sizeof(short) + sizeof(int);
    size_t ioff = offsetof(struct psi, i);
    for (int k = 0; k < 2; k++) {
        short v = (short)(3 - k);
        int i = 50 + k;
        memcpy(mem + GUARD + k * ext, &v, sizeof(v));
        memcpy(mem + GUARD + k * ext + ioff, &i, sizeof(i));
    }
    uint8_t data[2 * 6], buf[512], out[2 * 6 + 8];
    short in_v[2] = { 1, 9 };
    int in_i[2] = { 4, 4 };
    for (int k = 0; k < 2; k++) {
        memcpy(data + k * esz, &in_v[k], sizeof(short));
        memcpy(data + k * esz + sizeof(short), &in_i[k], sizeof(int));
    }
    rma_seg_t seg = { 0, 2 * esz };
    rma_op_hdr_t h = { 0, 1, 1, 0, 2 * esz, 1, RMA_GACC, CORE_OP_MINLOC, CORE_DT_SHORT_INT,
                       RMA_FORM_ELEMS };
    rma_op_msg_t m;
    char why[256];
    CHECK(decode(h, &seg, data, sizeof(data), &m, buf) == 0, "ELEMS MINLOC refused");
    CHECK(rma_apply_check(&w, &m, why, sizeof(why)) == 0, "does not fit: %s", why);
    memset(out, 0xee, sizeof(out));
    CHECK(rma_apply(&w, &m, out) == 0, "apply failed");
    for (int k = 0; k < 2; k++) {
        short ov, v;
        int oi, i;
        memcpy(&ov, out + k * esz, sizeof(ov));
        memcpy(&oi, out + k * esz + sizeof(short), sizeof(oi));
        CHECK(ov == 3 - k && oi == 50 + k, "fetched element %d is (%d, %d)", k, ov, oi);
        memcpy(&v, mem + GUARD + k * ext, sizeof(v));
        memcpy(&i, mem + GUARD + k * ext + ioff, sizeof(i));
        short wv = k == 0 ? 1 : 2;
        int wi = k == 0 ? 4 : 51;
        CHECK(v == wv && i == wi, "element %d is (%d, %d), want (%d, %d)", k, v, i, wv, wi);
        for (size_t b = sizeof(short); b < ioff; b++)
            CHECK(mem[GUARD + k * ext + b] == FILL, "hole byte %zu of element %d written", b, k);
    }
    CHECK(out[2 * esz] == 0xee, "fetched more than the piece's length");
    CHECK(guards_ok(), "write outside the window");
}

static void forms_refused(void)
{
    uint8_t data[64] = { 0 }, buf[512];
    rma_op_msg_t m;
    rma_seg_t seg = { 0, 12 };
    /* a pair with holes in BYTES form */
    rma_op_hdr_t h = { 0, 1, 1, 0, 12, 1, RMA_ACC, CORE_OP_MAXLOC, CORE_DT_DOUBLE_INT,
                       RMA_FORM_BYTES };
    CHECK(decode(h, &seg, data, 12, &m, buf) != 0, "DOUBLE_INT in BYTES form accepted");
    /* ELEMS on a type without holes, on a PUT, an unknown form */
    rma_seg_t s8 = { 0, 8 };
    h = (rma_op_hdr_t){ 0, 1, 1, 0, 8, 1, RMA_ACC, CORE_OP_SUM, CORE_DT_INT, RMA_FORM_ELEMS };
    CHECK(decode(h, &s8, data, 8, &m, buf) != 0, "ELEMS on MPI_INT accepted");
    h = (rma_op_hdr_t){ 0, 1, 1, 0, 8, 1, RMA_ACC, CORE_OP_MAXLOC, CORE_DT_2INT, RMA_FORM_ELEMS };
    CHECK(decode(h, &s8, data, 8, &m, buf) != 0, "ELEMS on MPI_2INT (no holes) accepted");
    h = (rma_op_hdr_t){ 0, 1, 1, 0, 8, 1, RMA_PUT, 0, 0, RMA_FORM_ELEMS };
    CHECK(decode(h, &s8, data, 8, &m, buf) != 0, "ELEMS on a PUT accepted");
    h = (rma_op_hdr_t){ 0, 1, 1, 0, 8, 1, RMA_PUT, 0, 0, 7 };
    CHECK(decode(h, &s8, data, 8, &m, buf) != 0, "form 7 accepted");
    /* a segment that is not whole packed elements; data not what is covered */
    rma_seg_t s10 = { 0, 10 };
    h = (rma_op_hdr_t){ 0, 1, 1, 0, 10, 1, RMA_ACC, CORE_OP_MINLOC, CORE_DT_SHORT_INT,
                        RMA_FORM_ELEMS };
    CHECK(decode(h, &s10, data, 10, &m, buf) != 0, "10 bytes of MPI_SHORT_INT accepted");
    rma_seg_t huge = { 0, (uint64_t)1 << 62 };
    h = (rma_op_hdr_t){ 0, 1, 1, 0, (uint64_t)1 << 62, 1, RMA_ACC, CORE_OP_MINLOC,
                        CORE_DT_DOUBLE_INT, RMA_FORM_ELEMS };
    CHECK(decode(h, &huge, data, 12, &m, buf) != 0, "a run longer than its data accepted");
    /* Compare_and_swap kinds */
    CHECK(rma_wire_cas_kind(CORE_DT_LONG) && rma_wire_cas_kind(CORE_DT_FLOGICAL) &&
              rma_wire_cas_kind(CORE_DT_BYTE) && rma_wire_cas_kind(CORE_DT_AINT),
          "CAS refused on an integer kind");
    CHECK(!rma_wire_cas_kind(CORE_DT_FLOAT) && !rma_wire_cas_kind(CORE_DT_2INT) &&
              !rma_wire_cas_kind(CORE_DT_CDOUBLE) && !rma_wire_cas_kind(CORE_DT_NONE) &&
              !rma_wire_cas_kind(CORE_DT_NKINDS),
          "CAS accepted on a kind it is not defined for");
}

int main(void)
{
    maxloc_double_int();
    minloc_short_int();
    forms_refused();
    if (failures == 0)
        printf("PASS: unit/rma_wire\n");
    return failures ? 1 : 0;
}
