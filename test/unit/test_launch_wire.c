/*
 * Unit test of the launcher's wire: the daemon tree's frames, handshake
 * messages and MACs (launcher/treewire.c), its direction rules, the job
 * description decoder (launcher/jobmsg.c), the fence and direct-modex
 * payload decoders, the spawned jobs' messages (launcher/dynwire.c), and the tree itself over real sockets (tree.c,
 * treeauth.c): a member that holds the secret joins, one that does not is
 * refused on both sides, and a listening member out of file descriptors
 * neither spins nor lets the connections pile up.
 *
 * Every decoder is also given every truncation of a valid message and
 * random corruptions of it: it must refuse the truncations and never read
 * outside the message (run under AddressSanitizer by the asan suite).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/dynwire.h"
#include "launcher/jobmsg.h"
#include "launcher/tree.h"

char launch_who[300] = "test";

static const char *group = "";

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: unit/launch_wire/%s ", group);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    exit(1);
}

#define CHECK(cond, ...)       \
    do {                       \
        if (!(cond))           \
            fail(__VA_ARGS__); \
    } while (0)

static void pass(void)
{
    printf("PASS: unit/launch_wire/%s\n", group);
    fflush(stdout);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const char SECRET[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
static const char OTHER[] = "f0112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/* A copy of buf in a block of exactly n bytes, so ASan sees any read past it. */
static char *exact(const void *buf, size_t n)
{
    char *p = malloc(n ? n : 1);
    if (n)
        memcpy(p, buf, n);
    return p;
}

static void test_frames(void)
{
    char buf[64];
    struct launch_frame_hdr h;
    const char *why;

    group = "frame";
    launch_tree_frame_encode(buf, MSG_LAUNCH, LAUNCH_TREE_BCAST, 0, 5);
    memcpy(buf + LAUNCH_TREE_HDR_LEN, "hello", 5);
    for (size_t n = 0; n < LAUNCH_TREE_HDR_LEN + 5; n++)
        CHECK(launch_tree_frame_decode(buf, n, 100, &h, &why) == 1, "%zu bytes: not 'more'", n);
    CHECK(launch_tree_frame_decode(buf, 21, 100, &h, &why) == 0 && h.len == 5 &&
              h.type == MSG_LAUNCH && h.dst == LAUNCH_TREE_BCAST && h.src == 0,
          "whole frame not decoded");
    CHECK(launch_tree_frame_decode(buf, 21, 4, &h, &why) == -EMSGSIZE, "oversized taken");
    buf[7] = 1; /* reserved bits */
    CHECK(launch_tree_frame_decode(buf, 21, 100, &h, &why) == -EPROTO, "reserved bits taken");
    launch_tree_frame_encode(buf, 0, 0, 0, 0);
    CHECK(launch_tree_frame_decode(buf, 16, 100, &h, &why) == -EPROTO, "type 0 taken");
    launch_tree_frame_encode(buf, MSG_LAST + 1, 0, 0, 0);
    CHECK(launch_tree_frame_decode(buf, 16, 100, &h, &why) == -EPROTO, "type past last taken");
    pass();
}

