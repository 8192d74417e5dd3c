/*
 * The daemon tree: how rdmpirun and the rdmpids of a multi-node job talk.
 *
 * Members are numbered by vpid: 0 is rdmpirun, 1..size-1 the daemons. They
 * form a binomial tree rooted at 0 (the parent of v is v with its lowest set
 * bit cleared), and each member holds TCP links only to its parent and its
 * children, so no process has a link per node. Messages carry a destination
 * vpid and are routed hop by hop along the tree; LAUNCH_TREE_BCAST goes
 * down from the root to every member.
 *
 * Joining, tree launch (the default): every member starts the daemons of
 * its own children only, through the launch agent, and writes one line to
 * each one's stdin ("RDMPID2"): the job's secret, its vpid and the
 * parent's port and addresses. The daemon connects to its parent and
 * authenticates that link (HELLO_LINK, below), then sends UP to rdmpirun
 * with its pid, hostname and machine (the PROOF's layout). rdmpirun answers
 * a daemon that has children with AGENTS (the agent command, rdmpid's path
 * and its children's host names), and the daemon starts their agents with
 * the secret it got on its own stdin. So rdmpirun runs log2(n) agents and
 * takes log2(n) connections, not n; a daemon whose child's agent fails
 * reports it up as LOST with the agent's last words.
 *
 * Joining, flat launch (--launch-flat, for clusters whose nodes cannot
 * start commands on each other): rdmpirun starts every daemon and writes
 * "RDMPID1" with its own addresses. The daemon connects to rdmpirun (the
 * boot connection) and authenticates it, telling its listening port and
 * addresses. rdmpirun answers WELCOME with the address of the daemon's
 * parent once that parent is booted too. A daemon whose parent is rdmpirun
 * keeps the boot connection as its link; the others close it, connect to
 * their parent and authenticate that link the same way. Once linked, a
 * daemon sends UP to rdmpirun.
 *
 * Authentication (every connection, both ends): the secret never crosses
 * the wire. The connecting side says HELLO with a fresh random nonce, its
 * vpid, the vpid it wants and the protocol version; the accepting side
 * answers CHALLENGE with its own fresh nonce and a MAC over both nonces,
 * both vpids, the purpose, the tree size, the version and its side
 * ("accepting"); the connecting side checks it and answers PROOF, the same
 * MAC for its side ("connecting"), followed by what it tells about itself.
 * The MAC key is derived from the secret for this use only (core_kdf), the
 * MACs are checked in constant time (core_mac_ok), and the side in the MAC
 * makes a reflected proof fail. Neither end believes anything else on a
 * connection before the other's proof checked out; a connection that fails
 * is closed and logged once with its address. An accepted connection has
 * HELLO_TIMEOUT seconds and frames of at most LAUNCH_TREE_MAX_UNAUTH bytes
 * to authenticate, and only a few dozen may be unauthenticated at a time
 * (tree_impl.h). The secret itself travels only on the daemon's stdin,
 * through the launch agent (ssh) its parent ran: never on a command line,
 * in the environment or on a tree link.
 *
 * After authentication every frame is sealed with a MAC (see LAUNCH_TREE_MAC_LEN below)
 * and checked against the direction rules
 * (launch_tree_route_check): commands that make a member act (LAUNCH,
 * SIGNAL, STDIN, SHUTDOWN, FENCE_DOWN, DYN_JOB, DYN_KILL, SPAWN_RESP, NAME_RESP) come
 * only from its parent link and from rdmpirun; reports go up only, from the subtree of the child that
 * sent them. A frame that breaks them is refused and logged.
 *
 * Frames: a 16-byte header (payload length, type, destination, source, in
 * network byte order) and the payload, built and read with launch_buf and
 * launch_rd. Everything here runs on the main thread of its process.
 */
#ifndef RDMPI_LAUNCH_TREE_H
#define RDMPI_LAUNCH_TREE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include "core/secret.h"

#define LAUNCH_TREE_BCAST 0xffffffffu
#define LAUNCH_SECRET_LEN 64 /* hex characters */

