/*
 * The plumbing under the daemon tree: payload buffers, listening and
 * connecting TCP sockets, this host's addresses, the job secret, and which
 * machine this is.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tree.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void reserve(struct launch_buf *b, size_t more)
{
    if (b->err || b->len + more <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->err = 1;
        return;
    }
    b->p = p;
    b->cap = cap;
}

void lbuf_raw(struct launch_buf *b, const void *p, size_t n)
{
    reserve(b, n);
    if (b->err)
        return;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

void lbuf_u32(struct launch_buf *b, uint32_t v)
{
    uint32_t be = htonl(v);
    lbuf_raw(b, &be, 4);
}

void lbuf_bytes(struct launch_buf *b, const void *p, size_t n)
{
    lbuf_u32(b, (uint32_t)n);
    lbuf_raw(b, p, n);
}

void lbuf_str(struct launch_buf *b, const char *s)
{
    lbuf_bytes(b, s, strlen(s));
}

void lbuf_free(struct launch_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

uint32_t lrd_u32(struct launch_rd *r)
{
    uint32_t be;

    if (r->err || r->left < 4) {
        r->err = 1;
        return 0;
    }
    memcpy(&be, r->p, 4);
    r->p += 4;
    r->left -= 4;
    return ntohl(be);
}

const char *lrd_bytes(struct launch_rd *r, size_t *n)
{
    uint32_t len = lrd_u32(r);
    const char *p = r->p;

    if (r->err || r->left < len) {
        r->err = 1;
        *n = 0;
        return NULL;
    }
    r->p += len;
    r->left -= len;
    *n = len;
    return p;
}

char *lrd_str_max(struct launch_rd *r, size_t max)
{
    size_t n;
    const char *p = lrd_bytes(r, &n);
    char *s;

    if (!p)
        return NULL;
    if (n > max || memchr(p, '\0', n)) {
        r->err = 1;
        return NULL;
    }
    s = malloc(n + 1);
    if (!s) {
        r->err = 1;
        return NULL;
    }
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

char *lrd_str(struct launch_rd *r)
{
    return lrd_str_max(r, LAUNCH_STR_MAX);
}

/* A TCP socket listening on every address, on a port the kernel picks. */
int launch_net_listen(int *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

    if (fd < 0)
        return -errno;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 128) ||
        getsockname(fd, (struct sockaddr *)&sa, &len)) {
        int err = errno;
        close(fd);
        return -err;
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One non-blocking connect, waited for at most `timeout` seconds. */
static int connect_one(const char *ip, int port, double timeout)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd, err = 0, one = 1;
    socklen_t elen = sizeof(err);

    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
        return -EINVAL;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS) {
        err = errno;
        close(fd);
        return -err;
    }
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    int n;
    double until = now_s() + timeout;
    do {
        n = poll(&pfd, 1, (int)((until - now_s()) * 1000) + 1);
    } while (n < 0 && errno == EINTR && now_s() < until);
    if (n <= 0) {
        close(fd);
        return -ETIMEDOUT;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err) {
        close(fd);
        return -(err ? err : EIO);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/*
 * Tries each address of the comma list in order and returns the first
 * connected socket (non-blocking), or a negative code with the reasons in
 * err. An unreachable address usually fails at once (no route).
 */
int launch_net_connect_any(const char *addrs, int port, double timeout, char *err, size_t errlen)
{
    const char *p = addrs;
    size_t elen = 0;
    int rc = -ENOENT;

    err[0] = '\0';
    while (*p) {
        size_t n = strcspn(p, ",");
        char ip[64];
        if (n > 0 && n < sizeof(ip)) {
            memcpy(ip, p, n);
            ip[n] = '\0';
            rc = connect_one(ip, port, timeout);
            if (rc >= 0)
                return rc;
            if (elen < errlen)
                elen += (size_t)snprintf(err + elen, errlen - elen, "%s%s:%d: %s", elen ? "; " : "",
                                         ip, port, strerror(-rc));
        }
        p += n;
        if (*p)
            p++;
    }
    return rc;
}

/* Appends ip to the comma list in buf unless it is there already or the list holds
 * LAUNCH_ADDRS_COUNT addresses (the most a peer takes in one list). */
static void append_addr(char *buf, size_t len, const char *ip)
{
    size_t have = strlen(buf), n = strlen(ip);
    const char *p = buf;
    int count = 0;

    while (*p) { /* skip duplicates */
        size_t k = strcspn(p, ",");
        if (k == n && !strncmp(p, ip, n))
            return;
        count++;
        p += k;
        if (*p)
            p++;
    }
    if (count >= LAUNCH_ADDRS_COUNT)
        return;
    if (have + n + 2 <= len)
        snprintf(buf + have, len - have, "%s%s", have ? "," : "", ip);
}

/* This host's IPv4 addresses, loopback last, appended to buf as a list. */
void launch_net_local_addrs(char *buf, size_t len)
{
    struct ifaddrs *ifs, *i;
    char ip[INET_ADDRSTRLEN];

    if (getifaddrs(&ifs) == 0) {
        for (i = ifs; i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
                continue;
            struct sockaddr_in *sa = (struct sockaddr_in *)i->ifa_addr;
            if (ntohl(sa->sin_addr.s_addr) >> 24 == 127)
                continue;
            if (inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof(ip)))
                append_addr(buf, len, ip);
        }
        freeifaddrs(ifs);
    }
    append_addr(buf, len, "127.0.0.1");
}

