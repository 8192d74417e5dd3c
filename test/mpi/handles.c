/*
 * Bad handles and bad arrays under MPI_ERRORS_RETURN:
 *  - the Wait/Test family and MPI_Startall with a negative count (MPI_ERR_COUNT), a NULL
 *    array of requests or a NULL flag/index/outcount/indices (MPI_ERR_ARG), a freed or
 *    made-up request in the array (MPI_ERR_REQUEST, and the other requests untouched);
 *    count 0 with NULL arrays and MPI_STATUSES_IGNORE still work;
 *  - freed communicators, datatypes, groups, ops, infos, error handlers, requests and
 *    messages, pointers into the middle of a live object and made-up pointers, each given
 *    to a few calls: the error class of the kind, never a crash (and under ASan, never a
 *    read of freed memory);
 *  - communication still works afterwards.
 * Using a freed handle is erroneous in MPI, and other implementations crash on several of
 * these (Open MPI 4.1 and MPICH 4.0 do): those parts run only against rdmpi. Elsewhere the
 * argument checks only need to return an error, since the classes differ between them.
 */
#include "check.h"

static int rank, size, left, right;

#ifdef RDMPI
#define STRICT 1   /* exact classes, and the erroneous-handle tests */
#else
#define STRICT 0
#endif

#define EXPECT_CLASS(rc, cls, what)                                                                \
    do {                                                                                           \
        int t_c_ = -1, t_rc2_ = (rc);                                                              \
        if (t_rc2_ != MPI_SUCCESS)                                                                 \
            MPI_Error_class(t_rc2_, &t_c_);                                                        \
        CHECK(t_rc2_ != MPI_SUCCESS && (!STRICT || t_c_ == (cls)),                                 \
              "%s returned %d (class %d), expected %s", what, t_rc2_, t_c_, #cls);                 \
    } while (0)

static void uf(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

static void eh_fn(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
}

/* A pair of receives from left and sends to right, tag tag, not yet waited for. */
static void post_ring(MPI_Request r[4], int in[2], int out[2], int tag)
{
    out[0] = rank, out[1] = rank + 100;
    MPI_OK(MPI_Irecv(&in[0], 1, MPI_INT, left, tag, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Irecv(&in[1], 1, MPI_INT, left, tag + 1, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Isend(&out[0], 1, MPI_INT, right, tag, MPI_COMM_WORLD, &r[2]));
    MPI_OK(MPI_Isend(&out[1], 1, MPI_INT, right, tag + 1, MPI_COMM_WORLD, &r[3]));
}

static void wait_family(void)
{
    t_begin("wait-family-counts");
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[2];
    int idx = -5, out = -5, flag = -5, ind[2];
    EXPECT_CLASS(MPI_Waitall(-1, reqs, sts), MPI_ERR_COUNT, "Waitall(-1)");
    EXPECT_CLASS(MPI_Testall(-1, reqs, &flag, sts), MPI_ERR_COUNT, "Testall(-1)");
    EXPECT_CLASS(MPI_Waitany(-1, reqs, &idx, &st), MPI_ERR_COUNT, "Waitany(-1)");
    EXPECT_CLASS(MPI_Testany(-2, reqs, &idx, &flag, &st), MPI_ERR_COUNT, "Testany(-2)");
    EXPECT_CLASS(MPI_Waitsome(-1, reqs, &out, ind, sts), MPI_ERR_COUNT, "Waitsome(-1)");
    EXPECT_CLASS(MPI_Testsome(-1, reqs, &out, ind, sts), MPI_ERR_COUNT, "Testsome(-1)");
    EXPECT_CLASS(MPI_Startall(-1, reqs), MPI_ERR_COUNT, "Startall(-1)");

    t_begin("wait-family-null-arrays");
    MPI_Request *none = NULL;   /* through a variable: compilers warn about a literal NULL */
    EXPECT_CLASS(MPI_Waitall(2, none, sts), MPI_ERR_ARG, "Waitall(2, NULL)");
    EXPECT_CLASS(MPI_Testall(2, none, &flag, sts), MPI_ERR_ARG, "Testall(2, NULL)");
    EXPECT_CLASS(MPI_Waitany(2, none, &idx, &st), MPI_ERR_ARG, "Waitany(2, NULL)");
    EXPECT_CLASS(MPI_Testany(2, none, &idx, &flag, &st), MPI_ERR_ARG, "Testany(2, NULL)");
    EXPECT_CLASS(MPI_Waitsome(2, none, &out, ind, sts), MPI_ERR_ARG, "Waitsome(2, NULL)");
    EXPECT_CLASS(MPI_Testsome(2, none, &out, ind, sts), MPI_ERR_ARG, "Testsome(2, NULL)");
    EXPECT_CLASS(MPI_Startall(2, none), MPI_ERR_ARG, "Startall(2, NULL)");
    int *noint = NULL;
    EXPECT_CLASS(MPI_Testall(2, reqs, noint, sts), MPI_ERR_ARG, "Testall(flag NULL)");
    EXPECT_CLASS(MPI_Waitany(2, reqs, noint, &st), MPI_ERR_ARG, "Waitany(index NULL)");
    EXPECT_CLASS(MPI_Testany(2, reqs, noint, &flag, &st), MPI_ERR_ARG, "Testany(index NULL)");
    EXPECT_CLASS(MPI_Testany(2, reqs, &idx, noint, &st), MPI_ERR_ARG, "Testany(flag NULL)");
    EXPECT_CLASS(MPI_Waitsome(2, reqs, noint, ind, sts), MPI_ERR_ARG, "Waitsome(outcount NULL)");
    EXPECT_CLASS(MPI_Waitsome(2, reqs, &out, noint, sts), MPI_ERR_ARG, "Waitsome(indices NULL)");
    EXPECT_CLASS(MPI_Testsome(2, reqs, noint, ind, sts), MPI_ERR_ARG, "Testsome(outcount NULL)");
    EXPECT_CLASS(MPI_Testsome(2, reqs, &out, noint, sts), MPI_ERR_ARG, "Testsome(indices NULL)");
    EXPECT_CLASS(MPI_Test(&reqs[0], noint, &st), MPI_ERR_ARG, "Test(flag NULL)");
    EXPECT_CLASS(MPI_Request_get_status(MPI_REQUEST_NULL, noint, &st), MPI_ERR_ARG,
                 "Request_get_status(flag NULL)");
    EXPECT_CLASS(MPI_Wait(none, &st), MPI_ERR_REQUEST, "Wait(NULL)");

    t_begin("wait-family-empty");
    /* count 0: the arrays may be NULL; all-null requests complete at once */
    MPI_OK(MPI_Waitall(0, none, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Testall(0, none, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag == 1, "Testall(0) flag %d", flag);
    MPI_OK(MPI_Waitany(0, none, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "Waitany(0) index %d", idx);
    MPI_OK(MPI_Waitsome(0, none, &out, noint, MPI_STATUSES_IGNORE));
    CHECK(out == MPI_UNDEFINED, "Waitsome(0) outcount %d", out);
#if STRICT /* Open MPI 4.1 refuses the NULL array even for count 0 (MPI_ERR_REQUEST) */
    MPI_OK(MPI_Startall(0, none));
#endif
    MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));

    t_begin("wait-family-statuses-ignore");
    MPI_Request r[4];
    int in[2], outv[2];
    post_ring(r, in, outv, 40);
    MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    CHECK(in[0] == left && in[1] == left + 100, "received %d %d", in[0], in[1]);
    post_ring(r, in, outv, 42);
    int done = 0, ind4[4];
    while (done < 4) {
        MPI_OK(MPI_Waitsome(4, r, &out, ind4, MPI_STATUSES_IGNORE));
        CHECK(out != MPI_UNDEFINED, "Waitsome found no active request after %d", done);
        done += out;
    }
    CHECK(in[0] == left && in[1] == left + 100, "received %d %d", in[0], in[1]);
}

/* A request that is freed or made up, in an array with live ones: refused before anything
 * completes, and the live ones can still be waited for. */
static void bad_request_in_array(void)
{
#if STRICT
    t_begin("wait-family-bad-request");
    MPI_Request r[5], stale;
    int in[2], outv[2], x = 0, flag, idx, out, ind[5];
    /* the stale handle is made last: a request slot is reused by the next request (there
     * are no generations in a pointer) */
    post_ring(r, in, outv, 50);
    MPI_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &stale));
    MPI_Request copy = stale;
    MPI_OK(MPI_Wait(&stale, MPI_STATUS_IGNORE));
    MPI_Request made_up = (MPI_Request)(uintptr_t)0x1234;
    for (int k = 0; k < 2; k++) {
        r[4] = k ? made_up : copy;
        EXPECT_CLASS(MPI_Waitall(5, r, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "Waitall(bad)");
        EXPECT_CLASS(MPI_Testall(5, r, &flag, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST,
                     "Testall(bad)");
        EXPECT_CLASS(MPI_Waitany(5, r, &idx, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "Waitany(bad)");
        EXPECT_CLASS(MPI_Testany(5, r, &idx, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST,
                     "Testany(bad)");
        EXPECT_CLASS(MPI_Waitsome(5, r, &out, ind, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST,
                     "Waitsome(bad)");
        EXPECT_CLASS(MPI_Testsome(5, r, &out, ind, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST,
                     "Testsome(bad)");
        EXPECT_CLASS(MPI_Startall(1, &r[4]), MPI_ERR_REQUEST, "Startall(bad)");
        for (int i = 0; i < 4; i++)
            CHECK(r[i] != MPI_REQUEST_NULL, "request %d was completed by a failed call", i);
    }
    MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    CHECK(in[0] == left && in[1] == left + 100, "received %d %d", in[0], in[1]);
#endif
}

/* Freed and made-up handles of every kind. */
static void bad_handles(void)
{
#if STRICT
    int buf[4] = {0}, v;
    MPI_Status st;
    MPI_Comm garbage_comm = (MPI_Comm)(uintptr_t)0x1234;

    t_begin("freed-comm");
    MPI_Comm dup, stale;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    stale = dup;
    MPI_OK(MPI_Comm_free(&dup));
    EXPECT_CLASS(MPI_Comm_rank(stale, &v), MPI_ERR_COMM, "Comm_rank(freed)");
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, right, 0, stale), MPI_ERR_COMM, "Send(freed comm)");
    EXPECT_CLASS(MPI_Recv(buf, 1, MPI_INT, left, 0, stale, &st), MPI_ERR_COMM,
                 "Recv(freed comm)");
    EXPECT_CLASS(MPI_Barrier(stale), MPI_ERR_COMM, "Barrier(freed comm)");
    EXPECT_CLASS(MPI_Comm_free(&stale), MPI_ERR_COMM, "Comm_free(freed)");
    EXPECT_CLASS(MPI_Comm_rank(garbage_comm, &v), MPI_ERR_COMM, "Comm_rank(0x1234)");
    EXPECT_CLASS(MPI_Send(buf, 1, MPI_INT, right, 0, garbage_comm), MPI_ERR_COMM,
                 "Send(0x1234)");
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    EXPECT_CLASS(MPI_Comm_size((MPI_Comm)((char *)dup + 8), &v), MPI_ERR_COMM,
                 "Comm_size(inside a communicator)");
    EXPECT_CLASS(MPI_Comm_size((MPI_Comm)((char *)MPI_COMM_WORLD + 8), &v), MPI_ERR_COMM,
                 "Comm_size(inside MPI_COMM_WORLD)");
    EXPECT_CLASS(MPI_Comm_size((MPI_Comm)(void *)MPI_INT, &v), MPI_ERR_COMM,
                 "Comm_size(a datatype)");
    MPI_OK(MPI_Comm_free(&dup));

    t_begin("freed-datatype");
    MPI_Datatype t, tstale;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    tstale = t;
    MPI_OK(MPI_Type_free(&t));
    EXPECT_CLASS(MPI_Type_size(tstale, &v), MPI_ERR_TYPE, "Type_size(freed)");
    EXPECT_CLASS(MPI_Send(buf, 1, tstale, right, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
                 "Send(freed type)");
    EXPECT_CLASS(MPI_Type_commit(&tstale), MPI_ERR_TYPE, "Type_commit(freed)");
    EXPECT_CLASS(MPI_Type_free(&tstale), MPI_ERR_TYPE, "Type_free(freed)");
    EXPECT_CLASS(MPI_Type_vector(2, 1, 2, tstale, &t), MPI_ERR_TYPE, "Type_vector(freed old)");
    EXPECT_CLASS(MPI_Type_create_struct(1, (int[]){1}, (MPI_Aint[]){0}, &tstale, &t),
                 MPI_ERR_TYPE, "Type_create_struct(freed member)");
    EXPECT_CLASS(MPI_Type_size((MPI_Datatype)(uintptr_t)0x1234, &v), MPI_ERR_TYPE,
                 "Type_size(0x1234)");
    EXPECT_CLASS(MPI_Send(buf, 1, (MPI_Datatype)((char *)MPI_INT + 16), right, 0, MPI_COMM_WORLD),
                 MPI_ERR_TYPE, "Send(inside MPI_INT)");

    t_begin("freed-group");
    MPI_Group g, g1, gstale;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    MPI_OK(MPI_Group_incl(g, 1, (int[]){0}, &g1));
    gstale = g1;
    MPI_OK(MPI_Group_free(&g1));
    EXPECT_CLASS(MPI_Group_size(gstale, &v), MPI_ERR_GROUP, "Group_size(freed)");
    EXPECT_CLASS(MPI_Group_union(g, gstale, &g1), MPI_ERR_GROUP, "Group_union(freed)");
    EXPECT_CLASS(MPI_Comm_create(MPI_COMM_WORLD, gstale, &dup), MPI_ERR_GROUP,
                 "Comm_create(freed group)");
    EXPECT_CLASS(MPI_Group_free(&gstale), MPI_ERR_GROUP, "Group_free(freed)");
    EXPECT_CLASS(MPI_Group_rank((MPI_Group)(uintptr_t)0x1234, &v), MPI_ERR_GROUP,
                 "Group_rank(0x1234)");
    MPI_OK(MPI_Group_free(&g));

    t_begin("freed-op");
    MPI_Op op, ostale;
    MPI_OK(MPI_Op_create(uf, 1, &op));
    ostale = op;
    MPI_OK(MPI_Op_free(&op));
    EXPECT_CLASS(MPI_Reduce_local(buf, buf + 1, 1, MPI_INT, ostale), MPI_ERR_OP,
                 "Reduce_local(freed op)");
    EXPECT_CLASS(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, ostale, MPI_COMM_WORLD), MPI_ERR_OP,
                 "Allreduce(freed op)");
    EXPECT_CLASS(MPI_Op_commutative(ostale, &v), MPI_ERR_OP, "Op_commutative(freed)");
    EXPECT_CLASS(MPI_Op_free(&ostale), MPI_ERR_OP, "Op_free(freed)");
    EXPECT_CLASS(MPI_Reduce_local(buf, buf + 1, 1, MPI_INT, (MPI_Op)(uintptr_t)0x1234),
                 MPI_ERR_OP, "Reduce_local(0x1234)");

    t_begin("freed-info");
    MPI_Info info, istale;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "k", "v"));
    istale = info;
    MPI_OK(MPI_Info_free(&info));
    EXPECT_CLASS(MPI_Info_set(istale, "k", "w"), MPI_ERR_INFO, "Info_set(freed)");
    EXPECT_CLASS(MPI_Info_get_nkeys(istale, &v), MPI_ERR_INFO, "Info_get_nkeys(freed)");
    EXPECT_CLASS(MPI_Info_free(&istale), MPI_ERR_INFO, "Info_free(freed)");
    EXPECT_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, istale, &dup),
                 MPI_ERR_INFO, "Comm_split_type(freed info)");
    EXPECT_CLASS(MPI_Info_get_nkeys((MPI_Info)(uintptr_t)0x1234, &v), MPI_ERR_INFO,
                 "Info_get_nkeys(0x1234)");

    t_begin("freed-errhandler");
    MPI_Errhandler e, estale;
    MPI_OK(MPI_Comm_create_errhandler(eh_fn, &e));
    estale = e;
    MPI_OK(MPI_Errhandler_free(&e));
    EXPECT_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, estale), MPI_ERR_ERRHANDLER,
                 "Comm_set_errhandler(freed)");
    EXPECT_CLASS(MPI_Errhandler_free(&estale), MPI_ERR_ERRHANDLER, "Errhandler_free(freed)");
    EXPECT_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)(uintptr_t)0x1234),
                 MPI_ERR_ERRHANDLER, "Comm_set_errhandler(0x1234)");

    t_begin("freed-request");
    MPI_Request r, rstale;
    MPI_OK(MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    rstale = r;
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL, "Wait did not null the handle");
    EXPECT_CLASS(MPI_Wait(&rstale, &st), MPI_ERR_REQUEST, "Wait(completed)");
    EXPECT_CLASS(MPI_Test(&rstale, &v, &st), MPI_ERR_REQUEST, "Test(completed)");
    EXPECT_CLASS(MPI_Request_free(&rstale), MPI_ERR_REQUEST, "Request_free(completed)");
    EXPECT_CLASS(MPI_Cancel(&rstale), MPI_ERR_REQUEST, "Cancel(completed)");
    EXPECT_CLASS(MPI_Request_get_status(rstale, &v, &st), MPI_ERR_REQUEST,
                 "Request_get_status(completed)");
    MPI_OK(MPI_Send_init(buf, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &r));
    rstale = r;
    MPI_OK(MPI_Request_free(&r));
    EXPECT_CLASS(MPI_Start(&rstale), MPI_ERR_REQUEST, "Start(freed persistent)");
    MPI_Request garbage_req = (MPI_Request)(uintptr_t)0x1234;
    EXPECT_CLASS(MPI_Wait(&garbage_req, &st), MPI_ERR_REQUEST, "Wait(0x1234)");
    EXPECT_CLASS(MPI_Start(&garbage_req), MPI_ERR_REQUEST, "Start(0x1234)");

    t_begin("freed-message");
    MPI_Message m, mstale;
    MPI_OK(MPI_Send(buf, 1, MPI_INT, 0, 8, MPI_COMM_SELF));
    MPI_OK(MPI_Mprobe(0, 8, MPI_COMM_SELF, &m, &st));
    mstale = m;
    MPI_OK(MPI_Mrecv(buf, 1, MPI_INT, &m, &st));
    CHECK(m == MPI_MESSAGE_NULL, "Mrecv did not null the message");
    EXPECT_CLASS(MPI_Mrecv(buf, 1, MPI_INT, &mstale, &st), MPI_ERR_REQUEST,
                 "Mrecv(received message)");
