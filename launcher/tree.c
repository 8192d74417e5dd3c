/*
 * The daemon tree's links: accepting connections (with a cap on those not
 * yet authenticated, and without spinning when out of descriptors),
 * framing, the direction rules on what comes in, and routing messages hop
 * by hop. The handshake and joining are in treeauth.c. Sockets are
 * non-blocking and serviced from the owner's poll loop, except while a
 * daemon joins, which it does before it has anything else to do.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tree_impl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ACCEPT_BURST 256 /* accept() calls per pass, so one pass cannot take forever */

double tree_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int launch_tree_me(const struct launch_tree *t)
{
    return t->me;
}

int launch_tree_size(const struct launch_tree *t)
{
    return t->size;
}

int launch_tree_parent_of(int vpid)
{
    return vpid & (vpid - 1);
}

/* True when vpid is in the subtree rooted at root. */
int launch_tree_in_subtree(const struct launch_tree *t, int root, int vpid)
{
    return launch_tree_subtree_has(t->size, root, vpid);
}

int tree_is_my_child(const struct launch_tree *t, int vpid)
{
    return vpid > t->me && vpid < t->size && launch_tree_parent_of(vpid) == t->me;
}

/* The child of `me` whose subtree holds dst (dst must be below me). */
static int child_toward(const struct launch_tree *t, int dst)
{
    unsigned d = (unsigned)(dst - t->me), top = 1;
    while (top * 2 <= d)
        top *= 2;
    return t->me + (int)top;
}

struct launch_tree *launch_tree_create(int size, int me, const char *secret, const char *who,
                                       launch_tree_msg_fn on_msg, launch_tree_lost_fn on_lost,
                                       void *ctx)
{
    struct launch_tree *t = calloc(1, sizeof(*t));

    if (!t)
        return NULL;
    if (size < 1 || me < 0 || me >= size ||
        launch_net_derive_key(secret, LAUNCH_TREE_AUTH_LABEL, t->key)) {
        free(t);
        return NULL;
    }
    t->size = size;
    t->me = me;
    snprintf(t->who, sizeof(t->who), "%s", who);
    launch_net_machine_id(t->machine, sizeof(t->machine));
    t->on_msg = on_msg;
    t->on_lost = on_lost;
    t->ctx = ctx;
    t->listen_fd = t->reserve_fd = -1;
    t->drops.what = "connections dropped";
    t->refusals.what = "messages refused";
    t->fds.what = "connections closed for want of descriptors";
    if (me == 0 && !(t->members = calloc((size_t)size, sizeof(*t->members)))) {
        free(t);
        return NULL;
    }
    return t;
}

static void ratelog_roll(struct launch_tree *t, struct ratelog *l, double now);

static void conn_free(struct conn *c)
{
    struct frame *f = c->head;
    while (f) {
        struct frame *next = f->next;
        free(f);
        f = next;
    }
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c);
}

void launch_tree_destroy(struct launch_tree *t)
{
    if (!t)
        return;
    ratelog_roll(t, &t->drops, tree_now() + LOG_WINDOW); /* what it kept quiet */
    ratelog_roll(t, &t->refusals, tree_now() + LOG_WINDOW);
    ratelog_roll(t, &t->fds, tree_now() + LOG_WINDOW);
    for (int i = 0; i < t->nconns; i++)
        conn_free(t->conns[i]);
    if (t->listen_fd >= 0)
        close(t->listen_fd);
    if (t->reserve_fd >= 0)
        close(t->reserve_fd);
    free(t->conns);
    free(t->polled);
    free(t->members);
    memset(t->key, 0, sizeof(t->key));
    free(t);
}

