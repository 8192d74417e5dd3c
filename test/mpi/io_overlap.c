/*
 * Nonblocking and split collective MPI-IO overlap: MPI_File_iwrite_all,
 * iread_all, iwrite_at_all, iread_at_all and the _all/_at_all _begin calls
 * return before the other ranks have entered them. Each check is a relay:
 * rank r starts the collective access and only then lets rank r+1 start
 * it (a message on MPI_COMM_WORLD); a call that waited for the others would
 * never get the message out, and the test times out. The accesses use a
 * strided view and a small cb_buffer_size, so collective buffering runs
 * several rounds in the background; the data are checked after the wait,
 * with a noncontiguous memory type for one read, two accesses outstanding
 * at once (waited for in reverse order), and a rank computing (MPI_Test in
 * a loop) between start and completion.
 */
#include <stdlib.h>
#include <string.h>
#include "io_check.h"

#define BLK 64      /* ints per stride block */
#define NBLK 48     /* blocks per rank */
#define N (BLK * NBLK)

static MPI_File fh;
static MPI_Datatype ftype;

/* The value rank r writes at its element i in round k. */
static int val(int r, int i, int k)
{
    return k * 1000000 + r * 10000 + i;
}

/* Waits for the relay token from rank r-1. */
static void relay_in(void)
{
    int tok;
    if (t_rank > 0)
        MPI_OK(MPI_Recv(&tok, 1, MPI_INT, t_rank - 1, 33, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* Lets rank r+1 start: sent only once this rank's call has returned. */
static void relay_out(void)
{
    int tok = 1;
    if (t_rank + 1 < t_size)
        MPI_OK(MPI_Send(&tok, 1, MPI_INT, t_rank + 1, 33, MPI_COMM_WORLD));
}

/* Tests the request until it completes, counting the passes (work done meanwhile). */
static long spin(MPI_Request *req, MPI_Status *st)
{
    long passes = 0;
    int flag = 0;
    while (!flag) {
        MPI_OK(MPI_Test(req, &flag, st));
        passes++;
    }
    return passes;
}

static void set_view(void)
{
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)t_rank * BLK * (MPI_Offset)sizeof(int), MPI_INT,
                             ftype, "native", MPI_INFO_NULL));
}

/* Every rank checks the whole file (independent reads of the raw bytes). */
static void check_file(int k, const char *what)
{
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_sync(fh));
    int *all = malloc((size_t)N * t_size * sizeof(int));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_Status st;
    MPI_OK(MPI_File_read_at(fh, 0, all, N * t_size, MPI_INT, &st));
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == N * t_size, "%s: file has %d ints, want %d", what, n, N * t_size);
    for (int b = 0; b < NBLK; b++)
        for (int r = 0; r < t_size; r++)
            for (int i = 0; i < BLK; i++) {
                int got = all[(b * t_size + r) * BLK + i];
                CHECK(got == val(r, b * BLK + i, k), "%s: block %d of rank %d, int %d: %d", what,
                      b, r, i, got);
            }
    free(all);
    set_view();
}

static void iwrite_all(int *out)
{
    t_begin("iwrite_all relay");
    for (int i = 0; i < N; i++)
        out[i] = val(t_rank, i, 1);
    MPI_Request req;
    MPI_Status st;
    relay_in();
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_iwrite_all(fh, out, N, MPI_INT, &req));
    MPI_Offset pos;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == N, "the individual pointer is at %lld after iwrite_all, want %d",
          (long long)pos, N);
    relay_out();
    spin(&req, &st);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == N, "iwrite_all wrote %d ints", n);
    check_file(1, "iwrite_all");
}

static void iread_all(void)
{
    t_begin("iread_all relay, noncontiguous memory");
    /* every other int of a buffer twice the size */
    MPI_Datatype strided;
    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &strided));
    MPI_OK(MPI_Type_commit(&strided));
    int *in = calloc(2 * (size_t)N, sizeof(int));
    MPI_Request req;
    MPI_Status st;
    relay_in();
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_iread_all(fh, in, 1, strided, &req));
    MPI_OK(MPI_Type_free(&strided));   /* MPI lets the type go while the read runs */
    relay_out();
    spin(&req, &st);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == N, "iread_all read %d ints", n);
    for (int i = 0; i < N; i++) {
        CHECK(in[2 * i] == val(t_rank, i, 1), "iread_all: int %d is %d", i, in[2 * i]);
        CHECK(in[2 * i + 1] == 0, "iread_all touched the gap after int %d", i);
    }
    free(in);
}

