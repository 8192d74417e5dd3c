/*
 * Collective access with a non-contiguous memory type through a strided
 * file view, in many collective-buffering rounds (cb_buffer_size 4096):
 * a vector with gaps, a struct with holes (resized larger), and a small
 * contiguous type resized to leave a gap after each item. For each, the
 * file written by MPI_File_write_all, iwrite_all and write_all_begin/end is
 * compared byte for byte with what the layout says and with the file that
 * independent writes produce; reads back (read_all, iread_all,
 * read_at_all_begin/end, independent read) must fill exactly the type's
 * bytes and leave its holes as they were.
 *
 * Then memory: a large write_all and read_all (32 MiB of data per rank, or
 * the first argument in MiB) must not hold a packed copy of the user's
 * buffer: the peak resident size (VmHWM) may grow by the collective
 * buffers (cb_buffer_size 4 MiB here) but not by the data's size.
 */
#include <stdlib.h>
#include <string.h>
#include "io_check.h"

#define BLK 100        /* bytes per file block of a rank (the view's stride is size * BLK) */
#define HOLE 0xEE      /* what the holes of a written buffer hold */
#define FRESH 0x5A     /* what a buffer to read into holds before the read */

/* The byte rank r's stream holds at stream offset k. */
static unsigned char val(int r, long k)
{
    return (unsigned char)(r * 37 + k * 7 + k / 251 + 1);
}

/* A memory type, its item count, and where stream byte k lies in the buffer (computed from
 * how the type was built, not by MPI). */
typedef struct mtype {
    const char *name;
    MPI_Datatype dt;
    int count;
    long size, extent;   /* data bytes and extent of one item */
    long (*at)(long r);  /* buffer offset of byte r (< size) of an item */
} mtype_t;

/* vector: 4 blocks of 3 ints, a stride of 5 ints */
static long at_vec(long r)
{
    return r / 12 * 20 + r % 12;
}

/* struct: int at 0, double at 8, 3 chars at 20; resized to 32 bytes */
static long at_struct(long r)
{
    return r < 4 ? r : r < 12 ? 8 + (r - 4) : 20 + (r - 12);
}

/* 3 shorts resized to 10 bytes */
static long at_short3(long r)
{
    return r;
}

static long mem_at(const mtype_t *m, long k)
{
    return k / m->size * m->extent + m->at(k % m->size);
}

static void make_types(mtype_t *m, int items)
{
    MPI_OK(MPI_Type_vector(4, 3, 5, MPI_INT, &m[0].dt));
    m[0] = (mtype_t){ "vector", m[0].dt, items, 48, 72, at_vec };
    MPI_Datatype st, t[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
    int bl[3] = { 1, 1, 3 };
    MPI_Aint d[3] = { 0, 8, 20 };
    MPI_OK(MPI_Type_create_struct(3, bl, d, t, &st));
    MPI_OK(MPI_Type_create_resized(st, 0, 32, &m[1].dt));
    MPI_OK(MPI_Type_free(&st));
    m[1] = (mtype_t){ "struct", m[1].dt, items, 15, 32, at_struct };
    MPI_Datatype s3;
    MPI_OK(MPI_Type_contiguous(3, MPI_SHORT, &s3));
    MPI_OK(MPI_Type_create_resized(s3, 0, 10, &m[2].dt));
    MPI_OK(MPI_Type_free(&s3));
    m[2] = (mtype_t){ "resized", m[2].dt, items, 6, 10, at_short3 };
    for (int i = 0; i < 3; i++) {
        MPI_OK(MPI_Type_commit(&m[i].dt));
        int sz;
        MPI_Aint lb, ext;
        MPI_OK(MPI_Type_size(m[i].dt, &sz));
        MPI_OK(MPI_Type_get_extent(m[i].dt, &lb, &ext));
        CHECK(sz == m[i].size && ext == m[i].extent && lb == 0, "%s: size %d extent %ld",
              m[i].name, sz, (long)ext);
    }
}

/* A buffer of m's items holding rank r's stream, HOLE in the holes. */
static unsigned char *filled(const mtype_t *m, int r)
{
    size_t len = (size_t)(m->count * m->extent);
    unsigned char *b = malloc(len);
    CHECK(b != NULL, "malloc");
    memset(b, HOLE, len);
    for (long k = 0; k < m->count * m->size; k++)
        b[mem_at(m, k)] = val(r, k);
    return b;
}

static void set_view(MPI_File fh, MPI_Datatype ftype)
{
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)t_rank * BLK, MPI_BYTE, ftype, "native",
                             MPI_INFO_NULL));
}