struct conn *tree_conn_add(struct launch_tree *t, int fd, enum role role)
{
    struct conn *c = calloc(1, sizeof(*c));
    struct conn **cs = realloc(t->conns, (size_t)(t->nconns + 1) * sizeof(*cs));
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);

    if (!c || !cs) {
        free(c);
        if (cs)
            t->conns = cs;
        return NULL;
    }
    t->conns = cs;
    c->fd = fd;
    c->role = role;
    c->vpid = -1;
    c->deadline = tree_now() + HELLO_TIMEOUT;
    c->seq = ++t->accepted;
    if (fd >= 0 && getpeername(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sin_family == AF_INET)
        snprintf(c->peer, sizeof(c->peer), "%s:%d", inet_ntoa(sa.sin_addr), ntohs(sa.sin_port));
    else
        snprintf(c->peer, sizeof(c->peer), "?");
    t->conns[t->nconns++] = c;
    return c;
}

void tree_conn_close(struct conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->dead = 1;
}

/* Frees the conns closed during the last pass. */
void tree_sweep(struct launch_tree *t)
{
    int k = 0;
    for (int i = 0; i < t->nconns; i++) {
        if (t->conns[i]->dead) {
            for (int m = 0; t->members && m < t->size; m++)
                if (t->members[m].boot == t->conns[i])
                    t->members[m].boot = NULL;
            conn_free(t->conns[i]);
        } else {
            t->conns[k++] = t->conns[i];
        }
    }
    t->nconns = k;
}

struct conn *tree_link_to(const struct launch_tree *t, int vpid)
{
    for (int i = 0; i < t->nconns; i++) {
        struct conn *c = t->conns[i];
        if (!c->dead && (c->role == C_CHILD || c->role == C_PARENT) && c->vpid == vpid)
            return c;
    }
    return NULL;
}

static struct conn *parent_link(const struct launch_tree *t)
{
    for (int i = 0; i < t->nconns; i++)
        if (!t->conns[i]->dead && t->conns[i]->role == C_PARENT)
            return t->conns[i];
    return NULL;
}

/* Queues one frame; it is written as the socket takes it. */
void tree_seal_tx(struct launch_tree *t, struct conn *c, int side, const struct launch_hello *h,
                  uint32_t acceptor, const uint8_t nonce_a[LAUNCH_NONCE_LEN])
{
    if (t->unsealed)
        return;
    launch_tree_link_keys(t->key, side, h, acceptor, nonce_a, c->tx_key, c->rx_key);
    c->tx_sealed = 1;
}

void tree_seal_rx(struct launch_tree *t, struct conn *c)
{
    if (!t->unsealed)
        c->rx_sealed = 1;
}

size_t tree_rx_frame_len(const struct conn *c, size_t n)
{
    return LAUNCH_TREE_HDR_LEN + n + (c->rx_sealed ? LAUNCH_TREE_MAC_LEN : 0);
}

int tree_rx_open(struct conn *c, size_t off, size_t n)
{
    if (!c->rx_sealed)
        return 0;
    if (!launch_tree_seal_ok(c->rx_key, c->rx_seq, c->in + off, LAUNCH_TREE_HDR_LEN + n,
                             (const uint8_t *)c->in + off + LAUNCH_TREE_HDR_LEN + n))
        return -EACCES;
    c->rx_seq++;
    return 0;
}

int tree_queue_frame(struct conn *c, int type, uint32_t dst, uint32_t src, const void *p, size_t n)
{
    struct frame *f;
    size_t mac = c->tx_sealed ? LAUNCH_TREE_MAC_LEN : 0;

    if (c->dead)
        return -ENOTCONN;
    if (n > LAUNCH_TREE_MAX_FRAME)
        return -EMSGSIZE;
    f = malloc(sizeof(*f) + LAUNCH_TREE_HDR_LEN + n + mac);
    if (!f)
        return -ENOMEM;
    launch_tree_frame_encode(f->data, type, dst, src, (uint32_t)n);
    if (n)
        memcpy(f->data + LAUNCH_TREE_HDR_LEN, p, n);
    f->len = LAUNCH_TREE_HDR_LEN + n + mac;
    if (mac)
        launch_tree_seal(c->tx_key, c->tx_seq++, f->data, LAUNCH_TREE_HDR_LEN + n,
                         (uint8_t *)f->data + LAUNCH_TREE_HDR_LEN + n);
    f->next = NULL;
    if (c->tail)
        c->tail->next = f;
    else
        c->head = f;
    c->tail = f;
    return 0;
}