enum launch_msg {
    MSG_HELLO = 1,   /* connecting side: version, purpose, vpid, wanted vpid, size, nonce */
    MSG_WELCOME,     /* rdmpirun -> daemon: parent vpid, its port and addresses */
    MSG_UP,          /* daemon -> 0: linked into the tree (tree launch: pid, host...) */
    MSG_LAUNCH,      /* bcast: the job (jobmsg.c) */
    MSG_STARTED,     /* daemon -> 0: (rank, pid) of each local rank */
    MSG_START_FAIL,  /* daemon -> 0: exit code, text */
    MSG_EXIT,        /* daemon -> 0: rank, wait status, connected, finalized */
    MSG_ABORT,       /* daemon -> 0: rank, status, message */
    MSG_IO,          /* daemon -> 0: rank, is_err, bytes */
    MSG_STDIN,       /* 0 -> daemon of rank 0: bytes, none at EOF */
    MSG_SIGNAL,      /* bcast: signal, how (enum launch_sig_how) */
    MSG_FENCE_UP,    /* child -> parent: signature, seq, (node, blob)... */
    MSG_FENCE_DOWN,  /* bcast: signature, seq, concatenated blobs */
    MSG_DMODEX_REQ,  /* requester -> host of the rank: id, rank */
    MSG_DMODEX_RESP, /* back: id, status, blob */
    MSG_ERROR,       /* daemon -> 0: why it is going away */
    MSG_SHUTDOWN,    /* bcast: every rank is gone; clean up and leave */
    MSG_BYE,         /* child -> parent, one hop: this subtree is done */
    MSG_LOST,        /* daemon -> 0: its child's subtree is cut off: vpid, why */
    MSG_CHALLENGE,   /* accepting side: version, vpid, nonce, MAC */
    MSG_PROOF,       /* connecting side: MAC, pid, hostname, port, addresses, machine id */
    MSG_SPAWN_REQ,   /* daemon -> 0: a rank of its node spawns (dynwire.h) */
    MSG_SPAWN_RESP,  /* 0 -> that daemon: the spawn's outcome */
    MSG_DYN_JOB,     /* bcast: a spawned job and where its ranks run */
    MSG_DYN_STARTED, /* daemon -> 0: it registered (and started) a spawned job, or why not */
    MSG_DYN_EXIT,    /* daemon -> 0: job index, rank, wait status, connected, finalized */
    MSG_DYN_KILL,    /* bcast: job index: end that spawned job (its start failed) */
    MSG_DYN_IO,      /* daemon -> 0: job index, rank, is_err, bytes of a spawned rank */
    MSG_NAME_REQ,    /* daemon -> 0: a rank of its node publishes, looks up or unpublishes */
    MSG_NAME_RESP,   /* 0 -> that daemon: the outcome (dynwire.h) */
    MSG_AGENTS,      /* 0 -> a daemon (tree launch): start your children's agents */
    MSG_LAST = MSG_AGENTS
};

enum launch_hello_purpose { HELLO_BOOT = 1, HELLO_LINK = 2 };

/* How a MSG_SIGNAL is applied to a node's ranks. */
enum launch_sig_how {
    SIG_GROUPS_ALL = 1,   /* every rank's process group, reaped ranks included */
    SIG_GROUPS_ALIVE = 2, /* the process groups of ranks still running */
    SIG_PIDS_ALIVE = 3,   /* the ranks still running, not their groups */
};

/* Growable output buffer; err is set on allocation failure. */
struct launch_buf {
    char *p;
    size_t len, cap;
    int err;
};

void lbuf_u32(struct launch_buf *b, uint32_t v);
void lbuf_bytes(struct launch_buf *b, const void *p, size_t n); /* u32 length + bytes */
void lbuf_str(struct launch_buf *b, const char *s);
void lbuf_raw(struct launch_buf *b, const void *p, size_t n);   /* bytes only */
void lbuf_free(struct launch_buf *b);

/* Reader over one payload; err is set (and stays set) on a short read. */
struct launch_rd {
    const char *p;
    size_t left;
    int err;
};

uint32_t lrd_u32(struct launch_rd *r);
const char *lrd_bytes(struct launch_rd *r, size_t *n); /* points into the payload */
/* A malloc'ed copy of a string of at most max bytes without NUL bytes; NULL
 * (and err set) when it is longer, holds a NUL or is cut short. */
char *lrd_str_max(struct launch_rd *r, size_t max);
char *lrd_str(struct launch_rd *r); /* lrd_str_max(r, LAUNCH_STR_MAX) */
#define LAUNCH_STR_MAX 65536

/* net.c: sockets and addresses. */
int launch_net_listen(int *port);
int launch_net_connect_any(const char *addrs, int port, double timeout, char *err, size_t errlen);
void launch_net_local_addrs(char *buf, size_t len);
void launch_net_route_addr(const char *host, char *buf, size_t len);
int launch_net_secret(char out[LAUNCH_SECRET_LEN + 1]);
/* A key for one purpose (label), derived from the daemons' secret (hex) with core_kdf:
 * rdmpirun and every rdmpid compute the same key without sending it. -EINVAL if secret
 * is not LAUNCH_SECRET_LEN hex digits. */
