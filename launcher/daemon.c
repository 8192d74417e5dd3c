/*
 * rdmpid: the node daemon of a multi-node job. Its parent in the daemon tree
 * (rdmpirun or another rdmpid: tree launch) starts it through the launch
 * agent and writes one line to its stdin:
 *   RDMPID2 <secret> <vpid> <tree size> <port> <parent's addresses> <name>
 * or, in a flat launch (--launch-flat), rdmpirun starts every daemon with
 *   RDMPID1 <secret> <vpid> <tree size> <port> <rdmpirun's addresses> <name>
 * The daemon joins the daemon tree (tree.c), starts its own children's
 * daemons when rdmpirun tells it how (AGENTS, kids.c), waits for the job (LAUNCH),
 * becomes the PMIx server of its node's ranks and forks them, and then
 * forwards their output, exits and aborts to rdmpirun, applies the signals
 * rdmpirun sends, carries fences and direct modex across nodes, and serves
 * the jobs the ranks spawn (dyntree.c). On
 * SHUTDOWN it cleans its node (tmpdir, /dev/shm), waits for its children
 * in the tree and says BYE. If its parent link or its stdin (held by
 * rdmpirun through the agent) goes away, rdmpirun is gone or this part of
 * the tree is cut off: it ends its ranks, cleans up and leaves.
 *
 *   rdmpid --cleanup NSPACE VPID   removes what a killed daemon left; stdin
 *                                  has "RDMPIDC1 <secret>", from which the
 *                                  job's shm names follow (exit 1 without it)
 */
#include "jobmsg.h"
#include "kids.h"
#include "server.h"
#include "tree.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define JOIN_TIMEOUT 60.0
#define DRAIN_GRACE 0.5   /* output a rank's children still hold open */
#define STOP_GRACE 2.5    /* for the children in the tree to say BYE */
#define ORPHAN_TERM 0.5   /* SIGTERM, then SIGKILL this much later */
#define ORPHAN_GIVEUP 3.0

struct daemon {
    struct launch_job job;
    struct launch_jobmsg jm;
    int launched;
    int nalive;
    int abort_sent;
    int shutdown;
    double shutdown_at;
    int orphaned;        /* rdmpirun is gone, or we are cut off from it */
    double orphaned_at;
    int killed;          /* orphan: SIGKILL sent */
    int stdin_eof;       /* the agent pipe */
    int status;          /* our exit status */
    char secret[LAUNCH_SECRET_LEN + 1]; /* tree launch: for our children's start lines */
    int kids_started;
    struct launch_kids kids; /* tree launch: the agents of our children's daemons */
};

static void send_up(struct daemon *d, int type, const struct launch_buf *b)
{
    if (!b->err && d->job.tree)
        launch_tree_send(d->job.tree, type, 0, b->p, b->len);
}

