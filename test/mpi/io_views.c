/*
 * MPI-IO views with derived filetypes, and collective buffering against
 * independent access: the same interleaved pattern written with two-phase
 * collective I/O (several aggregators, a small cb_buffer_size so it takes
 * many rounds), with independent writes (data sieving over holes that must
 * survive) and with collective buffering disabled gives byte-identical
 * files with the expected contents; collective and independent reads get
 * it back into non-contiguous memory. Runs of a page and more with the default
 * hints (on a node-local file system each rank then writes and reads its own
 * runs, no collective buffering) give the same file as collective buffering,
 * holes kept. Also subarray views of a 2-D array,
 * an irregular hindexed filetype, etypes other than bytes, get_view, and
 * ranks with nothing to write in a collective call.
 */
#include <sys/stat.h>
#include "io_check.h"

#define B 3     /* ints per block */
#define NB 700  /* blocks per rank */

static MPI_Info hints(const char *cb, const char *ds)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", cb);
    MPI_Info_set(info, "romio_cb_read", cb);
    MPI_Info_set(info, "romio_ds_write", ds);
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "cb_nodes", t_size > 1 ? "2" : "1");
    MPI_Info_set(info, "ind_wr_buffer_size", "1000");
    return info;
}

/* Fills the file with 0xEE (so holes can be checked), rank 0 alone. */
static void prefill(const char *path, long len)
{
    if (t_rank == 0) {
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL, "cannot create %s", path);
        for (long i = 0; i < len; i++)
            fputc(0xEE, f);
        fclose(f);
    }
    t_sync();
}

/* Writes the interleaved pattern: rank r owns blocks r, r+P, r+2P, ... of B ints. */
static void write_pattern(const char *path, int mode)
{
    const char *cb = mode == 0 ? "enable" : "disable";
    MPI_Info info = hints(cb, "enable");
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    MPI_Datatype ft;
    MPI_Type_vector(NB, B, B * t_size, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    /* 8 bytes of header before the view starts */
    MPI_OK(MPI_File_set_view(fh, 8 + (MPI_Offset)t_rank * B * sizeof(int), MPI_INT, ft, "native",
                             MPI_INFO_NULL));
    MPI_Type_free(&ft);   /* the view keeps its own reference */
    int *buf = malloc(NB * B * sizeof(int));
    for (int b = 0; b < NB; b++)
        for (int i = 0; i < B; i++)
            buf[b * B + i] = (b * t_size + t_rank) * B + i;
    MPI_Status st;
    if (mode == 1)
        MPI_OK(MPI_File_write(fh, buf, NB * B, MPI_INT, &st));
    else
        MPI_OK(MPI_File_write_all(fh, buf, NB * B, MPI_INT, &st));
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == NB * B, "wrote %d ints", n);
    MPI_Offset pos;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == NB * B, "position %lld after the write", (long long)pos);
    free(buf);
    MPI_OK(MPI_File_close(&fh));
}

static void check_pattern(const unsigned char *f, long len, const char *what)
{
    long want = 8 + (long)NB * B * t_size * (long)sizeof(int);
    CHECK(len == want, "%s: size %ld, expected %ld", what, len, want);
    for (int i = 0; i < 8; i++)
        CHECK(f[i] == 0xEE, "%s: header byte %d was overwritten", what, i);
    const int *v = (const int *)(f + 8);
    for (long i = 0; i < (long)NB * B * t_size; i++)
        CHECK(v[i] == i, "%s: int %ld is %d", what, i, v[i]);
}

