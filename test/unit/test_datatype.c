/*
 * Unit test of src/core/datatype.c: the layout of every predefined type
 * against the C compiler's sizeof/offsetof, contiguous and dup
 * constructors (bounds, block merging, flags), the pieces and resized
 * constructors behind vector/indexed/struct, pack/unpack round trips of
 * pair types and contiguous types of pairs, partial unpacks that stop
 * mid-item, and MPI_Get_elements counting.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/datatype.h"
#include "core/errors.h"

static int failures;

static void report(const char *name, int ok, const char *fmt, ...)
{
    if (ok) {
        printf("PASS: unit/datatype/%s\n", name);
        return;
    }
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    printf("FAIL: unit/datatype/%s %s\n", name, detail);
    failures++;
}

/* Records the first mismatch of a check group in why. */
#define EXPECT(cond, ...)                                                          \
    do {                                                                           \
        if (!(cond) && !why[0])                                                    \
            snprintf(why, sizeof(why), __VA_ARGS__);                               \
    } while (0)

struct expect_dt {
    MPI_Datatype dt;
    const char *name;
    size_t size;
    MPI_Aint extent, true_extent;
    enum core_dt_kind kind;
    size_t nbasic;
    int contig;
};

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct two_int { int v; int i; };
struct short_int { short v; int i; };
struct ldouble_int { long double v; int i; };

#define ONE(dt, name, T, K) {dt, name, sizeof(T), sizeof(T), sizeof(T), K, 1, 1}
#define PAIR(dt, name, P, A, K)                                                    \
    {dt, name, sizeof(A) + sizeof(int), sizeof(P), offsetof(P, i) + sizeof(int), K, 2,  \
     offsetof(P, i) == sizeof(A) && sizeof(P) == sizeof(A) + sizeof(int)}

