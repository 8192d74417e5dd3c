/*
 * Attribute caching on windows: keyvals and set/get/delete through
 * core/attr.c (kind CORE_ATTR_WIN), the predefined window attributes
 * (MPI_WIN_BASE, SIZE, DISP_UNIT, CREATE_FLAVOR, MODEL) and the predefined
 * callbacks. Windows are never copied, so copy callbacks are never called.
 */
#include "api/attr.h"
#include "api/win.h"
#include "core/attr.h"

int PMPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int keyval, void *extra, void *in, void *out,
                          int *flag)
{
    API_ENTER;
    (void)oldwin, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}
int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int keyval, void *extra, void *in, void *out,
                         int *flag) API_ALIAS(MPI_WIN_NULL_COPY_FN);

int PMPI_WIN_DUP_FN(MPI_Win oldwin, int keyval, void *extra, void *in, void *out, int *flag)
{
    API_ENTER;
    (void)oldwin, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
int MPI_WIN_DUP_FN(MPI_Win oldwin, int keyval, void *extra, void *in, void *out, int *flag)
    API_ALIAS(MPI_WIN_DUP_FN);

int PMPI_WIN_NULL_DELETE_FN(MPI_Win win, int keyval, void *value, void *extra)
{
    API_ENTER;
    (void)win, (void)keyval, (void)value, (void)extra;
    return MPI_SUCCESS;
}
int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int keyval, void *value, void *extra)
    API_ALIAS(MPI_WIN_NULL_DELETE_FN);

static int win_call(void *obj, int keyval, core_attr_fn_t fn, void *extra, void *value,
                    void **out, int *keep, int copy)
{
    if (copy)
        return ((MPI_Win_copy_attr_function *)fn)(obj, keyval, extra, value, out, keep);
    return ((MPI_Win_delete_attr_function *)fn)(obj, keyval, value, extra);
}

static int cb_error(MPI_Win win, int cb_rc, const char *fn)
{
    return api_win_raise(win, cb_rc, fn, "an attribute delete callback returned an error");
}

int api_win_attr_delete_all(MPI_Win win, const char *fn)
{
    int cb_rc;
    if (core_attr_delete_all(&win->attrs, win, win_call, &cb_rc) != 0)
        return cb_error(win, cb_rc, fn);
    return MPI_SUCCESS;
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                           MPI_Win_delete_attr_function *delete_fn, int *keyval, void *extra)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_create_keyval";
    API_CHECK(api_check_init(fn));
    if (!keyval)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "keyval is NULL");
    int rc = core_attr_keyval_create(CORE_ATTR_WIN, (core_attr_fn_t)copy_fn,
                                     (core_attr_fn_t)delete_fn, extra, keyval);
    return rc ? api_error(MPI_COMM_NULL, rc, fn, "out of memory") : MPI_SUCCESS;
}
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                          MPI_Win_delete_attr_function *delete_fn, int *keyval, void *extra)
    API_ALIAS(MPI_Win_create_keyval);

int PMPI_Win_free_keyval(int *keyval)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_free_keyval";
    API_CHECK(api_check_init(fn));
    if (!keyval)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "keyval is NULL");
    if (core_attr_keyval_free(CORE_ATTR_WIN, *keyval) != 0)
        return api_error(MPI_COMM_NULL, CORE_EKEYVAL, fn,
                         "%d is not a window keyval the program created", *keyval);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
int MPI_Win_free_keyval(int *keyval) API_ALIAS(MPI_Win_free_keyval);

static int is_predefined(int keyval)
{
    return keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL;
}

static int win_keyval(MPI_Win win, int keyval, int freed_ok, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    if (core_attr_keyval_check(CORE_ATTR_WIN, keyval, 0, freed_ok) != 0)
        return api_win_error(win, CORE_EKEYVAL, fn,
                             is_predefined(keyval)
                                 ? "%d is a predefined keyval: it cannot be set or deleted"
                                 : "%d is not a window keyval", keyval);
    return MPI_SUCCESS;
}

