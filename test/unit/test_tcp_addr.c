/*
 * Unit test of the tcp transport's address handling (transports/tcp/tcp_addr.c):
 * CIDR and "ip:port" parsing, and RDMPI_TCP_IF selection against this
 * machine's interfaces (loopback is always there).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "core/log.h"
#include "transports/tcp/tcp.h"

static int failures;

#define CHECK(cond, ...)                            \
    do {                                            \
        if (!(cond)) {                              \
            printf("FAIL: unit/tcp_addr ");         \
            printf(__VA_ARGS__);                    \
            printf("\n");                           \
            failures++;                             \
        }                                           \
    } while (0)

static void test_cidr(void)
{
    static const struct {
        const char *s;
        int ok;
        const char *net;
        int bits;
    } cases[] = {
        { "10.1.2.3/8", 1, "10.0.0.0", 8 },     { "192.168.1.77/24", 1, "192.168.1.0", 24 },
        { "127.0.0.1", 1, "127.0.0.1", 32 },    { "0.0.0.0/0", 1, "0.0.0.0", 0 },
        { "1.2.3.4/32", 1, "1.2.3.4", 32 },     { "1.2.3.4/33", 0, NULL, 0 },
        { "1.2.3.4/", 0, NULL, 0 },             { "1.2.3/8", 0, NULL, 0 },
        { "eth0", 0, NULL, 0 },                 { "", 0, NULL, 0 },
        { "/8", 0, NULL, 0 },                   { "10.0.0.0/8x", 0, NULL, 0 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint32_t net, mask;
        int rc = tp_tcp_parse_cidr(cases[i].s, &net, &mask);
        CHECK((rc == 0) == cases[i].ok, "parse_cidr(\"%s\") returned %d", cases[i].s, rc);
        if (rc || !cases[i].ok)
            continue;
        struct in_addr want;
        inet_pton(AF_INET, cases[i].net, &want);
        uint32_t want_mask = cases[i].bits ? htonl(~0u << (32 - cases[i].bits)) : 0;
        CHECK(net == want.s_addr && mask == want_mask, "parse_cidr(\"%s\"): wrong net or mask",
              cases[i].s);
    }
}

static void test_hostport(void)
{
    struct sockaddr_in sa;
    CHECK(tp_tcp_parse_hostport("10.0.0.5:4242", &sa) == 0 && ntohs(sa.sin_port) == 4242 &&
              sa.sin_addr.s_addr == htonl(0x0a000005),
          "parse_hostport(10.0.0.5:4242)");
    static const char *bad[] = { "10.0.0.5", "10.0.0.5:", ":80", "10.0.0.5:0", "10.0.0.5:65536",
                                 "10.0.0.5:80x", "host:80", "" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(tp_tcp_parse_hostport(bad[i], &sa) != 0, "parse_hostport(\"%s\") accepted", bad[i]);
}

static void test_pick(void)
{
    struct in_addr a;
    char name[64];
    CHECK(tp_tcp_pick_addr("lo", &a, name, sizeof(name)) == 0 &&
              ntohl(a.s_addr) >> 24 == 127 && !strcmp(name, "lo"),
          "RDMPI_TCP_IF=lo");
    CHECK(tp_tcp_pick_addr("127.0.0.0/8", &a, name, sizeof(name)) == 0 &&
              ntohl(a.s_addr) >> 24 == 127,
          "RDMPI_TCP_IF=127.0.0.0/8");
    CHECK(tp_tcp_pick_addr("no-such-if0,lo", &a, name, sizeof(name)) == 0 &&
              !strcmp(name, "lo"),
          "RDMPI_TCP_IF=no-such-if0,lo: later entries are tried");
    core_log_level = -1; /* the next one logs an error on purpose */
    CHECK(tp_tcp_pick_addr("no-such-if0", &a, name, sizeof(name)) == CORE_EINVAL,
          "RDMPI_TCP_IF=no-such-if0 accepted");
    core_log_level = CORE_LOG_WARN;
    CHECK(tp_tcp_pick_addr("", &a, name, sizeof(name)) == 0 && a.s_addr != 0,
          "default interface");
    printf("# default tcp interface here: %s (%s)\n", name, inet_ntoa(a));
}

int main(void)
{
    test_cidr();
    test_hostport();
    test_pick();
    if (failures)
        return 1;
    printf("PASS: unit/tcp_addr CIDR and address parsing, RDMPI_TCP_IF selection\n");
    return 0;
}