static const struct expect_dt predefined[] = {
    ONE(MPI_CHAR, "MPI_CHAR", char, CORE_DT_CHAR),
    ONE(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", signed char, CORE_DT_SCHAR),
    ONE(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", unsigned char, CORE_DT_UCHAR),
    ONE(MPI_BYTE, "MPI_BYTE", char, CORE_DT_BYTE),
    ONE(MPI_PACKED, "MPI_PACKED", char, CORE_DT_PACKED),
    ONE(MPI_SHORT, "MPI_SHORT", short, CORE_DT_SHORT),
    ONE(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", unsigned short, CORE_DT_USHORT),
    ONE(MPI_INT, "MPI_INT", int, CORE_DT_INT),
    ONE(MPI_UNSIGNED, "MPI_UNSIGNED", unsigned, CORE_DT_UINT),
    ONE(MPI_LONG, "MPI_LONG", long, CORE_DT_LONG),
    ONE(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", unsigned long, CORE_DT_ULONG),
    ONE(MPI_LONG_LONG, "MPI_LONG_LONG_INT", long long, CORE_DT_LLONG),
    ONE(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", unsigned long long, CORE_DT_ULLONG),
    ONE(MPI_FLOAT, "MPI_FLOAT", float, CORE_DT_FLOAT),
    ONE(MPI_DOUBLE, "MPI_DOUBLE", double, CORE_DT_DOUBLE),
    ONE(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", long double, CORE_DT_LDOUBLE),
    ONE(MPI_WCHAR, "MPI_WCHAR", wchar_t, CORE_DT_WCHAR),
    ONE(MPI_C_BOOL, "MPI_C_BOOL", _Bool, CORE_DT_BOOL),
    ONE(MPI_INT8_T, "MPI_INT8_T", int8_t, CORE_DT_INT8),
    ONE(MPI_INT16_T, "MPI_INT16_T", int16_t, CORE_DT_INT16),
    ONE(MPI_INT32_T, "MPI_INT32_T", int32_t, CORE_DT_INT32),
    ONE(MPI_INT64_T, "MPI_INT64_T", int64_t, CORE_DT_INT64),
    ONE(MPI_UINT8_T, "MPI_UINT8_T", uint8_t, CORE_DT_UINT8),
    ONE(MPI_UINT16_T, "MPI_UINT16_T", uint16_t, CORE_DT_UINT16),
    ONE(MPI_UINT32_T, "MPI_UINT32_T", uint32_t, CORE_DT_UINT32),
    ONE(MPI_UINT64_T, "MPI_UINT64_T", uint64_t, CORE_DT_UINT64),
    ONE(MPI_AINT, "MPI_AINT", MPI_Aint, CORE_DT_AINT),
    ONE(MPI_OFFSET, "MPI_OFFSET", MPI_Offset, CORE_DT_OFFSET),
    ONE(MPI_COUNT, "MPI_COUNT", MPI_Count, CORE_DT_COUNT),
    ONE(MPI_C_COMPLEX, "MPI_C_COMPLEX", float _Complex, CORE_DT_CFLOAT),
    ONE(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", double _Complex, CORE_DT_CDOUBLE),
    ONE(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", long double _Complex,
        CORE_DT_CLDOUBLE),
    PAIR(MPI_FLOAT_INT, "MPI_FLOAT_INT", struct float_int, float, CORE_DT_FLOAT_INT),
    PAIR(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", struct double_int, double, CORE_DT_DOUBLE_INT),
    PAIR(MPI_LONG_INT, "MPI_LONG_INT", struct long_int, long, CORE_DT_LONG_INT),
    PAIR(MPI_2INT, "MPI_2INT", struct two_int, int, CORE_DT_2INT),
    PAIR(MPI_SHORT_INT, "MPI_SHORT_INT", struct short_int, short, CORE_DT_SHORT_INT),
    PAIR(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", struct ldouble_int, long double,
         CORE_DT_LDOUBLE_INT),
};
#define NPREDEF (sizeof(predefined) / sizeof(predefined[0]))

/* Sum of block lengths and whether the blocks lie inside [true_lb, true_lb + true_extent). */
static int blocks_consistent(MPI_Datatype dt, char *why, size_t whylen)
{
    size_t sum = 0;
    for (size_t j = 0; j < dt->nblocks; j++) {
        const core_dt_block_t *b = &dt->blocks[j];
        if (b->off < dt->true_lb ||
            b->off + (MPI_Aint)b->len > dt->true_lb + dt->true_extent) {
            snprintf(why, whylen, "%s block %zu {%ld,%zu} outside true bounds", dt->name, j,
                     b->off, b->len);
            return 0;
        }
        /* Predefined pairs list their two members (MPI_DOUBLE_INT: {0,8},{8,4}) even
         * when they touch; built types merge touching runs. */
        if (!(dt->flags & CORE_DT_PREDEFINED) && j > 0 &&
            dt->blocks[j - 1].off + (MPI_Aint)dt->blocks[j - 1].len == b->off) {
            snprintf(why, whylen, "%s blocks %zu and %zu touch but were not merged", dt->name,
                     j - 1, j);
            return 0;
        }
        sum += b->len;
    }
    if (sum != dt->size) {
        snprintf(why, whylen, "%s blocks hold %zu bytes, size %zu", dt->name, sum, dt->size);
        return 0;
    }
    return 1;
}

static void test_predefined(void)
{
    char why[256] = "";
    core_dt_init();
    core_dt_init(); /* idempotent */
    for (size_t k = 0; k < NPREDEF; k++) {
        const struct expect_dt *e = &predefined[k];
        MPI_Datatype dt = e->dt;
        EXPECT(strcmp(dt->name, e->name) == 0, "name %s, expected %s", dt->name, e->name);
        EXPECT(dt->size == e->size, "%s size %zu, expected %zu", e->name, dt->size, e->size);
        EXPECT(dt->lb == 0 && dt->extent == e->extent, "%s lb %ld extent %ld, expected 0 %ld",
               e->name, dt->lb, dt->extent, e->extent);
        EXPECT(dt->true_lb == 0 && dt->true_extent == e->true_extent,
               "%s true lb %ld extent %ld, expected 0 %ld", e->name, dt->true_lb,
               dt->true_extent, e->true_extent);
        EXPECT(dt->kind == e->kind && dt->basic == e->kind, "%s kind %d basic %d, expected %d",
               e->name, dt->kind, dt->basic, e->kind);
        EXPECT(dt->nbasic == e->nbasic, "%s nbasic %zu", e->name, dt->nbasic);
        unsigned want = CORE_DT_PREDEFINED | CORE_DT_COMMITTED | (e->contig ? CORE_DT_CONTIG : 0);
        EXPECT(dt->flags == want, "%s flags %#x, expected %#x", e->name, dt->flags, want);
        EXPECT(dt->refcount > 0, "%s refcount %d", e->name, dt->refcount);
        if (!why[0])
            blocks_consistent(dt, why, sizeof(why));
    }
    report("predefined", !why[0], "%s", why);

    /* The layouts the rest of the library relies on, spelled out for x86_64. */
    why[0] = '\0';
    MPI_Datatype di = MPI_DOUBLE_INT, si = MPI_SHORT_INT, ti = MPI_2INT;
    EXPECT(di->size == 12 && di->extent == 16 && di->nblocks == 2 && di->blocks[0].off == 0 &&
               di->blocks[0].len == 8 && di->blocks[1].off == 8 && di->blocks[1].len == 4,
           "MPI_DOUBLE_INT layout");
    EXPECT(si->size == 6 && si->extent == 8 && si->nblocks == 2 && si->blocks[0].off == 0 &&
               si->blocks[0].len == 2 && si->blocks[1].off == 4 && si->blocks[1].len == 4,
           "MPI_SHORT_INT layout");
    EXPECT(ti->nblocks == 1 && ti->blocks[0].len == 8 && core_dt_is_contig(ti),
           "MPI_2INT is not one contiguous block");
    EXPECT(MPI_LONG_DOUBLE_INT->size == 20 && MPI_LONG_DOUBLE_INT->extent == 32,
           "MPI_LONG_DOUBLE_INT size %zu extent %ld", MPI_LONG_DOUBLE_INT->size,
           MPI_LONG_DOUBLE_INT->extent);
    EXPECT(MPI_LONG_LONG_INT == MPI_LONG_LONG && MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX,
           "synonyms are distinct handles");
    report("pair_layout", !why[0], "%s", why);
}

static MPI_Datatype contig(int count, MPI_Datatype old)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = core_dt_contiguous(count, old, &t);
    if (rc != 0) {
        fprintf(stderr, "core_dt_contiguous(%d, %s) failed: %d\n", count, old->name, rc);
        exit(2);
    }
    return t;
}

static void test_contiguous(void)
{
    char why[256] = "";

    MPI_Datatype z = contig(0, MPI_DOUBLE_INT);
    EXPECT(z->size == 0 && z->extent == 0 && z->lb == 0 && z->true_extent == 0 &&
               z->nblocks == 0 && z->nbasic == 0 && core_dt_is_contig(z),
           "contig(0) size %zu extent %ld nblocks %zu", z->size, z->extent, z->nblocks);
    EXPECT(!(z->flags & (CORE_DT_PREDEFINED | CORE_DT_COMMITTED)), "new type flags %#x",
           z->flags);
    EXPECT(z->kind == CORE_DT_NONE, "derived kind %d", z->kind);

    MPI_Datatype i3 = contig(3, MPI_INT);
    EXPECT(i3->size == 12 && i3->extent == 12 && i3->nblocks == 1 && core_dt_is_contig(i3) &&
               i3->basic == CORE_DT_INT && i3->nbasic == 3,
           "contig(3, MPI_INT) size %zu extent %ld nblocks %zu", i3->size, i3->extent,
           i3->nblocks);

    MPI_Datatype d3 = contig(3, MPI_DOUBLE_INT);
    EXPECT(d3->size == 36 && d3->extent == 48 && d3->true_extent == 44 && d3->nblocks == 3 &&
               !core_dt_is_contig(d3) && d3->nbasic == 6 && d3->basic == CORE_DT_DOUBLE_INT,
           "contig(3, MPI_DOUBLE_INT) size %zu extent %ld true %ld nblocks %zu", d3->size,
           d3->extent, d3->true_extent, d3->nblocks);
    /* Each pair's value and index touch, so each pair is one run of 12 bytes. */
    EXPECT(d3->nblocks == 3 && d3->blocks[1].off == 16 && d3->blocks[2].off == 32 &&
               d3->blocks[2].len == 12,
           "contig(3, MPI_DOUBLE_INT) block offsets");

    /* {short@0, int@4} twice: the first int touches the second short and merges with it. */
    MPI_Datatype s2 = contig(2, MPI_SHORT_INT);
    EXPECT(s2->nblocks == 3 && s2->blocks[0].off == 0 && s2->blocks[0].len == 2 &&
               s2->blocks[1].off == 4 && s2->blocks[1].len == 6 && s2->blocks[2].off == 12 &&
               s2->blocks[2].len == 4 && s2->size == 12 && s2->extent == 16,
           "contig(2, MPI_SHORT_INT) blocks not merged as expected (%zu blocks)", s2->nblocks);

    MPI_Datatype nest = contig(2, d3);
    EXPECT(nest->size == 72 && nest->extent == 96 && nest->true_extent == 92 &&
               nest->nblocks == 6 && nest->nbasic == 12,
           "contig(2, contig(3, MPI_DOUBLE_INT)) size %zu extent %ld", nest->size, nest->extent);
    MPI_Datatype fi = contig(4, MPI_FLOAT_INT);
    EXPECT(fi->nblocks == 1 && core_dt_is_contig(fi) && fi->size == 32,
           "contig(4, MPI_FLOAT_INT) not contiguous");

    char bwhy[256] = "";
    MPI_Datatype all[] = {z, i3, d3, s2, nest, fi};
    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]) && !bwhy[0]; k++)
        blocks_consistent(all[k], bwhy, sizeof(bwhy));
    EXPECT(!bwhy[0], "%s", bwhy);

    EXPECT(core_dt_contiguous(-1, MPI_INT, &z) == CORE_ECOUNT, "negative count accepted");
    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++)
        core_dt_release(all[k]);
    report("contiguous", !why[0], "%s", why);
}

static void test_dup_refcount(void)
{
    char why[256] = "";
    MPI_Datatype d3 = contig(3, MPI_DOUBLE_INT), dup = MPI_DATATYPE_NULL, pdup = NULL;
    d3->flags |= CORE_DT_COMMITTED;
    strcpy(d3->name, "mine");
    EXPECT(core_dt_dup(d3, &dup) == 0, "dup failed");
    EXPECT(dup != d3 && dup->blocks != d3->blocks && dup->nblocks == 3 && dup->size == 36 &&
               dup->extent == 48 && (dup->flags & CORE_DT_COMMITTED) && dup->name[0] == '\0',
           "dup differs from its original");
    core_dt_release(d3); /* the dup owns its own blocks */
    EXPECT(dup->blocks[2].off == 32, "dup blocks changed after releasing the original");

    EXPECT(core_dt_dup(MPI_INT, &pdup) == 0, "dup of MPI_INT failed");
    EXPECT(!(pdup->flags & CORE_DT_PREDEFINED) && core_dt_is_contig(pdup) &&
               pdup->basic == CORE_DT_INT && pdup->kind == CORE_DT_NONE && pdup->size == 4,
           "dup of MPI_INT flags %#x", pdup->flags);
    core_dt_retain(pdup);
    core_dt_release(pdup);
    EXPECT(pdup->refcount == 1, "refcount %d after retain+release", pdup->refcount);
    core_dt_release(pdup);
    core_dt_release(dup);

    int before = MPI_INT->refcount;
    core_dt_retain(MPI_INT);
    core_dt_release(MPI_INT);
    core_dt_release(MPI_INT);
    EXPECT(MPI_INT->refcount == before, "predefined refcount changed");
    report("dup_refcount", !why[0], "%s", why);
}

/* A deterministic byte pattern distinct per (seed, index). */
static void fill(void *p, size_t n, unsigned seed)
{
    unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        c[i] = (unsigned char)(seed * 131u + i * 7u + 1u);
}

/*
 * Reference pack of count items of dt: every byte of the type's data in
 * type-map order, built from the C layout of the pair (value bytes, then
 * index bytes) rather than from the block list under test.
 */
struct pair_shape {
    MPI_Datatype dt;
    size_t vsize, ioff, extent;
};

static const struct pair_shape pairs[] = {
    {MPI_FLOAT_INT, sizeof(float), offsetof(struct float_int, i), sizeof(struct float_int)},
    {MPI_DOUBLE_INT, sizeof(double), offsetof(struct double_int, i), sizeof(struct double_int)},
    {MPI_LONG_INT, sizeof(long), offsetof(struct long_int, i), sizeof(struct long_int)},
    {MPI_2INT, sizeof(int), offsetof(struct two_int, i), sizeof(struct two_int)},
    {MPI_SHORT_INT, sizeof(short), offsetof(struct short_int, i), sizeof(struct short_int)},
    {MPI_LONG_DOUBLE_INT, sizeof(long double), offsetof(struct ldouble_int, i),
     sizeof(struct ldouble_int)},
};

static void ref_pack(unsigned char *dst, const unsigned char *src, size_t npairs,
                     const struct pair_shape *s)
{
    for (size_t k = 0; k < npairs; k++) {
        memcpy(dst, src + k * s->extent, s->vsize);
        memcpy(dst + s->vsize, src + k * s->extent + s->ioff, sizeof(int));
        dst += s->vsize + sizeof(int);
    }
}

/*
 * Packs count items of dt (made of npairs_per_item pairs of shape s), checks
 * the bytes against the reference, unpacks into a buffer filled with a
 * sentinel and checks that data bytes came back and holes kept the sentinel.
 */
static int round_trip(MPI_Datatype dt, size_t count, size_t per_item, const struct pair_shape *s,
                      char *why, size_t whylen)
{
    size_t span = count * (size_t)dt->extent + 1;
    size_t npairs = count * per_item;
    unsigned char *src = malloc(span), *dst = malloc(span);
    unsigned char *packed = malloc(dt->size * count + 1), *ref = malloc(dt->size * count + 1);
    int ok = 1;

    fill(src, span, (unsigned)count);
    core_dt_pack(packed, src, count, dt);
    ref_pack(ref, src, npairs, s);
    if (memcmp(packed, ref, dt->size * count) != 0) {
        snprintf(why, whylen, "%s x%zu: packed bytes differ", dt->name, count);
        ok = 0;
    }
    memset(dst, 0xEE, span);
    core_dt_unpack(dst, count, dt, packed, dt->size * count);
    for (size_t k = 0; k < npairs && ok; k++) {
        const unsigned char *a = src + k * s->extent, *b = dst + k * s->extent;
        for (size_t x = 0; x < s->extent; x++) {
            int data = x < s->vsize || (x >= s->ioff && x < s->ioff + sizeof(int));
            if (data ? a[x] != b[x] : b[x] != 0xEE) {
                snprintf(why, whylen, "%s x%zu: pair %zu byte %zu %s", dt->name, count, k, x,
                         data ? "not restored" : "(a hole) was written");
                ok = 0;
                break;
            }
        }
    }
    if (ok && dst[npairs * s->extent] != 0xEE && npairs * s->extent < span) {
        snprintf(why, whylen, "%s x%zu: wrote past the data", dt->name, count);
        ok = 0;
    }
    free(src);
    free(dst);
    free(packed);
    free(ref);
    return ok;
}

static void test_pack_round_trip(void)
{
    char why[256] = "";
    static const size_t counts[] = {0, 1, 7};
    for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]) && !why[0]; p++) {
        MPI_Datatype c3 = contig(3, pairs[p].dt);
        for (size_t c = 0; c < 3 && !why[0]; c++) {
            round_trip(pairs[p].dt, counts[c], 1, &pairs[p], why, sizeof(why));
            if (!why[0])
                round_trip(c3, counts[c], 3, &pairs[p], why, sizeof(why));
        }
        core_dt_release(c3);
    }
    report("pack_round_trip", !why[0], "%s", why);

    /* Plain contiguous data: one memcpy either way. */
    why[0] = '\0';
    int a[7] = {1, 2, 3, 4, 5, 6, 7}, b[7] = {0};
    unsigned char buf[sizeof(a)];
    core_dt_pack(buf, a, 7, MPI_INT);
    core_dt_unpack(b, 7, MPI_INT, buf, sizeof(buf));
    EXPECT(memcmp(a, b, sizeof(a)) == 0, "MPI_INT x7 round trip");
    report("pack_contig", !why[0], "%s", why);
}

