/*
 * Errors of file accesses that surface at completion go to the file's error
 * handler (MPI-4.1 9.3 and 14.7), not to a communicator's: a collective
 * nonblocking access (MPI_File_iwrite_at_all, iwrite_all) and a split
 * collective (_begin/_end) fail inside the file system after the call has
 * returned, and MPI_Wait, MPI_Test, MPI_Waitall and the _end call must run
 * the file's handler once, with the class in the status. The failure is
 * real: the file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored) makes the
 * write past it fail with EFBIG. MPI_COMM_WORLD keeps MPI_ERRORS_ARE_FATAL,
 * so an error raised on a communicator instead ends the test.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "io_check.h"

#define N 1024                    /* ints per rank and block */
#define LIMIT (64 * 1024)         /* the file size limit while the accesses fail */

static int calls, last_class;
static MPI_File last_file;

static void handler(MPI_File *fh, int *code, ...)
{
    calls++;
    last_file = *fh;
    MPI_Error_class(*code, &last_class);
}

static struct rlimit saved;

static void limit_size(void)
{
    CHECK(getrlimit(RLIMIT_FSIZE, &saved) == 0, "getrlimit");
    struct rlimit r = saved;
    r.rlim_cur = LIMIT;
    CHECK(setrlimit(RLIMIT_FSIZE, &r) == 0, "setrlimit");
}

static void unlimit_size(void)
{
    CHECK(setrlimit(RLIMIT_FSIZE, &saved) == 0, "setrlimit (restore)");
}

/* A class an EFBIG write may be given. */
static int write_class(int cls)
{
    return cls == MPI_ERR_IO || cls == MPI_ERR_NO_SPACE || cls == MPI_ERR_FILE;
}

static void expect_one_call(MPI_File fh, int rc, const char *what)
{
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS, "%s succeeded past the file size limit", what);
    CHECK(calls == 1, "%s: the file's handler ran %d times, want 1", what, calls);
    CHECK(last_file == fh, "%s: the handler got another file", what);
    CHECK(last_class == cls && write_class(cls), "%s: class %d (handler %d)", what, cls,
          last_class);
    calls = 0;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_io_begin("errnb");
    signal(SIGXFSZ, SIG_IGN);
    char path[600];
    MPI_File fh;
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    /* collective buffering on every rank count, in several rounds */
    MPI_OK(MPI_Info_set(info, "cb_buffer_size", "8192"));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", "enable"));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, t_io_path(path, sizeof(path), "f"),
                         MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_OK(MPI_Info_free(&info));
    MPI_Errhandler eh;
    MPI_OK(MPI_File_create_errhandler(handler, &eh));
    MPI_OK(MPI_File_set_errhandler(fh, eh));
    /* interleaved blocks of N ints, starting past the limit */
    MPI_Datatype ft;
    MPI_OK(MPI_Type_vector(4, N, N * t_size, MPI_INT, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_File_set_view(fh, 2 * LIMIT + (MPI_Offset)t_rank * N * sizeof(int), MPI_INT, ft,
                             "native", MPI_INFO_NULL));
    int *buf = malloc(4 * N * sizeof(int));
    for (int i = 0; i < 4 * N; i++)
        buf[i] = t_rank * 100000 + i;
    MPI_Status st;
    MPI_Request req[2];

    t_begin("iwrite_at_all + MPI_Wait");
    limit_size();
    calls = 0;
    MPI_OK(MPI_File_iwrite_at_all(fh, 0, buf, 4 * N, MPI_INT, &req[0]));
    CHECK(calls == 0, "the handler ran at the start");
    st.MPI_ERROR = -7;
    int rc = MPI_Wait(&req[0], &st);
    expect_one_call(fh, rc, "MPI_Wait");
    CHECK(req[0] == MPI_REQUEST_NULL, "the failed request was not released");
    /* MPI_Wait reports through its return code alone: status.MPI_ERROR is written only
     * by the calls that can return MPI_ERR_IN_STATUS (MPI-4.1 3.2.5) */
    CHECK(st.MPI_ERROR == -7, "MPI_Wait wrote MPI_ERROR = %d", st.MPI_ERROR);
    int cls;

    t_begin("iwrite_all + MPI_Test");
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_iwrite_all(fh, buf, 4 * N, MPI_INT, &req[0]));
    int flag = 0;
    rc = MPI_SUCCESS;
    while (!flag && rc == MPI_SUCCESS)
        rc = MPI_Test(&req[0], &flag, &st);
    CHECK(flag, "MPI_Test failed before the request completed");
    expect_one_call(fh, rc, "MPI_Test");

    t_begin("two accesses + MPI_Waitall");
    MPI_OK(MPI_File_iwrite_at_all(fh, 0, buf, 2 * N, MPI_INT, &req[0]));
    MPI_OK(MPI_File_iwrite_at_all(fh, 2 * N, buf + 2 * N, 2 * N, MPI_INT, &req[1]));
    MPI_Status sts[2];
    rc = MPI_Waitall(2, req, sts);
    CHECK(rc == MPI_ERR_IN_STATUS, "MPI_Waitall returned %d, want MPI_ERR_IN_STATUS", rc);
    CHECK(calls == 1 && last_file == fh && last_class == MPI_ERR_IN_STATUS,
          "MPI_Waitall: %d calls of the file's handler, class %d", calls, last_class);
    calls = 0;
    for (int i = 0; i < 2; i++) {
        MPI_Error_class(sts[i].MPI_ERROR, &cls);
        CHECK(write_class(cls), "status %d: class %d", i, cls);
    }

    t_begin("write_at_all_begin/_end");
    MPI_OK(MPI_File_write_at_all_begin(fh, 0, buf, 4 * N, MPI_INT));
    CHECK(calls == 0, "the handler ran at _begin");
    rc = MPI_File_write_at_all_end(fh, buf, &st);
    expect_one_call(fh, rc, "MPI_File_write_at_all_end");
    unlimit_size();

    t_begin("below the limit");
    /* the same accesses succeed once the limit is lifted: the failures were the limit's */
    MPI_OK(MPI_File_iwrite_at_all(fh, 0, buf, 4 * N, MPI_INT, &req[0]));
    MPI_OK(MPI_Wait(&req[0], &st));
    int n;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 4 * N && calls == 0, "wrote %d ints, %d handler calls", n, calls);
    int *in = calloc(4 * N, sizeof(int));
    MPI_OK(MPI_File_iread_at_all(fh, 0, in, 4 * N, MPI_INT, &req[0]));
    MPI_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    CHECK(memcmp(in, buf, 4 * N * sizeof(int)) == 0, "read back other data");

    free(in);
    free(buf);
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Errhandler_free(&eh));
    t_io_end();
    t_finish();
    return 0;
}
