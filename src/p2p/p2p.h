/*
 * Point-to-point: MPI matching and the eager/rendezvous protocols over the
 * transport interface. Ranks here are communicator ranks; ctx selects the
 * matching context (comm->ctx for user traffic, comm->ctx + 1 for
 * collectives).
 */
#ifndef RDMPI_P2P_H
#define RDMPI_P2P_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "core/request.h"
#include "core/runtime.h"
#include "transports/transport.h"

/* The settings (p2p_config.c). */
enum { P2P_RNDV_READ = 0, P2P_RNDV_WRITE, P2P_RNDV_PIPELINED };
typedef struct p2p_config {
    int rndv_proto;             /* RDMPI_RNDV_PROTO: P2P_RNDV_READ, _WRITE, _PIPELINED */
    size_t rndv_frag_size;      /* RDMPI_RNDV_FRAG_SIZE: pipelined rendezvous chunk */
} p2p_config_t;
extern const core_config_group_t p2p_config_group;

/* What p2p counts (MPI_T performance variables read them with p2p_counters_read). Messages
 * are those of the user and of the collectives alike: every send started, every message
 * that arrived (matched or not), the unexpected ones waiting for their receive. */
/* Only uint64_t fields: they are read one by one with relaxed atomics (core/count.h). */
typedef struct p2p_counters {
    uint64_t sent, sent_bytes;                      /* sent: not counted, the sum of */
    uint64_t eager, rndv_get, rndv_put, rndv_pipe;  /* the sends, by protocol */
    uint64_t arrived, arrived_bytes;
    uint64_t unexp_now, unexp_max;
} p2p_counters_t;
void p2p_counters_read(p2p_counters_t *out);

int p2p_init(core_runtime_t *rt, tp_layer_t *tp);
/* Completes every queued send (MPI_Finalize calls this before closing transports). */
int p2p_drain(void);
void p2p_fini(void);

/* Starts a send; *req is a new request (kind CORE_REQ_SEND). */
int p2p_isend(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              uint32_t ctx, int mode, MPI_Request *req);
/* Blocking send: no request is allocated when the message leaves at once. */
int p2p_send(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
             uint32_t ctx, int mode, const char *fn);
/* A standard send only if it leaves at once without a request (eager, contiguous, the
 * transport takes it now): 0 when sent, 1 when nothing was sent (send another way), or an
 * error. Lets a caller send before it posts its receive from the same peer (a collective's
 * exchange: the partner's wait ends one receive-posting earlier) without the risk of two
 * blocking rendezvous sends waiting for receives neither side has posted. */
int p2p_send_eager(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, uint32_t ctx);
/* Whether receives on ctx were posted outside G already (its arrivals take the matching lock
 * M): MPI_Recv posts outside G only then, since posting there is what makes every later
 * arrival take M. */
int p2p_ctx_outside(uint32_t ctx);
int p2p_irecv(void *buf, size_t count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              uint32_t ctx, MPI_Request *req);
/* Starts an inactive persistent request prepared by the API layer. */
int p2p_start(MPI_Request req);

/* Looks for a matching unexpected message. With msg != NULL the message is
 * taken out of matching (MPI_Improbe) and returned as *msg. */
int p2p_iprobe(int src, int tag, MPI_Comm comm, uint32_t ctx, int *flag, MPI_Status *st,
               struct p2p_unexp **msg);
/* Whether nothing can come any more from src (a rank of comm's peers, or MPI_ANY_SOURCE:
 * every peer) on ctx: it is a process of another job that has left (finalized or died). A
 * probe that found nothing fails then instead of waiting forever. Connects to such a
 * process first (user contexts), so that its leaving is noticed. */
int p2p_src_lost(MPI_Comm comm, uint32_t ctx, int src);
/* Receives a message taken by p2p_iprobe(..., msg). */
int p2p_imrecv(void *buf, size_t count, MPI_Datatype dt, MPI_Comm comm, struct p2p_unexp *msg,
               MPI_Request *req);
/* Cancels a receive that has not matched, or a send whose message no receive has taken
 * (cancel.c: one that reached the receiver completes once the receiver answered). A send
 * that matched already completes as usual, with MPI_Test_cancelled false. */
int p2p_cancel(MPI_Request req);

#endif
