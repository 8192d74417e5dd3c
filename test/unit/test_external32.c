/*
 * Unit test of src/core/external32.c (and the layout of src/core/darray.c):
 * edge values of the conversions the MPI tests cannot reach portably —
 * long double infinity, NaN, negative zero, the largest and a subnormal
 * value, as binary128 images and round trips; 4-byte MPI_LONG values
 * sign-extended on the way back, MPI_UNSIGNED_LONG and MPI_WCHAR
 * zero-extended; a struct of mixed kinds walked through its constructor
 * record, and refused (CORE_ETYPE) without one.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "core/datatype.h"
#include "core/errors.h"
#include "core/external32.h"

static int failures;

static void report(const char *name, int ok, const char *fmt, ...)
{
    if (ok) {
        printf("PASS: unit/external32/%s\n", name);
        return;
    }
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    printf("FAIL: unit/external32/%s %s\n", name, detail);
    failures++;
}

/* Encodes one long double; compares the image's first 4 bytes and the round trip. */
static void ld_case(const char *name, long double v, unsigned hi32)
{
    unsigned char ext[16];
    long double back = 0;
    core_x32_encode(MPI_LONG_DOUBLE, 1, &v, ext);
    core_x32_decode(MPI_LONG_DOUBLE, 1, ext, &back);
    unsigned got = (unsigned)ext[0] << 24 | ext[1] << 16 | ext[2] << 8 | ext[3];
    int same = isnan(v) ? isnan(back) : back == v && signbit(back) == signbit(v);
    report(name, got == hi32 && same, "image starts %08x (want %08x), round trip %s", got, hi32,
           same ? "ok" : "differs");
}

static void test_long_double(void)
{
    ld_case("ldouble_inf", (long double)INFINITY, 0x7fff0000);
    ld_case("ldouble_minus_inf", -(long double)INFINITY, 0xffff0000);
    ld_case("ldouble_nan", (long double)NAN, 0x7fff8000);
    ld_case("ldouble_minus_zero", -0.0L, 0x80000000);
    ld_case("ldouble_one", 1.0L, 0x3fff0000);
    ld_case("ldouble_max", LDBL_MAX, 0x7ffeffff);
#if LDBL_MANT_DIG == 64
    ld_case("ldouble_subnormal", LDBL_MIN / 4, 0x00004000); /* 0.01b x 2^-16382 */
#endif
}

static void int_case(const char *name, MPI_Datatype dt, const void *v, size_t nat,
                     const unsigned char *img, size_t ext, const void *want)
{
    unsigned char out[16], back[16];
    memset(back, 0x55, sizeof(back));
    size_t size = 0;
    core_x32_size(dt, 1, &size);
    core_x32_encode(dt, 1, v, out);
    core_x32_decode(dt, 1, out, back);
    report(name, size == ext && !memcmp(out, img, ext) && !memcmp(back, want, nat),
           "size %zu, image or round trip wrong", size);
}

static void test_integers(void)
{
    long l = -2, lw = -2;
    static const unsigned char limg[] = { 0xff, 0xff, 0xff, 0xfe };
    int_case("long_negative", MPI_LONG, &l, sizeof(long), limg, 4, &lw);
    long big = 0x180000000L, bigw = -0x80000000L; /* low 4 bytes 80000000, sign-extended */
    static const unsigned char bimg[] = { 0x80, 0, 0, 0 };
    int_case("long_truncated", MPI_LONG, &big, sizeof(long), bimg, 4, &bigw);
    unsigned long ul = 0xfffffffful, ulw = 0xfffffffful;
    static const unsigned char uimg[] = { 0xff, 0xff, 0xff, 0xff };
    int_case("ulong_zero_extended", MPI_UNSIGNED_LONG, &ul, sizeof(ul), uimg, 4, &ulw);
    wchar_t w = 0xfffe, ww = 0xfffe;
    static const unsigned char wimg[] = { 0xff, 0xfe };
    int_case("wchar", MPI_WCHAR, &w, sizeof(w), wimg, 2, &ww);
    struct { long v; int i; } li = { -7, 9 };
    static const unsigned char liimg[] = { 0xff, 0xff, 0xff, 0xf9, 0, 0, 0, 9 };
    unsigned char packed[16], out[8];
    core_dt_pack(packed, &li, 1, MPI_LONG_INT);
    core_x32_encode(MPI_LONG_INT, 1, packed, out);
    report("long_int", !memcmp(out, liimg, 8), "image wrong");
}

static void test_struct(void)
{
    /* {char, double} at offsets 0 and 8, by pieces (no record: refused) */
    core_dt_piece_t p[2] = { { 1, 0, MPI_CHAR }, { 1, 8, MPI_DOUBLE } };
    MPI_Datatype t;
    int rc = core_dt_pieces(2, p, 1, &t);
    size_t size = 0;
    int r2 = core_x32_size(t, 1, &size);
    report("struct_without_record", rc == 0 && r2 == CORE_ETYPE, "rc %d, size rc %d", rc, r2);
    int bl[3] = { 2, 1, 1 }; /* the struct's ints: count, then the block lengths */
    MPI_Aint disp[2] = { 0, 8 };
    MPI_Datatype types[2] = { MPI_CHAR, MPI_DOUBLE };
    core_dt_set_args(t, MPI_COMBINER_STRUCT, 3, bl, 2, disp, 2, types);
    r2 = core_x32_size(t, 3, &size);
    struct { char c; double d; } a[3] = { { 'a', 1.0 }, { 'b', -2.0 }, { 'c', 0.5 } }, b[3];
    unsigned char packed[27], ext[27], back[27];
    core_dt_pack(packed, a, 3, t);
    core_x32_encode(t, 3, packed, ext);
    core_x32_decode(t, 3, ext, back);
    memset(b, 0, sizeof(b));
    core_dt_unpack(b, 3, t, back, sizeof(back));
    report("struct_with_record",
           r2 == 0 && size == 27 && ext[0] == 'a' && ext[1] == 0x3f && ext[2] == 0xf0 &&
               ext[9] == 'b' && ext[10] == 0xc0 && b[1].d == -2.0 && b[2].c == 'c',
           "size rc %d size %zu", r2, size);
    core_dt_release(t);
}

int main(void)
{
    test_long_double();
    test_integers();
    test_struct();
    return failures ? 1 : 0;
}
