/*
 * The daemon tree's links: accepting and authenticating connections, the
 * joining protocol (tree.h), framing, and routing messages hop by hop.
 * Sockets are non-blocking and serviced from the owner's poll loop, except
 * while a daemon joins, which it does before it has anything else to do.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tree.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HDR_LEN 16
#define HELLO_TIMEOUT 3.0          /* to present the secret after connecting */
#define MAX_UNAUTH 4096            /* largest frame before the secret is shown */
#define MAX_FRAME (256u << 20)

enum role { C_NEW, C_BOOT, C_CHILD, C_PARENT };

struct frame {
    struct frame *next;
    size_t len;
    char data[];
};

struct conn {
    int fd;
    enum role role;
    int vpid;           /* peer, once it said HELLO */
    double deadline;    /* C_NEW: hello deadline */
    char peer[64];      /* ip:port, for messages */
    char *in;
    size_t in_len, in_cap;
    struct frame *head, *tail;
    size_t off;         /* bytes of head already written */
    int bye;            /* a child that said BYE */
    int dead;           /* closed; freed after the current pass */
};

/* What rdmpirun knows of each member, from its boot HELLO. */
struct member {
    int booted, welcomed, up;
    int pid, port;
    char host[256];
    char addrs[1024];
    char machine[64];   /* launch_net_machine_id() of its host */
    struct conn *boot;
};

struct launch_tree {
    int size, me;
    char secret[LAUNCH_SECRET_LEN + 1];
    char who[300];
    char machine[64];   /* ours, told in HELLO */
    launch_tree_msg_fn on_msg;
    launch_tree_lost_fn on_lost;
    void *ctx;
    int listen_fd, port;
    struct conn **conns;
    int nconns;
    struct conn **polled; /* conns in the order of the last fill_pollfds */
    int npolled, listen_polled;
    struct member *members; /* rdmpirun only */
    int nup;
    int parent_gone;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned lowbit(unsigned v)
{
    return v & (~v + 1);
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
    if (root == 0)
        return vpid >= 0 && vpid < t->size;
    return vpid >= root && (unsigned)vpid < (unsigned)root + lowbit((unsigned)root);
}

static int is_my_child(const struct launch_tree *t, int vpid)
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
    t->size = size;
    t->me = me;
    snprintf(t->secret, sizeof(t->secret), "%s", secret);
    snprintf(t->who, sizeof(t->who), "%s", who);
    launch_net_machine_id(t->machine, sizeof(t->machine));
    t->on_msg = on_msg;
    t->on_lost = on_lost;
    t->ctx = ctx;
    t->listen_fd = -1;
    if (me == 0 && !(t->members = calloc((size_t)size, sizeof(*t->members)))) {
        free(t);
        return NULL;
    }
    return t;
}

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
    for (int i = 0; i < t->nconns; i++)
        conn_free(t->conns[i]);
    if (t->listen_fd >= 0)
        close(t->listen_fd);
    free(t->conns);
    free(t->polled);
    free(t->members);
    free(t);
}

static struct conn *conn_add(struct launch_tree *t, int fd, enum role role)
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
    c->deadline = now_s() + HELLO_TIMEOUT;
    if (getpeername(fd, (struct sockaddr *)&sa, &len) == 0)
        snprintf(c->peer, sizeof(c->peer), "%s:%d", inet_ntoa(sa.sin_addr), ntohs(sa.sin_port));
    else
        snprintf(c->peer, sizeof(c->peer), "?");
    t->conns[t->nconns++] = c;
    return c;
}

static void conn_close(struct conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->dead = 1;
}

/* Frees the conns closed during the last pass. */
static void sweep(struct launch_tree *t)
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

static struct conn *link_to(const struct launch_tree *t, int vpid)
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
static int queue_frame(struct conn *c, int type, uint32_t dst, uint32_t src, const void *p,
                       size_t n)
{
    struct frame *f;
    uint32_t h[4];

    if (c->dead)
        return -ENOTCONN;
    f = malloc(sizeof(*f) + HDR_LEN + n);
    if (!f)
        return -ENOMEM;
    h[0] = htonl((uint32_t)n);
    h[1] = htonl((uint32_t)type << 16);
    h[2] = htonl(dst);
    h[3] = htonl(src);
    memcpy(f->data, h, HDR_LEN);
    if (n)
        memcpy(f->data + HDR_LEN, p, n);
    f->len = HDR_LEN + n;
    f->next = NULL;
    if (c->tail)
        c->tail->next = f;
    else
        c->head = f;
    c->tail = f;
    return 0;
}

