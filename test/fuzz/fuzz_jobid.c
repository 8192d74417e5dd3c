/*
 * Fuzz target: the job record two intercommunicator leaders swap (the 260 bytes of
 * src/api/intercomm.c's remote_procs) and the hello MPI_Comm_join reads off the
 * application's socket (src/api/join.c), both decoded by src/core/jobid.c.
 *
 * Input: a flags byte (bit 0: decode as a join hello, else as a job record), then the
 * bytes, any length.
 * Properties: what decodes has a job name of 1..255 characters without '/', spaces or
 * control characters, a first uid (and rank) in 0..2^30-1, came from exactly the record's
 * length, and encodes back to the very same bytes (the encoding is canonical); what does
 * not decode says why.
 */
#include <string.h>
#include "fuzz.h"
#include "core/errors.h"
#include "core/jobid.h"

static void check_job(const core_jobid_t *j)
{
    size_t n = strnlen(j->nspace, sizeof(j->nspace));
    FUZZ_CHECK(n >= 1 && n < sizeof(j->nspace));
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK((unsigned char)j->nspace[i] > ' ' && j->nspace[i] != '/' &&
                   j->nspace[i] != 0x7f);
    FUZZ_CHECK(j->ubase >= 0 && j->ubase < (1 << 30));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *in = data + 1;
    size_t len = size - 1;
    const char *why = NULL;
    uint8_t again[CORE_JOIN_HELLO_LEN];
    if (data[0] & 1) {
        core_join_hello_t h;
        memset(&h, 0x5a, sizeof(h));
        int rc = core_join_hello_decode(in, len, &h, &why);
        FUZZ_CHECK(rc == 0 || (rc == CORE_EPROTO && why && *why));
        if (rc == 0) {
            FUZZ_CHECK(len == CORE_JOIN_HELLO_LEN);
            check_job(&h.job);
            FUZZ_CHECK(h.rank >= 0 && h.rank < (1 << 30));
            FUZZ_CHECK(core_join_hello_encode(again, &h) == 0);
            FUZZ_CHECK(!memcmp(again, in, CORE_JOIN_HELLO_LEN));
        }
    } else {
        core_jobid_t j;
        memset(&j, 0x5a, sizeof(j));
        int rc = core_jobid_decode(in, len, &j, &why);
        FUZZ_CHECK(rc == 0 || (rc == CORE_EPROTO && why && *why));
        if (rc == 0) {
            FUZZ_CHECK(len == CORE_JOBID_LEN);
            check_job(&j);
            FUZZ_CHECK(core_jobid_encode(again, &j) == 0);
            FUZZ_CHECK(!memcmp(again, in, CORE_JOBID_LEN));
        }
    }
    return 0;
}

#ifdef FUZZ_SEEDS
static void seed(const char *name, int hello, const uint8_t *p, size_t n)
{
    uint8_t buf[1 + CORE_JOIN_HELLO_LEN + 8];
    buf[0] = (uint8_t)hello;
    memcpy(buf + 1, p, n);
    fuzz_seed(name, buf, 1 + n);
}

void fuzz_make_seeds(void)
{
    uint8_t b[CORE_JOIN_HELLO_LEN + 4];
    core_jobid_t j = { "rdmpi-1234", 0 };
    core_jobid_encode(b, &j);
    seed("record", 0, b, CORE_JOBID_LEN);
    seed("record-short", 0, b, CORE_JOBID_LEN - 1);
    core_jobid_t s = { "rdmpi-1234-s2", 1073741823 };
    core_jobid_encode(b, &s);
    seed("record-spawned", 0, b, CORE_JOBID_LEN);
    b[CORE_JOBID_LEN - 1] = 'x'; /* a byte in the padding */
    seed("record-padding", 0, b, CORE_JOBID_LEN);
    memset(b, 0, sizeof(b));
    seed("record-zeros", 0, b, CORE_JOBID_LEN);
    core_join_hello_t h = { { "rdmpi-99", 4 }, 3, 0x0123456789abcdefull };
    core_join_hello_encode(b, &h);
    seed("hello", 1, b, CORE_JOIN_HELLO_LEN);
    seed("hello-long", 1, b, CORE_JOIN_HELLO_LEN + 4);
    b[8 + 3] = 0x40; /* rank 2^30 + 3 */
    seed("hello-rank", 1, b, CORE_JOIN_HELLO_LEN);
    memset(b, 'x', sizeof(b));
    seed("hello-garbage", 1, b, CORE_JOIN_HELLO_LEN);
}
#endif
