/*
 * Node-aware (two-level) collectives, for communicators whose ranks share
 * nodes: the ranks of a node first meet at a node leader over the
 * node's shared memory, the leaders then run a flat algorithm among
 * themselves (one message per node pair instead of one per rank pair
 * across the network), and the leaders finally serve their node. Barrier,
 * broadcast, and reduce and allreduce for operations that commute (the
 * ranks of a node are not a contiguous run of ranks in general).
 *
 * The node layout of a communicator is computed once, locally and alike on
 * every rank, from the job map (the host of every rank, from the
 * bootstrap) and kept in comm->node_of: node_of[i] is the node of rank i
 * (nodes numbered by their lowest rank, in rank order), node_of[size]
 * the number of nodes and node_of[size + 1] whether the communicator is
 * crowded (coll_comm_crowded, which every collective call asks).
 * RDMPI_COLL_SIM_PPN=k pretends every k consecutive world ranks form a
 * node, to test these algorithms on one machine. The
 * rooted collectives make the root its node's leader, which saves a hop.
 */
#include <stdlib.h>
#include <string.h>
#include "collectives/coll_impl.h"
#include "core/procs.h"
#include "core/runtime.h"

static int on_my_node(int world)
{
    core_runtime_t *rt = core_rt;
    for (int i = 0; i < rt->local_size; i++)
        if (rt->local_ranks[i] == world)
            return 1;
    return 0;
}

static int same_node(MPI_Comm comm, int ppn, int local, int a, int b)
{
    if (local)
        return 1;
    int wa = core_comm_world_rank(comm, a), wb = core_comm_world_rank(comm, b);
    if (ppn > 0)
        return wa / ppn == wb / ppn;
    return !strcmp(core_rank_host(core_rt, wa), core_rank_host(core_rt, wb));
}

/* Whether comm, of nodes nodes, is crowded (coll_comm_crowded). The launcher says whether a
 * node is oversubscribed to each job on it: the ranks of one job on one node agree, those of
 * two jobs (spawned, connected) may not. */
static int crowded(MPI_Comm comm, int nodes)
{
    if (!core_rt->oversubscribed || nodes != 1)
        return 0;
    for (int i = 0; i < comm->size; i++)
        if (core_comm_world_rank(comm, i) >= core_rt->size)
            return 0;
    return 1;
}

/* comm->node_of, computed on first use (NULL when out of memory). */
static const int *comm_node_of(MPI_Comm comm)
{
    if (comm->node_of)
        return comm->node_of;
    int n = comm->size, ppn = coll_sim_ppn(), nn = 0;
    int *no = malloc(sizeof(int) * ((size_t)n + 2));
    int *first = malloc(sizeof(int) * (size_t)n);   /* first[k]: node k's lowest rank */
    if (!no || !first) {
        free(no);
        free(first);
        return NULL;
    }
    /* Processes of other runs (a communicator of accept/connect between runs): their hosts
     * are not known, and what each member could guess would differ between members, whose
     * layouts must agree: every rank counts as a node of its own (no two-level algorithm).
     * Every member of such a communicator sees one (the others' runs are foreign to it). */
    int foreign = 0;
    for (int i = 0; i < n && !foreign; i++)
        foreign = core_proc_foreign(core_rt, core_comm_world_rank(comm, i)) != NULL;
    if (foreign) {
        for (int i = 0; i < n; i++)
            no[i] = i;
        free(first);
        no[n] = n;
        no[n + 1] = 0;
        comm->node_of = no;
        return no;
    }
    /* All on this node (the common case) needs no look-up of hosts. */
    int local = ppn <= 0;
    for (int i = 0; i < n && local; i++)
        local = on_my_node(core_comm_world_rank(comm, i));
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < nn && !same_node(comm, ppn, local, first[k], i))
            k++;
        if (k == nn)
            first[nn++] = i;
        no[i] = k;
    }
    free(first);
    no[n] = nn;
    no[n + 1] = crowded(comm, nn);
    comm->node_of = no;
    return no;
}

void coll_comm_nodes(MPI_Comm comm, int *nodes, int *shared)
{
    const int *no = comm_node_of(comm);
    int n = comm->size;
    *nodes = no ? no[n] : 1;
    *shared = no ? no[n] < n : 1;
}

int coll_comm_crowded(MPI_Comm comm)
{
    const int *no = comm_node_of(comm);
    return no ? no[comm->size + 1] : 0;
}

