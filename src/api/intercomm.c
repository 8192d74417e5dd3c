/*
 * Intercommunicators (MPI 6.6): MPI_Intercomm_create and _merge, the remote
 * group queries, and what MPI_Comm_dup/idup/split/create do when given an
 * intercommunicator (comm.c sends those here).
 *
 * An intercommunicator is a communicator whose point-to-point ranks name
 * the remote group (core/comm.h). It holds a hidden intracommunicator over
 * its local group (comm->local), on which its collectives run their local
 * phases and on which the calls below run theirs. Every such call is a
 * local phase in each group plus exchanges between the two group leaders
 * (the bridge: over the peer communicator for MPI_Intercomm_create, over
 * the intercommunicator's collective context otherwise).
 *
 * Context ids: both groups use the one id, which must be free at every
 * member of both; the hidden local communicators of the two groups share a
 * second one (they are disjoint). Both come from one agreement over the two
 * groups (rt_ctx_alloc_bridged: each group's members send their masks to
 * their leader, the two leaders swap their groups' ANDs), which
 * MPI_Comm_idup runs in the progress engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api/api.h"
#include "api/attr.h"
#include "api/intercomm.h"
#include "collectives/coll.h"
#include "core/bootdyn.h"
#include "core/group_ops.h"
#include "core/jobid.h"
#include "core/log.h"
#include "core/procs.h"
#include "core/progress.h"
#include "p2p/p2p.h"

/* The intercommunicator calls' messages between leaders on its collective
 * context: collectives use tags >= 0, rt_ctx_alloc_group far below, and
 * -1 is MPI_ANY_TAG. */
#define BRIDGE_TAG (-16)

typedef struct bridge {
    MPI_Comm via;     /* the communicator the leaders talk over */
    int peer;         /* the other leader's rank in via */
    int tag;
    uint32_t ctx;
} bridge_t;

static bridge_t bridge_of(MPI_Comm inter)
{
    return (bridge_t){ inter, 0, BRIDGE_TAG, inter->ctx + 1 };
}

/* The bridge of a context-id agreement over an existing intercommunicator: both groups
 * number their agreements on it alike, which gives each its own tag on the collective
 * context (below BRIDGE_TAG and the collectives' tags) and an order both groups share. */
static rt_ctx_bridge_t ctx_bridge_of(MPI_Comm inter)
{
    uint32_t seq = inter->ctx_seq++;
    return (rt_ctx_bridge_t){ inter, 0, -(1 << 21) - (int)(seq & 0xfffff), inter->ctx + 1,
                              ((uint64_t)inter->ctx << 32) | seq };
}

/* Leader only: sends scount items, receives up to rcount; *got (if not NULL) the count. */
static int swap(const bridge_t *b, const void *sbuf, int scount, void *rbuf, int rcount,
                MPI_Datatype dt, int *got)
{
    MPI_Request rr, sr;
    int rc = p2p_irecv(rbuf, (size_t)rcount, dt, b->peer, b->tag, b->via, b->ctx, &rr);
    if (rc)
        return rc;
    rc = p2p_isend(sbuf, (size_t)scount, dt, b->peer, b->tag, b->via, b->ctx,
                   CORE_MODE_STANDARD, &sr);
    if (rc) {
        p2p_cancel(rr);
        core_wait_req(rr, "MPI_Intercomm_create");
        core_req_free(rr);
        return rc;
    }
    core_wait_req(sr, "MPI_Intercomm_create");
    core_wait_req(rr, "MPI_Intercomm_create");
    int err = rr->status.MPI_ERROR;
    if (got)
        *got = (int)(rr->status.rdmpi_nbytes / (dt->size ? dt->size : 1));
    core_req_free(sr);
    core_req_free(rr);
    if (err != MPI_SUCCESS)
        return err == MPI_ERR_TRUNCATE ? CORE_ETRUNC : CORE_EPEER;
    return 0;
}

