/*
 * Fuzz target: port names and connect requests (src/core/portname.c), which
 * come from users and, through the launcher's name service, from other jobs.
 *
 * Input: a flags byte (bit 0: parse as a request, else as a port name), then
 * the text (a NUL is added; embedded NULs end it early, as in C strings).
 * Properties: what parses has a job name of 1..255 characters without '/',
 * spaces or control characters and numbers in 0..2^30-1; formatting it again
 * gives text that parses to the same fields (and, when the input was in
 * canonical form, the same text).
 */
#include <string.h>
#include "fuzz.h"
#include "core/errors.h"
#include "core/portname.h"

static void check_fields(const core_port_t *p)
{
    size_t n = strlen(p->nspace);
    FUZZ_CHECK(n >= 1 && n < sizeof(p->nspace));
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK((unsigned char)p->nspace[i] > ' ' && p->nspace[i] != '/' &&
                   p->nspace[i] != 0x7f);
    FUZZ_CHECK(p->rank >= 0 && p->rank < (1 << 30) && p->ubase >= 0 && p->ubase < (1 << 30));
    FUZZ_CHECK(p->seq >= 0 && p->seq < (1 << 30));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int request = data[0] & 1;
    char *text = malloc(size);
    FUZZ_CHECK(text);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    core_port_t p, q;
    char again[1024];
    if (request ? core_port_request_parse(text, &p) == 0 : core_port_parse(text, &p) == 0) {
        check_fields(&p);
        int rc = request ? core_port_request_format(again, sizeof(again), &p)
                         : core_port_format(again, sizeof(again), &p);
        FUZZ_CHECK(rc == 0);
        rc = request ? core_port_request_parse(again, &q) : core_port_parse(again, &q);
        FUZZ_CHECK(rc == 0 && !strcmp(p.nspace, q.nspace) && p.rank == q.rank &&
                   p.ubase == q.ubase && p.seq == q.seq);
    }
    free(text);
    return 0;
}

#ifdef FUZZ_SEEDS
void fuzz_make_seeds(void)
{
    static const char *seeds[] = {
        "\0rdmpi-port/rdmpi-1234/0/0/0",
        "\0rdmpi-port/rdmpi-1234-s0/3/8/12",
        "\0rdmpi-port//0/0/0",
        "\0rdmpi-port/x/1073741823/0/1",
        "\0rdmpi-port/x/1073741824/0/1",
        "\1rdmpi-1234-s2 0 4",
        "\1rdmpi-1234 -1 4",
        "\1a 1 2 3",
    };
    char name[32];
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        snprintf(name, sizeof(name), "seed%zu", i);
        fuzz_seed(name, seeds[i], 1 + strlen(seeds[i] + 1));
    }
}
#endif
