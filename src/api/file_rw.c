/*
 * MPI-IO data access entry points: explicit offsets (_at), the individual
 * file pointer, the shared file pointer, their collective (_all, _ordered),
 * nonblocking (i...) and split collective (_begin/_end) forms, and the
 * pointer calls (seek, get_position, get_byte_offset).
 *
 * Completion: the independent nonblocking calls do their I/O before they
 * return and hand out a completed request (MPI allows a nonblocking call to
 * complete at once). The collective ones (MPI_File_iread_all, ..., and the
 * split collectives _all/_at_all _begin) only start: src/io runs the rest
 * from the progress engine (icoll.c) and completes the request, so they
 * return before the other ranks have entered the call. The ordered split
 * collectives do the whole access in _begin, which MPI-4.1 (14.4.5)
 * explicitly allows.
 */
#include <stdio.h>
#include <string.h>
#include "api/file.h"
#include "core/progress.h"
#include "core/request.h"

enum { AT, IND, SHARED, ORDERED };

static int check_rw(MPI_File fh, int count, MPI_Datatype dt, int write, int where,
                    MPI_Offset off, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_file(fh, fn));
    if (count < 0)
        return api_file_error(fh, CORE_ECOUNT, fn, "negative count %d", count);
    if (!core_handle_valid(&core_handles.dt, dt))
        return api_file_error(fh, CORE_ETYPE, fn, "invalid datatype");
    if (!(dt->flags & CORE_DT_COMMITTED))
        return api_file_error(fh, CORE_ETYPE, fn, "the datatype is not committed");
    if (write && (fh->amode & MPI_MODE_RDONLY))
        return api_file_error(fh, CORE_EROFS, fn, "\"%s\" was opened MPI_MODE_RDONLY", fh->path);
    if (!write && (fh->amode & MPI_MODE_WRONLY))
        return api_file_error(fh, CORE_EACCESS, fn, "\"%s\" was opened MPI_MODE_WRONLY",
                              fh->path);
    if ((where == AT || where == IND) && (fh->amode & MPI_MODE_SEQUENTIAL))
        return api_file_error(fh, CORE_EUNSUPPORTED, fn,
                              "\"%s\" was opened MPI_MODE_SEQUENTIAL: only shared file pointers",
                              fh->path);
    if (where == AT && off < 0)
        return api_file_error(fh, CORE_EINVAL, fn, "negative offset %lld", (long long)off);
    return 0;
}

static void set_status(MPI_Status *st, MPI_Offset bytes)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG; /* MPI_ERROR stays the caller's (core_status_out) */
    st->rdmpi_cancelled = 0;
    st->rdmpi_nbytes = bytes;
}

static int rw(MPI_File fh, int write, int coll, int where, MPI_Offset off, const void *cbuf,
              int count, MPI_Datatype dt, MPI_Status *st, const char *fn)
{
    API_CHECK(check_rw(fh, count, dt, write, where, off, fn));
    void *buf = (void *)cbuf;   /* a write only reads it */
    MPI_Offset bytes = 0, es = (MPI_Offset)fh->etype->size, pos;
    int rc;
    switch (where) {
    case AT:
        rc = io_access(fh, write, coll, off, buf, count, dt, &bytes);
        break;
    case IND:
        rc = io_access(fh, write, coll, fh->fp, buf, count, dt, &bytes);
        if (!rc)
            fh->fp += bytes / es;
        break;
    case SHARED:
        rc = io_shfp_fetch_add(fh, (MPI_Offset)count * (MPI_Offset)dt->size / es, &pos);
        if (!rc)
            rc = io_access(fh, write, 0, pos, buf, count, dt, &bytes);
        break;
    default:
        rc = io_ordered(fh, write, buf, count, dt, &bytes);
        break;
    }
    if (rc)
        return api_file_fail(fh, rc, fn);
    set_status(st, bytes);
    return MPI_SUCCESS;
}

/* The end of a collective access that runs in the background: its request completes. */
static void coll_done(void *arg, int rc, MPI_Offset bytes)
{
    MPI_Request r = arg;
    set_status(&r->status, bytes);
    r->status.MPI_ERROR = rc ? api_class_of(rc) : MPI_SUCCESS;
    core_req_complete(r);
}

/* Starts a collective access (explicit offset or individual pointer) and hands out the
 * request it completes. The individual pointer moves at once by what was asked for. */
