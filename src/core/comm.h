/*
 * Communicators and error handlers.
 * A communicator is a group, a context id and an error handler. Point-to-
 * point traffic uses ctx; collectives use ctx + 1, so the two never match.
 * An intercommunicator also has a remote group: the ranks its point-to-point
 * calls address (core_comm_peers), and a hidden intracommunicator over the
 * local group for the local phases of its collectives (core/intercomm.c).
 */
#ifndef RDMPI_CORE_COMM_H
#define RDMPI_CORE_COMM_H

#include <stdint.h>
#include "mpi.h"
#include "core/attr.h"
#include "core/group.h"
#include "core/runtime.h"

enum { CORE_ERRH_FATAL = 0, CORE_ERRH_RETURN, CORE_ERRH_ABORT, CORE_ERRH_USER };
/* The object an error handler is called for (obj points to its C handle). */
enum { CORE_ERRH_COMM = 0, CORE_ERRH_WIN, CORE_ERRH_FILE };

/* How to call a handler written in another language (the Fortran bindings register one:
 * the handler takes the object's Fortran handle); the layer that raises errors cannot know
 * these forms, so it calls through this pointer. */
typedef void core_errh_call_fn(void (*fn)(void), int obj_kind, void *obj, int *code);

struct rdmpi_errhandler {
    int refcount;
    int predefined;
    int kind;                          /* CORE_ERRH_* */
    MPI_Comm_errhandler_function *fn;  /* CORE_ERRH_USER */
    core_errh_call_fn *call;           /* NULL: fn is a C handler; else how to call fn */
};

#define CORE_CTX_MAX_P2P CORE_CTX_MAX
/* Reserved in every process of every job: the two-process communicators on which the
 * leaders of a spawn or connect/accept meet before any id is agreed (api/dynamic.c). */
#define CORE_CTX_DYN 4

struct rdmpi_comm {
    int refcount;
    int predefined;       /* WORLD and SELF: not freed by the user */
    uint32_t ctx;         /* even; ctx + 1 is the collective context */
    int rank, size;
    MPI_Group group;      /* rank r is world rank group->ranks[r] */
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    char label[48];       /* core_comm_label's text when unnamed */
    uint32_t coll_seq;    /* counts collectives, for debugging and schedules */
    uint32_t ctx_seq;     /* counts context agreements over this communicator (rt/ctx.c) */
    int *node_of;         /* node index of each rank (lazy, for split_type/collectives) */
    struct core_topo *topo;   /* MPI_Cart_create, MPI_Dist_graph_create*: core/topo.h */
    core_attr_t *attrs;       /* cached attributes (their callbacks run in the API layer) */
    unsigned hints;           /* info hints kept (MPI_Comm_set_info; src/api/comm_info.c) */
    MPI_Group remote;         /* intercommunicator: the remote group (NULL: intracommunicator) */
    struct rdmpi_comm *local; /* intercommunicator: intracommunicator over group, used only by
                               * the intercommunicator's collectives and management calls */
};

static inline int core_comm_is_inter(MPI_Comm comm)
{
    return comm->remote != NULL;
}
/* The group point-to-point ranks of comm name: the remote group of an intercommunicator. */
static inline MPI_Group core_comm_peers(MPI_Comm comm)
{
    return comm->remote ? comm->remote : comm->group;
}
static inline int core_comm_peer_size(MPI_Comm comm)
{
    return core_comm_peers(comm)->size;
}
/* The world rank of destination/source rank `rank` of comm. */
static inline int core_comm_peer_world(MPI_Comm comm, int rank)
{
    return core_comm_peers(comm)->ranks[rank];
}

/* Builds a communicator over group (retained) with context id ctx. */
int core_comm_create(MPI_Group group, uint32_t ctx, MPI_Errhandler errh, MPI_Comm *out);
/* Takes one more reference on comm (a persistent request, a schedule, a pending operation):
 * core_comm_release drops it. */
void core_comm_retain(MPI_Comm comm);
void core_comm_release(MPI_Comm comm);
static inline int core_comm_world_rank(MPI_Comm comm, int rank)
{
    return comm->group->ranks[rank];
}
/* This process's context ids (the mask in the base instance, core_runtime_t.ctx_free):
 * marks ctx's pair used (world/self at init; an agreed id) or free again (a communicator
 * released). The agreement on a new id among members runs above p2p: rt/ctx.c. */
void core_ctx_reserve(uint32_t ctx);
void core_ctx_free(uint32_t ctx);

struct core_runtime;
/* MPI_COMM_WORLD and MPI_COMM_SELF, built at init. */
int core_comm_init_predefined(struct core_runtime *rt);
void core_comm_fini_predefined(void);

/* A user error handler (MPI_Comm_create_errhandler) with one reference. */
int core_errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *out);
/* Makes e's handler be called through call (see core_errh_call_fn). */
void core_errhandler_set_call(MPI_Errhandler e, core_errh_call_fn *call);
void core_errhandler_retain(MPI_Errhandler e);
void core_errhandler_release(MPI_Errhandler e);

/* A printable name for diagnostics: the user's name or "comm ctx=N". */
const char *core_comm_label(MPI_Comm comm);

#endif