/* Writes what the socket takes now. Returns -1 when the peer is gone. */
int tree_conn_write(struct conn *c)
{
    while (c->head && c->fd >= 0) {
        struct frame *f = c->head;
        ssize_t n = send(c->fd, f->data + c->off, f->len - c->off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno == EAGAIN ? 0 : -1;
        }
        c->off += (size_t)n;
        if (c->off < f->len)
            return 0;
        c->head = f->next;
        if (!c->head)
            c->tail = NULL;
        c->off = 0;
        free(f);
    }
    return 0;
}

/* Prints the summary of what a log kept quiet once its window is over. */
static void ratelog_roll(struct launch_tree *t, struct ratelog *l, double now)
{
    if (now - l->start < LOG_WINDOW)
        return;
    if (l->suppressed)
        fprintf(stderr, "%s: %d more %s within %g s (not shown)\n", t->who, l->suppressed,
                l->what, LOG_WINDOW);
    l->start = now;
    l->n = l->suppressed = 0;
}

void tree_note(struct launch_tree *t, struct ratelog *l, const char *fmt, ...)
{
    va_list ap;

    ratelog_roll(t, l, tree_now());
    if (l->n >= LOG_BURST) {
        l->suppressed++;
        return;
    }
    l->n++;
    fprintf(stderr, "%s: ", t->who);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void tree_drop(struct launch_tree *t, struct conn *c, const char *why)
{
    tree_note(t, &t->drops, "dropped a connection from %s: %s", c->peer, why);
    tree_conn_close(c);
}

static void lost(struct launch_tree *t, struct conn *c, const char *why)
{
    int vpid = c->vpid;
    enum role role = c->role;

    tree_conn_close(c);
    if (role == C_PARENT) {
        t->parent_gone = 1;
        t->on_lost(t->ctx, -1, why);
    } else if (role == C_CHILD && !c->bye) {
        t->on_lost(t->ctx, vpid, why);
    }
}

static void forward(struct launch_tree *t, int type, uint32_t dst, uint32_t src, const char *p,
                    size_t n)
{
    if (dst == LAUNCH_TREE_BCAST) {
        for (int i = 0; i < t->nconns; i++)
            if (!t->conns[i]->dead && t->conns[i]->role == C_CHILD)
                tree_queue_frame(t->conns[i], type, dst, src, p, n);
        return;
    }
    int d = (int)dst;
    if (d < 0 || d >= t->size)
        return; /* no such member (child_toward would never end for d >= 2^31) */
    struct conn *c = (t->me == 0 || launch_tree_in_subtree(t, t->me, d)) && d != t->me
                         ? tree_link_to(t, child_toward(t, d))
                         : parent_link(t);
    if (c)
        tree_queue_frame(c, type, dst, src, p, n);
}

/* rdmpirun: member src is in the tree. In a tree launch it never had a boot connection,
 * so UP tells what PROOF tells in a flat one (the PROOF's layout; its MAC is unused: the
 * frame is sealed). An UP that does not decode leaves the member out (it times out). */
static void on_up(struct launch_tree *t, struct conn *c, const struct launch_frame_hdr *h,
                  const char *p)
{
    struct member *m = &t->members[h->src];
    struct launch_proof pr;
    const char *why;

    if (h->len) {
        if (launch_proof_decode(p, h->len, &pr, &why)) {
            tree_note(t, &t->refusals, "refused UP from member %u on the link to %d (%s): %s",
                      h->src, c->vpid, c->peer, why);
            return;
        }
        m->pid = (int)pr.pid;
        m->port = (int)pr.port;
        snprintf(m->host, sizeof(m->host), "%s", pr.host);
        snprintf(m->machine, sizeof(m->machine), "%s", pr.machine);
        snprintf(m->addrs, sizeof(m->addrs), "%s", pr.addrs);
    }
    if (!m->up++)
        t->nup++;
}

/* A frame on an authenticated link: checked against the direction rules, then taken,
 * passed on, or both. */
static void on_link_frame(struct launch_tree *t, struct conn *c, const struct launch_frame_hdr *h,
                          const char *p)
{
    const char *why;
    int link = c->role == C_PARENT ? LAUNCH_LINK_PARENT : LAUNCH_LINK_CHILD;

    if (launch_tree_route_check(t->size, t->me, link, c->vpid, h->type, h->dst, h->src, &why)) {
        char dst[16];
        if (h->dst == LAUNCH_TREE_BCAST)
            snprintf(dst, sizeof(dst), "all");
        else
            snprintf(dst, sizeof(dst), "%u", h->dst);
        tree_note(t, &t->refusals, "refused %s from member %u to %s on the link to %s %d (%s): %s",
                  launch_msg_name(h->type), h->src, dst,
                  link == LAUNCH_LINK_PARENT ? "its parent" : "its child", c->vpid, c->peer, why);
        return;
    }
    if (h->type == MSG_BYE) {
        c->bye = 1;
        t->on_msg(t->ctx, h->type, c->vpid, p, h->len);
    } else if (h->dst == LAUNCH_TREE_BCAST) {
        forward(t, h->type, h->dst, h->src, p, h->len);
        t->on_msg(t->ctx, h->type, (int)h->src, p, h->len);
    } else if ((int)h->dst == t->me) {
        if (h->type == MSG_UP && t->me == 0) {
            on_up(t, c, h, p);
            return;
        }
        t->on_msg(t->ctx, h->type, (int)h->src, p, h->len);
    } else {
        forward(t, h->type, h->dst, h->src, p, h->len);
    }
}

static int unauthenticated(const struct conn *c)
{
    return c->role == C_NEW || c->role == C_CHALLENGED;
}

/* Takes every complete frame out of c's input. */
static void parse(struct launch_tree *t, struct conn *c)
{
    size_t off = 0;

    while (!c->dead) {
        struct launch_frame_hdr h;
        const char *why = "";
        int rc = launch_tree_frame_decode(c->in + off, c->in_len - off,
                                          unauthenticated(c) ? LAUNCH_TREE_MAX_UNAUTH
                                                             : LAUNCH_TREE_MAX_FRAME,
                                          &h, &why);
        if (rc == 0 && c->in_len - off < tree_rx_frame_len(c, h.len))
            rc = 1; /* its MAC is still to come */
        if (rc == 0 && tree_rx_open(c, off, h.len)) {
            rc = -EACCES;
            why = "a frame whose MAC is wrong (not sent by the member the link is with)";
        }
        if (rc == 1)
            break;
        if (rc < 0) {
            if (unauthenticated(c)) {
                tree_drop(t, c, why);
            } else {
                char msg[200];
                snprintf(msg, sizeof(msg), "%s from %s", why, c->peer);
                fprintf(stderr, "%s: closing the link to member %d: %s\n", t->who, c->vpid, msg);
                lost(t, c, msg);
            }
            return;
        }
        const char *p = c->in + off + LAUNCH_TREE_HDR_LEN;
        off += tree_rx_frame_len(c, h.len);
        if (unauthenticated(c))
            tree_auth_frame(t, c, h.type, p, h.len);
        else if (c->role == C_CHILD || c->role == C_PARENT)
            on_link_frame(t, c, &h, p);
        else /* C_BOOT: the daemon must wait for WELCOME */
            tree_drop(t, c, "a message before its welcome on a boot connection");
    }
    if (!c->dead && off) {
        memmove(c->in, c->in + off, c->in_len - off);
        c->in_len -= off;
    }
}

static void conn_read(struct launch_tree *t, struct conn *c)
{
    while (!c->dead) {
        if (c->in_cap - c->in_len < 65536) {
            size_t cap = c->in_cap ? c->in_cap * 2 : 65536;
            char *in = realloc(c->in, cap);
            if (!in) {
                lost(t, c, "out of memory");
                return;
            }
            c->in = in;
            c->in_cap = cap;
        }
        ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
        if (n > 0) {
            c->in_len += (size_t)n;
            parse(t, c);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (unauthenticated(c))
            tree_drop(t, c, "closed before it authenticated");
        else if (c->role == C_BOOT)
            tree_conn_close(c); /* a daemon leaving its boot connection, as it should */
        else
            lost(t, c, n == 0 ? "connection closed" : strerror(errno));
        return;
    }
}

int launch_tree_listen(struct launch_tree *t)
{
    int fd = launch_net_listen(&t->port);

    if (fd < 0)
        return fd;
    t->listen_fd = fd;
    t->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return 0;
}

int launch_tree_port(const struct launch_tree *t)
{
    return t->port;
}

/* How many unauthenticated connections may be held: MAX_UNAUTH_CONNS, plus one for each
 * member that is still to connect to us, so that a legitimate crowd never meets it. */
static int unauth_cap(const struct launch_tree *t)
{
    int expect = 0;

    for (int v = t->me + 1; v < t->size; v++) {
        if (t->members)
            expect += !t->members[v].booted;
        else
            expect += tree_is_my_child(t, v) && !tree_link_to(t, v);
    }
    return MAX_UNAUTH_CONNS + expect;
}

/*
 * Keeps the number of unauthenticated connections at most unauth_cap() by closing the
 * oldest of them. Refusing new ones instead would let whoever holds the slots with idle
 * sockets (renewed every HELLO_TIMEOUT) keep every daemon out; evicting the oldest means
 * an attacker has to open connections faster than a daemon completes one round trip.
 */
static void enforce_cap(struct launch_tree *t)
{
    int n = 0, cap = unauth_cap(t);
    struct conn *oldest = NULL;

    for (int i = 0; i < t->nconns; i++) {
        struct conn *c = t->conns[i];
        if (c->dead || !unauthenticated(c))
            continue;
        n++;
        if (!oldest || c->seq < oldest->seq)
            oldest = c;
    }
    if (n > cap)
        tree_drop(t, oldest, "too many unauthenticated connections (closed the oldest)");
}

/*
 * Out of file descriptors: the pending connection keeps the listening socket readable,
 * so the poll loop would spin. Gives up the reserve descriptor to accept that connection
 * and close it at once, and takes the reserve back; when that fails too, the listening
 * socket is left out of the poll set for LISTEN_PAUSE. Returns 1 when a connection was
 * shed (there may be more to take).
 */
static int shed(struct launch_tree *t, int err)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    char peer[64] = "?";
    int fd = -1;

    if (t->reserve_fd >= 0) {
        close(t->reserve_fd);
        fd = accept4(t->listen_fd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC);
        if (fd >= 0) {
            if (sa.sin_family == AF_INET)
                snprintf(peer, sizeof(peer), "%s:%d", inet_ntoa(sa.sin_addr), ntohs(sa.sin_port));
            close(fd);
        }
        t->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    if (fd >= 0)
        tree_note(t, &t->fds, "warning: out of file descriptors (%s): closed the connection "
                  "from %s at once", strerror(err), peer);
    else
        tree_note(t, &t->fds, "warning: out of file descriptors (%s): not accepting "
                  "connections for %g s", strerror(err), LISTEN_PAUSE);
    if (fd < 0 || t->reserve_fd < 0) {
        t->listen_paused_until = tree_now() + LISTEN_PAUSE;
        return 0;
    }
    return 1;
}

static void accept_all(struct launch_tree *t)
{
    for (int i = 0; i < ACCEPT_BURST; i++) {
        int fd = accept4(t->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            if (err == EINTR || err == ECONNABORTED)
                continue;
            if (err == EAGAIN || err == EWOULDBLOCK)
                return;
            if ((err == EMFILE || err == ENFILE) && shed(t, err))
                continue;
            if (err != EMFILE && err != ENFILE) { /* ENOBUFS, ENOMEM: also wait a little */
                tree_note(t, &t->fds, "warning: accept: %s", strerror(err));
                t->listen_paused_until = tree_now() + LISTEN_PAUSE;
            }
            return;
        }
        if (!tree_conn_add(t, fd, C_NEW)) {
            close(fd);
            continue;
        }
        enforce_cap(t);
    }
}

int launch_tree_send(struct launch_tree *t, int type, uint32_t dst, const void *p, size_t n)
{
    if (dst == (uint32_t)t->me)
        return -EINVAL;
    if (n > LAUNCH_TREE_MAX_FRAME)
        return -EMSGSIZE;
    forward(t, type, dst, (uint32_t)t->me, p, n);
    return 0;
}

int launch_tree_send_parent(struct launch_tree *t, int type, const void *p, size_t n)
{
    struct conn *c = parent_link(t);
    return c ? tree_queue_frame(c, type, (uint32_t)c->vpid, (uint32_t)t->me, p, n) : -ENOTCONN;
}

int launch_tree_npollfds(const struct launch_tree *t)
{
    return t->nconns + 1;
}

int launch_tree_fill_pollfds(struct launch_tree *t, struct pollfd *pfd, int max)
{
    int n = 0;
    struct conn **polled = realloc(t->polled, (size_t)(t->nconns + 1) * sizeof(*polled));

    if (!polled)
        return 0;
    t->polled = polled;
    t->listen_polled = 0;
    if (t->listen_fd >= 0 && n < max && tree_now() >= t->listen_paused_until) {
        pfd[n].fd = t->listen_fd;
        pfd[n].events = POLLIN;
        pfd[n++].revents = 0;
        t->listen_polled = 1;
    }
    t->npolled = 0;
    for (int i = 0; i < t->nconns && n < max; i++) {
        struct conn *c = t->conns[i];
        if (c->dead)
            continue;
        pfd[n].fd = c->fd;
        pfd[n].events = POLLIN | (c->head ? POLLOUT : 0);
        pfd[n++].revents = 0;
        t->polled[t->npolled++] = c;
    }
    return n;
}

void launch_tree_handle(struct launch_tree *t, const struct pollfd *pfd, int n)
{
    int k = 0;

    if (t->listen_polled && n > 0) {
        if (pfd[0].revents & POLLIN)
            accept_all(t);
        k = 1;
    }
    for (int i = 0; i < t->npolled && k < n; i++, k++) {
        struct conn *c = t->polled[i];
        if (c->dead || !pfd[k].revents)
            continue;
        if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))
            conn_read(t, c);
        if (!c->dead && (pfd[k].revents & POLLOUT) && tree_conn_write(c) < 0)
            lost(t, c, "connection reset");
    }
    /* Frames queued while handling go out at once when the socket takes them. */
    for (int i = 0; i < t->nconns; i++) {
        struct conn *c = t->conns[i];
        if (!c->dead && c->head && tree_conn_write(c) < 0)
            lost(t, c, "connection reset");
    }
    t->npolled = 0;
    tree_sweep(t);
}