static void send_text(struct daemon *d, int type, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void send_text(struct daemon *d, int type, int code, const char *fmt, ...)
{
    struct launch_buf b = {0};
    char text[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (type == MSG_START_FAIL)
        lbuf_u32(&b, (uint32_t)code);
    lbuf_str(&b, text);
    send_up(d, type, &b);
    lbuf_free(&b);
}

static void io_sink(void *ctx, int rank, int is_err, const char *data, size_t n)
{
    struct daemon *d = ctx;
    struct launch_buf b = {0};

    lbuf_u32(&b, (uint32_t)rank);
    lbuf_u32(&b, (uint32_t)is_err);
    lbuf_bytes(&b, data, n);
    send_up(d, MSG_IO, &b);
    lbuf_free(&b);
}

static void send_started(struct daemon *d)
{
    struct launch_buf b = {0};

    lbuf_u32(&b, (uint32_t)d->job.nlocal);
    for (int i = 0; i < d->job.nranks; i++) {
        if (d->job.ranks[i].local) {
            lbuf_u32(&b, (uint32_t)i);
            lbuf_u32(&b, (uint32_t)d->job.ranks[i].pid);
        }
    }
    send_up(d, MSG_STARTED, &b);
    lbuf_free(&b);
}

/* Everything between the job's arrival and its ranks running. */
static int start_job(struct daemon *d)
{
    struct launch_job *job = &d->job;
    int rc;

    if (chdir(d->jm.cwd))
        fprintf(stderr, "%s: warning: cannot change to %s: %s\n", launch_who, d->jm.cwd,
                strerror(errno));
    /* A host without a rank of the job (kept for spawn's slots) need not have its program. */
    rc = job->nlocal ? launch_spawn_resolve(job->opts->argv[0], job->prog, sizeof(job->prog)) : 0;
    if (rc) {
        send_text(d, MSG_START_FAIL, LAUNCH_EXIT_NOPROG, "program '%s' %s on host %s",
                  job->opts->argv[0], rc == -ENOENT ? "not found" : "is not executable",
                  job->host);
        return rc;
    }
    launch_binding_init(job);
    launch_binding_share(job);
    rc = launch_binding_plan(job);
    if (!rc)
        rc = launch_server_start(job);
    if (!rc)
        rc = launch_io_create_forward(job, io_sink, d);
    if (!rc)
        rc = launch_stdin_create_pipe(job);
    if (rc) {
        send_text(d, MSG_START_FAIL, LAUNCH_EXIT_INTERNAL, "rdmpid on host %s could not set up "
                  "the job's PMIx server (see its messages)", job->host);
        return rc;
    }
    rc = launch_spawn_all(job);
    for (int i = 0; i < job->nranks; i++)
        d->nalive += job->ranks[i].alive;
    send_started(d);
    if (rc)
        send_text(d, MSG_START_FAIL, LAUNCH_EXIT_INTERNAL, "rdmpid on host %s could not start "
                  "all its ranks", job->host);
    return rc;
}

/* Every node of the job has a member of our tree. */
static int vpids_in_tree(const struct launch_job *job)
{
    for (int i = 0; i < job->nnodes; i++)
        if (job->nodes[i].vpid >= launch_tree_size(job->tree))
            return 0;
    return 1;
}

static void on_launch(struct daemon *d, const char *p, size_t n)
{
    struct launch_job *job = &d->job;
    int me = launch_tree_me(job->tree);

    if (d->launched)
        return;
    d->launched = 1;
    if (launch_jobmsg_unpack(p, n, me, job, &d->jm) || !vpids_in_tree(job)) {
        launch_jobmsg_release(job, &d->jm); /* nothing of it is used */
        job->my_node = -1;
        job->nspace[0] = '\0';
        fprintf(stderr, "%s: malformed job description (%zu bytes) from rdmpirun\n", launch_who,
                n);
        send_text(d, MSG_START_FAIL, LAUNCH_EXIT_INTERNAL, "rdmpid (vpid %d) got a malformed job",
                  me);
        return;
    }
    snprintf(launch_who, sizeof(launch_who), "rdmpid (%s)", job->host);
    start_job(d);
}

static void apply_signal(struct daemon *d, int sig, int how)
{
    for (int i = 0; i < d->job.nranks; i++) {
        struct launch_rank *r = &d->job.ranks[i];
        if (!r->local || r->pid <= 0 || (how != SIG_GROUPS_ALL && !r->alive))
            continue;
        if (how == SIG_PIDS_ALIVE || (kill(-r->pid, sig) && r->alive))
            kill(r->pid, sig);
    }
    launch_dyn_signal(&d->job, sig, how == SIG_GROUPS_ALL);
}

/* A SIGNAL payload: a signal number kill() takes and a known way to apply it. */
static int signal_ok(struct launch_rd *rd, int *sig, int *how)
{
    uint32_t s = lrd_u32(rd), h = lrd_u32(rd);

    if (rd->err || rd->left || s == 0 || s > (uint32_t)SIGRTMAX ||
        (h != SIG_GROUPS_ALL && h != SIG_GROUPS_ALIVE && h != SIG_PIDS_ALIVE))
        return 0;
    *sig = (int)s;
    *how = (int)h;
    return 1;
}

/* A child's daemon could not be started: rdmpirun names its host and the cause. */
static void kid_failed(void *ctx, int vpid, const char *why)
{
    struct daemon *d = ctx;
    struct launch_buf b = {0};

    lbuf_u32(&b, (uint32_t)vpid);
    lbuf_str(&b, why);
    send_up(d, MSG_LOST, &b);
    lbuf_free(&b);
}

static void on_agents(struct daemon *d, const char *p, size_t n)
{
    struct launch_agents *a = malloc(sizeof(*a)); /* 40 KiB: not on the stack */
    const char *why;

    if (d->kids_started || !a || !d->secret[0]) {
        free(a);
        return;
    }
    d->kids_started = 1;
    if (launch_agents_decode(p, n, launch_tree_size(d->job.tree), launch_tree_me(d->job.tree), a,
                             &why)) {
        fprintf(stderr, "%s: ignored AGENTS from rdmpirun: %s\n", launch_who, why);
        send_text(d, MSG_ERROR, 0, "rdmpid got a malformed AGENTS: %s", why);
    } else {
        launch_kids_start(&d->kids, a, d->secret, launch_tree_size(d->job.tree),
                          launch_tree_port(d->job.tree), kid_failed, d);
    }
    free(a);
}

/* The tree delivers only what its direction rules let through (tree.h): commands come
 * from rdmpirun (src 0) through our parent link. */
static void on_msg(void *ctx, int type, int src, const char *p, size_t n)
{
    struct daemon *d = ctx;
    struct launch_rd rd = {p, n, 0};
    int sig, how;

    switch (type) {
    case MSG_LAUNCH:
        if (src == 0)
            on_launch(d, p, n);
        break;
    case MSG_AGENTS:
        if (src == 0 && !d->shutdown && !d->orphaned)
            on_agents(d, p, n);
        break;
    case MSG_SIGNAL:
        if (src != 0 || !d->launched)
            break;
        if (signal_ok(&rd, &sig, &how))
            apply_signal(d, sig, how);
        else
            fprintf(stderr, "%s: ignored a malformed SIGNAL from rdmpirun\n", launch_who);
        break;
    case MSG_STDIN:
        if (src == 0)
            launch_stdin_push(&d->job, p, n);
        break;
    case MSG_FENCE_UP:
    case MSG_FENCE_DOWN:
    case MSG_DMODEX_REQ:
    case MSG_DMODEX_RESP:
        launch_dyn_route(&d->job, type, src, p, n);
        break;
    case MSG_NAME_RESP:
        if (src == 0 && d->launched)
            launch_namefwd_msg(&d->job, type, src, p, n);
        break;
    case MSG_SPAWN_RESP:
    case MSG_DYN_JOB:
    case MSG_DYN_KILL:
        if (src == 0 && d->launched && !d->orphaned)
            launch_dyn_msg(&d->job, type, src, p, n);
        break;
    case MSG_SHUTDOWN:
        if (src == 0 && !d->shutdown) {
            d->shutdown = 1;
            d->shutdown_at = launch_now();
        }
        break;
    }
}

static void become_orphan(struct daemon *d, const char *why)
{
    if (d->orphaned || d->shutdown)
        return;
    d->orphaned = 1;
    d->orphaned_at = launch_now();
    fprintf(stderr, "%s: %s; ending this node's ranks\n", launch_who, why);
    launch_namefwd_fail_all(&d->job); /* no answer will come */
    apply_signal(d, SIGTERM, SIG_GROUPS_ALL);
}

static void on_lost(void *ctx, int vpid, const char *why)
{
    struct daemon *d = ctx;
    struct launch_buf b = {0};

    if (vpid < 0) {
        become_orphan(d, "lost the connection to the daemon tree");
        return;
    }
    lbuf_u32(&b, (uint32_t)vpid);
    lbuf_str(&b, why);
    send_up(d, MSG_LOST, &b); /* rdmpirun only sees its own children */
    lbuf_free(&b);
}

static struct launch_rank *rank_by_pid(struct daemon *d, pid_t pid)
{
    for (int i = 0; i < d->job.nranks; i++)
        if (d->job.ranks[i].local && d->job.ranks[i].pid == pid)
            return &d->job.ranks[i];
    return NULL;
}

static void reap(struct daemon *d)
{
    int status;
    pid_t pid;

    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        struct launch_rank *r = rank_by_pid(d, pid);
        struct launch_buf b = {0};
        if (launch_kids_reaped(&d->kids, pid, status))
            continue; /* launch_kids_check reports it if its daemon never linked */
        if (!r) { /* a spawned rank: reported to rdmpirun there */
            launch_dyn_reaped(&d->job, pid, status, 0);
            continue;
        }
        if (!r->alive)
            continue;
        r->alive = 0;
        r->status = status;
        d->nalive--;
        if (d->orphaned)
            continue; /* we ended it: not news for rdmpirun */
        launch_lastwords_wait(r, status);
        lbuf_u32(&b, (uint32_t)r->rank);
        lbuf_u32(&b, (uint32_t)status);
        lbuf_u32(&b, (uint32_t)atomic_load(&r->connected));
        lbuf_u32(&b, (uint32_t)atomic_load(&r->finalized));
        send_up(d, MSG_EXIT, &b);
        lbuf_free(&b);
    }
}

/* Forwards the first PMIx_Abort of a local rank; before its exit, since
 * the abort explains it. */
static void check_abort(struct daemon *d)
{
    struct launch_job *job = &d->job;
    struct launch_buf b = {0};

    pthread_mutex_lock(&job->lock);
    if (job->aborted && !d->abort_sent) {
        d->abort_sent = 1;
        lbuf_u32(&b, (uint32_t)job->abort_rank);
        lbuf_u32(&b, (uint32_t)job->abort_status);
        lbuf_str(&b, job->abort_msg);
    }
    pthread_mutex_unlock(&job->lock);
    if (b.len)
        send_up(d, MSG_ABORT, &b);
    lbuf_free(&b);
}

static void on_wake(void *ctx, int sig, pid_t pid)
{
    struct daemon *d = ctx;

    (void)pid; /* exits are reaped in the main loop */
    if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT) {
        send_text(d, MSG_ERROR, 0, "rdmpid got signal %d (%s)", sig, strsignal(sig));
        become_orphan(d, "got a termination signal");
        d->status = 128 + sig;
    }
}

