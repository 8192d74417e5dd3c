/*
 * Error reporting under MPI_ERRORS_RETURN: the error class of each kind of
 * bad argument (rank, tag, count, datatype, communicator), truncation of a
 * message into a short buffer (blocking, nonblocking and in Waitall's
 * statuses), non-empty error strings, a user error handler created with
 * MPI_Comm_create_errhandler, and user-defined error classes, codes and
 * strings. Communication must still work after all of it.
 */
#include "check.h"

static int rank, size, left, right;

/* Checks that rc is an error of class cls. */
#define EXPECT_CLASS(rc, cls, what)                                                                \
    do {                                                                                           \
        int t_c_ = -1, t_rc2_ = (rc);                                                              \
        MPI_Error_class(t_rc2_, &t_c_);                                                            \
        CHECK(t_rc2_ != MPI_SUCCESS && t_c_ == (cls), "%s returned %d (class %d), expected %s",    \
              what, t_rc2_, t_c_, #cls);                                                           \
    } while (0)

static void bad_arguments(void)
{
    t_begin("bad-arguments");
    int buf[4] = {0};
    MPI_Request req;
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD), MPI_ERR_RANK,
                 "Send to rank = size");
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, -7, 1, MPI_COMM_WORLD), MPI_ERR_RANK, "Send to rank -7");
    EXPECT_CLASS(MPI_Recv(buf, 1, MPI_INT, size + 3, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_RANK, "Recv from rank = size + 3");
    EXPECT_CLASS(MPI_Isend(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD, &req), MPI_ERR_RANK,
                 "Isend to rank = size");
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, right, -5, MPI_COMM_WORLD), MPI_ERR_TAG,
                 "Send with tag -5");
    EXPECT_CLASS(MPI_Recv(buf, 1, MPI_INT, left, -5, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_TAG, "Recv with tag -5");
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, right, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG,
                 "Send with MPI_ANY_TAG");
    EXPECT_CLASS(MPI_Send(buf, -1, MPI_INT, right, 1, MPI_COMM_WORLD), MPI_ERR_COUNT,
                 "Send with count -1");
    EXPECT_CLASS(MPI_Irecv(buf, -3, MPI_INT, left, 1, MPI_COMM_WORLD, &req), MPI_ERR_COUNT,
                 "Irecv with count -3");
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_DATATYPE_NULL, right, 1, MPI_COMM_WORLD), MPI_ERR_TYPE,
                 "Send with MPI_DATATYPE_NULL");
    EXPECT_CLASS(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_TYPE, "Recv with MPI_DATATYPE_NULL");
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL), MPI_ERR_COMM,
                 "Send on MPI_COMM_NULL");
    EXPECT_CLASS(MPI_Recv(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL, MPI_STATUS_IGNORE), MPI_ERR_COMM,
                 "Recv on MPI_COMM_NULL");
    int r;
    EXPECT_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM, "Comm_rank(MPI_COMM_NULL)");
    MPI_Comm dup;
    EXPECT_CLASS(MPI_Comm_dup(MPI_COMM_NULL, &dup), MPI_ERR_COMM, "Comm_dup(MPI_COMM_NULL)");
    /* an uncommitted derived datatype cannot be used for communication */
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    EXPECT_CLASS(MPI_Send(buf, 1, t, right, 1, MPI_COMM_WORLD), MPI_ERR_TYPE,
                 "Send with an uncommitted datatype");
    MPI_Type_free(&t);
}