/* Parses frames the join left behind; drops connections that did not authenticate in time. */
void launch_tree_tick(struct launch_tree *t, double now)
{
    for (int i = 0; i < t->nconns; i++) {
        struct conn *c = t->conns[i];
        if (!c->dead && c->backlog) {
            c->backlog = 0;
            parse(t, c);
        }
        if (!c->dead && unauthenticated(c) && now >= c->deadline) {
            char why[64];
            snprintf(why, sizeof(why), "did not authenticate within %g s", HELLO_TIMEOUT);
            tree_drop(t, c, why);
        }
    }
    ratelog_roll(t, &t->drops, now);
    ratelog_roll(t, &t->refusals, now);
    ratelog_roll(t, &t->fds, now);
    if (t->npolled == 0)
        tree_sweep(t);
}

double launch_tree_next_deadline(const struct launch_tree *t)
{
    double next = t->listen_paused_until > tree_now() ? t->listen_paused_until : 0;
    for (int i = 0; i < t->nconns; i++)
        if (!t->conns[i]->dead && unauthenticated(t->conns[i]) &&
            (next == 0 || t->conns[i]->deadline < next))
            next = t->conns[i]->deadline;
    return next;
}

int launch_tree_nup(const struct launch_tree *t)
{
    return t->nup;
}

