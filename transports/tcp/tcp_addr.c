/*
 * Which IPv4 address the tcp transport listens on (RDMPI_TCP_IF), and the
 * "ip:port" strings ranks publish through the bootstrap.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/log.h"
#include "transports/tcp/tcp.h"

int tp_tcp_parse_cidr(const char *s, uint32_t *net, uint32_t *mask)
{
    char ip[INET_ADDRSTRLEN];
    const char *slash = strchr(s, '/');
    size_t n = slash ? (size_t)(slash - s) : strlen(s);
    if (n == 0 || n >= sizeof(ip))
        return CORE_EINVAL;
    memcpy(ip, s, n);
    ip[n] = '\0';
    struct in_addr a;
    if (inet_pton(AF_INET, ip, &a) != 1)
        return CORE_EINVAL;
    long bits = 32;
    if (slash) {
        char *end;
        bits = strtol(slash + 1, &end, 10);
        if (end == slash + 1 || *end || bits < 0 || bits > 32)
            return CORE_EINVAL;
    }
    *mask = bits == 0 ? 0 : htonl(~(uint32_t)0 << (32 - bits));
    *net = a.s_addr & *mask;
    return 0;
}

int tp_tcp_parse_hostport(const char *s, struct sockaddr_in *sa)
{
    char ip[INET_ADDRSTRLEN];
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || (size_t)(colon - s) >= sizeof(ip))
        return CORE_EINVAL;
    memcpy(ip, s, (size_t)(colon - s));
    ip[colon - s] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || port <= 0 || port > 65535)
        return CORE_EINVAL;
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : CORE_EINVAL;
}

static int usable(const struct ifaddrs *ifa)
{
    return ifa->ifa_addr && ifa->ifa_addr->sa_family == AF_INET && (ifa->ifa_flags & IFF_UP);
}

/* Whether interface ifa matches one entry of RDMPI_TCP_IF. */
static int matches(const struct ifaddrs *ifa, const char *entry)
{
    if (!strcmp(ifa->ifa_name, entry))
        return 1;
    uint32_t net, mask;
    if (tp_tcp_parse_cidr(entry, &net, &mask) != 0)
        return 0;
    const struct sockaddr_in *sin = (const struct sockaddr_in *)ifa->ifa_addr;
    return (sin->sin_addr.s_addr & mask) == net;
}

static void found(const struct ifaddrs *ifa, struct in_addr *out, char *ifname, size_t len)
{
    *out = ((const struct sockaddr_in *)ifa->ifa_addr)->sin_addr;
    snprintf(ifname, len, "%s", ifa->ifa_name);
}

/* Tries the comma-separated entries of spec in order. */
static int pick_from_spec(struct ifaddrs *list, const char *spec, struct in_addr *out,
                          char *ifname, size_t len)
{
    char entry[128];
    for (const char *p = spec; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n > 0 && n < sizeof(entry)) {
            memcpy(entry, p, n);
            entry[n] = '\0';
            for (struct ifaddrs *ifa = list; ifa; ifa = ifa->ifa_next)
                if (usable(ifa) && matches(ifa, entry)) {
                    found(ifa, out, ifname, len);
                    return 0;
                }
        }
        p += n + (comma ? 1 : 0);
    }
    core_error("tcp: RDMPI_TCP_IF=%s matches no IPv4 interface that is up", spec);
    return CORE_EINVAL;
}

int tp_tcp_pick_addr(const char *spec, struct in_addr *out, char *ifname, size_t ifname_len)
{
    struct ifaddrs *list;
    if (getifaddrs(&list) != 0) {
        core_warn("tcp: getifaddrs failed (%m): listening on loopback");
        out->s_addr = htonl(INADDR_LOOPBACK);
        snprintf(ifname, ifname_len, "lo");
        return 0;
    }
    int rc = 0;
    if (spec && *spec) {
        rc = pick_from_spec(list, spec, out, ifname, ifname_len);
        freeifaddrs(list);
        return rc;
    }
    const struct ifaddrs *lo = NULL, *pick = NULL;
    for (struct ifaddrs *ifa = list; ifa && !pick; ifa = ifa->ifa_next) {
        if (!usable(ifa))
            continue;
        if (ifa->ifa_flags & IFF_LOOPBACK) {
            if (!lo)
                lo = ifa;
        } else {
            pick = ifa;
        }
    }
    if (!pick)
        pick = lo;
    if (pick) {
        found(pick, out, ifname, ifname_len);
    } else {
        out->s_addr = htonl(INADDR_LOOPBACK);
        snprintf(ifname, ifname_len, "lo");
    }
    freeifaddrs(list);
    return rc;
}