typedef struct tl {
    coll_grp_t node;      /* the ranks of my node */
    coll_grp_t leaders;   /* one rank per node; me = -1 when not a leader */
    int lead;             /* my node's leader, as a member of node */
    int root_node;        /* the root's node (rooted collectives) */
} tl_t;

/* The two groups, with the root (>= 0) as its node's leader. */
static int make_groups(coll_sched_t *s, int root, tl_t *t)
{
    MPI_Comm comm = coll_sched_comm(s);
    int n = comm->size, r = comm->rank;
    const int *no = comm_node_of(comm);
    if (!no) {
        coll_sched_fail(s, CORE_ENOMEM);
        return -1;
    }
    int nn = no[n], mine = no[r];
    int *lead = coll_sched_alloc(s, sizeof(int) * (size_t)nn);
    int *members = coll_sched_alloc(s, sizeof(int) * (size_t)n);
    if (!lead || !members)
        return -1;
    for (int k = 0; k < nn; k++)
        lead[k] = -1;
    t->node.n = 0;
    for (int i = 0; i < n; i++) {
        if (lead[no[i]] < 0)
            lead[no[i]] = i;
        if (no[i] == mine) {
            if (i == r)
                t->node.me = t->node.n;
            members[t->node.n++] = i;
        }
    }
    t->root_node = root >= 0 ? no[root] : 0;
    if (root >= 0)
        lead[no[root]] = root;
    t->node.map = members;
    t->leaders = (coll_grp_t){ nn, lead[mine] == r ? mine : -1, lead };
    t->lead = 0;
    for (int j = 0; j < t->node.n; j++)
        if (members[j] == lead[mine])
            t->lead = j;
    return 0;
}

void coll_barrier_two_level(coll_sched_t *s)
{
    tl_t t;
    if (make_groups(s, -1, &t))
        return;
    int leader = t.leaders.me >= 0;
    for (int j = 0; j < t.node.n; j++) {
        if (leader && j != t.lead)
            coll_sched_recv(s, NULL, 0, MPI_BYTE, grp_peer(&t.node, j));
    }
    if (!leader)
        coll_sched_send(s, NULL, 0, MPI_BYTE, grp_peer(&t.node, t.lead));
    coll_sched_fence(s);
    if (leader)
        coll_build_barrier(s, &t.leaders);
    for (int j = 0; j < t.node.n; j++) {
        if (leader && j != t.lead)
            coll_sched_send(s, NULL, 0, MPI_BYTE, grp_peer(&t.node, j));
    }
    if (!leader)
        coll_sched_recv(s, NULL, 0, MPI_BYTE, grp_peer(&t.node, t.lead));
    coll_sched_fence(s);
}

void coll_bcast_two_level(coll_sched_t *s, void *buf, int count, MPI_Datatype dt, int root)
{
    tl_t t;
    if (make_groups(s, root, &t))
        return;
    if (t.leaders.me >= 0)
        coll_build_bcast(s, &t.leaders, buf, count, dt, t.root_node);
    coll_build_bcast(s, &t.node, buf, count, dt, t.lead);
}

void coll_reduce_two_level(coll_sched_t *s, const void *sbuf, void *rbuf, int count,
                           MPI_Datatype dt, MPI_Op op, int root)
{
    tl_t t;
    if (make_groups(s, root, &t))
        return;
    MPI_Comm comm = coll_sched_comm(s);
    int leader = t.leaders.me >= 0, is_root = comm->rank == root;
    /* Leaders other than the root reduce their node into scratch. */
    void *part = is_root ? rbuf : leader ? coll_sched_tmp(s, (size_t)count, dt) : NULL;
    coll_build_reduce(s, &t.node, sbuf, part, count, dt, op, t.lead);
    if (leader)
        coll_build_reduce(s, &t.leaders, is_root ? MPI_IN_PLACE : part, rbuf, count, dt, op,
                          t.root_node);
}

void coll_allreduce_two_level(coll_sched_t *s, const void *sbuf, void *rbuf, int count,
                              MPI_Datatype dt, MPI_Op op)
{
    tl_t t;
    if (make_groups(s, -1, &t))
        return;
    coll_build_reduce(s, &t.node, sbuf, rbuf, count, dt, op, t.lead);
    if (t.leaders.me >= 0)
        coll_build_allreduce(s, &t.leaders, MPI_IN_PLACE, rbuf, count, dt, op);
    coll_build_bcast(s, &t.node, rbuf, count, dt, t.lead);
}
