/*
 * Decoders of the RMA messages (rma_wire.h): every field a peer sends is
 * checked here before the handlers use it. Pure functions of their input.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "rma/rma_wire.h"
#include "core/datatype.h"
#include "core/op.h"

static const MPI_Datatype elem_types[CORE_DT_NKINDS] = {
    [CORE_DT_CHAR] = MPI_CHAR, [CORE_DT_SCHAR] = MPI_SIGNED_CHAR,
    [CORE_DT_UCHAR] = MPI_UNSIGNED_CHAR, [CORE_DT_BYTE] = MPI_BYTE,
    [CORE_DT_SHORT] = MPI_SHORT, [CORE_DT_USHORT] = MPI_UNSIGNED_SHORT,
    [CORE_DT_INT] = MPI_INT, [CORE_DT_UINT] = MPI_UNSIGNED,
    [CORE_DT_LONG] = MPI_LONG, [CORE_DT_ULONG] = MPI_UNSIGNED_LONG,
    [CORE_DT_LLONG] = MPI_LONG_LONG, [CORE_DT_ULLONG] = MPI_UNSIGNED_LONG_LONG,
    [CORE_DT_INT8] = MPI_INT8_T, [CORE_DT_INT16] = MPI_INT16_T,
    [CORE_DT_INT32] = MPI_INT32_T, [CORE_DT_INT64] = MPI_INT64_T,
    [CORE_DT_UINT8] = MPI_UINT8_T, [CORE_DT_UINT16] = MPI_UINT16_T,
    [CORE_DT_UINT32] = MPI_UINT32_T, [CORE_DT_UINT64] = MPI_UINT64_T,
    [CORE_DT_FLOAT] = MPI_FLOAT, [CORE_DT_DOUBLE] = MPI_DOUBLE,
    [CORE_DT_LDOUBLE] = MPI_LONG_DOUBLE, [CORE_DT_WCHAR] = MPI_WCHAR,
    [CORE_DT_BOOL] = MPI_C_BOOL, [CORE_DT_AINT] = MPI_AINT, [CORE_DT_OFFSET] = MPI_OFFSET,
    [CORE_DT_COUNT] = MPI_COUNT, [CORE_DT_CFLOAT] = MPI_C_FLOAT_COMPLEX,
    [CORE_DT_CDOUBLE] = MPI_C_DOUBLE_COMPLEX, [CORE_DT_CLDOUBLE] = MPI_C_LONG_DOUBLE_COMPLEX,
    [CORE_DT_FLOAT_INT] = MPI_FLOAT_INT, [CORE_DT_DOUBLE_INT] = MPI_DOUBLE_INT,
    [CORE_DT_LONG_INT] = MPI_LONG_INT, [CORE_DT_2INT] = MPI_2INT,
    [CORE_DT_SHORT_INT] = MPI_SHORT_INT, [CORE_DT_LDOUBLE_INT] = MPI_LONG_DOUBLE_INT,
    [CORE_DT_FLOAT128] = MPI_REAL16, [CORE_DT_CFLOAT128] = MPI_COMPLEX32,
    [CORE_DT_FLOGICAL] = MPI_LOGICAL, [CORE_DT_2REAL] = MPI_2REAL,
    [CORE_DT_2DOUBLE] = MPI_2DOUBLE_PRECISION,
};

static const MPI_Op ops[] = {
    [CORE_OP_MAX] = MPI_MAX, [CORE_OP_MIN] = MPI_MIN, [CORE_OP_SUM] = MPI_SUM,
    [CORE_OP_PROD] = MPI_PROD, [CORE_OP_LAND] = MPI_LAND, [CORE_OP_BAND] = MPI_BAND,
    [CORE_OP_LOR] = MPI_LOR, [CORE_OP_BOR] = MPI_BOR, [CORE_OP_LXOR] = MPI_LXOR,
    [CORE_OP_BXOR] = MPI_BXOR, [CORE_OP_MINLOC] = MPI_MINLOC, [CORE_OP_MAXLOC] = MPI_MAXLOC,
    [CORE_OP_REPLACE] = MPI_REPLACE, [CORE_OP_NO_OP] = MPI_NO_OP,
};

MPI_Datatype rma_wire_elem_type(unsigned dtk)
{
    return dtk < CORE_DT_NKINDS ? elem_types[dtk] : NULL;
}

MPI_Op rma_wire_op(unsigned aop)
{
    return aop < sizeof(ops) / sizeof(ops[0]) ? ops[aop] : NULL;
}

int rma_wire_cas_kind(unsigned dtk)
{
    /* MPI: C and Fortran integers, logicals, byte and the multi-language types */
    return dtk > CORE_DT_NONE && dtk < CORE_DT_NKINDS &&
           (dtk < CORE_DT_FLOAT || dtk == CORE_DT_WCHAR || dtk == CORE_DT_BOOL ||
            dtk == CORE_DT_AINT || dtk == CORE_DT_OFFSET || dtk == CORE_DT_COUNT ||
            dtk == CORE_DT_FLOGICAL);
}

