/*
 * MPI entry points for attribute caching on communicators and datatypes:
 * keyvals, set/get/delete, the predefined callbacks (MPI_COMM_DUP_FN, ...),
 * the MPI-1 forms (MPI_Keyval_create, MPI_Attr_*), and the hooks the
 * communicator and datatype calls use: copying on dup, deleting on free and,
 * at MPI_Finalize, on MPI_COMM_SELF first (libraries clean up from there).
 * core/attr.c keeps the tables; the trampolines below call the user's
 * callbacks with their real signatures.
 */
#include <stdio.h>

#include "api/api.h"
#include "api/attr.h"
#include "core/attr.h"
#include "core/datatype.h"
#include "core/runtime.h"

/* ---- the predefined callbacks (each also as PMPI_, like every MPI function) -------- */

int PMPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out,
                           int *flag)
{
    API_ENTER;
    (void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}
int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out,
                          int *flag) API_ALIAS(MPI_COMM_NULL_COPY_FN);

int PMPI_COMM_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    API_ENTER;
    (void)oldcomm, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
    API_ALIAS(MPI_COMM_DUP_FN);

int PMPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *value, void *extra)
{
    API_ENTER;
    (void)comm, (void)keyval, (void)value, (void)extra;
    return MPI_SUCCESS;
}
int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *value, void *extra)
    API_ALIAS(MPI_COMM_NULL_DELETE_FN);

int PMPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out,
                           int *flag)
{
    API_ENTER;
    (void)oldtype, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out,
                          int *flag) API_ALIAS(MPI_TYPE_NULL_COPY_FN);

int PMPI_TYPE_DUP_FN(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out,
                     int *flag)
{
    API_ENTER;
    (void)oldtype, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out,
                    int *flag) API_ALIAS(MPI_TYPE_DUP_FN);

int PMPI_TYPE_NULL_DELETE_FN(MPI_Datatype type, int keyval, void *value, void *extra)
{
    API_ENTER;
    (void)type, (void)keyval, (void)value, (void)extra;
    return MPI_SUCCESS;
}
int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype type, int keyval, void *value, void *extra)
    API_ALIAS(MPI_TYPE_NULL_DELETE_FN);

/* The MPI-1 names of the communicator ones. */
int PMPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    API_ENTER;
    return PMPI_COMM_NULL_COPY_FN(oldcomm, keyval, extra, in, out, flag);
}
int MPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
    API_ALIAS(MPI_NULL_COPY_FN);

int PMPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    API_ENTER;
    return PMPI_COMM_DUP_FN(oldcomm, keyval, extra, in, out, flag);
}
int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
    API_ALIAS(MPI_DUP_FN);

int PMPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *value, void *extra)
{
    API_ENTER;
    return PMPI_COMM_NULL_DELETE_FN(comm, keyval, value, extra);
}
int MPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *value, void *extra)
    API_ALIAS(MPI_NULL_DELETE_FN);

void api_attr_init(void)
{
    core_attr_set_predefined(MPI_TAG_UB, API_TAG_UB);
    core_attr_set_predefined(MPI_HOST, MPI_PROC_NULL);     /* no host process */
    core_attr_set_predefined(MPI_IO, MPI_ANY_SOURCE);      /* every rank can do I/O */
    core_attr_set_predefined(MPI_WTIME_IS_GLOBAL, 0);      /* clocks are per node */
    core_attr_set_predefined(MPI_UNIVERSE_SIZE, core_rt->universe_size);
    core_attr_set_predefined(MPI_LASTUSEDCODE, MPI_ERR_LASTCODE);
    if (core_rt->appnum >= 0)
        core_attr_set_predefined(MPI_APPNUM, core_rt->appnum);
}

/* ---- trampolines ------------------------------------------------------------------- */

static int comm_call(void *obj, int keyval, core_attr_fn_t fn, void *extra, void *value,
                     void **out, int *keep, int copy)
{
    if (copy)
        return ((MPI_Comm_copy_attr_function *)fn)(obj, keyval, extra, value, out, keep);
    return ((MPI_Comm_delete_attr_function *)fn)(obj, keyval, value, extra);
}