static void truncation(void)
{
    t_begin("truncate");
    int out[10], in[10];
    for (int i = 0; i < 10; i++)
        out[i] = rank * 10 + i;
    MPI_Request sreq[3], rreq[2];
    MPI_Status st;

    /* blocking receive of 10 ints into room for 5 */
    MPI_Isend(out, 10, MPI_INT, right, 20, MPI_COMM_WORLD, &sreq[0]);
    for (int i = 0; i < 10; i++)
        in[i] = -1;
    st.MPI_SOURCE = st.MPI_TAG = -99;
    int rc = MPI_Recv(in, 5, MPI_INT, left, 20, MPI_COMM_WORLD, &st);
    EXPECT_CLASS(rc, MPI_ERR_TRUNCATE, "Recv of 10 ints into 5");
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 20, "truncated status (source %d, tag %d)",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK(in[5] == -1 && in[9] == -1, "truncated receive wrote past the buffer");

    /* nonblocking: the error is reported by Wait */
    MPI_Isend(out, 10, MPI_INT, right, 21, MPI_COMM_WORLD, &sreq[1]);
    MPI_Irecv(in, 3, MPI_INT, left, 21, MPI_COMM_WORLD, &rreq[0]);
    rc = MPI_Wait(&rreq[0], &st);
    EXPECT_CLASS(rc, MPI_ERR_TRUNCATE, "Irecv of 10 ints into 3, at Wait");
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 21, "truncated status (source %d, tag %d)",
          st.MPI_SOURCE, st.MPI_TAG);

    /* in Waitall: MPI_ERR_IN_STATUS, and the per-request error in the statuses */
    MPI_Isend(out, 10, MPI_INT, right, 22, MPI_COMM_WORLD, &sreq[2]);
    MPI_Irecv(in, 2, MPI_INT, left, 22, MPI_COMM_WORLD, &rreq[0]);
    rreq[1] = MPI_REQUEST_NULL;
    MPI_Status sts[2];
    sts[0].MPI_ERROR = MPI_SUCCESS;
    rc = MPI_Waitall(2, rreq, sts);
    EXPECT_CLASS(rc, MPI_ERR_IN_STATUS, "Waitall with a truncated receive");
    int cls = -1;
    MPI_Error_class(sts[0].MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "Waitall status MPI_ERROR %d (class %d), expected truncate",
          sts[0].MPI_ERROR, cls);
    MPI_Waitall(3, sreq, MPI_STATUSES_IGNORE);
}

static void error_strings(void)
{
    t_begin("error-string");
    static const int classes[] = {
        MPI_SUCCESS,      MPI_ERR_BUFFER,     MPI_ERR_COUNT,      MPI_ERR_TYPE,
        MPI_ERR_TAG,      MPI_ERR_COMM,       MPI_ERR_RANK,       MPI_ERR_REQUEST,
        MPI_ERR_ROOT,     MPI_ERR_GROUP,      MPI_ERR_OP,         MPI_ERR_TOPOLOGY,
        MPI_ERR_DIMS,     MPI_ERR_ARG,        MPI_ERR_UNKNOWN,    MPI_ERR_TRUNCATE,
        MPI_ERR_OTHER,    MPI_ERR_INTERN,     MPI_ERR_IN_STATUS,  MPI_ERR_PENDING,
        MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY, MPI_ERR_NO_MEM};
    for (unsigned i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
        char s[MPI_MAX_ERROR_STRING];
        int len = -1, cls = -1;
        memset(s, 0, sizeof(s));
        MPI_OK(MPI_Error_string(classes[i], s, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (size_t)len == strlen(s),
              "Error_string(%d): length %d for \"%s\"", classes[i], len, s);
        MPI_OK(MPI_Error_class(classes[i], &cls));
        CHECK(cls == classes[i], "Error_class(%d) = %d", classes[i], cls);
    }
    CHECK(MPI_ERR_LASTCODE >= MPI_ERR_NO_MEM, "MPI_ERR_LASTCODE %d is below the standard classes",
          MPI_ERR_LASTCODE);
}

static int handler_calls;
static int handler_last_code;
static MPI_Comm handler_last_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_last_code = *code;
    handler_last_comm = *comm;
}

static void user_handler(void)
{
    t_begin("user-errhandler");
    MPI_Comm dup;
    MPI_Errhandler eh, got;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_OK(MPI_Comm_create_errhandler(my_handler, &eh));
    MPI_OK(MPI_Comm_set_errhandler(dup, eh));
    MPI_OK(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == eh, "Comm_get_errhandler returned another handler");
    MPI_Errhandler_free(&got);

    int buf = 0, cls;
    int rc = MPI_Send(&buf, 1, MPI_INT, size + 1, 1, dup);
    CHECK(handler_calls == 1, "the handler ran %d times for one error", handler_calls);
    MPI_Error_class(handler_last_code, &cls);
    CHECK(cls == MPI_ERR_RANK, "the handler got code %d (class %d), expected MPI_ERR_RANK",
          handler_last_code, cls);
    CHECK(handler_last_comm == dup, "the handler got another communicator");
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "after the handler returned, Send returned %d (class %d)", rc, cls);

    /* Comm_call_errhandler invokes it directly */
    MPI_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_last_code == MPI_ERR_OTHER,
          "Comm_call_errhandler: %d calls, code %d", handler_calls, handler_last_code);

    /* a duplicate inherits the error handler */
    MPI_Comm dup2;
    MPI_Comm_dup(dup, &dup2);
    MPI_Send(&buf, 1, MPI_INT, right, -5, dup2);
    CHECK(handler_calls == 3, "a duplicated communicator did not inherit the handler");
    MPI_Error_class(handler_last_code, &cls);
    CHECK(cls == MPI_ERR_TAG, "handler got class %d, expected MPI_ERR_TAG", cls);
    MPI_Comm_free(&dup2);

    /* errors on another communicator do not reach it */
    MPI_Send(&buf, 1, MPI_INT, size + 1, 1, MPI_COMM_WORLD);
    CHECK(handler_calls == 3, "handler of a duplicate ran for an error on MPI_COMM_WORLD");

    MPI_OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not null the handle");
    /* still attached to dup, so still called */
    MPI_Send(&buf, 1, MPI_INT, size + 1, 1, dup);
    CHECK(handler_calls == 4, "freed handler still attached to a communicator was not called");
    MPI_Comm_free(&dup);
}

