/*
 * MPI-IO entry points for files as objects: open, close, delete, size,
 * group, amode, hints, views, atomicity, sync, file pointers' positions,
 * data representations, error handlers and Fortran handles. The data
 * access calls are in file_rw.c; the work below the API is in src/io.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "api/errstring.h"
#include "api/file.h"
#include "core/bootstrap.h"
#include "core/info.h"
#include "core/info_ops.h"

int api_file_raise(MPI_File fh, int cls, const char *fn, const char *msg)
{
    MPI_Errhandler eh = MPI_ERRORS_RETURN;
    if (fh != MPI_FILE_NULL && core_handle_valid(&core_handles.file, fh))
        eh = fh->errh;
    else if (api_initialized && !api_finalized && io_rt()->file_null_errh)
        eh = io_rt()->file_null_errh;
    if (eh->kind == CORE_ERRH_RETURN)
        return cls;
    if (eh->kind == CORE_ERRH_USER && eh->call) {
        eh->call((void (*)(void))eh->fn, CORE_ERRH_FILE, &fh, &cls);
        return cls;
    }
    if (eh->kind == CORE_ERRH_USER) {
        MPI_File_errhandler_function *f = (MPI_File_errhandler_function *)(void (*)(void))eh->fn;
        f(&fh, &cls, fn, msg);
        return cls;
    }
    char line[1024];
    int ucls = api_user_code_class(cls);
    snprintf(line, sizeof(line), "rdmpi: rank %d on %s: %s: %s [%s]; aborting the job",
             core_rt ? core_rt->rank : 0, core_rt ? core_rt->hostname : "?", fn, msg,
             api_class_name(ucls >= 0 ? ucls : cls));
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    core_boot_abort(core_rt, cls ? cls : 1, line);
}

int api_file_error(MPI_File fh, int code, const char *fn, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return api_file_raise(fh, api_class_of(code), fn, msg);
}

int api_file_fail(MPI_File fh, int code, const char *fn)
{
    int ok = fh != MPI_FILE_NULL && core_handle_valid(&core_handles.file, fh);
    if (ok && fh->last_error[0]) {
        char msg[sizeof(fh->last_error)];
        strcpy(msg, fh->last_error);
        fh->last_error[0] = 0;
        return api_file_error(fh, code, fn, "%s", msg);
    }
    return api_file_error(fh, code, fn, "%s%s%s%s", core_strerror(code), ok ? " (file \"" : "",
                          ok ? fh->path : "", ok ? "\")" : "");
}

int api_check_file(MPI_File fh, const char *fn)
{
    if (core_handle_valid(&core_handles.file, fh))
        return 0;
    if (fh == MPI_FILE_NULL)
        return api_file_error(fh, CORE_EFILE, fn, "the file is MPI_FILE_NULL");
    return api_file_error(MPI_FILE_NULL, CORE_EFILE, fn, "%p is not an open file", (void *)fh);
}

#define CHECK_FILE(fh, fn)                      \
    do {                                        \
        API_CHECK(api_check_init(fn));          \
        API_CHECK(api_check_file(fh, fn));      \
    } while (0)
#define CHECK_PTR(fh, p, fn)                                                    \
    do {                                                                        \
        if (!(p))                                                               \
            return api_file_error(fh, CORE_EINVAL, fn, "%s is NULL", #p);       \
    } while (0)

static int check_amode(int amode, const char *fn)
{
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    const int all = MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_CREATE |
                    MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                    MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
    const char *why = NULL;
    if (amode & ~all)
        why = "unknown bits";
    else if (rw != 1)
        why = "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is required";
    else if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        why = "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
    else if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        why = "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
    if (why)
        return api_file_error(MPI_FILE_NULL, CORE_EAMODE, fn, "amode %#x: %s", amode, why);
    return 0;
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    API_ENTER;
    static const char fn[] = "MPI_File_open";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    CHECK_PTR(MPI_FILE_NULL, fh, fn);
    if (!filename)
        return api_file_error(MPI_FILE_NULL, CORE_EBADFILE, fn, "the file name is NULL");
    if (!filename[0])
        return api_file_error(MPI_FILE_NULL, CORE_EBADFILE, fn, "the file name is empty");
    API_CHECK(check_amode(amode, fn));
    if (info != MPI_INFO_NULL && !core_handle_valid(&core_handles.info, info))
        return api_file_error(MPI_FILE_NULL, CORE_EINFO, fn, "invalid info object");
    /* ROMIO's "ufs:" and similar prefixes name the file system; all are POSIX here */
    static const char *const prefixes[] = { "ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:",
                                            "xfs:", NULL };
    for (int i = 0; prefixes[i]; i++)
        if (!strncmp(filename, prefixes[i], strlen(prefixes[i])))
            filename += strlen(prefixes[i]);
    char why[512] = "";
    MPI_File f;
    int rc = io_open(comm, filename, amode, info, &f, why, sizeof(why));
    if (rc)
        return api_file_error(MPI_FILE_NULL, rc, fn, "%s", why[0] ? why : core_strerror(rc));
    *fh = f;
    return MPI_SUCCESS;
}
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
    API_ALIAS(MPI_File_open);