/* The remote group's uids (core/procs.h), given this group's (the same at every member):
 * leaders swap, then the leader broadcasts. *out is malloc'ed. What the remote leader sent
 * is checked at every member alike (a count out of range, or fewer uids than it announced,
 * fails everywhere: the uids left at -1 are refused by core_proc_of_uid); a leader whose
 * exchange failed still joins the broadcasts, so that its group does not wait in them. */
static int exchange_ranks(MPI_Comm local, int leader, const bridge_t *b, const int *mine, int n,
                          int **out, int *nout)
{
    int rn = 0, rc = 0, src = 0, got = 0;
    if (local->rank == leader && (src = swap(b, &n, 1, &rn, 1, MPI_INT, &got)) == 0 && got != 1)
        src = CORE_EPROTO;
    if (src)
        rn = -1;
    if ((rc = coll_bcast(&rn, 1, MPI_INT, leader, local)) || src)
        return src ? src : rc;
    if (rn < 0 || rn >= CORE_UID_MAX) {
        core_error("intercommunicator creation: the remote leader announced %d processes", rn);
        return CORE_EPROTO;
    }
    int *r = malloc(sizeof(int) * (size_t)(rn > 0 ? rn : 1));
    if (!r)
        return CORE_ENOMEM; /* the leader's peer then waits: memory is gone anyway */
    if (local->rank == leader && ((src = swap(b, mine, n, r, rn, MPI_INT, &got)) || got != rn))
        for (int i = 0; i < rn; i++)
            r[i] = -1;
    rc = coll_bcast(r, rn, MPI_INT, leader, local);
    if (src || rc) {
        free(r);
        return src ? src : rc;
    }
    *out = r;
    *nout = rn;
    return 0;
}

/* An intercommunicator over (group, remote) with context ctx and a local
 * communicator with context lctx; both ids are taken over (freed on failure). */
static int build(MPI_Group group, MPI_Group remote, uint32_t ctx, uint32_t lctx,
                 MPI_Errhandler errh, MPI_Comm *out)
{
    MPI_Comm ic = MPI_COMM_NULL, lc = MPI_COMM_NULL;
    int rc = core_comm_create(group, lctx, errh, &lc);
    if (rc) {
        core_ctx_free(lctx);
        core_ctx_free(ctx);
        return rc;
    }
    if ((rc = core_comm_create(group, ctx, errh, &ic))) {
        core_ctx_free(ctx);
        core_comm_release(lc);
        return rc;
    }
    core_group_retain(remote);
    ic->remote = remote;
    ic->local = lc;
    *out = ic;
    return 0;
}

static int world_ranks_group(const int *ranks, int n, MPI_Group *out)
{
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return 0;
    }
    return core_group_create(n, ranks, core_rt->rank, out);
}

static void group_done(MPI_Group g)
{
    if (g != MPI_GROUP_EMPTY)
        core_group_release(g);
}

/*
 * The remote group as processes of this one (core/procs.h). Members are
 * exchanged as uids, with the jobs they belong to (name and first uid of
 * each distinct job of the group, at most MAX_JOBS): a group may hold
 * processes of several jobs (each spawned by one process over
 * MPI_COMM_SELF, then merged), which the other group may never have met.
 * A member of a job this process does not know yet is added to its table
 * once the launcher confirms that job's numbering; a uid in none of the
 * jobs sent is refused.
 */
#define MAX_JOBS 16

typedef struct job_range {
    core_jobid_t id;
    int size;
    int ours;
} job_range_t;

/* The distinct jobs of group, encoded one after the other into buf; returns how many, or a
 * negative code. */
