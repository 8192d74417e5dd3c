/*
 * Ports and names (MPI 11.8.2-11.8.4): MPI_Open_port/Close_port,
 * MPI_Comm_accept/connect, MPI_Publish_name/Lookup_name/Unpublish_name.
 *
 * A port is a name with no pointer in it (core/portname.h): the run, the process
 * that opened it, which of its ports, and the port's key. Within one run both
 * sides meet through the launcher's name service (PMIx_Publish): the
 * connecting root publishes a request under the port, naming itself; the
 * accepting root, waiting on its port, looks the request up, adds the
 * connector to its process table and acknowledges over the two-process
 * communicator of CORE_CTX_DYN; the connector withdraws the request (so the
 * next connector on that port can publish its own) before it answers
 * anything, and the two roots lead an MPI_Intercomm_create between the two
 * communicators (api_intercomm_make). Everything read from a port name or a
 * request is parsed with bounds and checked against what the launcher says
 * of that job before it is used.
 *
 * A port of another rdmpirun run (its run id is not ours) cannot be met through our
 * launcher: connect and accept refuse it at once with MPI_ERR_PORT and say so (the path
 * across runs, docs/dynamic.md design (b), is not implemented). The port key is derived
 * from the job key (core_kdf), so the opener can compute it again without storing it; it
 * is what a connector of another run will have to prove it holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "api/api.h"
#include "api/coll_check.h"
#include "api/dynamic.h"
#include "api/intercomm.h"
#include "collectives/coll.h"
#include "core/bootdyn.h"
#include "core/portname.h"
#include "core/procs.h"
#include "core/progress.h"
#include "core/secret.h"

#define REQ_PREFIX "port:"     /* service name of a connect request: REQ_PREFIX + port */
#define PORT_TAG 12            /* on the two-process communicator of CORE_CTX_DYN */
#define CONNECT_WAIT 60.0      /* seconds a connector waits for a busy port */

/* Sets p's run id (ours) and its key, derived from the job key for its job, rank and
 * number: unpredictable to anyone outside this run, and the same each time. */
static void port_key(core_port_t *p)
{
    char label[320];
    p->run = core_run_id(core_rt);
    snprintf(label, sizeof(label), "rdmpi port key %s/%d/%d", p->nspace, p->rank, p->seq);
    core_kdf(core_rt->job_key, label, p->key, sizeof(p->key));
}

/* Whether port is a well-formed port of this run whose key is right (a port of ours that
 * someone altered, or made up, is not one). */
static int our_port(const char *port, core_port_t *id)
{
    if (core_port_parse(port, id) || id->run != core_run_id(core_rt))
        return 0;
    core_port_t k = *id;
    port_key(&k);
    return core_mem_eq(k.key, id->key, sizeof(k.key));
}

/* A well-formed port of another rdmpirun run. */
static int other_run(const char *port)
{
    core_port_t id;
    return core_port_parse(port, &id) == 0 && id.run != core_run_id(core_rt);
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    API_ENTER;
    static const char fn[] = "MPI_Open_port";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_info(MPI_COMM_WORLD, info, 1, fn));
    API_CHECK(api_check_ptr(MPI_COMM_WORLD, port_name, "port_name", fn));
    if (core_rt->singleton)
        return api_error(MPI_COMM_WORLD, CORE_EPORT, fn, "a singleton (started without a "
                         "launcher) has no name service to be found through");
    core_port_t me = { "", core_rt->rank, core_rt->uid_base, core_rt->port_seq++, 0, { 0 } };
    snprintf(me.nspace, sizeof(me.nspace), "%s", core_rt->nspace);
    port_key(&me);
    if (core_port_format(port_name, MPI_MAX_PORT_NAME, &me))
        return api_error(MPI_COMM_WORLD, CORE_EPORT, fn, "job name '%s' cannot be in a port",
                         core_rt->nspace);
    return MPI_SUCCESS;
}
int MPI_Open_port(MPI_Info info, char *port_name) API_ALIAS(MPI_Open_port);

