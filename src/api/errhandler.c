/*
 * Error handler objects and their attachment to communicators.
 */
#include "api/api.h"

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_create_errhandler"));
    if (!fn)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Comm_create_errhandler",
                         "the handler function is NULL");
    if (!errhandler)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Comm_create_errhandler",
                         "errhandler is NULL");
    if (core_errhandler_create(fn, errhandler) != 0)
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, "MPI_Comm_create_errhandler", "out of memory");
    return MPI_SUCCESS;
}
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
    API_ALIAS(MPI_Comm_create_errhandler);

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_set_errhandler"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_set_errhandler"));
    API_CHECK(api_check_errh(comm, errhandler, "MPI_Comm_set_errhandler"));
    core_errhandler_retain(errhandler);
    core_errhandler_release(comm->errh);
    comm->errh = errhandler;
    return MPI_SUCCESS;
}
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
    API_ALIAS(MPI_Comm_set_errhandler);

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_get_errhandler"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_get_errhandler"));
    if (!errhandler)
        return api_error(comm, CORE_EINVAL, "MPI_Comm_get_errhandler", "errhandler is NULL");
    core_errhandler_retain(comm->errh);
    *errhandler = comm->errh;
    return MPI_SUCCESS;
}
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
    API_ALIAS(MPI_Comm_get_errhandler);

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_call_errhandler"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_call_errhandler"));
    api_raise(comm, errorcode, "MPI_Comm_call_errhandler", "error raised by the application");
    return MPI_SUCCESS;
}
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) API_ALIAS(MPI_Comm_call_errhandler);

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Errhandler_free"));
    if (!errhandler)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Errhandler_free", "errhandler is NULL");
    API_CHECK(api_check_errh(MPI_COMM_NULL, *errhandler, "MPI_Errhandler_free"));
    core_errhandler_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
int MPI_Errhandler_free(MPI_Errhandler *errhandler) API_ALIAS(MPI_Errhandler_free);
