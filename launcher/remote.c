/*
 * rdmpirun's side of a multi-node job: one rdmpid per other node, started
 * through the launch agent (agent.c) and joined into the daemon tree
 * (tree.c) with a per-job secret: rdmpirun starts its own children's
 * daemons and tells each daemon that has children how to start theirs
 * (AGENTS: tree launch, tree.h), or starts them all (--launch-flat); the job broadcast to them; and what they
 * report turned into events for the main loop (monitor.c): rank exits,
 * lost daemons, ranks that could not start. Their ranks' output, aborts,
 * fences and direct-modex requests are handled as they arrive.
 *
 * A daemon is lost when its tree link closes before it said BYE. Its
 * subtree is cut off with it (those daemons see their parent go and end
 * their ranks themselves). The loss is reported once the agent's exit
 * status is known, or after LOST_GRACE. At the end, a lost daemon that was
 * killed cannot have cleaned up its node, so rdmpirun runs
 * `rdmpid --cleanup` there through the agent.
 */
#include "agent.h"
#include "jobmsg.h"
#include "server.h"
#include "tree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define START_TIMEOUT 30.0  /* for every daemon to join the tree */
#define LOST_GRACE 0.3      /* wait for a lost daemon's agent status this long */
#define STOP_GRACE 3.0      /* for daemons to leave after SHUTDOWN */
#define CLEANUP_TIMEOUT 5.0

struct daemon {
    int node;
    struct launch_agent agent;
    int up, bye, lost, orphan, reported;
    double lost_at;
    char why[1024];
    char last_words[512];
};

struct launch_remote {
    struct launch_job *job;
    int n;                  /* daemons: vpids 1..n */
    struct daemon *d;       /* d[vpid - 1] */
    char secret[LAUNCH_SECRET_LEN + 1];
    char rdmpid[PATH_MAX];
    struct launch_event *ev;
    int nev, evcap;
    int launched, shutdown_sent;
    int flat;               /* --launch-flat */
    double shutdown_at;
    int stdin_open, stdin_vpid;
    int poll_tree, poll_stdin; /* pollfds filled last time */
    int *poll_agent, npoll_agent;
};

static struct daemon *dmn(struct launch_remote *r, int vpid)
{
    return vpid >= 1 && vpid <= r->n ? &r->d[vpid - 1] : NULL;
}

/* "2,3": the ranks of one node, for messages; "none" on a host kept only for its free
 * slots (MPI_Comm_spawn). */
static void ranks_of(const struct launch_job *job, int node, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    for (int i = 0; i < job->nranks && n + 16 < len; i++)
        if (job->ranks[i].node == node)
            n += (size_t)snprintf(buf + n, len - n, n ? ",%d" : "%d", i);
    if (n == 0)
        snprintf(buf, len, "none");
}

static void push_event(struct launch_remote *r, const struct launch_event *ev)
{
    if (r->nev == r->evcap) {
        int cap = r->evcap ? r->evcap * 2 : 16;
        struct launch_event *e = realloc(r->ev, (size_t)cap * sizeof(*e));
        if (!e)
            return;
        r->ev = e;
        r->evcap = cap;
    }
    r->ev[r->nev++] = *ev;
}

int launch_remote_next_event(struct launch_job *job, struct launch_event *ev)
{
    struct launch_remote *r = job->remote;

    if (!r || r->nev == 0)
        return 0;
    *ev = r->ev[0];
    memmove(r->ev, r->ev + 1, (size_t)(r->nev - 1) * sizeof(*ev));
    r->nev--;
    return 1;
}

/* True when the payload was read to its last byte without running short. */
static int read_all(const struct launch_rd *rd)
{
    return !rd->err && rd->left == 0;
}

/* True when rank runs on the node served by member src: a daemon speaks only for its
 * own ranks. */
static int rank_of(const struct launch_job *job, int src, uint32_t rank)
{
    return rank < (uint32_t)job->nranks && job->nodes[job->ranks[rank].node].vpid == src;
}