int PMPI_File_close(MPI_File *fh)
{
    API_ENTER;
    static const char fn[] = "MPI_File_close";
    API_CHECK(api_check_init(fn));
    CHECK_PTR(MPI_FILE_NULL, fh, fn);
    API_CHECK(api_check_file(*fh, fn));
    char path[512];
    snprintf(path, sizeof(path), "%s", (*fh)->path);
    MPI_Errhandler eh = (*fh)->errh;
    core_errhandler_retain(eh);
    int rc = io_close(*fh);
    *fh = MPI_FILE_NULL;
    if (rc) {
        /* the file is gone: report through the handler it had */
        int cls = api_class_of(rc);
        char msg[640];
        snprintf(msg, sizeof(msg), "closing \"%s\": %s", path, core_strerror(rc));
        if (eh->kind == CORE_ERRH_RETURN) {
            core_errhandler_release(eh);
            return cls;
        }
        core_errhandler_release(eh);
        return api_file_raise(MPI_FILE_NULL, cls, fn, msg);
    }
    core_errhandler_release(eh);
    return MPI_SUCCESS;
}
int MPI_File_close(MPI_File *fh) API_ALIAS(MPI_File_close);

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    API_ENTER;
    static const char fn[] = "MPI_File_delete";
    API_CHECK(api_check_init(fn));
    if (!filename)
        return api_file_error(MPI_FILE_NULL, CORE_EBADFILE, fn, "the file name is NULL");
    (void)info;
    char why[512];
    int rc = io_delete(filename, why, sizeof(why));
    return rc ? api_file_error(MPI_FILE_NULL, rc, fn, "%s", why) : MPI_SUCCESS;
}
int MPI_File_delete(const char *filename, MPI_Info info) API_ALIAS(MPI_File_delete);

static int size_call(MPI_File fh, MPI_Offset size, int prealloc, const char *fn)
{
    CHECK_FILE(fh, fn);
    if (size < 0)
        return api_file_error(fh, CORE_EINVAL, fn, "negative size %lld", (long long)size);
    if (fh->amode & MPI_MODE_RDONLY)
        return api_file_error(fh, CORE_EROFS, fn, "\"%s\" was opened MPI_MODE_RDONLY", fh->path);
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return api_file_error(fh, CORE_EUNSUPPORTED, fn,
                              "not allowed on a file opened MPI_MODE_SEQUENTIAL");
    int rc = io_set_size(fh, size, prealloc);
    return rc ? api_file_fail(fh, rc, fn) : MPI_SUCCESS;
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    API_ENTER;
    return size_call(fh, size, 0, "MPI_File_set_size");
}
int MPI_File_set_size(MPI_File fh, MPI_Offset size) API_ALIAS(MPI_File_set_size);

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    API_ENTER;
    return size_call(fh, size, 1, "MPI_File_preallocate");
}
int MPI_File_preallocate(MPI_File fh, MPI_Offset size) API_ALIAS(MPI_File_preallocate);

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_size";
    CHECK_FILE(fh, fn);
    CHECK_PTR(fh, size, fn);
    int rc = io_get_size(fh, size);
    return rc ? api_file_fail(fh, rc, fn) : MPI_SUCCESS;
}
int MPI_File_get_size(MPI_File fh, MPI_Offset *size) API_ALIAS(MPI_File_get_size);

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_group";
    CHECK_FILE(fh, fn);
    CHECK_PTR(fh, group, fn);
    return PMPI_Comm_group(fh->comm, group);
}
int MPI_File_get_group(MPI_File fh, MPI_Group *group) API_ALIAS(MPI_File_get_group);

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_amode";
    CHECK_FILE(fh, fn);
    CHECK_PTR(fh, amode, fn);
    *amode = fh->amode;
    return MPI_SUCCESS;
}
int MPI_File_get_amode(MPI_File fh, int *amode) API_ALIAS(MPI_File_get_amode);

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    API_ENTER;
    static const char fn[] = "MPI_File_set_info";
    CHECK_FILE(fh, fn);
    if (info != MPI_INFO_NULL && !core_handle_valid(&core_handles.info, info))
        return api_file_error(fh, CORE_EINFO, fn, "invalid info object");
    int rc = io_set_info(fh, info);
    return rc ? api_file_fail(fh, rc, fn) : MPI_SUCCESS;
}
int MPI_File_set_info(MPI_File fh, MPI_Info info) API_ALIAS(MPI_File_set_info);

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_info";
    CHECK_FILE(fh, fn);
    CHECK_PTR(fh, info_used, fn);
    int rc = core_info_dup(fh->info, info_used);
    return rc ? api_file_fail(fh, rc, fn) : MPI_SUCCESS;
}
int MPI_File_get_info(MPI_File fh, MPI_Info *info_used) API_ALIAS(MPI_File_get_info);

