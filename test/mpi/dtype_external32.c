/*
 * dtype_external32: MPI_Pack_external / Unpack_external / Pack_external_size
 * with "external32" (MPI-3.1 13.5.2). For every predefined C type a value is
 * packed and the bytes compared with the image written out here from the
 * standard's rules (big-endian two's complement integers, IEEE floating
 * point, the sizes of table 13.2: MPI_LONG 4 bytes, MPI_WCHAR 2,
 * MPI_LONG_DOUBLE 16 as binary128); then unpacked and compared with the
 * value. Derived types (a struct with padding and mixed kinds, a vector,
 * a pair type, an indexed type of the struct) pack to the concatenation of
 * their elements' images, and round-trip. position accumulates over calls;
 * a short buffer and an unknown representation are errors.
 *
 * MPI_LONG, MPI_UNSIGNED_LONG, MPI_WCHAR and MPI_LONG_DOUBLE are checked
 * only under rdmpi (#ifdef RDMPI): Open MPI 4.1 packs MPI_LONG in 4 bytes
 * while MPI_Pack_external_size says 8, MPI_WCHAR in 4 and long double as
 * its native bytes reversed, none of which is the standard's external32.
 */
#include <complex.h>
#include <stddef.h>
#include <wchar.h>
#include "check.h"

static const char *rep = "external32";

/* Packs count items of dt from buf; compares with image (n bytes); unpacks
 * into back and compares with buf over cmp bytes. */
static void one(const char *what, const void *buf, int count, MPI_Datatype dt,
                const unsigned char *image, int n, void *back, size_t cmp)
{
    t_begin(what);
    unsigned char out[256];
    MPI_Aint size = -1, pos = 0;
    MPI_OK(MPI_Pack_external_size(rep, count, dt, &size));
    CHECK(size == n, "external32 size %ld, want %d", (long)size, n);
    memset(out, 0xee, sizeof(out));
    MPI_OK(MPI_Pack_external(rep, buf, count, dt, out, sizeof(out), &pos));
    CHECK(pos == n, "position %ld after packing, want %d", (long)pos, n);
    for (int i = 0; i < n; i++)
        CHECK(out[i] == image[i], "byte %d is %02x, want %02x", i, out[i], image[i]);
    CHECK(out[n] == 0xee, "byte %d past the end written", n);
    MPI_Aint upos = 0;
    MPI_OK(MPI_Unpack_external(rep, out, pos, &upos, back, count, dt));
    CHECK(upos == n, "position %ld after unpacking, want %d", (long)upos, n);
    CHECK(memcmp(back, buf, cmp) == 0, "the value did not come back");
}

#define ONE(name, T, dt, val, ...)                                                        \
    do {                                                                                  \
        T v_ = (val), b_;                                                                 \
        memset(&b_, 0, sizeof(b_));                                                       \
        static const unsigned char img_[] = { __VA_ARGS__ };                              \
        one(name, &v_, 1, dt, img_, (int)sizeof(img_), &b_, sizeof(T));                   \
    } while (0)

#define LD(name, val, ...)                                                                \
    do {                                                                                  \
        long double v_, b_;                                                               \
        memset(&v_, 0, sizeof(v_));                                                       \
        memset(&b_, 0, sizeof(b_));                                                       \
        v_ = (val);                                                                       \
        static const unsigned char img_[] = { __VA_ARGS__ };                              \
        one(name, &v_, 1, MPI_LONG_DOUBLE, img_, (int)sizeof(img_), &b_, 0);              \
        CHECK(b_ == v_, "%Lg came back as %Lg", v_, b_);                                  \
    } while (0)

