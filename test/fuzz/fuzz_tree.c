/*
 * Fuzz target: the daemon tree's frames (launcher/tree.c), read from a
 * connection as rdmpirun or an rdmpid reads them: through the tree's own
 * entry points (launch_tree_create/listen/join/fill_pollfds/handle/tick).
 *
 * The sockets are replaced at link time (ld --wrap, for tree.c's calls
 * only): accept4 and connect hand out one fake connection whose recv serves
 * the input in pieces, send swallows what the tree writes, poll says the
 * connection is readable. Nothing touches the network.
 *
 * Input: a mode byte, then the bytes the peer sends.
 *   mode & 3 == 0: rdmpirun (member 0 of 8) accepts a connection;
 *             1: the same, the peer first says a valid HELLO as daemon 1
 *                (so the rest are frames of an authenticated child link);
 *             2: daemon 2 accepts a connection from its child 3, HELLO first;
 *             3: daemon 1 joins: the input is what rdmpirun answers on the
 *                boot connection (a WELCOME, then frames of the parent link).
 *   mode >> 2: index into a table of read sizes.
 * Properties: every message handed to the owner lies inside memory the
 * tree owns (its bytes are read), its type and length are what the frame
 * said; the tree frees everything (LeakSanitizer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fuzz.h"
#include "launcher/tree.h"

#define SIZE 8
static const char secret[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/* ---- the fake connection ---- */

static struct {
    const uint8_t *p;
    size_t left, chunk;
    int again;       /* the next recv says EAGAIN: the owner polls again */
    int eof_sent;
    int pending;     /* accept4 has a connection to hand out */
} net;

static int fake_fd(void)
{
    return open("/dev/null", O_RDWR | O_CLOEXEC);
}

int __wrap_launch_net_listen(int *port)
{
    *port = 4242;
    return fake_fd();
}

int __wrap_launch_net_connect_any(const char *addrs, int port, double timeout, char *err,
                                  size_t errlen)
{
    return fake_fd();
}

void __wrap_launch_net_local_addrs(char *buf, size_t len)
{
    snprintf(buf, len, "10.0.0.2");
}

void __wrap_launch_net_machine_id(char *buf, size_t len)
{
    snprintf(buf, len, "fuzz-machine");
}

int __wrap_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
    if (!net.pending) {
        errno = EAGAIN;
        return -1;
    }
    net.pending = 0;
    return fake_fd();
}

int __wrap_getpeername(int fd, struct sockaddr *sa, socklen_t *len)
{
    errno = ENOTCONN;
    return -1;
}

ssize_t __wrap_send(int fd, const void *buf, size_t n, int flags)
{
    const volatile uint8_t *b = buf;
    for (size_t i = 0; i < n; i++) /* what the tree writes must be its own memory */
        (void)b[i];
    return (ssize_t)n;
}

ssize_t __wrap_recv(int fd, void *buf, size_t n, int flags)
{
    if (net.again) {
        net.again = 0;
        errno = EAGAIN;
        return -1;
    }
    if (!net.left) {
        net.eof_sent = 1;
        return 0;
    }
    size_t k = n < net.left ? n : net.left;
    if (net.chunk && k > net.chunk)
        k = net.chunk;
    memcpy(buf, net.p, k);
    net.p += k;
    net.left -= k;
    net.again = 1;
    return (ssize_t)k;
}

int __wrap_poll(struct pollfd *pfd, nfds_t n, int timeout)
{
    for (nfds_t i = 0; i < n; i++)
        pfd[i].revents = i == 0 ? (pfd[i].events & (POLLIN | POLLOUT)) : 0;
    return 1;
}

/* ---- the owner ---- */

static unsigned delivered;

static void on_msg(void *ctx, int type, int src, const char *p, size_t n)
{
    const volatile char *b = p;
    uint8_t sum = 0;
    FUZZ_CHECK(n == 0 || p);
    for (size_t i = 0; i < n; i++)
        sum += (uint8_t)b[i];
    (void)sum;
    delivered++;
}

static void on_lost(void *ctx, int vpid, const char *why)
{
    FUZZ_CHECK(why && (vpid == -1 || (vpid > 0 && vpid < SIZE)));
}

