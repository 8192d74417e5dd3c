/*
 * MPI-IO's shared file pointer, atomic mode, nonblocking and split
 * collective access: write_shared records from every rank land whole and
 * without overlap; write_ordered lays the ranks' data out in rank order
 * (of varying sizes) and read_ordered gets it back; seek_shared and
 * get_position_shared agree on every rank; in atomic mode concurrent
 * overlapping writes leave one rank's data whole, never a mix; iwrite_at/
 * iread_at/iwrite_all/iread_all/iread_shared complete through MPI_Wait and
 * MPI_Test; the _begin/_end pairs work and a second _begin is refused.
 */
#include "io_check.h"

#define REC 64

static MPI_File open_file(const char *name, int amode)
{
    char p[600];
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, t_io_path(p, sizeof(p), name), amode, MPI_INFO_NULL, &fh));
    return fh;
}

static void shared(void)
{
    t_begin("write_shared");
    MPI_File fh = open_file("shared", MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE);
    int rec[REC];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < REC; i++)
            rec[i] = (t_rank * 3 + k) * 1000 + i;
        MPI_OK(MPI_File_write_shared(fh, rec, REC, MPI_INT, MPI_STATUS_IGNORE));
    }
    MPI_OK(MPI_File_sync(fh));
    MPI_Offset pos;
    MPI_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == (MPI_Offset)(3 * t_size * REC * sizeof(int)), "shared position %lld",
          (long long)pos);
    t_sync();
    /* every record once, whole */
    int *all = malloc(3 * t_size * REC * sizeof(int));
    MPI_OK(MPI_File_read_at(fh, 0, all, 3 * t_size * REC, MPI_INT, MPI_STATUS_IGNORE));
    int *seen = calloc(3 * t_size, sizeof(int));
    for (int r = 0; r < 3 * t_size; r++) {
        int id = all[r * REC] / 1000;
        CHECK(id >= 0 && id < 3 * t_size && !seen[id], "record %d: id %d", r, id);
        seen[id] = 1;
        for (int i = 0; i < REC; i++)
            CHECK(all[r * REC + i] == id * 1000 + i, "record %d is torn", r);
    }
    free(seen);

    t_begin("ordered");
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 0, "position %lld after seek_shared(0)", (long long)pos);
    /* rank r writes r+1 ints of value r */
    int mine[64];
    for (int i = 0; i <= t_rank; i++)
        mine[i] = t_rank;
    MPI_OK(MPI_File_write_ordered(fh, mine, t_rank + 1, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_get_position_shared(fh, &pos));
    long tot = (long)t_size * (t_size + 1) / 2;
    CHECK(pos == tot * (long)sizeof(int), "position %lld after write_ordered", (long long)pos);
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_File_read_at_all(fh, 0, all, (int)tot, MPI_INT, MPI_STATUS_IGNORE));
    for (int r = 0, k = 0; r < t_size; r++)
        for (int i = 0; i <= r; i++, k++)
            CHECK(all[k] == r, "write_ordered: int %d is %d, expected %d", k, all[k], r);
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int got[64];
    MPI_Status st;
    MPI_OK(MPI_File_read_ordered(fh, got, t_rank + 1, MPI_INT, &st));
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == t_rank + 1, "read_ordered count %d", n);
    for (int i = 0; i <= t_rank; i++)
        CHECK(got[i] == t_rank, "read_ordered: %d", got[i]);
    /* split ordered */
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_ordered_begin(fh, got, t_rank + 1, MPI_INT));
    MPI_OK(MPI_File_read_ordered_end(fh, got, &st));
    CHECK(got[0] == t_rank, "read_ordered_begin/end");
    /* read_shared from the end: nothing left */
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    MPI_OK(MPI_File_read_shared(fh, got, 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 0, "read_shared at the end read %d", n);
    free(all);
    MPI_OK(MPI_File_close(&fh));
}

static void atomic(void)
{
    t_begin("atomic");
    MPI_File fh = open_file("atomic", MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE);
    int flag;
    MPI_OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(!flag, "atomic mode is on by default");
    MPI_OK(MPI_File_set_atomicity(fh, 1));
    MPI_OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag, "set_atomicity(1) did not stick");
    /* every rank writes the same region, non-contiguously, many times; a reader checks
     * each time that what it sees is one rank's data throughout */
    const int N = 4096;
    int *buf = malloc(2 * N * sizeof(int)), *in = malloc(2 * N * sizeof(int));
    MPI_Datatype ft;
    MPI_Type_vector(N / 16, 16, 32, MPI_INT, &ft);   /* half of each 128-byte stretch */
    MPI_Type_commit(&ft);
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    for (int i = 0; i < N / 2; i++)
        buf[i] = t_rank;
    MPI_OK(MPI_File_write_at_all(fh, 0, buf, N / 2, MPI_INT, MPI_STATUS_IGNORE));
    for (int it = 0; it < 20; it++) {
        if (t_rank % 2 == 0 || t_size == 1) {
            for (int i = 0; i < N / 2; i++)
                buf[i] = t_rank + it * 100;
            MPI_OK(MPI_File_write_at(fh, 0, buf, N / 2, MPI_INT, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_File_read_at(fh, 0, in, N / 2, MPI_INT, MPI_STATUS_IGNORE));
            for (int i = 1; i < N / 2; i++)
                CHECK(in[i] == in[0], "atomic read saw a mix: int %d is %d, int 0 is %d", i,
                      in[i], in[0]);
        }
    }
    MPI_Type_free(&ft);
    free(buf);
    free(in);
    MPI_OK(MPI_File_close(&fh));
}

