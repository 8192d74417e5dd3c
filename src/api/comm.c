/*
 * Communicator management: queries, duplication, splitting, creation from
 * groups, naming and freeing.
 */
#include <stdlib.h>
#include <string.h>
#include "api/api.h"
#include "api/attr.h"
#include "api/intercomm.h"
#include "collectives/coll.h"
#include "core/group_ops.h"
#include "core/request.h"
#include "core/topo.h"

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_rank"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_rank"));
    API_CHECK(api_check_ptr(comm, rank, "rank", "MPI_Comm_rank"));
    *rank = comm->rank;
    return MPI_SUCCESS;
}
int MPI_Comm_rank(MPI_Comm comm, int *rank) API_ALIAS(MPI_Comm_rank);

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_size"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_size"));
    API_CHECK(api_check_ptr(comm, size, "size", "MPI_Comm_size"));
    *size = comm->size;
    return MPI_SUCCESS;
}
int MPI_Comm_size(MPI_Comm comm, int *size) API_ALIAS(MPI_Comm_size);

/* A new communicator over group with a context agreed on over parent. */
static int make_comm(MPI_Comm parent, MPI_Group group, int member, MPI_Comm *out, const char *fn)
{
    uint32_t ctx;
    int rc = rt_ctx_alloc(parent, &ctx);
    if (rc)
        return api_error(parent, rc, fn, "agreeing on a context id failed: %s", core_strerror(rc));
    if (!member) {
        core_ctx_free(ctx);
        *out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    rc = core_comm_create(group, ctx, parent->errh, out);
    if (rc)
        return api_error(parent, rc, fn, "%s", core_strerror(rc));
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_dup"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_dup"));
    API_CHECK(api_check_ptr(comm, newcomm, "newcomm", "MPI_Comm_dup"));
    int rc;
    if (comm->remote) {
        rc = api_intercomm_dup(comm, newcomm);
        if (rc)
            return api_error(comm, rc, "MPI_Comm_dup", "%s", core_strerror(rc));
    } else {
        rc = make_comm(comm, comm->group, 1, newcomm, "MPI_Comm_dup");
    }
    /* A duplicate keeps the topology (MPI 7.4). */
    if (rc == MPI_SUCCESS && comm->topo && !((*newcomm)->topo = core_topo_dup(comm->topo)))
        return api_error(comm, CORE_ENOMEM, "MPI_Comm_dup", "out of memory");
    if (rc == MPI_SUCCESS)
        (*newcomm)->hints = comm->hints; /* and its info hints (MPI-4.1 7.4.2) */
    if (rc == MPI_SUCCESS && (rc = api_attr_comm_copy(comm, *newcomm, "MPI_Comm_dup"))) {
        api_attr_comm_delete_all(*newcomm, "MPI_Comm_dup");
        core_comm_release(*newcomm);
        *newcomm = MPI_COMM_NULL;
    }
    return rc;
}
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) API_ALIAS(MPI_Comm_dup);

/* The agreement on a context id progresses in the background; the new
 * communicator exists once the request completes. */
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_idup"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_idup"));
    if (!newcomm || !req)
        return api_error(comm, CORE_EINVAL, "MPI_Comm_idup", "NULL argument");
    /* the copy callbacks run now, on comm; the copies go to the new communicator */
    core_attr_t *attrs = NULL;
    API_CHECK(api_attr_comm_copy_list(comm, &attrs, "MPI_Comm_idup"));
    int rc = comm->remote ? api_intercomm_idup(comm, attrs, newcomm, req)
                          : rt_comm_idup(comm, attrs, newcomm, req);
    if (rc) {
        core_attr_discard(&attrs);
        return api_error(comm, rc, "MPI_Comm_idup", "%s", core_strerror(rc));
    }
    return MPI_SUCCESS;
}
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req) API_ALIAS(MPI_Comm_idup);

typedef struct split_entry {
    int color, key, rank;
} split_entry_t;

