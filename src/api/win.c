/*
 * MPI entry points that make, query and free windows, and the window error
 * path (the window's own error handler, MPI_Win_*_errhandler).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "api/win.h"
#include "api/errstring.h"
#include "core/bootstrap.h"
#include "core/group.h"
#include "core/info.h"

int api_win_raise(MPI_Win win, int cls, const char *fn, const char *msg)
{
    if (win == MPI_WIN_NULL || !core_handle_valid(&core_handles.win, win))
        return api_raise(MPI_COMM_NULL, cls, fn, msg);
    MPI_Errhandler eh = win->errh;
    if (eh->kind == CORE_ERRH_RETURN)
        return cls;
    if (eh->kind == CORE_ERRH_USER && eh->call) {
        eh->call((void (*)(void))eh->fn, CORE_ERRH_WIN, &win, &cls);
        return cls;
    }
    if (eh->kind == CORE_ERRH_USER) {
        ((MPI_Win_errhandler_function *)(void (*)(void))eh->fn)(&win, &cls, fn, msg);
        return cls;
    }
    core_runtime_t *rt = core_rt;
    char line[1024];
    int ucls = api_user_code_class(cls);
    snprintf(line, sizeof(line), "rdmpi: rank %d on %s: %s: %s [%s]; aborting the job",
             rt->rank, rt->hostname, fn, msg, api_class_name(ucls >= 0 ? ucls : cls));
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    core_boot_abort(rt, cls ? cls : 1, line);
}

int api_win_error(MPI_Win win, int code, const char *fn, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return api_win_raise(win, api_class_of(code), fn, msg);
}

int api_bad_win(MPI_Win win, const char *fn)
{
    const char *why = !win ? "the window is MPI_WIN_NULL"
                      : core_handle_state(&core_handles.win, win) == CORE_HANDLE_DEAD
                          ? "the window was freed"
                          : "not a window handle";
    return api_error(MPI_COMM_NULL, CORE_EWIN, fn, "%s", why);
}

/* Arguments every creation call checks. */
static int create_checks(MPI_Comm comm, MPI_Aint size, int disp_unit, MPI_Info info,
                         const void *out, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_info(comm, info, 1, fn));
    API_CHECK(api_check_ptr(comm, out, "win", fn));
    if (size < 0)
        return api_error(comm, CORE_ESIZE, fn, "negative size %ld", (long)size);
    if (disp_unit <= 0)
        return api_error(comm, CORE_EDISP, fn, "displacement unit %d is not positive",
                         disp_unit);
    return 0;
}

static int create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                  int flavor, void *baseptr, MPI_Win *win, const char *fn)
{
    API_CHECK(create_checks(comm, size, disp_unit, info, win, fn));
    if (baseptr == NULL && (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED))
        return api_error(comm, CORE_EINVAL, fn, "baseptr is NULL");
    MPI_Win w;
    int rc = rma_win_create(comm, base, size, disp_unit, flavor, info, &w);
    if (rc)
        return api_error(comm, rc, fn, "cannot create the window: %s", core_strerror(rc));
    if (baseptr)
        *(void **)baseptr = w->base;
    *win = w;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    API_ENTER;
    return create(base, size, disp_unit, info, comm, MPI_WIN_FLAVOR_CREATE, NULL, win,
                  "MPI_Win_create");
}
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win) API_ALIAS(MPI_Win_create);

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    API_ENTER;
    return create(NULL, size, disp_unit, info, comm, MPI_WIN_FLAVOR_ALLOCATE, baseptr, win,
                  "MPI_Win_allocate");
}
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win) API_ALIAS(MPI_Win_allocate);

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    API_ENTER;
    return create(NULL, size, disp_unit, info, comm, MPI_WIN_FLAVOR_SHARED, baseptr, win,
                  "MPI_Win_allocate_shared");
}
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win) API_ALIAS(MPI_Win_allocate_shared);

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    API_ENTER;
    return create(NULL, 0, 1, info, comm, MPI_WIN_FLAVOR_DYNAMIC, NULL, win,
                  "MPI_Win_create_dynamic");
}
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
    API_ALIAS(MPI_Win_create_dynamic);

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_shared_query";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    API_CHECK(api_check_win_rank(win, rank, 1, fn));
    if (!size || !disp_unit || !baseptr)
        return api_win_error(win, CORE_EINVAL, fn, "size, disp_unit or baseptr is NULL");
    int rc = rma_win_shared_query(win, rank, size, disp_unit, baseptr);
    return rc ? api_win_error(win, rc, fn, "%s", core_strerror(rc)) : MPI_SUCCESS;
}
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
    API_ALIAS(MPI_Win_shared_query);

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_attach";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    if (size > 0 && !base)
        return api_win_error(win, CORE_EINVAL, fn, "base is NULL");
    int rc = rma_win_attach(win, base, size);
    return rc ? api_win_error(win, rc, fn, "cannot attach %ld bytes at %p: %s", (long)size, base,
                              core_strerror(rc))
              : MPI_SUCCESS;
}
int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) API_ALIAS(MPI_Win_attach);

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_detach";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    int rc = rma_win_detach(win, base);
    return rc ? api_win_error(win, rc, fn, "no memory attached at %p", base) : MPI_SUCCESS;
}
int MPI_Win_detach(MPI_Win win, const void *base) API_ALIAS(MPI_Win_detach);