static int check_view_type(MPI_File fh, MPI_Datatype t, const char *what, const char *fn)
{
    if (!core_handle_valid(&core_handles.dt, t))
        return api_file_error(fh, CORE_ETYPE, fn, "the %s is not a datatype", what);
    if (!(t->flags & CORE_DT_COMMITTED))
        return api_file_error(fh, CORE_ETYPE, fn, "the %s is not committed", what);
    if (core_dt_ntile(t) > 1) /* views walk the run list, which a tiled type does not have */
        return api_file_error(fh, CORE_EUNSUPPORTED, fn, "the %s has more than %zu separate "
                              "blocks: not supported in file views", what, CORE_DT_MAX_RUNS);
    return 0;
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    API_ENTER;
    static const char fn[] = "MPI_File_set_view";
    CHECK_FILE(fh, fn);
    API_CHECK(check_view_type(fh, etype, "etype", fn));
    API_CHECK(check_view_type(fh, filetype, "filetype", fn));
    CHECK_PTR(fh, datarep, fn);
    if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
        return api_file_error(fh, CORE_EINVAL, fn, "negative displacement %lld", (long long)disp);
    if (disp == MPI_DISPLACEMENT_CURRENT && !(fh->amode & MPI_MODE_SEQUENTIAL))
        return api_file_error(fh, CORE_EINVAL, fn,
                              "MPI_DISPLACEMENT_CURRENT needs a file opened MPI_MODE_SEQUENTIAL");
    if (info != MPI_INFO_NULL && !core_handle_valid(&core_handles.info, info))
        return api_file_error(fh, CORE_EINFO, fn, "invalid info object");
    int rc = io_set_view(fh, disp, etype, filetype, datarep);
    if (!rc && info != MPI_INFO_NULL)
        rc = io_set_info(fh, info);
    return rc ? api_file_fail(fh, rc, fn) : MPI_SUCCESS;
}
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info) API_ALIAS(MPI_File_set_view);

/* get_view hands out derived types as new handles the caller frees (MPI-4.1 14.3). */
static int view_type(MPI_Datatype t, MPI_Datatype *out)
{
    if (t->flags & CORE_DT_PREDEFINED) {
        *out = t;
        return MPI_SUCCESS;
    }
    int rc = PMPI_Type_dup(t, out);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(out);
    return rc;
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_view";
    CHECK_FILE(fh, fn);
    CHECK_PTR(fh, disp, fn);
    CHECK_PTR(fh, etype, fn);
    CHECK_PTR(fh, filetype, fn);
    CHECK_PTR(fh, datarep, fn);
    *disp = fh->disp;
    strcpy(datarep, fh->datarep);
    int rc = view_type(fh->etype, etype);
    if (rc == MPI_SUCCESS)
        rc = view_type(fh->ftype, filetype);
    return rc == MPI_SUCCESS ? rc : api_file_error(fh, CORE_ENOMEM, fn, "copying the view's types");
}
int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep) API_ALIAS(MPI_File_get_view);

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_type_extent";
    CHECK_FILE(fh, fn);
    if (!core_handle_valid(&core_handles.dt, datatype))
        return api_file_error(fh, CORE_ETYPE, fn, "invalid datatype");
    CHECK_PTR(fh, extent, fn);
    int rc = io_type_extent(fh, datatype, extent);
    return rc ? api_file_fail(fh, rc, fn) : MPI_SUCCESS;
}
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
    API_ALIAS(MPI_File_get_type_extent);

