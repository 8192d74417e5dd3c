/*
 * Joining the daemon tree and authenticating its connections (tree.h has
 * the protocol). The accepting side runs from the poll loop, one frame at a
 * time (tree_auth_frame); the connecting side is a daemon joining, which
 * blocks until it is in the tree or gives up (launch_tree_join).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tree_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* rdmpirun: answers a booted daemon once its parent is known. */
static void try_welcome(struct launch_tree *t, int v)
{
    struct member *m = &t->members[v];
    int p = launch_tree_parent_of(v);
    struct launch_welcome w = {.parent = (uint32_t)p};
    struct launch_buf b = {0};

    if (!m->booted || m->welcomed || !m->boot || (p != 0 && !t->members[p].booted))
        return;
    if (p) {
        w.port = (uint32_t)t->members[p].port;
        snprintf(w.addrs, sizeof(w.addrs), "%s", t->members[p].addrs);
    }
    launch_welcome_encode(&b, &w);
    if (!b.err) {
        tree_queue_frame(m->boot, MSG_WELCOME, (uint32_t)v, 0, b.p, b.len);
        m->welcomed = 1;
        if (p == 0) {
            m->boot->role = C_CHILD; /* the boot connection is the link */
            m->boot = NULL;
        }
    }
    lbuf_free(&b);
}

/* rdmpirun: a daemon proved it belongs to the job on its boot connection. */
static void on_boot(struct launch_tree *t, struct conn *c, int vpid, const struct launch_proof *pr)
{
    struct member *m = &t->members[vpid];
    size_t iplen = strcspn(c->peer, ":");

    m->booted = 1;
    m->pid = (int)pr->pid;
    m->port = (int)pr->port;
    snprintf(m->host, sizeof(m->host), "%s", pr->host);
    snprintf(m->machine, sizeof(m->machine), "%s", pr->machine);
    /* The address we saw it at comes first: the one its children can surely reach. */
    if (c->fd >= 0 && iplen < 16)
        snprintf(m->addrs, sizeof(m->addrs), "%.*s%s%s", (int)iplen, c->peer,
                 pr->addrs[0] ? "," : "", pr->addrs);
    else
        snprintf(m->addrs, sizeof(m->addrs), "%s", pr->addrs);
    m->boot = c;
    c->role = C_BOOT;
    c->vpid = vpid;
    try_welcome(t, vpid);
    for (int k = 1; k < t->size; k++) /* its children may be waiting for it */
        if (launch_tree_parent_of(k) == vpid)
            try_welcome(t, k);
}

/* Whether the member a HELLO claims to be may connect to us for that purpose now. */
static int expected(const struct launch_tree *t, const struct launch_hello *h)
{
    int v = (int)h->vpid;

    if (h->vpid >= (uint32_t)t->size)
        return 0;
    if (h->purpose == HELLO_BOOT)
        return t->me == 0 && v > 0 && !t->members[v].booted;
    return tree_is_my_child(t, v) && !tree_link_to(t, v);
}

static void on_hello(struct launch_tree *t, struct conn *c, const char *p, size_t n)
{
    struct launch_challenge ch = {.proto = LAUNCH_TREE_PROTO, .vpid = (uint32_t)t->me};
    struct launch_buf b = {0};
    const char *why;
    char msg[96];

    if (launch_hello_decode(p, n, &c->hello, &why)) {
        tree_drop(t, c, why);
        return;
    }
    if (c->hello.size != (uint32_t)t->size || c->hello.to != (uint32_t)t->me) {
        tree_drop(t, c, "a hello for another job or another member");
        return;
    }
    if (!expected(t, &c->hello)) {
        snprintf(msg, sizeof(msg), "an unexpected hello from member %u", c->hello.vpid);
        tree_drop(t, c, msg);
        return;
    }
    core_random(c->nonce, sizeof(c->nonce));
    memcpy(ch.nonce, c->nonce, sizeof(ch.nonce));
    launch_tree_mac(t->key, LAUNCH_SIDE_ACCEPT, &c->hello, (uint32_t)t->me, c->nonce, ch.mac);
    launch_challenge_encode(&b, &ch);
    if (b.err || tree_queue_frame(c, MSG_CHALLENGE, c->hello.vpid, (uint32_t)t->me, b.p, b.len)) {
        tree_drop(t, c, "out of memory");
    } else {
        c->role = C_CHALLENGED;
        tree_seal_tx(t, c, LAUNCH_SIDE_ACCEPT, &c->hello, (uint32_t)t->me, c->nonce);
    }
    lbuf_free(&b);
}

