/*
 * MPI_Info_* entry points. MPI-4 lets every one of them run before MPI_Init
 * and after MPI_Finalize, so none checks initialization. MPI_INFO_ENV can be
 * read and duplicated, never modified or freed.
 */
#include <string.h>

#include "api/api.h"
#include "core/info.h"
#include "core/info_ops.h"

/* A live info object (not MPI_INFO_NULL, not freed). */
static int check_info(MPI_Info info, const char *fn)
{
    return api_check_info(MPI_COMM_NULL, info, 0, fn);
}

static int check_writable(MPI_Info info, const char *fn)
{
    API_CHECK(check_info(info, fn));
    if (info->predefined)
        return api_error(MPI_COMM_NULL, CORE_EINFO, fn, "MPI_INFO_ENV cannot be modified");
    return 0;
}

static int check_key(const char *key, const char *fn)
{
    if (!key)
        return api_error(MPI_COMM_NULL, CORE_EINFO_KEY, fn, "key is NULL");
    size_t len = strlen(key);
    if (len == 0)
        return api_error(MPI_COMM_NULL, CORE_EINFO_KEY, fn, "key is empty");
    if (len > MPI_MAX_INFO_KEY - 1)
        return api_error(MPI_COMM_NULL, CORE_EINFO_KEY, fn,
                         "key of %zu characters exceeds MPI_MAX_INFO_KEY - 1 (%d)", len,
                         MPI_MAX_INFO_KEY - 1);
    return 0;
}

static int check_ptr(const void *p, const char *what, const char *fn)
{
    if (!p)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "%s is NULL", what);
    return 0;
}

int PMPI_Info_create(MPI_Info *info)
{
    API_ENTER;
    const char *fn = "MPI_Info_create";
    API_CHECK(check_ptr(info, "info", fn));
    int rc = core_info_create(info);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "cannot allocate an info object");
    return MPI_SUCCESS;
}
int MPI_Info_create(MPI_Info *info) API_ALIAS(MPI_Info_create);

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    API_ENTER;
    const char *fn = "MPI_Info_set";
    API_CHECK(check_writable(info, fn));
    API_CHECK(check_key(key, fn));
    if (!value)
        return api_error(MPI_COMM_NULL, CORE_EINFO_VALUE, fn, "value is NULL");
    int rc = core_info_set(info, key, value);
    if (rc == CORE_EINFO_VALUE)
        return api_error(MPI_COMM_NULL, rc, fn,
                         "value of %zu characters for key \"%s\" exceeds MPI_MAX_INFO_VAL - 1 (%d)",
                         strlen(value), key, MPI_MAX_INFO_VAL - 1);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "cannot set key \"%s\"", key);
    return MPI_SUCCESS;
}
int MPI_Info_set(MPI_Info info, const char *key, const char *value) API_ALIAS(MPI_Info_set);

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    API_ENTER;
    const char *fn = "MPI_Info_get";
    API_CHECK(check_info(info, fn));
    API_CHECK(check_key(key, fn));
    if (valuelen < 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "valuelen = %d is negative", valuelen);
    API_CHECK(check_ptr(value, "value", fn));
    API_CHECK(check_ptr(flag, "flag", fn));
    const char *v = core_info_get(info, key);
    if (!v) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    /* value holds valuelen characters plus the terminating NUL. */
    size_t len = strlen(v);
    if (len > (size_t)valuelen)
        len = (size_t)valuelen;
    memcpy(value, v, len);
    value[len] = '\0';
    *flag = 1;
    return MPI_SUCCESS;
}
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
    API_ALIAS(MPI_Info_get);

/*
 * MPI-4: *buflen is the size of value on entry (0 lets value be NULL, to ask
 * for the size) and, when the key exists, the size the whole value needs,
 * NUL included, on return. At most *buflen - 1 characters are copied.
 */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    API_ENTER;
    const char *fn = "MPI_Info_get_string";
    API_CHECK(check_info(info, fn));
    API_CHECK(check_key(key, fn));
    API_CHECK(check_ptr(buflen, "buflen", fn));
    API_CHECK(check_ptr(flag, "flag", fn));
    if (*buflen < 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "*buflen = %d is negative", *buflen);
    if (*buflen > 0)
        API_CHECK(check_ptr(value, "value", fn));
    const char *v = core_info_get(info, key);
    if (!v) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    size_t full = strlen(v);
    if (*buflen > 0) {
        size_t len = full < (size_t)*buflen - 1 ? full : (size_t)*buflen - 1;
        memcpy(value, v, len);
        value[len] = '\0';
    }
    *buflen = (int)full + 1;
    *flag = 1;
    return MPI_SUCCESS;
}
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
    API_ALIAS(MPI_Info_get_string);

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    API_ENTER;
    const char *fn = "MPI_Info_get_valuelen";
    API_CHECK(check_info(info, fn));
    API_CHECK(check_key(key, fn));
    API_CHECK(check_ptr(valuelen, "valuelen", fn));
    API_CHECK(check_ptr(flag, "flag", fn));
    const char *v = core_info_get(info, key);
    *flag = v != NULL;
    if (v)
        *valuelen = (int)strlen(v);
    return MPI_SUCCESS;
}
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
    API_ALIAS(MPI_Info_get_valuelen);

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    API_ENTER;
    const char *fn = "MPI_Info_delete";
    API_CHECK(check_writable(info, fn));
    API_CHECK(check_key(key, fn));
    int rc = core_info_delete(info, key);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "key \"%s\" is not in the info object", key);
    return MPI_SUCCESS;
}
int MPI_Info_delete(MPI_Info info, const char *key) API_ALIAS(MPI_Info_delete);

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    API_ENTER;
    const char *fn = "MPI_Info_dup";
    API_CHECK(check_info(info, fn));
    API_CHECK(check_ptr(newinfo, "newinfo", fn));
    int rc = core_info_dup(info, newinfo);
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "cannot copy an info object of %d keys",
                         core_info_nkeys(info));
    return MPI_SUCCESS;
}
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo) API_ALIAS(MPI_Info_dup);

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    API_ENTER;
    const char *fn = "MPI_Info_get_nkeys";
    API_CHECK(check_info(info, fn));
    API_CHECK(check_ptr(nkeys, "nkeys", fn));
    *nkeys = core_info_nkeys(info);
    return MPI_SUCCESS;
}
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys) API_ALIAS(MPI_Info_get_nkeys);

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    API_ENTER;
    const char *fn = "MPI_Info_get_nthkey";
    API_CHECK(check_info(info, fn));
    API_CHECK(check_ptr(key, "key", fn));
    const char *k = core_info_nthkey(info, n);
    if (!k)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "n = %d is outside [0, %d)", n,
                         core_info_nkeys(info));
    strcpy(key, k);   /* keys are shorter than MPI_MAX_INFO_KEY, the size MPI requires of key */
    return MPI_SUCCESS;
}
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key) API_ALIAS(MPI_Info_get_nthkey);

int PMPI_Info_free(MPI_Info *info)
{
    API_ENTER;
    const char *fn = "MPI_Info_free";
    API_CHECK(check_ptr(info, "info", fn));
    API_CHECK(check_info(*info, fn));
    if ((*info)->predefined)
        return api_error(MPI_COMM_NULL, CORE_EINFO, fn, "MPI_INFO_ENV cannot be freed");
    core_info_destroy(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
int MPI_Info_free(MPI_Info *info) API_ALIAS(MPI_Info_free);
