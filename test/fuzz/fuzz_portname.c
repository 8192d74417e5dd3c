/*
 * Fuzz target: port names and connect requests (src/core/portname.c), which
 * come from users and, through the launcher's name service, from other jobs.
 *
 * Input: a flags byte (bit 0: parse as a request, else as a port name), then
 * the text (a NUL is added; embedded NULs end it early, as in C strings).
 * Properties: what parses has a job name of 1..255 characters without '/',
 * spaces or control characters and numbers in 0..2^30-1; formatting it again
 * gives text that parses to the same fields (run id, address and port key included) and,
 * for a port name, the same text but for leading zeros of numbers (the run id
 * and key are fixed-length lowercase hex: one spelling).
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
        if (!request) {
            FUZZ_CHECK(p.run == q.run && !memcmp(p.key, q.key, sizeof(p.key)));
            FUZZ_CHECK(!memcmp(p.ip, q.ip, sizeof(p.ip)) && p.tport == q.tport);
            FUZZ_CHECK(p.tport >= 1 && p.tport <= 65535);
            /* only a number's leading zeros can be dropped: no longer, and the same text
             * when nothing was dropped */
            FUZZ_CHECK(strlen(again) <= strlen(text));
            if (strlen(again) == strlen(text))
                FUZZ_CHECK(!strcmp(again, text));
        }
    }
    free(text);
    return 0;
}

#ifdef FUZZ_SEEDS
void fuzz_make_seeds(void)
{
    static const char *seeds[] = {
        "\0rdmpi-port3/0123456789abcdef/rdmpi-1234/0/0/0/127.0.0.1:4711/"
        "a98c7985b07ef3132ab428eeb0886adf29500b2ddf3c8acbd008ac6f1d0eb441",
        "\0rdmpi-port3/ffffffffffffffff/rdmpi-1234-s0/3/8/12/10.0.0.255:65535/"
        "0000000000000000000000000000000000000000000000000000000000000000",
        "\0rdmpi-port3/0123456789ABCDEF/x/0/0/0/1.2.3.4:1/"
        "a98c7985b07ef3132ab428eeb0886adf29500b2ddf3c8acbd008ac6f1d0eb441",
        "\0rdmpi-port3/0123456789abcdef//0/0/0/1.2.3.4:1/"
        "a98c7985b07ef3132ab428eeb0886adf29500b2ddf3c8acbd008ac6f1d0eb441",
        "\0rdmpi-port3/0123456789abcdef/x/1073741823/0/1/256.0.0.1:5/"
        "a98c7985b07ef3132ab428eeb0886adf29500b2ddf3c8acbd008ac6f1d0eb44",
        "\0rdmpi-port3/0123456789abcdef/x/1073741824/0/1/1.2.3.4:0/"
        "a98c7985b07ef3132ab428eeb0886adf29500b2ddf3c8acbd008ac6f1d0eb441",
        "\0rdmpi-port3/0123456789abcde/x/1/0/1/1.2.3:65536/"
        "a98c7985b07ef3132ab428eeb0886adf29500b2ddf3c8acbd008ac6f1d0eb4411",
        "\0rdmpi-port/rdmpi-1234/0/0/0",
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