static int type_call(void *obj, int keyval, core_attr_fn_t fn, void *extra, void *value,
                     void **out, int *keep, int copy)
{
    if (copy)
        return ((MPI_Type_copy_attr_function *)fn)(obj, keyval, extra, value, out, keep);
    return ((MPI_Type_delete_attr_function *)fn)(obj, keyval, value, extra);
}

/* A callback's failure: comm's error handler sees the code the callback returned. */
static int cb_error(MPI_Comm comm, int cb_rc, const char *fn, const char *what)
{
    char msg[128];
    snprintf(msg, sizeof(msg), "an attribute %s callback returned error code %d", what, cb_rc);
    return api_raise(comm, cb_rc, fn, msg);
}

int api_attr_comm_copy(MPI_Comm from, MPI_Comm to, const char *fn)
{
    int cb_rc;
    int rc = core_attr_copy(from->attrs, from, &to->attrs, comm_call, &cb_rc);
    if (rc == CORE_EOTHER)
        return cb_error(from, cb_rc, fn, "copy");
    if (rc != 0)
        return api_error(from, rc, fn, "out of memory copying attributes");
    return MPI_SUCCESS;
}

int api_attr_comm_copy_list(MPI_Comm from, core_attr_t **list, const char *fn)
{
    int cb_rc;
    int rc = core_attr_copy(from->attrs, from, list, comm_call, &cb_rc);
    if (rc != 0)
        core_attr_discard(list);
    if (rc == CORE_EOTHER)
        return cb_error(from, cb_rc, fn, "copy");
    if (rc != 0)
        return api_error(from, rc, fn, "out of memory copying attributes");
    return MPI_SUCCESS;
}

int api_attr_comm_delete_all(MPI_Comm comm, const char *fn)
{
    int cb_rc;
    if (core_attr_delete_all(&comm->attrs, comm, comm_call, &cb_rc) != 0)
        return cb_error(comm, cb_rc, fn, "delete");
    return MPI_SUCCESS;
}

int api_attr_type_copy(MPI_Datatype from, MPI_Datatype to, const char *fn)
{
    int cb_rc;
    int rc = core_attr_copy(from->attrs, from, &to->attrs, type_call, &cb_rc);
    if (rc == CORE_EOTHER)
        return cb_error(MPI_COMM_NULL, cb_rc, fn, "copy");
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "out of memory copying attributes");
    return MPI_SUCCESS;
}

int api_attr_type_delete_all(MPI_Datatype type, const char *fn)
{
    int cb_rc;
    if (core_attr_delete_all(&type->attrs, type, type_call, &cb_rc) != 0)
        return cb_error(MPI_COMM_NULL, cb_rc, fn, "delete");
    return MPI_SUCCESS;
}

/* ---- communicators ----------------------------------------------------------------- */

static int create_keyval(enum core_attr_kind kind, core_attr_fn_t copy, core_attr_fn_t del,
                         int *keyval, void *extra, const char *fn)
{
    API_CHECK(api_check_init(fn));
    if (!keyval)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "keyval is NULL");
    int rc = core_attr_keyval_create(kind, copy, del, extra, keyval);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "out of memory");
    return MPI_SUCCESS;
}

static int free_keyval(enum core_attr_kind kind, int *keyval, const char *fn)
{
    API_CHECK(api_check_init(fn));
    if (!keyval)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "keyval is NULL");
    if (core_attr_keyval_free(kind, *keyval) != 0)
        return api_error(MPI_COMM_NULL, CORE_EKEYVAL, fn,
                         "%d is not a keyval of this kind that the program created", *keyval);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *keyval, void *extra)
{
    API_ENTER;
    return create_keyval(CORE_ATTR_COMM, (core_attr_fn_t)copy_fn, (core_attr_fn_t)delete_fn,
                         keyval, extra, "MPI_Comm_create_keyval");
}
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                           MPI_Comm_delete_attr_function *delete_fn, int *keyval, void *extra)
    API_ALIAS(MPI_Comm_create_keyval);

int PMPI_Comm_free_keyval(int *keyval)
{
    API_ENTER;
    return free_keyval(CORE_ATTR_COMM, keyval, "MPI_Comm_free_keyval");
}
int MPI_Comm_free_keyval(int *keyval) API_ALIAS(MPI_Comm_free_keyval);

