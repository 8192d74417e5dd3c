/*
 * Buffered sends. MPI_Buffer_attach hands rdmpi a buffer; each buffered send
 * packs its message into a block of it and sends from there, so the call
 * returns at once. Blocks are reclaimed when their send completes;
 * MPI_Buffer_detach waits for all of them.
 */
#include <string.h>
#include <stdlib.h>
#include "api/api.h"
#include "core/datatype.h"
#include "core/progress.h"
#include "p2p/p2p.h"

typedef struct bsend_block {
    struct bsend_block *next;   /* in offset order */
    size_t off, len;
    MPI_Request req;
} bsend_block_t;

#define B (core_rt->api)

/* Frees the B->blocks whose sends completed. */
static void reclaim(void)
{
    bsend_block_t **pp = &B->blocks;
    while (*pp) {
        bsend_block_t *b = *pp;
        if (b->req->complete) {
            *pp = b->next;
            core_req_free(b->req);
            free(b);
        } else {
            pp = &b->next;
        }
    }
}

/* First fit: the offset of a free run of len bytes, or -1. */
static long find_space(size_t len, bsend_block_t ***link)
{
    size_t at = 0;
    bsend_block_t **pp = &B->blocks;
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->off - at >= len) {
            *link = pp;
            return (long)at;
        }
        at = (*pp)->off + (*pp)->len;
    }
    if (B->bsize - at >= len) {
        *link = pp;
        return (long)at;
    }
    return -1;
}

int api_bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              const char *fn)
{
    size_t len = (size_t)count * dt->size;
    /* Exactly what MPI promises is enough: packed size + MPI_BSEND_OVERHEAD. */
    size_t need = len + MPI_BSEND_OVERHEAD;
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    bsend_block_t **link;
    core_progress();
    reclaim();
    long off = find_space(need, &link);
    if (off < 0)
        return api_error(comm, CORE_EBUFFER, fn,
                         "the attached buffer (%zu bytes) has no room for a %zu-byte message "
                         "(MPI_Buffer_attach a larger buffer; each message also takes %d bytes "
                         "of overhead)", B->bsize, len, MPI_BSEND_OVERHEAD);
    bsend_block_t *b = malloc(sizeof(*b));
    if (!b)
        return api_error(comm, CORE_ENOMEM, fn, "out of memory");
    b->off = (size_t)off;
    b->len = need;
    core_dt_pack(B->bbuf + off, buf, (size_t)count, dt);
    int rc = p2p_isend(B->bbuf + off, len, MPI_BYTE, dest, tag, comm, comm->ctx,
                       CORE_MODE_STANDARD, &b->req);
    if (rc) {
        free(b);
        return api_error(comm, rc, fn, "%s", core_strerror(rc));
    }
    b->next = *link;
    *link = b;
    return MPI_SUCCESS;
}

static int check(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                 const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_buf(comm, buf, count, dt, fn));
    API_CHECK(api_check_rank(comm, dest, 0, fn));
    API_CHECK(api_check_tag(comm, tag, 0, fn));
    return 0;
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    API_ENTER;
    API_CHECK(check(buf, count, dt, dest, tag, comm, "MPI_Bsend"));
    return api_bsend(buf, count, dt, dest, tag, comm, "MPI_Bsend");
}
int MPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
    API_ALIAS(MPI_Bsend);

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *req)
{
    API_ENTER;
    API_CHECK(check(buf, count, dt, dest, tag, comm, "MPI_Ibsend"));
    if (!req)
        return api_error(comm, CORE_EREQUEST, "MPI_Ibsend", "the request argument is NULL");
    int rc = api_bsend(buf, count, dt, dest, tag, comm, "MPI_Ibsend");
    if (rc != MPI_SUCCESS)
        return rc;
    /* The data is in the attached buffer: the user's request is complete. */
    MPI_Request r = core_req_alloc(CORE_REQ_SEND);
    if (!r)
        return api_error(comm, CORE_ENOMEM, "MPI_Ibsend", "out of memory");
    r->comm = comm;
    r->status.MPI_ERROR = MPI_SUCCESS;
    core_req_complete(r);
    *req = r;
    return MPI_SUCCESS;
}
int MPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req) API_ALIAS(MPI_Ibsend);

int PMPI_Buffer_attach(void *buffer, int size)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Buffer_attach"));
    if (B->bbuf)
        return api_error(MPI_COMM_NULL, CORE_EBUFFER, "MPI_Buffer_attach",
                         "a buffer is already attached (MPI_Buffer_detach it first)");
    if (size < 0 || (!buffer && size > 0))
        return api_error(MPI_COMM_NULL, CORE_EBUFFER, "MPI_Buffer_attach",
                         "invalid buffer (%p, %d bytes)", buffer, size);
    B->bbuf = buffer;
    B->bsize = (size_t)size;
    return MPI_SUCCESS;
}
int MPI_Buffer_attach(void *buffer, int size) API_ALIAS(MPI_Buffer_attach);

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Buffer_detach"));
    if (!buffer_addr || !size)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Buffer_detach",
                         "buffer_addr or size is NULL");
    core_wait_ctx_t w;
    core_wait_begin(&w, "MPI_Buffer_detach", NULL);
    for (reclaim(); B->blocks; reclaim())
        core_wait_idle(&w, core_progress());
    core_wait_end(&w);
    *(void **)buffer_addr = B->bbuf;
    *size = (int)B->bsize;
    B->bbuf = NULL;
    B->bsize = 0;
    return MPI_SUCCESS;
}
int MPI_Buffer_detach(void *buffer_addr, int *size) API_ALIAS(MPI_Buffer_detach);