/* The file must hold every rank's stream along the view: byte o is in block o / BLK, which
 * rank (o / BLK) % size wrote as its block o / BLK / size. */
static void check_file(const char *path, long nbytes, const char *what)
{
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == 0) {
        long len;
        unsigned char *f = t_io_slurp(path, &len);
        long want = ((nbytes - 1) / BLK * t_size + t_size - 1) * BLK + (nbytes - 1) % BLK + 1;
        CHECK(len == want, "%s: file has %ld bytes, want %ld", what, len, want);
        long bad = 0;
        for (long o = 0; o < len; o++) {
            long b = o / BLK;
            int r = (int)(b % t_size);
            long k = b / t_size * BLK + o % BLK;
            unsigned char w = k < nbytes ? val(r, k) : 0;
            if (f[o] != w && bad++ < 5)
                fprintf(stderr, "%s: byte %ld is %d, want %d (rank %d, stream %ld)\n", what, o,
                        f[o], w, r, k);
        }
        CHECK(bad == 0, "%s: %ld bytes differ from the layout", what, bad);
        free(f);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static int same_files(const char *a, const char *b)
{
    int same = 1;
    if (t_rank == 0) {
        long la, lb;
        unsigned char *x = t_io_slurp(a, &la), *y = t_io_slurp(b, &lb);
        same = la == lb && memcmp(x, y, (size_t)la) == 0;
        free(x);
        free(y);
    }
    MPI_OK(MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD));
    return same;
}

/* A read must have put rank t_rank's stream in the type's bytes and left the holes. */
static void check_read(const mtype_t *m, const unsigned char *b, MPI_Status *st, const char *what)
{
    int n;
    MPI_OK(MPI_Get_count(st, m->dt, &n));
    CHECK(n == m->count, "%s %s: read %d items, want %d", m->name, what, n, m->count);
    unsigned char *want = malloc((size_t)(m->count * m->extent));
    memset(want, FRESH, (size_t)(m->count * m->extent));
    for (long k = 0; k < m->count * m->size; k++)
        want[mem_at(m, k)] = val(t_rank, k);
    long bad = 0;
    for (long i = 0; i < m->count * m->extent; i++)
        if (b[i] != want[i] && bad++ < 5)
            fprintf(stderr, "%s %s: buffer byte %ld is %d, want %d\n", m->name, what, i, b[i],
                    want[i]);
    CHECK(bad == 0, "%s %s: %ld buffer bytes wrong", m->name, what, bad);
    free(want);
}

