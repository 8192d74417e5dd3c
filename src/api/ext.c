/*
 * rdmpi's own extensions to MPI (rdmpi_* in mpi.h), for tests and tools.
 */
#include <stdio.h>
#include <string.h>
#include "api/api.h"

/* The transport of a peer is chosen once, at first contact (tp_ep_get), and kept: asking
 * makes that contact if nothing has yet, so the answer is what every message to it uses.
 * rank is a rank of point-to-point on comm: of the remote group of an intercommunicator. A
 * peer of another job may be bound to its transport only once both agree (shm's bridges:
 * docs/dynamic.md), so the answer waits for that. */
int rdmpi_peer_transport(MPI_Comm comm, int rank, char *name, int *resultlen)
{
    API_ENTER;
    static const char fn[] = "rdmpi_peer_transport";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    if (rank < 0 || rank >= core_comm_peer_size(comm))
        return api_bad_rank(comm, rank, fn);
    if (!name || !resultlen)
        return api_error(comm, CORE_EINVAL, fn, "name and resultlen must not be NULL");
    tp_ep_t *ep;
    int peer = core_comm_peer_world(comm, rank);
    int rc = tp_ep_get(&rt_get()->tp, peer, &ep);
    if (rc)
        return api_error(comm, rc, fn, "no transport reaches rank %d", rank);
    rc = tp_ep_settle(&rt_get()->tp, peer, &ep);
    if (rc)
        return api_error(comm, rc, fn, "rank %d left before a transport reached it", rank);
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", ep->iface->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