int rma_wire_acc_form(MPI_Datatype elem)
{
    return core_dt_is_contig(elem) ? RMA_FORM_BYTES : RMA_FORM_ELEMS;
}

uint64_t rma_wire_seg_span(const rma_op_msg_t *m, rma_seg_t s)
{
    if (m->h.form != RMA_FORM_ELEMS)
        return s.len;
    /* decoded: s.len is a nonzero multiple of the element size and at most the payload's
     * length, elements are a pair's (extent at most 64 bytes): no overflow */
    uint64_t n = s.len / m->elem->size;
    return (n - 1) * (uint64_t)m->elem->extent + (uint64_t)m->elem->true_extent;
}

__attribute__((format(printf, 3, 4))) static int bad(char *why, size_t why_len,
                                                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return -1;
}

/* What a piece of kind carries besides its segments, given the element size. */
static int payload_check(rma_op_msg_t *m, size_t rest, char *why, size_t why_len)
{
    const rma_op_hdr_t *h = &m->h;
    size_t esz = m->elem ? m->elem->size : 1;
    switch (h->kind) {
    case RMA_PUT:
    case RMA_ACC:
    case RMA_GACC:
        if (rest != h->len)
            return bad(why, why_len, "RMA OP: %zu data bytes for %llu covered", rest,
                       (unsigned long long)h->len);
        break;
    case RMA_GET:
        if (rest != 0)
            return bad(why, why_len, "RMA GET with %zu data bytes", rest);
        break;
    case RMA_CAS:
        if (h->nseg != 1 || h->len != esz || rest != 2 * esz)
            return bad(why, why_len, "RMA CAS of %u segments, %llu bytes, %zu data bytes",
                       h->nseg, (unsigned long long)h->len, rest);
        break;
    }
    m->data_len = rest;
    return 0;
}

int rma_wire_op_decode(const void *hdr, size_t hdr_len, const void *payload, size_t len,
                       rma_op_msg_t *m, char *why, size_t why_len)
{
    memset(m, 0, sizeof(*m));
    if (hdr_len != sizeof(rma_op_hdr_t))
        return bad(why, why_len, "RMA OP header of %zu bytes", hdr_len);
    memcpy(&m->h, hdr, sizeof(m->h));
    const rma_op_hdr_t *h = &m->h;
    if (h->kind < RMA_PUT || h->kind >= RMA_KIND_END)
        return bad(why, why_len, "RMA OP of unknown kind %u", h->kind);
    if (h->nseg == 0 || h->nseg > RMA_MAX_SEG)
        return bad(why, why_len, "RMA OP with %u segments", h->nseg);
    size_t seg_bytes = (size_t)h->nseg * sizeof(rma_seg_t);
    if (len < seg_bytes)
        return bad(why, why_len, "RMA OP payload of %zu bytes for %u segments", len, h->nseg);
    if (h->kind == RMA_ACC || h->kind == RMA_GACC || h->kind == RMA_CAS) {
        m->elem = rma_wire_elem_type(h->dtk);
        if (!m->elem)
            return bad(why, why_len, "RMA OP on unknown element kind %u", h->dtk);
        if (h->kind != RMA_CAS) {
            m->aop = rma_wire_op(h->aop);
            if (!m->aop || !core_op_valid(m->aop, m->elem))
                return bad(why, why_len, "RMA accumulate with op %u on element kind %u",
                           h->aop, h->dtk);
        } else if (!rma_wire_cas_kind(h->dtk)) {
            return bad(why, why_len, "RMA CAS on element kind %u", h->dtk);
        }
    } else if (h->aop || h->dtk) {
        return bad(why, why_len, "RMA PUT/GET with op %u, element kind %u", h->aop, h->dtk);
    }
    /* the form follows from the kind and the elements: a peer cannot choose it */
    int form = (h->kind == RMA_ACC || h->kind == RMA_GACC) ? rma_wire_acc_form(m->elem)
                                                            : RMA_FORM_BYTES;
    if (h->form != form)
        return bad(why, why_len, "RMA OP of kind %u on element kind %u in form %u", h->kind,
                   h->dtk, h->form);
    if (form == RMA_FORM_ELEMS && (m->elem->extent > 64 || m->elem->true_lb != 0 ||
                                   m->elem->true_extent > m->elem->extent))
        return bad(why, why_len, "RMA OP on elements of extent %ld", (long)m->elem->extent);
    /* the data carried is what the segments cover (checked again below): bounds every
     * segment's length by the payload's before the spans are computed from them */
    int carries = h->kind == RMA_PUT || h->kind == RMA_ACC || h->kind == RMA_GACC;
    if (carries && h->len != len - seg_bytes)
        return bad(why, why_len, "RMA OP: %zu data bytes for %llu covered", len - seg_bytes,
                   (unsigned long long)h->len);
    m->segs = (const uint8_t *)payload;
    size_t esz = m->elem ? m->elem->size : 1;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < h->nseg; i++) {
        rma_seg_t s = rma_wire_seg(m, i);
        if (s.len == 0 || s.len % esz || s.len > h->len || sum + s.len > h->len)
            return bad(why, why_len, "RMA OP segment %u of %llu bytes (elements of %zu, %llu "
                       "in all)", i, (unsigned long long)s.len, esz, (unsigned long long)h->len);
        if (s.disp + rma_wire_seg_span(m, s) < s.disp)
            return bad(why, why_len, "RMA OP segment %u wraps around", i);
        sum += s.len;
    }
    if (sum != h->len)
        return bad(why, why_len, "RMA OP segments cover %llu bytes, header says %llu",
                   (unsigned long long)sum, (unsigned long long)h->len);
    m->data = len > seg_bytes ? (const uint8_t *)payload + seg_bytes : NULL;
    return payload_check(m, len - seg_bytes, why, why_len);
}