int api_win_attr_delete_all(MPI_Win win, const char *fn);

int PMPI_Win_free(MPI_Win *win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_free";
    API_CHECK(api_check_init(fn));
    if (!win)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "win is NULL");
    API_CHECK(api_check_win(*win, fn));
    MPI_Win w = *win;
    if (w->access || w->exposure || w->nlocks || w->lock_all)
        return api_win_error(w, CORE_ERMA_SYNC, fn, "an epoch is still open on the window");
    API_CHECK(api_win_attr_delete_all(w, fn));
    int rc = rma_win_free(w);
    *win = MPI_WIN_NULL;
    return rc ? api_error(MPI_COMM_NULL, rc, fn, "%s", core_strerror(rc)) : MPI_SUCCESS;
}
int MPI_Win_free(MPI_Win *win) API_ALIAS(MPI_Win_free);

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_get_group";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    if (!group)
        return api_win_error(win, CORE_EINVAL, fn, "group is NULL");
    core_group_retain(win->comm->group);
    *group = win->comm->group;
    return MPI_SUCCESS;
}
int MPI_Win_get_group(MPI_Win win, MPI_Group *group) API_ALIAS(MPI_Win_get_group);

int PMPI_Win_set_name(MPI_Win win, const char *name)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_set_name";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    if (!name)
        return api_win_error(win, CORE_EINVAL, fn, "win_name is NULL");
    strncpy(win->name, name, MPI_MAX_OBJECT_NAME - 1);
    win->name[MPI_MAX_OBJECT_NAME - 1] = '\0';
    return MPI_SUCCESS;
}
int MPI_Win_set_name(MPI_Win win, const char *name) API_ALIAS(MPI_Win_set_name);

int PMPI_Win_get_name(MPI_Win win, char *name, int *resultlen)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_get_name";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    if (!name || !resultlen)
        return api_win_error(win, CORE_EINVAL, fn, "win_name or resultlen is NULL");
    strcpy(name, win->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
int MPI_Win_get_name(MPI_Win win, char *name, int *resultlen) API_ALIAS(MPI_Win_get_name);

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_set_info";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    API_CHECK(api_check_info(MPI_COMM_NULL, info, 1, fn));
    rma_win_apply_info(win, info);
    return MPI_SUCCESS;
}
int MPI_Win_set_info(MPI_Win win, MPI_Info info) API_ALIAS(MPI_Win_set_info);

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_get_info";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    if (!info)
        return api_win_error(win, CORE_EINVAL, fn, "info_used is NULL");
    int rc = rma_win_get_info(win, info);
    return rc ? api_win_error(win, rc, fn, "out of memory") : MPI_SUCCESS;
}
int MPI_Win_get_info(MPI_Win win, MPI_Info *info) API_ALIAS(MPI_Win_get_info);

/* ---- error handlers ---------------------------------------------------------------- */

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fnp, MPI_Errhandler *errhandler)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_create_errhandler";
    API_CHECK(api_check_init(fn));
    if (!fnp || !errhandler)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "function or errhandler is NULL");
    /* Stored like a communicator handler; api_win_raise calls it with the window. */
    if (core_errhandler_create((MPI_Comm_errhandler_function *)(void (*)(void))fnp,
                               errhandler) != 0)
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
    return MPI_SUCCESS;
}
int MPI_Win_create_errhandler(MPI_Win_errhandler_function *fnp, MPI_Errhandler *errhandler)
    API_ALIAS(MPI_Win_create_errhandler);

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_set_errhandler";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    API_CHECK(api_check_errh(MPI_COMM_NULL, errhandler, fn));
    core_errhandler_retain(errhandler);
    core_errhandler_release(win->errh);
    win->errh = errhandler;
    return MPI_SUCCESS;
}
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
    API_ALIAS(MPI_Win_set_errhandler);

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_get_errhandler";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    if (!errhandler)
        return api_win_error(win, CORE_EINVAL, fn, "errhandler is NULL");
    core_errhandler_retain(win->errh);
    *errhandler = win->errh;
    return MPI_SUCCESS;
}
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
    API_ALIAS(MPI_Win_get_errhandler);

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_call_errhandler";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    api_win_raise(win, errorcode, fn, "error raised by the application");
    return MPI_SUCCESS;
}
int MPI_Win_call_errhandler(MPI_Win win, int errorcode) API_ALIAS(MPI_Win_call_errhandler);
