/*
 * The "external32" data representation in file views: what reaches the file
 * is every element big-endian (IEEE for floating point), checked byte by
 * byte through a native MPI_BYTE view, and reading through an external32
 * view gives the values back. Collective access through a strided filetype
 * of MPI_INT (collective buffering), independent access with a derived
 * memory type (a struct of int, double and short: 14 bytes per item in the
 * file, in type-map order), MPI_File_get_type_extent's external32 sizes,
 * and types whose elements change size in external32 (MPI_LONG) refused
 * with MPI_ERR_UNSUPPORTED_DATAREP.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "io_check.h"

#define BLK 100     /* ints per block */
#define NB 30       /* blocks per rank */

static int val(int r, int i)
{
    return (r + 1) * 0x01020304 - i * 7919;   /* negative ones too, all bytes busy */
}

static void be(unsigned char *out, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

/* The file's bytes at off..off+n through a native byte view (independent read). */
static void raw(MPI_File fh, MPI_Offset off, unsigned char *b, int n)
{
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_Status st;
    MPI_OK(MPI_File_read_at(fh, off, b, n, MPI_BYTE, &st));
    int got;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
    CHECK(got == n, "read %d raw bytes, want %d", got, n);
}

static void strided_ints(MPI_File fh)
{
    t_begin("collective strided ints");
    MPI_Datatype vec, ft;
    MPI_OK(MPI_Type_vector(NB, BLK, BLK * t_size, MPI_INT, &vec));
    MPI_OK(MPI_Type_create_resized(vec, 0, (MPI_Aint)NB * BLK * t_size * 4, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)t_rank * BLK * 4, MPI_INT, ft, "external32",
                             MPI_INFO_NULL));
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset d;
    MPI_Datatype e, f;
    MPI_OK(MPI_File_get_view(fh, &d, &e, &f, rep));
    CHECK(!strcmp(rep, "external32"), "get_view says \"%s\"", rep);
    if (f != MPI_INT && f != ft)
        MPI_Type_free(&f);
    int n = NB * BLK, *w = malloc((size_t)n * sizeof(int)), *r = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++)
        w[i] = val(t_rank, i);
    int *keep = malloc((size_t)n * sizeof(int));
    memcpy(keep, w, (size_t)n * sizeof(int));
    MPI_OK(MPI_File_write_at_all(fh, 0, w, n, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(memcmp(w, keep, (size_t)n * sizeof(int)) == 0, "the write changed the buffer");
    MPI_OK(MPI_File_sync(fh));
    t_sync();
    MPI_OK(MPI_File_sync(fh));
    /* every rank checks the whole file: rank q's int i is at block i / BLK of round q */
    long total = (long)NB * BLK * t_size * 4;
    unsigned char *b = malloc((size_t)total), x[4];
    raw(fh, 0, b, (int)total);
    for (int q = 0; q < t_size; q++)
        for (int i = 0; i < n; i++) {
            long off = ((long)(i / BLK) * t_size + q) * BLK * 4 + (i % BLK) * 4;
            be(x, (uint32_t)val(q, i), 4);
            CHECK(memcmp(b + off, x, 4) == 0,
                  "rank %d's int %d at byte %ld: %02x%02x%02x%02x, want %02x%02x%02x%02x", q, i,
                  off, b[off], b[off + 1], b[off + 2], b[off + 3], x[0], x[1], x[2], x[3]);
        }
    /* and back through the external32 view, collectively and independently */
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)t_rank * BLK * 4, MPI_INT, ft, "external32",
                             MPI_INFO_NULL));
    MPI_OK(MPI_File_read_at_all(fh, 0, r, n, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(r[i] == val(t_rank, i), "read_at_all: int %d is %d, want %d", i, r[i],
              val(t_rank, i));
    memset(r, 0, (size_t)n * sizeof(int));
    MPI_OK(MPI_File_read_at(fh, BLK, r, n - BLK, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < n - BLK; i++)
        CHECK(r[i] == val(t_rank, i + BLK), "read_at: int %d is %d", i, r[i]);
    MPI_Aint ext;
    MPI_OK(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
    CHECK(ext == 4, "external32 extent of MPI_LONG: %ld, want 4", (long)ext);
    MPI_OK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    CHECK(ext == 8, "external32 extent of MPI_DOUBLE: %ld", (long)ext);
    free(b);
    free(w);
    free(r);
    free(keep);
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_Type_free(&vec));
    t_sync();
}

typedef struct item {
    int a;
    double d;
    short s;
} item_t;

#define K 50   /* items per rank */
#define X 14   /* their external32 size */

static void derived_memory(MPI_File fh)
{
    t_begin("independent struct items");
    int bl[3] = { 1, 1, 1 };
    MPI_Aint dsp[3] = { offsetof(item_t, a), offsetof(item_t, d), offsetof(item_t, s) };
    MPI_Datatype ty[3] = { MPI_INT, MPI_DOUBLE, MPI_SHORT }, st0, st;
    MPI_OK(MPI_Type_create_struct(3, bl, dsp, ty, &st0));
    MPI_OK(MPI_Type_create_resized(st0, 0, sizeof(item_t), &st));
    MPI_OK(MPI_Type_commit(&st));
    item_t w[K], r[K];
    memset(w, 0, sizeof(w));
    for (int i = 0; i < K; i++) {
        w[i].a = val(t_rank, i);
        w[i].d = (t_rank + 1) * 1.0e10 / (i + 3) - i;
        w[i].s = (short)(-t_rank * 1000 - i);
    }
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    MPI_Status stt;
    MPI_OK(MPI_File_write_at(fh, (MPI_Offset)t_rank * K * X, w, K, st, &stt));
    int cnt;
    MPI_OK(MPI_Get_count(&stt, st, &cnt));
    CHECK(cnt == K, "wrote %d items", cnt);
    t_sync();
    unsigned char b[K * X], x[8];
    raw(fh, (MPI_Offset)t_rank * K * X, b, K * X);
    for (int i = 0; i < K; i++) {
        const unsigned char *p = b + i * X;
        uint64_t dbits;
        memcpy(&dbits, &w[i].d, 8);
        be(x, (uint32_t)w[i].a, 4);
        CHECK(memcmp(p, x, 4) == 0, "item %d: the int's bytes", i);
        be(x, dbits, 8);
        CHECK(memcmp(p + 4, x, 8) == 0, "item %d: the double's bytes", i);
        be(x, (uint16_t)w[i].s, 2);
        CHECK(memcmp(p + 12, x, 2) == 0, "item %d: the short's bytes", i);
    }
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    memset(r, 0, sizeof(r));
    MPI_OK(MPI_File_read_at(fh, (MPI_Offset)t_rank * K * X, r, K, st, MPI_STATUS_IGNORE));
    for (int i = 0; i < K; i++)
        CHECK(r[i].a == w[i].a && r[i].d == w[i].d && r[i].s == w[i].s,
              "item %d read back as (%d, %g, %d)", i, r[i].a, r[i].d, r[i].s);
    MPI_OK(MPI_Type_free(&st));
    MPI_OK(MPI_Type_free(&st0));
    t_sync();
}

static void refused(MPI_File fh)
{
    t_begin("elements that change size");
    int cls, rc = MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL);
    MPI_Error_class(rc, &cls);
    CHECK(sizeof(long) == 4 || cls == MPI_ERR_UNSUPPORTED_DATAREP,
          "an MPI_LONG etype in external32: class %d", cls);
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    long v[4] = { 1, 2, 3, 4 };
    rc = MPI_File_write_at(fh, 0, v, 4, MPI_LONG, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(sizeof(long) == 4 || cls == MPI_ERR_UNSUPPORTED_DATAREP,
          "writing MPI_LONG items in external32: class %d", cls);
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_io_begin("x32");
    char path[600];
    MPI_File fh;
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", "enable"));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", "enable"));
    MPI_OK(MPI_Info_set(info, "cb_buffer_size", "4096"));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, t_io_path(path, sizeof(path), "f"),
                         MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_OK(MPI_Info_free(&info));
    strided_ints(fh);
    MPI_OK(MPI_File_set_size(fh, 0));
    derived_memory(fh);
    refused(fh);
    MPI_OK(MPI_File_close(&fh));
    t_io_end();
    t_finish();
    return 0;
}