static void on_proof(struct launch_tree *t, struct conn *c, const char *p, size_t n)
{
    struct launch_proof pr;
    const char *why;
    char msg[96];

    /* The MAC first: nothing else it says counts before. */
    if (n < CORE_MAC_LEN || !launch_tree_mac_ok(t->key, LAUNCH_SIDE_CONNECT, &c->hello,
                                               (uint32_t)t->me, c->nonce, (const uint8_t *)p)) {
        snprintf(msg, sizeof(msg), "wrong proof of the job secret (claimed to be member %u)",
                 c->hello.vpid);
        tree_drop(t, c, msg);
        return;
    }
    if (launch_proof_decode(p, n, &pr, &why)) {
        tree_drop(t, c, why);
        return;
    }
    if (!expected(t, &c->hello)) { /* another connection for it got in first */
        snprintf(msg, sizeof(msg), "member %u is already in the tree", c->hello.vpid);
        tree_drop(t, c, msg);
        return;
    }
    tree_seal_rx(t, c); /* what follows its PROOF is sealed */
    if (c->hello.purpose == HELLO_BOOT) {
        on_boot(t, c, (int)c->hello.vpid, &pr);
    } else {
        c->role = C_CHILD;
        c->vpid = (int)c->hello.vpid;
    }
}

void tree_auth_frame(struct launch_tree *t, struct conn *c, int type, const char *p, size_t n)
{
    if (c->role == C_NEW && type == MSG_HELLO)
        on_hello(t, c, p, n);
    else if (c->role == C_CHALLENGED && type == MSG_PROOF)
        on_proof(t, c, p, n);
    else
        tree_drop(t, c, c->role == C_NEW ? "first message is not a hello"
                                         : "answered the challenge with something else");
}

/* Blocks until c holds one complete frame of at most LAUNCH_TREE_MAX_UNAUTH bytes, for
 * the joining protocol; *why says what went wrong when not. */
static int read_frame_blocking(struct conn *c, double until, struct launch_frame_hdr *h,
                               const char **p, const char **why)
{
    while (1) {
        int rc = launch_tree_frame_decode(c->in, c->in_len, LAUNCH_TREE_MAX_UNAUTH, h, why);
        if (rc < 0)
            return rc;
        if (rc == 0 && c->in_len >= tree_rx_frame_len(c, h->len)) {
            if (tree_rx_open(c, 0, h->len)) {
                *why = "a frame whose MAC is wrong";
                return -EACCES;
            }
            *p = c->in + LAUNCH_TREE_HDR_LEN;
            return 0;
        }
        *why = "connection reset";
        if (tree_conn_write(c) < 0)
            return -EPIPE;
        /* stdin is rdmpirun's pipe: its EOF means rdmpirun gave up on us */
        struct pollfd pfd[2] = {{.fd = c->fd, .events = POLLIN | (c->head ? POLLOUT : 0)},
                                {.fd = STDIN_FILENO, .events = POLLIN}};
        double left = until - tree_now();
        *why = "no answer in time";
        if (left <= 0)
            return -ETIMEDOUT;
        if (poll(pfd, 2, (int)(left * 1000) + 1) < 0 && errno != EINTR) {
            *why = strerror(errno);
            return -errno;
        }
        if (pfd[1].revents) {
            char b[64];
            ssize_t got = read(STDIN_FILENO, b, sizeof(b));
            *why = "rdmpirun is gone (its pipe closed)";
            if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
                return -ECANCELED;
        }
        if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        if (c->in_cap - c->in_len < 4096) {
            char *in = realloc(c->in, c->in_cap + 8192);
            *why = "out of memory";
            if (!in)
                return -ENOMEM;
            c->in = in;
            c->in_cap += 8192;
        }
        ssize_t got = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
        *why = got == 0 ? "connection closed" : strerror(errno);
        if (got == 0)
            return -ECONNRESET;
        if (got < 0 && errno != EAGAIN && errno != EINTR)
            return -errno;
        if (got > 0)
            c->in_len += (size_t)got;
    }
}

