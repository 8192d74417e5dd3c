/*
 * A keyval freed again while attributes of it remain (a delete callback that frees its own
 * keyval, MPICH's attr/keyval_double_free): every free succeeds and the callbacks still run,
 * once per attribute; once the last attribute is gone the keyval is gone, and freeing it
 * again is MPI_ERR_KEYVAL.
 */
#include "check.h"

static int deletes;

static int delete_fn(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)attr;
    (void)extra;
    deletes++;
    return MPI_Comm_free_keyval(&keyval);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    t_begin("refree");
    MPI_Comm dup;
    int kv = MPI_KEYVAL_INVALID, copy;
    MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &dup));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &kv, NULL));
    copy = kv;
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL));
    MPI_OK(MPI_Comm_set_attr(dup, kv, NULL));
    MPI_OK(MPI_Comm_free(&dup));                 /* first free, in the callback */
    CHECK(deletes == 1, "%d delete callbacks after the first attribute went", deletes);
    MPI_OK(MPI_Comm_free_keyval(&kv));           /* again: the SELF attribute remains */
    CHECK(kv == MPI_KEYVAL_INVALID, "keyval not reset");
    int again = copy;
    MPI_OK(MPI_Comm_free_keyval(&again));
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_SELF, copy)); /* the last one: callback frees again */
    CHECK(deletes == 2, "%d delete callbacks, want 2", deletes);
    int cls = MPI_SUCCESS, rc = MPI_Comm_free_keyval(&copy);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "freeing a keyval that is gone: class %d", cls);
    t_finish();
    return 0;
}