static int win_set_attr(MPI_Win win, int keyval, enum core_attr_lang lang, const void *value)
{
    static const char fn[] = "MPI_Win_set_attr";
    API_CHECK(win_keyval(win, keyval, 0, fn));
    int cb_rc;
    int rc = core_attr_set(&win->attrs, win, win_call, keyval, lang, value, &cb_rc);
    if (rc == CORE_EOTHER)
        return cb_error(win, cb_rc, fn);
    return rc ? api_win_error(win, rc, fn, "out of memory") : MPI_SUCCESS;
}

int PMPI_Win_set_attr(MPI_Win win, int keyval, void *value)
{
    API_ENTER;
    return win_set_attr(win, keyval, CORE_ATTR_C, &value);
}
int MPI_Win_set_attr(MPI_Win win, int keyval, void *value) API_ALIAS(MPI_Win_set_attr);

int api_win_set_attr_lang(MPI_Win win, int keyval, enum core_attr_lang lang, const void *value)
{
    API_ENTER;
    return win_set_attr(win, keyval, lang, value);
}

/* MPI_WIN_BASE is the base address itself (as if C had set it); MPI_WIN_SIZE an MPI_Aint and
 * the others ints (C gets a pointer to them, Fortran their value). */
static int win_get_attr(MPI_Win win, int keyval, enum core_attr_lang lang, void *value,
                        int *flag)
{
    static const char fn[] = "MPI_Win_get_attr";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    if (!value || !flag)
        return api_win_error(win, CORE_EINVAL, fn, "attribute_val or flag is NULL");
    *flag = 1;
    switch (keyval) {
    case MPI_WIN_BASE:
        core_attr_out(CORE_ATTR_C, &win->base, lang, value);
        return MPI_SUCCESS;
    case MPI_WIN_SIZE:
        win->attr_size = win->len;
        core_attr_out(CORE_ATTR_AINT, &win->attr_size, lang, value);
        return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:
        win->attr_disp = win->disp_unit;
        core_attr_out(CORE_ATTR_INT, &win->attr_disp, lang, value);
        return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR:
        win->attr_flavor = win->flavor;
        core_attr_out(CORE_ATTR_INT, &win->attr_flavor, lang, value);
        return MPI_SUCCESS;
    case MPI_WIN_MODEL:
        /* Operations write the window memory itself: one copy, public = private. */
        win->attr_model = MPI_WIN_UNIFIED;
        core_attr_out(CORE_ATTR_INT, &win->attr_model, lang, value);
        return MPI_SUCCESS;
    }
    *flag = 0;
    if (core_attr_keyval_check(CORE_ATTR_WIN, keyval, 0, 1) != 0)
        return api_win_error(win, CORE_EKEYVAL, fn, "%d is not a window keyval", keyval);
    core_attr_get(win->attrs, keyval, lang, value, flag);
    return MPI_SUCCESS;
}

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
    API_ENTER;
    return win_get_attr(win, keyval, CORE_ATTR_C, value, flag);
}
int MPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
    API_ALIAS(MPI_Win_get_attr);

int api_win_get_attr_lang(MPI_Win win, int keyval, enum core_attr_lang lang, void *value,
                          int *flag)
{
    API_ENTER;
    return win_get_attr(win, keyval, lang, value, flag);
}

int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_delete_attr";
    API_CHECK(win_keyval(win, keyval, 1, fn));
    int cb_rc;
    int rc = core_attr_delete(&win->attrs, win, win_call, keyval, &cb_rc);
    if (rc == CORE_EOTHER)
        return cb_error(win, cb_rc, fn);
    return rc ? api_win_error(win, CORE_EKEYVAL, fn, "no attribute of keyval %d", keyval)
              : MPI_SUCCESS;
}
int MPI_Win_delete_attr(MPI_Win win, int keyval) API_ALIAS(MPI_Win_delete_attr);
