/*
 * Job records and join hellos (core/jobid.h).
 */
#include <string.h>
#include "core/errors.h"
#include "core/jobid.h"
#include "core/portname.h"

#define NUM_MAX (1u << 30)

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int core_jobid_encode(uint8_t out[CORE_JOBID_LEN], const core_jobid_t *id)
{
    if (!memchr(id->nspace, '\0', sizeof(id->nspace)) || !core_port_job_valid(id->nspace) ||
        id->ubase < 0 || (uint32_t)id->ubase >= NUM_MAX)
        return CORE_EINVAL;
    memset(out, 0, CORE_JOBID_LEN);
    put_u32(out, (uint32_t)id->ubase);
    memcpy(out + 4, id->nspace, strlen(id->nspace));
    return 0;
}

int core_jobid_decode(const uint8_t *buf, size_t len, core_jobid_t *out, const char **why)
{
    const size_t nlen = CORE_JOBID_LEN - 4;
    if (len != CORE_JOBID_LEN) {
        *why = "a job record of the wrong length";
        return CORE_EPROTO;
    }
    uint32_t ubase = get_u32(buf);
    if (ubase >= NUM_MAX) {
        *why = "a first uid out of range";
        return CORE_EPROTO;
    }
    const uint8_t *name = buf + 4, *end = memchr(name, '\0', nlen);
    if (!end) {
        *why = "a job name without its end";
        return CORE_EPROTO;
    }
    for (const uint8_t *p = end; p < name + nlen; p++)
        if (*p) {
            *why = "bytes after the job name";
            return CORE_EPROTO;
        }
    core_jobid_t id;
    memcpy(id.nspace, name, (size_t)(end - name) + 1);
    if (!core_port_job_valid(id.nspace)) {
        *why = "an empty job name or one with characters no job name has";
        return CORE_EPROTO;
    }
    id.ubase = (int)ubase;
    *out = id;
    return 0;
}

int core_join_hello_encode(uint8_t out[CORE_JOIN_HELLO_LEN], const core_join_hello_t *h)
{
    if (h->rank < 0 || (uint32_t)h->rank >= NUM_MAX)
        return CORE_EINVAL;
    int rc = core_jobid_encode(out + 20, &h->job);
    if (rc)
        return rc;
    memcpy(out, CORE_JOIN_MAGIC, 8);
    put_u32(out + 8, (uint32_t)h->rank);
    put_u32(out + 12, (uint32_t)h->run);
    put_u32(out + 16, (uint32_t)(h->run >> 32));
    return 0;
}

int core_join_hello_decode(const uint8_t *buf, size_t len, core_join_hello_t *out,
                           const char **why)
{
    if (len != CORE_JOIN_HELLO_LEN) {
        *why = "a hello of the wrong length";
        return CORE_EPROTO;
    }
    if (memcmp(buf, CORE_JOIN_MAGIC, 8)) {
        *why = "no rdmpi join hello (another program, or another version, at the other end)";
        return CORE_EPROTO;
    }
    uint32_t rank = get_u32(buf + 8);
    if (rank >= NUM_MAX) {
        *why = "a rank out of range";
        return CORE_EPROTO;
    }
    core_join_hello_t h;
    int rc = core_jobid_decode(buf + 20, CORE_JOBID_LEN, &h.job, why);
    if (rc)
        return rc;
    h.rank = (int)rank;
    h.run = (uint64_t)get_u32(buf + 12) | (uint64_t)get_u32(buf + 16) << 32;
    *out = h;
    return 0;
}
