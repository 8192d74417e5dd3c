/*
 * A name service shared by separate rdmpirun runs (RDMPI_NAME_SERVER=dir:/path): one file
 * per published name in a directory of the user's own, so that MPI_Lookup_name in one run
 * finds what MPI_Publish_name stored in another, on one host or wherever the directory is
 * shared (a home directory on a cluster). The directory must be the user's, mode 0700 or
 * stricter (nobody else can read the ports, which hold their keys, or plant names); files
 * are 0600, created exclusively (a name is published once), and read without following
 * links. A file holds "rdmpi-name1\n<service>\n<port>\n"; its name is a hash of the service
 * (core_kdf), so any service name fits. Returns 0 or CORE_* codes: CORE_ENAME (not
 * published), CORE_ESERVICE (published already, or with another port), CORE_EACCESS (the
 * directory is not safe), CORE_EIO.
 */
#ifndef RDMPI_CORE_NAMEDIR_H
#define RDMPI_CORE_NAMEDIR_H

#include <stddef.h>

/* spec: the setting's value after "dir:". */
int core_namedir_publish(const char *dir, const char *service, const char *port);
int core_namedir_lookup(const char *dir, const char *service, char *port, size_t len);
/* Only the exact pair that was published. */
int core_namedir_unpublish(const char *dir, const char *service, const char *port);

#endif