static void coll_vs_indep(void)
{
    t_begin("coll_vs_indep");
    char a[600], b[600], c[600];
    long len = 8 + (long)NB * B * t_size * (long)sizeof(int);
    const char *path[3] = { t_io_path(a, sizeof(a), "coll"), t_io_path(b, sizeof(b), "indep"),
                            t_io_path(c, sizeof(c), "nocb") };
    for (int m = 0; m < 3; m++) {
        prefill(path[m], len / 2);   /* half of it exists, with bytes to overwrite */
        write_pattern(path[m], m);
    }
    t_sync();
    long l[3];
    unsigned char *f[3];
    for (int m = 0; m < 3; m++) {
        f[m] = t_io_slurp(path[m], &l[m]);
        check_pattern(f[m], l[m], m == 0 ? "collective" : m == 1 ? "independent" : "no cb");
    }
    CHECK(l[0] == l[1] && !memcmp(f[0], f[1], l[0]) && l[0] == l[2] && !memcmp(f[0], f[2], l[0]),
          "the files differ");
    for (int m = 0; m < 3; m++)
        free(f[m]);

    /* read it back, collectively and independently, into every other int of memory */
    t_begin("read_back");
    MPI_Datatype mt, ft;
    MPI_Type_vector(NB * B, 1, 2, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    MPI_Type_vector(NB, B, B * t_size, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    int *buf = malloc(2 * NB * B * sizeof(int));
    for (int coll = 0; coll < 2; coll++) {
        MPI_Info info = hints(coll ? "enable" : "disable", "enable");
        MPI_File fh;
        MPI_OK(MPI_File_open(MPI_COMM_WORLD, path[coll], MPI_MODE_RDONLY, info, &fh));
        MPI_Info_free(&info);
        MPI_OK(MPI_File_set_view(fh, 8 + (MPI_Offset)t_rank * B * sizeof(int), MPI_INT, ft,
                                 "native", MPI_INFO_NULL));
        for (int i = 0; i < 2 * NB * B; i++)
            buf[i] = -7;
        MPI_Status st;
        if (coll)
            MPI_OK(MPI_File_read_all(fh, buf, 1, mt, &st));
        else
            MPI_OK(MPI_File_read(fh, buf, 1, mt, &st));
        int n;
        MPI_Get_count(&st, mt, &n);
        CHECK(n == 1, "read %d items", n);
        for (int bl = 0; bl < NB; bl++)
            for (int i = 0; i < B; i++) {
                int k = bl * B + i;
                CHECK(buf[2 * k] == (bl * t_size + t_rank) * B + i && buf[2 * k + 1] == -7,
                      "%s read: int %d is %d", coll ? "collective" : "independent", k, buf[2 * k]);
            }
        /* get_view hands back what was set */
        MPI_Offset disp;
        MPI_Datatype et, gft;
        char rep[MPI_MAX_DATAREP_STRING];
        MPI_OK(MPI_File_get_view(fh, &disp, &et, &gft, rep));
        MPI_Aint lb, ext, fext;
        MPI_Type_get_extent(gft, &lb, &ext);
        MPI_Type_get_extent(ft, &lb, &fext);
        CHECK(disp == 8 + (MPI_Offset)t_rank * B * (MPI_Offset)sizeof(int) && et == MPI_INT &&
                  ext == fext && !strcmp(rep, "native"),
              "get_view");
        MPI_Type_free(&gft);
        MPI_OK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
        CHECK(ext == sizeof(double), "get_type_extent %ld", (long)ext);
        MPI_OK(MPI_File_close(&fh));
    }
    free(buf);
    MPI_Type_free(&mt);
    MPI_Type_free(&ft);
}

/* A 2-D array of doubles (rows x cols), split into blocks over a process grid. */
static void subarray(void)
{
    t_begin("subarray");
    int dims[2] = { 0, 0 };
    MPI_Dims_create(t_size, 2, dims);
    int rows = 6 * dims[0] + 1, cols = 5 * dims[1] + 2;   /* uneven blocks */
    int coord[2] = { t_rank / dims[1], t_rank % dims[1] };
    int sizes[2] = { rows, cols }, sub[2], start[2];
    for (int d = 0; d < 2; d++) {
        int n = sizes[d], q = n / dims[d], r = n % dims[d];
        sub[d] = q + (coord[d] < r);
        start[d] = coord[d] * q + (coord[d] < r ? coord[d] : r);
    }
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    double *buf = malloc((size_t)sub[0] * sub[1] * sizeof(double));
    for (int i = 0; i < sub[0]; i++)
        for (int j = 0; j < sub[1]; j++)
            buf[i * sub[1] + j] = (start[0] + i) * 1000.0 + start[1] + j;
    char p[600];
    for (int coll = 0; coll < 2; coll++) {
        MPI_Info info = hints(coll ? "enable" : "disable", "enable");
        MPI_File fh;
        MPI_OK(MPI_File_open(MPI_COMM_WORLD, t_io_path(p, sizeof(p), "array"),
                             MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh));
        MPI_Info_free(&info);
        MPI_OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
        if (coll)
            MPI_OK(MPI_File_write_at_all(fh, 0, buf, sub[0] * sub[1], MPI_DOUBLE, MPI_STATUS_IGNORE));
        else
            MPI_OK(MPI_File_write_at(fh, 0, buf, sub[0] * sub[1], MPI_DOUBLE, MPI_STATUS_IGNORE));
        MPI_OK(MPI_File_close(&fh));
        t_sync();
        long len;
        double *f = (double *)t_io_slurp(p, &len);
        CHECK(len == (long)rows * cols * (long)sizeof(double), "array file size %ld", len);
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                CHECK(f[i * cols + j] == i * 1000.0 + j, "%s: element (%d,%d) is %g",
                      coll ? "collective" : "independent", i, j, f[i * cols + j]);
        free(f);
        t_sync();
        if (t_rank == 0)
            MPI_OK(MPI_File_delete(p, MPI_INFO_NULL));
        t_sync();
    }
    free(buf);
    MPI_Type_free(&ft);
}

/* Irregular blocks (hindexed) with holes that must keep their bytes; odd ranks write nothing. */
static void sparse(void)
{
    t_begin("sparse");
    char p[600];
    t_io_path(p, sizeof(p), "sparse");
    const int nblk = 50;
    long span = (long)t_size * 4096;
    for (int coll = 0; coll < 2; coll++) {
        prefill(p, span);
        int bl[50];
        MPI_Aint disp[50];
        long off = (long)t_rank * 4096;
        for (int i = 0; i < nblk; i++) {
            bl[i] = 1 + (i * 7 + t_rank) % 13;
            disp[i] = off - (long)t_rank * 4096;
            off += bl[i] + 1 + i % 5;   /* a hole of 1-5 bytes after each block */
        }
        MPI_Datatype ft;
        MPI_Type_create_hindexed(nblk, bl, disp, MPI_BYTE, &ft);
        MPI_Type_commit(&ft);
        int total = 0;
        for (int i = 0; i < nblk; i++)
            total += bl[i];
        unsigned char *buf = malloc(total);
        for (int i = 0; i < total; i++)
            buf[i] = (unsigned char)(t_rank * 31 + i);
        MPI_Info info = hints(coll ? "enable" : "disable", "enable");
        MPI_File fh;
        MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR, info, &fh));
        MPI_Info_free(&info);
        MPI_OK(MPI_File_set_view(fh, (MPI_Offset)t_rank * 4096, MPI_BYTE, ft, "native",
                                 MPI_INFO_NULL));
        int count = t_rank % 2 ? 0 : total;
        if (coll)
            MPI_OK(MPI_File_write_all(fh, buf, count, MPI_BYTE, MPI_STATUS_IGNORE));
        else
            MPI_OK(MPI_File_write(fh, buf, count, MPI_BYTE, MPI_STATUS_IGNORE));
        MPI_OK(MPI_File_close(&fh));
        t_sync();
        long len;
        unsigned char *f = t_io_slurp(p, &len);
        CHECK(len == span, "sparse file size %ld", len);
        for (int r = 0; r < t_size; r++) {
            long o = (long)r * 4096;
            int k = 0;
            for (int i = 0; i < nblk; i++) {
                int l = 1 + (i * 7 + r) % 13;
                for (int j = 0; j < l; j++, k++)
                    CHECK(f[o + j] == (r % 2 ? 0xEE : (unsigned char)(r * 31 + k)),
                          "%s: rank %d's byte %d", coll ? "collective" : "independent", r, k);
                for (int j = 0; j < 1 + i % 5; j++)
                    CHECK(f[o + l + j] == 0xEE, "%s: a hole was overwritten",
                          coll ? "collective" : "independent");
                o += l + 1 + i % 5;
            }
        }
        free(f);
        free(buf);
        MPI_Type_free(&ft);
        t_sync();
    }
}

