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
 * launcher: the port also names where its opener listens (api/xport.c), and the two roots
 * meet there (docs/dynamic.md, design b): the connector proves it holds the port's key
 * (derived from the opener's job key, core_kdf, so nothing per port is stored but the
 * listening socket), the acceptor proves it too, both derive a bridge key and swap their
 * groups' tables (uid and tcp address of every member). Each root broadcasts the key and
 * the other group's table in its group; every member adds the other run's processes to
 * its table (core/procs.h, named by run id and uid) and the tcp transport authenticates
 * connections between the two runs with the bridge key. The intercommunicator is then made
 * as for one run, over the roots' two-process communicator (api_intercomm_make_known).
 * An accepting root does not know which kind of connector comes: it watches both the
 * launcher and its port's socket.
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
#include "api/xport.h"
#include "collectives/coll.h"
#include "core/bootdyn.h"
#include "core/bootstrap.h"
#include "core/log.h"
#include "core/namedir.h"
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
    core_port_t me;
    memset(&me, 0, sizeof(me));
    me.rank = core_rt->rank;
    me.ubase = core_rt->uid_base;
    me.seq = core_rt->port_seq;
    snprintf(me.nspace, sizeof(me.nspace), "%s", core_rt->nspace);
    port_key(&me);
    /* where a root of another run finds us: next to our tcp transport's address */
    uint32_t ip = 0;
    int rc = rt_dyn_prepare(), port = 0;
    if (!rc)
        rc = api_xport_own_addr((uint8_t *)&ip, &port);
    if (!rc)
        rc = api_xport_open(me.seq, (const uint8_t *)&ip, &me.tport);
    if (rc)
        return api_error(MPI_COMM_WORLD, CORE_EPORT, fn, "no address for the port: %s (tcp "
                         "carries accept/connect; at most %d ports open at once)",
                         core_strerror(rc), CORE_XPORTS);
    memcpy(me.ip, &ip, 4);
    if (core_port_format(port_name, MPI_MAX_PORT_NAME, &me)) {
        api_xport_close(me.seq);
        return api_error(MPI_COMM_WORLD, CORE_EPORT, fn, "job name '%s' cannot be in a port",
                         core_rt->nspace);
    }
    core_rt->port_seq++;
    return MPI_SUCCESS;
}
int MPI_Open_port(MPI_Info info, char *port_name) API_ALIAS(MPI_Open_port);

/* Closing stops listening for other runs; the name must be one of ours. */
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
    api_xport_close(id.seq); /* closed already: nothing to do, as before */
    return MPI_SUCCESS;
}
int MPI_Close_port(const char *port_name) API_ALIAS(MPI_Close_port);

static void nap(void)
{
    core_progress();
    core_cs_usleep(&core_rt->cs, 1000);   /* the other threads go on meanwhile */
}

/* Accepting root: waits for a request on port from our run (through the launcher; not when
 * the group holds processes of other runs: own_run 0), or a connector of another run at the
 * port's socket (*xrun set, link filled), whichever comes first; acknowledges a request of
 * our run. */