static void two_outstanding(int *out)
{
    t_begin("two iwrite_at_all outstanding, waited in reverse");
    int *out2 = malloc((size_t)N * sizeof(int));
    for (int i = 0; i < N; i++) {
        out[i] = val(t_rank, i, 2);
        out2[i] = val(t_rank, i + N / 2, 2);
    }
    MPI_Request req[2];
    relay_in();
    MPI_OK(MPI_File_iwrite_at_all(fh, 0, out, N / 2, MPI_INT, &req[0]));
    MPI_OK(MPI_File_iwrite_at_all(fh, N / 2, out2, N / 2, MPI_INT, &req[1]));
    relay_out();
    MPI_OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    free(out2);
    check_file(2, "two iwrite_at_all");

    t_begin("iread_at_all relay");
    int *in = malloc((size_t)N * sizeof(int));
    relay_in();
    MPI_OK(MPI_File_iread_at_all(fh, 0, in, N, MPI_INT, &req[0]));
    relay_out();
    MPI_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(t_rank, i, 2), "iread_at_all: int %d is %d", i, in[i]);
    free(in);
}

static void split(int *out)
{
    t_begin("write_at_all_begin / read_all_begin relay");
    for (int i = 0; i < N; i++)
        out[i] = val(t_rank, i, 3);
    MPI_Status st;
    relay_in();
    MPI_OK(MPI_File_write_at_all_begin(fh, 0, out, N, MPI_INT));
    relay_out();
    MPI_OK(MPI_File_write_at_all_end(fh, out, &st));
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == N, "write_at_all_end: %d ints", n);
    check_file(3, "write_at_all_begin");
    int *in = malloc((size_t)N * sizeof(int));
    relay_in();
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all_begin(fh, in, N, MPI_INT));
    relay_out();
    MPI_OK(MPI_File_read_all_end(fh, in, &st));
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(t_rank, i, 3), "read_all_begin: int %d is %d", i, in[i]);
    free(in);
}

/* A rank that moves nothing may pass a NULL buffer (setview_zero of MPICH's suite): it
 * still takes part, or the others wait for it forever. */
static void zero_count(void)
{
    t_begin("a NULL buffer with count 0 takes part");
    int v = val(t_rank, 0, 4), w = -1;
    int none = t_rank % 2 == 1;
    MPI_Status st;
    MPI_OK(MPI_File_write_at_all(fh, 0, none ? NULL : &v, none ? 0 : 1, MPI_INT, &st));
    MPI_Request req;
    MPI_OK(MPI_File_iread_at_all(fh, 0, none ? NULL : &w, none ? 0 : 1, MPI_INT, &req));
    MPI_OK(MPI_Wait(&req, &st));
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == (none ? 0 : 1), "read %d ints", n);
    CHECK(none || w == v, "read back %d, want %d", w, v);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_io_begin("overlap");
    char path[600];
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    /* several rounds per access, and collective buffering even on one rank */
    MPI_OK(MPI_Info_set(info, "cb_buffer_size", "4096"));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", "enable"));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", "enable"));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, t_io_path(path, sizeof(path), "f"),
                         MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Type_vector(NBLK, BLK, BLK * t_size, MPI_INT, &ftype));
    MPI_Datatype rs;
    MPI_OK(MPI_Type_create_resized(ftype, 0, (MPI_Aint)NBLK * BLK * t_size * sizeof(int), &rs));
    MPI_OK(MPI_Type_free(&ftype));
    ftype = rs;
    MPI_OK(MPI_Type_commit(&ftype));
    set_view();
    int *out = malloc((size_t)N * sizeof(int));
    iwrite_all(out);
    iread_all();
    two_outstanding(out);
    split(out);
    zero_count();
    free(out);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&ftype));
    t_io_end();
    t_finish();
    return 0;
}