int rma_wire_segs_fit(const rma_op_msg_t *m, const rma_region_t *reg, size_t n, char *why,
                      size_t why_len)
{
    for (uint32_t i = 0; i < m->h.nseg; i++) {
        rma_seg_t s = rma_wire_seg(m, i);
        /* Covered by one region, or by regions that touch (memory attached in pieces):
         * walk from region to region until the segment's end. */
        uint64_t span = rma_wire_seg_span(m, s);
        uint64_t pos = s.disp, end = s.disp + span;
        size_t hops = 0;
        while (pos < end && hops++ <= n) {
            size_t j = 0;
            while (j < n && !(pos >= reg[j].base && pos - reg[j].base < reg[j].len))
                j++;
            if (j == n)
                break;
            pos = reg[j].base + reg[j].len;   /* regions never wrap: checked at attach */
        }
        if (pos < end)
            return bad(why, why_len, "RMA OP segment %u (%llu bytes at %llu) outside the window",
                       i, (unsigned long long)span, (unsigned long long)s.disp);
    }
    return 0;
}

int rma_wire_reply_decode(const void *hdr, size_t hdr_len, size_t len, rma_reply_hdr_t *r,
                          char *why, size_t why_len)
{
    if (hdr_len != sizeof(*r))
        return bad(why, why_len, "RMA REPLY header of %zu bytes", hdr_len);
    memcpy(r, hdr, sizeof(*r));
    if (r->status > RMA_ST_RANGE)
        return bad(why, why_len, "RMA REPLY with status %u", r->status);
    if (r->len != len || r->off + r->len < r->off)
        return bad(why, why_len, "RMA REPLY of %llu bytes at %llu with %zu data bytes",
                   (unsigned long long)r->len, (unsigned long long)r->off, len);
    return 0;
}

int rma_wire_ctrl_decode(const void *hdr, size_t hdr_len, size_t len, rma_ctrl_hdr_t *c,
                         char *why, size_t why_len)
{
    if (hdr_len != sizeof(*c) || len != 0)
        return bad(why, why_len, "RMA CTRL of %zu + %zu bytes", hdr_len, len);
    memcpy(c, hdr, sizeof(*c));
    if (c->type < RMA_CTRL_LOCK || c->type >= RMA_CTRL_END)
        return bad(why, why_len, "RMA CTRL of unknown type %u", c->type);
    if (c->type == RMA_CTRL_LOCK ? c->arg != RMA_LOCK_SHARED_W && c->arg != RMA_LOCK_EXCL_W
                                 : c->arg != 0)
        return bad(why, why_len, "RMA CTRL %u with argument %u", c->type, c->arg);
    return 0;
}