int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    API_ENTER;
    static const char fn[] = "MPI_Register_datarep";
    API_CHECK(api_check_init(fn));
    CHECK_PTR(MPI_FILE_NULL, datarep, fn);
    CHECK_PTR(MPI_FILE_NULL, dtype_file_extent_fn, fn);
    int rc = io_register_datarep(datarep, read_conversion_fn, write_conversion_fn,
                                 dtype_file_extent_fn, extra_state);
    if (rc)
        return api_file_error(MPI_FILE_NULL, rc, fn, "data representation \"%s\": %s", datarep,
                              core_strerror(rc));
    return MPI_SUCCESS;
}
int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                         MPI_Datarep_conversion_function *write_conversion_fn,
                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
    API_ALIAS(MPI_Register_datarep);

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    API_ENTER;
    static const char fn[] = "MPI_File_set_atomicity";
    CHECK_FILE(fh, fn);
    int rc = io_set_atomicity(fh, flag);
    return rc ? api_file_fail(fh, rc, fn) : MPI_SUCCESS;
}
int MPI_File_set_atomicity(MPI_File fh, int flag) API_ALIAS(MPI_File_set_atomicity);

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_atomicity";
    CHECK_FILE(fh, fn);
    CHECK_PTR(fh, flag, fn);
    *flag = fh->atomic;
    return MPI_SUCCESS;
}
int MPI_File_get_atomicity(MPI_File fh, int *flag) API_ALIAS(MPI_File_get_atomicity);

int PMPI_File_sync(MPI_File fh)
{
    API_ENTER;
    static const char fn[] = "MPI_File_sync";
    CHECK_FILE(fh, fn);
    int rc = io_sync(fh);
    return rc ? api_file_fail(fh, rc, fn) : MPI_SUCCESS;
}
int MPI_File_sync(MPI_File fh) API_ALIAS(MPI_File_sync);

/* ---- error handlers ---- */

int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    API_ENTER;
    static const char fn[] = "MPI_File_create_errhandler";
    API_CHECK(api_check_init(fn));
    CHECK_PTR(MPI_FILE_NULL, file_errhandler_fn, fn);
    CHECK_PTR(MPI_FILE_NULL, errhandler, fn);
    /* one kind of handler object serves communicators and files: the function is
     * called with the file's arguments (api_file_raise) */
    MPI_Comm_errhandler_function *f =
        (MPI_Comm_errhandler_function *)(void (*)(void))file_errhandler_fn;
    if (core_errhandler_create(f, errhandler) != 0)
        return api_file_error(MPI_FILE_NULL, CORE_ENOMEM, fn, "out of memory");
    return MPI_SUCCESS;
}
int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                               MPI_Errhandler *errhandler) API_ALIAS(MPI_File_create_errhandler);

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    API_ENTER;
    static const char fn[] = "MPI_File_set_errhandler";
    API_CHECK(api_check_init(fn));
    if (file != MPI_FILE_NULL)
        API_CHECK(api_check_file(file, fn));
    if (!core_handle_valid(&core_handles.errh, errhandler))
        return api_file_error(file, CORE_EERRHANDLER, fn, "invalid error handler");
    core_errhandler_retain(errhandler);
    if (file == MPI_FILE_NULL) {
        io_runtime_t *io = io_rt();
        core_errhandler_release(io->file_null_errh);
        io->file_null_errh = errhandler;
    } else {
        core_errhandler_release(file->errh);
        file->errh = errhandler;
    }
    return MPI_SUCCESS;
}
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
    API_ALIAS(MPI_File_set_errhandler);

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_errhandler";
    API_CHECK(api_check_init(fn));
    if (file != MPI_FILE_NULL)
        API_CHECK(api_check_file(file, fn));
    CHECK_PTR(file, errhandler, fn);
    MPI_Errhandler e = file != MPI_FILE_NULL ? file->errh : io_rt()->file_null_errh;
    if (!e)
        e = MPI_ERRORS_RETURN;
    core_errhandler_retain(e);
    *errhandler = e;
    return MPI_SUCCESS;
}
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
    API_ALIAS(MPI_File_get_errhandler);

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    API_ENTER;
    static const char fn[] = "MPI_File_call_errhandler";
    API_CHECK(api_check_init(fn));
    if (fh != MPI_FILE_NULL)
        API_CHECK(api_check_file(fh, fn));
    api_file_raise(fh, errorcode, fn, "error raised by the application");
    return MPI_SUCCESS;
}
int MPI_File_call_errhandler(MPI_File fh, int errorcode) API_ALIAS(MPI_File_call_errhandler);

/* MPI_File_c2f/f2c: bindings/fortran (integer handles from the files' handle pool). */
