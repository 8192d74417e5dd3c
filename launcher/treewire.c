/*
 * The daemon tree's wire format, as pure functions (tree.h): frame headers,
 * the handshake messages and their MACs, and the direction rules that say
 * which message may come in on which link. Nothing here touches a socket or
 * any state outside its arguments: tree.c calls these on what it receives,
 * and the unit tests and fuzz targets call them on anything.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tree.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELLO_LEN (5 * 4 + LAUNCH_NONCE_LEN)
#define CHALLENGE_LEN (2 * 4 + LAUNCH_NONCE_LEN + CORE_MAC_LEN)

static const char *const names[] = {
    [MSG_HELLO] = "HELLO",           [MSG_WELCOME] = "WELCOME",
    [MSG_UP] = "UP",                 [MSG_LAUNCH] = "LAUNCH",
    [MSG_STARTED] = "STARTED",       [MSG_START_FAIL] = "START_FAIL",
    [MSG_EXIT] = "EXIT",             [MSG_ABORT] = "ABORT",
    [MSG_IO] = "IO",                 [MSG_STDIN] = "STDIN",
    [MSG_SIGNAL] = "SIGNAL",         [MSG_FENCE_UP] = "FENCE_UP",
    [MSG_FENCE_DOWN] = "FENCE_DOWN", [MSG_DMODEX_REQ] = "DMODEX_REQ",
    [MSG_DMODEX_RESP] = "DMODEX_RESP", [MSG_ERROR] = "ERROR",
    [MSG_SHUTDOWN] = "SHUTDOWN",     [MSG_BYE] = "BYE",
    [MSG_LOST] = "LOST",             [MSG_CHALLENGE] = "CHALLENGE",
    [MSG_PROOF] = "PROOF",           [MSG_SPAWN_REQ] = "SPAWN_REQ",
    [MSG_SPAWN_RESP] = "SPAWN_RESP", [MSG_DYN_JOB] = "DYN_JOB",
    [MSG_DYN_STARTED] = "DYN_STARTED", [MSG_DYN_EXIT] = "DYN_EXIT",
    [MSG_DYN_KILL] = "DYN_KILL",       [MSG_DYN_IO] = "DYN_IO",
    [MSG_NAME_REQ] = "NAME_REQ",       [MSG_NAME_RESP] = "NAME_RESP",
    [MSG_AGENTS] = "AGENTS",
};

const char *launch_msg_name(int type)
{
    return type >= MSG_HELLO && type <= MSG_LAST ? names[type] : "an unknown type";
}

int launch_tree_frame_decode(const void *buf, size_t len, size_t max, struct launch_frame_hdr *h,
                             const char **why)
{
    uint32_t w[4];

    if (len < LAUNCH_TREE_HDR_LEN)
        return 1;
    memcpy(w, buf, LAUNCH_TREE_HDR_LEN);
    h->len = ntohl(w[0]);
    h->type = (int)(ntohl(w[1]) >> 16);
    h->dst = ntohl(w[2]);
    h->src = ntohl(w[3]);
    if (h->len > max) {
        *why = "oversized frame";
        return -EMSGSIZE;
    }
    if (ntohl(w[1]) & 0xffffu) {
        *why = "reserved header bits set";
        return -EPROTO;
    }
    if (h->type < MSG_HELLO || h->type > MSG_LAST) {
        *why = "unknown message type";
        return -EPROTO;
    }
    return len - LAUNCH_TREE_HDR_LEN >= h->len ? 0 : 1;
}

void launch_tree_frame_encode(void *out, int type, uint32_t dst, uint32_t src, uint32_t n)
{
    uint32_t w[4] = {htonl(n), htonl((uint32_t)type << 16), htonl(dst), htonl(src)};
    memcpy(out, w, LAUNCH_TREE_HDR_LEN);
}

/* A string field of at most max bytes of printable ASCII without blanks, copied into out
 * (max + 1 bytes). Empty is allowed. */