/* get (predef_ok) and delete may name a keyval the program freed; set may not. */
static int comm_keyval(MPI_Comm comm, int keyval, int predef_ok, int freed_ok, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    if (core_attr_keyval_check(CORE_ATTR_COMM, keyval, predef_ok, freed_ok) != 0)
        return api_error(comm, CORE_EKEYVAL, fn,
                         predef_ok || keyval <= 0 || keyval >= 16
                             ? "%d is not a communicator keyval"
                             : "%d is a predefined keyval: it cannot be set or deleted",
                         keyval);
    return MPI_SUCCESS;
}

static int comm_set_attr(MPI_Comm comm, int keyval, enum core_attr_lang lang, const void *value)
{
    static const char fn[] = "MPI_Comm_set_attr";
    API_CHECK(comm_keyval(comm, keyval, 0, 0, fn));
    int cb_rc;
    int rc = core_attr_set(&comm->attrs, comm, comm_call, keyval, lang, value, &cb_rc);
    if (rc == CORE_EOTHER)
        return cb_error(comm, cb_rc, fn, "delete");
    if (rc != 0)
        return api_error(comm, rc, fn, "out of memory");
    return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value)
{
    API_ENTER;
    return comm_set_attr(comm, keyval, CORE_ATTR_C, &value);
}
int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value) API_ALIAS(MPI_Comm_set_attr);

int api_comm_set_attr_lang(MPI_Comm comm, int keyval, enum core_attr_lang lang, const void *value)
{
    API_ENTER;
    return comm_set_attr(comm, keyval, lang, value);
}

/* A predefined attribute is an int on every communicator: C gets a pointer to it. */
static int comm_get_attr(MPI_Comm comm, int keyval, enum core_attr_lang lang, void *value,
                         int *flag)
{
    static const char fn[] = "MPI_Comm_get_attr";
    API_CHECK(comm_keyval(comm, keyval, 1, 1, fn));
    if (!value || !flag)
        return api_error(comm, CORE_EINVAL, fn, "attribute_val or flag is NULL");
    if (keyval < 16) {
        void *p;
        *flag = core_attr_predefined(keyval, &p);
        if (*flag)
            core_attr_out(CORE_ATTR_INT, p, lang, value);
        return MPI_SUCCESS;
    }
    core_attr_get(comm->attrs, keyval, lang, value, flag);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    API_ENTER;
    return comm_get_attr(comm, keyval, CORE_ATTR_C, value, flag);
}
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
    API_ALIAS(MPI_Comm_get_attr);

int api_comm_get_attr_lang(MPI_Comm comm, int keyval, enum core_attr_lang lang, void *value,
                           int *flag)
{
    API_ENTER;
    return comm_get_attr(comm, keyval, lang, value, flag);
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_delete_attr";
    API_CHECK(comm_keyval(comm, keyval, 0, 1, fn));
    int cb_rc;
    int rc = core_attr_delete(&comm->attrs, comm, comm_call, keyval, &cb_rc);
    if (rc == CORE_EOTHER)
        return cb_error(comm, cb_rc, fn, "delete");
    if (rc != 0)
        return api_error(comm, CORE_EKEYVAL, fn, "%s has no attribute of keyval %d",
                         core_comm_label(comm), keyval);
    return MPI_SUCCESS;
}
int MPI_Comm_delete_attr(MPI_Comm comm, int keyval) API_ALIAS(MPI_Comm_delete_attr);

/* ---- the MPI-1 forms (deprecated, still common in older codes) ---------------------- */

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra)
{
    API_ENTER;
    return create_keyval(CORE_ATTR_COMM, (core_attr_fn_t)copy_fn, (core_attr_fn_t)delete_fn,
                         keyval, extra, "MPI_Keyval_create");
}
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra) API_ALIAS(MPI_Keyval_create);

int PMPI_Keyval_free(int *keyval)
{
    API_ENTER;
    return free_keyval(CORE_ATTR_COMM, keyval, "MPI_Keyval_free");
}
int MPI_Keyval_free(int *keyval) API_ALIAS(MPI_Keyval_free);

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *value)
{
    API_ENTER;
    return PMPI_Comm_set_attr(comm, keyval, value);
}
int MPI_Attr_put(MPI_Comm comm, int keyval, void *value) API_ALIAS(MPI_Attr_put);

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag)
{
    API_ENTER;
    return PMPI_Comm_get_attr(comm, keyval, value, flag);
}
int MPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag) API_ALIAS(MPI_Attr_get);

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    API_ENTER;
    return PMPI_Comm_delete_attr(comm, keyval);
}
int MPI_Attr_delete(MPI_Comm comm, int keyval) API_ALIAS(MPI_Attr_delete);

