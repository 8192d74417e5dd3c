/*
 * Fuzz target: the daemon tree (launcher/tree.c, treeauth.c, treewire.c):
 * its frames read from a connection as rdmpirun or an rdmpid reads them,
 * through the tree's own entry points (launch_tree_create/listen/join/
 * fill_pollfds/handle/tick), the same bytes fed to launch_tree_feed, and
 * the wire decoders of treewire.c called directly.
 *
 * The sockets are replaced at link time (ld --wrap, for the tree's calls
 * only): accept4 and connect hand out fake connections whose recv serves
 * the input in pieces, send hands what the tree writes to the fake peer,
 * poll says the connection is readable. Nothing touches the network.
 *
 * The fake peer knows the job's secret and plays its side of the handshake
 * (tree.h) unless the input says raw: it reads the HELLO and PROOF the tree
 * sends (and checks that the PROOF's MAC is right) and answers them with a
 * CHALLENGE whose MAC it computes, and when it is the connecting side it
 * says HELLO first and answers the tree's CHALLENGE with a PROOF. The
 * answers are served before the rest of the input, so the input's frames
 * are those of an authenticated link.
 *
 * Input: a mode byte, then mode-specific bytes.
 *   mode & 7 == 0: rdmpirun (member 0 of 8) accepts; the peer boots as daemon 1
 *                  (the boot connection becomes its link);
 *               1: rdmpirun accepts; the peer boots as daemon 3 (its parent 2
 *                  is not booted: the connection waits for WELCOME);
 *               2: daemon 2 accepts a link from its child 3;
 *               3: daemon 1 joins: the input is what rdmpirun sends after its
 *                  CHALLENGE (a WELCOME, then frames of the parent link);
 *               4: daemon 3 joins: the same, a WELCOME naming parent 2, then
 *                  (after the second handshake) frames from daemon 2;
 *               5, 7: launch_tree_feed: a member byte (& 7), then records
 *                  (state byte, peer byte, 16-bit length, bytes) fed in turn;
 *               6: a decoder of treewire.c, chosen by the next byte, on the rest.
 *   (mode >> 3) & 7: index into a table of read sizes; mode & 0x40: raw (the
 *   peer does not play the handshake: the input is all it says).
 * Links are not sealed here (launch_tree_unseal): the input's frames carry no MACs.
 * Properties: every message handed to the owner lies inside memory the tree
 * owns, the tree's PROOF carries the right MAC, an accepted handshake message
 * encodes back to the same bytes, decoded fence entries and blobs lie inside
 * the payload, route checks say 0 or -EPERM; the tree frees everything
 * (LeakSanitizer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fuzz.h"
#include "launcher/tree.h"

#define SIZE 8
static const char secret[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/* ---- the fake peer ---- */

static struct {
    const uint8_t *p;      /* the input's bytes for the peer to say */
    size_t left, served;
    size_t stop;           /* served no further than this until the handshake lifts it */
    size_t chunk;
    int again;             /* the next recv says EAGAIN: the owner polls again */
    int eof_sent;
    int pending;           /* accept4 has a connection to hand out */
    int raw;               /* the peer does not play the handshake */
    struct launch_buf inj; /* the peer's handshake answers, served before the input */
    size_t inj_off;
    struct launch_buf out; /* what the tree sent, until it is a whole frame */
    struct launch_hello my_hello;   /* the HELLO the peer said (it connects) */
    struct launch_hello tree_hello; /* the HELLO the tree said (it connects) */
    int have_tree_hello, proofs_ok;
    uint8_t key[CORE_KEY_LEN];
} net;

static const uint8_t peer_nonce[LAUNCH_NONCE_LEN] = "the fake peer's nonce, 32 bytes";

static void put_frame(struct launch_buf *b, int type, uint32_t dst, uint32_t src, const void *p,
                      size_t n)
{
    char h[LAUNCH_TREE_HDR_LEN];
    launch_tree_frame_encode(h, type, dst, src, (uint32_t)n);
    lbuf_raw(b, h, sizeof(h));
    lbuf_raw(b, p, n);
}