int launch_net_derive_key(const char *secret, const char *label, uint8_t key[CORE_KEY_LEN]);
/* The ranks' job key: launch_net_derive_key(secret, "rdmpi job key"). */
int launch_net_job_key(const char *secret, uint8_t key[CORE_KEY_LEN]);
/* 1 when s is a comma list of at most max dotted IPv4 addresses (or empty). */
int launch_net_addrs_ok(const char *s, int max);
/* Names the machine (the running kernel) this process is on: hosts made of
 * network namespaces or containers of one machine share it, and so share its
 * cores. "" when unknown. */
void launch_net_machine_id(char *buf, size_t len);

/* tree.c */
struct launch_tree;

/* Called for every message delivered to this member (routed ones that end
 * here, and broadcasts), except the joining protocol's own messages. */
typedef void (*launch_tree_msg_fn)(void *ctx, int type, int src, const char *p, size_t n);
/* Called once when a child's subtree is cut off (its link closed without
 * BYE), or, with vpid -1, when this member's parent link is gone. */
typedef void (*launch_tree_lost_fn)(void *ctx, int vpid, const char *why);

struct launch_tree *launch_tree_create(int size, int me, const char *secret, const char *who,
                                       launch_tree_msg_fn on_msg, launch_tree_lost_fn on_lost,
                                       void *ctx);
void launch_tree_destroy(struct launch_tree *t);
int launch_tree_listen(struct launch_tree *t);
int launch_tree_port(const struct launch_tree *t);
/* Joins the tree: through a boot connection to rdmpirun at addrs:port (flat launch), or,
 * when direct, by linking at once to our parent listening there (tree launch). */
int launch_tree_join(struct launch_tree *t, const char *addrs, int port, int direct,
                     double timeout);
/* A daemon: 1 when its link to child vpid is authenticated and open. */
int launch_tree_child_linked(const struct launch_tree *t, int vpid);
int launch_tree_send(struct launch_tree *t, int type, uint32_t dst, const void *p, size_t n);
int launch_tree_send_parent(struct launch_tree *t, int type, const void *p, size_t n);
int launch_tree_npollfds(const struct launch_tree *t);
int launch_tree_fill_pollfds(struct launch_tree *t, struct pollfd *pfd, int max);
void launch_tree_handle(struct launch_tree *t, const struct pollfd *pfd, int n);
void launch_tree_tick(struct launch_tree *t, double now);
double launch_tree_next_deadline(const struct launch_tree *t);
int launch_tree_nup(const struct launch_tree *t);
int launch_tree_is_up(const struct launch_tree *t, int vpid);
int launch_tree_children_done(const struct launch_tree *t);
int launch_tree_parent_gone(const struct launch_tree *t);
int launch_tree_flush(struct launch_tree *t, double timeout);
const char *launch_tree_member_host(const struct launch_tree *t, int vpid);
const char *launch_tree_member_machine(const struct launch_tree *t, int vpid);
int launch_tree_member_pid(const struct launch_tree *t, int vpid);
int launch_tree_me(const struct launch_tree *t);
int launch_tree_size(const struct launch_tree *t);
int launch_tree_in_subtree(const struct launch_tree *t, int root, int vpid);
int launch_tree_parent_of(int vpid);

/*
 * treewire.c: what may be on the wire between members, as pure functions
 * over (bytes, length) that touch no socket and no global state, so that
 * unit tests and fuzz targets drive them directly. Decoders return 0 or a
 * negative code (-EPROTO malformed, -EMSGSIZE too long, -EPERM against the
 * rules) and set *why to a constant string saying what was wrong; they
 * never read outside [p, p + n) and accept a message only when every byte
 * of it is accounted for.
 */
#define LAUNCH_TREE_PROTO 3          /* version of this protocol, in HELLO and the MACs */
#define LAUNCH_TREE_HDR_LEN 16
#define LAUNCH_TREE_MAX_UNAUTH 4096  /* largest frame before the peer's proof */
#define LAUNCH_TREE_MAX_FRAME (256u << 20)
#define LAUNCH_NONCE_LEN 32
#define LAUNCH_HOST_MAX 255          /* lengths of the strings a member tells about itself */
#define LAUNCH_ADDRS_MAX 1023
#define LAUNCH_MACHINE_MAX 63
#define LAUNCH_ADDRS_COUNT 64        /* addresses in one list */