static void test_predefined(void)
{
    ONE("char", char, MPI_CHAR, 'A', 0x41);
    ONE("signed char", signed char, MPI_SIGNED_CHAR, -2, 0xfe);
    ONE("unsigned char", unsigned char, MPI_UNSIGNED_CHAR, 0xab, 0xab);
    ONE("byte", unsigned char, MPI_BYTE, 0x5c, 0x5c);
    ONE("short", short, MPI_SHORT, -2, 0xff, 0xfe);
    ONE("unsigned short", unsigned short, MPI_UNSIGNED_SHORT, 0x1234, 0x12, 0x34);
    ONE("int", int, MPI_INT, 0x01020304, 0x01, 0x02, 0x03, 0x04);
    ONE("int negative", int, MPI_INT, -5, 0xff, 0xff, 0xff, 0xfb);
    ONE("unsigned", unsigned, MPI_UNSIGNED, 0xdeadbeefu, 0xde, 0xad, 0xbe, 0xef);
    ONE("long long", long long, MPI_LONG_LONG, -2LL, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xfe);
    ONE("unsigned long long", unsigned long long, MPI_UNSIGNED_LONG_LONG, 0x0102030405060708ull,
        1, 2, 3, 4, 5, 6, 7, 8);
    ONE("float", float, MPI_FLOAT, -2.0f, 0xc0, 0x00, 0x00, 0x00);
    ONE("double", double, MPI_DOUBLE, 1.5, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0);
    ONE("C bool", _Bool, MPI_C_BOOL, 1, 0x01);
    ONE("int8", int8_t, MPI_INT8_T, -128, 0x80);
    ONE("int16", int16_t, MPI_INT16_T, 0x0102, 0x01, 0x02);
    ONE("int32", int32_t, MPI_INT32_T, -256, 0xff, 0xff, 0xff, 0x00);
    ONE("int64", int64_t, MPI_INT64_T, 0x1122334455667788ll, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
        0x77, 0x88);
    ONE("uint8", uint8_t, MPI_UINT8_T, 200, 200);
    ONE("uint16", uint16_t, MPI_UINT16_T, 0xfffe, 0xff, 0xfe);
    ONE("uint32", uint32_t, MPI_UINT32_T, 7, 0, 0, 0, 7);
    ONE("uint64", uint64_t, MPI_UINT64_T, 1, 0, 0, 0, 0, 0, 0, 0, 1);
    ONE("aint", MPI_Aint, MPI_AINT, 0x100, 0, 0, 0, 0, 0, 0, 1, 0);
    ONE("offset", MPI_Offset, MPI_OFFSET, -1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
    ONE("count", MPI_Count, MPI_COUNT, 3, 0, 0, 0, 0, 0, 0, 0, 3);
    ONE("float complex", float _Complex, MPI_C_FLOAT_COMPLEX, 1.0f + 2.0f * I, 0x3f, 0x80, 0,
        0, 0x40, 0x00, 0, 0);
    ONE("double complex", double _Complex, MPI_C_DOUBLE_COMPLEX, -1.0 + 0.5 * I, 0xbf, 0xf0,
        0, 0, 0, 0, 0, 0, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0);
    ONE("cxx bool", _Bool, MPI_CXX_BOOL, 1, 0x01);
    ONE("cxx float complex", float _Complex, MPI_CXX_FLOAT_COMPLEX, -2.0f, 0xc0, 0, 0, 0, 0, 0,
        0, 0);
    ONE("cxx double complex", double _Complex, MPI_CXX_DOUBLE_COMPLEX, 2.0 * I, 0, 0, 0, 0, 0,
        0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0);
    struct { float v; int i; } fi = { 0.5f, 3 }, fib;
    static const unsigned char fi_img[] = { 0x3f, 0, 0, 0, 0, 0, 0, 3 };
    one("float_int", &fi, 1, MPI_FLOAT_INT, fi_img, 8, &fib, sizeof(fi));
    struct { double v; int i; } di = { -2.0, 9 }, dib;
    memset(&dib, 0, sizeof(dib));
    static const unsigned char di_img[] = { 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9 };
    one("double_int", &di, 1, MPI_DOUBLE_INT, di_img, 12, &dib, 12);
    int ii[2] = { 1, -1 }, iib[2];
    static const unsigned char ii_img[] = { 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff };
    one("2int", ii, 1, MPI_2INT, ii_img, 8, iib, sizeof(ii));
    struct { short v; int i; } si = { 0x0102, 0x03040506 }, sib;
    memset(&sib, 0, sizeof(sib));
    static const unsigned char si_img[] = { 1, 2, 3, 4, 5, 6 };
    one("short_int", &si, 1, MPI_SHORT_INT, si_img, 6, &sib, 2);
    CHECK(sib.i == si.i, "short_int index %x", sib.i);
#ifdef RDMPI
    ONE("long", long, MPI_LONG, -3L, 0xff, 0xff, 0xff, 0xfd);
    ONE("unsigned long", unsigned long, MPI_UNSIGNED_LONG, 0x89abcdefUL, 0x89, 0xab, 0xcd, 0xef);
    ONE("wchar", wchar_t, MPI_WCHAR, L'\x263a', 0x26, 0x3a);
    /* binary128: sign, 15-bit exponent (bias 16383), 112-bit fraction */
    /* (the round trip compares the significant bytes: x87's 80 bits) */
    LD("long double", 1.5L, 0x3f, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    LD("long double -0.375", -0.375L, 0xbf, 0xfd, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    t_begin("long double round trip");
    long double lds[4] = { 1.0L / 3.0L, -1e4000L, 0.0L, 6.5e-4940L }, ldb[4];
    unsigned char buf[64];
    MPI_Aint pos = 0, upos = 0;
    MPI_OK(MPI_Pack_external(rep, lds, 4, MPI_LONG_DOUBLE, buf, sizeof(buf), &pos));
    MPI_OK(MPI_Unpack_external(rep, buf, pos, &upos, ldb, 4, MPI_LONG_DOUBLE));
    for (int i = 0; i < 4; i++)
        CHECK(ldb[i] == lds[i], "long double %d: %Lg came back as %Lg", i, lds[i], ldb[i]);
    /* a long out of the 4-byte range keeps its low bytes (MPI-3.1 13.5.2) */
    t_begin("long truncated");
    long big = 0x123456789L;
    pos = 0;
    MPI_OK(MPI_Pack_external(rep, &big, 1, MPI_LONG, buf, sizeof(buf), &pos));
    CHECK(pos == 4 && buf[0] == 0x23 && buf[3] == 0x89, "long 0x123456789 packed to %ld bytes",
          (long)pos);
#endif
}

struct rec {
    char c;
    int i;
    double d;
    short s[2];
};

static MPI_Datatype rec_type(void)
{
    int bl[4] = { 1, 1, 1, 2 };
    MPI_Aint disp[4] = { offsetof(struct rec, c), offsetof(struct rec, i),
                         offsetof(struct rec, d), offsetof(struct rec, s) };
    MPI_Datatype types[4] = { MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_SHORT }, t, r;
    MPI_OK(MPI_Type_create_struct(4, bl, disp, types, &t));
    MPI_OK(MPI_Type_create_resized(t, 0, sizeof(struct rec), &r));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_commit(&r));
    return r;
}

static void test_derived(void)
{
    MPI_Datatype rt = rec_type();
    struct rec a[3] = { { 'x', 1, 2.0, { 3, -4 } }, { 'y', -1, -0.5, { 0x102, 7 } },
                        { 'z', 256, 0.25, { -1, 1 } } }, b[3];
    static const unsigned char img[] = {
        'x', 0, 0, 0, 1, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xfc,
        'y', 0xff, 0xff, 0xff, 0xff, 0xbf, 0xe0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 7,
        'z', 0, 0, 1, 0, 0x3f, 0xd0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 1,
    };
    memset(b, 0, sizeof(b));
    t_begin("struct");
    unsigned char out[128];
    MPI_Aint size, pos = 0, upos = 0;
    MPI_OK(MPI_Pack_external_size(rep, 3, rt, &size));
    CHECK(size == 51, "struct x3: external32 size %ld, want 51", (long)size);
    MPI_OK(MPI_Pack_external(rep, a, 3, rt, out, sizeof(out), &pos));
    CHECK(pos == 51, "struct x3: packed %ld bytes", (long)pos);
    for (int i = 0; i < 51; i++)
        CHECK(out[i] == img[i], "struct x3: byte %d is %02x, want %02x", i, out[i], img[i]);
    MPI_OK(MPI_Unpack_external(rep, out, pos, &upos, b, 3, rt));
    for (int k = 0; k < 3; k++)
        CHECK(b[k].c == a[k].c && b[k].i == a[k].i && b[k].d == a[k].d && b[k].s[0] == a[k].s[0] &&
                  b[k].s[1] == a[k].s[1],
              "struct %d came back different", k);

    /* an indexed type of the struct: items 2 and 0, in that order */
    t_begin("indexed of struct");
    int bl[2] = { 1, 1 }, dsp[2] = { 2, 0 };
    MPI_Datatype it;
    MPI_OK(MPI_Type_indexed(2, bl, dsp, rt, &it));
    MPI_OK(MPI_Type_commit(&it));
    pos = 0;
    MPI_OK(MPI_Pack_external(rep, a, 1, it, out, sizeof(out), &pos));
    CHECK(pos == 34, "indexed: %ld bytes", (long)pos);
    CHECK(memcmp(out, img + 34, 17) == 0 && memcmp(out + 17, img, 17) == 0,
          "indexed: not items 2 then 0");
    memset(b, 0, sizeof(b));
    upos = 0;
    MPI_OK(MPI_Unpack_external(rep, out, pos, &upos, b, 1, it));
    CHECK(b[2].i == 256 && b[0].d == 2.0 && b[1].i == 0, "indexed: unpacked to the wrong places");
    MPI_OK(MPI_Type_free(&it));
    MPI_OK(MPI_Type_free(&rt));

    /* a vector of shorts: every other one */
    t_begin("vector");
    short sv[6] = { 1, 2, 3, 4, 5, 6 }, sb[6] = { 0 };
    MPI_Datatype vt;
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_SHORT, &vt));
    MPI_OK(MPI_Type_commit(&vt));
    static const unsigned char vimg[] = { 0, 1, 0, 3, 0, 5 };
    pos = 0;
    MPI_OK(MPI_Pack_external(rep, sv, 1, vt, out, sizeof(out), &pos));
    CHECK(pos == 6 && memcmp(out, vimg, 6) == 0, "vector: wrong image (%ld bytes)", (long)pos);
    upos = 0;
    MPI_OK(MPI_Unpack_external(rep, out, pos, &upos, sb, 1, vt));
    CHECK(sb[0] == 1 && sb[1] == 0 && sb[2] == 3 && sb[4] == 5, "vector: unpacked wrong");
    MPI_OK(MPI_Type_free(&vt));
}