static void test_handshake_msgs(void)
{
    struct launch_buf b = {0};
    struct launch_hello h = {LAUNCH_TREE_PROTO, HELLO_LINK, 3, 2, 4, {0}}, h2;
    struct launch_challenge c = {LAUNCH_TREE_PROTO, 2, {0}, {0}}, c2;
    struct launch_proof pr = {.pid = 1234, .port = 4321}, pr2;
    struct launch_welcome w = {.parent = 2, .port = 999}, w2;
    uint8_t key[CORE_KEY_LEN], other[CORE_KEY_LEN], nonce_a[LAUNCH_NONCE_LEN];
    uint8_t mac_c[CORE_MAC_LEN], mac_a[CORE_MAC_LEN];
    const char *why;

    group = "handshake";
    core_random(h.nonce, sizeof(h.nonce));
    core_random(nonce_a, sizeof(nonce_a));
    CHECK(launch_net_derive_key(SECRET, LAUNCH_TREE_AUTH_LABEL, key) == 0, "no key");
    CHECK(launch_net_derive_key(OTHER, LAUNCH_TREE_AUTH_LABEL, other) == 0, "no other key");
    CHECK(launch_net_derive_key("00zz", LAUNCH_TREE_AUTH_LABEL, other) == -EINVAL &&
              launch_net_derive_key(
                  "0g112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
                  LAUNCH_TREE_AUTH_LABEL, other) == -EINVAL,
          "malformed secrets taken");
    launch_net_derive_key(OTHER, LAUNCH_TREE_AUTH_LABEL, other);

    /* HELLO: exact layout, version first */
    launch_hello_encode(&b, &h);
    CHECK(!b.err && b.len == 52, "hello is %zu bytes", b.len);
    CHECK(launch_hello_decode(b.p, b.len, &h2, &why) == 0 && !memcmp(&h, &h2, sizeof(h)),
          "hello round trip");
    for (size_t n = 0; n < b.len; n++) {
        char *p = exact(b.p, n);
        CHECK(launch_hello_decode(p, n, &h2, &why) < 0, "hello cut at %zu taken", n);
        free(p);
    }
    b.p[3] = 1; /* version 1 */
    CHECK(launch_hello_decode(b.p, b.len, &h2, &why) == -EPROTO && strstr(why, "version"),
          "other version taken");
    b.p[3] = LAUNCH_TREE_PROTO;
    b.p[7] = 3; /* purpose */
    CHECK(launch_hello_decode(b.p, b.len, &h2, &why) == -EPROTO, "unknown purpose taken");
    lbuf_free(&b);

    /* the MACs: each side's differs, and any change of what they cover breaks them */
    launch_tree_mac(key, LAUNCH_SIDE_CONNECT, &h, 2, nonce_a, mac_c);
    launch_tree_mac(key, LAUNCH_SIDE_ACCEPT, &h, 2, nonce_a, mac_a);
    CHECK(memcmp(mac_c, mac_a, CORE_MAC_LEN), "both sides' proofs are equal (reflection)");
    CHECK(launch_tree_mac_ok(key, LAUNCH_SIDE_CONNECT, &h, 2, nonce_a, mac_c), "good proof refused");
    CHECK(!launch_tree_mac_ok(key, LAUNCH_SIDE_ACCEPT, &h, 2, nonce_a, mac_c),
          "connecting side's proof accepted as the accepting side's");
    CHECK(!launch_tree_mac_ok(other, LAUNCH_SIDE_CONNECT, &h, 2, nonce_a, mac_c),
          "proof accepted under another secret");
    CHECK(!launch_tree_mac_ok(key, LAUNCH_SIDE_CONNECT, &h, 1, nonce_a, mac_c),
          "proof accepted for another acceptor");
    h2 = h;
    h2.vpid = 1;
    CHECK(!launch_tree_mac_ok(key, LAUNCH_SIDE_CONNECT, &h2, 2, nonce_a, mac_c),
          "proof accepted for another vpid");
    h2 = h;
    h2.nonce[5] ^= 1;
    CHECK(!launch_tree_mac_ok(key, LAUNCH_SIDE_CONNECT, &h2, 2, nonce_a, mac_c),
          "proof accepted for another nonce");
    h2 = h;
    h2.purpose = HELLO_BOOT;
    CHECK(!launch_tree_mac_ok(key, LAUNCH_SIDE_CONNECT, &h2, 2, nonce_a, mac_c),
          "proof accepted for another purpose");
    mac_c[31] ^= 0x80;
    CHECK(!launch_tree_mac_ok(key, LAUNCH_SIDE_CONNECT, &h, 2, nonce_a, mac_c),
          "flipped proof accepted");

    /* CHALLENGE */
    memcpy(c.nonce, nonce_a, sizeof(nonce_a));
    memcpy(c.mac, mac_a, sizeof(mac_a));
    launch_challenge_encode(&b, &c);
    CHECK(launch_challenge_decode(b.p, b.len, &c2, &why) == 0 && !memcmp(&c, &c2, sizeof(c)),
          "challenge round trip");
    CHECK(launch_challenge_decode(b.p, b.len - 1, &c2, &why) < 0, "short challenge taken");
    lbuf_free(&b);

    /* PROOF */
    snprintf(pr.host, sizeof(pr.host), "node1");
    snprintf(pr.addrs, sizeof(pr.addrs), "10.0.0.1,127.0.0.1");
    snprintf(pr.machine, sizeof(pr.machine), "abc-def");
    launch_proof_encode(&b, &pr);
    CHECK(launch_proof_decode(b.p, b.len, &pr2, &why) == 0 && !strcmp(pr2.host, "node1") &&
              !strcmp(pr2.addrs, pr.addrs) && pr2.pid == 1234 && pr2.port == 4321,
          "proof round trip");
    for (size_t n = 0; n < b.len; n++) {
        char *p = exact(b.p, n);
        CHECK(launch_proof_decode(p, n, &pr2, &why) < 0, "proof cut at %zu taken", n);
        free(p);
    }
    lbuf_raw(&b, "x", 1);
    CHECK(launch_proof_decode(b.p, b.len, &pr2, &why) < 0, "proof with a trailing byte taken");
    lbuf_free(&b);
    const char *bad_addrs[] = {"10.0.0.1,", ",10.0.0.1", "10.0.0.1,,1.2.3.4", "300.1.1.1",
                               "localhost", "1.2.3.4 ", "::1"};
    for (size_t i = 0; i < sizeof(bad_addrs) / sizeof(*bad_addrs); i++) {
        struct launch_proof bad = pr;
        snprintf(bad.addrs, sizeof(bad.addrs), "%s", bad_addrs[i]);
        launch_proof_encode(&b, &bad);
        CHECK(launch_proof_decode(b.p, b.len, &pr2, &why) < 0, "addresses '%s' taken",
              bad_addrs[i]);
        lbuf_free(&b);
    }
    struct launch_proof bad = pr;
    snprintf(bad.host, sizeof(bad.host), "no de");
    launch_proof_encode(&b, &bad);
    CHECK(launch_proof_decode(b.p, b.len, &pr2, &why) < 0, "host with a blank taken");
    lbuf_free(&b);
    bad = pr;
    bad.port = 70000;
    launch_proof_encode(&b, &bad);
    CHECK(launch_proof_decode(b.p, b.len, &pr2, &why) < 0, "port 70000 taken");
    lbuf_free(&b);

    /* WELCOME */
    snprintf(w.addrs, sizeof(w.addrs), "10.0.0.2,10.0.0.3");
    launch_welcome_encode(&b, &w);
    CHECK(launch_welcome_decode(b.p, b.len, &w2, &why) == 0 && w2.parent == 2 &&
              w2.port == 999 && !strcmp(w2.addrs, w.addrs),
          "welcome round trip");
    for (size_t n = 0; n < b.len; n++) {
        char *p = exact(b.p, n);
        CHECK(launch_welcome_decode(p, n, &w2, &why) < 0, "welcome cut at %zu taken", n);
        free(p);
    }
    lbuf_free(&b);
    w.port = 0;
    launch_welcome_encode(&b, &w);
    CHECK(launch_welcome_decode(b.p, b.len, &w2, &why) < 0, "welcome to a parent at port 0");
    lbuf_free(&b);
    pass();
}

static int route(int size, int me, int link, int peer, int type, uint32_t dst, uint32_t src)
{
    const char *why;
    return launch_tree_route_check(size, me, link, peer, type, dst, src, &why);
}

/* AGENTS (tree launch): only the children of the receiving member, in order, with host
 * names that cannot pass for an option of the agent, and an absolute rdmpid. */