enum launch_hello_side { LAUNCH_SIDE_CONNECT = 1, LAUNCH_SIDE_ACCEPT = 2 };

struct launch_frame_hdr {
    uint32_t len; /* payload bytes after the header */
    int type;     /* enum launch_msg */
    uint32_t dst, src;
};

/* Decodes the header at the start of buf: 0 when the whole frame (header and h->len
 * bytes of payload) is in buf[0, len), 1 when more bytes are needed (h->len is set once
 * the header is there), or an error when the header is invalid: payload over max bytes,
 * reserved bits set, or a type that does not exist. */
int launch_tree_frame_decode(const void *buf, size_t len, size_t max, struct launch_frame_hdr *h,
                             const char **why);
/* Writes a frame header for a payload of n bytes into out. */
void launch_tree_frame_encode(void *out, int type, uint32_t dst, uint32_t src, uint32_t n);

struct launch_hello {
    uint32_t proto, purpose, vpid, to, size;
    uint8_t nonce[LAUNCH_NONCE_LEN];
};
struct launch_challenge {
    uint32_t proto, vpid;
    uint8_t nonce[LAUNCH_NONCE_LEN];
    uint8_t mac[CORE_MAC_LEN];
};
struct launch_proof {
    uint8_t mac[CORE_MAC_LEN];
    uint32_t pid, port;
    char host[LAUNCH_HOST_MAX + 1];
    char addrs[LAUNCH_ADDRS_MAX + 1];
    char machine[LAUNCH_MACHINE_MAX + 1];
};
struct launch_welcome {
    uint32_t parent, port;
    char addrs[2 * LAUNCH_ADDRS_MAX + 2]; /* the address rdmpirun saw, then the parent's list */
};

void launch_hello_encode(struct launch_buf *b, const struct launch_hello *h);
/* Checks the layout and the version; the vpids are for the caller to judge. */
int launch_hello_decode(const char *p, size_t n, struct launch_hello *h, const char **why);
void launch_challenge_encode(struct launch_buf *b, const struct launch_challenge *c);
int launch_challenge_decode(const char *p, size_t n, struct launch_challenge *c, const char **why);
void launch_proof_encode(struct launch_buf *b, const struct launch_proof *pr);
/* Checks the layout; the MAC is for the caller to check (launch_tree_mac_ok) before it
 * believes the rest. */
int launch_proof_decode(const char *p, size_t n, struct launch_proof *pr, const char **why);
void launch_welcome_encode(struct launch_buf *b, const struct launch_welcome *w);
int launch_welcome_decode(const char *p, size_t n, struct launch_welcome *w, const char **why);

/* The MAC one side sends to prove it holds the secret, over everything the two sides
 * said in the handshake: version, side, purpose, size, both vpids, both nonces. key is
 * the tree's authentication key (launch_net_derive_key(secret, LAUNCH_TREE_AUTH_LABEL)). */
#define LAUNCH_TREE_AUTH_LABEL "rdmpi tree auth"
/*
 * Frames after the handshake are sealed: each carries, after its payload, a MAC of
 * LAUNCH_TREE_MAC_LEN bytes over its number on the link (0, 1, ... per direction) and
 * its header and payload, under a key of that link and direction. The keys come from the
 * job's key and both nonces of the link's handshake, so a frame cannot be forged, changed,
 * replayed, reordered, dropped unnoticed or moved to another link by someone who can
 * write into the TCP stream but does not hold the secret. The connecting side seals what
 * it sends after its PROOF and checks what it gets after the CHALLENGE; the accepting
 * side seals after its CHALLENGE and checks after the PROOF.
 */
#define LAUNCH_TREE_MAC_LEN CORE_MAC_LEN
void launch_tree_link_keys(const uint8_t key[CORE_KEY_LEN], int side, const struct launch_hello *h,
                           uint32_t acceptor, const uint8_t nonce_a[LAUNCH_NONCE_LEN],
                           uint8_t tx[CORE_KEY_LEN], uint8_t rx[CORE_KEY_LEN]);
void launch_tree_seal(const uint8_t key[CORE_KEY_LEN], uint64_t seq, const void *frame,
                      size_t len, uint8_t mac[LAUNCH_TREE_MAC_LEN]);
int launch_tree_seal_ok(const uint8_t key[CORE_KEY_LEN], uint64_t seq, const void *frame,
                        size_t len, const uint8_t mac[LAUNCH_TREE_MAC_LEN]);
void launch_tree_mac(const uint8_t key[CORE_KEY_LEN], int side, const struct launch_hello *h,
                     uint32_t acceptor, const uint8_t nonce_a[LAUNCH_NONCE_LEN],
                     uint8_t mac[CORE_MAC_LEN]);
