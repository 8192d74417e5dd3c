/*
 * p2p_grequest: generalized requests (MPI_Grequest_start/complete) and the
 * order in which MPI calls their callbacks (MPI-3.1 12.2). Each callback
 * appends a letter to a log (q query, f free, c cancel with complete false,
 * C with complete true), checked after every step:
 * - Test before MPI_Grequest_complete: not complete, no callback;
 * - Grequest_complete then Wait: "qf" in Wait, the status from query_fn
 *   (source, tag, MPI_Status_set_elements count, MPI_Status_set_cancelled)
 *   even when Wait was given MPI_STATUS_IGNORE (query still runs);
 * - Request_get_status on a complete request: "q", no free, request kept;
 * - Request_free before complete: nothing; Grequest_complete then runs "f";
 *   Request_free after complete: "f" in Request_free, no query;
 * - Cancel before and after complete: "c" and "C";
 * - Waitall/Testany/Waitsome over several, mixed with MPI_REQUEST_NULL;
 * - query_fn returning an error: Wait returns it (MPI_ERRORS_RETURN),
 *   Waitall returns MPI_ERR_IN_STATUS with it in the status.
 */
#include "check.h"

typedef struct state {
    char log[64];
    int source, tag, count, cancelled, query_rc, free_rc;
} state_t;

static void note(state_t *s, char c)
{
    size_t n = strlen(s->log);
    s->log[n] = c;
    s->log[n + 1] = 0;
}

static int query_fn(void *extra, MPI_Status *st)
{
    state_t *s = extra;
    note(s, 'q');
    st->MPI_SOURCE = s->source;
    st->MPI_TAG = s->tag;
    MPI_Status_set_elements(st, MPI_INT, s->count);
    MPI_Status_set_cancelled(st, s->cancelled);
    return s->query_rc;
}

static int free_fn(void *extra)
{
    state_t *s = extra;
    note(s, 'f');
    return s->free_rc;
}

static int cancel_fn(void *extra, int complete)
{
    note(extra, complete ? 'C' : 'c');
    return MPI_SUCCESS;
}

#define LOG_IS(s, want) CHECK(strcmp((s)->log, want) == 0, "callbacks \"%s\", want \"%s\"", (s)->log, want)

static MPI_Request start(state_t *s)
{
    MPI_Request r;
    memset(s, 0, sizeof(*s));
    s->source = 3;
    s->tag = 42;
    s->count = 5;
    MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &r));
    CHECK(r != MPI_REQUEST_NULL, "Grequest_start gave MPI_REQUEST_NULL");
    return r;
}

static void test_wait(void)
{
    t_begin("wait");
    state_t s;
    MPI_Request r = start(&s);
    int flag = 1;
    MPI_Status st;
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(!flag && r != MPI_REQUEST_NULL, "Test completed a request not yet complete");
    LOG_IS(&s, "");
    MPI_OK(MPI_Grequest_complete(r));
    LOG_IS(&s, "");
    s.cancelled = 1;
    MPI_OK(MPI_Wait(&r, &st));
    LOG_IS(&s, "qf");
    CHECK(r == MPI_REQUEST_NULL, "Wait did not free the request");
    int count, cflag;
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Test_cancelled(&st, &cflag);
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 42 && count == 5 && cflag,
          "status: source %d tag %d count %d cancelled %d", st.MPI_SOURCE, st.MPI_TAG, count,
          cflag);

    t_begin("wait-status-ignore");
    r = start(&s);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    LOG_IS(&s, "qf");

    t_begin("test");
    r = start(&s);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(flag && r == MPI_REQUEST_NULL, "Test did not complete a complete request");
    LOG_IS(&s, "qf");
}