/*
 * The address of this host that host would be reached from, found by
 * asking the kernel for the route (a UDP connect sends nothing), appended
 * to buf. Nothing is appended when host does not resolve.
 */
void launch_net_route_addr(const char *host, char *buf, size_t len)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *res = NULL;
    struct sockaddr_in me;
    socklen_t mlen = sizeof(me);
    char ip[INET_ADDRSTRLEN];
    int fd;

    if (getaddrinfo(host, "9", &hints, &res) || !res)
        return;
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
        getsockname(fd, (struct sockaddr *)&me, &mlen) == 0 &&
        inet_ntop(AF_INET, &me.sin_addr, ip, sizeof(ip)))
        append_addr(buf, len, ip);
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
}

int launch_net_secret(char out[LAUNCH_SECRET_LEN + 1])
{
    unsigned char raw[LAUNCH_SECRET_LEN / 2];
    size_t got = 0;

    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n < 0 && errno != EINTR)
            return -errno;
        if (n > 0)
            got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

int launch_net_derive_key(const char *secret, const char *label, uint8_t key[CORE_KEY_LEN])
{
    uint8_t raw[CORE_KEY_LEN];

    if (strlen(secret) != LAUNCH_SECRET_LEN || LAUNCH_SECRET_LEN != 2 * CORE_KEY_LEN)
        return -EINVAL;
    for (size_t i = 0; i < CORE_KEY_LEN; i++) {
        unsigned v;
        if (!isxdigit((unsigned char)secret[2 * i]) || !isxdigit((unsigned char)secret[2 * i + 1]) ||
            sscanf(secret + 2 * i, "%2x", &v) != 1)
            return -EINVAL;
        raw[i] = (uint8_t)v;
    }
    core_kdf(raw, label, key, CORE_KEY_LEN);
    memset(raw, 0, sizeof(raw));
    return 0;
}

int launch_net_job_key(const char *secret, uint8_t key[CORE_KEY_LEN])
{
    return launch_net_derive_key(secret, "rdmpi job key", key);
}

int launch_net_addrs_ok(const char *s, int max)
{
    int n = 0;

    while (*s) {
        size_t len = strcspn(s, ",");
        char ip[INET_ADDRSTRLEN];
        struct in_addr a;
        if (len == 0 || len >= sizeof(ip) || ++n > max)
            return 0;
        memcpy(ip, s, len);
        ip[len] = '\0';
        if (inet_pton(AF_INET, ip, &a) != 1)
            return 0;
        s += len;
        if (*s && !*++s)
            return 0; /* a trailing comma */
    }
    return 1;
}

/* The kernel's boot id is the same in every network, UTS and mount
 * namespace of one boot of one machine, and differs between machines. */
void launch_net_machine_id(char *buf, size_t len)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

    buf[0] = '\0';
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}