/* Returns 1 to leave the loop. */
static int drain_wake_pipe(struct daemon *d)
{
    launch_wake_drain(&d->job, on_wake, d);
    return 0;
}

static void read_agent_stdin(struct daemon *d)
{
    char buf[256];
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        d->stdin_eof = 1;
        become_orphan(d, "rdmpirun is gone (its pipe closed)");
    }
}

/* Returns 1 when the daemon is done. */
static int check_progress(struct daemon *d, double now)
{
    struct launch_job *job = &d->job;

    if (d->orphaned) {
        if (!d->killed && now >= d->orphaned_at + ORPHAN_TERM) {
            d->killed = 1;
            apply_signal(d, SIGKILL, SIG_GROUPS_ALL);
        }
        return d->nalive + launch_dyn_alive(job) == 0 || now >= d->orphaned_at + ORPHAN_GIVEUP;
    }
    if (!d->shutdown)
        return 0;
    if (d->nalive + launch_dyn_alive(job) > 0 && now < d->shutdown_at + STOP_GRACE)
        return 0;
    if (launch_io_open_streams(job) + launch_dyn_io_npollfds(job) > 0 &&
        now < d->shutdown_at + DRAIN_GRACE)
        return 0;
    return launch_tree_children_done(job->tree) || now >= d->shutdown_at + STOP_GRACE;
}