#endif
}

/* Other calls with counts and arrays. */
static void other_arrays(void)
{
    t_begin("other-arrays");
    MPI_Datatype t;
    MPI_Group g, ng;
    MPI_Comm c;
    int *noint = NULL, v;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    EXPECT_CLASS(MPI_Group_incl(g, -1, (int[]){0}, &ng), MPI_ERR_ARG, "Group_incl(n -1)");
#if STRICT /* MPICH 4.0 crashes on these */
    EXPECT_CLASS(MPI_Group_incl(g, 1, noint, &ng), MPI_ERR_ARG, "Group_incl(ranks NULL)");
    EXPECT_CLASS(MPI_Group_excl(g, 1, noint, &ng), MPI_ERR_ARG, "Group_excl(ranks NULL)");
    EXPECT_CLASS(MPI_Group_translate_ranks(g, 1, noint, g, (int[]){0}), MPI_ERR_ARG,
                 "Group_translate_ranks(NULL)");
#endif
    MPI_OK(MPI_Group_free(&g));
    EXPECT_CLASS(MPI_Type_indexed(-1, (int[]){1}, (int[]){0}, MPI_INT, &t), MPI_ERR_COUNT,
                 "Type_indexed(-1)");
    EXPECT_CLASS(MPI_Type_indexed(2, noint, (int[]){0, 1}, MPI_INT, &t), MPI_ERR_ARG,
                 "Type_indexed(blocklengths NULL)");
    EXPECT_CLASS(MPI_Type_indexed(2, (int[]){1, 1}, noint, MPI_INT, &t), MPI_ERR_ARG,
                 "Type_indexed(displacements NULL)");
    EXPECT_CLASS(MPI_Type_create_hindexed(2, noint, (MPI_Aint[]){0, 4}, MPI_INT, &t),
                 MPI_ERR_ARG, "Type_create_hindexed(blocklengths NULL)");
    EXPECT_CLASS(MPI_Type_create_struct(1, noint, (MPI_Aint[]){0}, (MPI_Datatype[]){MPI_INT}, &t),
                 MPI_ERR_ARG, "Type_create_struct(blocklengths NULL)");
    EXPECT_CLASS(MPI_Type_create_indexed_block(-3, 1, (int[]){0}, MPI_INT, &t), MPI_ERR_COUNT,
                 "Type_create_indexed_block(-3)");
    EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, -1, (int[]){1}, (int[]){0}, 0, &c), MPI_ERR_ARG,
                 "Cart_create(ndims -1)");
    EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 1, noint, (int[]){0}, 0, &c), MPI_ERR_ARG,
                 "Cart_create(dims NULL)");
    int counts[64], displs[64];
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = 1, displs[i] = i;
    counts[right] = -1;
    int sb[64], rb[64];
    EXPECT_CLASS(MPI_Alltoallv(sb, counts, displs, MPI_INT, rb, counts, displs, MPI_INT,
                               MPI_COMM_WORLD),
                 MPI_ERR_COUNT, "Alltoallv(count -1)");
    EXPECT_CLASS(MPI_Comm_rank(MPI_COMM_WORLD, noint), MPI_ERR_ARG, "Comm_rank(rank NULL)");
    (void)v;
}

/* After all of it, plain communication works. */
static void still_works(void)
{
    t_begin("after-errors");
    int v = rank * 11, r = -1;
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, right, 30, &r, 1, MPI_INT, left, 30, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    CHECK(r == left * 11, "got %d", r);
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int sum = 0;
    MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == 11 * size * (size - 1) / 2, "sum %d", sum);
    MPI_OK(MPI_Comm_free(&dup));
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
    wait_family();
    t_sync();
    bad_request_in_array();
    t_sync();
    bad_handles();
    t_sync();
    other_arrays();
    t_sync();
    still_works();
    t_finish();
    return 0;
}