static int on_exit_msg(struct launch_remote *r, int src, struct launch_rd *rd)
{
    struct launch_job *job = r->job;
    struct launch_event ev = {.kind = LAUNCH_EV_EXIT};
    uint32_t rank = lrd_u32(rd);

    ev.status = (int)lrd_u32(rd);
    uint32_t connected = lrd_u32(rd), finalized = lrd_u32(rd);
    if (!read_all(rd) || !rank_of(job, src, rank) || connected > 1 || finalized > 1)
        return -EPROTO;
    atomic_store(&job->ranks[rank].connected, (int)connected);
    atomic_store(&job->ranks[rank].finalized, (int)finalized);
    ev.rank = (int)rank;
    push_event(r, &ev);
    return 0;
}

static int on_started(struct launch_remote *r, int src, struct launch_rd *rd)
{
    uint32_t n = lrd_u32(rd);

    if (rd->err || n > (uint32_t)r->job->nranks || n > rd->left / 8)
        return -EPROTO;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t rank = lrd_u32(rd), pid = lrd_u32(rd);
        if (rd->err || !rank_of(r->job, src, rank) || pid == 0 || pid > 0x7fffffffu)
            return -EPROTO;
        r->job->ranks[rank].pid = (pid_t)pid;
    }
    return read_all(rd) ? 0 : -EPROTO;
}

static void on_lost(void *ctx, int vpid, const char *why);

/* What the daemons report. The tree lets through only reports that come up from the
 * subtree of src (tree.h); each field is checked here before it is used. */
static void on_msg(void *ctx, int type, int src, const char *p, size_t n)
{
    struct launch_remote *r = ctx;
    struct launch_job *job = r->job;
    struct launch_rd rd = {p, n, 0};
    struct daemon *d = dmn(r, src);
    int bad = 0;

    if (!d)
        return;
    switch (type) {
    case MSG_STARTED:
        bad = on_started(r, src, &rd);
        break;
    case MSG_START_FAIL: {
        struct launch_event ev = {.kind = LAUNCH_EV_START_FAIL};
        uint32_t code = lrd_u32(&rd);
        char *text = lrd_str_max(&rd, sizeof(ev.text) - 1);
        bad = !text || !read_all(&rd) || code == 0 || code > 255;
        if (!bad) {
            ev.status = (int)code;
            ev.node = d->node;
            snprintf(ev.text, sizeof(ev.text), "%s", text);
            push_event(r, &ev);
        }
        free(text);
        break;
    }
    case MSG_EXIT:
        bad = on_exit_msg(r, src, &rd);
        break;
    case MSG_ABORT: {
        uint32_t rank = lrd_u32(&rd), status = lrd_u32(&rd);
        char *msg = lrd_str_max(&rd, sizeof(job->abort_msg) - 1);
        /* rank -1: a spawned rank, which the message names (server.c) */
        bad = !msg || !read_all(&rd) || (rank != UINT32_MAX && !rank_of(job, src, rank));
        if (!bad)
            launch_record_abort(job, rank == UINT32_MAX ? -1 : (int)rank, (int)status, msg);
        free(msg);
        break;
    }
    case MSG_IO: {
        uint32_t rank = lrd_u32(&rd), is_err = lrd_u32(&rd);
        size_t len;
        const char *data = lrd_bytes(&rd, &len);
        bad = !data || !read_all(&rd) || !rank_of(job, src, rank) || is_err > 1;
        if (!bad)
            launch_io_remote(job, (int)rank, (int)is_err, data, len);
        break;
    }
    case MSG_FENCE_UP:
    case MSG_FENCE_DOWN:
    case MSG_DMODEX_REQ:
    case MSG_DMODEX_RESP:
        launch_dyn_route(job, type, src, p, n);
        break;
    case MSG_SPAWN_REQ:
    case MSG_DYN_STARTED:
    case MSG_DYN_IO:
        launch_dyn_msg(job, type, src, p, n);
        break;
    case MSG_NAME_REQ:
        launch_namefwd_msg(job, type, src, p, n);
        break;
    case MSG_DYN_EXIT: {
        struct launch_event ev;
        if (!launch_dyn_exit_msg(job, src, p, n, &ev))
            push_event(r, &ev);
        break;
    }
    case MSG_ERROR: {
        char *text = lrd_str_max(&rd, sizeof(d->last_words) - 1);
        bad = !text || !read_all(&rd);
        if (!bad)
            snprintf(d->last_words, sizeof(d->last_words), "%s", text);
        free(text);
        break;
    }
    case MSG_LOST: {
        uint32_t vpid = lrd_u32(&rd);
        char *why = lrd_str_max(&rd, sizeof(d->why) - 1);
        bad = !why || !read_all(&rd) || !launch_tree_in_subtree(job->tree, src, (int)vpid) ||
              (int)vpid == src;
        if (!bad)
            on_lost(r, (int)vpid, why);
        free(why);
        break;
    }
    case MSG_BYE:
        for (int v = src; v <= r->n; v++)
            if (launch_tree_in_subtree(job->tree, src, v))
                dmn(r, v)->bye = 1;
        break;
    }
    if (bad)
        fprintf(stderr, "rdmpirun: ignored a malformed %s from member %d (host %s)\n",
                launch_msg_name(type), src, job->nodes[d->node].host);
}

