/*
 * Ports across rdmpirun runs (api/xport.h). The open port's listening socket belongs to
 * the process that opened it (bound to its tcp transport's address, so reachable where
 * that is); it is polled only while that process is in MPI_Comm_accept on it, so a
 * connector that comes earlier waits in the backlog, and one that comes when nobody
 * accepts gives up after RDMPI_CONNECT_TIMEOUT. Every read has a deadline (a peer that
 * stalls cannot hold an acceptor: it is refused and the acceptor goes on waiting), and
 * both sides keep the progress engine running while they wait, so the rest of the
 * application's traffic goes on. The acceptor takes up to CORE_XPORT_PENDING connections
 * at once and serves the first whose hello arrives: a connector that connects and says
 * nothing does not hold up one that speaks (it is dropped after RDMPI_ACCEPT_TIMEOUT);
 * the handshake of the one served is still one at a time.
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "api/api.h"
#include "api/xport.h"
#include "core/bootstrap.h"
#include "core/log.h"
#include "core/procs.h"
#include "core/progress.h"
#include "core/secret.h"

/* RDMPI_ACCEPT_TIMEOUT: seconds an accepted connector has to say hello, and then for the
 * whole exchange (short: the acceptor serves one at a time once it spoke) */
#define CONFIRM_TIMEOUT 30.0 /* seconds a root waits for the other's last word */
#define SLICE_MS 2        /* poll slices between progress passes */

static int say(char *why, size_t len, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return rc;
}

int api_xport_own_addr(uint8_t ip[4], int *port)
{
    void *val = NULL;
    size_t len = 0;
    int rc = core_boot_get(core_rt, core_rt->rank, CORE_KEY_TCP_ADDR, &val, &len);
    if (rc)
        return rc;
    char *s = val, *colon = len ? memchr(s, ':', len) : NULL, *end = NULL;
    long p = 0;
    rc = CORE_EPROTO;
    if (colon && s[len - 1] == '\0') {
        *colon = '\0';
        p = strtol(colon + 1, &end, 10);
        if (inet_pton(AF_INET, s, ip) == 1 && end != colon + 1 && !*end && p > 0 && p < 65536) {
            *port = (int)p;
            rc = 0;
        }
    }
    free(val);
    return rc;
}

int api_xport_my_entry(core_xwire_entry_t *e)
{
    uint8_t ip[4];
    int port = 0, rc = api_xport_own_addr(ip, &port);
    memset(e, 0, sizeof(*e));
    if (rc)
        return rc;
    e->uid = (uint32_t)core_proc_uid(core_rt, core_rt->rank);
    e->run = core_run_id(core_rt);
    memcpy(e->ip, ip, 4);
    e->port = (uint16_t)port;
    return 0;
}

int api_xport_open(int seq, const uint8_t ip[4], int *tport)
{
    int slot = -1;
    for (int i = 0; i < CORE_XPORTS && slot < 0; i++)
        if (!core_rt->xports[i].open)
            slot = i;
    if (slot < 0)
        return CORE_EOTHER;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return CORE_EIO;
    struct sockaddr_in a = { .sin_family = AF_INET };
    memcpy(&a.sin_addr, ip, 4);
    socklen_t alen = sizeof(a);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 16) ||
        getsockname(fd, (struct sockaddr *)&a, &alen)) {
        close(fd);
        return CORE_EIO;
    }
    core_rt->xports[slot].seq = seq;
    core_rt->xports[slot].fd = fd;
    core_rt->xports[slot].open = 1;
    core_rt->xports[slot].npend = 0;
    *tport = ntohs(a.sin_port);
    return 0;
}

static int slot_of(int seq)
{
    for (int i = 0; i < CORE_XPORTS; i++)
        if (core_rt->xports[i].open && core_rt->xports[i].seq == seq)
            return i;
    return -1;
}

/* Closes slot i's socket and the connections it has not served: their connectors fail at
 * once (the connection closed) rather than at their timeout. */
static void slot_close(int i)
{
    for (int k = 0; k < core_rt->xports[i].npend; k++)
        close(core_rt->xports[i].pend[k]);
    core_rt->xports[i].npend = 0;
    close(core_rt->xports[i].fd);
    core_rt->xports[i].open = 0;
}