static int local_jobs(MPI_Group group, uint8_t *buf)
{
    core_jobid_t jobs[MAX_JOBS];
    int n = 0;
    for (int i = 0; i < group->size; i++) {
        int idx = group->ranks[i], rank, k;
        const char *ns = core_proc_job(core_rt, idx, &rank);
        if (!ns)
            return CORE_EPEER;
        int ubase = core_proc_uid(core_rt, idx) - rank;
        for (k = 0; k < n; k++)
            if (jobs[k].ubase == ubase && !strcmp(jobs[k].nspace, ns))
                break;
        if (k < n)
            continue;
        if (n == MAX_JOBS) {
            core_error("intercommunicator creation: a group with processes of more than %d "
                       "jobs", MAX_JOBS);
            return CORE_EUNSUPPORTED;
        }
        snprintf(jobs[n].nspace, sizeof(jobs[n].nspace), "%s", ns);
        jobs[n].ubase = ubase;
        if (core_jobid_encode(buf + (size_t)n * CORE_JOBID_LEN, &jobs[n]))
            return CORE_EINVAL; /* a job name that is no job name: the launcher's doing */
        n++;
    }
    return n;
}

/* Decodes the nbytes of job records the remote leader sent (the same at every member). */
static int remote_jobs(const uint8_t *buf, int nbytes, job_range_t *jobs, int *njobs)
{
    if (nbytes < CORE_JOBID_LEN || nbytes % CORE_JOBID_LEN ||
        nbytes > MAX_JOBS * CORE_JOBID_LEN) {
        core_error("intercommunicator creation: the remote leader sent %d bytes of job "
                   "records", nbytes);
        return CORE_EPROTO;
    }
    *njobs = nbytes / CORE_JOBID_LEN;
    for (int k = 0; k < *njobs; k++) {
        const char *why = "";
        job_range_t *j = &jobs[k];
        int rc = core_jobid_decode(buf + (size_t)k * CORE_JOBID_LEN, CORE_JOBID_LEN, &j->id,
                                   &why);
        if (rc) {
            core_error("intercommunicator creation: the remote leader sent %s", why);
            return rc;
        }
        j->ours = !strcmp(j->id.nspace, core_rt->nspace);
        if (j->ours) {
            if (j->id.ubase != core_rt->uid_base)
                return CORE_EPROTO;
            j->size = core_rt->size;
            continue;
        }
        int ub = 0;
        if ((rc = core_boot_job(core_rt, j->id.nspace, &j->size, &ub)) != 0)
            return rc;
        if (ub != j->id.ubase)
            return CORE_EPROTO;
    }
    return 0;
}

static int remote_procs(MPI_Comm local, int leader, const bridge_t *b, int *rranks, int rn)
{
    uint8_t *mine = malloc(2 * (size_t)MAX_JOBS * CORE_JOBID_LEN);
    if (!mine)
        return CORE_ENOMEM; /* the leader's peer then waits: memory is gone anyway */
    uint8_t *theirs = mine + (size_t)MAX_JOBS * CORE_JOBID_LEN;
    int rc = 0, src = 0, got = 0, nmine = 0;
    memset(theirs, 0, (size_t)MAX_JOBS * CORE_JOBID_LEN);
    /* A leader that got nothing usable still joins the broadcast (its group would wait in
     * it otherwise), with no records, which every member refuses below. */
    if (local->rank == leader) {
        nmine = local_jobs(local->group, mine);
        src = nmine < 0 ? nmine
                        : swap(b, mine, nmine * CORE_JOBID_LEN, theirs,
                               MAX_JOBS * CORE_JOBID_LEN, MPI_BYTE, &got);
        if (src)
            got = 0;
    }
    if (!(rc = coll_bcast(&got, 1, MPI_INT, leader, local)))
        rc = coll_bcast(theirs, MAX_JOBS * CORE_JOBID_LEN, MPI_BYTE, leader, local);
    job_range_t jobs[MAX_JOBS];
    int njobs = 0;
    if (!src && !rc)
        rc = remote_jobs(theirs, got, jobs, &njobs);
    free(mine);
    if (src || rc)
        return src ? src : rc;
    for (int i = 0; i < rn; i++) {
        int uid = rranks[i], idx = CORE_EPROTO, k;
        for (k = 0; k < njobs; k++)
            if (uid >= jobs[k].id.ubase && uid - jobs[k].id.ubase < jobs[k].size)
                break;
        if (k < njobs && jobs[k].ours)
            idx = core_proc_of_uid(core_rt, uid);
        else if (k < njobs)
            idx = core_proc_add(core_rt, jobs[k].id.nspace, uid - jobs[k].id.ubase,
                                jobs[k].id.ubase);
        if (idx < 0)
            return idx;
        rranks[i] = idx;
    }
    return 0;
}

