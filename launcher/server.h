/*
 * The parts of the launcher that speak libpmix's types: the server
 * (server.c) and the job description it registers (nspace.c).
 */
#ifndef RDMPI_LAUNCH_SERVER_H
#define RDMPI_LAUNCH_SERVER_H

#include "launch.h"

#include <pmix.h>
#include <pmix_server.h>

/*
 * Builds the job-level info for PMIx_server_register_nspace(): sizes, maps,
 * local peers, and one PMIX_PROC_DATA array per rank. On success *out holds
 * an array of pmix_info_t that the caller releases with
 * PMIX_DATA_ARRAY_DESTRUCT().
 */
int launch_nspace_info(const struct launch_job *job, pmix_data_array_t *out);

#endif
