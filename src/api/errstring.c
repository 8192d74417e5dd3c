/*
 * Error classes and codes as the user sees them: the names and descriptions
 * of the predefined classes, MPI_Error_string, MPI_Error_class, and the
 * classes, codes and strings a program adds at run time.
 *
 * Predefined codes are the classes themselves (0 .. MPI_T_ERR_INVALID);
 * values up to MPI_ERR_LASTCODE are reserved. Added classes and codes share
 * one numbering above MPI_ERR_LASTCODE, handed out in order, so the value
 * itself indexes the table. The table lives here rather than in the runtime
 * because MPI allows these calls before MPI_Init and after MPI_Finalize.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/attr.h"
#include "api/errstring.h"

typedef struct class_text {
    const char *name;
    const char *desc;
    const char *full;   /* "name: desc", for MPI_Error_string */
} class_text_t;

#define CLASS(c, d) [c] = { #c, d, #c ": " d }

static const class_text_t class_text[] = {
    CLASS(MPI_SUCCESS, "no error"),
    CLASS(MPI_ERR_BUFFER, "invalid buffer pointer"),
    CLASS(MPI_ERR_COUNT, "invalid count argument"),
    CLASS(MPI_ERR_TYPE, "invalid datatype"),
    CLASS(MPI_ERR_TAG, "invalid tag"),
    CLASS(MPI_ERR_COMM, "invalid communicator"),
    CLASS(MPI_ERR_RANK, "invalid rank"),
    CLASS(MPI_ERR_ROOT, "invalid root"),
    CLASS(MPI_ERR_GROUP, "invalid group"),
    CLASS(MPI_ERR_OP, "invalid reduction operation"),
    CLASS(MPI_ERR_TOPOLOGY, "invalid topology"),
    CLASS(MPI_ERR_DIMS, "invalid dimension argument"),
    CLASS(MPI_ERR_ARG, "invalid argument of some other kind"),
    CLASS(MPI_ERR_UNKNOWN, "unknown error"),
    CLASS(MPI_ERR_TRUNCATE, "message truncated on receive"),
    CLASS(MPI_ERR_OTHER, "known error not in this list"),
    CLASS(MPI_ERR_INTERN, "internal MPI (implementation) error"),
    CLASS(MPI_ERR_IN_STATUS, "error code is in status"),
    CLASS(MPI_ERR_PENDING, "pending request"),
    CLASS(MPI_ERR_REQUEST, "invalid request (handle)"),
    CLASS(MPI_ERR_ACCESS, "permission denied"),
    CLASS(MPI_ERR_AMODE, "error related to the amode passed to MPI_FILE_OPEN"),
    CLASS(MPI_ERR_BAD_FILE, "invalid file name"),
    CLASS(MPI_ERR_CONVERSION, "an error occurred in a user supplied data conversion function"),
    CLASS(MPI_ERR_DUP_DATAREP, "conversion functions could not be registered because the data "
                               "representation identifier is already defined"),
    CLASS(MPI_ERR_FILE_EXISTS, "file exists"),
    CLASS(MPI_ERR_FILE_IN_USE, "file operation could not be completed, the file is in use"),
    CLASS(MPI_ERR_FILE, "invalid file handle"),
    CLASS(MPI_ERR_INFO, "invalid info argument"),
    CLASS(MPI_ERR_INFO_KEY, "key longer than MPI_MAX_INFO_KEY"),
    CLASS(MPI_ERR_INFO_VALUE, "value longer than MPI_MAX_INFO_VAL"),
    CLASS(MPI_ERR_INFO_NOKEY, "invalid key passed to MPI_INFO_DELETE"),
    CLASS(MPI_ERR_IO, "other I/O error"),
    CLASS(MPI_ERR_NAME, "invalid service name passed to MPI_LOOKUP_NAME"),
    CLASS(MPI_ERR_NO_MEM, "MPI_ALLOC_MEM failed because memory is exhausted"),
    CLASS(MPI_ERR_NOT_SAME, "collective argument not identical on all processes"),
    CLASS(MPI_ERR_NO_SPACE, "not enough space"),
    CLASS(MPI_ERR_NO_SUCH_FILE, "file does not exist"),
    CLASS(MPI_ERR_PORT, "invalid port name passed to MPI_COMM_CONNECT"),
    CLASS(MPI_ERR_QUOTA, "quota exceeded"),
    CLASS(MPI_ERR_READ_ONLY, "read-only file or file system"),
    CLASS(MPI_ERR_SERVICE, "invalid service name passed to MPI_UNPUBLISH_NAME"),
    CLASS(MPI_ERR_SPAWN, "error in spawning processes"),
    CLASS(MPI_ERR_UNSUPPORTED_DATAREP, "unsupported datarep passed to MPI_FILE_SET_VIEW"),
    CLASS(MPI_ERR_UNSUPPORTED_OPERATION, "unsupported operation, such as seeking on a file "
                                         "which supports sequential access only"),
    CLASS(MPI_ERR_WIN, "invalid window argument"),
    CLASS(MPI_ERR_BASE, "invalid base passed to MPI_FREE_MEM"),
    CLASS(MPI_ERR_LOCKTYPE, "invalid locktype argument"),
    CLASS(MPI_ERR_KEYVAL, "invalid keyval has been passed"),
    CLASS(MPI_ERR_RMA_CONFLICT, "conflicting accesses to window"),
    CLASS(MPI_ERR_RMA_SYNC, "invalid synchronization of RMA calls"),
    CLASS(MPI_ERR_SIZE, "invalid size argument"),
    CLASS(MPI_ERR_DISP, "invalid disp argument"),
    CLASS(MPI_ERR_ASSERT, "invalid assert argument"),
    CLASS(MPI_ERR_RMA_RANGE, "target memory is not part of the window"),
    CLASS(MPI_ERR_RMA_ATTACH, "memory cannot be attached"),
    CLASS(MPI_ERR_RMA_SHARED, "memory cannot be shared"),
    CLASS(MPI_ERR_RMA_FLAVOR, "passed window has the wrong flavor for the called function"),
    CLASS(MPI_ERR_SESSION, "invalid session handle"),
    CLASS(MPI_ERR_PROC_ABORTED, "operation failed because a peer process has aborted"),
    CLASS(MPI_ERR_VALUE_TOO_LARGE, "value is too large to store"),
    CLASS(MPI_ERR_ERRHANDLER, "invalid errhandler argument"),
    CLASS(MPI_T_ERR_MEMORY, "out of memory (tools interface)"),
    CLASS(MPI_T_ERR_NOT_INITIALIZED, "the tools interface is not initialized"),
    CLASS(MPI_T_ERR_CANNOT_INIT, "the tools interface cannot be initialized"),
    CLASS(MPI_T_ERR_INVALID_INDEX, "invalid variable or category index"),
    CLASS(MPI_T_ERR_INVALID_ITEM, "invalid item index of an enumeration"),
    CLASS(MPI_T_ERR_INVALID_HANDLE, "invalid tools interface handle"),
    CLASS(MPI_T_ERR_OUT_OF_HANDLES, "no more tools interface handles"),
    CLASS(MPI_T_ERR_OUT_OF_SESSIONS, "no more performance variable sessions"),
    CLASS(MPI_T_ERR_INVALID_SESSION, "invalid performance variable session"),
    CLASS(MPI_T_ERR_CVAR_SET_NOT_NOW, "the control variable cannot be set now"),
    CLASS(MPI_T_ERR_CVAR_SET_NEVER, "the control variable can never be set"),
    CLASS(MPI_T_ERR_PVAR_NO_STARTSTOP, "the performance variable cannot be started or stopped"),
    CLASS(MPI_T_ERR_PVAR_NO_WRITE, "the performance variable cannot be written or reset"),
    CLASS(MPI_T_ERR_PVAR_NO_ATOMIC, "the performance variable cannot be read and reset atomically"),
    CLASS(MPI_T_ERR_INVALID_NAME, "no variable or category of that name"),
    CLASS(MPI_T_ERR_INVALID, "invalid use of the tools interface or invalid argument"),
};

