/*
 * MPI-IO basics: open/close/delete with amode checks and the error classes
 * of missing, existing and read-only files; sizes, preallocation, group,
 * amode, hints; explicit-offset and individual-pointer access (seek,
 * positions, byte offsets, reads past the end); file error handlers (the
 * default MPI_ERRORS_RETURN, MPI_FILE_NULL's handler inherited by new
 * files, user handlers and call_errhandler); Fortran handles.
 */
#include "io_check.h"
#include <sys/stat.h>

static int handler_calls, handler_class;
static void file_handler(MPI_File *fh, int *code, ...)
{
    (void)fh;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

static int err_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static void errors(void)
{
    t_begin("errors");
    char p[600], q[600];
    MPI_File fh;
    /* missing file */
    int rc = MPI_File_open(MPI_COMM_WORLD, t_io_path(p, sizeof(p), "missing"), MPI_MODE_RDONLY,
                           MPI_INFO_NULL, &fh);
    CHECK(err_class(rc) == MPI_ERR_NO_SUCH_FILE, "missing file: class %d", err_class(rc));
    /* bad amodes */
    rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK(err_class(rc) == MPI_ERR_AMODE, "RDONLY|CREATE: class %d", err_class(rc));
    rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    CHECK(err_class(rc) == MPI_ERR_AMODE, "RDWR|WRONLY: class %d", err_class(rc));
    rc = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh);
    CHECK(err_class(rc) == MPI_ERR_AMODE, "RDWR|SEQUENTIAL: class %d", err_class(rc));
    /* EXCL on an existing file */
    t_io_path(q, sizeof(q), "exists");
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close did not reset the handle");
    rc = MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                       MPI_INFO_NULL, &fh);
    CHECK(err_class(rc) == MPI_ERR_FILE_EXISTS, "EXCL on an existing file: class %d",
          err_class(rc));
    /* writing a file opened read-only; reading one opened write-only */
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    int x = 1;
    rc = MPI_File_write_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(err_class(rc) == MPI_ERR_READ_ONLY, "write to a RDONLY file: class %d", err_class(rc));
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    rc = MPI_File_read_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(err_class(rc) == MPI_ERR_ACCESS, "read from a WRONLY file: class %d", err_class(rc));
    MPI_OK(MPI_File_close(&fh));
    /* a file without write permission (root ignores permissions: not tested then) */
    if (geteuid() != 0) {
        if (t_rank == 0)
            chmod(q, 0444);
        t_sync();
        rc = MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        CHECK(err_class(rc) == MPI_ERR_ACCESS, "RDWR open of a 0444 file: class %d",
              err_class(rc));
        t_sync();
        if (t_rank == 0)
            chmod(q, 0644);
    }
    /* a bad file handle */
    rc = MPI_File_get_size(MPI_FILE_NULL, &(MPI_Offset){ 0 });
    CHECK(err_class(rc) == MPI_ERR_FILE, "MPI_FILE_NULL: class %d", err_class(rc));
    /* delete */
    t_sync();
    if (t_rank == 0) {
        MPI_OK(MPI_File_delete(q, MPI_INFO_NULL));
        rc = MPI_File_delete(q, MPI_INFO_NULL);
        CHECK(err_class(rc) == MPI_ERR_NO_SUCH_FILE, "deleting a missing file: class %d",
              err_class(rc));
    }
    t_sync();
}

static void handlers(void)
{
    t_begin("errhandlers");
    char p[600];
    MPI_Errhandler eh, got;
    MPI_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == MPI_ERRORS_RETURN, "MPI_FILE_NULL's default handler is not MPI_ERRORS_RETURN");
    MPI_OK(MPI_File_create_errhandler(file_handler, &eh));
    MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    MPI_File fh;
    handler_calls = 0;
    int rc = MPI_File_open(MPI_COMM_WORLD, t_io_path(p, sizeof(p), "nope"), MPI_MODE_RDONLY,
                           MPI_INFO_NULL, &fh);
    CHECK(rc != MPI_SUCCESS && handler_calls == 1 && handler_class == MPI_ERR_NO_SUCH_FILE,
          "MPI_FILE_NULL's handler: %d calls, class %d", handler_calls, handler_class);
    /* a new file inherits MPI_FILE_NULL's handler */
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, t_io_path(p, sizeof(p), "eh"),
                         MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                         &fh));
    MPI_OK(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh, "the new file did not get MPI_FILE_NULL's handler");
    MPI_Errhandler_free(&got);
    handler_calls = 0;
    MPI_OK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_IO, "call_errhandler: %d calls",
          handler_calls);
    rc = MPI_File_seek(fh, -5, MPI_SEEK_SET);
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_ARG, "bad seek: %d calls, class %d",
          handler_calls, handler_class);
    MPI_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    rc = MPI_File_seek(fh, -5, MPI_SEEK_SET);
    CHECK(handler_calls == 2 && err_class(rc) == MPI_ERR_ARG, "MPI_ERRORS_RETURN on the file");
    /* Fortran handles */
    MPI_Fint f = MPI_File_c2f(fh);
    CHECK(f != 0 && MPI_File_f2c(f) == fh, "c2f/f2c do not round-trip");
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0 && MPI_File_f2c(0) == MPI_FILE_NULL, "null handles");
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&eh);
}