static void one_type(const mtype_t *m, MPI_Datatype ftype, MPI_Info info, int pass)
{
    char pi[600], pc[600], pn[600], ps[600];
    char name[64];
    snprintf(name, sizeof(name), "%s.ind%d", m->name, pass);
    t_io_path(pi, sizeof(pi), name);
    snprintf(name, sizeof(name), "%s.coll%d", m->name, pass);
    t_io_path(pc, sizeof(pc), name);
    snprintf(name, sizeof(name), "%s.nb%d", m->name, pass);
    t_io_path(pn, sizeof(pn), name);
    snprintf(name, sizeof(name), "%s.split%d", m->name, pass);
    t_io_path(ps, sizeof(ps), name);
    long nbytes = m->count * m->size;
    unsigned char *w = filled(m, t_rank);
    unsigned char *copy = malloc((size_t)(m->count * m->extent));
    memcpy(copy, w, (size_t)(m->count * m->extent));
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;

    /* independent writes: the reference */
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, pi, amode, info, &fh));
    set_view(fh, ftype);
    MPI_OK(MPI_File_write(fh, w, m->count, m->dt, &st));
    MPI_OK(MPI_File_close(&fh));
    check_file(pi, nbytes, "independent write");

    MPI_OK(MPI_File_open(MPI_COMM_WORLD, pc, amode, info, &fh));
    set_view(fh, ftype);
    MPI_OK(MPI_File_write_all(fh, w, m->count, m->dt, &st));
    MPI_OK(MPI_File_close(&fh));
    check_file(pc, nbytes, "write_all");
    CHECK(same_files(pi, pc), "%s: write_all's file differs from independent writes'", m->name);

    MPI_OK(MPI_File_open(MPI_COMM_WORLD, pn, amode, info, &fh));
    set_view(fh, ftype);
    MPI_OK(MPI_File_iwrite_all(fh, w, m->count, m->dt, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_OK(MPI_File_close(&fh));
    check_file(pn, nbytes, "iwrite_all");

    MPI_OK(MPI_File_open(MPI_COMM_WORLD, ps, amode, info, &fh));
    set_view(fh, ftype);
    MPI_OK(MPI_File_write_all_begin(fh, w, m->count, m->dt));
    MPI_OK(MPI_File_write_all_end(fh, w, &st));
    MPI_OK(MPI_File_close(&fh));
    check_file(ps, nbytes, "write_all_begin/end");
    CHECK(memcmp(w, copy, (size_t)(m->count * m->extent)) == 0,
          "%s: a write changed the user's buffer", m->name);

    /* reads of the reference file */
    unsigned char *r = malloc((size_t)(m->count * m->extent));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, pi, MPI_MODE_RDONLY, info, &fh));
    set_view(fh, ftype);
    memset(r, FRESH, (size_t)(m->count * m->extent));
    MPI_OK(MPI_File_read_all(fh, r, m->count, m->dt, &st));
    check_read(m, r, &st, "read_all");
    memset(r, FRESH, (size_t)(m->count * m->extent));
    MPI_OK(MPI_File_iread_all(fh, r, m->count, m->dt, &rq));   /* the pointer moved: seek */
    MPI_OK(MPI_Wait(&rq, &st));
    int n;
    MPI_OK(MPI_Get_count(&st, m->dt, &n));
    CHECK(n == 0, "%s iread_all past the end: %d items", m->name, n);
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(r, FRESH, (size_t)(m->count * m->extent));
    MPI_OK(MPI_File_iread_all(fh, r, m->count, m->dt, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    check_read(m, r, &st, "iread_all");
    memset(r, FRESH, (size_t)(m->count * m->extent));
    MPI_OK(MPI_File_read_at_all_begin(fh, 0, r, m->count, m->dt));
    MPI_OK(MPI_File_read_at_all_end(fh, r, &st));
    check_read(m, r, &st, "read_at_all_begin/end");
    memset(r, FRESH, (size_t)(m->count * m->extent));
    MPI_OK(MPI_File_read_at(fh, 0, r, m->count, m->dt, &st));
    check_read(m, r, &st, "read_at (independent)");
    MPI_OK(MPI_File_close(&fh));
    free(r);
    free(w);
    free(copy);
}

/* The peak resident size of this process in KiB (VmHWM), or -1 without /proc. */
static long peak_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmHWM: %ld kB", &v) == 1)
            break;
    fclose(f);
    return v;
}