static void on_lost(void *ctx, int vpid, const char *why)
{
    struct launch_remote *r = ctx;
    double now = launch_now();

    for (int v = vpid; v <= r->n; v++) {
        struct daemon *d = dmn(r, v);
        if (!d || !launch_tree_in_subtree(r->job->tree, vpid, v) || d->bye || d->lost)
            continue;
        d->lost = 1;
        d->lost_at = now;
        d->orphan = v != vpid;
        snprintf(d->why, sizeof(d->why), "%s", why);
    }
}

/* The address list a daemon on `name` tries to reach us at, best first. */
static void root_addrs(const char *name, char *buf, size_t len)
{
    buf[0] = '\0';
    launch_net_route_addr(name, buf, len);
    launch_net_local_addrs(buf, len);
}

static int find_rdmpid(struct launch_remote *r)
{
    char self[PATH_MAX - 8];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (n <= 0) {
        fprintf(stderr, "rdmpirun: cannot find its own path: %s\n", strerror(errno));
        return -ENOENT;
    }
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    snprintf(r->rdmpid, sizeof(r->rdmpid), "%s/rdmpid", self);
    if (access(r->rdmpid, X_OK)) {
        fprintf(stderr, "rdmpirun: %s (the daemon for other hosts) is missing: %s\n", r->rdmpid,
                strerror(errno));
        return -ENOENT;
    }
    return 0;
}

static int start_agents(struct launch_remote *r)
{
    struct launch_job *job = r->job;
    int port = launch_tree_port(job->tree);

    for (int v = 1; v <= r->n; v++) {
        struct daemon *d = dmn(r, v);
        const char *name = job->nodes[d->node].name;
        char addrs[1024], line[2048];
        char *extra[] = {r->rdmpid, NULL};

        if (!r->flat && launch_tree_parent_of(v) != 0)
            continue; /* its parent daemon starts it (send_agents) */
        root_addrs(name, addrs, sizeof(addrs));
        snprintf(line, sizeof(line), "RDMPID%d %s %d %d %d %s %s\n", r->flat ? 1 : 2, r->secret,
                 v, r->n + 1, port, addrs, name);
        int rc = launch_agent_start(&d->agent, job->opts->agent, name, extra, line);
        memset(line, 0, sizeof(line));
        if (rc) {
            fprintf(stderr, "rdmpirun: cannot start the launch agent for host %s: %s\n", name,
                    strerror(-rc));
            return rc;
        }
    }
    return 0;
}

static void report_start_failure(struct launch_remote *r, struct daemon *d, const char *cause)
{
    char ranks[256], how[1024];

    ranks_of(r->job, d->node, ranks, sizeof(ranks));
    launch_agent_describe(&d->agent, how, sizeof(how));
    fprintf(stderr, "rdmpirun: cannot start rdmpid on host %s (for ranks %s) with '%s': %s%s%s\n",
            r->job->nodes[d->node].name, ranks, launch_agent_cmd(r->job->opts->agent), cause,
            how[0] ? ": " : "", how);
}

