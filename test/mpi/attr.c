/*
 * Attribute caching: the predefined attributes (MPI_TAG_UB, ...), user
 * keyvals on communicators and datatypes with copy and delete callbacks
 * (when each is called, with which value, and what a failing one does),
 * keyvals freed while attributes remain, MPI_Comm_idup, the MPI-1 forms, and
 * the deletion of MPI_COMM_SELF's attributes, last set first, at
 * MPI_Finalize. Standard MPI only.
 */
#include "check.h"

static int copies, deletes;
static intptr_t last_deleted;

static int count_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k;
    copies++;
    CHECK(extra == (void *)&copies, "copy callback got extra_state %p", extra);
    *(void **)out = (void *)((intptr_t)in + 1); /* the copy's value: one more */
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm c, int k, void *value, void *extra)
{
    (void)c, (void)k, (void)extra;
    deletes++;
    last_deleted = (intptr_t)value;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

static int refusing;

static int refuse_delete(MPI_Comm c, int k, void *value, void *extra)
{
    (void)c, (void)k, (void)value, (void)extra;
    return refusing ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void test_predefined(void)
{
    t_begin("predefined attributes");
    int *v, flag;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v >= 32767, "MPI_TAG_UB: flag %d value %d", flag, flag ? *v : 0);
    int tag_ub = *v;
    /* the largest tag works */
    MPI_Request r;
    int x = 5, y = 0;
    MPI_OK(MPI_Irecv(&y, 1, MPI_INT, t_rank, tag_ub, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(&x, 1, MPI_INT, t_rank, tag_ub, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(y == 5, "message with tag MPI_TAG_UB: got %d", y);

    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
    CHECK(!flag || *v == 0 || *v == 1, "MPI_WTIME_IS_GLOBAL = %d", *v);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
    CHECK(flag && (*v == MPI_PROC_NULL || (*v >= 0 && *v < t_size)), "MPI_HOST: flag %d", flag);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
    CHECK(flag && (*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < t_size)),
          "MPI_IO: flag %d", flag);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    CHECK(!flag || *v >= t_size, "MPI_UNIVERSE_SIZE %d < %d ranks", *v, t_size);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
    CHECK(!flag || *v == 0, "MPI_APPNUM %d in a one-program job", *v);
#ifndef OPEN_MPI /* Open MPI 4.1 removed the MPI-1 forms */
    /* the MPI-1 call answers the same */
    MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v == tag_ub, "MPI_Attr_get(MPI_TAG_UB) differs");
#endif

    int cls, code;
    MPI_OK(MPI_Add_error_class(&cls));
    MPI_OK(MPI_Add_error_code(cls, &code));
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && *v >= cls, "MPI_LASTUSEDCODE %d, below the class %d", flag ? *v : -1, cls);
#ifdef RDMPI_VERSION_STRING /* MPICH 4.0 leaves it at the last class */
    CHECK(*v == code, "MPI_LASTUSEDCODE %d, want the code just added, %d", *v, code);
#endif

    /* predefined keyvals cannot be set, deleted or freed */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &x);
    CHECK(rc != MPI_SUCCESS, "setting MPI_TAG_UB succeeded");
#ifdef RDMPI_VERSION_STRING /* Open MPI 4.1 says MPI_ERR_INTERN */
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "setting MPI_TAG_UB: class %d, want MPI_ERR_KEYVAL", cls);
#endif
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB);
    CHECK(rc != MPI_SUCCESS, "deleting MPI_TAG_UB succeeded");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_comm_keyvals(void)
{
    t_begin("communicator keyvals");
    int kv, kv_null;
    MPI_OK(MPI_Comm_create_keyval(count_copy, count_delete, &kv, &copies));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &kv_null, NULL));
    MPI_Comm a, b;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    void *val;
    int flag;
    MPI_OK(MPI_Comm_get_attr(a, kv, &val, &flag));
    CHECK(!flag, "an attribute that was never set is there");

    MPI_OK(MPI_Comm_set_attr(a, kv, (void *)(intptr_t)10));
    MPI_OK(MPI_Comm_set_attr(a, kv_null, (void *)(intptr_t)50));
    /* replacing a value deletes the old one first */
    MPI_OK(MPI_Comm_set_attr(a, kv, (void *)(intptr_t)20));
    CHECK(deletes == 1 && last_deleted == 10, "replacing: %d deletes, last value %ld", deletes,
          (long)last_deleted);
    MPI_OK(MPI_Comm_get_attr(a, kv, &val, &flag));
    CHECK(flag && (intptr_t)val == 20, "value after replacing: %ld", (long)(intptr_t)val);

    /* dup: kv copied through its callback (20 -> 21), kv_null not copied */
    MPI_OK(MPI_Comm_dup(a, &b));
    CHECK(copies == 1, "%d copy callbacks on dup, want 1", copies);
    MPI_OK(MPI_Comm_get_attr(b, kv, &val, &flag));
    CHECK(flag && (intptr_t)val == 21, "copied value: flag %d value %ld", flag,
          (long)(intptr_t)val);
    MPI_OK(MPI_Comm_get_attr(b, kv_null, &val, &flag));
    CHECK(!flag, "an attribute with MPI_COMM_NULL_COPY_FN was copied");

    MPI_OK(MPI_Comm_delete_attr(a, kv));
    CHECK(deletes == 2 && last_deleted == 20, "delete_attr: %d deletes, last %ld", deletes,
          (long)last_deleted);
    MPI_OK(MPI_Comm_get_attr(a, kv, &val, &flag));
    CHECK(!flag, "the attribute is still there after delete_attr");

    /* a keyval freed while attributes hold it: they stay usable and are deleted later */
    int kv_saved = kv;
    MPI_OK(MPI_Comm_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval left the handle %d", kv);
    MPI_OK(MPI_Comm_get_attr(b, kv_saved, &val, &flag));
    CHECK(flag && (intptr_t)val == 21, "attribute of a freed keyval lost");
    MPI_OK(MPI_Comm_free(&b));
    CHECK(deletes == 3 && last_deleted == 21, "Comm_free: %d deletes, last %ld", deletes,
          (long)last_deleted);
    MPI_OK(MPI_Comm_free(&a)); /* deletes kv_null's 50 */
    CHECK(deletes == 4 && last_deleted == 50, "Comm_free of a: %d deletes, last %ld", deletes,
          (long)last_deleted);
    MPI_OK(MPI_Comm_free_keyval(&kv_null));

    /* failing callbacks: the call fails with the callback's code */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int kf, kr;
    MPI_OK(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &kf, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, refuse_delete, &kr, NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kf, NULL));
    MPI_Comm c = MPI_COMM_WORLD;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
    CHECK(rc == MPI_ERR_OTHER && c == MPI_COMM_NULL, "dup with a failing copy callback: rc %d",
          rc);
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kf));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kr, (void *)(intptr_t)13));
    refusing = 1;
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, kr);
    CHECK(rc == MPI_ERR_OTHER, "delete_attr with a refusing callback: rc %d", rc);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, kr, &val, &flag));
    CHECK(flag && (intptr_t)val == 13, "an attribute whose delete failed is gone");
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, kr, (void *)(intptr_t)14);
    CHECK(rc == MPI_ERR_OTHER, "replacing through a refusing delete callback: rc %d", rc);
    refusing = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_OK(MPI_Comm_free_keyval(&kf));

    /* MPI_COMM_DUP_FN through idup: the copy is there once the request completes */
    MPI_Request req;
    MPI_Comm d;
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_get_attr(d, kr, &val, &flag));
    CHECK(flag && (intptr_t)val == 13, "idup did not copy: flag %d", flag);
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kr));
    MPI_OK(MPI_Comm_free_keyval(&kr));
}