/* Writes what the socket takes now. Returns -1 when the peer is gone. */
static int conn_write(struct conn *c)
{
    while (c->head) {
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

static void send_hello(struct launch_tree *t, struct conn *c, int purpose, const char *host,
                       const char *addrs)
{
    struct launch_buf b = {0};

    lbuf_str(&b, t->secret);
    lbuf_u32(&b, (uint32_t)t->me);
    lbuf_u32(&b, (uint32_t)purpose);
    lbuf_u32(&b, (uint32_t)getpid());
    lbuf_str(&b, host);
    lbuf_u32(&b, (uint32_t)t->port);
    lbuf_str(&b, addrs);
    lbuf_str(&b, t->machine);
    if (!b.err)
        queue_frame(c, MSG_HELLO, (uint32_t)launch_tree_parent_of(t->me), (uint32_t)t->me, b.p,
                    b.len);
    lbuf_free(&b);
}

static void drop(struct launch_tree *t, struct conn *c, const char *why)
{
    fprintf(stderr, "%s: dropped a connection from %s: %s\n", t->who, c->peer, why);
    conn_close(c);
}

static void lost(struct launch_tree *t, struct conn *c, const char *why)
{
    int vpid = c->vpid;
    enum role role = c->role;

    conn_close(c);
    if (role == C_PARENT) {
        t->parent_gone = 1;
        t->on_lost(t->ctx, -1, why);
    } else if (role == C_CHILD && !c->bye) {
        t->on_lost(t->ctx, vpid, why);
    }
}

/* rdmpirun: answers a booted daemon once its parent is known. */
static void try_welcome(struct launch_tree *t, int v)
{
    struct member *m = &t->members[v];
    int p = launch_tree_parent_of(v);
    struct launch_buf b = {0};

    if (!m->booted || m->welcomed || !m->boot || (p != 0 && !t->members[p].booted))
        return;
    lbuf_u32(&b, (uint32_t)p);
    lbuf_u32(&b, p ? (uint32_t)t->members[p].port : 0);
    lbuf_str(&b, p ? t->members[p].addrs : "");
    if (!b.err) {
        queue_frame(m->boot, MSG_WELCOME, (uint32_t)v, 0, b.p, b.len);
        m->welcomed = 1;
        if (p == 0) {
            m->boot->role = C_CHILD; /* the boot connection is the link */
            m->boot = NULL;
        }
    }
    lbuf_free(&b);
}

static void on_boot_hello(struct launch_tree *t, struct conn *c, int vpid, int pid,
                          const char *host, int port, const char *addrs, const char *machine)
{
    struct member *m = &t->members[vpid];
    char ip[64];

    snprintf(ip, sizeof(ip), "%.*s", (int)strcspn(c->peer, ":"), c->peer);
    m->booted = 1;
    m->pid = pid;
    m->port = port;
    snprintf(m->host, sizeof(m->host), "%s", host);
    snprintf(m->machine, sizeof(m->machine), "%s", machine);
    snprintf(m->addrs, sizeof(m->addrs), "%s%s%s", ip, *addrs ? "," : "", addrs);
    m->boot = c;
    c->role = C_BOOT;
    c->vpid = vpid;
    try_welcome(t, vpid);
    for (int k = 1; k < t->size; k++) /* its children may be waiting for it */
        if (launch_tree_parent_of(k) == vpid)
            try_welcome(t, k);
}

static void on_hello(struct launch_tree *t, struct conn *c, const char *p, size_t n)
{
    struct launch_rd r = {p, n, 0};
    char *secret = lrd_str(&r);
    int ok = secret && launch_net_secret_eq(secret, t->secret);
    int vpid = (int)lrd_u32(&r), purpose = (int)lrd_u32(&r), pid = (int)lrd_u32(&r);
    char *host = lrd_str(&r);
    int port = (int)lrd_u32(&r);
    char *addrs = lrd_str(&r);
    char *machine = lrd_str(&r);

    if (!ok) {
        drop(t, c, secret ? "wrong secret" : "no secret in its hello");
    } else if (r.err) {
        drop(t, c, "malformed hello");
    } else if (purpose == HELLO_BOOT && t->me == 0 && vpid > 0 && vpid < t->size &&
               !t->members[vpid].booted) {
        on_boot_hello(t, c, vpid, pid, host, port, addrs, machine);
    } else if (purpose == HELLO_LINK && is_my_child(t, vpid) && !link_to(t, vpid)) {
        c->role = C_CHILD;
        c->vpid = vpid;
    } else {
        char why[96];
        snprintf(why, sizeof(why), "unexpected hello from member %d", vpid);
        drop(t, c, why);
    }
    free(secret);
    free(host);
    free(addrs);
    free(machine);
}

static void forward(struct launch_tree *t, int type, uint32_t dst, uint32_t src, const char *p,
                    size_t n)
{
    if (dst == LAUNCH_TREE_BCAST) {
        for (int i = 0; i < t->nconns; i++)
            if (!t->conns[i]->dead && t->conns[i]->role == C_CHILD)
                queue_frame(t->conns[i], type, dst, src, p, n);
        return;
    }
    int d = (int)dst;
    if (d < 0 || d >= t->size)
        return; /* no such member (child_toward would never end for d >= 2^31) */
    struct conn *c = (t->me == 0 || launch_tree_in_subtree(t, t->me, d)) && d != t->me
                         ? link_to(t, child_toward(t, d))
                         : parent_link(t);
    if (c)
        queue_frame(c, type, dst, src, p, n);
}

static void on_link_frame(struct launch_tree *t, struct conn *c, int type, uint32_t dst,
                          uint32_t src, const char *p, size_t n)
{
    if (type == MSG_BYE && c->role == C_CHILD) {
        c->bye = 1;
        t->on_msg(t->ctx, type, c->vpid, p, n);
        return;
    }
    if (dst == LAUNCH_TREE_BCAST) {
        if (c->role != C_PARENT)
            return;
        forward(t, type, dst, src, p, n);
        t->on_msg(t->ctx, type, (int)src, p, n);
    } else if ((int)dst == t->me) {
        if (type == MSG_UP && t->me == 0 && (int)src > 0 && (int)src < t->size) {
            if (!t->members[src].up++)
                t->nup++;
            return;
        }
        t->on_msg(t->ctx, type, (int)src, p, n);
    } else {
        forward(t, type, dst, src, p, n);
    }
}

/* Takes every complete frame out of c's input. */
static void parse(struct launch_tree *t, struct conn *c)
{
    size_t off = 0;

    while (!c->dead && c->in_len - off >= HDR_LEN) {
        uint32_t h[4];
        memcpy(h, c->in + off, HDR_LEN);
        uint32_t len = ntohl(h[0]);
        int type = (int)(ntohl(h[1]) >> 16);
        if ((c->role == C_NEW && len > MAX_UNAUTH) || len > MAX_FRAME) {
            if (c->role == C_NEW)
                drop(t, c, "oversized first message");
            else
                lost(t, c, "oversized message");
            return;
        }
        if (c->in_len - off < HDR_LEN + len)
            break;
        const char *p = c->in + off + HDR_LEN;
        off += HDR_LEN + len;
        if (c->role == C_NEW) {
            if (type == MSG_HELLO)
                on_hello(t, c, p, len);
            else
                drop(t, c, "first message is not a hello with the job secret");
        } else if (c->role == C_CHILD || c->role == C_PARENT) {
            on_link_frame(t, c, type, ntohl(h[2]), ntohl(h[3]), p, len);
        }
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
        if (c->role == C_NEW)
            drop(t, c, "closed before presenting the job secret");
        else if (c->role == C_BOOT)
            conn_close(c); /* a daemon leaving its boot connection, as it should */
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
    return 0;
}

int launch_tree_port(const struct launch_tree *t)
{
    return t->port;
}

static void accept_all(struct launch_tree *t)
{
    while (1) {
        int fd = accept4(t->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (!conn_add(t, fd, C_NEW))
            close(fd);
    }
}

/* Blocks until c holds one complete frame, for the joining protocol. */
static int read_frame_blocking(struct conn *c, double until, int *type,
                               const char **p, size_t *n)
{
    while (1) {
        if (c->in_len >= HDR_LEN) {
            uint32_t h[4];
            memcpy(h, c->in, HDR_LEN);
            *n = ntohl(h[0]);
            if (*n > MAX_UNAUTH)
                return -EPROTO;
            if (c->in_len >= HDR_LEN + *n) {
                *type = (int)(ntohl(h[1]) >> 16);
                *p = c->in + HDR_LEN;
                return 0;
            }
        }
        if (conn_write(c) < 0)
            return -EPIPE;
        /* stdin is rdmpirun's pipe: its EOF means rdmpirun gave up on us */
        struct pollfd pfd[2] = {{.fd = c->fd, .events = POLLIN | (c->head ? POLLOUT : 0)},
                                {.fd = STDIN_FILENO, .events = POLLIN}};
        double left = until - now_s();
        if (left <= 0)
            return -ETIMEDOUT;
        if (poll(pfd, 2, (int)(left * 1000) + 1) < 0 && errno != EINTR)
            return -errno;
        if (pfd[1].revents) {
            char b[64];
            ssize_t got = read(STDIN_FILENO, b, sizeof(b));
            if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
                return -ECANCELED;
        }
        if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        if (c->in_cap - c->in_len < 4096) {
            char *in = realloc(c->in, c->in_cap + 8192);
            if (!in)
                return -ENOMEM;
            c->in = in;
            c->in_cap += 8192;
        }
        ssize_t got = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
        if (got == 0)
            return -ECONNRESET;
        if (got < 0 && errno != EAGAIN && errno != EINTR)
            return -errno;
        if (got > 0)
            c->in_len += (size_t)got;
    }
}

/*
 * A daemon joins: boot connection to rdmpirun, WELCOME, link to the parent,
 * UP. Blocks for at most `timeout` seconds. Prints why on failure.
 */
int launch_tree_join(struct launch_tree *t, const char *root_addrs, int root_port, double timeout)
{
    char err[1024], host[256] = "", addrs[1024] = "";
    double until = now_s() + timeout;
    const char *p = NULL;
    size_t n = 0;
    int type = 0, rc, fd;

    gethostname(host, sizeof(host) - 1);
    launch_net_local_addrs(addrs, sizeof(addrs));
    fd = launch_net_connect_any(root_addrs, root_port, 2.0, err, sizeof(err));
    if (fd < 0) {
        fprintf(stderr, "%s: cannot connect back to rdmpirun: %s\n", t->who, err);
        return fd;
    }
    struct conn *c = conn_add(t, fd, C_PARENT);
    if (!c) {
        close(fd);
        return -ENOMEM;
    }
    c->vpid = 0;
    send_hello(t, c, HELLO_BOOT, host, addrs);
    rc = read_frame_blocking(c, until, &type, &p, &n);
    if (rc || type != MSG_WELCOME) {
        fprintf(stderr, "%s: no welcome from rdmpirun: %s\n", t->who,
                rc ? strerror(-rc) : "unexpected message");
        return rc ? rc : -EPROTO;
    }
    struct launch_rd r = {p, n, 0};
    int parent = (int)lrd_u32(&r), pport = (int)lrd_u32(&r);
    char *paddrs = lrd_str(&r);
    c->in_len -= HDR_LEN + n;
    memmove(c->in, c->in + HDR_LEN + n, c->in_len);
    if (r.err || parent != launch_tree_parent_of(t->me)) {
        free(paddrs);
        fprintf(stderr, "%s: malformed welcome from rdmpirun\n", t->who);
        return -EPROTO;
    }
    if (parent != 0) {
        conn_close(c);
        sweep(t);
        fd = launch_net_connect_any(paddrs, pport, 2.0, err, sizeof(err));
        if (fd < 0) {
            fprintf(stderr, "%s: cannot connect to its parent daemon %d: %s\n", t->who, parent,
                    err);
            free(paddrs);
            return fd;
        }
        c = conn_add(t, fd, C_PARENT);
        if (!c) {
            close(fd);
            free(paddrs);
            return -ENOMEM;
        }
        c->vpid = parent;
        send_hello(t, c, HELLO_LINK, host, addrs);
    }
    free(paddrs);
    queue_frame(c, MSG_UP, 0, (uint32_t)t->me, NULL, 0);
    return 0;
}

int launch_tree_send(struct launch_tree *t, int type, uint32_t dst, const void *p, size_t n)
{
    if (dst == (uint32_t)t->me)
        return -EINVAL;
    forward(t, type, dst, (uint32_t)t->me, p, n);
    return 0;
}

int launch_tree_send_parent(struct launch_tree *t, int type, const void *p, size_t n)
{
    struct conn *c = parent_link(t);
    return c ? queue_frame(c, type, (uint32_t)c->vpid, (uint32_t)t->me, p, n) : -ENOTCONN;
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
    if (t->listen_fd >= 0 && n < max) {
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
        if (!c->dead && (pfd[k].revents & POLLOUT) && conn_write(c) < 0)
            lost(t, c, "connection reset");
    }
    /* Frames queued while handling go out at once when the socket takes them. */
    for (int i = 0; i < t->nconns; i++) {
        struct conn *c = t->conns[i];
        if (!c->dead && c->head && conn_write(c) < 0)
            lost(t, c, "connection reset");
    }
    t->npolled = 0;
    sweep(t);
}

/* Drops connections that did not present the secret in time. */
void launch_tree_tick(struct launch_tree *t, double now)
{
    for (int i = 0; i < t->nconns; i++) {
        struct conn *c = t->conns[i];
        if (!c->dead && c->role == C_NEW && now >= c->deadline) {
            char why[64];
            snprintf(why, sizeof(why), "no job secret within %g s", HELLO_TIMEOUT);
            drop(t, c, why);
        }
    }
    if (t->npolled == 0)
        sweep(t);
}

double launch_tree_next_deadline(const struct launch_tree *t)
{
    double next = 0;
    for (int i = 0; i < t->nconns; i++)
        if (!t->conns[i]->dead && t->conns[i]->role == C_NEW &&
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
    double until = now_s() + timeout;

    while (now_s() < until) {
        struct pollfd pfd[64];
        int n = 0;
        for (int i = 0; i < t->nconns && n < 64; i++) {
            struct conn *c = t->conns[i];
            if (c->dead || !c->head)
                continue;
            if (conn_write(c) < 0) {
                conn_close(c);
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
