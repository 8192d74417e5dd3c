/*
 * Info hints on communicators: MPI_Comm_set_info, MPI_Comm_get_info and
 * MPI_Comm_dup_with_info. The hints rdmpi knows are MPI-4's communicator
 * assertions (mpi_assert_no_any_tag, ..._no_any_source, ..._exact_length,
 * ..._allow_overtaking) with the values "true" and "false"; they are kept
 * on the communicator (two bits each: given, and its value), copied by
 * MPI_Comm_dup and returned by MPI_Comm_get_info. rdmpi does not exploit
 * them yet, which an assertion permits (it only licenses optimizations).
 * Every other key, and a known key with another value, is ignored, as
 * MPI allows for hints an implementation does not use; MPI_Comm_get_info
 * then does not return it.
 */
#include <string.h>
#include "api/api.h"
#include "core/info.h"
#include "core/info_ops.h"

static const char *const known[] = {
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
};
enum { NKNOWN = sizeof(known) / sizeof(known[0]) };

#define GIVEN(i) (1u << (2 * (i)))
#define VALUE(i) (2u << (2 * (i)))

/* hints updated with the keys of info that rdmpi knows (MPI_INFO_NULL: none). */
static unsigned merge_hints(unsigned hints, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return hints;
    for (int i = 0; i < NKNOWN; i++) {
        const char *v = core_info_get(info, known[i]);
        if (!v)
            continue;
        if (!strcmp(v, "true"))
            hints |= GIVEN(i) | VALUE(i);
        else if (!strcmp(v, "false"))
            hints = (hints | GIVEN(i)) & ~VALUE(i);
    }
    return hints;
}

RDMPI_API int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_set_info";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_info(comm, info, 0, fn));
    comm->hints = merge_hints(comm->hints, info);
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) API_ALIAS(MPI_Comm_set_info);

RDMPI_API int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_get_info";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_ptr(comm, info_used, "info_used", fn));
    MPI_Info info = MPI_INFO_NULL;
    int rc = core_info_create(&info);
    for (int i = 0; !rc && i < NKNOWN; i++)
        if (comm->hints & GIVEN(i))
            rc = core_info_set(info, known[i], comm->hints & VALUE(i) ? "true" : "false");
    if (rc) {
        if (info)
            core_info_destroy(info);
        return api_error(comm, rc, fn, "%s", core_strerror(rc));
    }
    *info_used = info;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) API_ALIAS(MPI_Comm_get_info);

RDMPI_API int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_dup_with_info";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    /* MPI_INFO_NULL: no hints (MPICH and Open MPI accept it, and programs pass it) */
    API_CHECK(api_check_info(comm, info, 1, fn));
    API_CHECK(api_check_ptr(comm, newcomm, "newcomm", fn));
    API_CHECK(PMPI_Comm_dup(comm, newcomm));
    /* The hints of info replace those of comm, they do not add to them. */
    (*newcomm)->hints = merge_hints(0, info);
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
    API_ALIAS(MPI_Comm_dup_with_info);