/* Reaps what exited; returns 1 if a daemon that was not up is gone. */
static int reap_agents(struct launch_remote *r)
{
    int status, failed = 0;
    pid_t pid;

    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int v = 1; v <= r->n; v++) {
            struct daemon *d = dmn(r, v);
            if (!launch_agent_reaped(&d->agent, pid, status) || d->up)
                continue;
            while (launch_agent_read(&d->agent) == 0)
                ;
            report_start_failure(r, d, "the launch agent ended before rdmpid connected back");
            failed = 1;
        }
    }
    return failed;
}

static void on_wake(void *ctx, int sig, pid_t pid)
{
    int *stop = ctx;

    (void)pid; /* the agents are reaped by wait_up's own loop */
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT) {
        fprintf(stderr, "rdmpirun: got signal %d while starting the daemons; stopping\n", sig);
        *stop = 128 + sig;
    }
}

static int wait_signals(struct launch_remote *r)
{
    int stop = 0;

    launch_wake_drain(r->job, on_wake, &stop);
    return stop;
}

/* Tree launch: daemon v is up; tells it how to start its children's daemons (their vpids
 * are v + 2^k below v's lowest set bit) with the same agent and rdmpid. */
static void send_agents(struct launch_remote *r, int v)
{
    struct launch_agents *a = calloc(1, sizeof(*a));
    struct launch_buf b = {0};

    if (!a)
        return; /* its children time out, and are reported */
    snprintf(a->cmd, sizeof(a->cmd), "%s", r->job->opts->agent ? r->job->opts->agent : "");
    snprintf(a->rdmpid, sizeof(a->rdmpid), "%s", r->rdmpid);
    for (int step = 1; step < (v & -v) && v + step <= r->n && a->n < LAUNCH_AGENTS_KIDS;
         step *= 2) {
        a->vpid[a->n] = (uint32_t)(v + step);
        snprintf(a->name[a->n++], sizeof(a->name[0]), "%s",
                 r->job->nodes[dmn(r, v + step)->node].name);
    }
    if (a->n) {
        launch_agents_encode(&b, a);
        if (!b.err)
            launch_tree_send(r->job->tree, MSG_AGENTS, (uint32_t)v, b.p, b.len);
        lbuf_free(&b);
    }
    free(a);
}

/* Services everything until every daemon is in the tree. Returns 0, or an
 * exit status after printing why not. */
static int wait_up(struct launch_remote *r)
{
    struct launch_job *job = r->job;
    double limit = START_TIMEOUT, deadline;
    struct pollfd *pfd = NULL;
    int cap = 0;

    if (job->opts->timeout > 0 && job->opts->timeout < limit)
        limit = job->opts->timeout;
    deadline = launch_now() + limit;
    while (launch_tree_nup(job->tree) < r->n) {
        int n = 1, nt, rc, need = 1 + launch_tree_npollfds(job->tree) + r->n;
        if (need > cap) {
            struct pollfd *p = realloc(pfd, (size_t)need * sizeof(*p));
            if (!p) {
                free(pfd);
                return LAUNCH_EXIT_INTERNAL;
            }
            pfd = p;
            cap = need;
        }
        pfd[0].fd = job->wake_fd[0];
        pfd[0].events = POLLIN;
        nt = launch_tree_fill_pollfds(job->tree, pfd + 1, launch_tree_npollfds(job->tree));
        n += nt;
        for (int v = 1; v <= r->n; v++) {
            pfd[n].fd = dmn(r, v)->agent.out_fd;
            pfd[n].events = POLLIN;
            pfd[n++].revents = 0;
        }
        poll(pfd, (nfds_t)n, 100);
        if ((rc = wait_signals(r))) {
            free(pfd);
            return rc;
        }
        launch_tree_handle(job->tree, pfd + 1, nt);
        for (int v = 1; v <= r->n; v++)
            launch_agent_read(&dmn(r, v)->agent);
        if (reap_agents(r)) {
            free(pfd);
            return LAUNCH_EXIT_LOST;
        }
        launch_tree_tick(job->tree, launch_now());
        for (int v = 1; v <= r->n; v++) {
            struct daemon *d = dmn(r, v);
            if (d->lost) {
                report_start_failure(r, d, d->why);
                free(pfd);
                return LAUNCH_EXIT_LOST;
            }
            if (!d->up && launch_tree_is_up(job->tree, v)) {
                d->up = 1;
                launch_agent_unmute(&d->agent);
                if (!r->flat)
                    send_agents(r, v);
            }
        }
        if (launch_now() >= deadline) {
            for (int v = 1; v <= r->n; v++) {
                char why[96];
                snprintf(why, sizeof(why), "rdmpid did not connect back within %g s", limit);
                if (!dmn(r, v)->up)
                    report_start_failure(r, dmn(r, v), why);
            }
            free(pfd);
            return LAUNCH_EXIT_LOST;
        }
    }
    free(pfd);
    return 0;
}