static void test_mpi1_forms(void)
{
#ifndef OPEN_MPI
    t_begin("MPI-1 keyvals");
    int kv, flag;
    void *val;
    deletes = 0;
    MPI_OK(MPI_Keyval_create(MPI_DUP_FN, count_delete, &kv, NULL));
    MPI_OK(MPI_Attr_put(MPI_COMM_SELF, kv, (void *)(intptr_t)7));
    MPI_OK(MPI_Attr_get(MPI_COMM_SELF, kv, &val, &flag));
    CHECK(flag && (intptr_t)val == 7, "Attr_get: flag %d", flag);
    MPI_OK(MPI_Attr_delete(MPI_COMM_SELF, kv));
    CHECK(deletes == 1 && last_deleted == 7, "Attr_delete: %d deletes", deletes);
    MPI_OK(MPI_Keyval_free(&kv));
#endif
}

static int type_deletes;

static int type_delete(MPI_Datatype t, int k, void *value, void *extra)
{
    (void)t, (void)k, (void)extra;
    type_deletes += (int)(intptr_t)value;
    return MPI_SUCCESS;
}

static void test_type_keyvals(void)
{
    t_begin("datatype keyvals");
    int kv, flag;
    void *val;
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_delete, &kv, NULL));
    MPI_Datatype t, u;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_set_attr(t, kv, (void *)(intptr_t)100));
    MPI_OK(MPI_Type_dup(t, &u));
    MPI_OK(MPI_Type_get_attr(u, kv, &val, &flag));
    CHECK(flag && (intptr_t)val == 100, "Type_dup did not copy: flag %d", flag);
    MPI_OK(MPI_Type_set_attr(u, kv, (void *)(intptr_t)1000)); /* deletes the copied 100 */
    CHECK(type_deletes == 100, "replacing on the dup: deletes sum %d", type_deletes);
    MPI_OK(MPI_Type_free(&t));
