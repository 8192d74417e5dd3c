/*
 * Collective writes through node-shared windows (src/io/push.c): when every
 * rank is on one node and the hint rdmpi_cb_push is not "disable" (the default,
 * "automatic", takes them), the ranks copy their pieces straight into the
 * aggregators' windows. The same accesses are written with it on ("enable", or
 * the default) and off (rdmpi_cb_push=disable), and both
 * files are compared byte for byte with what the layout says:
 *   - a strided view with holes (each rank skips some of its blocks, so the
 *     aggregator reads the bytes between the pieces first: data sieving) in
 *     many rounds (cb_buffer_size 4096), into a file filled beforehand;
 *   - the same with sieving off (romio_ds_write disable: each run written
 *     on its own);
 *   - a non-contiguous memory type (packed straight into the windows);
 *   - two aggregators (cb_nodes 2), each rank filling both;
 *   - overlapping pieces (every rank also writes a shared block), which
 *     keep the all-to-all path: the result must match the one with it off;
 *   - a nonblocking write (MPI_File_iwrite_all) with computation before the
 *     wait, two in a row on one file.
 * MPI_File_get_info says whether the windows were made ("enable" when all
 * ranks share a node and the hint does not say "disable").
 */
#include <stdlib.h>
#include <string.h>
#include "io_check.h"

#define BLK 1000      /* bytes per block (not a multiple of the window size) */
#define NBLK 40       /* blocks per rank */
#define FILL 0x77     /* what the file holds before the writes */

/* Byte k of what rank r writes in access a. */
static unsigned char val(int a, int r, long k)
{
    return (unsigned char)(a * 53 + r * 31 + k * 7 + k / 253 + 1);
}

/* Whether rank r skips its block b (a hole in the file). */
static int skipped(int r, int b)
{
    return (b + r) % 5 == 3;
}

typedef struct acc {
    int a;            /* access number (what val writes) */
    int memtype;      /* a vector memory type with gaps */
    int overlap;      /* every rank also writes block 0 of rank 0's place */
} acc_t;

/* The file type: rank r's blocks b that are not skipped, at (b * size + r) * BLK. */
static MPI_Datatype ftype_of(int overlap, int *nb)
{
    int *len = malloc(sizeof(int) * (NBLK + 1)), n = 0;
    MPI_Aint *disp = malloc(sizeof(MPI_Aint) * (NBLK + 1));
    if (overlap) {
        /* block 0 of rank 0's place, written by everyone; rank 0 has it anyway */
        len[n] = BLK;
        disp[n++] = 0;
    }
    for (int b = 0; b < NBLK; b++) {
        if (skipped(t_rank, b) || (overlap && b == 0 && t_rank == 0))
            continue;
        len[n] = BLK;
        disp[n++] = ((MPI_Aint)b * t_size + t_rank) * BLK;
    }
    MPI_Datatype ft;
    MPI_OK(MPI_Type_create_hindexed(n, len, disp, MPI_BYTE, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    *nb = n;
    free(len);
    free(disp);
    return ft;
}

/* The file as the layout says after access x: FILL, each rank's blocks over it. */
static unsigned char *expected(const acc_t *x, long size)
{
    unsigned char *e = malloc((size_t)size);
    memset(e, FILL, (size_t)size);
    for (int r = 0; r < t_size; r++) {
        long k = 0;
        if (x->overlap) {
            /* the shared block: the highest rank's bytes win on both paths (rank order
             * among equal offsets, the last laid out last) */
            if (r == t_size - 1)
                for (long i = 0; i < BLK; i++)
                    e[i] = val(x->a, r, i);
            k += BLK;
        }
        for (int b = 0; b < NBLK; b++) {
            if (skipped(r, b) || (x->overlap && b == 0 && r == 0))
                continue;
            long at = ((long)b * t_size + r) * BLK;
            for (long i = 0; i < BLK; i++)
                e[at + i] = val(x->a, r, k + i);
            k += BLK;
        }
    }
    return e;
}

/* Writes access x into path (filled with FILL first) with the given hints. */
static void write_file(const char *path, const acc_t *x, const char *push, const char *ds,
                       const char *nodes, int nonblocking)
{
    long fsize = (long)NBLK * t_size * BLK;
    if (t_rank == 0) {
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL, "cannot create %s", path);
        unsigned char *b = malloc((size_t)fsize);
        memset(b, FILL, (size_t)fsize);
        CHECK(fwrite(b, 1, (size_t)fsize, f) == (size_t)fsize, "cannot fill %s", path);
        fclose(f);
        free(b);
    }
    t_sync();
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "cb_buffer_size", "4096"));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", "enable"));
    MPI_OK(MPI_Info_set(info, "rdmpi_cb_push", push));
    MPI_OK(MPI_Info_set(info, "romio_ds_write", ds));
    if (nodes)
        MPI_OK(MPI_Info_set(info, "cb_nodes", nodes));
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    MPI_OK(MPI_Info_free(&info));

    /* the windows are made when every rank is on this node and the hint allows it */
    MPI_Comm node;
    int nsize;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Comm_size(node, &nsize));
    MPI_OK(MPI_Comm_free(&node));
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    MPI_OK(MPI_File_get_info(fh, &used));
    MPI_OK(MPI_Info_get(used, "rdmpi_cb_push", MPI_MAX_INFO_VAL, v, &flag));
    MPI_OK(MPI_Info_free(&used));
    int want = strcmp(push, "disable") != 0 && nsize == t_size && t_size > 1;
    CHECK(flag && !strcmp(v, want ? "enable" : "disable"),
          "rdmpi_cb_push reads \"%s\" (hint %s, %d of %d ranks on this node)", flag ? v : "(unset)",
          push, nsize, t_size);

    int nb;
    MPI_Datatype ft = ftype_of(x->overlap, &nb);
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    long n = (long)nb * BLK;
    unsigned char *data = malloc((size_t)n * 2);
    for (long k = 0; k < n; k++)
        data[k] = val(x->a, t_rank, k);
    MPI_Status st;
    if (x->memtype) {
        /* the stream's byte k at 2k: a vector of 1-byte blocks, stride 2 */
        MPI_Datatype mt;
        MPI_OK(MPI_Type_vector((int)n, 1, 2, MPI_BYTE, &mt));
        MPI_OK(MPI_Type_commit(&mt));
        for (long k = n - 1; k >= 0; k--) {
            data[2 * k] = data[k];
            data[2 * k + 1] = 0xEE;
        }
        MPI_OK(MPI_File_write_at_all(fh, 0, data, 1, mt, &st));
        MPI_OK(MPI_Type_free(&mt));
    } else if (nonblocking) {
        /* two accesses outstanding: the first half, then the second */
        MPI_Request rq[2];
        MPI_OK(MPI_File_iwrite_at_all(fh, 0, data, (int)(n / 2), MPI_BYTE, &rq[0]));
        MPI_OK(MPI_File_iwrite_at_all(fh, n / 2, data + n / 2, (int)(n - n / 2), MPI_BYTE,
                                      &rq[1]));
        volatile double s = 0;
        for (int i = 0; i < 200000; i++)
            s += i * 0.5;
        int done = 0;
        while (!done)
            MPI_OK(MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE));
    } else {
        MPI_OK(MPI_File_write_at_all(fh, 0, data, (int)n, MPI_BYTE, &st));
    }
    free(data);
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_File_close(&fh));
}