static void memory(long mib)
{
    if (peak_kib() < 0) {
        if (t_rank == 0)
            printf("memory part skipped: no /proc/self/status\n");
        return;
    }
    /* blocks of 1000 bytes 1024 apart: the buffer's data is not contiguous */
    long blocks = mib * 1048576 / 1000;
    MPI_Datatype vt;
    MPI_OK(MPI_Type_vector((int)blocks, 1000, 1024, MPI_BYTE, &vt));
    MPI_OK(MPI_Type_commit(&vt));
    long nbytes = blocks * 1000;
    size_t ext = (size_t)(blocks * 1024);
    unsigned char *b = malloc(ext);
    CHECK(b != NULL, "malloc of %zu bytes", ext);
    for (size_t i = 0; i < ext; i++)
        b[i] = (unsigned char)(i * 13 + (size_t)t_rank);
    MPI_Datatype ft, ftype;
    MPI_OK(MPI_Type_contiguous(4000, MPI_BYTE, &ft));
    MPI_OK(MPI_Type_create_resized(ft, 0, 4000 * (MPI_Aint)t_size, &ftype));
    MPI_OK(MPI_Type_commit(&ftype));
    MPI_OK(MPI_Type_free(&ft));
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "cb_buffer_size", "4194304"));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", "enable"));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", "enable"));
    char path[600];
    t_io_path(path, sizeof(path), "big");
    MPI_File fh;
    MPI_Status st;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)t_rank * 4000, MPI_BYTE, ftype, "native",
                             MPI_INFO_NULL));
    /* what may grow: the collective buffers (window, send and receive buffers of at most
     * cb_buffer_size each, several aggregators' windows in one send) and the runs'
     * descriptors; a packed copy would add nbytes */
    long allow = 24 * 1024 + (long)(nbytes / 1024) / 8;
    /* each access measured on its own, the read before the collective write (the peak
     * only grows: a write's copy would hide a read's) */
    long before = peak_kib();
    MPI_OK(MPI_File_write_at(fh, 0, b, 1, vt, &st));
    long grew_i = peak_kib() - before;
    CHECK(grew_i < allow, "write_at of %ld MiB grew the peak by %ld KiB (allowed %ld)", mib,
          grew_i, allow);
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    /* read back into a cleared buffer: the data blocks must come back, the gaps stay */
    memset(b, 0, ext);
    before = peak_kib();
    MPI_OK(MPI_File_read_at_all(fh, 0, b, 1, vt, &st));
    long grew_r = peak_kib() - before;
    CHECK(grew_r < allow, "read_at_all of %ld MiB grew the peak by %ld KiB (allowed %ld)", mib,
          grew_r, allow);
    long bad = 0;
    for (size_t i = 0; i < ext; i++) {
        unsigned char want = i % 1024 < 1000 ? (unsigned char)(i * 13 + (size_t)t_rank) : 0;
        bad += b[i] != want;
    }
    CHECK(bad == 0, "read back of %ld MiB: %ld bytes wrong", mib, bad);
    before = peak_kib();
    MPI_OK(MPI_File_write_at_all(fh, 0, b, 1, vt, &st));
    long grew_w = peak_kib() - before;
    CHECK(grew_w < allow, "write_at_all of %ld MiB grew the peak by %ld KiB (allowed %ld)", mib,
          grew_w, allow);
    MPI_OK(MPI_File_close(&fh));
    if (t_rank == 0)
        printf("memory: %ld MiB per rank (%ld data bytes), peak grew %ld KiB on write_at, %ld KiB "
               "on read_at_all, %ld KiB on write_at_all (allowed %ld)\n", mib, nbytes, grew_i,
               grew_r, grew_w, allow);
    free(b);
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Type_free(&ftype));
    MPI_OK(MPI_Type_free(&vt));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_io_begin("memtype");
    long mib = argc > 1 ? atol(argv[1]) : 32;
    mtype_t m[3];
    make_types(m, 1500);   /* 72 KB, 22.5 KB, 9 KB of data per rank */
    MPI_Datatype b, ftype;
    MPI_OK(MPI_Type_contiguous(BLK, MPI_BYTE, &b));
    MPI_OK(MPI_Type_create_resized(b, 0, (MPI_Aint)BLK * t_size, &ftype));
    MPI_OK(MPI_Type_commit(&ftype));
    MPI_OK(MPI_Type_free(&b));
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "cb_buffer_size", "4096"));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", "enable"));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", "enable"));
    for (int i = 0; i < 3; i++)
        one_type(&m[i], ftype, info, 0);
    /* two aggregators (where there are two ranks): windows of two domains in one round */
    MPI_OK(MPI_Info_set(info, "cb_nodes", "2"));
    one_type(&m[0], ftype, info, 1);
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Type_free(&m[i].dt));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Type_free(&ftype));
    if (mib > 0)
        memory(mib);
    t_io_end();
    t_finish();
    return 0;
}