static int coll_start(MPI_File fh, int write, int where, MPI_Offset off, const void *buf,
                      int count, MPI_Datatype dt, MPI_Request *req, const char *fn)
{
    API_CHECK(check_rw(fh, count, dt, write, where, off, fn));
    MPI_Request r = core_req_alloc(CORE_REQ_COLL);
    if (!r)
        return api_file_error(fh, CORE_ENOMEM, fn, "out of requests");
    r->file = fh;
    MPI_Offset pos = where == AT ? off : fh->fp;
    int rc = io_coll_start(fh, write, pos, (void *)buf, count, dt, coll_done, r);
    if (rc) {
        core_req_free(r);
        return api_file_fail(fh, rc, fn);
    }
    if (where == IND)
        fh->fp += (MPI_Offset)count * (MPI_Offset)dt->size / (MPI_Offset)fh->etype->size;
    *req = r;
    return MPI_SUCCESS;
}

/* The nonblocking forms: collective ones start (see the top), independent ones do the
 * access and hand out a completed request. */
static int irw(MPI_File fh, int write, int coll, int where, MPI_Offset off, const void *buf,
               int count, MPI_Datatype dt, MPI_Request *req, const char *fn)
{
    API_CHECK(api_check_init(fn));
    if (!req)
        return api_file_error(fh, CORE_EINVAL, fn, "request is NULL");
    if (coll && (where == AT || where == IND))
        return coll_start(fh, write, where, off, buf, count, dt, req, fn);
    MPI_Request r = core_req_alloc(CORE_REQ_COLL);
    if (!r)
        return api_file_error(fh, CORE_ENOMEM, fn, "out of requests");
    int rc = rw(fh, write, coll, where, off, buf, count, dt, &r->status, fn);
    if (rc != MPI_SUCCESS) {
        core_req_free(r);
        return rc;
    }
    core_req_complete(r);
    *req = r;
    return MPI_SUCCESS;
}

/* Split collectives: _begin starts the access (the ordered ones do it whole), _end waits
 * for it and hands out its status. */
static int split_begin(MPI_File fh, int kind, int write, int where, MPI_Offset off,
                       const void *buf, int count, MPI_Datatype dt, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_file(fh, fn));
    if (fh->split != IO_SPLIT_NONE)
        return api_file_error(fh, CORE_EOTHER, fn,
                              "a split collective is already active on \"%s\"", fh->path);
    int rc = where == ORDERED
                 ? rw(fh, write, 1, where, off, buf, count, dt, &fh->split_status, fn)
                 : coll_start(fh, write, where, off, buf, count, dt, &fh->split_req, fn);
    if (rc == MPI_SUCCESS && where == ORDERED)
        fh->split_status.MPI_ERROR = MPI_SUCCESS; /* what split_end reports */
    if (rc == MPI_SUCCESS)
        fh->split = kind;
    return rc;
}

static int split_end(MPI_File fh, int kind, MPI_Status *st, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_file(fh, fn));
    if (fh->split != kind)
        return api_file_error(fh, CORE_EOTHER, fn,
                              fh->split == IO_SPLIT_NONE
                                  ? "no split collective is active on \"%s\""
                                  : "the active split collective on \"%s\" is another one",
                              fh->path);
    fh->split = IO_SPLIT_NONE;
    MPI_Request r = fh->split_req;
    if (r) {
        fh->split_req = NULL;
        core_wait_req(r, fn);
        fh->split_status = r->status;
        core_req_free(r);
    }
    core_status_out(st, &fh->split_status);
    int err = fh->split_status.MPI_ERROR;
    if (err != MPI_SUCCESS) {
        char msg[sizeof(fh->last_error)];
        snprintf(msg, sizeof(msg), "%s", fh->last_error[0] ? fh->last_error : "the access failed");
        fh->last_error[0] = 0;
        return api_file_raise(fh, err, fn, msg);
    }
    return MPI_SUCCESS;
}