/* Nothing is held for an open port: closing checks the name is one of ours. */
int PMPI_Close_port(const char *port_name)
{
    API_ENTER;
    static const char fn[] = "MPI_Close_port";
    API_CHECK(api_check_init(fn));
    core_port_t id;
    if (!our_port(port_name, &id) || strcmp(id.nspace, core_rt->nspace) ||
        id.rank != core_rt->rank || id.seq >= core_rt->port_seq)
        return api_error(MPI_COMM_WORLD, CORE_EPORT, fn, "'%s' is not a port this process "
                         "opened", port_name ? port_name : "(null)");
    return MPI_SUCCESS;
}
int MPI_Close_port(const char *port_name) API_ALIAS(MPI_Close_port);

static void nap(void)
{
    core_progress();
    core_cs_usleep(&core_rt->cs, 1000);   /* the other threads go on meanwhile */
}

/* Accepting root: waits for a request on port, then acknowledges it. */
static int root_accept(const char *port, MPI_Comm *pair)
{
    core_port_t id;
    if (!our_port(port, &id) || strcmp(id.nspace, core_rt->nspace) || id.rank != core_rt->rank)
        return CORE_EPORT;
    char svc[MPI_MAX_PORT_NAME + 16], req[512];
    snprintf(svc, sizeof(svc), REQ_PREFIX "%s", port);
    while (core_boot_lookup(core_rt, svc, req, sizeof(req)) != 0)
        nap();
    core_port_t from; /* the connecting root */
    if (core_port_request_parse(req, &from))
        return CORE_EPROTO;
    int idx = api_dyn_proc(from.nspace, from.rank, from.ubase);
    if (idx < 0)
        return idx;
    int rc = api_dyn_pair(idx, 1, pair), ack = 1;
    if (!rc && PMPI_Send(&ack, 1, MPI_INT, 1, PORT_TAG, *pair) != MPI_SUCCESS)
        rc = CORE_EPEER;
    return rc;
}

/* Connecting root: publishes its request (waiting while another connector holds the
 * port), then withdraws it once acknowledged. */
static int root_connect(const char *port, MPI_Comm *pair)
{
    core_port_t id;
    if (!our_port(port, &id))
        return CORE_EPORT;
    int idx = api_dyn_proc(id.nspace, id.rank, id.ubase);
    if (idx < 0)
        return idx;
    char svc[MPI_MAX_PORT_NAME + 16], req[512];
    snprintf(svc, sizeof(svc), REQ_PREFIX "%s", port);
    core_port_t me = { "", core_rt->rank, core_rt->uid_base, 0, 0, { 0 } };
    snprintf(me.nspace, sizeof(me.nspace), "%s", core_rt->nspace);
    if (core_port_request_format(req, sizeof(req), &me))
        return CORE_EPORT;
    double until = core_wtime() + CONNECT_WAIT;
    int rc;
    while ((rc = core_boot_publish(core_rt, svc, req)) == CORE_ESERVICE &&
           core_wtime() < until)
        nap();
    if (rc)
        return rc == CORE_ESERVICE ? CORE_EPORT : rc;
    int ack = 0;
    MPI_Status st;
    rc = api_dyn_pair(idx, 0, pair);
    if (!rc && (PMPI_Recv(&ack, 1, MPI_INT, 0, PORT_TAG, *pair, &st) != MPI_SUCCESS || ack != 1))
        rc = CORE_EPEER;
    core_boot_unpublish(core_rt, svc);
    return rc;
}