int launch_tree_is_up(const struct launch_tree *t, int vpid)
{
    return t->members && vpid > 0 && vpid < t->size && t->members[vpid].up;
}

int launch_tree_child_linked(const struct launch_tree *t, int vpid)
{
    const struct conn *c = tree_is_my_child(t, vpid) ? tree_link_to(t, vpid) : NULL;
    return c && !c->dead && c->role == C_CHILD;
}

/* True when every child link has said BYE or is gone. */
int launch_tree_children_done(const struct launch_tree *t)
{
    for (int i = 0; i < t->nconns; i++)
        if (!t->conns[i]->dead && t->conns[i]->role == C_CHILD && !t->conns[i]->bye)
            return 0;
    return 1;
}

int launch_tree_parent_gone(const struct launch_tree *t)
{
    return t->parent_gone;
}

/* Writes out everything queued, for at most timeout seconds. */
int launch_tree_flush(struct launch_tree *t, double timeout)
{
    double until = tree_now() + timeout;

    while (tree_now() < until) {
        struct pollfd pfd[64];
        int n = 0;
        for (int i = 0; i < t->nconns && n < 64; i++) {
            struct conn *c = t->conns[i];
            if (c->dead || !c->head)
                continue;
            if (tree_conn_write(c) < 0) {
                tree_conn_close(c);
                continue;
            }
            if (c->head) {
                pfd[n].fd = c->fd;
                pfd[n].events = POLLOUT;
                pfd[n++].revents = 0;
            }
        }
        if (n == 0)
            return 0;
        poll(pfd, (nfds_t)n, 50);
    }
    return -ETIMEDOUT;
}