static void check_file(const char *path, const unsigned char *e, long size, const char *what)
{
    long len;
    unsigned char *got = t_io_slurp(path, &len);
    CHECK(len == size, "%s: %ld bytes, expected %ld", what, len, size);
    for (long i = 0; i < size; i++)
        CHECK(got[i] == e[i], "%s: byte %ld is %#x, expected %#x (block %ld)", what, i, got[i],
              e[i], i / BLK);
    free(got);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_io_begin("io_push");
    char pa[600], pb[600];
    t_io_path(pa, sizeof(pa), "on");
    t_io_path(pb, sizeof(pb), "off");
    long fsize = (long)NBLK * t_size * BLK;
    static const struct {
        acc_t x;
        const char *ds, *nodes;
        int nonblocking;
        const char *what;
    } cases[] = {
        { { 1, 0, 0 }, "automatic", NULL, 0, "holes, sieved" },
        { { 2, 0, 0 }, "disable", NULL, 0, "holes, each run on its own" },
        { { 3, 1, 0 }, "automatic", NULL, 0, "non-contiguous memory type" },
        { { 4, 0, 0 }, "automatic", "2", 0, "two aggregators" },
        { { 5, 0, 1 }, "automatic", NULL, 0, "overlapping pieces" },
        { { 6, 0, 0 }, "automatic", NULL, 1, "nonblocking, two outstanding" },
        { { 7, 1, 0 }, "automatic", "3", 0, "memory type, three aggregators" },
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const acc_t *x = &cases[c].x;
        /* on: the hint's default (automatic, which makes the windows) or enable */
        write_file(pa, x, c % 2 ? "automatic" : "enable", cases[c].ds, cases[c].nodes,
                   cases[c].nonblocking);
        write_file(pb, x, "disable", cases[c].ds, cases[c].nodes, cases[c].nonblocking);
        t_sync();
        if (t_rank == 0) {
            unsigned char *e = expected(x, fsize);
            char what[200];
            snprintf(what, sizeof(what), "%s, windows on", cases[c].what);
            check_file(pa, e, fsize, what);
            snprintf(what, sizeof(what), "%s, windows off", cases[c].what);
            check_file(pb, e, fsize, what);
            free(e);
        }
        t_sync();
    }
    t_io_end();
    t_finish();
    return 0;
}