#ifdef RDMPI_VERSION_STRING /* MPICH 4.0 deletes t's attribute when u, its dup, goes too */
    CHECK(type_deletes == 200, "Type_free: deletes sum %d, want 200", type_deletes);
#endif
    MPI_OK(MPI_Type_delete_attr(u, kv));
    MPI_OK(MPI_Type_get_attr(u, kv, &val, &flag));
    CHECK(!flag, "deleted type attribute still there");
    MPI_OK(MPI_Type_free(&u));
    CHECK(type_deletes == 1200, "every type attribute deleted once: sum %d, want 1200",
          type_deletes);
    MPI_OK(MPI_Type_free_keyval(&kv));
    /* a communicator keyval is not a datatype keyval */
    int ck;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Type_set_attr(MPI_INT, ck, NULL);
    CHECK(rc != MPI_SUCCESS, "a communicator keyval was accepted on a datatype");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_OK(MPI_Comm_free_keyval(&ck));
}

/* MPI_COMM_SELF's attributes are deleted at MPI_Finalize, the last set first. */
static int finalize_order[2], finalize_n;

static int at_finalize(MPI_Comm c, int k, void *value, void *extra)
{
    (void)k, (void)extra;
    int finalized = 1;
    MPI_Finalized(&finalized);
    if (c == MPI_COMM_SELF && !finalized && finalize_n < 2)
        finalize_order[finalize_n++] = (int)(intptr_t)value;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_predefined();
    test_comm_keyvals();
    test_mpi1_forms();
    test_type_keyvals();
    int k1, k2;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &k1, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &k2, NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k1, (void *)(intptr_t)1));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void *)(intptr_t)2));
    t_finish();
    if (finalize_n != 2 || finalize_order[0] != 2 || finalize_order[1] != 1) {
        fprintf(stderr, "rank %d: MPI_COMM_SELF's attributes at MPI_Finalize: %d deleted (%d, %d), "
                        "want 2 then 1\n", t_rank, finalize_n, finalize_order[0], finalize_order[1]);
        return 1;
    }
    return 0;
}
