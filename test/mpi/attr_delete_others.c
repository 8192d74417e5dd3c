/*
 * A delete callback that deletes other attributes of the same object (as
 * MPICH's attr/attrdelete does): on MPI_Comm_delete_attr, on MPI_Comm_free
 * (every attribute deleted) and on MPI_COMM_WORLD left to MPI_Finalize. The
 * library must not touch the attributes the callback removed (that was a
 * double free).
 */
#include "check.h"

static int key1, key2, key3, deletes;
static int cb_key1, cb_key3;   /* MPI_Comm_free_keyval resets key1/key3; the callbacks keep using them */

static int count_delete(MPI_Comm c, int k, void *v, void *extra)
{
    (void)c; (void)k; (void)v; (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

/* Deletes key1 and key3 where they are still set (MPI_Comm_free may have deleted key3 already:
 * it goes most recently set first). */
static int delete_others(MPI_Comm c, int k, void *v, void *extra)
{
    (void)k; (void)v; (void)extra;
    deletes++;
    int keys[2] = { cb_key1, cb_key3 };
    for (int i = 0; i < 2; i++) {
        void *val;
        int flag;
        MPI_OK(MPI_Comm_get_attr(c, keys[i], &val, &flag));
        if (flag)
            MPI_OK(MPI_Comm_delete_attr(c, keys[i]));
    }
    return MPI_SUCCESS;
}

static void set_all(MPI_Comm c)
{
    MPI_OK(MPI_Comm_set_attr(c, key1, (void *)1));
    MPI_OK(MPI_Comm_set_attr(c, key2, (void *)2));
    MPI_OK(MPI_Comm_set_attr(c, key3, (void *)3));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &key1, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_others, &key2, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &key3, NULL));
    cb_key1 = key1;
    cb_key3 = key3;

    t_begin("delete_attr");
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    set_all(c);
    MPI_OK(MPI_Comm_delete_attr(c, key2));
    CHECK(deletes == 3, "%d delete callbacks ran, want 3", deletes);
    void *v;
    int flag;
    for (int i = 0; i < 3; i++) {
        int k = i == 0 ? key1 : i == 1 ? key2 : key3;
        MPI_OK(MPI_Comm_get_attr(c, k, &v, &flag));
        CHECK(!flag, "attribute %d is still there", i + 1);
    }

    t_begin("comm_free");
    deletes = 0;
    set_all(c);
    MPI_OK(MPI_Comm_free(&c));
    CHECK(deletes == 3, "%d delete callbacks ran at free, want 3", deletes);

    t_begin("replace");
    /* setting key2 again runs its delete callback on the old value first */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    set_all(c);
    deletes = 0;
    MPI_OK(MPI_Comm_set_attr(c, key2, (void *)22));
    MPI_OK(MPI_Comm_get_attr(c, key2, &v, &flag));
    CHECK(flag && v == (void *)22, "replaced value: flag %d", flag);
    MPI_OK(MPI_Comm_get_attr(c, key1, &v, &flag));
    CHECK(!flag && deletes == 3, "key1 flag %d, %d callbacks", flag, deletes);
    MPI_OK(MPI_Comm_free(&c));

    /* left for MPI_Finalize on MPI_COMM_SELF (deleted in the reverse order of setting: key2
     * first, whose callback deletes the other two), with the keyvals freed */
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, key1, (void *)1));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, key3, (void *)3));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, key2, (void *)2));
    MPI_OK(MPI_Comm_free_keyval(&key1));
    MPI_OK(MPI_Comm_free_keyval(&key2));
    MPI_OK(MPI_Comm_free_keyval(&key3));
    t_finish();
    return 0;
}