/* Whether group holds a process of another job (which only some transports reach). */
static int other_jobs(MPI_Group group)
{
    for (int i = 0; i < group->size; i++)
        if (group->ranks[i] >= core_rt->size)
            return 1;
    return 0;
}

int api_intercomm_make(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                       int remote_leader, int tag, MPI_Comm *newintercomm, const char **what)
{
    bridge_t b = { peer_comm, remote_leader, tag, peer_comm ? peer_comm->ctx : 0 };
    MPI_Group group = local_comm->group;
    int *rranks = NULL, rn = 0;
    int *uids = malloc(sizeof(int) * (size_t)(group->size ? group->size : 1));
    if (!uids)
        return CORE_ENOMEM;
    for (int i = 0; i < group->size; i++)
        uids[i] = core_proc_uid(core_rt, group->ranks[i]);
    *what = "exchanging the groups";
    int rc = exchange_ranks(local_comm, local_leader, &b, uids, group->size, &rranks, &rn);
    free(uids);
    if (!rc && (rc = remote_procs(local_comm, local_leader, &b, rranks, rn)) != 0)
        *what = "finding the remote group's processes";
    if (rc) {
        free(rranks);
        return rc;
    }
    rc = api_intercomm_make_known(local_comm, local_leader, peer_comm, remote_leader, tag,
                                  rranks, rn, 0, newintercomm, what);
    free(rranks);
    return rc;
}

int api_intercomm_make_known(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                             int remote_leader, int tag, const int *rranks, int rn,
                             double limit, MPI_Comm *newintercomm, const char **what)
{
    bridge_t b = { peer_comm, remote_leader, tag, peer_comm ? peer_comm->ctx : 0 };
    MPI_Group group = local_comm->group;
    for (int i = 0; i < rn; i++)
        if (core_group_rank_of(group, rranks[i]) != MPI_UNDEFINED) {
            *what = "the two groups overlap";
            return CORE_EGROUP;
        }
    *what = "agreeing on a context id";
    MPI_Group remote = MPI_GROUP_EMPTY;
    int rc = world_ranks_group(rranks, rn, &remote);
    /* Every member reaches the other jobs' processes of both groups, not only the leaders
     * that met them: opened (and its address published) before this member's part of the
     * agreement below, so before any process of the other group leaves this call. */
    if (!rc && (other_jobs(group) || other_jobs(remote)) && (rc = rt_dyn_prepare()) != 0)
        *what = "opening a transport to the other jobs";
    uint32_t ids[2] = { 0, 0 };
    rt_ctx_bridge_t cb = { b.via, b.peer, b.tag, b.ctx, 0, limit };
    if (!rc)
        rc = rt_ctx_alloc_bridged(local_comm, local_leader, &cb, 2, ids);
    if (!rc)
        rc = build(group, remote, ids[0], ids[1], local_comm->errh, newintercomm);
    group_done(remote);
    return rc;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    API_ENTER;
    static const char fn[] = "MPI_Intercomm_create";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(local_comm, fn));
    if (local_comm->remote)
        return api_error(local_comm, CORE_ECOMM, fn, "the local communicator %s is an "
                         "intercommunicator", core_comm_label(local_comm));
    API_CHECK(api_check_ptr(local_comm, newintercomm, "newintercomm", fn));
    if (local_leader < 0 || local_leader >= local_comm->size)
        return api_error(local_comm, CORE_ERANK, fn, "local leader %d is not a rank of %s",
                         local_leader, core_comm_label(local_comm));
    API_CHECK(api_check_tag(local_comm, tag, 0, fn));
    if (local_comm->rank == local_leader) {
        API_CHECK(api_check_comm(peer_comm, fn));
        if (remote_leader < 0 || remote_leader >= core_comm_peer_size(peer_comm))
            return api_error(local_comm, CORE_ERANK, fn,
                             "remote leader %d is not a rank of the peer communicator %s",
                             remote_leader, core_comm_label(peer_comm));
    } else {
        peer_comm = NULL; /* significant at the leader only */
    }
    const char *what = "";
    int rc = api_intercomm_make(local_comm, local_leader, peer_comm, remote_leader, tag,
                                newintercomm, &what);
    if (rc)
        return api_error(local_comm, rc, fn, "%s failed: %s", what, core_strerror(rc));
    return MPI_SUCCESS;
}
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm)
    API_ALIAS(MPI_Intercomm_create);