static int root_accept(const char *port, int own_run, MPI_Comm *pair,
                       const core_xwire_table_t *mine, api_xlink_t *link, int *xrun, char *why,
                       size_t wlen)
{
    core_port_t id;
    if (!our_port(port, &id) || strcmp(id.nspace, core_rt->nspace) || id.rank != core_rt->rank)
        return CORE_EPORT;
    char svc[MPI_MAX_PORT_NAME + 16], req[512];
    snprintf(svc, sizeof(svc), REQ_PREFIX "%s", port);
    while (!own_run || core_boot_lookup(core_rt, svc, req, sizeof(req)) != 0) {
        int rc = api_xport_try_accept(&id, mine, link, why, wlen);
        if (rc != CORE_EBUSY) {
            *xrun = !rc;
            return rc;
        }
        nap();
    }
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

/* What the root tells its group after meeting the other side. */
typedef struct root_result {
    int rc, xrun;
    uint32_t n, leader;
    uint64_t run;
    uint8_t bridge[CORE_KEY_LEN];
    char why[400];
} root_result_t;

/* Every member: adds the other group's processes (the root's link, broadcast) to its table,
 * with one key per run of that group (core_xwire_pair_key: a group merged from earlier links
 * holds processes of several runs, ours possibly of another run than our root's); rranks
 * gets their indices in the remote group's order. */
static int add_other_run(root_result_t *res, const core_xwire_entry_t *e, int *rranks)
{
    uint64_t mine = core_run_id(core_rt), runs[CORE_XWIRE_MAX_RUNS + 1];
    int bridges[CORE_XWIRE_MAX_RUNS + 1], nruns = 0;
    for (uint32_t i = 0; i < res->n; i++) {
        if (e[i].run == mine) /* nothing in core/procs.h can name it as of another run */
            return CORE_EUNSUPPORTED;
        int r = 0;
        while (r < nruns && runs[r] != e[i].run)
            r++;
        if (r == nruns) {
            if (nruns == CORE_XWIRE_MAX_RUNS + 1)
                return CORE_EINTERN; /* the decoder allows no more */
            uint8_t key[CORE_KEY_LEN];
            core_xwire_pair_key(res->bridge, mine, e[i].run, key);
            bridges[r] = core_bridge_add(core_rt, e[i].run, key);
            memset(key, 0, sizeof(key));
            if (bridges[r] < 0)
                return bridges[r];
            runs[nruns++] = e[i].run;
        }
        char addr[48];
        snprintf(addr, sizeof(addr), "%u.%u.%u.%u:%u", e[i].ip[0], e[i].ip[1], e[i].ip[2],
                 e[i].ip[3], (unsigned)e[i].port);
        int idx = core_proc_add_foreign(core_rt, e[i].run, (int)e[i].uid, addr, bridges[r]);
        if (idx < 0)
            return idx;
        rranks[i] = idx;
    }
    return 0;
}

/* The intercommunicator with another run's group, once the roots met (res at every
 * member, the other group's table in link, its socket still open at the root). Neither
 * group goes into the context-id agreement unless both are ready: every member's outcome is
 * reduced in its group, the roots tell each other theirs over their socket (a root that
 * vanishes or stays silent counts as a failure, within a bound) and broadcast the
 * verdict. */
static int xrun_intercomm(MPI_Comm comm, int root, int accepting, root_result_t *res,
                          api_xlink_t *link, MPI_Comm *newcomm, const char **what,
                          char *why, size_t wlen)
{
    int *rranks = malloc(sizeof(int) * res->n);
    int rc = rranks ? add_other_run(res, link->remote.e, rranks) : CORE_ENOMEM, all = 0;
    if (!rc && core_rt->settings->test_xrun_fail == core_rt->rank)
        rc = CORE_EOTHER; /* fault injection (tests): as when out of table space */
    *what = "adding the other run's processes";
    /* every member's outcome: none may go on alone into the agreement below */
    int brc = coll_allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, comm);
    MPI_Comm pair = MPI_COMM_NULL;
    struct { int rc; char why[400]; } v = { 0, "" };
    if (!brc && comm->rank == root) {
        if (!all)
            all = api_dyn_pair(rranks[res->leader], accepting, &pair);
        if (all)
            snprintf(v.why, sizeof(v.why), "%s failed in this group: %s", *what,
                     core_strerror(all));
        int crc = api_xport_confirm(link, !all, all ? NULL : v.why, sizeof(v.why));
        v.rc = all ? all : crc;
    }
    if (!brc)
        brc = coll_bcast(&v, (int)sizeof(v), MPI_BYTE, root, comm);
    if (!brc && v.rc) {
        v.why[sizeof(v.why) - 1] = '\0';
        snprintf(why, wlen, "%s", v.why);
        *what = "confirming with the other run's root";
    }
    if (!brc && !v.rc)
        v.rc = api_intercomm_make_known(comm, root, pair, accepting ? 1 : 0, PORT_TAG, rranks,
                                        (int)res->n, core_rt->settings->connect_timeout,
                                        newcomm, what);
    if (pair != MPI_COMM_NULL)
        core_comm_release(pair);
    free(rranks);
    return brc ? brc : v.rc;
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
    root_result_t res;
    memset(&res, 0, sizeof(res));
    /* every member reachable before the other side can look; and its entry of the group's
     * table, should the other side be another run */
    core_xwire_entry_t me, *table = NULL;
    int rc = rt_dyn_prepare();
    if (!rc)
        rc = api_xport_my_entry(&me);
    int lrc = rc, brc;
    if (comm->rank == root && !(table = calloc((size_t)comm->size, sizeof(*table))))
        lrc = rc = CORE_ENOMEM;
    if ((brc = coll_allreduce(&lrc, &rc, 1, MPI_INT, MPI_MIN, comm)) == 0 && !rc)
        brc = coll_gather(&me, (int)sizeof(me), MPI_BYTE, table, (int)sizeof(me), MPI_BYTE,
                          root, comm);
    api_xlink_t link;
    memset(&link, 0, sizeof(link));
    link.sock = -1;
    if (comm->rank == root && !brc && !rc) {
        API_CHECK(api_check_info(comm, info, 1, fn));
        core_xwire_table_t mine = { (uint32_t)comm->size, (uint32_t)root,
                                    core_run_id(core_rt), table };
        int several = 0; /* processes of other runs (a group merged from earlier links) */
        for (int i = 0; i < comm->size; i++)
            several |= core_proc_foreign(core_rt, comm->group->ranks[i]) != NULL;
        if (core_xwire_table_runs(&mine) > CORE_XWIRE_MAX_RUNS) {
            rc = CORE_EUNSUPPORTED;
            snprintf(res.why, sizeof(res.why), "%s holds processes of more than %d runs",
                     core_comm_label(comm), CORE_XWIRE_MAX_RUNS + 1);
        } else if (several && !(port_name && other_run(port_name)) && !accepting) {
            rc = CORE_EUNSUPPORTED;
            snprintf(res.why, sizeof(res.why), "%s holds processes of another run: it can "
                     "connect to ports of other runs only", core_comm_label(comm));
        }
        if (rc)
            ;
        else if (accepting)
            rc = root_accept(port_name, !several, &pair, &mine, &link, &res.xrun, res.why,
                             sizeof(res.why));
        else if (port_name && other_run(port_name)) {
            core_port_t id;
            core_port_parse(port_name, &id);
            res.xrun = 1;
            rc = api_xport_connect(&id, &mine, &link, res.why, sizeof(res.why));
        } else {
            rc = root_connect(port_name, &pair);
        }
        res.rc = rc;
        if (!rc && res.xrun) {
            res.n = link.remote.n;
            res.leader = link.remote.leader;
            res.run = link.run;
            memcpy(res.bridge, link.bridge, sizeof(res.bridge));
        }
    }
    free(table);
    table = NULL;
    if (!brc)
        res.rc = rc ? rc : res.rc;
    if (!brc)
        brc = coll_bcast(&res, (int)sizeof(res), MPI_BYTE, root, comm);
    if (!brc && !res.rc && res.xrun) {
        if (res.n < 1 || res.n > CORE_XWIRE_MAX)
            brc = CORE_EINTERN;
        else if (comm->rank != root && !(link.remote.e = calloc(res.n, sizeof(*link.remote.e))))
            brc = CORE_ENOMEM; /* the broadcast below would need it: memory is gone anyway */
        else
            brc = coll_bcast(link.remote.e, (int)(res.n * sizeof(*link.remote.e)), MPI_BYTE,
                             root, comm);
    }
    if (brc || res.rc) {
        api_xlink_free(&link);
        memset(res.bridge, 0, sizeof(res.bridge));
        if (pair != MPI_COMM_NULL)
            core_comm_release(pair);
        *newcomm = MPI_COMM_NULL;
        res.why[sizeof(res.why) - 1] = '\0';
        /* what went wrong between runs is known at the root only, and an application that
         * lets errors return sees just the class: the root says it */
        if (comm->rank == root && res.why[0] && !brc)
            core_warn("%s (rank %d, root of %s): %s", fn, core_rt->rank,
                      core_comm_label(comm), res.why);
        return api_error(comm, brc ? brc : res.rc, fn, "port '%s' (root %d): %s",
                         comm->rank == root && port_name ? port_name : "(at the root)", root,
                         res.why[0] && !brc ? res.why : core_strerror(brc ? brc : res.rc));
    }
    const char *what = "";
    if (res.xrun) {
        char xwhy[400] = "";
        rc = xrun_intercomm(comm, root, accepting, &res, &link, newcomm, &what, xwhy,
                            sizeof(xwhy));
        api_xlink_free(&link);
        memset(res.bridge, 0, sizeof(res.bridge));
        if (rc && xwhy[0]) {
            if (comm->rank == root)
                core_warn("%s (rank %d, root of %s): with run %016llx: %s", fn, core_rt->rank,
                          core_comm_label(comm), (unsigned long long)res.run, xwhy);
            return api_error(comm, rc, fn, "with run %016llx: %s", (unsigned long long)res.run,
                             xwhy);
        }
        if (rc && comm->rank == root)
            core_warn("%s (rank %d, root of %s): with run %016llx: %s failed: %s", fn,
                      core_rt->rank, core_comm_label(comm), (unsigned long long)res.run, what,
                      core_strerror(rc));
        if (rc)
            return api_error(comm, rc, fn, "with run %016llx: %s failed: %s",
                             (unsigned long long)res.run, what, core_strerror(rc));
        return MPI_SUCCESS;
    }
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

/* The shared name directory (RDMPI_NAME_SERVER=dir:/path), or NULL: the launcher's table. */
static const char *name_dir(void)
{
    const char *v = core_rt->settings->name_server;
    return strncmp(v, "dir:", 4) ? NULL : v + 4;
}

/* RDMPI_NAME_SERVER set to something this library does not know: an error, not a quiet
 * fallback to the launcher, where the other run would never find the name. */
static int check_name_server(const char *fn)
{
    const char *v = core_rt->settings->name_server;
    if (*v && !name_dir())
        return api_error(MPI_COMM_WORLD, CORE_EINVAL, fn, "RDMPI_NAME_SERVER='%s': expected "
                         "dir:/path", v);
    return 0;
}

/* The error of the name directory, with what the user can do about it. */
static int dir_error(int rc, const char *service, const char *fn)
{
    if (rc == CORE_EACCESS)
        return api_error(MPI_COMM_WORLD, CORE_EIO, fn, "service '%s': the name directory "
                         "'%s' (RDMPI_NAME_SERVER) is missing, not a directory, not yours or "
                         "open to others (it must be mode 0700)", service, name_dir());
    return api_error(MPI_COMM_WORLD, rc, fn, "service '%s' in the name directory '%s': %s",
                     service, name_dir(), core_strerror(rc));
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
    API_CHECK(check_name_server(fn));
    if (name_dir()) {
        int rc = core_namedir_publish(name_dir(), service_name, port_name);
        return rc ? dir_error(rc, service_name, fn) : MPI_SUCCESS;
    }
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
    API_CHECK(check_name_server(fn));
    if (name_dir()) {
        int rc = core_namedir_unpublish(name_dir(), service_name, port_name);
        if (rc == CORE_ESERVICE)
            return api_error(MPI_COMM_WORLD, rc, fn, "service '%s' is not published with "
                             "port '%s'", service_name, port_name);
        return rc ? dir_error(rc, service_name, fn) : MPI_SUCCESS;
    }
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
    API_CHECK(check_name_server(fn));
    if (name_dir()) {
        int rc = core_namedir_lookup(name_dir(), service_name, port_name, MPI_MAX_PORT_NAME);
        if (rc == CORE_ENAME)
            return api_error(MPI_COMM_WORLD, rc, fn, "service '%s': %s", service_name,
                             core_strerror(rc));
        return rc ? dir_error(rc, service_name, fn) : MPI_SUCCESS;
    }
    int rc = core_boot_lookup(core_rt, service_name, port_name, MPI_MAX_PORT_NAME);
    if (rc)
        return api_error(MPI_COMM_WORLD, rc, fn, "service '%s': %s", service_name,
                         core_strerror(rc));
    return MPI_SUCCESS;
}
int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
    API_ALIAS(MPI_Lookup_name);