static void props_and_access(void)
{
    t_begin("access");
    char p[600];
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_Info_set(info, "striping_factor", "4");
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, t_io_path(p, sizeof(p), "data"),
                         MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL];
    int flag;
    MPI_OK(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "cb_buffer_size", sizeof(v) - 1, v, &flag);
    CHECK(flag && !strcmp(v, "1048576"), "cb_buffer_size in use: %s", flag ? v : "(none)");
    MPI_Info_get(used, "rdmpi_ignored_hints", sizeof(v) - 1, v, &flag);
    CHECK(flag && strstr(v, "striping_factor"), "striping_factor not noted as ignored");
    MPI_Info_free(&used);
    int amode;
    MPI_OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode %#x", amode);
    MPI_Group g;
    int gs, cmp;
    MPI_OK(MPI_File_get_group(fh, &g));
    MPI_Group_size(g, &gs);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(gs == t_size && cmp == MPI_IDENT, "group size %d", gs);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    MPI_OK(MPI_File_set_size(fh, 1000));
    MPI_Offset sz;
    MPI_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 1000, "size %lld after set_size(1000)", (long long)sz);
    MPI_OK(MPI_File_preallocate(fh, 500));
    MPI_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 1000, "preallocate shrank the file to %lld", (long long)sz);
    MPI_OK(MPI_File_set_size(fh, 0));
    MPI_OK(MPI_File_preallocate(fh, 4096));
    MPI_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 4096, "size %lld after preallocate(4096)", (long long)sz);
    MPI_OK(MPI_File_set_size(fh, 0));

    /* explicit offsets: each rank its block of 100 ints */
    int buf[100], in[100];
    for (int i = 0; i < 100; i++)
        buf[i] = t_rank * 1000 + i;
    MPI_Status st;
    int n;
    MPI_OK(MPI_File_write_at(fh, (MPI_Offset)t_rank * sizeof(buf), buf, 100, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 100, "write_at count %d", n);
    MPI_OK(MPI_File_sync(fh));
    int peer = (t_rank + 1) % t_size;
    MPI_OK(MPI_File_read_at(fh, (MPI_Offset)peer * sizeof(buf), in, 100, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 100, "read_at count %d", n);
    for (int i = 0; i < 100; i++)
        CHECK(in[i] == peer * 1000 + i, "read_at: int %d is %d", i, in[i]);
    /* reading past the end: a short count */
    MPI_OK(MPI_File_read_at(fh, (MPI_Offset)t_size * sizeof(buf) - 40, in, 100, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 10, "read across the end: count %d, expected 10", n);

    /* the individual file pointer, with an etype of ints */
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_Offset pos;
    MPI_OK(MPI_File_seek(fh, (MPI_Offset)peer * 100 + 10, MPI_SEEK_SET));
    MPI_OK(MPI_File_read(fh, in, 5, MPI_INT, &st));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == (MPI_Offset)peer * 100 + 15, "position %lld after reading 5", (long long)pos);
    for (int i = 0; i < 5; i++)
        CHECK(in[i] == peer * 1000 + 10 + i, "read: int %d is %d", i, in[i]);
    MPI_OK(MPI_File_seek(fh, -5, MPI_SEEK_CUR));
    MPI_OK(MPI_File_read(fh, in, 1, MPI_INT, &st));
    CHECK(in[0] == peer * 1000 + 10, "after SEEK_CUR -5: %d", in[0]);
    MPI_OK(MPI_File_seek(fh, -1, MPI_SEEK_END));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == (MPI_Offset)t_size * 100 - 1, "SEEK_END -1: position %lld", (long long)pos);
    MPI_Offset byte;
    MPI_OK(MPI_File_get_byte_offset(fh, 7, &byte));
    CHECK(byte == 28, "byte offset of int 7: %lld", (long long)byte);
    MPI_File_sync(fh);
    /* write through the individual pointer, read back through explicit offsets */
    MPI_OK(MPI_File_seek(fh, (MPI_Offset)t_rank * 100 + 50, MPI_SEEK_SET));
    int w[3] = { -1 - t_rank, -2, -3 };
    MPI_OK(MPI_File_write(fh, w, 3, MPI_INT, &st));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == (MPI_Offset)t_rank * 100 + 53, "position after write %lld", (long long)pos);
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_File_read_at(fh, (MPI_Offset)peer * 100 + 50, in, 3, MPI_INT, &st));
    CHECK(in[0] == -1 - peer && in[1] == -2 && in[2] == -3, "read back %d %d %d", in[0], in[1],
          in[2]);
    MPI_OK(MPI_File_close(&fh));
    t_sync();
    if (t_rank == 0)
        MPI_OK(MPI_File_delete(p, MPI_INFO_NULL));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_io_begin("io_basic");
    errors();
    handlers();
    props_and_access();
    t_io_end();
    t_finish();
    return 0;
}