static void user_classes(void)
{
    t_begin("add-error-class");
    int cls1, cls2, code1, code2, got;
    MPI_OK(MPI_Add_error_class(&cls1));
    MPI_OK(MPI_Add_error_class(&cls2));
    CHECK(cls1 > MPI_ERR_LASTCODE && cls2 > MPI_ERR_LASTCODE && cls1 != cls2,
          "new classes %d and %d (MPI_ERR_LASTCODE %d)", cls1, cls2, MPI_ERR_LASTCODE);
    MPI_OK(MPI_Add_error_code(cls1, &code1));
    MPI_OK(MPI_Add_error_code(cls2, &code2));
    CHECK(code1 != code2 && code1 != cls1 && code2 != cls2, "codes %d, %d for classes %d, %d",
          code1, code2, cls1, cls2);
    MPI_OK(MPI_Error_class(code1, &got));
    CHECK(got == cls1, "class of code %d is %d, expected %d", code1, got, cls1);
    MPI_OK(MPI_Error_class(code2, &got));
    CHECK(got == cls2, "class of code %d is %d, expected %d", code2, got, cls2);
#ifndef OPEN_MPI /* Open MPI 4.1 says MPI_ERR_UNKNOWN; a class is also a code of itself */
    MPI_OK(MPI_Error_class(cls1, &got));
    CHECK(got == cls1, "class of class %d is %d", cls1, got);
#endif

    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_OK(MPI_Add_error_string(code1, "rdmpi test: first user code"));
    MPI_OK(MPI_Add_error_string(cls2, "rdmpi test: second user class"));
    MPI_OK(MPI_Error_string(code1, s, &len));
    CHECK(!strcmp(s, "rdmpi test: first user code") && len == (int)strlen(s),
          "Error_string(code1) = \"%s\" (%d)", s, len);
    MPI_OK(MPI_Error_string(cls2, s, &len));
    CHECK(!strcmp(s, "rdmpi test: second user class"), "Error_string(cls2) = \"%s\"", s);
    /* replacing a string */
    MPI_OK(MPI_Add_error_string(code1, "replaced"));
    MPI_OK(MPI_Error_string(code1, s, &len));
    CHECK(!strcmp(s, "replaced"), "Error_string after replacement = \"%s\"", s);
    /* a code without a string still gets a (possibly empty) string and does not fail */
    MPI_OK(MPI_Error_string(code2, s, &len));
    CHECK(len >= 0 && len < MPI_MAX_ERROR_STRING, "Error_string(code2) length %d", len);

    /* user codes pass through the error handler machinery */
    MPI_Comm dup;
    MPI_Errhandler eh;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_errhandler(my_handler, &eh);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Errhandler_free(&eh);
    handler_calls = 0;
    MPI_Comm_call_errhandler(dup, code2);
    CHECK(handler_calls == 1 && handler_last_code == code2, "handler: %d calls, code %d",
          handler_calls, handler_last_code);
    MPI_Comm_free(&dup);
}

/* After all these errors, plain communication works. */
static void still_works(void)
{
    t_begin("after-errors");
    int v = rank * 11, r = -1;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, right, 30, &r, 1, MPI_INT, left, 30, MPI_COMM_WORLD, &st));
    CHECK(r == left * 11, "got %d", r);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    rank = t_rank;
    size = t_size;
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    /* errors without a usable communicator may be raised on either of these */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "Comm_get_errhandler does not return MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&eh);
    bad_arguments();
    t_sync();
    truncation();
    t_sync();
    error_strings();
    user_handler();
    user_classes();
    t_sync();
    still_works();
    t_finish();
    return 0;
}