/* Takes the frame read_frame_blocking returned (its MAC, if sealed, was checked and
 * counted there: rx_sealed cannot change in between). */
static void consume(struct conn *c, size_t payload)
{
    size_t n = tree_rx_frame_len(c, payload);
    c->in_len -= n;
    memmove(c->in, c->in + n, c->in_len);
}

/*
 * The connecting side of the handshake on c, to member `to`: HELLO, check the
 * CHALLENGE's proof, PROOF with what we tell about ourselves. Prints why on failure
 * (naming the address) and returns a negative code.
 */
static int authenticate(struct launch_tree *t, struct conn *c, int purpose, int to,
                        const char *host, const char *addrs, double until)
{
    struct launch_hello h = {.proto = LAUNCH_TREE_PROTO, .purpose = (uint32_t)purpose,
                             .vpid = (uint32_t)t->me, .to = (uint32_t)to,
                             .size = (uint32_t)t->size};
    struct launch_proof pr = {.pid = (uint32_t)getpid(), .port = (uint32_t)t->port};
    struct launch_challenge ch;
    struct launch_frame_hdr fh;
    struct launch_buf b = {0};
    const char *p, *why = "";
    const char *whom = to == 0 ? "rdmpirun" : "its parent daemon";
    int rc;

    core_random(h.nonce, sizeof(h.nonce));
    launch_hello_encode(&b, &h);
    rc = b.err ? -ENOMEM : tree_queue_frame(c, MSG_HELLO, (uint32_t)to, (uint32_t)t->me, b.p, b.len);
    lbuf_free(&b);
    if (rc)
        return rc;
    if (until > tree_now() + HELLO_TIMEOUT)
        until = tree_now() + HELLO_TIMEOUT; /* it drops us after that anyway */
    rc = read_frame_blocking(c, until, &fh, &p, &why);
    if (!rc && fh.type != MSG_CHALLENGE) {
        why = "it answered with something else than a challenge";
        rc = -EPROTO;
    }
    if (!rc && launch_challenge_decode(p, fh.len, &ch, &why))
        rc = -EPROTO;
    if (!rc && ch.vpid != (uint32_t)to) {
        why = "another member answered";
        rc = -EPROTO;
    }
    if (!rc && !launch_tree_mac_ok(t->key, LAUNCH_SIDE_ACCEPT, &h, (uint32_t)to, ch.nonce, ch.mac)) {
        why = "wrong proof of the job secret";
        rc = -EACCES;
    }
    if (rc) {
        fprintf(stderr, "%s: %s at %s did not authenticate: %s\n", t->who, whom, c->peer, why);
        return rc;
    }
    consume(c, fh.len);
    launch_tree_mac(t->key, LAUNCH_SIDE_CONNECT, &h, (uint32_t)to, ch.nonce, pr.mac);
    /* The CHALLENGE was the last frame taken unsealed, the PROOF is the last one sent so. */
    snprintf(pr.host, sizeof(pr.host), "%s", host);
    snprintf(pr.addrs, sizeof(pr.addrs), "%s", addrs);
    snprintf(pr.machine, sizeof(pr.machine), "%s", t->machine);
    launch_proof_encode(&b, &pr);
    rc = b.err ? -ENOMEM : tree_queue_frame(c, MSG_PROOF, (uint32_t)to, (uint32_t)t->me, b.p, b.len);
    lbuf_free(&b);
    if (!rc) {
        tree_seal_tx(t, c, LAUNCH_SIDE_CONNECT, &h, (uint32_t)to, ch.nonce);
        tree_seal_rx(t, c);
    }
    return rc;
}