static int rd_word(struct launch_rd *r, char *out, size_t max)
{
    size_t n;
    const char *p = lrd_bytes(r, &n);

    if (!p || n > max)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (p[i] <= ' ' || p[i] > '~')
            return -1;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

void launch_hello_encode(struct launch_buf *b, const struct launch_hello *h)
{
    lbuf_u32(b, h->proto);
    lbuf_u32(b, h->purpose);
    lbuf_u32(b, h->vpid);
    lbuf_u32(b, h->to);
    lbuf_u32(b, h->size);
    lbuf_raw(b, h->nonce, LAUNCH_NONCE_LEN);
}

int launch_hello_decode(const char *p, size_t n, struct launch_hello *h, const char **why)
{
    struct launch_rd r = {p, n, 0};

    if (n >= 4) { /* a different version may have a different layout: say which first */
        uint32_t proto = lrd_u32(&r);
        if (proto != LAUNCH_TREE_PROTO) {
            *why = "a different protocol version (another rdmpi, or not rdmpi at all)";
            return -EPROTO;
        }
    }
    if (n != HELLO_LEN) {
        *why = "malformed hello";
        return -EPROTO;
    }
    h->proto = LAUNCH_TREE_PROTO;
    h->purpose = lrd_u32(&r);
    h->vpid = lrd_u32(&r);
    h->to = lrd_u32(&r);
    h->size = lrd_u32(&r);
    memcpy(h->nonce, r.p, LAUNCH_NONCE_LEN);
    if (h->purpose != HELLO_BOOT && h->purpose != HELLO_LINK) {
        *why = "hello for an unknown purpose";
        return -EPROTO;
    }
    return 0;
}

void launch_challenge_encode(struct launch_buf *b, const struct launch_challenge *c)
{
    lbuf_u32(b, c->proto);
    lbuf_u32(b, c->vpid);
    lbuf_raw(b, c->nonce, LAUNCH_NONCE_LEN);
    lbuf_raw(b, c->mac, CORE_MAC_LEN);
}

int launch_challenge_decode(const char *p, size_t n, struct launch_challenge *c, const char **why)
{
    struct launch_rd r = {p, n, 0};

    if (n != CHALLENGE_LEN) {
        *why = "malformed challenge";
        return -EPROTO;
    }
    c->proto = lrd_u32(&r);
    c->vpid = lrd_u32(&r);
    memcpy(c->nonce, r.p, LAUNCH_NONCE_LEN);
    memcpy(c->mac, r.p + LAUNCH_NONCE_LEN, CORE_MAC_LEN);
    if (c->proto != LAUNCH_TREE_PROTO) {
        *why = "a different protocol version";
        return -EPROTO;
    }
    return 0;
}

void launch_proof_encode(struct launch_buf *b, const struct launch_proof *pr)
{
    lbuf_raw(b, pr->mac, CORE_MAC_LEN);
    lbuf_u32(b, pr->pid);
    lbuf_u32(b, pr->port);
    lbuf_str(b, pr->host);
    lbuf_str(b, pr->addrs);
    lbuf_str(b, pr->machine);
}

int launch_proof_decode(const char *p, size_t n, struct launch_proof *pr, const char **why)
{
    struct launch_rd r = {p, n, 0};

    *why = "malformed proof";
    if (n < CORE_MAC_LEN)
        return -EPROTO;
    memcpy(pr->mac, p, CORE_MAC_LEN);
    r.p += CORE_MAC_LEN;
    r.left -= CORE_MAC_LEN;
    pr->pid = lrd_u32(&r);
    pr->port = lrd_u32(&r);
    if (rd_word(&r, pr->host, LAUNCH_HOST_MAX) || rd_word(&r, pr->addrs, LAUNCH_ADDRS_MAX) ||
        rd_word(&r, pr->machine, LAUNCH_MACHINE_MAX) || r.err || r.left)
        return -EPROTO;
    if (pr->pid == 0 || pr->pid > 0x7fffffffu || pr->port > 65535 || !pr->host[0] ||
        !launch_net_addrs_ok(pr->addrs, LAUNCH_ADDRS_COUNT)) {
        *why = "a proof with an impossible pid, port, hostname or address";
        return -EPROTO;
    }
    return 0;
}

/* Like rd_word, but blanks (not leading) are allowed: a command line. */
static int rd_line(struct launch_rd *r, char *out, size_t max)
{
    size_t n;
    const char *p = lrd_bytes(r, &n);

    if (!p || n > max || (n && p[0] == ' '))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (p[i] < ' ' || p[i] > '~')
            return -1;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

void launch_agents_encode(struct launch_buf *b, const struct launch_agents *a)
{
    lbuf_str(b, a->cmd);
    lbuf_str(b, a->rdmpid);
    lbuf_u32(b, a->n);
    for (uint32_t i = 0; i < a->n && i < LAUNCH_AGENTS_KIDS; i++) {
        lbuf_u32(b, a->vpid[i]);
        lbuf_str(b, a->name[i]);
    }
}

int launch_agents_decode(const char *p, size_t n, int size, int me, struct launch_agents *a,
                         const char **why)
{
    struct launch_rd r = {p, n, 0};

    *why = "malformed agents message";
    if (rd_line(&r, a->cmd, LAUNCH_AGENT_CMD_MAX) || rd_word(&r, a->rdmpid, LAUNCH_PATH_MAX))
        return -EPROTO;
    a->n = lrd_u32(&r);
    if (r.err || a->n == 0 || a->n > LAUNCH_AGENTS_KIDS)
        return -EPROTO;
    for (uint32_t i = 0; i < a->n; i++) {
        a->vpid[i] = lrd_u32(&r);
        if (r.err || rd_word(&r, a->name[i], LAUNCH_HOST_MAX))
            return -EPROTO;
        if (a->vpid[i] >= (uint32_t)size || (int)a->vpid[i] <= me ||
            (int)(a->vpid[i] & (a->vpid[i] - 1)) != me || (i && a->vpid[i] <= a->vpid[i - 1]) ||
            !a->name[i][0] || a->name[i][0] == '-') {
            *why = "an agents message naming a member that is not our child, or a bad host name";
            return -EPROTO;
        }
    }
    if (r.left)
        return -EPROTO;
    if (a->rdmpid[0] != '/') {
        *why = "an agents message with a relative rdmpid path";
        return -EPROTO;
    }
    return 0;
}

void launch_welcome_encode(struct launch_buf *b, const struct launch_welcome *w)
{
    lbuf_u32(b, w->parent);
    lbuf_u32(b, w->port);
    lbuf_str(b, w->addrs);
}

int launch_welcome_decode(const char *p, size_t n, struct launch_welcome *w, const char **why)
{
    struct launch_rd r = {p, n, 0};

    w->parent = lrd_u32(&r);
    w->port = lrd_u32(&r);
    if (rd_word(&r, w->addrs, sizeof(w->addrs) - 1) || r.err || r.left) {
        *why = "malformed welcome";
        return -EPROTO;
    }
    if (w->port > 65535 || !launch_net_addrs_ok(w->addrs, LAUNCH_ADDRS_COUNT + 1) ||
        (w->parent != 0 && (w->port == 0 || !w->addrs[0]))) {
        *why = "a welcome with an impossible port or address";
        return -EPROTO;
    }
    return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
    v = htonl(v);
    memcpy(p, &v, 4);
}

/* What a MAC covers: a label, then everything both sides said, in a fixed layout. The
 * proofs use MAC_LABEL; the keys of a link's frames (launch_tree_link_keys) KEYS_LABEL,
 * of the same length. */
#define MAC_LABEL "rdmpi tree proof"
#define KEYS_LABEL "rdmpi tree links"
#define MAC_MSG_LEN (sizeof(MAC_LABEL) + 6 * 4 + 2 * LAUNCH_NONCE_LEN)
_Static_assert(sizeof(MAC_LABEL) == sizeof(KEYS_LABEL), "labels of one length");

static void labelled_msg(uint8_t msg[MAC_MSG_LEN], const char *label, int side,
                         const struct launch_hello *h, uint32_t acceptor,
                         const uint8_t nonce_a[LAUNCH_NONCE_LEN])
{
    uint8_t *p = msg;

    memcpy(p, label, sizeof(MAC_LABEL)); /* with its NUL */
    p += sizeof(MAC_LABEL);
    put32(p, LAUNCH_TREE_PROTO);
    put32(p + 4, (uint32_t)side);
    put32(p + 8, h->purpose);
    put32(p + 12, h->size);
    put32(p + 16, h->vpid);
    put32(p + 20, acceptor);
    p += 24;
    memcpy(p, h->nonce, LAUNCH_NONCE_LEN);
    memcpy(p + LAUNCH_NONCE_LEN, nonce_a, LAUNCH_NONCE_LEN);
}

static void mac_msg(uint8_t msg[MAC_MSG_LEN], int side, const struct launch_hello *h,
                    uint32_t acceptor, const uint8_t nonce_a[LAUNCH_NONCE_LEN])
{
    labelled_msg(msg, MAC_LABEL, side, h, acceptor, nonce_a);
}

void launch_tree_link_keys(const uint8_t key[CORE_KEY_LEN], int side, const struct launch_hello *h,
                           uint32_t acceptor, const uint8_t nonce_a[LAUNCH_NONCE_LEN],
                           uint8_t tx[CORE_KEY_LEN], uint8_t rx[CORE_KEY_LEN])
{
    uint8_t msg[MAC_MSG_LEN];
    int other = side == LAUNCH_SIDE_CONNECT ? LAUNCH_SIDE_ACCEPT : LAUNCH_SIDE_CONNECT;

    _Static_assert(CORE_MAC_LEN == CORE_KEY_LEN, "a MAC is a key");
    /* One key per direction, named by the side that sends with it. */
    labelled_msg(msg, KEYS_LABEL, side, h, acceptor, nonce_a);
    core_mac(key, msg, sizeof(msg), tx);
    labelled_msg(msg, KEYS_LABEL, other, h, acceptor, nonce_a);
    core_mac(key, msg, sizeof(msg), rx);
}

void launch_tree_seal(const uint8_t key[CORE_KEY_LEN], uint64_t seq, const void *frame,
                      size_t len, uint8_t mac[LAUNCH_TREE_MAC_LEN])
{
    uint8_t be[8];
    for (int i = 0; i < 8; i++)
        be[i] = (uint8_t)(seq >> (56 - 8 * i));
    core_mac_part_t parts[2] = {{be, sizeof(be)}, {frame, len}};
    core_mac_parts(key, parts, 2, mac);
}

int launch_tree_seal_ok(const uint8_t key[CORE_KEY_LEN], uint64_t seq, const void *frame,
                        size_t len, const uint8_t mac[LAUNCH_TREE_MAC_LEN])
{
    uint8_t want[LAUNCH_TREE_MAC_LEN];
    launch_tree_seal(key, seq, frame, len, want);
    return core_mem_eq(want, mac, sizeof(want));
}

void launch_tree_mac(const uint8_t key[CORE_KEY_LEN], int side, const struct launch_hello *h,
                     uint32_t acceptor, const uint8_t nonce_a[LAUNCH_NONCE_LEN],
                     uint8_t mac[CORE_MAC_LEN])
{
    uint8_t msg[MAC_MSG_LEN];

    mac_msg(msg, side, h, acceptor, nonce_a);
    core_mac(key, msg, sizeof(msg), mac);
}

int launch_tree_mac_ok(const uint8_t key[CORE_KEY_LEN], int side, const struct launch_hello *h,
                       uint32_t acceptor, const uint8_t nonce_a[LAUNCH_NONCE_LEN],
                       const uint8_t mac[CORE_MAC_LEN])
{
    uint8_t msg[MAC_MSG_LEN];

    mac_msg(msg, side, h, acceptor, nonce_a);
    return core_mac_ok(key, msg, sizeof(msg), mac);
}

static unsigned lowbit(unsigned v)
{
    return v & (~v + 1);
}

int launch_tree_subtree_has(int size, int root, int vpid)
{
    if (vpid < 0 || vpid >= size || root < 0 || root >= size)
        return 0;
    if (root == 0)
        return 1;
    return vpid >= root && (unsigned)vpid < (unsigned)root + lowbit((unsigned)root);
}

/* How a message type may travel (see launch_tree_route_check). */
enum dir {
    D_NONE,     /* never on an established link: the joining messages */
    D_COMMAND,  /* from rdmpirun down to every member: parent link, src 0, broadcast */
    D_TO_NODE,  /* from rdmpirun to one member: parent link, src 0, routed down */
    D_REPORT,   /* from a member to rdmpirun: child link, src in its subtree, dst 0 */
    D_HOP_UP,   /* from a child to its parent, one hop: src is the child, dst us */
    D_ANY,      /* between any two members, routed along the tree */
};

static enum dir direction(int type)
{
    switch (type) {
    case MSG_LAUNCH:
    case MSG_SIGNAL:
    case MSG_SHUTDOWN:
    case MSG_FENCE_DOWN:
    case MSG_DYN_JOB:
    case MSG_DYN_KILL:
        return D_COMMAND;
    case MSG_STDIN:
    case MSG_SPAWN_RESP:
    case MSG_NAME_RESP:
    case MSG_AGENTS:
        return D_TO_NODE;
    case MSG_UP:
    case MSG_STARTED:
    case MSG_START_FAIL:
    case MSG_EXIT:
    case MSG_ABORT:
    case MSG_IO:
    case MSG_ERROR:
    case MSG_LOST:
    case MSG_SPAWN_REQ:
    case MSG_DYN_STARTED:
    case MSG_DYN_EXIT:
    case MSG_DYN_IO:
    case MSG_NAME_REQ:
        return D_REPORT;
    case MSG_FENCE_UP:
    case MSG_BYE:
        return D_HOP_UP;
    case MSG_DMODEX_REQ:
    case MSG_DMODEX_RESP:
        return D_ANY;
    default:
        return D_NONE;
    }
}

int launch_tree_route_check(int size, int me, int link, int peer, int type, uint32_t dst,
                            uint32_t src, const char **why)
{
    enum dir d = direction(type);
    int from_parent = link == LAUNCH_LINK_PARENT;
    int bcast = dst == LAUNCH_TREE_BCAST;

    *why = NULL;
    if (me < 0 || me >= size || peer < 0 || peer >= size || peer == me ||
        (from_parent ? peer != launch_tree_parent_of(me)
                     : link != LAUNCH_LINK_CHILD || launch_tree_parent_of(peer) != me || peer == 0))
        *why = "a link that is not in the tree";
    else if (d == D_NONE)
        *why = "a message that has no place on an established link";
    else if (src >= (uint32_t)size || (int)src == me)
        *why = "an impossible source";
    else if (!bcast && dst >= (uint32_t)size)
        *why = "an impossible destination";
    else if (bcast != (d == D_COMMAND))
        *why = bcast ? "a broadcast of a message that is never broadcast"
                     : "a command that is only ever broadcast";
    else if ((d == D_COMMAND || d == D_TO_NODE) && (!from_parent || src != 0))
        *why = "a command that does not come from rdmpirun through the parent link";
    else if ((d == D_REPORT || d == D_HOP_UP) && from_parent)
        *why = "a report coming down from the parent";
    else if (d == D_REPORT && dst != 0)
        *why = "a report not addressed to rdmpirun";
    else if (d == D_HOP_UP && ((int)src != peer || (int)dst != me))
        *why = "a one-hop message from someone else than the child";
    else if (!from_parent && !launch_tree_subtree_has(size, peer, (int)src))
        *why = "a source outside the subtree of the child that sent it";
    else if (from_parent && launch_tree_subtree_has(size, me, (int)src))
        *why = "a source inside our own subtree coming from the parent";
    else if (!bcast && from_parent && !launch_tree_subtree_has(size, me, (int)dst))
        *why = "a destination outside our subtree coming from the parent";
    else if (!bcast && !from_parent && launch_tree_subtree_has(size, peer, (int)dst))
        *why = "a destination inside the subtree of the child that sent it";
    return *why ? -EPERM : 0;
}

/* "*", or ranks below nranks in strictly increasing order, in decimal, comma-separated;
 * or "n:" and such a list of nodes below nnodes (PMIx_Connect across nodes, server.c). */
static int sig_ok(const char *s, int nranks, int nnodes)
{
    long prev = -1;

    if (!strcmp(s, "*"))
        return 1;
    if (!strncmp(s, "n:", 2)) {
        s += 2;
        nranks = nnodes;
    }
    if (!*s)
        return 0;
    while (*s) {
        long v = 0;
        int digits = 0;
        for (; *s >= '0' && *s <= '9'; s++, digits++)
            if (digits >= 10 || (v = v * 10 + (*s - '0')) >= nranks)
                return 0;
        if (digits == 0 || v <= prev || (*s && (*s != ',' || !s[1])))
            return 0;
        prev = v;
        if (*s)
            s++;
    }
    return 1;
}

int launch_fence_decode(int type, const char *p, size_t n, int nranks, int nnodes,
                        struct launch_fence_msg *m, const char **why)
{
    struct launch_rd r = {p, n, 0};

    memset(m, 0, sizeof(*m));
    *why = "malformed fence message";
    m->sig = lrd_str_max(&r, (size_t)nranks * 11 + 2);
    m->seq = lrd_u32(&r);
    if (!m->sig || r.err)
        return -EPROTO;
    if (!sig_ok(m->sig, nranks, nnodes)) {
        *why = "a fence signature that names no ranks of the job";
        return -EPROTO;
    }
    if (type == MSG_FENCE_DOWN) {
        m->all = lrd_bytes(&r, &m->all_len);
        return m->all && !r.left ? 0 : -EPROTO;
    }
    if (type != MSG_FENCE_UP)
        return -EPROTO;
    m->n = lrd_u32(&r);
    if (r.err || m->n > (uint32_t)nnodes || m->n > r.left / 8)
        return -EPROTO;
    m->e = calloc(m->n ? m->n : 1, sizeof(*m->e));
    if (!m->e)
        return -ENOMEM;
    for (uint32_t i = 0; i < m->n; i++) {
        m->e[i].node = lrd_u32(&r);
        m->e[i].blob = lrd_bytes(&r, &m->e[i].len);
        if (!m->e[i].blob || m->e[i].node >= (uint32_t)nnodes)
            return -EPROTO;
        for (uint32_t k = 0; k < i; k++)
            if (m->e[k].node == m->e[i].node) {
                *why = "a node twice in one fence message";
                return -EPROTO;
            }
    }
    return r.left ? -EPROTO : 0;
}

void launch_fence_msg_free(struct launch_fence_msg *m)
{
    free(m->sig);
    free(m->e);
    memset(m, 0, sizeof(*m));
}

int launch_dmodex_decode(int type, const char *p, size_t n, int nranks,
                         struct launch_dmodex_msg *m, const char **why)
{
    struct launch_rd r = {p, n, 0};

    memset(m, 0, sizeof(*m));
    *why = "malformed direct-modex message";
    m->id = lrd_u32(&r);
    if (type == MSG_DMODEX_REQ) {
        m->rank = lrd_u32(&r);
        if (r.err || r.left || m->rank >= (uint32_t)nranks)
            return -EPROTO;
        return 0;
    }
    if (type != MSG_DMODEX_RESP)
        return -EPROTO;
    m->status = (int32_t)lrd_u32(&r);
    m->data = lrd_bytes(&r, &m->len);
    if (!m->data || r.left || m->status > 0)
        return -EPROTO;
    return 0;
}