int launch_tree_mac_ok(const uint8_t key[CORE_KEY_LEN], int side, const struct launch_hello *h,
                       uint32_t acceptor, const uint8_t nonce_a[LAUNCH_NONCE_LEN],
                       const uint8_t mac[CORE_MAC_LEN]);

/* AGENTS (tree launch): what a daemon needs to start its children's daemons. Names are
 * host names as given to rdmpirun: no blanks or control characters, not starting with '-'
 * (they become an argument of the agent). */
#define LAUNCH_AGENT_CMD_MAX 4095
#define LAUNCH_PATH_MAX 4095
#define LAUNCH_AGENTS_KIDS 32 /* children of one member: at most log2 of the tree size */
struct launch_agents {
    char cmd[LAUNCH_AGENT_CMD_MAX + 1];  /* the launch agent, "" for the default (ssh) */
    char rdmpid[LAUNCH_PATH_MAX + 1];    /* absolute path */
    uint32_t n;
    uint32_t vpid[LAUNCH_AGENTS_KIDS];
    char name[LAUNCH_AGENTS_KIDS][LAUNCH_HOST_MAX + 1];
};
void launch_agents_encode(struct launch_buf *b, const struct launch_agents *a);
/* For member me of a tree of size members: every vpid one of its children, in increasing
 * order, each once. */
int launch_agents_decode(const char *p, size_t n, int size, int me, struct launch_agents *a,
                         const char **why);

/* Which link an authenticated frame came in on, seen from the receiving member. */
enum launch_link { LAUNCH_LINK_PARENT = 1, LAUNCH_LINK_CHILD = 2 };
/* The direction rules: 0 when member `me` of a tree of `size` may take a frame of this
 * type, destination and claimed source from its link to `peer` (its parent or one of its
 * children), -EPERM (with why) when not. */
int launch_tree_route_check(int size, int me, int link, int peer, int type, uint32_t dst,
                            uint32_t src, const char **why);
/* True when vpid is in the subtree rooted at root of a tree of size members. */
int launch_tree_subtree_has(int size, int root, int vpid);
/* A name for a message type, for logs: "LAUNCH", or "an unknown type". */
const char *launch_msg_name(int type);

/* Fence and direct-modex payloads (fence.c, dmodex.c), decoded without any job state but
 * the sizes that bound them. A fence signature is "*" or strictly increasing ranks below
 * nranks ("0,3,5"); entry nodes are below nnodes and distinct. Blobs point into p. */
struct launch_fence_entry {
    uint32_t node;
    const char *blob;
    size_t len;
};
struct launch_fence_msg {
    char *sig;                     /* malloc'ed */
    uint32_t seq;
    uint32_t n;                    /* FENCE_UP: entries */
    struct launch_fence_entry *e;  /* FENCE_UP: malloc'ed */
    const char *all;               /* FENCE_DOWN: the concatenated blobs */
    size_t all_len;
};
int launch_fence_decode(int type, const char *p, size_t n, int nranks, int nnodes,
                        struct launch_fence_msg *m, const char **why);
void launch_fence_msg_free(struct launch_fence_msg *m);
struct launch_dmodex_msg {
    uint32_t id;
    uint32_t rank;      /* DMODEX_REQ: below nranks */
    int32_t status;     /* DMODEX_RESP: a PMIx status, 0 or negative */
    const char *data;   /* DMODEX_RESP */
    size_t len;
};
int launch_dmodex_decode(int type, const char *p, size_t n, int nranks,
                         struct launch_dmodex_msg *m, const char **why);

/* Testing and fuzzing (tree.c): handles bytes as if they had arrived on one connection of
 * this member, in the state given (LAUNCH_FEED_NEW: just accepted; LAUNCH_FEED_PARENT or
 * LAUNCH_FEED_CHILD: an authenticated link to member peer), exactly as the poll loop would,
 * then forgets the connection. Frames the member would send on it are discarded. Returns
 * 1 when the connection would still be open, 0 when it was closed. */
enum launch_feed { LAUNCH_FEED_NEW = 1, LAUNCH_FEED_PARENT, LAUNCH_FEED_CHILD };
/* Fuzzing only: this member neither seals nor checks seals, so that a fuzzer's frames reach
 * the decoders behind the MAC check (the fed links of launch_tree_feed are never sealed). */
void launch_tree_unseal(struct launch_tree *t);
int launch_tree_feed(struct launch_tree *t, int state, int peer, const void *bytes, size_t len);

#endif