static int poll_ms(const struct daemon *d, double now)
{
    double next = launch_tree_next_deadline(d->job.tree);

    if (d->orphaned || d->shutdown)
        return 50;
    if (next <= 0)
        return -1;
    return next <= now ? 0 : (int)((next - now) * 1000) + 1;
}

static void loop(struct daemon *d)
{
    struct launch_job *job = &d->job;
    struct pollfd *pfd = NULL;
    int cap = 0;

    while (1) {
        drain_wake_pipe(d);
        check_abort(d);
        reap(d);
        launch_fence_progress(job);
        launch_dmodex_progress(job);
        launch_dyn_progress(job); /* and the spawned jobs' fences and direct modex */
        launch_namefwd_progress(job);
        launch_kids_check(&d->kids, job->tree, kid_failed, d);
        double now = launch_now();
        launch_tree_tick(job->tree, now);
        if (check_progress(d, now))
            break;
        int need = 3 + 2 * job->nranks + launch_dyn_io_npollfds(job) +
                   launch_tree_npollfds(job->tree) + d->kids.n;
        if (need > cap) {
            struct pollfd *p = realloc(pfd, (size_t)need * sizeof(*p));
            if (!p)
                break;
            pfd = p;
            cap = need;
        }
        int n = 0, nin, nio, ndyn, nt, nk;
        pfd[n].fd = job->wake_fd[0];
        pfd[n++].events = POLLIN;
        pfd[n].fd = d->stdin_eof ? -1 : STDIN_FILENO;
        pfd[n++].events = POLLIN;
        nin = launch_stdin_fill_pollfd(job, &pfd[n]);
        n += nin;
        nio = launch_io_fill_pollfds(job, &pfd[n], 2 * job->nranks);
        ndyn = launch_dyn_io_fill_pollfds(job, &pfd[n + nio], cap - n - nio);
        nio += ndyn; /* handled apart, after the job's own */
        nt = launch_tree_fill_pollfds(job->tree, &pfd[n + nio], cap - n - nio);
        nk = launch_kids_fill_pollfds(&d->kids, &pfd[n + nio + nt], cap - n - nio - nt);
        for (int i = 0; i < 2; i++)
            pfd[i].revents = 0;
        if (poll(pfd, (nfds_t)(n + nio + nt + nk), poll_ms(d, now)) < 0 && errno != EINTR)
            break;
        if (pfd[1].revents)
            read_agent_stdin(d);
        if (nin)
            launch_stdin_handle(job, &pfd[2]);
        launch_io_handle(job, &pfd[n], nio - ndyn);
        launch_dyn_io_handle(job, &pfd[n + nio - ndyn], ndyn);
        launch_tree_handle(job->tree, &pfd[n + nio], nt);
        launch_kids_handle(&d->kids, &pfd[n + nio + nt], nk);
    }
    free(pfd);
}