#define NCLASS ((int)(sizeof(class_text) / sizeof(class_text[0])))

_Static_assert(NCLASS - 1 < MPI_ERR_LASTCODE, "predefined classes must stay below LASTCODE");

static int is_predefined(int code)
{
    return code >= 0 && code < NCLASS && class_text[code].name != NULL;
}

const char *api_class_name(int cls)
{
    if (is_predefined(cls))
        return class_text[cls].name;
    return api_user_code_class(cls) >= 0 ? "user-defined error" : "unknown error class";
}

const char *api_class_description(int cls)
{
    if (is_predefined(cls))
        return class_text[cls].desc;
    return api_user_code_class(cls) >= 0 ? "user-defined error" : "unknown error class";
}

/* ---- Added classes and codes --------------------------------------------- */

typedef struct api_user_code {
    int cls;        /* its own value for an added class */
    char *string;   /* from MPI_Add_error_string; NULL: none yet */
} user_code_t;

/* In the entry points' instance; none before MPI_Init or after MPI_Finalize. */
#define U (core_rt->api)

void api_user_codes_free(api_state_t *st)
{
    for (int i = 0; i < st->nuser; i++)
        free(st->user_codes[i].string);
    free(st->user_codes);
    st->user_codes = NULL;
    st->nuser = st->capuser = 0;
}