static int check_inter(MPI_Comm comm, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    if (!comm->remote)
        return api_error(comm, CORE_ECOMM, fn, "%s is not an intercommunicator",
                         core_comm_label(comm));
    return 0;
}

/* Both groups in one, the group with high false first; when both pass the
 * same value, the group whose leader has the lower world rank. */
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    API_ENTER;
    static const char fn[] = "MPI_Intercomm_merge";
    API_CHECK(check_inter(intercomm, fn));
    API_CHECK(api_check_ptr(intercomm, newintracomm, "newintracomm", fn));
    bridge_t b = bridge_of(intercomm);
    MPI_Comm local = intercomm->local;
    /* uids: unique across jobs, where world ranks are not (core/procs.h); with the run id
     * (the high and low halves), unique across runs too */
    int lead = intercomm->group->ranks[0];
    const struct core_proc *f = core_proc_foreign(core_rt, lead);
    uint64_t run = f ? f->run : core_run_id(core_rt);
    int mine[4] = { high ? 1 : 0, (int)(uint32_t)(run >> 32), (int)(uint32_t)run,
                    core_proc_uid(core_rt, lead) };
    int theirs[4] = { 0, 0, 0, 0 };
    int rc = 0;
    if (local->rank == 0)
        rc = swap(&b, mine, 4, theirs, 4, MPI_INT, NULL);
    if (!rc)
        rc = coll_bcast(theirs, 4, MPI_INT, 0, local);
    if (rc)
        return api_error(intercomm, rc, fn, "%s", core_strerror(rc));
    int first = mine[0] != theirs[0] ? !mine[0]
              : mine[1] != theirs[1] ? (uint32_t)mine[1] < (uint32_t)theirs[1]
              : mine[2] != theirs[2] ? (uint32_t)mine[2] < (uint32_t)theirs[2]
              : mine[3] < theirs[3];
    MPI_Group lo = first ? intercomm->group : intercomm->remote;
    MPI_Group hi = first ? intercomm->remote : intercomm->group;
    int n = lo->size + hi->size;
    int *ranks = malloc(sizeof(int) * (size_t)n);
    if (!ranks)
        return api_error(intercomm, CORE_ENOMEM, fn, "out of memory");
    memcpy(ranks, lo->ranks, sizeof(int) * (size_t)lo->size);
    memcpy(ranks + lo->size, hi->ranks, sizeof(int) * (size_t)hi->size);
    MPI_Group g = NULL;
    rc = core_group_create(n, ranks, core_rt->rank, &g);
    free(ranks);
    uint32_t ctx;
    rt_ctx_bridge_t cb = ctx_bridge_of(intercomm);
    if (!rc && !(rc = rt_ctx_alloc_bridged(local, 0, &cb, 1, &ctx))) {
        if ((rc = core_comm_create(g, ctx, intercomm->errh, newintracomm)))
            core_ctx_free(ctx);
    }
    if (g)
        core_group_release(g);
    if (rc)
        return api_error(intercomm, rc, fn, "%s", core_strerror(rc));
    return MPI_SUCCESS;
}
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
    API_ALIAS(MPI_Intercomm_merge);

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_remote_size";
    API_CHECK(check_inter(comm, fn));
    API_CHECK(api_check_ptr(comm, size, "size", fn));
    *size = comm->remote->size;
    return MPI_SUCCESS;
}
int MPI_Comm_remote_size(MPI_Comm comm, int *size) API_ALIAS(MPI_Comm_remote_size);

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_remote_group";
    API_CHECK(check_inter(comm, fn));
    API_CHECK(api_check_ptr(comm, group, "group", fn));
    core_group_retain(comm->remote);
    *group = comm->remote;
    return MPI_SUCCESS;
}
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) API_ALIAS(MPI_Comm_remote_group);