/* A HELLO frame as a daemon sends it (tree.h's format, built with launch_buf). */
static void put_hello(struct launch_buf *b, int vpid, int purpose)
{
    struct launch_buf h = { 0 };
    lbuf_str(&h, secret);
    lbuf_u32(&h, (uint32_t)vpid);
    lbuf_u32(&h, (uint32_t)purpose);
    lbuf_u32(&h, 4242);
    lbuf_str(&h, "node3");
    lbuf_u32(&h, 5555);
    lbuf_str(&h, "10.0.0.3");
    lbuf_str(&h, "m3");
    lbuf_u32(b, (uint32_t)h.len);
    lbuf_u32(b, (uint32_t)MSG_HELLO << 16);
    lbuf_u32(b, (uint32_t)launch_tree_parent_of(vpid));
    lbuf_u32(b, (uint32_t)vpid);
    lbuf_raw(b, h.p, h.len);
    lbuf_free(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t chunks[] = { 0, 1, 7, 16, 17, 100, 4096, 0 };
    fuzz_quiet();
    if (size < 1)
        return 0;
    int mode = data[0] & 3, me = mode == 2 ? 2 : mode == 3 ? 1 : 0;
    struct launch_buf in = { 0 };
    if (mode == 1)
        put_hello(&in, 1, HELLO_BOOT);
    if (mode == 2)
        put_hello(&in, 3, HELLO_LINK);
    lbuf_raw(&in, data + 1, size - 1);
    FUZZ_CHECK(!in.err);
    memset(&net, 0, sizeof(net));
    net.p = (const uint8_t *)in.p;
    net.left = in.len;
    net.chunk = chunks[(data[0] >> 2) & 7];
    delivered = 0;

    struct launch_tree *t = launch_tree_create(SIZE, me, secret, "fuzz", on_msg, on_lost, NULL);
    FUZZ_CHECK(t);
    if (mode == 3) {
        if (launch_tree_join(t, "10.0.0.1", 4242, 5.0) != 0)
            goto out;
    } else {
        FUZZ_CHECK(launch_tree_listen(t) == 0);
        net.pending = 1;
    }
    /* The owner's poll loop, until the peer's bytes and its EOF are read. */
    for (int round = 0; round < 100000 && !net.eof_sent; round++) {
        struct pollfd pfd[16];
        int n = launch_tree_fill_pollfds(t, pfd, 16);
        if (n == 0)
            break;
        for (int i = 0; i < n; i++)
            pfd[i].revents = POLLIN | (pfd[i].events & POLLOUT);
        launch_tree_handle(t, pfd, n);
        if (launch_tree_npollfds(t) <= 1 && !net.pending && mode != 3)
            break; /* the connection was dropped */
    }
    launch_tree_tick(t, 1e12); /* every unauthenticated connection is overdue */
out:
    launch_tree_destroy(t);
    lbuf_free(&in);
    return 0;
}

#ifdef FUZZ_SEEDS
static void frame(struct launch_buf *b, int type, uint32_t dst, uint32_t src, const void *p,
                  size_t n)
{
    lbuf_u32(b, (uint32_t)n);
    lbuf_u32(b, (uint32_t)type << 16);
    lbuf_u32(b, dst);
    lbuf_u32(b, src);
    lbuf_raw(b, p, n);
}

static void seed(const char *name, int mode, const struct launch_buf *b)
{
    struct launch_buf s = { 0 };
    lbuf_raw(&s, &(char){ (char)mode }, 1);
    lbuf_raw(&s, b->p, b->len);
    fuzz_seed(name, s.p, s.len);
    lbuf_free(&s);
}

void fuzz_make_seeds(void)
{
    struct launch_buf b = { 0 }, p = { 0 };
    /* Mode 0: a daemon's boot HELLO, then UP and an EXIT report. */
    put_hello(&b, 1, HELLO_BOOT);
    frame(&b, MSG_UP, 0, 1, NULL, 0);
    lbuf_u32(&p, 3);
    lbuf_u32(&p, 0);
    lbuf_u32(&p, 1);
    lbuf_u32(&p, 1);
    frame(&b, MSG_EXIT, 0, 1, p.p, p.len);
    seed("boot-hello-up-exit", 0, &b);
    b.len = 0;
    /* Mode 0: no secret; a wrong first message; an oversized first frame. */
    frame(&b, MSG_UP, 0, 1, NULL, 0);
    seed("not-hello", 0 | 4 << 2, &b);
    b.len = 0;
    lbuf_u32(&b, 5000);
    lbuf_u32(&b, MSG_HELLO << 16);
    seed("oversized-hello", 0, &b);
    b.len = 0;
    /* Mode 1: an authenticated child routes to a grandchild, the root, a bcast. */
    frame(&b, MSG_IO, 0, 1, "\0\0\0\1\0\0\0\0\0\0\0\3abc", 15);
    frame(&b, MSG_DMODEX_REQ, 5, 1, "\0\0\0\7\0\0\0\2", 8);
    frame(&b, MSG_SIGNAL, LAUNCH_TREE_BCAST, 1, "\0\0\0\x0f\0\0\0\1", 8);
    frame(&b, MSG_BYE, 0, 1, NULL, 0);
    seed("child-frames", 1 | 2 << 2, &b);
    b.len = 0;
    /* Mode 2: a child link of a daemon: UP for the root, FENCE_UP. */
    frame(&b, MSG_UP, 0, 3, NULL, 0);
    frame(&b, MSG_FENCE_UP, 2, 3, "\0\0\0\1\0\0\0\0", 8);
    seed("link-frames", 2 | 1 << 2, &b);
    b.len = 0;
    /* Mode 3: rdmpirun's WELCOME, then a LAUNCH-sized bcast and a SHUTDOWN. */
    p.len = 0;
    lbuf_u32(&p, 0);
    lbuf_u32(&p, 0);
    lbuf_str(&p, "");
    frame(&b, MSG_WELCOME, 1, 0, p.p, p.len);
    frame(&b, MSG_LAUNCH, LAUNCH_TREE_BCAST, 0, "\0\0\0\4rdmp", 8);
    frame(&b, MSG_SHUTDOWN, LAUNCH_TREE_BCAST, 0, NULL, 0);
    seed("join-welcome", 3 | 5 << 2, &b);
    lbuf_free(&b);
    lbuf_free(&p);
}
#endif