#define RW(name, write, coll, where, cv)                                                        \
    int PMPI_File_##name(MPI_File fh, cv void *buf, int count, MPI_Datatype datatype,          \
                         MPI_Status *status)                                                   \
    {                                                                                          \
        API_ENTER;                                                                             \
        return rw(fh, write, coll, where, 0, buf, count, datatype, status, "MPI_File_" #name); \
    }                                                                                          \
    int MPI_File_##name(MPI_File fh, cv void *buf, int count, MPI_Datatype datatype,           \
                        MPI_Status *status) API_ALIAS(MPI_File_##name);
#define RW_AT(name, write, coll, cv)                                                           \
    int PMPI_File_##name(MPI_File fh, MPI_Offset offset, cv void *buf, int count,              \
                         MPI_Datatype datatype, MPI_Status *status)                            \
    {                                                                                          \
        API_ENTER;                                                                             \
        return rw(fh, write, coll, AT, offset, buf, count, datatype, status,                   \
                  "MPI_File_" #name);                                                          \
    }                                                                                          \
    int MPI_File_##name(MPI_File fh, MPI_Offset offset, cv void *buf, int count,               \
                        MPI_Datatype datatype, MPI_Status *status) API_ALIAS(MPI_File_##name);
#define IRW(name, write, coll, where, cv)                                                       \
    int PMPI_File_##name(MPI_File fh, cv void *buf, int count, MPI_Datatype datatype,           \
                         MPI_Request *request)                                                  \
    {                                                                                           \
        API_ENTER;                                                                              \
        return irw(fh, write, coll, where, 0, buf, count, datatype, request, "MPI_File_" #name); \
    }                                                                                           \
    int MPI_File_##name(MPI_File fh, cv void *buf, int count, MPI_Datatype datatype,            \
                        MPI_Request *request) API_ALIAS(MPI_File_##name);
#define IRW_AT(name, write, coll, cv)                                                          \
    int PMPI_File_##name(MPI_File fh, MPI_Offset offset, cv void *buf, int count,              \
                         MPI_Datatype datatype, MPI_Request *request)                          \
    {                                                                                          \
        API_ENTER;                                                                             \
        return irw(fh, write, coll, AT, offset, buf, count, datatype, request,                 \
                   "MPI_File_" #name);                                                         \
    }                                                                                          \
    int MPI_File_##name(MPI_File fh, MPI_Offset offset, cv void *buf, int count,               \
                        MPI_Datatype datatype, MPI_Request *request) API_ALIAS(MPI_File_##name);
#define SPLIT(name, kind, write, where, cv)                                                    \
    int PMPI_File_##name##_begin(MPI_File fh, cv void *buf, int count, MPI_Datatype datatype)  \
    {                                                                                          \
        API_ENTER;                                                                             \
        return split_begin(fh, kind, write, where, 0, buf, count, datatype,                    \
                           "MPI_File_" #name "_begin");                                        \
    }                                                                                          \
    int MPI_File_##name##_begin(MPI_File fh, cv void *buf, int count, MPI_Datatype datatype)   \
        API_ALIAS(MPI_File_##name##_begin);                                                    \
    int PMPI_File_##name##_end(MPI_File fh, cv void *buf, MPI_Status *status)                  \
    {                                                                                          \
        API_ENTER;                                                                             \
        (void)buf;                                                                             \
        return split_end(fh, kind, status, "MPI_File_" #name "_end");                          \
    }                                                                                          \
    int MPI_File_##name##_end(MPI_File fh, cv void *buf, MPI_Status *status)                   \
        API_ALIAS(MPI_File_##name##_end);

RW_AT(read_at, 0, 0, )
RW_AT(write_at, 1, 0, const)
RW_AT(read_at_all, 0, 1, )
RW_AT(write_at_all, 1, 1, const)
IRW_AT(iread_at, 0, 0, )
IRW_AT(iwrite_at, 1, 0, const)
IRW_AT(iread_at_all, 0, 1, )
IRW_AT(iwrite_at_all, 1, 1, const)
RW(read, 0, 0, IND, )
RW(write, 1, 0, IND, const)
RW(read_all, 0, 1, IND, )
RW(write_all, 1, 1, IND, const)
IRW(iread, 0, 0, IND, )
IRW(iwrite, 1, 0, IND, const)
IRW(iread_all, 0, 1, IND, )
IRW(iwrite_all, 1, 1, IND, const)
RW(read_shared, 0, 0, SHARED, )
RW(write_shared, 1, 0, SHARED, const)
IRW(iread_shared, 0, 0, SHARED, )
IRW(iwrite_shared, 1, 0, SHARED, const)
RW(read_ordered, 0, 1, ORDERED, )
RW(write_ordered, 1, 1, ORDERED, const)
SPLIT(read_all, IO_SPLIT_READ, 0, IND, )
SPLIT(write_all, IO_SPLIT_WRITE, 1, IND, const)
SPLIT(read_ordered, IO_SPLIT_READ_ORD, 0, ORDERED, )
SPLIT(write_ordered, IO_SPLIT_WRITE_ORD, 1, ORDERED, const)

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                MPI_Datatype datatype)
{
    API_ENTER;
    return split_begin(fh, IO_SPLIT_READ_AT, 0, AT, offset, buf, count, datatype,
                       "MPI_File_read_at_all_begin");
}
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                               MPI_Datatype datatype) API_ALIAS(MPI_File_read_at_all_begin);

int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    API_ENTER;
    (void)buf;
    return split_end(fh, IO_SPLIT_READ_AT, status, "MPI_File_read_at_all_end");
}
int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
    API_ALIAS(MPI_File_read_at_all_end);

int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype)
{
    API_ENTER;
    return split_begin(fh, IO_SPLIT_WRITE_AT, 1, AT, offset, buf, count, datatype,
                       "MPI_File_write_at_all_begin");
}
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype) API_ALIAS(MPI_File_write_at_all_begin);