/* ---- MPI_Comm_dup/idup/split/create on an intercommunicator ------------------------ */

int api_intercomm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    rt_ctx_bridge_t cb = ctx_bridge_of(comm);
    uint32_t ids[2];
    int rc = rt_ctx_alloc_bridged(comm->local, 0, &cb, 2, ids);
    if (rc)
        return rc;
    return build(comm->group, comm->remote, ids[0], ids[1], comm->errh, newcomm);
}

typedef struct idup {
    MPI_Comm comm;        /* retained until the agreement ends */
    core_attr_t *attrs;   /* the copies made at the call */
    MPI_Comm *newcomm;
} idup_t;

/* Runs in the progress engine when the agreement ends: builds the new one. */
static int idup_done(void *arg, int rc, const uint32_t *ids)
{
    idup_t *d = arg;
    if (!rc)
        rc = build(d->comm->group, d->comm->remote, ids[0], ids[1], d->comm->errh, d->newcomm);
    if (!rc) {
        (*d->newcomm)->attrs = d->attrs;
    } else {
        core_attr_discard(&d->attrs);
        core_error("MPI_Comm_idup on %s: %s", core_comm_label(d->comm), core_strerror(rc));
    }
    core_comm_release(d->comm);
    free(d);
    return rc ? api_class_of(rc) : 0;
}

int api_intercomm_idup(MPI_Comm comm, core_attr_t *attrs, MPI_Comm *newcomm, MPI_Request *req)
{
    idup_t *d = malloc(sizeof(*d));
    if (!d)
        return CORE_ENOMEM;
    *d = (idup_t){ comm, attrs, newcomm };
    *newcomm = MPI_COMM_NULL;
    rt_ctx_bridge_t cb = ctx_bridge_of(comm);
    int rc = rt_ctx_start_bridged(comm->local, &cb, 2, idup_done, d, req);
    if (rc) {
        free(d);
        return rc;
    }
    core_comm_retain(comm);
    (*req)->comm = comm;
    return 0;
}

typedef struct entry {
    int color, key, rank;
} entry_t;