static void test_agents(void)
{
    static struct launch_agents a, a2;
    struct launch_buf b = {0};
    const char *why;

    group = "agents";
    snprintf(a.cmd, sizeof(a.cmd), "ssh -x -o BatchMode=yes");
    snprintf(a.rdmpid, sizeof(a.rdmpid), "/opt/rdmpi/bin/rdmpid");
    a.n = 2; /* member 4 of 8: children 5 and 6 */
    a.vpid[0] = 5;
    a.vpid[1] = 6;
    snprintf(a.name[0], sizeof(a.name[0]), "node5");
    snprintf(a.name[1], sizeof(a.name[1]), "node6.example.org");
    launch_agents_encode(&b, &a);
    CHECK(!b.err && launch_agents_decode(b.p, b.len, 8, 4, &a2, &why) == 0 && a2.n == 2 &&
              a2.vpid[1] == 6 && !strcmp(a2.name[1], "node6.example.org") &&
              !strcmp(a2.cmd, a.cmd) && !strcmp(a2.rdmpid, a.rdmpid),
          "agents round trip");
    for (size_t n = 0; n < b.len; n++)
        CHECK(launch_agents_decode(b.p, n, 8, 4, &a2, &why) < 0, "agents cut at %zu taken", n);
    CHECK(launch_agents_decode(b.p, b.len, 8, 2, &a2, &why) < 0, "agents for another member");
    CHECK(launch_agents_decode(b.p, b.len, 6, 4, &a2, &why) < 0, "agents past the tree's size");
    lbuf_free(&b);
    struct { int field; const char *what; } bad[] = {
        {0, "a grandchild"}, {1, "out of order"}, {2, "a name like an option"},
        {3, "a name with a blank"}, {4, "a relative rdmpid"}, {5, "an empty name"},
        {6, "no children"}, {7, "a control character in the command"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        a2 = a;
        switch (bad[i].field) {
        case 0: a2.vpid[1] = 7; break;
        case 1: a2.vpid[0] = 6; a2.vpid[1] = 5; break;
        case 2: snprintf(a2.name[0], sizeof(a2.name[0]), "-oProxyCommand=x"); break;
        case 3: snprintf(a2.name[0], sizeof(a2.name[0]), "node 5"); break;
        case 4: snprintf(a2.rdmpid, sizeof(a2.rdmpid), "bin/rdmpid"); break;
        case 5: a2.name[0][0] = '\0'; break;
        case 6: a2.n = 0; break;
        case 7: snprintf(a2.cmd, sizeof(a2.cmd), "ssh\n-x"); break;
        }
        launch_agents_encode(&b, &a2);
        CHECK(launch_agents_decode(b.p, b.len, 8, 4, &a, &why) < 0 && why, "agents with %s taken",
              bad[i].what);
        lbuf_free(&b);
        snprintf(a.cmd, sizeof(a.cmd), "ssh -x -o BatchMode=yes"); /* a was overwritten */
        snprintf(a.rdmpid, sizeof(a.rdmpid), "/opt/rdmpi/bin/rdmpid");
        a.n = 2;
        a.vpid[0] = 5;
        a.vpid[1] = 6;
        snprintf(a.name[0], sizeof(a.name[0]), "node5");
        snprintf(a.name[1], sizeof(a.name[1]), "node6.example.org");
    }
    CHECK(route(8, 4, LAUNCH_LINK_PARENT, 0, MSG_AGENTS, 4, 0) == 0, "AGENTS from rdmpirun refused");
    CHECK(route(8, 4, LAUNCH_LINK_CHILD, 6, MSG_AGENTS, 4, 0) < 0, "AGENTS from a child taken");
    CHECK(route(8, 4, LAUNCH_LINK_PARENT, 0, MSG_AGENTS, 4, 2) < 0, "AGENTS not from rdmpirun taken");
    pass();
}

static void test_routes(void)
{
    const int cmds[] = {MSG_LAUNCH, MSG_SIGNAL, MSG_SHUTDOWN, MSG_FENCE_DOWN};
    const uint32_t B = LAUNCH_TREE_BCAST;
    enum { P = LAUNCH_LINK_PARENT, C = LAUNCH_LINK_CHILD };

    group = "direction";
    /* tree of 8: 0 -> 1, 2, 4; 2 -> 3; 4 -> 5, 6; 6 -> 7 */
    for (size_t i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
        int t = cmds[i];
        CHECK(route(8, 4, P, 0, t, B, 0) == 0, "%s from the parent refused", launch_msg_name(t));
        CHECK(route(8, 6, P, 4, t, B, 0) == 0, "%s relayed by the parent refused",
              launch_msg_name(t));
        /* from a child, in every disguise */
        for (uint32_t src = 0; src < 8; src++) {
            CHECK(route(8, 4, C, 6, t, B, src) < 0, "%s broadcast from a child (src %u) taken",
                  launch_msg_name(t), src);
            CHECK(route(8, 4, C, 6, t, 4, src) < 0, "%s from a child to us (src %u) taken",
                  launch_msg_name(t), src);
            CHECK(route(8, 0, C, 4, t, B, src) < 0, "%s from a child to rdmpirun (src %u) taken",
                  launch_msg_name(t), src);
        }
        CHECK(route(8, 4, P, 0, t, 5, 0) < 0, "%s not broadcast taken", launch_msg_name(t));
        CHECK(route(8, 4, P, 0, t, B, 2) < 0, "%s not from rdmpirun taken", launch_msg_name(t));
    }
    CHECK(route(8, 4, P, 0, MSG_STDIN, 5, 0) == 0, "STDIN routed down refused");
    CHECK(route(8, 4, C, 5, MSG_STDIN, 4, 0) < 0, "STDIN from a child taken");
    CHECK(route(8, 4, P, 0, MSG_STDIN, 3, 0) < 0, "STDIN for outside our subtree taken");
    /* reports go up from the child's own subtree, to rdmpirun */
    CHECK(route(8, 4, C, 6, MSG_EXIT, 0, 7) == 0, "EXIT from the subtree refused");
    CHECK(route(8, 0, C, 4, MSG_EXIT, 0, 7) == 0, "EXIT relayed up refused");
    CHECK(route(8, 4, C, 6, MSG_EXIT, 0, 5) < 0, "EXIT for a sibling's subtree taken");
    CHECK(route(8, 4, C, 6, MSG_EXIT, 0, 1) < 0, "EXIT in rdmpirun's name... of member 1 taken");
    CHECK(route(8, 4, P, 0, MSG_EXIT, 0, 0) < 0, "EXIT from the parent taken");
    CHECK(route(8, 4, C, 6, MSG_EXIT, 5, 6) < 0, "EXIT not to rdmpirun taken");
    CHECK(route(8, 4, C, 6, MSG_UP, B, 6) < 0, "UP broadcast taken");
    /* one hop */
    CHECK(route(8, 4, C, 6, MSG_BYE, 4, 6) == 0, "BYE refused");
    CHECK(route(8, 4, C, 6, MSG_BYE, 4, 7) < 0, "BYE for a grandchild taken");
    CHECK(route(8, 4, C, 6, MSG_FENCE_UP, 4, 6) == 0, "FENCE_UP refused");
    CHECK(route(8, 4, C, 6, MSG_FENCE_UP, 0, 6) < 0, "FENCE_UP past us taken");
    /* direct modex both ways, never back into the subtree it came from */
    CHECK(route(8, 4, C, 6, MSG_DMODEX_REQ, 1, 7) == 0, "DMODEX_REQ up refused");
    CHECK(route(8, 4, C, 6, MSG_DMODEX_REQ, 5, 7) == 0, "DMODEX_REQ across refused");
    CHECK(route(8, 4, C, 6, MSG_DMODEX_REQ, 7, 6) < 0, "DMODEX_REQ back down taken");
    CHECK(route(8, 4, P, 0, MSG_DMODEX_RESP, 5, 2) == 0, "DMODEX_RESP down refused");
    CHECK(route(8, 4, P, 0, MSG_DMODEX_RESP, 1, 2) < 0, "DMODEX_RESP out of our subtree taken");
    CHECK(route(8, 4, P, 0, MSG_DMODEX_RESP, 5, 6) < 0, "our own subtree's src from the parent");
    /* joining messages, impossible links, impossible ids */
    const int joining[] = {MSG_HELLO, MSG_WELCOME, MSG_CHALLENGE, MSG_PROOF, 0, MSG_LAST + 1};
    for (size_t i = 0; i < sizeof(joining) / sizeof(*joining); i++) {
        CHECK(route(8, 4, P, 0, joining[i], 4, 0) < 0, "type %d from the parent taken", joining[i]);
        CHECK(route(8, 4, C, 6, joining[i], 4, 6) < 0, "type %d from a child taken", joining[i]);
    }
    CHECK(route(8, 4, P, 2, MSG_LAUNCH, B, 0) < 0, "a parent that is not ours");
    CHECK(route(8, 4, C, 7, MSG_EXIT, 0, 7) < 0, "a child that is not ours");
    CHECK(route(8, 4, C, 6, MSG_EXIT, 0, 9) < 0, "src beyond the tree");
    CHECK(route(8, 4, C, 6, MSG_DMODEX_REQ, 9, 6) < 0, "dst beyond the tree");
    CHECK(route(8, 4, C, 6, MSG_DMODEX_REQ, 0, 4) < 0, "src is us");
    pass();
}

/* A job of nnodes nodes (vpid = index) of 2 ranks each, packed as rdmpirun does. */
static void pack_job(struct launch_buf *b, int nnodes)
{
    static char *argv[] = {"/bin/prog", "a b", "", NULL};
    static const char *exports[] = {"X=1", "PATH"};
    struct launch_opts o = {.argv = argv, .exports = exports, .nexports = 2, .tag_output = 1};
    struct launch_job job = {.opts = &o, .nnodes = nnodes, .nranks = 2 * nnodes};
    struct launch_node nodes[8];
    struct launch_rank ranks[16];

    memset(nodes, 0, sizeof(nodes));
    memset(ranks, 0, sizeof(ranks));
    snprintf(job.nspace, sizeof(job.nspace), "rdmpi-42");
    for (int i = 0; i < nnodes; i++) {
        snprintf(nodes[i].host, sizeof(nodes[i].host), "node%d", i);
        nodes[i].vpid = i;
        nodes[i].machine = 0;
    }
    for (int r = 0; r < 2 * nnodes; r++)
        ranks[r].node = r / 2;
    job.nodes = nodes;
    job.ranks = ranks;
    CHECK(launch_jobmsg_pack(&job, b) == 0, "pack failed");
}

static int unpack(const char *p, size_t n, int me)
{
    struct launch_job job;
    struct launch_jobmsg jm;
    int rc;

    memset(&job, 0, sizeof(job));
    rc = launch_jobmsg_unpack(p, n, me, &job, &jm);
    if (rc == 0)
        CHECK(job.my_node >= 0 && job.my_node < job.nnodes && job.nodes[job.my_node].vpid == me &&
                  job.nlocal == job.nodes[job.my_node].nranks && job.opts->argv[0][0] &&
                  job.nranks > 0 && job.host[0],
              "an accepted job that makes no sense");
    launch_jobmsg_release(&job, &jm);
    return rc;
}

/* Overwrites the 4-byte field at off with v and checks the job is refused. */
static void refuse_u32(const struct launch_buf *b, size_t off, uint32_t v, const char *what)
{
    char *p = exact(b->p, b->len);
    uint32_t be = htonl(v);
    memcpy(p + off, &be, 4);
    CHECK(unpack(p, b->len, 1) < 0, "job with %s taken", what);
    free(p);
}

static void test_jobmsg(void)
{
    struct launch_buf b = {0};
    size_t off;

    group = "jobmsg";
    setenv("PATH", "/usr/bin", 1);
    pack_job(&b, 3);
    CHECK(unpack(b.p, b.len, 1) == 0, "valid job refused");
    CHECK(unpack(b.p, b.len, 2) == 0, "valid job refused at member 2");
    CHECK(unpack(b.p, b.len, 3) < 0, "job without our node taken");
    CHECK(unpack(b.p, b.len, 0) < 0, "job for rdmpirun taken");
    for (size_t n = 0; n < b.len; n++) {
        char *p = exact(b.p, n);
        CHECK(unpack(p, n, 1) < 0, "job cut at %zu taken", n);
        free(p);
    }
    lbuf_raw(&b, "", 1);
    CHECK(unpack(b.p, b.len, 1) < 0, "job with a trailing byte taken");
    b.len--;
    /* fields: nspace(4+8) flags bind nnodes, then per node host(4+5) vpid machine */
    off = 12;
    refuse_u32(&b, off, 8, "unknown flags");
    refuse_u32(&b, off + 4, 7, "unknown binding");
    refuse_u32(&b, off + 8, 0, "no nodes");
    refuse_u32(&b, off + 8, 1000000, "a million nodes");
    off += 12; /* first node */
    refuse_u32(&b, off + 9, 2, "two nodes of vpid 2");
    refuse_u32(&b, off + 9, 4, "a vpid beyond the node count");
    refuse_u32(&b, off + 13, 3, "a machine beyond the nodes");
    off += 3 * 17; /* nranks */
    refuse_u32(&b, off, 0, "no ranks");
    refuse_u32(&b, off, 0x40000000, "a billion ranks");
    refuse_u32(&b, off + 4, 3, "a rank on node 3 of 3");
    char *p = exact(b.p, b.len);
    p[4 + 5] = '/';
    CHECK(unpack(p, b.len, 1) < 0, "nspace with a '/' taken");
    free(p);
    /* random corruption: whatever is decided, nothing is read outside */
    for (int i = 0; i < 20000; i++) {
        p = exact(b.p, b.len);
        for (int k = 0, m = 1 + (int)(next_rand() % 4); k < m; k++)
            p[next_rand() % b.len] = (char)next_rand();
        unpack(p, b.len, 1 + (int)(next_rand() % 2));
        free(p);
    }
    lbuf_free(&b);
    pass();
}

static void test_fence_dmodex(void)
{
    struct launch_buf b = {0};
    struct launch_fence_msg m;
    struct launch_dmodex_msg d;
    const char *why;

    group = "fence_dmodex";
    const char *good[] = {"*", "0", "0,3,5", "7", "n:0,2"},
               *bad[] = {"", "5,3", "1,1", "8", "1,,2", "1,", ",1", "a", "-1", "99999999999",
                         "n:", "n:3", "n:1,0", "n:*"};
    for (size_t i = 0; i < sizeof(good) / sizeof(*good) + sizeof(bad) / sizeof(*bad); i++) {
        int ok = i < sizeof(good) / sizeof(*good);
        const char *sig = ok ? good[i] : bad[i - sizeof(good) / sizeof(*good)];
        lbuf_str(&b, sig);
        lbuf_u32(&b, 1);
        lbuf_u32(&b, 2);
        lbuf_u32(&b, 1);
        lbuf_bytes(&b, "abc", 3);
        lbuf_u32(&b, 0);
        lbuf_bytes(&b, "", 0);
        int rc = launch_fence_decode(MSG_FENCE_UP, b.p, b.len, 8, 3, &m, &why);
        CHECK((rc == 0) == ok, "signature '%s' %s", sig, ok ? "refused" : "taken");
        if (ok)
            CHECK(m.n == 2 && m.e[0].node == 1 && m.e[0].len == 3 && m.e[1].len == 0,
                  "entries wrong");
        launch_fence_msg_free(&m);
        if (ok && i == 2) { /* truncations of a valid one */
            for (size_t n = 0; n < b.len; n++) {
                char *p = exact(b.p, n);
                CHECK(launch_fence_decode(MSG_FENCE_UP, p, n, 8, 3, &m, &why) < 0,
                      "fence cut at %zu taken", n);
                launch_fence_msg_free(&m);
                free(p);
            }
            CHECK(launch_fence_decode(MSG_FENCE_UP, b.p, b.len, 8, 1, &m, &why) < 0,
                  "node beyond the job taken");
            launch_fence_msg_free(&m);
        }
        lbuf_free(&b);
    }
    lbuf_str(&b, "*");
    lbuf_u32(&b, 1);
    lbuf_u32(&b, 2);
    lbuf_u32(&b, 1);
    lbuf_bytes(&b, "a", 1);
    lbuf_u32(&b, 1);
    lbuf_bytes(&b, "b", 1);
    CHECK(launch_fence_decode(MSG_FENCE_UP, b.p, b.len, 8, 3, &m, &why) < 0, "node twice taken");
    launch_fence_msg_free(&m);
    lbuf_free(&b);
    lbuf_str(&b, "*");
    lbuf_u32(&b, 1);
    lbuf_bytes(&b, "all", 3);
    CHECK(launch_fence_decode(MSG_FENCE_DOWN, b.p, b.len, 8, 3, &m, &why) == 0 && m.all_len == 3,
          "fence down refused");
    launch_fence_msg_free(&m);
    lbuf_free(&b);

    lbuf_u32(&b, 7);
    lbuf_u32(&b, 3);
    CHECK(launch_dmodex_decode(MSG_DMODEX_REQ, b.p, b.len, 4, &d, &why) == 0 && d.rank == 3,
          "dmodex request refused");
    CHECK(launch_dmodex_decode(MSG_DMODEX_REQ, b.p, b.len, 3, &d, &why) < 0,
          "dmodex request for a rank beyond the job taken");
    CHECK(launch_dmodex_decode(MSG_DMODEX_REQ, b.p, b.len - 1, 4, &d, &why) < 0,
          "short dmodex request taken");
    lbuf_free(&b);
    lbuf_u32(&b, 7);
    lbuf_u32(&b, (uint32_t)-46);
    lbuf_bytes(&b, "xy", 2);
    CHECK(launch_dmodex_decode(MSG_DMODEX_RESP, b.p, b.len, 4, &d, &why) == 0 && d.len == 2 &&
              d.status == -46,
          "dmodex answer refused");
    lbuf_free(&b);
    lbuf_u32(&b, 7);
    lbuf_u32(&b, 5);
    lbuf_bytes(&b, "", 0);
    CHECK(launch_dmodex_decode(MSG_DMODEX_RESP, b.p, b.len, 4, &d, &why) < 0,
          "positive PMIx status taken");
    lbuf_free(&b);
    pass();
}

/* What on_msg saw, for the fed trees. */
static int seen_type, seen_src, seen_count;

static void on_msg(void *ctx, int type, int src, const char *p, size_t n)
{
    (void)ctx, (void)p, (void)n;
    seen_type = type;
    seen_src = src;
    seen_count++;
}

static void on_lost(void *ctx, int vpid, const char *why)
{
    (void)ctx, (void)vpid, (void)why;
}

static size_t put_frame(char *out, int type, uint32_t dst, uint32_t src, const void *p, size_t n)
{
    launch_tree_frame_encode(out, type, dst, src, (uint32_t)n);
    if (n)
        memcpy(out + LAUNCH_TREE_HDR_LEN, p, n);
    return LAUNCH_TREE_HDR_LEN + n;
}

/* The spawned jobs' messages (dynwire.c): their direction rules, a round trip, every
 * truncation refused, and the fields checked. */
static void test_dynwire(void)
{
    const uint32_t B = LAUNCH_TREE_BCAST;
    enum { P = LAUNCH_LINK_PARENT, C = LAUNCH_LINK_CHILD };
    char *argv[] = {"./child", "x", NULL}, *env[] = {"A=1", NULL}, *badenv[] = {"NOEQ", NULL};
    struct launch_app app = {.argv = argv, .env = env, .nprocs = 3, .host = "node2"};
    uint32_t node[3] = {0, 1, 1};
    struct launch_dyn_job_msg m = {.index = 2, .ubase = 8, .apps = &app, .napps = 1,
                                   .nranks = 3, .node = node}, got;
    struct launch_buf b = {0};
    const char *why;

    group = "dynwire";
    CHECK(route(8, 4, P, 0, MSG_DYN_JOB, B, 0) == 0, "DYN_JOB from rdmpirun refused");
    CHECK(route(8, 4, C, 6, MSG_DYN_JOB, B, 6) < 0, "DYN_JOB from a child taken");
    CHECK(route(8, 4, C, 6, MSG_DYN_KILL, B, 0) < 0, "DYN_KILL from a child taken");
    CHECK(route(8, 4, P, 0, MSG_SPAWN_RESP, 5, 0) == 0, "SPAWN_RESP routed down refused");
    CHECK(route(8, 4, C, 6, MSG_SPAWN_RESP, 4, 0) < 0, "SPAWN_RESP from a child taken");
    CHECK(route(8, 4, C, 6, MSG_SPAWN_REQ, 0, 7) == 0, "SPAWN_REQ up refused");
    CHECK(route(8, 4, P, 0, MSG_SPAWN_REQ, 0, 0) < 0, "SPAWN_REQ from the parent taken");
    CHECK(route(8, 4, C, 6, MSG_DYN_EXIT, 0, 5) < 0, "DYN_EXIT for a sibling's subtree taken");
    CHECK(route(8, 4, C, 6, MSG_DYN_STARTED, 0, 6) == 0, "DYN_STARTED up refused");
    CHECK(route(8, 4, C, 6, MSG_DYN_IO, 0, 7) == 0, "DYN_IO up refused");
    CHECK(route(8, 4, P, 0, MSG_DYN_IO, 4, 0) < 0, "DYN_IO from the parent taken");

    snprintf(app.prog, sizeof(app.prog), "child");
    snprintf(m.nspace, sizeof(m.nspace), "rdmpi-1-s1");
    snprintf(m.parent_nspace, sizeof(m.parent_nspace), "rdmpi-1");
    launch_dyn_job_encode(&b, &m);
    CHECK(launch_dyn_job_decode(b.p, b.len, 2, &got, &why) == 0, "DYN_JOB refused: %s", why);
    CHECK(got.index == 2 && got.ubase == 8 && got.nranks == 3 && got.node[2] == 1 &&
          !strcmp(got.apps[0].argv[1], "x") && !strcmp(got.apps[0].host, "node2") &&
          !got.apps[0].path && !strcmp(got.nspace, "rdmpi-1-s1"), "DYN_JOB changed on the way");
    launch_dyn_job_free(&got);
    CHECK(launch_dyn_job_decode(b.p, b.len, 1, &got, &why) < 0, "a rank on node 1 of 1 taken");
    launch_dyn_job_free(&got);
    for (size_t n = 0; n < b.len; n++) {
        CHECK(launch_dyn_job_decode(b.p, n, 2, &got, &why) < 0, "DYN_JOB cut at %zu taken", n);
        launch_dyn_job_free(&got);
    }
    lbuf_free(&b);
    m.nranks = 2; /* fewer ranks than the applications ask for */
    launch_dyn_job_encode(&b, &m);
    CHECK(launch_dyn_job_decode(b.p, b.len, 2, &got, &why) < 0, "rank count mismatch taken");
    launch_dyn_job_free(&got);
    lbuf_free(&b);

    struct launch_dyn_spawn_msg sp = {.id = 1, .apps = &app, .napps = 1}, sg;
    snprintf(sp.parent_nspace, sizeof(sp.parent_nspace), "rdmpi-1");
    app.env = badenv; /* not sent: nothing to set */
    launch_dyn_spawn_encode(&b, &sp);
    CHECK(launch_dyn_spawn_decode(b.p, b.len, &sg, &why) == 0 && sg.apps[0].env[0] == NULL,
          "a spawn request with an env entry without '=' not cleaned");
    launch_dyn_spawn_free(&sg);
    lbuf_free(&b);
    app.nprocs = 0;
    launch_dyn_spawn_encode(&b, &sp);
    CHECK(launch_dyn_spawn_decode(b.p, b.len, &sg, &why) < 0, "a spawn of 0 processes taken");
    launch_dyn_spawn_free(&sg);
    lbuf_free(&b);

    struct launch_dyn_exit_msg ex = {.index = 1, .rank = 0, .connected = 2}, eg;
    launch_dyn_exit_encode(&b, &ex);
    CHECK(launch_dyn_exit_decode(b.p, b.len, &eg, &why) < 0, "connected 2 taken");
    lbuf_free(&b);
    struct launch_dyn_resp_msg rs = {.id = 1}, rg;
    launch_dyn_resp_encode(&b, &rs);
    CHECK(launch_dyn_resp_decode(b.p, b.len, &rg, &why) < 0, "a success without a namespace");
    lbuf_free(&b);
    pass();
}

/* The name service's messages (dynwire.c, namefwd.c): directions, a round trip, every
 * truncation refused, and the rules on names. */
static void test_namewire(void)
{
    enum { P = LAUNCH_LINK_PARENT, C = LAUNCH_LINK_CHILD };
    struct launch_dyn_name pub[2] = {{.key = "svc", .value = "port-1"}, {.key = "k", .value = ""}};
    struct launch_dyn_name_req_msg q = {.id = 9, .op = LAUNCH_NAME_PUBLISH, .rank = 2, .n = 2,
                                        .names = pub}, qg;
    struct launch_dyn_name_resp_msg r = {.id = 9, .n = 1, .names = pub}, rg;
    struct launch_buf b = {0};
    const char *why;

    group = "namewire";
    CHECK(route(8, 4, C, 6, MSG_NAME_REQ, 0, 7) == 0, "NAME_REQ up refused");
    CHECK(route(8, 4, P, 0, MSG_NAME_REQ, 0, 0) < 0, "NAME_REQ from the parent taken");
    CHECK(route(8, 4, P, 0, MSG_NAME_RESP, 5, 0) == 0, "NAME_RESP routed down refused");
    CHECK(route(8, 4, C, 6, MSG_NAME_RESP, 4, 6) < 0, "NAME_RESP from a child taken");

    snprintf(q.nspace, sizeof(q.nspace), "rdmpi-1-s0");
    launch_dyn_name_req_encode(&b, &q);
    CHECK(launch_dyn_name_req_decode(b.p, b.len, &qg, &why) == 0, "NAME_REQ refused: %s", why);
    CHECK(qg.id == 9 && qg.op == LAUNCH_NAME_PUBLISH && qg.rank == 2 && qg.n == 2 &&
          !strcmp(qg.names[0].value, "port-1") && !strcmp(qg.names[1].key, "k") &&
          !strcmp(qg.nspace, "rdmpi-1-s0"), "NAME_REQ changed on the way");
    launch_dyn_names_free(qg.names, qg.n);
    for (size_t n = 0; n < b.len; n++) {
        CHECK(launch_dyn_name_req_decode(b.p, n, &qg, &why) < 0, "NAME_REQ cut at %zu taken", n);
        launch_dyn_names_free(qg.names, qg.n);
    }
    lbuf_free(&b);
    pub[1].key = "svc"; /* a key twice */
    launch_dyn_name_req_encode(&b, &q);
    CHECK(launch_dyn_name_req_decode(b.p, b.len, &qg, &why) < 0, "a key named twice taken");
    launch_dyn_names_free(qg.names, qg.n);
    lbuf_free(&b);
    pub[1].key = "";
    launch_dyn_name_req_encode(&b, &q);
    CHECK(launch_dyn_name_req_decode(b.p, b.len, &qg, &why) < 0, "an empty key taken");
    launch_dyn_names_free(qg.names, qg.n);
    lbuf_free(&b);
    q.n = 0;
    launch_dyn_name_req_encode(&b, &q);
    CHECK(launch_dyn_name_req_decode(b.p, b.len, &qg, &why) < 0, "a request of no name taken");
    lbuf_free(&b);

    snprintf(pub[0].nspace, sizeof(pub[0].nspace), "rdmpi-1");
    launch_dyn_name_resp_encode(&b, &r);
    CHECK(launch_dyn_name_resp_decode(b.p, b.len, &rg, &why) == 0, "NAME_RESP refused: %s", why);
    CHECK(rg.n == 1 && !strcmp(rg.names[0].nspace, "rdmpi-1") &&
          !strcmp(rg.names[0].value, "port-1"), "NAME_RESP changed on the way");
    launch_dyn_names_free(rg.names, rg.n);
    for (size_t n = 0; n < b.len; n++) {
        CHECK(launch_dyn_name_resp_decode(b.p, n, &rg, &why) < 0, "NAME_RESP cut at %zu taken",
              n);
        launch_dyn_names_free(rg.names, rg.n);
    }
    lbuf_free(&b);
    r.status = -46; /* a failure with names */
    launch_dyn_name_resp_encode(&b, &r);
    CHECK(launch_dyn_name_resp_decode(b.p, b.len, &rg, &why) < 0, "a failure with names taken");
    launch_dyn_names_free(rg.names, rg.n);
    lbuf_free(&b);
    r.status = 0;
    pub[0].nspace[0] = '\0'; /* a name without its publisher */
    launch_dyn_name_resp_encode(&b, &r);
    CHECK(launch_dyn_name_resp_decode(b.p, b.len, &rg, &why) < 0, "a publisher-less name taken");
    launch_dyn_names_free(rg.names, rg.n);
    lbuf_free(&b);
    pass();
}

static void test_feed(void)
{
    struct launch_tree *t = launch_tree_create(4, 2, SECRET, "member 2", on_msg, on_lost, NULL);
    char buf[512], sig[8] = {0, 0, 0, 9, 0, 0, 0, 1};
    struct launch_hello h = {LAUNCH_TREE_PROTO, HELLO_LINK, 3, 2, 4, {0}};
    struct launch_buf b = {0};
    size_t n;

    group = "feed";
    CHECK(t, "no tree");
    CHECK(!launch_tree_create(4, 2, "short", "x", on_msg, on_lost, NULL), "bad secret taken");
    /* SIGNAL from the parent is delivered; from the child (3) it is not */
    n = put_frame(buf, MSG_SIGNAL, LAUNCH_TREE_BCAST, 0, sig, sizeof(sig));
    CHECK(launch_tree_feed(t, LAUNCH_FEED_PARENT, 0, buf, n) == 1 && seen_count == 1 &&
              seen_type == MSG_SIGNAL && seen_src == 0,
          "SIGNAL from the parent not delivered");
    seen_count = 0;
    CHECK(launch_tree_feed(t, LAUNCH_FEED_CHILD, 3, buf, n) == 1 && seen_count == 0,
          "SIGNAL from a child delivered");
    n = put_frame(buf, MSG_LAUNCH, LAUNCH_TREE_BCAST, 0, "x", 1);
    n += put_frame(buf + n, MSG_LAUNCH, 2, 3, "x", 1);
    CHECK(launch_tree_feed(t, LAUNCH_FEED_CHILD, 3, buf, n) == 1 && seen_count == 0,
          "LAUNCH from a child delivered");
    n = put_frame(buf, MSG_EXIT, 0, 3, "x", 1); /* passed up, not to us */
    n += put_frame(buf + n, MSG_FENCE_UP, 2, 3, "y", 1);
    CHECK(launch_tree_feed(t, LAUNCH_FEED_CHILD, 3, buf, n) == 1 && seen_count == 1 &&
              seen_type == MSG_FENCE_UP,
          "a child's reports not handled");
    /* an authenticated link that breaks the framing is closed */
    n = put_frame(buf, 99, 2, 3, NULL, 0);
    CHECK(launch_tree_feed(t, LAUNCH_FEED_CHILD, 3, buf, n) == 0, "unknown type kept the link");
    /* unauthenticated: anything but a good HELLO closes; a good one is challenged */
    CHECK(launch_tree_feed(t, LAUNCH_FEED_NEW, 0, "GET / HTTP/1.0\r\n\r\n", 18) == 0,
          "HTTP kept");
    n = put_frame(buf, MSG_LAUNCH, LAUNCH_TREE_BCAST, 0, "x", 1);
    CHECK(launch_tree_feed(t, LAUNCH_FEED_NEW, 0, buf, n) == 0, "LAUNCH before HELLO kept");
    launch_hello_encode(&b, &h);
    n = put_frame(buf, MSG_HELLO, 2, 3, b.p, b.len);
    CHECK(launch_tree_feed(t, LAUNCH_FEED_NEW, 0, buf, n) == 1, "good HELLO dropped");
    n += put_frame(buf + n, MSG_PROOF, 2, 3, buf, 40); /* a proof with no idea of the key */
    CHECK(launch_tree_feed(t, LAUNCH_FEED_NEW, 0, buf, n) == 0, "forged proof kept");
    lbuf_free(&b);
    h.vpid = 1; /* not our child */
    launch_hello_encode(&b, &h);
    n = put_frame(buf, MSG_HELLO, 2, 1, b.p, b.len);
    CHECK(launch_tree_feed(t, LAUNCH_FEED_NEW, 0, buf, n) == 0, "HELLO from a non-child kept");
    lbuf_free(&b);
    n = put_frame(buf, MSG_HELLO, 2, 1, NULL, 0);
    memset(buf, 0xff, 4); /* 4 GB payload */
    CHECK(launch_tree_feed(t, LAUNCH_FEED_NEW, 0, buf, n) == 0, "oversized first frame kept");
    /* random frames on every kind of connection: no crash, no read outside */
    for (int i = 0; i < 5000; i++) {
        size_t len = next_rand() % 200;
        for (size_t k = 0; k < len; k++)
            buf[k] = (char)next_rand();
        if (len >= LAUNCH_TREE_HDR_LEN && next_rand() % 2) {
            launch_tree_frame_encode(buf, 1 + (int)(next_rand() % MSG_LAST),
                                     (uint32_t)(next_rand() % 5), (uint32_t)(next_rand() % 5),
                                     (uint32_t)(len - LAUNCH_TREE_HDR_LEN));
        }
        char *p = exact(buf, len);
        launch_tree_feed(t, 1 + (int)(next_rand() % 3), next_rand() % 2 ? 0 : 3, p, len);
        free(p);
    }
    launch_tree_destroy(t);
    pass();
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs the member's poll loop for `secs` seconds or until done(t); returns the number
 * of times poll() returned. */
static int serve(struct launch_tree *t, double secs, int (*done)(struct launch_tree *))
{
    double until = now_s() + secs;
    int spins = 0;

    while (now_s() < until && !(done && done(t))) {
        struct pollfd pfd[256];
        double next = launch_tree_next_deadline(t), now = now_s();
        int ms = next > 0 ? (int)((next - now) * 1000) + 1 : 100;
        if (ms > 100 || ms < 0)
            ms = 100;
        int n = launch_tree_fill_pollfds(t, pfd, 256);
        poll(pfd, (nfds_t)n, ms);
        spins++;
        launch_tree_handle(t, pfd, n);
        launch_tree_tick(t, now_s());
    }
    return spins;
}

static int all_up(struct launch_tree *t)
{
    return launch_tree_nup(t) == launch_tree_size(t) - 1;
}

/* A daemon of member vpid in a child process, joining with secret; returns its pid. Its
 * stdin is a pipe we keep (its EOF would tell it rdmpirun is gone). */
static pid_t daemon_child(int size, int vpid, const char *secret, int port, int direct, int *hold)
{
    int p[2];
    pid_t pid;

    if (pipe(p))
        fail("pipe: %s", strerror(errno));
    pid = fork();
    if (pid == 0) {
        dup2(p[0], STDIN_FILENO);
        close(p[1]);
        struct launch_tree *t = launch_tree_create(size, vpid, secret, "child", on_msg, on_lost,
                                                   NULL);
        int rc = t ? launch_tree_join(t, "127.0.0.1", port, direct, 10.0) : -1;
        if (!rc)
            launch_tree_flush(t, 2.0);
        _exit(rc ? 3 : 0);
    }
    close(p[0]);
    *hold = p[1];
    return pid;
}

static void test_sockets(void)
{
    struct launch_tree *t = launch_tree_create(2, 0, SECRET, "root", on_msg, on_lost, NULL);
    int hold, status, port;
    pid_t pid;

    group = "join";
    CHECK(t && launch_tree_listen(t) == 0, "cannot listen");
    port = launch_tree_port(t);
    /* a member without the secret: refused, and it refuses us as well */
    pid = daemon_child(2, 1, OTHER, port, 0, &hold);
    serve(t, 3.0, NULL);
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 3,
          "a member with another secret joined");
    CHECK(launch_tree_nup(t) == 0, "a member with another secret is up");
    close(hold);
    /* the member with the secret */
    pid = daemon_child(2, 1, SECRET, port, 0, &hold);
    serve(t, 20.0, all_up);
    CHECK(all_up(t), "the member with the secret did not come up");
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the joining member failed");
    close(hold);
    pass();

    /* tree launch: a child of rdmpirun links to it at once (no boot connection) and tells
     * in its UP what a boot PROOF would have; without the secret it stays out */
    group = "join-direct";
    struct launch_tree *t2 = launch_tree_create(2, 0, SECRET, "root", on_msg, on_lost, NULL);
    CHECK(t2 && launch_tree_listen(t2) == 0, "cannot listen");
    pid = daemon_child(2, 1, OTHER, launch_tree_port(t2), 1, &hold);
    serve(t2, 3.0, NULL);
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 3,
          "a member with another secret linked");
    CHECK(launch_tree_nup(t2) == 0, "a member with another secret is up");
    close(hold);
    pid = daemon_child(2, 1, SECRET, launch_tree_port(t2), 1, &hold);
    serve(t2, 20.0, all_up);
    CHECK(all_up(t2), "the directly linked member did not come up");
    CHECK(launch_tree_member_pid(t2, 1) == pid && launch_tree_member_host(t2, 1)[0],
          "its UP did not tell its pid (%d, not %d) and host", launch_tree_member_pid(t2, 1), pid);
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the linking member failed");
    close(hold);
    launch_tree_destroy(t2);
    pass();

    group = "emfile";
    struct rlimit old, low;
    getrlimit(RLIMIT_NOFILE, &old);
    int limit = 0;
    for (int free_slots = 0; free_slots < 8; limit++) /* room for 8 more descriptors only */
        free_slots += fcntl(limit, F_GETFD) < 0;
    low = old;
    low.rlim_cur = (rlim_t)limit;
    /* a flood of 60 connections that say nothing */
    pid = fork();
    if (pid == 0) {
        int s[60];
        for (int i = 0; i < 60; i++) {
            struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
            inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
            s[i] = socket(AF_INET, SOCK_STREAM, 0);
            if (connect(s[i], (struct sockaddr *)&sa, sizeof(sa)))
                _exit(4);
        }
        sleep(3);
        _exit(0);
    }
    setrlimit(RLIMIT_NOFILE, &low);
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    int spins = serve(t, 2.0, NULL);
    getrusage(RUSAGE_SELF, &r1);
    setrlimit(RLIMIT_NOFILE, &old);
    double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec -
                          r0.ru_stime.tv_sec) +
                 (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec -
                          r0.ru_stime.tv_usec) * 1e-6;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the flood could not connect");
    /* 2 s at one poll per deadline (100 ms or the 250 ms pause) is about 20 passes; a
     * spinning loop makes tens of thousands */
    CHECK(spins < 400, "the poll loop spun %d times in 2 s (%.2f s of CPU)", spins, cpu);
    CHECK(launch_tree_npollfds(t) <= 8 + 2, "%d connections held with 8 descriptors free",
          launch_tree_npollfds(t) - 1);
    launch_tree_destroy(t);
    pass();
}

