/*
 * A job's identity as bytes two processes of different jobs swap before they can address
 * each other: the record the two leaders of an intercommunicator creation exchange
 * (src/api/intercomm.c), and the hello both sides of MPI_Comm_join write on the user's
 * socket (src/api/join.c). Both come from another process, possibly of another job or
 * from whatever is at the other end of a socket: decoded with every field checked.
 *
 *   job record (CORE_JOBID_LEN bytes): first uid (u32, little endian, below 2^30), then
 *     the job name (1..255 characters without '/', spaces or control characters, as in a
 *     port name) padded with NULs to 256 bytes
 *   join hello (CORE_JOIN_HELLO_LEN bytes): the 8 bytes "rdmpiJ3\n", the rank in that job
 *     (u32, little endian, below 2^30), the run id of its rdmpirun (u64, little endian, any
 *     value: core_run_id), then a job record (J3: a join ends with one byte each way,
 *     api/join.c; J2 had none, so the two cannot meet)
 *
 * Encodings are canonical (padding all NULs), so decoding then encoding gives the same
 * bytes.
 */
#ifndef RDMPI_CORE_JOBID_H
#define RDMPI_CORE_JOBID_H

#include <stddef.h>
#include <stdint.h>

#define CORE_JOBID_LEN 260
#define CORE_JOIN_MAGIC "rdmpiJ3\n"
#define CORE_JOIN_HELLO_LEN (8 + 4 + 8 + CORE_JOBID_LEN)

typedef struct core_jobid {
    char nspace[256];
    int ubase;   /* the uid of its rank 0 (core/procs.h) */
} core_jobid_t;

typedef struct core_join_hello {
    core_jobid_t job;
    int rank;
    uint64_t run;   /* the run id (core_run_id): jobs of one rdmpirun share it */
} core_join_hello_t;

/* 0, or CORE_EINVAL when id is not a valid identity (nothing written then). */
int core_jobid_encode(uint8_t out[CORE_JOBID_LEN], const core_jobid_t *id);
/* 0, or CORE_EPROTO with *why (a constant string) saying what is wrong; *out is set only
 * on success. */
int core_jobid_decode(const uint8_t *buf, size_t len, core_jobid_t *out, const char **why);
int core_join_hello_encode(uint8_t out[CORE_JOIN_HELLO_LEN], const core_join_hello_t *h);
int core_join_hello_decode(const uint8_t *buf, size_t len, core_join_hello_t *out,
                           const char **why);

#endif
