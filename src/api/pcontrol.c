/*
 * MPI_Pcontrol (MPI-3.1 14.2.4): the profiling control hook. The call is for
 * a profiling library that intercepts it through the PMPI interface; "MPI
 * libraries themselves make no use of this routine, and simply return
 * immediately to the user code", which is what this does, whatever the
 * level.
 */
#include "api/api.h"

RDMPI_API int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Pcontrol(const int level, ...) API_ALIAS(MPI_Pcontrol);