/* Sealed frames: the two ends derive matching keys per direction, and a frame's seal
 * fails for any other number, byte, key or direction. */
static void test_seal(void)
{
    struct launch_hello h = {.proto = LAUNCH_TREE_PROTO, .purpose = 2, .vpid = 3, .to = 2,
                             .size = 8};
    uint8_t key[CORE_KEY_LEN], nonce_a[LAUNCH_NONCE_LEN], ctx[CORE_KEY_LEN], crx[CORE_KEY_LEN],
        atx[CORE_KEY_LEN], arx[CORE_KEY_LEN], other[CORE_KEY_LEN], mac[LAUNCH_TREE_MAC_LEN];
    char fr[LAUNCH_TREE_HDR_LEN + 5];

    group = "seal";
    core_random(key, sizeof(key));
    core_random(h.nonce, sizeof(h.nonce));
    core_random(nonce_a, sizeof(nonce_a));
    launch_tree_link_keys(key, LAUNCH_SIDE_CONNECT, &h, 2, nonce_a, ctx, crx);
    launch_tree_link_keys(key, LAUNCH_SIDE_ACCEPT, &h, 2, nonce_a, atx, arx);
    CHECK(!memcmp(ctx, arx, sizeof(ctx)) && !memcmp(atx, crx, sizeof(atx)),
          "the two ends derive different keys");
    CHECK(memcmp(ctx, crx, sizeof(ctx)), "one key for both directions");
    h.nonce[0] ^= 1;
    launch_tree_link_keys(key, LAUNCH_SIDE_CONNECT, &h, 2, nonce_a, other, mac);
    CHECK(memcmp(other, ctx, sizeof(other)), "another handshake gives the same key");
    launch_tree_frame_encode(fr, MSG_IO, 0, 3, 5);
    memcpy(fr + LAUNCH_TREE_HDR_LEN, "hello", 5);
    launch_tree_seal(ctx, 7, fr, sizeof(fr), mac);
    CHECK(launch_tree_seal_ok(arx, 7, fr, sizeof(fr), mac), "a sealed frame refused");
    CHECK(!launch_tree_seal_ok(arx, 8, fr, sizeof(fr), mac), "a frame taken with another number");
    CHECK(!launch_tree_seal_ok(crx, 7, fr, sizeof(fr), mac), "a frame taken in the other direction");
    CHECK(!launch_tree_seal_ok(other, 7, fr, sizeof(fr), mac), "a frame of another link taken");
    for (size_t i = 0; i < sizeof(fr); i++) {
        fr[i] ^= 0x20;
        CHECK(!launch_tree_seal_ok(arx, 7, fr, sizeof(fr), mac), "byte %zu changed unnoticed", i);
        fr[i] ^= 0x20;
    }
    mac[31] ^= 1;
    CHECK(!launch_tree_seal_ok(arx, 7, fr, sizeof(fr), mac), "a changed seal taken");
    pass();
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (core_crypto_init()) {
        printf("FAIL: unit/launch_wire no libsodium\n");
        return 1;
    }
    test_frames();
    test_handshake_msgs();
    test_seal();
    test_routes();
    test_agents();
    test_jobmsg();
    test_fence_dmodex();
    test_dynwire();
    test_namewire();
    test_feed();
    test_sockets();
    return 0;
}