static int by_key(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* The world ranks of the members of group g (entries e[0..n)) with color, by key. */
static int color_group(const entry_t *e, int n, MPI_Group g, int color, MPI_Group *out)
{
    entry_t *sel = malloc(sizeof(*sel) * (size_t)(n > 0 ? n : 1));
    int *ranks = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int k = 0, rc = 0;
    if (!sel || !ranks) {
        rc = CORE_ENOMEM;
        goto out;
    }
    for (int i = 0; i < n; i++)
        if (color != MPI_UNDEFINED && e[i].color == color)
            sel[k++] = e[i];
    qsort(sel, (size_t)k, sizeof(*sel), by_key);
    for (int i = 0; i < k; i++)
        ranks[i] = g->ranks[sel[i].rank];
    rc = world_ranks_group(ranks, k, out);
out:
    free(sel);
    free(ranks);
    return rc;
}

/* Context ids for the intercommunicators of a split or create: one id for all
 * of them (they are disjoint), agreed over the whole old one; the new local
 * communicators likewise share one. Members left out give theirs back. */
static int finish_new(MPI_Comm comm, MPI_Group lg, MPI_Group rg, MPI_Comm *newcomm)
{
    rt_ctx_bridge_t cb = ctx_bridge_of(comm);
    uint32_t ids[2];
    int rc = rt_ctx_alloc_bridged(comm->local, 0, &cb, 2, ids);
    if (rc)
        return rc;
    uint32_t ctx = ids[0], lctx = ids[1];
    if (lg == MPI_GROUP_EMPTY || rg == MPI_GROUP_EMPTY || lg->my_rank == MPI_UNDEFINED) {
        core_ctx_free(ctx);
        core_ctx_free(lctx);
        *newcomm = MPI_COMM_NULL;
        return 0;
    }
    return build(lg, rg, ctx, lctx, comm->errh, newcomm);
}

int api_intercomm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    MPI_Comm local = comm->local;
    int n = comm->size, rn = comm->remote->size, rc = 0;
    entry_t mine = { color, key, comm->rank };
    entry_t *all = malloc(sizeof(*all) * (size_t)n);
    entry_t *rall = malloc(sizeof(*rall) * (size_t)rn);
    MPI_Group lg = MPI_GROUP_EMPTY, rg = MPI_GROUP_EMPTY;
    if (!all || !rall) {
        rc = CORE_ENOMEM;
        goto out;
    }
    if ((rc = coll_allgather(&mine, 3, MPI_INT, all, 3, MPI_INT, local)))
        goto out;
    bridge_t b = bridge_of(comm);
    if (local->rank == 0 && (rc = swap(&b, all, 3 * n, rall, 3 * rn, MPI_INT, NULL)))
        goto out;
    if ((rc = coll_bcast(rall, 3 * rn, MPI_INT, 0, local)))
        goto out;
    if ((rc = color_group(all, n, comm->group, color, &lg)) ||
        (rc = color_group(rall, rn, comm->remote, color, &rg)))
        goto out;
    rc = finish_new(comm, lg, rg, newcomm);
out:
    group_done(lg);
    group_done(rg);
    free(all);
    free(rall);
    return rc;
}

int api_intercomm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    int *rranks = NULL, rn = 0;
    bridge_t b = bridge_of(comm);
    int *uids = malloc(sizeof(int) * (size_t)(group->size ? group->size : 1));
    if (!uids)
        return CORE_ENOMEM;
    for (int i = 0; i < group->size; i++)
        uids[i] = core_proc_uid(core_rt, group->ranks[i]);
    int rc = exchange_ranks(comm->local, 0, &b, uids, group->size, &rranks, &rn);
    free(uids);
    if (rc)
        return rc;
    for (int i = 0; i < rn && !rc; i++) /* members of comm's remote group: known here */
        if ((rranks[i] = core_proc_of_uid(core_rt, rranks[i])) < 0)
            rc = rranks[i];
    if (rc) {
        free(rranks);
        return rc;
    }
    MPI_Group rg = MPI_GROUP_EMPTY;
    rc = world_ranks_group(rranks, rn, &rg);
    free(rranks);
    if (!rc)
        rc = finish_new(comm, group, rg, newcomm);
    group_done(rg);
    return rc;
}

int api_intercomm_compare(MPI_Comm c1, MPI_Comm c2)
{
    if (!c1->remote || !c2->remote)
        return MPI_UNEQUAL;
    int a = core_group_compare(c1->group, c2->group);
    int b = core_group_compare(c1->remote, c2->remote);
    if (a == MPI_IDENT && b == MPI_IDENT)
        return MPI_CONGRUENT;
    if (a != MPI_UNEQUAL && b != MPI_UNEQUAL)
        return MPI_SIMILAR;
    return MPI_UNEQUAL;
}