static int by_key(const void *a, const void *b)
{
    const split_entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

static int split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm, const char *fn)
{
    int n = comm->size;
    split_entry_t mine = { color, key, comm->rank };
    split_entry_t *all = malloc((size_t)n * sizeof(*all));
    int *ranks = malloc((size_t)n * sizeof(int));
    if (!all || !ranks) {
        free(all);
        free(ranks);
        return api_error(comm, CORE_ENOMEM, fn, "out of memory");
    }
    int rc = coll_allgather(&mine, 3, MPI_INT, all, 3, MPI_INT, comm);
    if (rc) {
        free(all);
        free(ranks);
        return api_error(comm, rc, fn, "exchanging colors failed: %s", core_strerror(rc));
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (color != MPI_UNDEFINED && all[i].color == color)
            all[k++] = all[i];
    qsort(all, (size_t)k, sizeof(*all), by_key);
    for (int i = 0; i < k; i++)
        ranks[i] = core_comm_world_rank(comm, all[i].rank);
    MPI_Group g = MPI_GROUP_EMPTY;
    if (k > 0 && (rc = core_group_create(k, ranks, core_rt->rank, &g))) {
        free(all);
        free(ranks);
        return api_error(comm, rc, fn, "%s", core_strerror(rc));
    }
    free(all);
    free(ranks);
    rc = make_comm(comm, g, color != MPI_UNDEFINED, newcomm, fn);
    if (k > 0)
        core_group_release(g);
    return rc;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_split"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_split"));
    API_CHECK(api_check_ptr(comm, newcomm, "newcomm", "MPI_Comm_split"));
    if (color < 0 && color != MPI_UNDEFINED)
        return api_error(comm, CORE_EINVAL, "MPI_Comm_split",
                         "color %d is negative (and not MPI_UNDEFINED)", color);
    if (comm->remote) {
        int rc = api_intercomm_split(comm, color, key, newcomm);
        return rc ? api_error(comm, rc, "MPI_Comm_split", "%s", core_strerror(rc)) : MPI_SUCCESS;
    }
    return split(comm, color, key, newcomm, "MPI_Comm_split");
}
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
    API_ALIAS(MPI_Comm_split);

/* The color of this process for MPI_COMM_TYPE_SHARED in comm: the node's lowest world rank
 * of this job names the node; when comm holds processes of other jobs (spawned, connected,
 * other runs), whose world ranks are numbered apart, the color is the lowest rank of comm
 * with the same (run, job, node): only processes of one job share a segment. */
static int shared_color(MPI_Comm comm, int *color)
{
    int leader = core_rt->local_ranks[0], others = 0;
    for (int i = 1; i < core_rt->local_size; i++)
        if (core_rt->local_ranks[i] < leader)
            leader = core_rt->local_ranks[i];
    for (int i = 0; i < comm->size && !others; i++)
        others = core_comm_world_rank(comm, i) >= core_rt->size;
    /* every member of a communicator of several jobs sees another job's process */
    if (!others) {
        *color = leader;
        return 0;
    }
    uint64_t mine[2] = { core_run_id(core_rt),
                         (uint64_t)(uint32_t)core_rt->uid_base << 32 | (uint32_t)leader };
    uint64_t *all = malloc(sizeof(mine) * (size_t)comm->size);
    if (!all)
        return CORE_ENOMEM;
    int rc = coll_allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, comm);
    *color = comm->rank;
    for (int i = 0; !rc && i < comm->rank; i++)
        if (all[2 * i] == mine[0] && all[2 * i + 1] == mine[1]) {
            *color = i;
            break;
        }
    free(all);
    return rc;
}

/* Ranks sharing a node share memory: see shared_color. */
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    API_ENTER;
    const char *fn = "MPI_Comm_split_type";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_info(comm, info, 1, fn));
    API_CHECK(api_check_ptr(comm, newcomm, "newcomm", fn));
    if (comm->remote)
        return api_error(comm, CORE_ECOMM, fn, "%s is an intercommunicator",
                         core_comm_label(comm));
    int color = MPI_UNDEFINED;
    if (split_type == MPI_COMM_TYPE_SHARED || split_type == MPI_COMM_TYPE_HW_UNGUIDED ||
        split_type == MPI_COMM_TYPE_HW_GUIDED) {
        int rc = shared_color(comm, &color);
        if (rc)
            return api_error(comm, rc, fn, "exchanging the node of every process: %s",
                             core_strerror(rc));
    } else if (split_type != MPI_UNDEFINED) {
        return api_error(comm, CORE_EINVAL, fn, "unknown split type %d", split_type);
    }
    return split(comm, color, key, newcomm, fn);
}
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm) API_ALIAS(MPI_Comm_split_type);