int api_xport_close(int seq)
{
    int i = slot_of(seq);
    if (i < 0)
        return CORE_EPORT;
    slot_close(i);
    return 0;
}

void api_xport_close_all(void)
{
    for (int i = 0; core_rt && i < CORE_XPORTS; i++)
        if (core_rt->xports[i].open)
            slot_close(i);
}

void api_xlink_free(api_xlink_t *l)
{
    free(l->remote.e);
    l->remote.e = NULL;
    memset(l->bridge, 0, sizeof(l->bridge));
    if (l->sock >= 0)
        close(l->sock);
    l->sock = -1;
}

/* Waits until fd is ready for events or the deadline passes (0 and 1), running progress. */
static int wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        struct pollfd p = { fd, events, 0 };
        int n = poll(&p, 1, SLICE_MS);
        if (n > 0)
            return 1;
        if (n < 0 && errno != EINTR)
            return 1; /* the read or write says what */
        if (core_wtime() >= deadline)
            return 0;
        core_progress();
    }
}

/* Reads exactly len bytes by the deadline: 0, CORE_EPEER (closed, or a socket error) or
 * CORE_EBUSY (timed out). */
static int read_all(int fd, void *buf, size_t len, double deadline)
{
    size_t have = 0;
    while (have < len) {
        if (!wait_fd(fd, POLLIN, deadline))
            return CORE_EBUSY;
        ssize_t r = recv(fd, (char *)buf + have, len - have, MSG_DONTWAIT);
        if (r == 0)
            return CORE_EPEER;
        if (r < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
            return CORE_EPEER;
        if (r > 0)
            have += (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t len, double deadline)
{
    size_t done = 0;
    while (done < len) {
        if (!wait_fd(fd, POLLOUT, deadline))
            return CORE_EBUSY;
        ssize_t w = send(fd, (const char *)buf + done, len - done, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
            return CORE_EPEER;
        if (w > 0)
            done += (size_t)w;
    }
    return 0;
}

static int send_hs(int fd, const core_xwire_hs_t *m, double deadline)
{
    uint8_t b[CORE_XWIRE_HS];
    core_xwire_hs_encode(m, b);
    return write_all(fd, b, sizeof(b), deadline);
}

/* Reads one handshake message; *why on a malformed one. */
static int recv_hs(int fd, core_xwire_hs_t *m, double deadline, const char **why)
{
    uint8_t b[CORE_XWIRE_HS];
    int rc = read_all(fd, b, sizeof(b), deadline);
    if (rc) {
        *why = rc == CORE_EBUSY ? "no answer in time" : "the connection closed";
        return rc;
    }
    return core_xwire_hs_decode(b, sizeof(b), m, why);
}

/* Sends mine, then reads theirs into out (checked with the bridge key and their role). */
static int swap_tables(int fd, const core_xwire_table_t *mine, uint8_t my_role,
                       uint8_t their_role, api_xlink_t *out, double deadline, const char **why)
{
    size_t n = core_xwire_table_size(mine->n, core_xwire_table_runs(mine));
    uint8_t *b = malloc(n);
    if (!b)
        return CORE_ENOMEM;
    core_xwire_table_encode(mine, out->bridge, my_role, b);
    int rc = write_all(fd, b, n, deadline);
    free(b);
    uint8_t hdr[CORE_XWIRE_TABLE_HDR];
    uint32_t count = 0, runs = 0;
    if (rc || (rc = read_all(fd, hdr, sizeof(hdr), deadline))) {
        *why = rc == CORE_EBUSY ? "no group table in time" : "the connection closed";
        return rc;
    }
    if ((rc = core_xwire_table_count(hdr, sizeof(hdr), &count, &runs, why)))
        return rc;
    n = core_xwire_table_size(count, runs);
    if (!(b = malloc(n)) || !(out->remote.e = calloc(count, sizeof(*out->remote.e)))) {
        free(b);
        return CORE_ENOMEM;
    }
    memcpy(b, hdr, sizeof(hdr));
    rc = read_all(fd, b + sizeof(hdr), n - sizeof(hdr), deadline);
    if (rc)
        *why = rc == CORE_EBUSY ? "no group table in time" : "the connection closed";
    else
        rc = core_xwire_table_decode(b, n, out->bridge, their_role, &out->remote, why);
    free(b);
    if (!rc && out->remote.run != out->run) {
        *why = "a group table of another run than the handshake's";
        rc = CORE_EPROTO;
    }
    if (rc)
        return rc;
    /* both took the other's table before either goes on (core/xwire.h) */
    core_xwire_hs_t done = { CORE_XWIRE_DONE, 0, 0, core_run_id(core_rt), { 0 }, { 0 } }, m;
    if ((rc = send_hs(fd, &done, deadline)) || (rc = recv_hs(fd, &m, deadline, why)))
        return rc;
    if (m.type != CORE_XWIRE_DONE) {
        *why = "no confirmation after the group tables";
        return CORE_EPROTO;
    }
    return 0;
}

/* The acceptor's side of one connection: 0 when it proved the key and the tables are
 * swapped; else why it was refused (the caller logs it and goes on accepting). */
static int serve(int fd, const core_port_t *port, const core_xwire_table_t *mine,
                 api_xlink_t *out, const char **why)
{
    double deadline = core_wtime() + core_rt->settings->accept_timeout;
    core_xwire_session_t s;
    core_xwire_hs_t m, r = { 0 };
    int rc = recv_hs(fd, &m, deadline, why);
    if (rc)
        return rc;
    if (m.type != CORE_XWIRE_HELLO) {
        *why = "a handshake message out of order";
        return CORE_EPROTO;
    }
    r.type = CORE_XWIRE_REFUSE;
    r.run = core_run_id(core_rt);
    r.seq = m.seq;
    if (m.seq != (uint32_t)port->seq || m.run == r.run) {
        r.reason = m.run == r.run ? CORE_XWIRE_SAME_RUN : CORE_XWIRE_NO_PORT;
        send_hs(fd, &r, deadline);
        *why = m.run == r.run ? "a connector of this very run (it must use the launcher)"
                              : "a connector for another port of this process";
        return CORE_EPORT;
    }
    core_xwire_session_key(&s, port->key);
    s.seq = m.seq;
    s.run_c = m.run;
    s.run_a = r.run;
    memcpy(s.nonce_c, m.nonce, sizeof(s.nonce_c));
    core_random(s.nonce_a, sizeof(s.nonce_a));
    core_xwire_hs_t ch = { CORE_XWIRE_CHALLENGE, m.seq, 0, r.run, { 0 }, { 0 } };
    memcpy(ch.nonce, s.nonce_a, sizeof(ch.nonce));
    if ((rc = send_hs(fd, &ch, deadline)) || (rc = recv_hs(fd, &m, deadline, why))) {
        if (rc == CORE_EBUSY || rc == CORE_EPEER)
            *why = rc == CORE_EBUSY ? "no proof in time" : "the connection closed";
        return rc;
    }
    if (m.type != CORE_XWIRE_PROOF) {
        *why = "a handshake message out of order";
        return CORE_EPROTO;
    }
    if (!core_xwire_mac_ok(&s, 'C', m.mac)) {
        r.reason = CORE_XWIRE_WRONG_KEY;
        send_hs(fd, &r, deadline);
        *why = "a wrong proof of the port key (a forged or altered port name)";
        return CORE_EPORT;
    }
    core_xwire_hs_t ok = { CORE_XWIRE_ACCEPT, m.seq, 0, r.run, { 0 }, { 0 } };
    core_xwire_mac(&s, 'A', ok.mac);
    out->run = s.run_c;
    core_xwire_mac(&s, 'B', out->bridge);
    memset(&s, 0, sizeof(s));
    if ((rc = send_hs(fd, &ok, deadline)))
        return rc;
    return swap_tables(fd, mine, 'A', 'C', out, deadline, why);
}

static void drop_pending(int i, int k)
{
    int n = --core_rt->xports[i].npend;
    close(core_rt->xports[i].pend[k]);
    core_rt->xports[i].pend[k] = core_rt->xports[i].pend[n];
    core_rt->xports[i].pend_until[k] = core_rt->xports[i].pend_until[n];
}

/* Slot i: takes what waits in the backlog (as many as fit), drops those silent past their
 * deadline, and returns (off the list) the first connection with something to read, or -1. */
static int next_speaker(int i, int seq)
{
    double now = core_wtime();
    while (core_rt->xports[i].npend < CORE_XPORT_PENDING) {
        int fd = accept4(core_rt->xports[i].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            break; /* none left, or out of descriptors: try again later */
        int one = 1, n = core_rt->xports[i].npend++;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        core_rt->xports[i].pend[n] = fd;
        core_rt->xports[i].pend_until[n] = now + core_rt->settings->accept_timeout;
    }
    struct pollfd p[CORE_XPORT_PENDING];
    int n = core_rt->xports[i].npend;
    for (int k = 0; k < n; k++)
        p[k] = (struct pollfd){ core_rt->xports[i].pend[k], POLLIN, 0 };
    if (n && poll(p, (nfds_t)n, 0) > 0)
        for (int k = 0; k < n; k++)
            if (p[k].revents) {
                int fd = p[k].fd;
                core_rt->xports[i].npend--; /* off the list, still open: to be served */
                core_rt->xports[i].pend[k] = core_rt->xports[i].pend[n - 1];
                core_rt->xports[i].pend_until[k] = core_rt->xports[i].pend_until[n - 1];
                return fd;
            }
    for (int k = core_rt->xports[i].npend - 1; k >= 0; k--)
        if (now > core_rt->xports[i].pend_until[k]) {
            core_warn("MPI_Comm_accept (rank %d): dropped a connection on port %d that said "
                      "nothing within %.0f s (RDMPI_ACCEPT_TIMEOUT)", core_rt->rank, seq,
                      core_rt->settings->accept_timeout);
            drop_pending(i, k);
        }
    return -1;
}

int api_xport_try_accept(const core_port_t *port, const core_xwire_table_t *mine,
                         api_xlink_t *out, char *why, size_t len)
{
    int i = slot_of(port->seq);
    if (i < 0)
        return say(why, len, CORE_EPORT, "port %d of this process is closed", port->seq);
    int fd = next_speaker(i, port->seq);
    if (fd < 0)
        return CORE_EBUSY;
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t alen = sizeof(a);
    getpeername(fd, (struct sockaddr *)&a, &alen);
    char from[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &a.sin_addr, from, sizeof(from));
    const char *w = "";
    memset(out, 0, sizeof(*out));
    out->sock = -1;
    int rc = serve(fd, port, mine, out, &w);
    if (!rc) {
        out->sock = fd; /* for the last word (api_xport_confirm) */
        return 0;
    }
    close(fd);
    api_xlink_free(out);
    if (rc == CORE_ENOMEM)
        return say(why, len, rc, "out of memory");
    /* a connector that failed does not end the accept: the right one may come next */
    core_warn("MPI_Comm_accept (rank %d): refused a connection from %s:%u on port %d: %s",
              core_rt->rank, from, (unsigned)ntohs(a.sin_port), port->seq, w);
    return CORE_EBUSY;
}

static const char *reason(uint32_t r)
{
    switch (r) {
    case CORE_XWIRE_WRONG_KEY:
        return "the acceptor refused our proof of the port key: the port name was altered "
               "or forged";
    case CORE_XWIRE_SAME_RUN:
        return "the acceptor says we are of its own run";
    default:
        return "the acceptor has no such port open";
    }
}

int api_xport_connect(const core_port_t *port, const core_xwire_table_t *mine,
                      api_xlink_t *out, char *why, size_t len)
{
    double deadline = core_wtime() + core_rt->settings->connect_timeout;
    char where[32];
    snprintf(where, sizeof(where), "%u.%u.%u.%u:%d", port->ip[0], port->ip[1], port->ip[2],
             port->ip[3], port->tport);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return say(why, len, CORE_EIO, "socket: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port->tport) };
    memcpy(&a.sin_addr, port->ip, 4);
    int rc = 0, err = 0;
    socklen_t elen = sizeof(err);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) && errno != EINPROGRESS)
        err = errno;
    else if (!wait_fd(fd, POLLOUT, deadline))
        err = ETIMEDOUT;
    else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen))
        err = errno;
    if (err) {
        close(fd);
        return say(why, len, CORE_EPORT, "cannot reach the acceptor at %s: %s (its process "
                   "closed the port or has ended)", where, strerror(err));
    }
    core_xwire_session_t s;
    core_xwire_session_key(&s, port->key);
    s.seq = (uint32_t)port->seq;
    s.run_c = core_run_id(core_rt);
    core_random(s.nonce_c, sizeof(s.nonce_c));
    core_xwire_hs_t m = { CORE_XWIRE_HELLO, s.seq, 0, s.run_c, { 0 }, { 0 } };
    memcpy(m.nonce, s.nonce_c, sizeof(m.nonce));
    const char *w = "";
    memset(out, 0, sizeof(*out));
    out->sock = -1;
    if ((rc = send_hs(fd, &m, deadline)) || (rc = recv_hs(fd, &m, deadline, &w)))
        goto done;
    if (m.type == CORE_XWIRE_REFUSE) {
        w = reason(m.reason);
        rc = CORE_EPORT;
        goto done;
    }
    if (m.type != CORE_XWIRE_CHALLENGE || m.seq != s.seq || m.run != port->run) {
        w = "an answer that is no challenge for this port (another process at its address)";
        rc = CORE_EPROTO;
        goto done;
    }
    s.run_a = m.run;
    memcpy(s.nonce_a, m.nonce, sizeof(s.nonce_a));
    core_xwire_hs_t p = { CORE_XWIRE_PROOF, s.seq, 0, s.run_c, { 0 }, { 0 } };
    core_xwire_mac(&s, 'C', p.mac);
    if ((rc = send_hs(fd, &p, deadline)) || (rc = recv_hs(fd, &m, deadline, &w)))
        goto done;
    if (m.type == CORE_XWIRE_REFUSE) {
        w = reason(m.reason);
        rc = CORE_EPORT;
        goto done;
    }
    if (m.type != CORE_XWIRE_ACCEPT || !core_xwire_mac_ok(&s, 'A', m.mac)) {
        w = "the acceptor did not prove the port key (another process at its address)";
        rc = CORE_EPROTO;
        goto done;
    }
    out->run = s.run_a;
    core_xwire_mac(&s, 'B', out->bridge);
    rc = swap_tables(fd, mine, 'C', 'A', out, deadline, &w);
done:
    memset(&s, 0, sizeof(s));
    if (!rc) {
        out->sock = fd; /* for the last word (api_xport_confirm) */
        return 0;
    }
    close(fd);
    api_xlink_free(out);
    if (rc == CORE_EBUSY)
        return say(why, len, CORE_EPORT, "the acceptor at %s did not answer within %.0f s "
                   "(RDMPI_CONNECT_TIMEOUT): nobody accepts on this port", where,
                   core_rt->settings->connect_timeout);
    if (rc == CORE_EPEER && !*w)
        w = "the connection closed";
    return say(why, len, rc == CORE_ENOMEM ? rc : CORE_EPORT, "port at %s: %s", where, w);
}

int api_xport_confirm(api_xlink_t *l, int ok, char *why, size_t len)
{
    double deadline = core_wtime() + CONFIRM_TIMEOUT;
    core_xwire_hs_t m = { ok ? CORE_XWIRE_DONE : CORE_XWIRE_REFUSE, 0,
                          ok ? 0 : CORE_XWIRE_GAVE_UP, core_run_id(core_rt), { 0 }, { 0 } };
    const char *w = "";
    int rc = l->sock < 0 ? CORE_EPEER : send_hs(l->sock, &m, deadline);
    /* a side that gave up has said so: it need not hear the other */
    if (!rc && ok && core_rt->settings->test_xrun_drop == core_rt->rank) {
        rc = CORE_EPEER; /* fault injection (tests): the connection breaks here */
        w = "the connection broke (RDMPI_TEST_XRUN_DROP)";
    } else if (!rc && ok) {
        rc = recv_hs(l->sock, &m, deadline, &w);
    }
    if (l->sock >= 0)
        close(l->sock);
    l->sock = -1;
    if (!ok)
        return CORE_EOTHER;
    if (!rc && m.type == CORE_XWIRE_DONE)
        return 0;
    if (!rc && m.type == CORE_XWIRE_REFUSE && m.reason == CORE_XWIRE_GAVE_UP) {
        snprintf(why, len, "the other run's group gave up after the tables: a member of its "
                 "group could not add this group's processes (its root says so)");
        return CORE_EOTHER;
    }
    if (!rc)
        w = "a handshake message out of order";
    else if (rc == CORE_EBUSY)
        w = "no word in time";
    else if (!*w)
        w = "the connection closed";
    snprintf(why, len, "the other run's root did not confirm after the tables: %s", w);
    return CORE_EOTHER;
}
