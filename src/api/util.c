/*
 * Small environment calls: time, names, versions, memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "api/api.h"
#include "core/progress.h"

double PMPI_Wtime(void)
{
    return core_wtime();
}
double MPI_Wtime(void) API_ALIAS(MPI_Wtime);

double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
double MPI_Wtick(void) API_ALIAS(MPI_Wtick);

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    API_ENTER;
    char host[MPI_MAX_PROCESSOR_NAME];
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "unknown");
    host[sizeof(host) - 1] = '\0';
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
int MPI_Get_processor_name(char *name, int *resultlen) API_ALIAS(MPI_Get_processor_name);

int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
int MPI_Get_version(int *version, int *subversion) API_ALIAS(MPI_Get_version);

int PMPI_Get_library_version(char *version, int *resultlen)
{
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "rdmpi %s (MPI %d.%d)",
             RDMPI_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}
int MPI_Get_library_version(char *version, int *resultlen) API_ALIAS(MPI_Get_library_version);

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Alloc_mem"));
    if (size < 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Alloc_mem", "negative size %ld", size);
    API_CHECK(api_check_info(MPI_COMM_NULL, info, 1, "MPI_Alloc_mem"));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, baseptr, "baseptr", "MPI_Alloc_mem"));
    void *p = NULL;
    if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0)
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, "MPI_Alloc_mem",
                         "cannot allocate %ld bytes", size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) API_ALIAS(MPI_Alloc_mem);

int PMPI_Free_mem(void *base)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Free_mem"));
    free(base);
    return MPI_SUCCESS;
}
int MPI_Free_mem(void *base) API_ALIAS(MPI_Free_mem);