/* Unpacking a short message fills a prefix of the items and stops mid-item. */
static void test_partial_unpack(void)
{
    char why[256] = "";
    MPI_Datatype d3 = contig(3, MPI_DOUBLE_INT);
    struct double_int src[6], dst[6];
    unsigned char packed[72];
    for (int k = 0; k < 6; k++) {
        src[k].v = k + 0.5;
        src[k].i = 100 + k;
    }
    core_dt_pack(packed, src, 2, d3);

    /* 36 + 12 + 8 bytes: item 0, pair 3, and the value of pair 4. */
    memset(dst, 0xEE, sizeof(dst));
    core_dt_unpack(dst, 2, d3, packed, 56);
    for (int k = 0; k < 4; k++)
        EXPECT(dst[k].v == src[k].v && dst[k].i == src[k].i, "pair %d not unpacked", k);
    EXPECT(dst[4].v == src[4].v, "value of pair 4 not unpacked");
    int sentinel;
    memset(&sentinel, 0xEE, sizeof(sentinel));
    EXPECT(dst[4].i == sentinel && dst[5].i == sentinel, "unpack went past 56 bytes");

    /* A length that ends inside an element: the prefix bytes land, no more. */
    memset(dst, 0xEE, sizeof(dst));
    core_dt_unpack(dst, 2, d3, packed, 15);
    EXPECT(dst[0].v == src[0].v && dst[0].i == src[0].i, "pair 0 not unpacked");
    EXPECT(memcmp(&dst[1].v, &src[1].v, 3) == 0 && ((unsigned char *)&dst[1].v)[3] == 0xEE,
           "mid-element stop at 15 bytes");

    /* Longer than the items: only count items are written. */
    memset(dst, 0xEE, sizeof(dst));
    core_dt_unpack(dst, 1, d3, packed, sizeof(packed));
    EXPECT(dst[2].i == src[2].i && dst[3].i == sentinel, "unpack past count items");

    /* Contiguous fast path, partial. */
    int a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0};
    core_dt_unpack(b, 4, MPI_INT, a, 10);
    EXPECT(b[0] == 1 && b[1] == 2 && b[3] == 0 && memcmp(&b[2], &a[2], 2) == 0,
           "contiguous partial unpack");
    core_dt_release(d3);
    report("partial_unpack", !why[0], "%s", why);
}