/* Uses the hostnames the daemons reported when they are all different
 * (they are not when the agent keeps this host's UTS namespace). */
static void adopt_hostnames(struct launch_remote *r)
{
    struct launch_job *job = r->job;

    for (int i = 0; i < job->nnodes; i++) {
        const char *a = job->nodes[i].vpid ? launch_tree_member_host(job->tree, job->nodes[i].vpid)
                                           : job->host;
        if (!*a)
            return;
        for (int k = 0; k < i; k++) {
            const char *b = job->nodes[k].vpid
                                ? launch_tree_member_host(job->tree, job->nodes[k].vpid)
                                : job->host;
            if (!strcmp(a, b))
                return;
        }
    }
    for (int i = 0; i < job->nnodes; i++)
        if (job->nodes[i].vpid)
            snprintf(job->nodes[i].host, sizeof(job->nodes[i].host), "%s",
                     launch_tree_member_host(job->tree, job->nodes[i].vpid));
}

/* The machine a node runs on, as its daemon (or we, for our own) told it. */
static const char *machine_of(struct launch_job *job, int node, const char *here)
{
    int vpid = job->nodes[node].vpid;
    return vpid ? launch_tree_member_machine(job->tree, vpid) : here;
}

/* Groups the nodes by the machine they run on (launch_net_machine_id): the
 * nodes of one group are numbered by the first of them. An unknown machine
 * is a group of its own. */
static void group_machines(struct launch_remote *r)
{
    struct launch_job *job = r->job;
    char here[64];

    launch_net_machine_id(here, sizeof(here));
    for (int i = 0; i < job->nnodes; i++) {
        const char *a = machine_of(job, i, here);
        job->nodes[i].machine = i;
        for (int k = 0; *a && k < i; k++) {
            if (!strcmp(a, machine_of(job, k, here))) {
                job->nodes[i].machine = job->nodes[k].machine;
                break;
            }
        }
    }
}

/*
 * Starts a daemon on every node but this one and waits until all of them
 * are in the tree. Returns 0, or the exit status after printing why not
 * (launch_remote_stop() still has to run).
 */
int launch_remote_start(struct launch_job *job)
{
    struct launch_remote *r = calloc(1, sizeof(*r));
    int rc;

    if (!r)
        return LAUNCH_EXIT_INTERNAL;
    job->remote = r;
    r->job = job;
    r->n = job->nnodes - (job->my_node >= 0);
    r->flat = job->opts->launch_flat;
    r->d = calloc((size_t)r->n, sizeof(*r->d));
    if (!r->d)
        return LAUNCH_EXIT_INTERNAL;
    for (int i = 0; i < r->n; i++) /* not started (yet): a tree launch starts few here */
        r->d[i].agent.in_fd = r->d[i].agent.out_fd = -1;
    for (int i = 0; i < job->nnodes; i++)
        if (job->nodes[i].vpid > 0)
            dmn(r, job->nodes[i].vpid)->node = i;
    if (find_rdmpid(r))
        return LAUNCH_EXIT_INTERNAL;
    if (launch_net_secret(r->secret) || launch_net_job_key(r->secret, job->job_key)) {
        fprintf(stderr, "rdmpirun: cannot make a job secret: %s\n", strerror(errno));
        return LAUNCH_EXIT_INTERNAL;
    }
    job->tree = launch_tree_create(r->n + 1, 0, r->secret, "rdmpirun", on_msg, on_lost, r);
    if (!job->tree || launch_fence_create(job) || launch_dmodex_create(job))
        return LAUNCH_EXIT_INTERNAL;
    rc = launch_tree_listen(job->tree);
    if (rc) {
        fprintf(stderr, "rdmpirun: cannot listen for the daemons: %s\n", strerror(-rc));
        return LAUNCH_EXIT_INTERNAL;
    }
    if (start_agents(r))
        return LAUNCH_EXIT_INTERNAL;
    rc = wait_up(r);
    if (!rc) {
        adopt_hostnames(r);
        group_machines(r);
    }
    return rc;
}