static user_code_t *user_entry(int code)
{
    if (!core_rt || !U || code <= MPI_ERR_LASTCODE || code - MPI_ERR_LASTCODE - 1 >= U->nuser)
        return NULL;
    return &U->user_codes[code - MPI_ERR_LASTCODE - 1];
}

int api_user_code_class(int code)
{
    user_code_t *u = user_entry(code);
    return u ? u->cls : -1;
}

int api_last_used_code(void)
{
    return MPI_ERR_LASTCODE + (core_rt && U ? U->nuser : 0);
}

/* Appends an entry of class cls (-1: the new value is a class) and returns its value. */
static int user_add(int cls, int *value)
{
    if (U->nuser == U->capuser) {
        int cap = U->capuser ? 2 * U->capuser : 16;
        user_code_t *t = realloc(U->user_codes, (size_t)cap * sizeof(*t));
        if (!t)
            return CORE_ENOMEM;
        U->user_codes = t;
        U->capuser = cap;
    }
    int v = MPI_ERR_LASTCODE + 1 + U->nuser;
    U->user_codes[U->nuser++] = (user_code_t){ cls < 0 ? v : cls, NULL };
    *value = v;
    core_attr_set_predefined(MPI_LASTUSEDCODE, v);
    return 0;
}

/* ---- Entry points --------------------------------------------------------- */

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    API_ENTER;
    if (!string || !resultlen)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Error_string",
                         "string or resultlen is NULL");
    const char *text;
    if (is_predefined(errorcode)) {
        text = class_text[errorcode].full;
    } else {
        user_code_t *u = user_entry(errorcode);
        if (!u)
            return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Error_string",
                             "%d is not a valid error code", errorcode);
        text = u->string ? u->string : "";
    }
    size_t len = strlen(text);
    if (len > MPI_MAX_ERROR_STRING - 1)
        len = MPI_MAX_ERROR_STRING - 1;
    memcpy(string, text, len);
    string[len] = '\0';
    *resultlen = (int)len;
    return MPI_SUCCESS;
}
int MPI_Error_string(int errorcode, char *string, int *resultlen) API_ALIAS(MPI_Error_string);

int PMPI_Error_class(int errorcode, int *errorclass)
{
    API_ENTER;
    if (!errorclass)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Error_class", "errorclass is NULL");
    int cls = is_predefined(errorcode) ? errorcode : api_user_code_class(errorcode);
    if (cls < 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Error_class",
                         "%d is not a valid error code", errorcode);
    *errorclass = cls;
    return MPI_SUCCESS;
}
int MPI_Error_class(int errorcode, int *errorclass) API_ALIAS(MPI_Error_class);

int PMPI_Add_error_class(int *errorclass)
{
    API_ENTER;
    if (!errorclass)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Add_error_class", "errorclass is NULL");
    int rc = user_add(-1, errorclass);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, "MPI_Add_error_class", "cannot grow the class table");
    return MPI_SUCCESS;
}
int MPI_Add_error_class(int *errorclass) API_ALIAS(MPI_Add_error_class);

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    API_ENTER;
    if (!errorcode)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Add_error_code", "errorcode is NULL");
    /* A valid class: a predefined error class, or a value MPI_Add_error_class returned. */
    int valid = errorclass != MPI_SUCCESS &&
                (is_predefined(errorclass) || api_user_code_class(errorclass) == errorclass);
    if (!valid)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Add_error_code",
                         "%d is not an error class", errorclass);
    int rc = user_add(errorclass, errorcode);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, "MPI_Add_error_code", "cannot grow the code table");
    return MPI_SUCCESS;
}
int MPI_Add_error_code(int errorclass, int *errorcode) API_ALIAS(MPI_Add_error_code);

int PMPI_Add_error_string(int errorcode, const char *string)
{
    API_ENTER;
    const char *fn = "MPI_Add_error_string";
    if (!string)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "string is NULL");
    user_code_t *u = user_entry(errorcode);
    if (!u)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         is_predefined(errorcode) ? "%d is a predefined error code"
                                                  : "%d is not an added error class or code",
                         errorcode);
    size_t len = strlen(string);
    if (len > MPI_MAX_ERROR_STRING - 1)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "string of %zu characters exceeds MPI_MAX_ERROR_STRING - 1 (%d)", len,
                         MPI_MAX_ERROR_STRING - 1);
    char *copy = strdup(string);
    if (!copy)
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "cannot copy the string");
    free(u->string);
    u->string = copy;
    return MPI_SUCCESS;
}
int MPI_Add_error_string(int errorcode, const char *string) API_ALIAS(MPI_Add_error_string);