/* ---- datatypes --------------------------------------------------------------------- */

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn, int *keyval, void *extra)
{
    API_ENTER;
    return create_keyval(CORE_ATTR_TYPE, (core_attr_fn_t)copy_fn, (core_attr_fn_t)delete_fn,
                         keyval, extra, "MPI_Type_create_keyval");
}
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                           MPI_Type_delete_attr_function *delete_fn, int *keyval, void *extra)
    API_ALIAS(MPI_Type_create_keyval);

int PMPI_Type_free_keyval(int *keyval)
{
    API_ENTER;
    return free_keyval(CORE_ATTR_TYPE, keyval, "MPI_Type_free_keyval");
}
int MPI_Type_free_keyval(int *keyval) API_ALIAS(MPI_Type_free_keyval);

static int type_keyval(MPI_Datatype type, int keyval, int freed_ok, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_dt(MPI_COMM_NULL, type, fn));
    if (core_attr_keyval_check(CORE_ATTR_TYPE, keyval, 0, freed_ok) != 0)
        return api_error(MPI_COMM_NULL, CORE_EKEYVAL, fn, "%d is not a datatype keyval", keyval);
    return MPI_SUCCESS;
}

static int type_set_attr(MPI_Datatype type, int keyval, enum core_attr_lang lang,
                         const void *value)
{
    static const char fn[] = "MPI_Type_set_attr";
    API_CHECK(type_keyval(type, keyval, 0, fn));
    int cb_rc;
    int rc = core_attr_set(&type->attrs, type, type_call, keyval, lang, value, &cb_rc);
    if (rc == CORE_EOTHER)
        return cb_error(MPI_COMM_NULL, cb_rc, fn, "delete");
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "out of memory");
    return MPI_SUCCESS;
}

int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void *value)
{
    API_ENTER;
    return type_set_attr(type, keyval, CORE_ATTR_C, &value);
}
int MPI_Type_set_attr(MPI_Datatype type, int keyval, void *value) API_ALIAS(MPI_Type_set_attr);

int api_type_set_attr_lang(MPI_Datatype type, int keyval, enum core_attr_lang lang,
                           const void *value)
{
    API_ENTER;
    return type_set_attr(type, keyval, lang, value);
}

static int type_get_attr(MPI_Datatype type, int keyval, enum core_attr_lang lang, void *value,
                         int *flag)
{
    static const char fn[] = "MPI_Type_get_attr";
    API_CHECK(type_keyval(type, keyval, 1, fn));
    if (!value || !flag)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "attribute_val or flag is NULL");
    core_attr_get(type->attrs, keyval, lang, value, flag);
    return MPI_SUCCESS;
}

int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void *value, int *flag)
{
    API_ENTER;
    return type_get_attr(type, keyval, CORE_ATTR_C, value, flag);
}
int MPI_Type_get_attr(MPI_Datatype type, int keyval, void *value, int *flag)
    API_ALIAS(MPI_Type_get_attr);

int api_type_get_attr_lang(MPI_Datatype type, int keyval, enum core_attr_lang lang, void *value,
                           int *flag)
{
    API_ENTER;
    return type_get_attr(type, keyval, lang, value, flag);
}

int PMPI_Type_delete_attr(MPI_Datatype type, int keyval)
{
    API_ENTER;
    static const char fn[] = "MPI_Type_delete_attr";
    API_CHECK(type_keyval(type, keyval, 1, fn));
    int cb_rc;
    int rc = core_attr_delete(&type->attrs, type, type_call, keyval, &cb_rc);
    if (rc == CORE_EOTHER)
        return cb_error(MPI_COMM_NULL, cb_rc, fn, "delete");
    if (rc != 0)
        return api_error(MPI_COMM_NULL, CORE_EKEYVAL, fn, "the type has no attribute of keyval %d",
                         keyval);
    return MPI_SUCCESS;
}
int MPI_Type_delete_attr(MPI_Datatype type, int keyval) API_ALIAS(MPI_Type_delete_attr);