/* Whether every member of group is in comm. */
static int is_subgroup(MPI_Group group, MPI_Comm comm)
{
    for (int i = 0; i < group->size; i++)
        if (core_group_rank_of(comm->group, group->ranks[i]) == MPI_UNDEFINED)
            return 0;
    return 1;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    API_ENTER;
    const char *fn = "MPI_Comm_create";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_group(group, fn));
    API_CHECK(api_check_ptr(comm, newcomm, "newcomm", fn));
    if (!is_subgroup(group, comm))
        return api_error(comm, CORE_EGROUP, fn, "the group is not a subset of the communicator");
    if (comm->remote) {
        int rc = api_intercomm_create(comm, group, newcomm);
        return rc ? api_error(comm, rc, fn, "%s", core_strerror(rc)) : MPI_SUCCESS;
    }
    return make_comm(comm, group, group->my_rank != MPI_UNDEFINED, newcomm, fn);
}
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) API_ALIAS(MPI_Comm_create);

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    API_ENTER;
    const char *fn = "MPI_Comm_create_group";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_tag(comm, tag, 0, fn));
    API_CHECK(api_check_group(group, fn));
    if (comm->remote)
        return api_error(comm, CORE_ECOMM, fn, "%s is an intercommunicator",
                         core_comm_label(comm));
    API_CHECK(api_check_ptr(comm, newcomm, "newcomm", fn));
    if (!is_subgroup(group, comm))
        return api_error(comm, CORE_EGROUP, fn, "the group is not a subset of the communicator");
    if (group->my_rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    uint32_t ctx;
    int rc = rt_ctx_alloc_group(comm, group, tag, &ctx);
    if (!rc)
        rc = core_comm_create(group, ctx, comm->errh, newcomm);
    if (rc)
        return api_error(comm, rc, fn, "%s", core_strerror(rc));
    return MPI_SUCCESS;
}
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
    API_ALIAS(MPI_Comm_create_group);

int PMPI_Comm_free(MPI_Comm *comm)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_free"));
    if (!comm)
        return api_error(MPI_COMM_NULL, CORE_ECOMM, "MPI_Comm_free", "NULL argument");
    API_CHECK(api_check_comm(*comm, "MPI_Comm_free"));
    if ((*comm)->predefined)
        return api_error(*comm, CORE_ECOMM, "MPI_Comm_free", "cannot free %s",
                         core_comm_label(*comm));
    /* a failing delete callback is reported, and the communicator freed all the same */
    int rc = api_attr_comm_delete_all(*comm, "MPI_Comm_free");
    core_comm_release(*comm);
    *comm = MPI_COMM_NULL;
    return rc;
}
int MPI_Comm_free(MPI_Comm *comm) API_ALIAS(MPI_Comm_free);

int PMPI_Comm_compare(MPI_Comm c1, MPI_Comm c2, int *result)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_compare"));
    API_CHECK(api_check_comm(c1, "MPI_Comm_compare"));
    API_CHECK(api_check_comm(c2, "MPI_Comm_compare"));
    API_CHECK(api_check_ptr(c1, result, "result", "MPI_Comm_compare"));
    if (c1 == c2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (c1->remote || c2->remote) {
        *result = api_intercomm_compare(c1, c2);
        return MPI_SUCCESS;
    }
    int g = core_group_compare(c1->group, c2->group);
    *result = g == MPI_IDENT ? MPI_CONGRUENT : g;
    return MPI_SUCCESS;
}
int MPI_Comm_compare(MPI_Comm c1, MPI_Comm c2, int *result) API_ALIAS(MPI_Comm_compare);

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_group"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_group"));
    API_CHECK(api_check_ptr(comm, group, "group", "MPI_Comm_group"));
    core_group_retain(comm->group);
    *group = comm->group;
    return MPI_SUCCESS;
}
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group) API_ALIAS(MPI_Comm_group);

int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_set_name"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_set_name"));
    API_CHECK(api_check_ptr(comm, name, "comm_name", "MPI_Comm_set_name"));
    strncpy(comm->name, name, MPI_MAX_OBJECT_NAME - 1);
    comm->name[MPI_MAX_OBJECT_NAME - 1] = '\0';
    return MPI_SUCCESS;
}
int MPI_Comm_set_name(MPI_Comm comm, const char *name) API_ALIAS(MPI_Comm_set_name);

int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_get_name"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_get_name"));
    API_CHECK(api_check_ptr(comm, name, "comm_name", "MPI_Comm_get_name"));
    API_CHECK(api_check_ptr(comm, resultlen, "resultlen", "MPI_Comm_get_name"));
    strcpy(name, comm->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
int MPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen) API_ALIAS(MPI_Comm_get_name);

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Comm_test_inter"));
    API_CHECK(api_check_comm(comm, "MPI_Comm_test_inter"));
    API_CHECK(api_check_ptr(comm, flag, "flag", "MPI_Comm_test_inter"));
    *flag = comm->remote != NULL;
    return MPI_SUCCESS;
}
int MPI_Comm_test_inter(MPI_Comm comm, int *flag) API_ALIAS(MPI_Comm_test_inter);
