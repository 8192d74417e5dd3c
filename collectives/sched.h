/*
 * The schedule engine that runs every collective, blocking or not.
 *
 * An algorithm does not communicate: it builds a schedule, a list of rounds
 * of steps (send, receive, local reduction, local copy, or a local call).
 * Steps of a round start in the order they were added: sends and receives
 * are posted, local steps run when reached, so a round may copy into a
 * buffer and then send it. A round is complete when all its sends and
 * receives are; then the next round starts. coll_sched_fence() ends a round.
 *
 * The engine advances schedules from core_progress (a progress hook), so a
 * nonblocking collective moves on inside any MPI call (Test, Wait, Iprobe,
 * another collective...), and a blocking collective is start + wait. Every
 * message of a schedule carries one tag made of the communicator's
 * collective sequence number and the collective's id, plus a per-step
 * sub-tag; the sequence number keeps concurrent collectives on one
 * communicator apart, the id makes a mismatched call sequence stall instead
 * of pairing the data of two different collectives.
 *
 * Building never fails half-way for the caller: an allocation failure is
 * remembered in the schedule (steps added afterwards are ignored) and
 * reported by coll_sched_start/coll_sched_run. Scratch memory comes from
 * coll_sched_alloc/coll_sched_tmp and lives as long as the schedule.
 */
#ifndef RDMPI_COLL_SCHED_H
#define RDMPI_COLL_SCHED_H

#include <stddef.h>
#include "mpi.h"

typedef struct coll_sched coll_sched_t;

/* Tag layout: 13 bits of sequence number, 5 of collective id, 13 of sub-tag
 * (non-negative: negative tags on the collective context belong to
 * rt_ctx_alloc_group). */
#define COLL_SUBTAG_BITS 13
#define COLL_SUBTAG_MAX ((1 << COLL_SUBTAG_BITS) - 1)

/* A schedule for collective `id` (enum coll_id) on comm; takes the next
 * collective sequence number of comm. Returns NULL when out of memory. */
coll_sched_t *coll_sched_create(MPI_Comm comm, int id);
/* Takes the next collective sequence number of comm and returns the tag
 * (sub-tag 0) of collective `id` with it: what coll_sched_create does, for
 * the blocking fast paths (fast.c), which send the same messages without a
 * schedule. */
int coll_sched_tag(MPI_Comm comm, int id);
/* Scratch memory from the schedules' cache of blocks, for code that runs
 * without a schedule: *bytes is rounded up to what the block holds; give it
 * back with that size. NULL when out of memory. */
void *coll_scratch_get(size_t *bytes);
void coll_scratch_put(void *p, size_t bytes);
/* Frees a schedule that was never started. */
void coll_sched_destroy(coll_sched_t *s);

/* The communicator the steps added now address: the schedule's, or after
 * coll_sched_use(s, comm->local) an intercommunicator's local one, so the
 * intracommunicator algorithms build its local phases (with a tag of the
 * local communicator's own sequence). */
MPI_Comm coll_sched_comm(const coll_sched_t *s);
void coll_sched_use(coll_sched_t *s, MPI_Comm comm);
/* A failure while building (0 if none). */
int coll_sched_error(const coll_sched_t *s);
void coll_sched_fail(coll_sched_t *s, int rc);

/* Keeps a user object alive until the schedule ends (MPI lets the user
 * free datatypes and operations while a nonblocking collective runs). */
void coll_sched_hold_dt(coll_sched_t *s, MPI_Datatype dt);
void coll_sched_hold_op(coll_sched_t *s, MPI_Op op);

/* Sends/receives count items of dt to/from communicator rank peer. */
void coll_sched_send(coll_sched_t *s, const void *buf, size_t count, MPI_Datatype dt, int peer);
void coll_sched_recv(coll_sched_t *s, void *buf, size_t count, MPI_Datatype dt, int peer);
/* The same with a sub-tag (0..COLL_SUBTAG_MAX): messages between the same
 * two ranks in one round pair up by sub-tag instead of by posting order. */
void coll_sched_send_sub(coll_sched_t *s, const void *buf, size_t count, MPI_Datatype dt, int peer,
                         int sub);
void coll_sched_recv_sub(coll_sched_t *s, void *buf, size_t count, MPI_Datatype dt, int peer,
                         int sub);
/* inout = in op inout over count items of dt (native layout). */
void coll_sched_reduce(coll_sched_t *s, const void *in, void *inout, size_t count, MPI_Datatype dt,
                       MPI_Op op);
/* Copies scount items of sdt to rcount items of rdt (see coll_copy). */
void coll_sched_copy(coll_sched_t *s, const void *src, size_t scount, MPI_Datatype sdt, void *dst,
                     size_t rcount, MPI_Datatype rdt);
/* Runs fn(arg) as a local step; a nonzero return fails the collective. */
void coll_sched_call(coll_sched_t *s, int (*fn)(void *arg), void *arg);
/* Ends the current round (nothing happens for an empty round). */
void coll_sched_fence(coll_sched_t *s);

/* bytes of scratch memory (NULL for 0 bytes or when out of memory). */
void *coll_sched_alloc(coll_sched_t *s, size_t bytes);
/* Scratch for count items of dt in their native layout (extents, holes,
 * lower bound): the result is where item 0 starts. */
void *coll_sched_tmp(coll_sched_t *s, size_t count, MPI_Datatype dt);

/* Starts the schedule (takes ownership) and returns a request that
 * completes with it (kind CORE_REQ_COLL). */
int coll_sched_start(coll_sched_t *s, MPI_Request *req);
/* Runs the schedule to completion (takes ownership): a blocking collective. */
int coll_sched_run(coll_sched_t *s);

/* Registers the progress hook (coll_init) and checks nothing is left (coll_fini). */
void coll_sched_init(void);
void coll_sched_fini(void);

#endif