/* A HELLO from member vpid to member `to`, as a connecting member says it. */
static void put_hello(struct launch_buf *b, int vpid, int to, int purpose)
{
    struct launch_buf h = { 0 };
    net.my_hello = (struct launch_hello){ .proto = LAUNCH_TREE_PROTO, .purpose = (uint32_t)purpose,
                                          .vpid = (uint32_t)vpid, .to = (uint32_t)to,
                                          .size = SIZE };
    memcpy(net.my_hello.nonce, peer_nonce, LAUNCH_NONCE_LEN);
    launch_hello_encode(&h, &net.my_hello);
    put_frame(b, MSG_HELLO, (uint32_t)to, (uint32_t)vpid, h.p, h.len);
    lbuf_free(&h);
}

/* The peer's side of the handshake, on one whole frame the tree sent. */
static void peer_sees(int type, uint32_t dst, uint32_t src, const char *p, size_t n)
{
    struct launch_buf b = { 0 };
    const char *why;
    if (type == MSG_CHALLENGE && !net.raw) { /* we connected: check its MAC, prove ours */
        struct launch_challenge ch;
        FUZZ_CHECK(launch_challenge_decode(p, n, &ch, &why) == 0);
        FUZZ_CHECK(launch_tree_mac_ok(net.key, LAUNCH_SIDE_ACCEPT, &net.my_hello, ch.vpid,
                                      ch.nonce, ch.mac));
        struct launch_proof pr = { .pid = 4242, .port = 5555 };
        launch_tree_mac(net.key, LAUNCH_SIDE_CONNECT, &net.my_hello, ch.vpid, ch.nonce, pr.mac);
        snprintf(pr.host, sizeof(pr.host), "node3");
        snprintf(pr.addrs, sizeof(pr.addrs), "10.0.0.3");
        snprintf(pr.machine, sizeof(pr.machine), "m3");
        launch_proof_encode(&b, &pr);
        put_frame(&net.inj, MSG_PROOF, ch.vpid, net.my_hello.vpid, b.p, b.len);
        net.stop = SIZE_MAX;
    } else if (type == MSG_HELLO) { /* it connects: challenge it */
        struct launch_challenge ch = { .proto = LAUNCH_TREE_PROTO };
        FUZZ_CHECK(launch_hello_decode(p, n, &net.tree_hello, &why) == 0);
        FUZZ_CHECK(net.tree_hello.size == SIZE && net.tree_hello.to == dst &&
                   net.tree_hello.vpid == src);
        net.have_tree_hello = 1;
        ch.vpid = net.tree_hello.to;
        memcpy(ch.nonce, peer_nonce, LAUNCH_NONCE_LEN);
        launch_tree_mac(net.key, LAUNCH_SIDE_ACCEPT, &net.tree_hello, ch.vpid, ch.nonce, ch.mac);
        launch_challenge_encode(&b, &ch);
        if (!net.raw)
            put_frame(&net.inj, MSG_CHALLENGE, src, dst, b.p, b.len);
    } else if (type == MSG_PROOF && net.have_tree_hello) { /* only after our right CHALLENGE */
        FUZZ_CHECK(n >= CORE_MAC_LEN &&
                   launch_tree_mac_ok(net.key, LAUNCH_SIDE_CONNECT, &net.tree_hello,
                                      net.tree_hello.to, peer_nonce, (const uint8_t *)p));
        struct launch_proof pr;
        FUZZ_CHECK(launch_proof_decode(p, n, &pr, &why) == 0);
        net.proofs_ok++;
    } else if (type == MSG_UP && net.have_tree_hello) {
        net.stop = SIZE_MAX; /* the tree joined: the rest of the input is its parent's */
    }
    FUZZ_CHECK(!b.err && !net.inj.err);
    lbuf_free(&b);
}

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
    struct launch_frame_hdr h;
    const char *why;
    lbuf_raw(&net.out, buf, n); /* also checks that it is the tree's own memory */
    FUZZ_CHECK(!net.out.err);
    while (1) {
        int rc = launch_tree_frame_decode(net.out.p, net.out.len, LAUNCH_TREE_MAX_FRAME, &h, &why);
        FUZZ_CHECK(rc >= 0); /* the tree sends only valid frames */
        if (rc)
            break;
        peer_sees(h.type, h.dst, h.src, net.out.p + LAUNCH_TREE_HDR_LEN, h.len);
        net.out.len -= LAUNCH_TREE_HDR_LEN + h.len;
        memmove(net.out.p, net.out.p + LAUNCH_TREE_HDR_LEN + h.len, net.out.len);
    }
    return (ssize_t)n;
}