/* Broadcasts the job; the remote ranks count as running from now on. */
int launch_remote_launch(struct launch_job *job)
{
    struct launch_remote *r = job->remote;
    struct launch_buf b = {0};
    int rc = launch_jobmsg_pack(job, &b);

    if (!rc)
        rc = launch_tree_send(job->tree, MSG_LAUNCH, LAUNCH_TREE_BCAST, b.p, b.len);
    lbuf_free(&b);
    if (rc) {
        fprintf(stderr, "rdmpirun: cannot send the job to the daemons: %s\n", strerror(-rc));
        return rc;
    }
    r->launched = 1;
    for (int i = 0; i < job->nranks; i++)
        if (!job->ranks[i].local)
            job->ranks[i].alive = 1;
    if (!job->ranks[0].local) {
        r->stdin_open = 1;
        r->stdin_vpid = job->nodes[job->ranks[0].node].vpid;
    }
    return 0;
}

void launch_remote_signal(struct launch_job *job, int sig, int how)
{
    struct launch_buf b = {0};

    if (!job->remote || !job->remote->launched)
        return;
    lbuf_u32(&b, (uint32_t)sig);
    lbuf_u32(&b, (uint32_t)how);
    if (!b.err)
        launch_tree_send(job->tree, MSG_SIGNAL, LAUNCH_TREE_BCAST, b.p, b.len);
    lbuf_free(&b);
}

void launch_remote_shutdown(struct launch_job *job)
{
    struct launch_remote *r = job->remote;

    if (!r || r->shutdown_sent)
        return;
    r->shutdown_sent = 1;
    r->shutdown_at = launch_now();
    launch_tree_send(job->tree, MSG_SHUTDOWN, LAUNCH_TREE_BCAST, NULL, 0);
}

int launch_remote_done(const struct launch_job *job)
{
    const struct launch_remote *r = job->remote;

    for (int i = 0; r && i < r->n; i++)
        if (!r->d[i].bye && !r->d[i].lost)
            return 0;
    return 1;
}

static int stdin_pollable(void)
{
    return !isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) == getpgrp();
}

int launch_remote_npollfds(const struct launch_job *job)
{
    return job->remote ? launch_tree_npollfds(job->tree) + job->remote->n + 1 : 0;
}

int launch_remote_fill_pollfds(struct launch_job *job, struct pollfd *pfd, int max)
{
    struct launch_remote *r = job->remote;
    int n;

    if (!r)
        return 0;
    if (!r->poll_agent && !(r->poll_agent = calloc((size_t)r->n + 1, sizeof(int))))
        return 0;
    n = r->poll_tree = launch_tree_fill_pollfds(job->tree, pfd, max);
    r->npoll_agent = 0;
    for (int v = 1; v <= r->n && n < max; v++) {
        if (dmn(r, v)->agent.out_fd < 0)
            continue;
        pfd[n].fd = dmn(r, v)->agent.out_fd;
        pfd[n].events = POLLIN;
        pfd[n++].revents = 0;
        r->poll_agent[r->npoll_agent++] = v;
    }
    r->poll_stdin = r->stdin_open && n < max && stdin_pollable();
    if (r->poll_stdin) {
        pfd[n].fd = STDIN_FILENO;
        pfd[n].events = POLLIN;
        pfd[n++].revents = 0;
    }
    return n;
}

static void forward_stdin(struct launch_remote *r)
{
    char buf[65536];
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0)
        r->stdin_open = 0;
    launch_tree_send(r->job->tree, MSG_STDIN, (uint32_t)r->stdin_vpid, buf, n > 0 ? (size_t)n : 0);
}