static void nonblocking(void)
{
    t_begin("nonblocking");
    MPI_File fh = open_file("nb", MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE);
    int out[100], in[100];
    for (int i = 0; i < 100; i++)
        out[i] = t_rank * 100 + i;
    MPI_Request req[2];
    MPI_Status st;
    int n, flag = 0;
    MPI_OK(MPI_File_iwrite_at(fh, (MPI_Offset)t_rank * 400, out, 50, MPI_INT, &req[0]));
    MPI_OK(MPI_File_iwrite_at(fh, (MPI_Offset)t_rank * 400 + 200, out + 50, 50, MPI_INT, &req[1]));
    MPI_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    int peer = (t_rank + 1) % t_size;
    MPI_OK(MPI_File_iread_at(fh, (MPI_Offset)peer * 400, in, 100, MPI_INT, &req[0]));
    while (!flag)
        MPI_OK(MPI_Test(&req[0], &flag, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 100 && req[0] == MPI_REQUEST_NULL, "iread_at count %d", n);
    for (int i = 0; i < 100; i++)
        CHECK(in[i] == peer * 100 + i, "iread_at: %d", in[i]);
    /* collective nonblocking through the individual pointer */
    MPI_OK(MPI_File_set_view(fh, (MPI_Offset)t_rank * 400, MPI_INT, MPI_INT, "native",
                             MPI_INFO_NULL));
    for (int i = 0; i < 100; i++)
        out[i] = -(t_rank * 100 + i);
    MPI_OK(MPI_File_iwrite_all(fh, out, 100, MPI_INT, &req[0]));
    MPI_OK(MPI_Wait(&req[0], &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 100, "iwrite_all count %d", n);
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_iread_all(fh, in, 100, MPI_INT, &req[0]));
    MPI_OK(MPI_Wait(&req[0], &st));
    for (int i = 0; i < 100; i++)
        CHECK(in[i] == -(t_rank * 100 + i), "iread_all: %d", in[i]);
    MPI_OK(MPI_File_iwrite_at_all(fh, 0, out, 1, MPI_INT, &req[0]));
    MPI_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_iread_at_all(fh, 0, in, 1, MPI_INT, &req[0]));
    MPI_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    CHECK(in[0] == out[0], "iread_at_all");

    t_begin("split");
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_all_begin(fh, out, 100, MPI_INT));
    int rc = MPI_File_write_all_begin(fh, out, 100, MPI_INT);
    CHECK(rc != MPI_SUCCESS, "a second split collective was accepted");
    MPI_OK(MPI_File_write_all_end(fh, out, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 100, "write_all_end count %d", n);
    rc = MPI_File_read_all_end(fh, in, &st);
    CHECK(rc != MPI_SUCCESS, "an _end without _begin was accepted");
    MPI_OK(MPI_File_read_at_all_begin(fh, 0, in, 100, MPI_INT));
    MPI_OK(MPI_File_read_at_all_end(fh, in, &st));
    for (int i = 0; i < 100; i++)
        CHECK(in[i] == out[i], "read_at_all_begin/end: %d", in[i]);
    MPI_OK(MPI_File_write_at_all_begin(fh, 0, out, 10, MPI_INT));
    MPI_OK(MPI_File_write_at_all_end(fh, out, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all_begin(fh, in, 100, MPI_INT));
    MPI_OK(MPI_File_read_all_end(fh, in, MPI_STATUS_IGNORE));
    CHECK(in[99] == out[99], "read_all_begin/end");
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_ordered_begin(fh, out, 1, MPI_INT));
    MPI_OK(MPI_File_write_ordered_end(fh, out, MPI_STATUS_IGNORE));
    /* iread_shared/iwrite_shared */
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_iwrite_shared(fh, out, 4, MPI_INT, &req[0]));
    MPI_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_iread_shared(fh, in, 4, MPI_INT, &req[0]));
    MPI_OK(MPI_Wait(&req[0], &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 4, "iread_shared count %d", n);
    MPI_OK(MPI_File_close(&fh));
}

/* MPI_MODE_SEQUENTIAL: shared pointers only; MPI_MODE_APPEND starts at the end. */
static void modes(void)
{
    t_begin("modes");
    MPI_File fh = open_file("seq", MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL);
    int x = t_rank, cls;
    int rc = MPI_File_write_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "write_at on a sequential file: class %d", cls);
    MPI_OK(MPI_File_write_ordered(fh, &x, 1, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                             MPI_INFO_NULL));
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_OK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    CHECK(disp == (MPI_Offset)(t_size * sizeof(int)), "DISPLACEMENT_CURRENT gave %lld",
          (long long)disp);
    /* external32 works (io_external32); a representation nobody registered does not */
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "rdmpi_no_such_rep", MPI_INFO_NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_UNSUPPORTED_DATAREP, "an unknown representation: class %d", cls);
    MPI_OK(MPI_File_close(&fh));
    fh = open_file("seq", MPI_MODE_WRONLY | MPI_MODE_APPEND | MPI_MODE_DELETE_ON_CLOSE);
    MPI_OK(MPI_File_write_shared(fh, &x, 1, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    MPI_Offset size;
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK(size == (MPI_Offset)(2 * t_size * sizeof(int)), "appended file size %lld", (long long)size);
    MPI_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_io_begin("io_shared");
    shared();
    atomic();
    nonblocking();
    modes();
    t_io_end();
    t_finish();
    return 0;
}