const char *launch_tree_member_host(const struct launch_tree *t, int vpid)
{
    return t->members && vpid > 0 && vpid < t->size ? t->members[vpid].host : "";
}

const char *launch_tree_member_machine(const struct launch_tree *t, int vpid)
{
    return t->members && vpid > 0 && vpid < t->size ? t->members[vpid].machine : "";
}

int launch_tree_member_pid(const struct launch_tree *t, int vpid)
{
    return t->members && vpid > 0 && vpid < t->size ? t->members[vpid].pid : 0;
}

void launch_tree_unseal(struct launch_tree *t)
{
    t->unsealed = 1;
}

int launch_tree_feed(struct launch_tree *t, int state, int peer, const void *bytes, size_t len)
{
    enum role role = state == LAUNCH_FEED_PARENT  ? C_PARENT
                     : state == LAUNCH_FEED_CHILD ? C_CHILD
                                                  : C_NEW;
    struct conn *c = tree_conn_add(t, -1, role);
    int open;

    if (!c)
        return 0;
    snprintf(c->peer, sizeof(c->peer), "(fed)");
    if (role != C_NEW)
        c->vpid = peer;
    c->in = malloc(len ? len : 1);
    if (c->in) {
        memcpy(c->in, bytes, len);
        c->in_len = c->in_cap = len;
        parse(t, c);
    }
    open = !c->dead;
    /* Frames queued to the other (fed) links stay until those are swept; ours go now. */
    for (int i = 0; i < t->nconns; i++)
        if (t->conns[i]->fd < 0)
            t->conns[i]->dead = 1;
    tree_sweep(t);
    return open;
}