void launch_remote_handle(struct launch_job *job, const struct pollfd *pfd, int n)
{
    struct launch_remote *r = job->remote;
    int k;

    if (!r)
        return;
    launch_tree_handle(job->tree, pfd, r->poll_tree < n ? r->poll_tree : n);
    k = r->poll_tree;
    for (int i = 0; i < r->npoll_agent && k < n; i++, k++)
        if (pfd[k].revents)
            launch_agent_read(&dmn(r, r->poll_agent[i])->agent);
    if (r->poll_stdin && k < n && pfd[k].revents)
        forward_stdin(r);
    launch_remote_progress(job);
}

/* Moves fences and direct-modex requests of our own server along. */
void launch_remote_progress(struct launch_job *job)
{
    if (!job->remote)
        return;
    launch_fence_progress(job);
    launch_dmodex_progress(job);
}

int launch_remote_reaped(struct launch_job *job, pid_t pid, int status)
{
    struct launch_remote *r = job->remote;

    for (int i = 0; r && i < r->n; i++)
        if (launch_agent_reaped(&r->d[i].agent, pid, status))
            return 1;
    return 0;
}

double launch_remote_deadline(const struct launch_job *job)
{
    const struct launch_remote *r = job->remote;
    double next = 0, t;

    if (!r)
        return 0;
    next = launch_tree_next_deadline(job->tree);
    for (int i = 0; i < r->n; i++) {
        t = r->d[i].lost_at + LOST_GRACE;
        if (r->d[i].lost && !r->d[i].reported && (next == 0 || t < next))
            next = t;
    }
    t = r->shutdown_at + STOP_GRACE;
    if (r->shutdown_sent && (next == 0 || t < next))
        next = t;
    return next;
}

static void report_lost(struct launch_remote *r, struct daemon *d)
{
    struct launch_job *job = r->job;
    struct launch_event ev = {.kind = LAUNCH_EV_LOST, .node = d->node};
    char how[1024], ranks[256];
    size_t len;

    launch_agent_describe(&d->agent, how, sizeof(how));
    ranks_of(job, d->node, ranks, sizeof(ranks));
    len = (size_t)snprintf(ev.text, sizeof(ev.text), "lost rdmpid on host %s (pid %d): %s%s%s%s%s; "
                           "ranks %s ran there", job->nodes[d->node].host,
                           launch_tree_member_pid(job->tree, job->nodes[d->node].vpid), d->why,
                           d->last_words[0] ? "; " : "", d->last_words, how[0] ? "; " : "", how,
                           ranks);
    for (int i = 0; i < r->n && len < sizeof(ev.text); i++) {
        struct daemon *o = &r->d[i];
        if (!o->orphan || o->reported)
            continue;
        ranks_of(job, o->node, ranks, sizeof(ranks));
        len += (size_t)snprintf(ev.text + len, sizeof(ev.text) - len,
                                "; cut off with it: host %s (ranks %s)", job->nodes[o->node].host,
                                ranks);
    }
    d->reported = 1;
    if (r->shutdown_sent)
        return;
    push_event(r, &ev);
    for (int i = 0; i < r->n; i++) { /* their ranks are gone too; said above */
        struct daemon *o = &r->d[i];
        if (o->orphan && !o->reported) {
            struct launch_event gone = {.kind = LAUNCH_EV_LOST, .node = o->node};
            o->reported = 1;
            push_event(r, &gone);
        }
    }
}

void launch_remote_tick(struct launch_job *job, double now)
{
    struct launch_remote *r = job->remote;

    if (!r)
        return;
    launch_tree_tick(job->tree, now);
    for (int i = 0; i < r->n; i++) {
        struct daemon *d = &r->d[i];
        if (!d->lost || d->reported || d->orphan)
            continue;
        if (d->agent.reaped || now >= d->lost_at + LOST_GRACE)
            report_lost(r, d);
    }
    if (r->shutdown_sent && now >= r->shutdown_at + STOP_GRACE) {
        for (int i = 0; i < r->n; i++) {
            if (!r->d[i].bye && !r->d[i].lost) {
                fprintf(stderr, "rdmpirun: warning: rdmpid on host %s did not finish in %g s\n",
                        job->nodes[r->d[i].node].host, STOP_GRACE);
                r->d[i].lost = r->d[i].reported = 1;
            }
        }
    }
}