static void test_elements(void)
{
    char why[256] = "";
    static const struct {
        size_t nbytes;
        MPI_Count want;
    } di[] = {{0, 0}, {4, MPI_UNDEFINED}, {8, 1}, {10, MPI_UNDEFINED}, {12, 2},
              {20, 3}, {24, 4}, {36, 6}, {44, 7}, {45, MPI_UNDEFINED}};
    for (size_t k = 0; k < sizeof(di) / sizeof(di[0]); k++) {
        MPI_Count got = core_dt_elements(MPI_DOUBLE_INT, di[k].nbytes);
        EXPECT(got == di[k].want, "MPI_DOUBLE_INT %zu bytes: %lld elements, expected %lld",
               di[k].nbytes, got, di[k].want);
    }
    EXPECT(core_dt_elements(MPI_SHORT_INT, 2) == 1 && core_dt_elements(MPI_SHORT_INT, 6) == 2 &&
               core_dt_elements(MPI_SHORT_INT, 4) == MPI_UNDEFINED,
           "MPI_SHORT_INT element counts");
    EXPECT(core_dt_elements(MPI_2INT, 4) == 1 && core_dt_elements(MPI_2INT, 12) == 3,
           "MPI_2INT element counts");
    EXPECT(core_dt_elements(MPI_INT, 12) == 3 && core_dt_elements(MPI_INT, 13) == MPI_UNDEFINED,
           "MPI_INT element counts");
    EXPECT(core_dt_elements(MPI_C_DOUBLE_COMPLEX, 32) == 2 &&
               core_dt_elements(MPI_C_DOUBLE_COMPLEX, 8) == MPI_UNDEFINED,
           "complex element counts");
    EXPECT(core_dt_elements(MPI_BYTE, 5) == 5, "MPI_BYTE element counts");

    MPI_Datatype d3 = contig(3, MPI_DOUBLE_INT), i4 = contig(4, MPI_INT), z = contig(0, MPI_INT);
    EXPECT(core_dt_elements(d3, 36) == 6 && core_dt_elements(d3, 44) == 7 &&
               core_dt_elements(d3, 72) == 12 && core_dt_elements(d3, 40) == MPI_UNDEFINED,
           "contig(3, MPI_DOUBLE_INT) element counts");
    EXPECT(core_dt_elements(i4, 20) == 5 && core_dt_elements(i4, 22) == MPI_UNDEFINED,
           "contig(4, MPI_INT) element counts");
    EXPECT(core_dt_elements(z, 0) == 0, "size-0 type element count");
    core_dt_release(d3);
    core_dt_release(i4);
    core_dt_release(z);
    report("elements", !why[0], "%s", why);
}