/* A connection to a member, authenticated; NULL after printing why not. */
static struct conn *link_up(struct launch_tree *t, const char *addrs, int port, int purpose,
                            int to, const char *host, const char *myaddrs, double until)
{
    char err[1024];
    int fd = launch_net_connect_any(addrs, port, 2.0, err, sizeof(err));
    struct conn *c;

    if (fd < 0) {
        fprintf(stderr, "%s: cannot connect to %s: %s\n", t->who,
                to == 0 ? "rdmpirun" : "its parent daemon", err);
        return NULL;
    }
    c = tree_conn_add(t, fd, C_PARENT);
    if (!c) {
        close(fd);
        return NULL;
    }
    c->vpid = to;
    if (authenticate(t, c, purpose, to, host, myaddrs, until)) {
        tree_conn_close(c);
        tree_sweep(t);
        return NULL;
    }
    return c;
}

/* UP in a tree launch: what rdmpirun learns in a flat one from the boot PROOF. */
static void send_up(struct launch_tree *t, struct conn *c, const char *host, const char *addrs)
{
    struct launch_proof pr = {.pid = (uint32_t)getpid(), .port = (uint32_t)t->port};
    struct launch_buf b = {0};

    snprintf(pr.host, sizeof(pr.host), "%s", host);
    snprintf(pr.addrs, sizeof(pr.addrs), "%s", addrs);
    snprintf(pr.machine, sizeof(pr.machine), "%s", t->machine);
    launch_proof_encode(&b, &pr);
    if (!b.err)
        tree_queue_frame(c, MSG_UP, 0, (uint32_t)t->me, b.p, b.len);
    lbuf_free(&b);
}

/*
 * A daemon joins. Flat launch: boot connection to rdmpirun, WELCOME, link to the parent,
 * UP. Tree launch (direct): link to the parent at addrs:port, UP with what we are.
 * Blocks for at most `timeout` seconds. Prints why on failure.
 */
int launch_tree_join(struct launch_tree *t, const char *root_addrs, int root_port, int direct,
                     double timeout)
{
    char host[LAUNCH_HOST_MAX + 1] = "", addrs[LAUNCH_ADDRS_MAX + 1] = "";
    double until = tree_now() + timeout;
    struct launch_frame_hdr fh;
    struct launch_welcome w;
    const char *p = NULL, *why = "";
    struct conn *c;
    int rc;

    gethostname(host, sizeof(host) - 1);
    launch_net_local_addrs(addrs, sizeof(addrs));
    if (direct) {
        int parent = launch_tree_parent_of(t->me);
        c = link_up(t, root_addrs, root_port, HELLO_LINK, parent, host, addrs, until);
        if (!c)
            return -ECONNREFUSED;
        c->backlog = c->in_len > 0;
        send_up(t, c, host, addrs);
        return 0;
    }
    c = link_up(t, root_addrs, root_port, HELLO_BOOT, 0, host, addrs, until);
    if (!c)
        return -ECONNREFUSED;
    rc = read_frame_blocking(c, until, &fh, &p, &why);
    if (!rc && fh.type != MSG_WELCOME) {
        why = "unexpected message";
        rc = -EPROTO;
    }
    if (!rc && launch_welcome_decode(p, fh.len, &w, &why))
        rc = -EPROTO;
    if (!rc && w.parent != (uint32_t)launch_tree_parent_of(t->me)) {
        why = "a welcome naming another parent";
        rc = -EPROTO;
    }
    if (rc) {
        fprintf(stderr, "%s: no welcome from rdmpirun: %s\n", t->who, why);
        return rc;
    }
    consume(c, fh.len);
    if (w.parent != 0) {
        tree_conn_close(c);
        tree_sweep(t);
        c = link_up(t, w.addrs, (int)w.port, HELLO_LINK, (int)w.parent, host, addrs, until);
        if (!c)
            return -ECONNREFUSED;
    }
    /* Frames the parent sent right behind its handshake are in c->in already: poll would
     * not report them, so the next tick parses them. */
    c->backlog = c->in_len > 0;
    tree_queue_frame(c, MSG_UP, 0, (uint32_t)t->me, NULL, 0);
    return 0;
}