/* Runs `rdmpid --cleanup` on the node of a daemon that was killed. */
static void cleanup_pass(struct launch_remote *r, struct daemon *d)
{
    struct launch_job *job = r->job;
    struct launch_agent a;
    char vpid[16], how[1024], line[LAUNCH_SECRET_LEN + 16];
    char *extra[] = {r->rdmpid, "--cleanup", job->nspace, vpid, NULL};

    snprintf(vpid, sizeof(vpid), "%d", job->nodes[d->node].vpid);
    /* The secret goes on stdin (through the agent, never on a command line): from it the
     * cleanup finds the job's shm objects and no other job's. */
    snprintf(line, sizeof(line), "RDMPIDC1 %s\n", r->secret);
    if (launch_agent_start(&a, job->opts->agent, job->nodes[d->node].name, extra, line))
        return;
    if (launch_agent_wait(&a, CLEANUP_TIMEOUT)) {
        launch_agent_kill(&a, SIGKILL);
        launch_agent_wait(&a, 1.0);
    }
    while (launch_agent_read(&a) == 0)
        ;
    if (!a.reaped || !WIFEXITED(a.status) || WEXITSTATUS(a.status)) {
        launch_agent_describe(&a, how, sizeof(how));
        fprintf(stderr, "rdmpirun: warning: cleanup on host %s failed: %s\n",
                job->nodes[d->node].name, how);
    }
    launch_agent_release(&a);
}

/* Services the tree and the agents until every agent exited or timeout. */
static void drain(struct launch_remote *r, double timeout)
{
    struct launch_job *job = r->job;
    double until = launch_now() + timeout;
    int max = launch_remote_npollfds(job);
    struct pollfd *pfd = calloc((size_t)max, sizeof(*pfd));

    while (pfd && launch_now() < until) {
        int left = 0, status;
        for (int i = 0; i < r->n; i++) {
            struct launch_agent *a = &r->d[i].agent;
            if (a->pid > 0 && !a->reaped && waitpid(a->pid, &status, WNOHANG) == a->pid)
                launch_agent_reaped(a, a->pid, status);
            left += a->pid > 0 && !a->reaped;
        }
        if (!left)
            break;
        r->stdin_open = 0;
        int n = launch_remote_fill_pollfds(job, pfd, max);
        poll(pfd, (nfds_t)n, 20);
        launch_remote_handle(job, pfd, n);
    }
    free(pfd);
}

/*
 * The end, however the job went: tell the daemons to leave, wait for
 * their agents, end the agents that linger, clean the nodes of killed
 * daemons, and free everything.
 */
void launch_remote_stop(struct launch_job *job)
{
    struct launch_remote *r = job->remote;

    if (!r)
        return;
    for (int i = 0; i < r->n; i++) /* still joining: nothing to clean, just leave */
        if (!r->d[i].up)
            launch_agent_close_stdin(&r->d[i].agent);
    if (job->tree) {
        launch_remote_shutdown(job);
        launch_tree_flush(job->tree, 1.0);
        drain(r, STOP_GRACE);
    }
    for (int i = 0; i < r->n; i++)
        launch_agent_close_stdin(&r->d[i].agent); /* rdmpid leaves on EOF */
    if (job->tree)
        drain(r, 1.0);
    for (int sig = SIGTERM; sig; sig = sig == SIGTERM ? SIGKILL : 0) {
        int left = 0;
        for (int i = 0; i < r->n; i++) {
            struct launch_agent *a = &r->d[i].agent;
            if (a->pid > 0 && !a->reaped) {
                launch_agent_kill(a, sig);
                left = 1;
            }
        }
        for (int i = 0; left && i < r->n; i++)
            launch_agent_wait(&r->d[i].agent, 1.0);
    }
    for (int i = 0; i < r->n; i++)
        if (r->d[i].up && r->d[i].lost && !r->d[i].orphan)
            cleanup_pass(r, &r->d[i]);
    for (int i = 0; i < r->n; i++)
        launch_agent_release(&r->d[i].agent);
    launch_tree_destroy(job->tree);
    job->tree = NULL;
    launch_fence_destroy(job);
    launch_dmodex_destroy(job);
    free(r->poll_agent);
    free(r->ev);
    free(r->d);
    free(r);
    job->remote = NULL;
}