static void test_get_status_and_free(void)
{
    t_begin("get-status");
    state_t s;
    MPI_Request r = start(&s);
    int flag = 1;
    MPI_Status st;
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(!flag, "Request_get_status: complete before Grequest_complete");
    LOG_IS(&s, "");
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(flag && st.MPI_TAG == 42, "Request_get_status: flag %d tag %d", flag, st.MPI_TAG);
    LOG_IS(&s, "q");
    MPI_OK(MPI_Wait(&r, &st));
    LOG_IS(&s, "qqf");

    t_begin("free-before-complete");
    r = start(&s);
    MPI_Request keep = r;
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL, "Request_free did not null the handle");
    LOG_IS(&s, "");
    MPI_OK(MPI_Grequest_complete(keep));
    LOG_IS(&s, "f");

    t_begin("free-after-complete");
    r = start(&s);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Request_free(&r));
    LOG_IS(&s, "f");
}

static void test_cancel(void)
{
    t_begin("cancel");
    state_t s;
    MPI_Request r = start(&s);
    MPI_OK(MPI_Cancel(&r));
    LOG_IS(&s, "c");
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Cancel(&r));
    LOG_IS(&s, "cC");
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    LOG_IS(&s, "cCqf");
}

static void test_many(void)
{
    t_begin("waitall");
    state_t s[3];
    MPI_Request r[4];
    MPI_Status st[4];
    for (int i = 0; i < 3; i++) {
        r[i] = start(&s[i]);
        s[i].tag = 10 + i;
    }
    r[3] = MPI_REQUEST_NULL;
    for (int i = 2; i >= 0; i--)
        MPI_OK(MPI_Grequest_complete(r[i]));
    MPI_OK(MPI_Waitall(4, r, st));
    for (int i = 0; i < 3; i++) {
        LOG_IS(&s[i], "qf");
        CHECK(st[i].MPI_TAG == 10 + i && r[i] == MPI_REQUEST_NULL, "waitall %d: tag %d", i,
              st[i].MPI_TAG);
    }

    t_begin("testany-waitsome");
    for (int i = 0; i < 3; i++)
        r[i] = start(&s[i]);
    int idx = -1, flag = 1, out, ids[4];
    MPI_OK(MPI_Testany(3, r, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "Testany: complete before any Grequest_complete");
    MPI_OK(MPI_Grequest_complete(r[1]));
    MPI_OK(MPI_Testany(3, r, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && idx == 1, "Testany: flag %d index %d", flag, idx);
    LOG_IS(&s[1], "qf");
    LOG_IS(&s[0], "");
    MPI_OK(MPI_Grequest_complete(r[0]));
    MPI_OK(MPI_Grequest_complete(r[2]));
    MPI_OK(MPI_Waitsome(3, r, &out, ids, st));
    CHECK(out == 2, "Waitsome: %d completed", out);
    LOG_IS(&s[0], "qf");
    LOG_IS(&s[2], "qf");
}

static void test_errors(void)
{
    t_begin("query-error");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    state_t s, s2;
    MPI_Request r = start(&s);
    s.query_rc = MPI_ERR_OTHER;
    MPI_OK(MPI_Grequest_complete(r));
    int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_ERR_OTHER, "Wait returned %d, want query_fn's MPI_ERR_OTHER", rc);
    LOG_IS(&s, "qf");
    MPI_Request rr[2];
    rr[0] = start(&s);
    rr[1] = start(&s2);
    s2.query_rc = MPI_ERR_OTHER;
    MPI_OK(MPI_Grequest_complete(rr[0]));
    MPI_OK(MPI_Grequest_complete(rr[1]));
    MPI_Status st[2];
    rc = MPI_Waitall(2, rr, st);
    CHECK(rc == MPI_ERR_IN_STATUS && st[0].MPI_ERROR == MPI_SUCCESS &&
              st[1].MPI_ERROR == MPI_ERR_OTHER,
          "Waitall returned %d, errors %d %d", rc, st[0].MPI_ERROR, st[1].MPI_ERROR);
    LOG_IS(&s2, "qf");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_wait();
    test_get_status_and_free();
    test_cancel();
    test_many();
    test_errors();
    t_finish();
    if (t_rank == 0)
        printf("p2p_grequest: OK\n");
    return 0;
}