ssize_t __wrap_recv(int fd, void *buf, size_t n, int flags)
{
    size_t k;
    if (net.again) {
        net.again = 0;
        errno = EAGAIN;
        return -1;
    }
    if (net.inj_off < net.inj.len) { /* the handshake first, alone */
        k = net.inj.len - net.inj_off;
        k = n < k ? n : k;
        if (net.chunk && k > net.chunk)
            k = net.chunk;
        memcpy(buf, net.inj.p + net.inj_off, k);
        net.inj_off += k;
        net.again = 1;
        return (ssize_t)k;
    }
    if (!net.left) {
        net.eof_sent = 1;
        return 0;
    }
    if (net.served >= net.stop) { /* waits for the handshake */
        errno = EAGAIN;
        return -1;
    }
    k = n < net.left ? n : net.left;
    if (k > net.stop - net.served)
        k = net.stop - net.served;
    if (net.chunk && k > net.chunk)
        k = net.chunk;
    memcpy(buf, net.p, k);
    net.p += k;
    net.left -= k;
    net.served += k;
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

static void on_msg(void *ctx, int type, int src, const char *p, size_t n)
{
    const volatile char *b = p;
    uint8_t sum = 0;
    FUZZ_CHECK(n == 0 || p);
    FUZZ_CHECK(type >= MSG_HELLO && type <= MSG_LAST && src >= 0 && src < SIZE);
    for (size_t i = 0; i < n; i++)
        sum += (uint8_t)b[i];
    (void)sum;
}

static void on_lost(void *ctx, int vpid, const char *why)
{
    FUZZ_CHECK(why && (vpid == -1 || (vpid > 0 && vpid < SIZE)));
}

/* The connection's life in the owner's poll loop, with a peer that connects (modes 0-2)
 * or that the tree joins (3, 4). */
static void run_socket(int mode, const uint8_t *data, size_t size)
{
    static const int me_of[] = { 0, 0, 2, 1, 3 };
    int me = me_of[mode];
    net.p = data;
    net.left = size;
    net.stop = net.raw ? SIZE_MAX : 0;
    if (!net.raw && mode <= 2)
        put_hello(&net.inj, mode == 0 ? 1 : 3, me, mode == 2 ? HELLO_LINK : HELLO_BOOT);
    if (!net.raw && mode >= 3) {
        /* The boot connection gets the first frame (the WELCOME); the rest waits until
         * the tree says UP on its link to the parent (the boot connection in mode 3):
         * frames that came with the WELCOME would be read only with the next bytes. */
        struct launch_frame_hdr h;
        const char *why;
        int rc = launch_tree_frame_decode(data, size, LAUNCH_TREE_MAX_FRAME, &h, &why);
        net.stop = rc < 0 || size < LAUNCH_TREE_HDR_LEN ? SIZE_MAX
                                                                      : LAUNCH_TREE_HDR_LEN + h.len;
    }
    struct launch_tree *t = launch_tree_create(SIZE, me, secret, "fuzz", on_msg, on_lost, NULL);
    FUZZ_CHECK(t);
    /* The input's frames carry no seals: the fuzzer could not make them, and the decoders
     * behind the check are what this target is for (test_launch_wire covers the seals). */
    launch_tree_unseal(t);
    if (mode >= 3) {
        if (launch_tree_join(t, "10.0.0.1", 4242, 0, 5.0) != 0)
            goto out;
        FUZZ_CHECK(net.raw || net.proofs_ok >= 1); /* the boot connection's */
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
        if (launch_tree_npollfds(t) <= 1 && !net.pending && mode < 3)
            break; /* the connection was dropped */
    }
    launch_tree_tick(t, 1e12); /* every unauthenticated connection is overdue */
out:
    launch_tree_destroy(t);
}

/* Records fed to launch_tree_feed on links of one member. */
static void run_feed(fuzz_in_t *in)
{
    int me = fuzz_u8(in) & 7;
    struct launch_tree *t = launch_tree_create(SIZE, me, secret, "fuzz", on_msg, on_lost, NULL);
    FUZZ_CHECK(t);
    while (in->left) {
        int state = 1 + fuzz_u8(in) % 3, pick = fuzz_u8(in), peer = 0;
        size_t len = fuzz_u8(in);
        len |= (size_t)fuzz_u8(in) << 8;
        if (len > in->left)
            len = in->left;
        int kids[SIZE], nkids = 0;
        for (int v = me + 1; v < SIZE; v++)
            if (launch_tree_parent_of(v) == me)
                kids[nkids++] = v;
        if (state == LAUNCH_FEED_PARENT && me == 0)
            state = LAUNCH_FEED_NEW;
        if (state == LAUNCH_FEED_CHILD && nkids == 0)
            state = LAUNCH_FEED_NEW;
        if (state == LAUNCH_FEED_PARENT)
            peer = launch_tree_parent_of(me);
        if (state == LAUNCH_FEED_CHILD)
            peer = kids[pick % nkids];
        int open = launch_tree_feed(t, state, peer, in->p, len);
        FUZZ_CHECK(open == 0 || open == 1);
        in->p += len;
        in->left -= len;
    }
    launch_tree_tick(t, 1e12);
    launch_tree_destroy(t);
}

static int in_payload(const char *q, size_t qn, const char *p, size_t n)
{
    return q >= p && (size_t)(q - p) <= n && qn <= n - (size_t)(q - p);
}

/* An accepted message encodes back to the same bytes: every byte was accounted for. */
static void same_bytes(const struct launch_buf *b, const char *p, size_t n)
{
    FUZZ_CHECK(!b->err && b->len == n && (n == 0 || memcmp(b->p, p, n) == 0));
}

/* One decoder of treewire.c on the rest of the input. */
static void run_decoder(fuzz_in_t *in)
{
    int which = fuzz_u8(in) & 15; /* 7 and 9-15: the direction rules */
    const char *why = NULL;
    struct launch_buf b = { 0 };
    if (which == 0) {
        struct launch_frame_hdr h;
        size_t max = fuzz_u32(in) % (LAUNCH_TREE_MAX_FRAME + 1);
        int rc = launch_tree_frame_decode(in->p, in->left, max, &h, &why);
        FUZZ_CHECK(rc == 0 || rc == 1 || ((rc == -EPROTO || rc == -EMSGSIZE) && why));
        if (rc == 0)
            FUZZ_CHECK(h.len <= max && h.len <= in->left - LAUNCH_TREE_HDR_LEN &&
                       h.type >= MSG_HELLO && h.type <= MSG_LAST);
        return;
    }
    const char *p = (const char *)in->p;
    size_t n = in->left;
    if (which == 1) {
        struct launch_hello h;
        if (launch_hello_decode(p, n, &h, &why) == 0) {
            launch_hello_encode(&b, &h);
            same_bytes(&b, p, n);
        }
    } else if (which == 2) {
        struct launch_challenge c;
        if (launch_challenge_decode(p, n, &c, &why) == 0) {
            launch_challenge_encode(&b, &c);
            same_bytes(&b, p, n);
        }
    } else if (which == 3) {
        struct launch_proof pr;
        if (launch_proof_decode(p, n, &pr, &why) == 0) {
            launch_proof_encode(&b, &pr);
            same_bytes(&b, p, n);
        }
    } else if (which == 4) {
        struct launch_welcome w;
        if (launch_welcome_decode(p, n, &w, &why) == 0) {
            launch_welcome_encode(&b, &w);
            same_bytes(&b, p, n);
        }
    } else if (which == 5) {
        struct launch_fence_msg m;
        int type = MSG_FENCE_UP + fuzz_u8(in) % 3 - 1; /* FENCE_UP, FENCE_DOWN or another */
        int nranks = 1 + fuzz_u8(in) * 4, nnodes = 1 + fuzz_u8(in) % 64;
        p = (const char *)in->p;
        n = in->left;
        if (launch_fence_decode(type, p, n, nranks, nnodes, &m, &why) == 0) {
            FUZZ_CHECK(m.sig && (type == MSG_FENCE_UP || type == MSG_FENCE_DOWN));
            for (uint32_t i = 0; i < m.n; i++)
                FUZZ_CHECK(m.e[i].node < (uint32_t)nnodes &&
                           in_payload(m.e[i].blob, m.e[i].len, p, n));
            FUZZ_CHECK(type != MSG_FENCE_DOWN || in_payload(m.all, m.all_len, p, n));
        }
        launch_fence_msg_free(&m);
    } else if (which == 6) {
        struct launch_dmodex_msg m;
        int type = MSG_DMODEX_REQ + fuzz_u8(in) % 3, nranks = 1 + fuzz_u8(in) * 4;
        p = (const char *)in->p;
        n = in->left;
        if (launch_dmodex_decode(type, p, n, nranks, &m, &why) == 0) {
            FUZZ_CHECK(type == MSG_DMODEX_REQ ? m.rank < (uint32_t)nranks
                                              : m.status <= 0 && in_payload(m.data, m.len, p, n));
        }
    } else if (which == 8) {
        static struct launch_agents a; /* 40 KiB */
        int size = 1 + fuzz_u8(in) % 64, me = fuzz_u8(in) % 64;
        p = (const char *)in->p;
        n = in->left;
        if (launch_agents_decode(p, n, size, me, &a, &why) == 0) {
            FUZZ_CHECK(a.n >= 1 && a.n <= LAUNCH_AGENTS_KIDS && a.rdmpid[0] == '/');
            for (uint32_t i = 0; i < a.n; i++)
                FUZZ_CHECK(a.vpid[i] < (uint32_t)size && launch_tree_parent_of((int)a.vpid[i]) == me &&
                           a.name[i][0] && a.name[i][0] != '-' && !strchr(a.name[i], ' '));
            launch_agents_encode(&b, &a);
            same_bytes(&b, p, n);
        } else {
            FUZZ_CHECK(why);
        }
    } else {
        int size = 1 + fuzz_u8(in) % 64, me = fuzz_u8(in) % 66 - 1, link = fuzz_u8(in) % 3;
        int peer = fuzz_u8(in) % 66 - 1, type = fuzz_u8(in) % (MSG_LAST + 2);
        uint32_t dst = fuzz_u32(in), src = fuzz_u32(in);
        if (dst % 7 == 1)
            dst = LAUNCH_TREE_BCAST;
        else if (dst > 80)
            dst %= 80;
        if (src > 80)
            src %= 80;
        int rc = launch_tree_route_check(size, me, link, peer, type, dst, src, &why);
        FUZZ_CHECK(rc == 0 ? !why : rc == -EPERM && why);
        if (rc == 0)
            FUZZ_CHECK(src < (uint32_t)size && (dst == LAUNCH_TREE_BCAST || dst < (uint32_t)size) &&
                       (int)src != me);
        /* subtree_has agrees with walking up the parents */
        int root = me < 0 ? 0 : me % size, v = peer < 0 ? 0 : peer % size, w = v;
        while (w != root && w != 0)
            w = launch_tree_parent_of(w);
        FUZZ_CHECK(launch_tree_subtree_has(size, root, v) == (w == root));
    }
    lbuf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t chunks[] = { 0, 1, 7, 16, 17, 100, 4096, 0 };
    fuzz_quiet();
    if (size < 1)
        return 0;
    int mode = data[0] & 7;
    fuzz_in_t in = { data + 1, size - 1 };
    memset(&net, 0, sizeof(net));
    net.chunk = chunks[(data[0] >> 3) & 7];
    net.raw = (data[0] & 0x40) != 0;
    FUZZ_CHECK(launch_net_derive_key(secret, LAUNCH_TREE_AUTH_LABEL, net.key) == 0);
    if (mode <= 4)
        run_socket(mode, in.p, in.left);
    else if (mode == 6)
        run_decoder(&in);
    else
        run_feed(&in);
    lbuf_free(&net.inj);
    lbuf_free(&net.out);
    return 0;
}

#ifdef FUZZ_SEEDS
static void frame(struct launch_buf *b, int type, uint32_t dst, uint32_t src, const void *p,
                  size_t n)
{
    put_frame(b, type, dst, src, p, n);
}

static void seed(const char *name, int mode, const struct launch_buf *b)
{
    struct launch_buf s = { 0 };
    lbuf_raw(&s, &(char){ (char)mode }, 1);
    lbuf_raw(&s, b->p, b->len);
    fuzz_seed(name, s.p, s.len);
    lbuf_free(&s);
}

#define CHUNK(i) ((i) << 3)
#define RAW 0x40

/* A feed record: state, peer pick, 16-bit length, bytes. */
static void record(struct launch_buf *b, int state, int pick, const struct launch_buf *r)
{
    uint8_t h[4] = { (uint8_t)(state - 1), (uint8_t)pick, (uint8_t)r->len, (uint8_t)(r->len >> 8) };
    lbuf_raw(b, h, 4);
    lbuf_raw(b, r->p, r->len);
}

void fuzz_make_seeds(void)
{
    struct launch_buf b = { 0 }, p = { 0 }, r = { 0 };
    /* Mode 0: daemon 1 (authenticated by the peer) says UP, an EXIT report, BYE. */
    frame(&b, MSG_UP, 0, 1, NULL, 0);
    lbuf_u32(&p, 3);
    lbuf_u32(&p, 0);
    lbuf_u32(&p, 1);
    lbuf_u32(&p, 1);
    frame(&b, MSG_EXIT, 0, 1, p.p, p.len);
    frame(&b, MSG_BYE, 0, 1, NULL, 0);
    seed("boot-up-exit-bye", 0 | CHUNK(2), &b);
    b.len = 0;
    /* Raw: no hello; an oversized first frame; a hello of another version; a hello
     * whose proof is wrong. */
    frame(&b, MSG_UP, 0, 1, NULL, 0);
    seed("raw-not-hello", 0 | RAW | CHUNK(4), &b);
    b.len = 0;
    lbuf_u32(&b, 5000);
    lbuf_u32(&b, MSG_HELLO << 16);
    seed("raw-oversized-hello", 0 | RAW, &b);
    b.len = 0;
    put_hello(&b, 1, 0, HELLO_BOOT);
    b.p[LAUNCH_TREE_HDR_LEN + 3] = 1; /* version 1 */
    seed("raw-old-hello", 0 | RAW, &b);
    b.len = 0;
    put_hello(&b, 1, 0, HELLO_BOOT);
    p.len = 0;
    for (int i = 0; i < CORE_MAC_LEN; i++)
        lbuf_raw(&p, "m", 1);
    lbuf_u32(&p, 77);
    lbuf_u32(&p, 5555);
    lbuf_str(&p, "node1");
    lbuf_str(&p, "10.0.0.1");
    lbuf_str(&p, "m1");
    frame(&b, MSG_PROOF, 0, 1, p.p, p.len);
    seed("raw-wrong-proof", 0 | RAW | CHUNK(5), &b);
    b.len = 0;
    /* Mode 1: daemon 3 booted, waiting for WELCOME, says things it should not yet. */
    frame(&b, MSG_IO, 0, 3, "\0\0\0\1\0\0\0\0\0\0\0\3abc", 15);
    frame(&b, MSG_DMODEX_REQ, 5, 3, "\0\0\0\7\0\0\0\2", 8);
    frame(&b, MSG_SIGNAL, LAUNCH_TREE_BCAST, 3, "\0\0\0\x0f\0\0\0\1", 8);
    frame(&b, MSG_BYE, 0, 3, NULL, 0);
    seed("boot3-frames", 1 | CHUNK(3), &b);
    b.len = 0;
    /* Mode 2: a child link of daemon 2: UP for the root, FENCE_UP, a DMODEX_REQ. */
    frame(&b, MSG_UP, 0, 3, NULL, 0);
    p.len = 0;
    lbuf_str(&p, "*");
    lbuf_u32(&p, 1);
    lbuf_u32(&p, 1);
    lbuf_u32(&p, 3);
    lbuf_bytes(&p, "blob", 4);
    frame(&b, MSG_FENCE_UP, 2, 3, p.p, p.len);
    frame(&b, MSG_DMODEX_REQ, 1, 3, "\0\0\0\7\0\0\0\2", 8);
    seed("link-frames", 2 | CHUNK(1), &b);
    b.len = 0;
    /* Mode 3: rdmpirun's WELCOME (parent 0), a LAUNCH-sized bcast, a SHUTDOWN. */
    struct launch_welcome w = { .parent = 0 };
    p.len = 0;
    launch_welcome_encode(&p, &w);
    frame(&b, MSG_WELCOME, 1, 0, p.p, p.len);
    frame(&b, MSG_LAUNCH, LAUNCH_TREE_BCAST, 0, "\0\0\0\4rdmp", 8);
    frame(&b, MSG_SHUTDOWN, LAUNCH_TREE_BCAST, 0, NULL, 0);
    seed("join-welcome", 3 | CHUNK(5), &b);
    /* Raw: the challenge is not answered. */
    seed("raw-join-no-challenge", 3 | RAW, &b);
    b.len = 0;
    /* Mode 4: daemon 3 welcomed with parent 2, then frames from daemon 2. */
    w = (struct launch_welcome){ .parent = 2, .port = 4243 };
    snprintf(w.addrs, sizeof(w.addrs), "10.0.0.9,10.0.0.2");
    p.len = 0;
    launch_welcome_encode(&p, &w);
    frame(&b, MSG_WELCOME, 3, 0, p.p, p.len);
    frame(&b, MSG_STDIN, 3, 0, "\0\0\0\2hi", 6);
    frame(&b, MSG_SIGNAL, LAUNCH_TREE_BCAST, 0, "\0\0\0\x0f\0\0\0\1", 8);
    p.len = 0;
    lbuf_str(&p, "0,1,2");
    lbuf_u32(&p, 1);
    lbuf_bytes(&p, "all blobs", 9);
    frame(&b, MSG_FENCE_DOWN, LAUNCH_TREE_BCAST, 0, p.p, p.len);
    frame(&b, MSG_DMODEX_RESP, 3, 5, "\0\0\0\7\0\0\0\0\0\0\0\2ab", 14);
    frame(&b, MSG_SHUTDOWN, LAUNCH_TREE_BCAST, 0, NULL, 0);
    seed("join-parent2", 4 | CHUNK(6), &b);
    b.len = 0;
    /* Mode 5: daemon 2 fed a hello from 3, frames from child 3, frames from parent 0. */
    lbuf_raw(&b, "\2", 1);
    r.len = 0;
    put_hello(&r, 3, 2, HELLO_LINK);
    record(&b, LAUNCH_FEED_NEW, 0, &r);
    r.len = 0;
    frame(&r, MSG_UP, 0, 3, NULL, 0);
    frame(&r, MSG_BYE, 2, 3, NULL, 0);
    record(&b, LAUNCH_FEED_CHILD, 0, &r);
    r.len = 0;
    frame(&r, MSG_LAUNCH, LAUNCH_TREE_BCAST, 0, "\0\0\0\4rdmp", 8);
    frame(&r, MSG_DMODEX_REQ, 3, 0, "\0\0\0\7\0\0\0\2", 8);
    frame(&r, MSG_UP, 0, 2, NULL, 0);
    record(&b, LAUNCH_FEED_PARENT, 0, &r);
    seed("feed-daemon2", 5, &b);
    b.len = 0;
    /* rdmpirun fed frames from its children 1, 2 and 4. */
    lbuf_raw(&b, "\0", 1);
    for (int k = 0; k < 3; k++) {
        r.len = 0;
        frame(&r, MSG_UP, 0, 1u << k, NULL, 0);
        frame(&r, MSG_IO, 0, 1u << k, "\0\0\0\1\0\0\0\0\0\0\0\3abc", 15);
        record(&b, LAUNCH_FEED_CHILD, k, &r);
    }
    seed("feed-root", 5, &b);
    b.len = 0;
    /* Mode 6: each decoder on a message its encoder wrote. */
    struct launch_hello h = { .proto = LAUNCH_TREE_PROTO, .purpose = HELLO_BOOT, .vpid = 1,
                              .size = SIZE };
    lbuf_raw(&b, "\1", 1);
    launch_hello_encode(&b, &h);
    seed("dec-hello", 6, &b);
    b.len = 0;
    struct launch_challenge c = { .proto = LAUNCH_TREE_PROTO, .vpid = 2 };
    lbuf_raw(&b, "\2", 1);
    launch_challenge_encode(&b, &c);
    seed("dec-challenge", 6, &b);
    b.len = 0;
    struct launch_proof pr = { .pid = 9, .port = 22 };
    snprintf(pr.host, sizeof(pr.host), "%0255d", 7);
    snprintf(pr.addrs, sizeof(pr.addrs), "10.1.2.3,192.168.0.1");
    snprintf(pr.machine, sizeof(pr.machine), "abc");
    lbuf_raw(&b, "\3", 1);
    launch_proof_encode(&b, &pr);
    seed("dec-proof", 6, &b);
    b.len = 0;
    lbuf_raw(&b, "\4", 1);
    launch_welcome_encode(&b, &w);
    seed("dec-welcome", 6, &b);
    b.len = 0;
    lbuf_raw(&b, "\5\1\2\3", 4); /* FENCE_UP, 9 ranks, 4 nodes */
    lbuf_str(&b, "0,3,5");
    lbuf_u32(&b, 7);
    lbuf_u32(&b, 2);
    lbuf_u32(&b, 3);
    lbuf_bytes(&b, "xyz", 3);
    lbuf_u32(&b, 0);
    lbuf_bytes(&b, "", 0);
    seed("dec-fence-up", 6, &b);
    b.len = 0;
    lbuf_raw(&b, "\6\1\1", 3); /* DMODEX_RESP */
    lbuf_u32(&b, 1);
    lbuf_u32(&b, (uint32_t)-46);
    lbuf_bytes(&b, "data", 4);
    seed("dec-dmodex", 6, &b);
    b.len = 0;
    lbuf_raw(&b, "\7\x07\x02\x02\x03\x0b", 6); /* size 8, me 1, child link, peer 2, SIGNAL */
    lbuf_u32(&b, 1);
    lbuf_u32(&b, 0);
    seed("dec-route", 6, &b);
    b.len = 0;
    {
        static struct launch_agents a = { .n = 2, .vpid = { 5, 6 } };
        snprintf(a.cmd, sizeof(a.cmd), "ssh -x -o BatchMode=yes");
        snprintf(a.rdmpid, sizeof(a.rdmpid), "/usr/bin/rdmpid");
        snprintf(a.name[0], sizeof(a.name[0]), "node5");
        snprintf(a.name[1], sizeof(a.name[1]), "node6");
        lbuf_raw(&b, "\x08\x07\x04", 3); /* AGENTS, size 8, me 4 */
        launch_agents_encode(&b, &a);
        seed("dec-agents", 6, &b);
    }
    b.len = 0;
    lbuf_raw(&b, "\0\0\0\0\1", 5);
    frame(&b, MSG_UP, 0, 1, NULL, 0);
    seed("dec-frame", 6, &b);
    lbuf_free(&b);
    lbuf_free(&p);
    lbuf_free(&r);
}
#endif