int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    API_ENTER;
    (void)buf;
    return split_end(fh, IO_SPLIT_WRITE_AT, status, "MPI_File_write_at_all_end");
}
int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
    API_ALIAS(MPI_File_write_at_all_end);

/* ---- file pointers ---- */

/* The position whence + offset names; CORE_EINVAL when it is negative. */
static int seek_pos(MPI_File fh, MPI_Offset cur, MPI_Offset offset, int whence, MPI_Offset *out)
{
    MPI_Offset base;
    if (whence == MPI_SEEK_SET)
        base = 0;
    else if (whence == MPI_SEEK_CUR)
        base = cur;
    else if (whence == MPI_SEEK_END) {
        int rc = io_view_end(fh, &base);
        if (rc)
            return rc;
    } else
        return CORE_EINVAL;
    if (base + offset < 0)
        return CORE_EINVAL;
    *out = base + offset;
    return 0;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    API_ENTER;
    static const char fn[] = "MPI_File_seek";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_file(fh, fn));
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return api_file_error(fh, CORE_EUNSUPPORTED, fn, "the file was opened MPI_MODE_SEQUENTIAL");
    MPI_Offset pos;
    int rc = seek_pos(fh, fh->fp, offset, whence, &pos);
    if (rc == CORE_EINVAL)
        return api_file_error(fh, rc, fn, "whence %d, offset %lld: invalid or before the start",
                              whence, (long long)offset);
    if (rc)
        return api_file_fail(fh, rc, fn);
    fh->fp = pos;
    return MPI_SUCCESS;
}
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) API_ALIAS(MPI_File_seek);

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_position";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_file(fh, fn));
    if (!offset)
        return api_file_error(fh, CORE_EINVAL, fn, "offset is NULL");
    *offset = fh->fp;
    return MPI_SUCCESS;
}
int MPI_File_get_position(MPI_File fh, MPI_Offset *offset) API_ALIAS(MPI_File_get_position);

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_byte_offset";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_file(fh, fn));
    if (!disp)
        return api_file_error(fh, CORE_EINVAL, fn, "disp is NULL");
    if (offset < 0)
        return api_file_error(fh, CORE_EINVAL, fn, "negative offset %lld", (long long)offset);
    *disp = io_view_byte(fh, offset);
    return MPI_SUCCESS;
}
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
    API_ALIAS(MPI_File_get_byte_offset);

/* Collective: rank 0 moves the pointer; the others learn the outcome, after which it
 * is in place for any rank's next shared access. */
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    API_ENTER;
    static const char fn[] = "MPI_File_seek_shared";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_file(fh, fn));
    io_drain(fh);
    int rc = 0;
    if (fh->rank == 0) {
        MPI_Offset cur = 0, pos;
        rc = whence == MPI_SEEK_CUR ? io_shfp_fetch_add(fh, 0, &cur) : 0;
        if (!rc)
            rc = seek_pos(fh, cur, offset, whence, &pos);
        if (!rc)
            rc = io_shfp_set(fh, pos);
    }
    if (PMPI_Bcast(&rc, 1, MPI_INT, 0, fh->comm) != MPI_SUCCESS)
        rc = CORE_EINTERN;
    if (rc == CORE_EINVAL)
        return api_file_error(fh, rc, fn, "whence %d, offset %lld: invalid or before the start",
                              whence, (long long)offset);
    return rc ? api_file_fail(fh, rc, fn) : MPI_SUCCESS;
}
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
    API_ALIAS(MPI_File_seek_shared);

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    API_ENTER;
    static const char fn[] = "MPI_File_get_position_shared";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_file(fh, fn));
    if (!offset)
        return api_file_error(fh, CORE_EINVAL, fn, "offset is NULL");
    int rc = io_shfp_fetch_add(fh, 0, offset);
    return rc ? api_file_fail(fh, rc, fn) : MPI_SUCCESS;
}
int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
    API_ALIAS(MPI_File_get_position_shared);