/* Builds the type of pieces p[0..n) or reports why not. */
static MPI_Datatype pieces(size_t n, const core_dt_piece_t *p, int pad)
{
    MPI_Datatype t = NULL;
    int rc = core_dt_pieces(n, p, pad, &t);
    if (rc != 0) {
        fprintf(stderr, "core_dt_pieces(%zu pieces) failed: %d\n", n, rc);
        exit(1);
    }
    return t;
}

/* Pieces: runs merged across pieces, element kinds, alignment padding, resized bounds. */
static void test_pieces(void)
{
    char why[256] = "";
    /* Two pieces that touch are one run: the type is contiguous. */
    MPI_Datatype t = pieces(2, (core_dt_piece_t[]){{2, 0, MPI_INT}, {3, 8, MPI_INT}}, 0);
    EXPECT(t->nblocks == 1 && t->blocks[0].len == 20 && core_dt_is_contig(t) && t->size == 20 &&
               t->basic == CORE_DT_INT && t->nbasic == 5,
           "touching pieces: %zu blocks, contig %d, basic %d", t->nblocks, core_dt_is_contig(t),
           (int)t->basic);
    core_dt_release(t);

    /* Out of order pieces keep type-map order; bounds cover both; empty pieces add nothing. */
    t = pieces(3, (core_dt_piece_t[]){{1, 16, MPI_DOUBLE}, {0, -64, MPI_INT}, {1, 0, MPI_DOUBLE}},
               0);
    EXPECT(t->nblocks == 2 && t->blocks[0].off == 16 && t->blocks[1].off == 0 && t->lb == 0 &&
               t->extent == 24 && t->true_lb == 0 && t->true_extent == 24 && !core_dt_is_contig(t),
           "out-of-order pieces: %zu blocks, first at %ld, lb %ld extent %ld", t->nblocks,
           (long)t->blocks[0].off, (long)t->lb, (long)t->extent);
    core_dt_release(t);

    /* Mixed element kinds: no basic kind; padding to the double's alignment when asked. */
    core_dt_piece_t mixed[] = {{1, 0, MPI_DOUBLE}, {1, 8, MPI_CHAR}};
    t = pieces(2, mixed, 1);
    EXPECT(t->basic == CORE_DT_NONE && t->nbasic == 2 && t->size == 9 && t->extent == 16 &&
               t->true_extent == 9 && t->align == _Alignof(double),
           "padded struct: basic %d size %zu extent %ld align %zu", (int)t->basic, t->size,
           (long)t->extent, t->align);
    MPI_Datatype unpadded = pieces(2, mixed, 0);
    EXPECT(unpadded->extent == 9, "unpadded extent %ld", (long)unpadded->extent);
    core_dt_release(unpadded);

    /* Resized: bounds replaced, data kept; a struct of it is not padded again. */
    MPI_Datatype r = NULL;
    EXPECT(core_dt_resized(t, -4, 12, &r) == 0, "resized failed");
    if (r) {
        EXPECT(r->lb == -4 && r->extent == 12 && r->true_extent == 9 && r->size == 9 &&
                   (r->flags & CORE_DT_MARKED) && !core_dt_is_contig(r),
               "resized: lb %ld extent %ld", (long)r->lb, (long)r->extent);
        MPI_Datatype s = pieces(1, (core_dt_piece_t[]){{2, 0, r}}, 1);
        EXPECT(s->lb == -4 && s->extent == 24 && s->size == 18 && s->nblocks == 2,
               "struct of resized: lb %ld extent %ld blocks %zu", (long)s->lb, (long)s->extent,
               s->nblocks);
        core_dt_release(s);
        core_dt_release(r);
    }
    /* Resizing MPI_INT to its own bounds keeps it contiguous. */
    EXPECT(core_dt_resized(MPI_INT, 0, sizeof(int), &r) == 0 && core_dt_is_contig(r),
           "resized MPI_INT not contiguous");
    core_dt_release(r);
    core_dt_release(t);

    /* A negative stride: bounds from the lowest item. */
    t = pieces(3, (core_dt_piece_t[]){{1, 0, MPI_INT}, {1, -8, MPI_INT}, {1, -16, MPI_INT}}, 0);
    EXPECT(t->lb == -16 && t->extent == 20 && t->nblocks == 3, "negative stride: lb %ld extent %ld",
           (long)t->lb, (long)t->extent);
    int src[5] = {1, 2, 3, 4, 5}, out[3];
    core_dt_pack(out, src + 4, 1, t);
    EXPECT(out[0] == 5 && out[1] == 3 && out[2] == 1, "negative stride pack %d %d %d", out[0],
           out[1], out[2]);
    core_dt_release(t);

    /* Displacements that overflow are refused. */
    EXPECT(core_dt_pieces(1, (core_dt_piece_t[]){{4, PTRDIFF_MAX - 8, MPI_INT}}, 0, &t) ==
               CORE_EINVAL, "overflowing displacement accepted");
    report("pieces", !why[0], "%s", why);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_predefined();
    test_contiguous();
    test_dup_refcount();
    test_pack_round_trip();
    test_partial_unpack();
    test_elements();
    test_pieces();
    return failures ? 1 : 0;
}