/* Runs of LR bytes (more than a page, not page-aligned: neighbours share pages), rank r's
 * at blocks r, r+P+1, ... so one block in P+1 is a hole that must keep its bytes. */
#define LR 5000
#define NLR 40

static void large_runs(const char *prefix)
{
    t_begin("large_runs");
    char a[1200], b[1200];
    snprintf(a, sizeof(a), "%s-big_default", prefix);
    snprintf(b, sizeof(b), "%s-big_cb", prefix);
    const char *path[2] = { a, b };
    long stride = (long)LR * (t_size + 1), len = 3 + stride * NLR;
    MPI_Datatype ft, mt, mth;
    MPI_Type_vector(NLR, LR, (int)stride, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    /* the memory side non-contiguous too: every other byte of a twice-as-large buffer */
    MPI_Type_vector(NLR * LR, 1, 2, MPI_BYTE, &mt);
    MPI_Type_commit(&mt);
    MPI_Type_vector(NLR / 2 * LR, 1, 2, MPI_BYTE, &mth);
    MPI_Type_commit(&mth);
    unsigned char *buf = malloc(2L * NLR * LR), *rd = malloc(2L * NLR * LR);
    for (long i = 0; i < NLR * LR; i++)
        buf[i] = (unsigned char)(i * 7 + t_rank * 31 + 1);
    for (int m = 0; m < 2; m++) {
        prefill(path[m], len);
        MPI_Info info;
        MPI_Info_create(&info);
        if (m == 1) {
            MPI_Info_set(info, "romio_cb_write", "enable");
            MPI_Info_set(info, "romio_cb_read", "enable");
            MPI_Info_set(info, "cb_buffer_size", "65536");
        }
        MPI_File fh;
        MPI_OK(MPI_File_open(MPI_COMM_WORLD, path[m], MPI_MODE_RDWR, info, &fh));
        MPI_Info_free(&info);
        MPI_OK(MPI_File_set_view(fh, 3 + (MPI_Offset)t_rank * LR, MPI_BYTE, ft, "native",
                                 MPI_INFO_NULL));
        MPI_Status st;
        int n;
        /* the first half from contiguous memory, the second from the strided type */
        MPI_OK(MPI_File_write_at_all(fh, 0, buf, NLR / 2 * LR, MPI_BYTE, &st));
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(n == NLR / 2 * LR, "wrote %d bytes", n);
        unsigned char *sp = malloc(2L * NLR / 2 * LR);
        for (long i = 0; i < NLR / 2 * LR; i++)
            sp[2 * i] = buf[NLR / 2 * LR + i];
        MPI_OK(MPI_File_write_at_all(fh, NLR / 2 * LR, sp, 1, mth, &st));
        free(sp);
        for (int k = 0; k < 2; k++) {
            memset(rd, 0x5A, 2L * NLR * LR);
            if (k == 0)
                MPI_OK(MPI_File_read_at_all(fh, 0, rd, NLR * LR, MPI_BYTE, &st));
            else
                MPI_OK(MPI_File_read_at_all(fh, 0, rd, 1, mt, &st));
            MPI_Get_count(&st, MPI_BYTE, &n);
            CHECK(n == NLR * LR, "read %d bytes", n);
            for (long i = 0; i < NLR * LR; i++)
                CHECK(rd[k ? 2 * i : i] == buf[i], "mode %d read %d: byte %ld is %d", m, k, i,
                      rd[k ? 2 * i : i]);
        }
        MPI_OK(MPI_File_close(&fh));
    }
    t_sync();
    long l[2];
    unsigned char *f[2];
    for (int m = 0; m < 2; m++)
        f[m] = t_io_slurp(path[m], &l[m]);
    CHECK(l[0] == len && l[1] == len, "sizes %ld and %ld, expected %ld", l[0], l[1], len);
    CHECK(!memcmp(f[0], f[1], (size_t)len), "the files differ");
    for (long o = 0; o < len; o++) {
        long blk = (o - 3) / LR, at = (o - 3) % LR;
        int r = o < 3 ? -1 : (int)(blk % (t_size + 1));
        long i = blk / (t_size + 1) * LR + at;   /* the byte's place in rank r's buffer */
        unsigned char want = r < 0 || r == t_size ? 0xEE : (unsigned char)(i * 7 + r * 31 + 1);
        CHECK(f[0][o] == want, "byte %ld is %d, expected %d", o, f[0][o], want);
    }
    free(f[0]);
    free(f[1]);
    free(buf);
    free(rd);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    MPI_Type_free(&mth);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_io_begin("io_views");
    coll_vs_indep();
    subarray();
    sparse();
    char prefix[1100];
    large_runs(t_io_path(prefix, sizeof(prefix), "x"));
    /* again on tmpfs, where the writes too are each rank's own (the test directory is
     * usually on a disk file system) */
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0) {
        const char *base = strrchr(t_io_dir, '/');
        snprintf(prefix, sizeof(prefix), "/dev/shm%s", base ? base : "/rdmpi-io_views");
        large_runs(prefix);
        t_sync();
        if (t_rank == 0) {
            char p[1200];
            snprintf(p, sizeof(p), "%s-big_default", prefix);
            unlink(p);
            snprintf(p, sizeof(p), "%s-big_cb", prefix);
            unlink(p);
        }
    }
    t_io_end();
    t_finish();
    return 0;
}
