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
 * Joining: rdmpirun starts every daemon through the launch agent and writes
 * one line to its stdin: the job's secret, its vpid and rdmpirun's
 * addresses. The daemon connects to rdmpirun (the boot connection) and says
 * HELLO with the secret, its listening port and its addresses. rdmpirun
 * answers WELCOME with the address of the daemon's parent once that parent
 * has said HELLO too. A daemon whose parent is rdmpirun keeps the boot
 * connection as its link; the others close it and connect to their parent,
 * again with HELLO and the secret. Every member drops (and logs) a
 * connection whose first message is not a HELLO with the right secret, and
 * serves nothing on it. Once linked, a daemon sends UP to rdmpirun.
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
    MSG_HELLO = 1,   /* secret, vpid, purpose, pid, hostname, port, addresses, machine id */
    MSG_WELCOME,     /* rdmpirun -> daemon: parent vpid, its port and addresses */
    MSG_UP,          /* daemon -> 0: linked into the tree */
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
char *lrd_str(struct launch_rd *r);                    /* malloc'ed copy, NULL on error */

/* net.c: sockets and addresses. */
int launch_net_listen(int *port);
int launch_net_connect_any(const char *addrs, int port, double timeout, char *err, size_t errlen);
void launch_net_local_addrs(char *buf, size_t len);
void launch_net_route_addr(const char *host, char *buf, size_t len);
int launch_net_secret(char out[LAUNCH_SECRET_LEN + 1]);
int launch_net_secret_eq(const char *a, const char *b);
/* The ranks' job key, derived from the daemons' secret (hex): rdmpirun and every rdmpid
 * compute the same key without sending it. -EINVAL if secret is not LAUNCH_SECRET_LEN hex. */
int launch_net_job_key(const char *secret, uint8_t key[CORE_KEY_LEN]);
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
int launch_tree_join(struct launch_tree *t, const char *root_addrs, int root_port, double timeout);
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

#endif