static void finish(struct daemon *d)
{
    struct launch_job *job = &d->job;

    launch_namefwd_fail_all(job); /* before libpmix is gone: nothing answers them later */
    launch_server_stop(job);
    launch_namefwd_destroy(job);
    launch_dyn_destroy(job);
    launch_io_destroy(job);
    launch_stdin_destroy(job);
    launch_binding_fini(job);
    if (job->nspace[0])
        launch_cleanup_shm(job->nspace, job->job_key);
    launch_cleanup_tmpdir(job->tmpdir);
    launch_kids_stop(&d->kids); /* our children said BYE, or are cut off: end their agents */
    memset(d->secret, 0, sizeof(d->secret));
    if (!d->orphaned)
        launch_tree_send_parent(job->tree, MSG_BYE, NULL, 0);
    if (job->tree)
        launch_tree_flush(job->tree, 1.0);
    launch_tree_destroy(job->tree);
    launch_fence_destroy(job);
    launch_dmodex_destroy(job);
    launch_jobmsg_free(&d->jm);
    free(job->ranks);
    free(job->nodes);
}

/* The boot line, read without taking a byte more from the pipe. */
static int read_boot(char *line, size_t len)
{
    size_t n = 0;

    while (n + 1 < len) {
        ssize_t got = read(STDIN_FILENO, line + n, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -EIO;
        if (line[n] == '\n')
            break;
        n++;
    }
    line[n] = '\0';
    return 0;
}

static int boot(struct daemon *d)
{
    char line[4096], secret[LAUNCH_SECRET_LEN + 2], addrs[2048], name[256];
    int vpid, size, port, rc, version;

    if (read_boot(line, sizeof(line)) ||
        sscanf(line, "RDMPID%d %65s %d %d %d %2047s %255s", &version, secret, &vpid, &size,
               &port, addrs, name) != 7 || (version != 1 && version != 2) || vpid < 1 ||
        vpid >= size) {
        memset(line, 0, sizeof(line));
        fprintf(stderr, "rdmpid: no valid start line on stdin (rdmpid is started by rdmpirun)\n");
        return -EINVAL;
    }
    snprintf(launch_who, sizeof(launch_who), "rdmpid (%s)", name);
    if (core_crypto_init() || launch_net_job_key(secret, d->job.job_key)) {
        fprintf(stderr, "%s: malformed job secret on the start line\n", launch_who);
        return -EINVAL;
    }
    memset(line, 0, sizeof(line));
    d->job.tree = launch_tree_create(size, vpid, secret, launch_who, on_msg, on_lost, d);
    if (version == 2) /* tree launch: our children's daemons get it from us */
        memcpy(d->secret, secret, LAUNCH_SECRET_LEN); /* checked: 64 hex digits */
    memset(secret, 0, sizeof(secret));
    if (!d->job.tree || launch_fence_create(&d->job) || launch_dmodex_create(&d->job) ||
        launch_dyn_create(&d->job) || launch_namefwd_create(&d->job))
        return -ENOMEM;
    if ((vpid & -vpid) > 1 && vpid + 1 < size) {
        rc = launch_tree_listen(d->job.tree); /* it may have children */
        if (rc) {
            fprintf(stderr, "%s: cannot listen: %s\n", launch_who, strerror(-rc));
            return rc;
        }
    }
    return launch_tree_join(d->job.tree, addrs, port, version == 2, JOIN_TIMEOUT);
}

static int usage(void)
{
    fprintf(stderr, "rdmpid is the node daemon of rdmpirun and is started by it.\n"
                    "Usage: rdmpid                         (start line on stdin)\n"
                    "       rdmpid --cleanup NSPACE VPID   remove what a job left here\n");
    return LAUNCH_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    struct daemon d;
    int rc;

    if (argc == 4 && !strcmp(argv[1], "--cleanup")) {
        /* stdin: "RDMPIDC1 <secret>", from which the job's shm names follow; without it
         * only processes and directories are removed. */
        char line[LAUNCH_SECRET_LEN + 16], secret[LAUNCH_SECRET_LEN + 2];
        uint8_t key[CORE_KEY_LEN];
        int have_key = core_crypto_init() == 0 && read_boot(line, sizeof(line)) == 0 &&
                       sscanf(line, "RDMPIDC1 %65s", secret) == 1 &&
                       launch_net_job_key(secret, key) == 0;
        memset(line, 0, sizeof(line));
        memset(secret, 0, sizeof(secret));
        snprintf(launch_who, sizeof(launch_who), "rdmpid --cleanup");
        launch_cleanup_node(argv[2], atoi(argv[3]), have_key ? key : NULL);
        if (!have_key) /* rdmpirun says the cleanup failed, with this line */
            fprintf(stderr, "rdmpid --cleanup: no valid RDMPIDC1 line on stdin: the job's "
                            "shared-memory objects were left\n");
        return have_key ? 0 : 1;
    }
    if (argc != 1)
        return usage();
    memset(&d, 0, sizeof(d));
    d.job.is_daemon = 1;
    d.job.my_node = -1;
    d.job.wake_fd[0] = d.job.wake_fd[1] = -1;
    pthread_mutex_init(&d.job.lock, NULL);
    if (pipe2(d.job.wake_fd, O_CLOEXEC | O_NONBLOCK) ||
        launch_signals_install(d.job.wake_fd[1]))
        return LAUNCH_EXIT_INTERNAL;
    rc = boot(&d);
    if (rc == 0)
        loop(&d);
    else
        d.status = LAUNCH_EXIT_INTERNAL;
    finish(&d);
    close(d.job.wake_fd[0]);
    close(d.job.wake_fd[1]);
    return d.status;
}

#if defined(__SANITIZE_ADDRESS__)
const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}
#endif