static int accept_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                          MPI_Comm *newcomm, int accepting, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_coll_intra(comm, fn));
    if (root < 0 || root >= comm->size)
        return api_error(comm, CORE_EROOT, fn, "root %d of %s", root, core_comm_label(comm));
    API_CHECK(api_check_ptr(comm, newcomm, "newcomm", fn));
    MPI_Comm pair = MPI_COMM_NULL;
    const char *why = NULL;
    int rc = rt_dyn_prepare(); /* every member reachable before the other side can look */
    if (comm->rank == root && !rc) {
        API_CHECK(api_check_info(comm, info, 1, fn));
        if (port_name && other_run(port_name)) {
            rc = CORE_EPORT;
            why = "a port of another rdmpirun run: accept/connect between separately started "
                  "runs is not supported (only jobs of one rdmpirun, e.g. spawned ones, meet)";
        } else {
            rc = accepting ? root_accept(port_name, &pair) : root_connect(port_name, &pair);
        }
    }
    int brc = coll_bcast(&rc, 1, MPI_INT, root, comm);
    if (brc || rc) {
        if (pair != MPI_COMM_NULL)
            core_comm_release(pair);
        *newcomm = MPI_COMM_NULL;
        return api_error(comm, brc ? brc : rc, fn, "port '%s': %s",
                         comm->rank == root && port_name ? port_name : "(at the root)",
                         why && !brc ? why : core_strerror(brc ? brc : rc));
    }
    const char *what = "";
    rc = api_intercomm_make(comm, root, pair, accepting ? 1 : 0, PORT_TAG, newcomm, &what);
    if (pair != MPI_COMM_NULL)
        core_comm_release(pair);
    if (rc)
        return api_error(comm, rc, fn, "%s failed: %s", what, core_strerror(rc));
    return MPI_SUCCESS;
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    API_ENTER;
    return accept_connect(port_name, info, root, comm, newcomm, 1, "MPI_Comm_accept");
}
int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *newcomm) API_ALIAS(MPI_Comm_accept);

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    API_ENTER;
    return accept_connect(port_name, info, root, comm, newcomm, 0, "MPI_Comm_connect");
}
int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm) API_ALIAS(MPI_Comm_connect);

static int check_service(const char *service, const char *fn)
{
    if (!service || !*service || strchr(service, '\n') || strlen(service) > 400)
        return api_error(MPI_COMM_WORLD, CORE_EINVAL, fn, "service name missing, too long or "
                         "with a newline");
    return 0;
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    API_ENTER;
    static const char fn[] = "MPI_Publish_name";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_service(service_name, fn));
    API_CHECK(api_check_info(MPI_COMM_WORLD, info, 1, fn));
    /* Any string is stored, as other MPIs do: a port of another MPI, or one the application
     * made up and hands around itself; MPI_Comm_connect checks ports when they are used. */
    if (!port_name || !*port_name || strlen(port_name) >= MPI_MAX_PORT_NAME)
        return api_error(MPI_COMM_WORLD, CORE_EPORT, fn, "port name missing or longer than "
                         "MPI_MAX_PORT_NAME");
    int rc = core_boot_publish(core_rt, service_name, port_name);
    if (rc)
        return api_error(MPI_COMM_WORLD, rc, fn, "service '%s': %s", service_name,
                         core_strerror(rc));
    return MPI_SUCCESS;
}
int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
    API_ALIAS(MPI_Publish_name);

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    API_ENTER;
    static const char fn[] = "MPI_Unpublish_name";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_service(service_name, fn));
    API_CHECK(api_check_info(MPI_COMM_WORLD, info, 1, fn));
    if (!port_name)
        return api_error(MPI_COMM_WORLD, CORE_EPORT, fn, "NULL port name");
    /* Only the pair that was published: a name published with another port is not this
     * one (MPI_ERR_SERVICE, as for a name not published at all). */
    char have[MPI_MAX_PORT_NAME];
    int rc = core_boot_lookup(core_rt, service_name, have, sizeof(have));
    if (rc == CORE_ENAME || (!rc && strcmp(have, port_name)))
        return api_error(MPI_COMM_WORLD, CORE_ESERVICE, fn, "service '%s' is not published "
                         "with port '%s'", service_name, port_name);
    if (!rc)
        rc = core_boot_unpublish(core_rt, service_name);
    if (rc)
        return api_error(MPI_COMM_WORLD, rc, fn, "service '%s': %s", service_name,
                         core_strerror(rc));
    return MPI_SUCCESS;
}
int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
    API_ALIAS(MPI_Unpublish_name);

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    API_ENTER;
    static const char fn[] = "MPI_Lookup_name";
    API_CHECK(api_check_init(fn));
    API_CHECK(check_service(service_name, fn));
    API_CHECK(api_check_info(MPI_COMM_WORLD, info, 1, fn));
    API_CHECK(api_check_ptr(MPI_COMM_WORLD, port_name, "port_name", fn));
    int rc = core_boot_lookup(core_rt, service_name, port_name, MPI_MAX_PORT_NAME);
    if (rc)
        return api_error(MPI_COMM_WORLD, rc, fn, "service '%s': %s", service_name,
                         core_strerror(rc));
    return MPI_SUCCESS;
}
int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
    API_ALIAS(MPI_Lookup_name);