static void test_position_and_errors(void)
{
    t_begin("position");
    unsigned char out[16];
    int x = 0x0a0b0c0d;
    short y = 0x0e0f;
    MPI_Aint pos = 0;
    MPI_OK(MPI_Pack_external(rep, &x, 1, MPI_INT, out, sizeof(out), &pos));
    MPI_OK(MPI_Pack_external(rep, &y, 1, MPI_SHORT, out, sizeof(out), &pos));
    CHECK(pos == 6 && out[0] == 0x0a && out[3] == 0x0d && out[4] == 0x0e && out[5] == 0x0f,
          "two packs: position %ld", (long)pos);
    int x2;
    short y2;
    MPI_Aint upos = 0;
    MPI_OK(MPI_Unpack_external(rep, out, pos, &upos, &x2, 1, MPI_INT));
    MPI_OK(MPI_Unpack_external(rep, out, pos, &upos, &y2, 1, MPI_SHORT));
    CHECK(x2 == x && y2 == y && upos == 6, "two unpacks");

    t_begin("errors");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int ints[8] = { 0 };
    pos = 0;
    int rc = MPI_Pack_external(rep, ints, 8, MPI_INT, out, sizeof(out), &pos);
    CHECK(rc != MPI_SUCCESS && pos == 0, "32 bytes packed into 16");
#ifdef RDMPI /* Open MPI 4.1 ignores the representation argument */
    pos = 0;
    rc = MPI_Pack_external("native", ints, 1, MPI_INT, out, sizeof(out), &pos);
    CHECK(rc != MPI_SUCCESS, "representation \"native\" accepted");
#endif
    upos = 0;
    rc = MPI_Unpack_external(rep, out, 6, &upos, ints, 2, MPI_INT);
    CHECK(rc != MPI_SUCCESS, "8 bytes unpacked from 6");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* external32 is meant to travel: rank 0 packs, the others unpack. */
static void test_message(void)
{
    t_begin("message");
    double v[4] = { 1.0, -2.5, 1e300, 0.125 }, w[4];
    unsigned char buf[32];
    MPI_Aint pos = 0;
    if (t_rank == 0) {
        MPI_OK(MPI_Pack_external(rep, v, 4, MPI_DOUBLE, buf, sizeof(buf), &pos));
        for (int r = 1; r < t_size; r++)
            MPI_OK(MPI_Send(buf, (int)pos, MPI_BYTE, r, 3, MPI_COMM_WORLD));
    } else {
        MPI_OK(MPI_Recv(buf, 32, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Unpack_external(rep, buf, 32, &pos, w, 4, MPI_DOUBLE));
        CHECK(memcmp(v, w, sizeof(v)) == 0 && buf[0] == 0x3f && buf[1] == 0xf0,
              "doubles from rank 0 came wrong");
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_predefined();
    test_derived();
    test_position_and_errors();
    test_message();
    t_finish();
    if (t_rank == 0)
        printf("dtype_external32: OK\n");
    return 0;
}
