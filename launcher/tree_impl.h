/*
 * The daemon tree's private state, shared by tree.c (links, framing,
 * routing, accepting) and treeauth.c (the handshake and joining). Nothing
 * outside these two files includes it.
 */
#ifndef RDMPI_LAUNCH_TREE_IMPL_H
#define RDMPI_LAUNCH_TREE_IMPL_H

#include "tree.h"

#include <stdarg.h>

/* An accepted connection has this long to finish the handshake. Long enough for a
 * daemon on a loaded node (two scheduling delays), short enough that idle sockets
 * cannot pile up. */
#define HELLO_TIMEOUT 5.0
/* Unauthenticated connections held at a time, besides one per member still expected to
 * connect (so that a large job's daemons, which all connect at once, never hit it). */
#define MAX_UNAUTH_CONNS 32
#define LISTEN_PAUSE 0.25 /* no accept() for this long when out of descriptors */
#define LOG_WINDOW 10.0   /* at most LOG_BURST lines of one kind per window */
#define LOG_BURST 20

enum role {
    C_NEW,        /* accepted; waits for HELLO */
    C_CHALLENGED, /* accepted; sent CHALLENGE, waits for PROOF */
    C_BOOT,       /* rdmpirun: an authenticated boot connection, waiting for WELCOME */
    C_CHILD,      /* an authenticated link to a child */
    C_PARENT,     /* our link to our parent (authenticated before it is used) */
};

struct frame {
    struct frame *next;
    size_t len;
    char data[];
};

struct conn {
    int fd;
    enum role role;
    int vpid;           /* peer, once authenticated */
    double deadline;    /* C_NEW, C_CHALLENGED: to finish the handshake */
    unsigned long seq;  /* order of acceptance, to evict the oldest */
    char peer[64];      /* ip:port, for messages */
    struct launch_hello hello;         /* C_CHALLENGED: what the peer said */
    uint8_t nonce[LAUNCH_NONCE_LEN];   /* C_CHALLENGED: our nonce */
    char *in;
    size_t in_len, in_cap;
    struct frame *head, *tail;
    size_t off;         /* bytes of head already written */
    int bye;            /* a child that said BYE */
    int backlog;        /* frames already read but not parsed (left by the blocking join) */
    /* Sealed frames (tree.h): what we send after the handshake carries a MAC under tx_key
     * numbered tx_seq; what we take after it must carry one under rx_key numbered rx_seq. */
    int tx_sealed, rx_sealed;
    uint64_t tx_seq, rx_seq;
    uint8_t tx_key[CORE_KEY_LEN], rx_key[CORE_KEY_LEN];
    int dead;           /* closed; freed after the current pass */
};

/* What rdmpirun knows of each member, from its boot handshake. */
struct member {
    int booted, welcomed, up;
    int pid, port;
    char host[LAUNCH_HOST_MAX + 1];
    char addrs[2 * LAUNCH_ADDRS_MAX + 2]; /* as seen by us, then its own list */
    char machine[LAUNCH_MACHINE_MAX + 1]; /* launch_net_machine_id() of its host */
    struct conn *boot;
};

/* A log that says at most LOG_BURST things per LOG_WINDOW, then how many it kept quiet. */
struct ratelog {
    double start;
    int n, suppressed;
    const char *what; /* "dropped connections", for the summary line */
};

struct launch_tree {
    int size, me;
    uint8_t key[CORE_KEY_LEN]; /* authenticates links (LAUNCH_TREE_AUTH_LABEL) */
    char who[300];
    char machine[64];   /* ours, told in PROOF */
    launch_tree_msg_fn on_msg;
    launch_tree_lost_fn on_lost;
    void *ctx;
    int listen_fd, port;
    int reserve_fd;            /* given up to accept-and-close when out of descriptors */
    double listen_paused_until;
    unsigned long accepted;    /* connections accepted so far */
    struct conn **conns;
    int nconns;
    struct conn **polled; /* conns in the order of the last fill_pollfds */
    int npolled, listen_polled;
    struct member *members; /* rdmpirun only */
    int nup;
    int parent_gone;
    int unsealed;           /* tests only (launch_tree_unseal): links are not sealed */
    struct ratelog drops, refusals, fds;
};

/* tree.c */
double tree_now(void);
struct conn *tree_conn_add(struct launch_tree *t, int fd, enum role role);
void tree_conn_close(struct conn *c);
void tree_sweep(struct launch_tree *t);
struct conn *tree_link_to(const struct launch_tree *t, int vpid);
int tree_is_my_child(const struct launch_tree *t, int vpid);
int tree_queue_frame(struct conn *c, int type, uint32_t dst, uint32_t src, const void *p,
                     size_t n);
int tree_conn_write(struct conn *c);
/* Starts sealing c's frames once its handshake has given both nonces (tree.h). */
void tree_seal_tx(struct launch_tree *t, struct conn *c, int side, const struct launch_hello *h,
                  uint32_t acceptor, const uint8_t nonce_a[LAUNCH_NONCE_LEN]);
void tree_seal_rx(struct launch_tree *t, struct conn *c);
/* Bytes a frame with a payload of n takes on c's input: header, payload, MAC if sealed. */
size_t tree_rx_frame_len(const struct conn *c, size_t n);
/* Checks the MAC of the frame at c->in + off (whole: tree_rx_frame_len bytes) if c's input is
 * sealed, and counts it. 0, or -EACCES when the MAC is wrong. */
int tree_rx_open(struct conn *c, size_t off, size_t n);
void tree_note(struct launch_tree *t, struct ratelog *l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tree_drop(struct launch_tree *t, struct conn *c, const char *why);

/* treeauth.c: the accepting side of the handshake, one frame at a time. */
void tree_auth_frame(struct launch_tree *t, struct conn *c, int type, const char *p, size_t n);

#endif
