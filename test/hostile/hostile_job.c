/*
 * An MPI job over tcp with a hostile process in it, for test/hostile/run.
 *
 *   hostile_job <attack>     (3 or more ranks; RDMPI_TRANSPORTS=self,tcp)
 *
 * The last rank H is an ordinary MPI rank that, before anyone has talked to
 * anyone, also attacks rank 0 (the victim) through raw sockets on loopback,
 * at the address rank 0 published (read from PMIx, as any process of the
 * job can). The other ranks wait for H's go, then everyone runs a checked
 * workload (eager and rendezvous messages between every pair, an
 * allreduce), and rank 0 prints "hostile_job: OK" if every byte arrived
 * intact. Attacks:
 *
 *   none      no attack (the control run)
 *   forge     as a process WITHOUT the job key: a forged HELLO claiming
 *             rank 1 (not yet connected to rank 0) then garbage; a forged
 *             proof; the previous protocol's HELLO (a hash of the job's
 *             name); HELLOs claiming rank 0 itself or a rank outside the
 *             job; a megabyte of random bytes; an idle connection; a flood
 *             of idle connections past the cap. Each must be closed by
 *             rank 0 (H checks, and counts a connection left open as an
 *             error), and the job must then finish correctly.
 *   emfile    the runner, with rank 0's descriptors limited, floods its port
 *             from outside the job (H writes the address to the file
 *             $HOSTILE_ADDR_FILE and waits for $HOSTILE_ADDR_FILE.done).
 *   oversize, badid, trunc, badreq
 *             as a MEMBER (H holds the job key from PMIx and completes a
 *             valid handshake as itself), then a malformed frame: a payload
 *             length of about 4 GiB; an active-message handler id that has
 *             no handler; an eager header 4 bytes long; a rendezvous FIN and
 *             DATA with forged request ids. H then waits, and closes the
 *             socket. The job must finish correctly or stop with rank 0
 *             naming rank H (checked by the runner), never crash or hang.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <mpi.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pmix.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "core/secret.h"
#include "transports/tcp/tcp_auth.h"

#define TAG_GO 7001
#define TAG_WORK 7002
#define ROUNDS 12
#define FLOOD 80            /* idle connections: more than the victim's cap (64) */
#define CLOSE_WAIT 8.0      /* seconds a refused connection may take to be closed */
#define IDLE_WAIT 20.0      /* ... and an idle one (the victim's deadline is 5 s) */

static int me, size, errors;
static pmix_proc_t pme;
static struct sockaddr_in victim;
static uint8_t job_key[CORE_KEY_LEN];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bad(const char *fmt, const char *what)
{
    fprintf(stderr, "hostile_job[rank %d]: ", me);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    errors++;
}

/* ---- what any process of the job can learn from PMIx ---------------------- */

static void learn(void)
{
    if (PMIx_Init(&pme, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "hostile_job: PMIx_Init failed\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_PROC_LOAD(&p, pme.nspace, 0);
    if (PMIx_Get(&p, "rdmpi.tcp.addr", NULL, 0, &v) != PMIX_SUCCESS || !v ||
        v->type != PMIX_BYTE_OBJECT || v->data.bo.size < 2 || v->data.bo.size > 64) {
        fprintf(stderr, "hostile_job: rank 0 published no tcp address\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    char addr[64];
    memcpy(addr, v->data.bo.bytes, v->data.bo.size);
    addr[v->data.bo.size - 1] = '\0';
    PMIX_VALUE_RELEASE(v);
    char *colon = strrchr(addr, ':');
    if (!colon) {
        fprintf(stderr, "hostile_job: malformed address %s\n", addr);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    *colon = '\0';
    victim.sin_family = AF_INET;
    victim.sin_port = htons((uint16_t)atoi(colon + 1));
    /* Only to loopback (the runner sets RDMPI_TCP_IF=lo): this test sends nowhere else. */
    if (inet_pton(AF_INET, addr, &victim.sin_addr) != 1 ||
        ntohl(victim.sin_addr.s_addr) >> 24 != 127) {
        fprintf(stderr, "hostile_job: rank 0 listens on %s, not on loopback (RDMPI_TCP_IF=lo)\n",
                addr);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }

    PMIX_PROC_LOAD(&p, pme.nspace, PMIX_RANK_WILDCARD);
    v = NULL;
    if (PMIx_Get(&p, CORE_JOB_KEY_PMIX, NULL, 0, &v) == PMIX_SUCCESS && v &&
        v->type == PMIX_BYTE_OBJECT && v->data.bo.size == CORE_KEY_LEN)
        memcpy(job_key, v->data.bo.bytes, CORE_KEY_LEN);
    if (v)
        PMIX_VALUE_RELEASE(v);
}

/* ---- raw sockets ----------------------------------------------------------- */

static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&victim, sizeof(victim)) != 0) {
        perror("hostile_job: connect");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

static void put_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w <= 0)
            return; /* the victim closed it: what we expect sooner or later */
        p += w;
        len -= (size_t)w;
    }
}

/* Reads exactly len bytes within limit seconds; 0, or -1 on close/timeout. */
static int get_all(int fd, void *buf, size_t len, double limit)
{
    char *p = buf;
    double end = now() + limit;
    while (len) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0) {
            if (now() > end)
                return -1;
            continue;
        }
        ssize_t r = recv(fd, p, len, 0);
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

/* Whether the victim closed fd within limit seconds (anything it sends is dropped). */
static int closed_within(int fd, double limit)
{
    double end = now() + limit;
    char buf[4096];
    while (now() < end) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0)
            continue;
        ssize_t r = recv(fd, buf, sizeof(buf), 0);
        if (r == 0 || (r < 0 && errno == ECONNRESET))
            return 1;
    }
    return 0;
}

static void hello_claiming(uint8_t msg[TP_TCP_AUTH_MSG], int claim)
{
    tp_tcp_auth_t a;
    uint8_t key[CORE_KEY_LEN] = {0}; /* a process without the job key */
    tp_tcp_auth_connect(&a, key, claim, size, 0, msg);
}

static void expect_closed(int fd, const char *name, double limit)
{
    if (!closed_within(fd, limit))
        bad("attack %s: rank 0 left the connection open", name);
    else
        printf("hostile_job: attack %s: refused\n", name);
    close(fd);
}

/* ---- attacks without the job key ------------------------------------------- */

static void attack_forge(void)
{
    uint8_t msg[TP_TCP_AUTH_MSG], chal[TP_TCP_AUTH_MSG];
    /* Opened first, checked last: they must be dropped by the deadline or the cap. */
    int idle = dial();
    int flood[FLOOD];
    for (int i = 0; i < FLOOD; i++)
        flood[i] = dial();

    /* A forged HELLO claiming rank 1, then garbage instead of a proof. */
    int fd = dial();
    hello_claiming(msg, 1);
    put_all(fd, msg, sizeof(msg));
    if (get_all(fd, chal, sizeof(chal), CLOSE_WAIT) != 0)
        bad("attack %s: no challenge came back", "forged-hello");
    char garbage[4096];
    for (size_t i = 0; i < sizeof(garbage); i++)
        garbage[i] = (char)rand();
    put_all(fd, garbage, sizeof(garbage));
    expect_closed(fd, "forged-hello+garbage", CLOSE_WAIT);

    /* A well-formed handshake by a process with the wrong key: its proof fails. */
    fd = dial();
    tp_tcp_auth_t a;
    uint8_t wrong[CORE_KEY_LEN], proof[TP_TCP_AUTH_MSG];
    memset(wrong, 0x5a, sizeof(wrong));
    tp_tcp_auth_connect(&a, wrong, 1, size, 0, msg);
    put_all(fd, msg, sizeof(msg));
    if (get_all(fd, chal, sizeof(chal), CLOSE_WAIT) == 0 &&
        tp_tcp_auth_recv(&a, chal, sizeof(chal), proof) == TP_TCP_AUTH_SEND)
        put_all(fd, proof, sizeof(proof));
    else
        bad("attack %s: no challenge came back", "forged-proof");
    expect_closed(fd, "forged-proof", CLOSE_WAIT);

    /* The previous protocol's HELLO: frame {len 0, id 0xffff, hdr 16}, then
     * {HELLO, rank 1, FNV-1a of the job's name}. */
    fd = dial();
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)pme.nspace; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    struct {
        uint32_t len;
        uint16_t id, hdr_len;
        uint32_t type;
        int32_t rank;
        uint64_t token;
    } old = {0, 0xffff, 16, 1, 1, h};
    put_all(fd, &old, sizeof(old));
    expect_closed(fd, "old-protocol-hello", CLOSE_WAIT);

    /* HELLOs claiming the victim itself, and a rank outside the job. */
    int claims[] = {0, size + 5, -1};
    const char *names[] = {"claims-rank-0-itself", "claims-rank-outside-job",
                           "claims-negative-rank"};
    for (int i = 0; i < 3; i++) {
        fd = dial();
        hello_claiming(msg, 1);
        int c = claims[i];
        memcpy(msg + 8, &c, 4); /* little-endian hosts only, like the rest of this test */
        put_all(fd, msg, sizeof(msg));
        expect_closed(fd, names[i], CLOSE_WAIT);
    }

    /* A megabyte of random bytes at once. */
    fd = dial();
    char *mb = malloc(1 << 20);
    for (int i = 0; i < (1 << 20); i++)
        mb[i] = (char)rand();
    put_all(fd, mb, 1 << 20);
    free(mb);
    expect_closed(fd, "megabyte-of-garbage", CLOSE_WAIT);

    /* The idle ones: dropped by the cap (the oldest) or the deadline. */
    double end = now() + IDLE_WAIT;
    int open_left = 0;
    for (int i = 0; i < FLOOD; i++) {
        double left = end - now();
        if (!closed_within(flood[i], left > 0.2 ? left : 0.2))
            open_left++;
        close(flood[i]);
    }
    if (open_left)
        bad("attack %s: connections left open", "flood-of-idle-connections");
    else
        printf("hostile_job: attack flood-of-%d-idle-connections: refused\n", FLOOD);
    expect_closed(idle, "idle-connection", end - now() > 0.2 ? end - now() : 0.2);
}

/* The runner floods rank 0 (whose descriptors it limited) from outside the
 * job: it learns the address from us, and tells us when it is done. */
static void attack_emfile(void)
{
    const char *file = getenv("HOSTILE_ADDR_FILE");
    if (!file) {
        fprintf(stderr, "hostile_job: emfile needs HOSTILE_ADDR_FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    char tmp[512], done[512], ip[INET_ADDRSTRLEN];
    snprintf(tmp, sizeof(tmp), "%s.tmp", file);
    snprintf(done, sizeof(done), "%s.done", file);
    inet_ntop(AF_INET, &victim.sin_addr, ip, sizeof(ip));
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s %u\n", ip, (unsigned)ntohs(victim.sin_port)) < 0 || fclose(f) ||
        rename(tmp, file)) {
        perror("hostile_job: writing the address");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    double end = now() + 60;
    while (access(done, F_OK) != 0 && now() < end)
        usleep(50000);
    printf("hostile_job: attack emfile: the runner's flood is over\n");
}

/* ---- attacks by a member ---------------------------------------------------- */

/* A valid handshake with rank 0, as ourselves (H): returns the socket, accepted. */
static int join(void)
{
    uint8_t key[CORE_KEY_LEN], msg[TP_TCP_AUTH_MSG], in[TP_TCP_AUTH_MSG];
    tp_tcp_auth_t a;
    tp_tcp_auth_key(job_key, key);
    int fd = dial();
    tp_tcp_auth_connect(&a, key, me, size, 0, msg);
    put_all(fd, msg, sizeof(msg));
    int rc = -1;
    if (get_all(fd, in, sizeof(in), CLOSE_WAIT) == 0 &&
        tp_tcp_auth_recv(&a, in, sizeof(in), msg) == TP_TCP_AUTH_SEND) {
        put_all(fd, msg, sizeof(msg));
        if (get_all(fd, in, sizeof(in), CLOSE_WAIT) == 0)
            rc = tp_tcp_auth_recv(&a, in, sizeof(in), msg);
    }
    if (rc != TP_TCP_AUTH_UP) {
        fprintf(stderr, "hostile_job: the member's handshake failed (%d, %s)\n", rc,
                a.why ? a.why : "");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    printf("hostile_job: joined rank 0's port as rank %d\n", me);
    fflush(stdout);
    return fd;
}

/* One frame: {payload length, handler id, header length}, header and
 * payload each padded to 8 bytes (transports/tcp/tcp_frame.h). */
static void frame(int fd, uint32_t len, uint16_t id, const void *hdr, uint16_t hdr_len,
                  const void *payload, size_t payload_bytes)
{
    char buf[1024] = {0};
    memcpy(buf, &len, 4);
    memcpy(buf + 4, &id, 2);
    memcpy(buf + 6, &hdr_len, 2);
    size_t off = 8;
    memcpy(buf + off, hdr, hdr_len);
    off += (hdr_len + 7u) & ~7u;
    memcpy(buf + off, payload, payload_bytes);
    off += (payload_bytes + 7u) & ~7u;
    put_all(fd, buf, off);
}

static void attack_member(const char *what)
{
    int fd = join();
    uint64_t forged[3] = {0x4141414141414140ull, 0x4242424242424240ull, 0};
    char payload[64];
    memset(payload, 0x66, sizeof(payload));
    if (!strcmp(what, "oversize")) {
        uint32_t ctx[4] = {0, 0, 1, 0};
        frame(fd, 0xfffffff0u, 0, ctx, sizeof(ctx), NULL, 0);
    } else if (!strcmp(what, "badid")) {
        frame(fd, 0, 12, forged, 8, NULL, 0);
        frame(fd, 0, 15, forged, 8, NULL, 0);
    } else if (!strcmp(what, "trunc")) {
        uint32_t ctx = 0;
        frame(fd, 8, 0, &ctx, 4, payload, 8);   /* an eager header cut to 4 bytes */
        frame(fd, 0, 0xffff, &ctx, 2, NULL, 0); /* a control frame cut to 2 bytes */
    } else if (!strcmp(what, "badreq")) {
        frame(fd, 0, 4, forged, 8, NULL, 0);                    /* FIN(forged request id) */
        frame(fd, sizeof(payload), 3, forged, 16, payload, sizeof(payload)); /* DATA(forged) */
    }
    /* Give rank 0 the time to read it all, then leave. */
    double end = now() + 2.0;
    while (now() < end)
        usleep(100000);
    close(fd);
}

/* ---- the workload every rank checks ----------------------------------------- */

static unsigned char pattern(int src, int dst, int round, size_t i)
{
    return (unsigned char)(src * 31 + dst * 17 + round * 7 + i * 13 + (i >> 9));
}

static void workload(void)
{
    static const size_t sizes[] = {8, 1000, 70000, 300000};
    size_t max = 300000;
    unsigned char *sbuf = malloc(max * (size_t)size), *rbuf = malloc(max * (size_t)size);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
    for (int round = 0; round < ROUNDS; round++) {
        size_t len = sizes[round % 4];
        int n = 0;
        for (int p = 0; p < size; p++) {
            if (p == me)
                continue;
            MPI_Irecv(rbuf + (size_t)p * max, (int)len, MPI_BYTE, p, TAG_WORK, MPI_COMM_WORLD,
                      &reqs[n++]);
            for (size_t i = 0; i < len; i++)
                sbuf[(size_t)p * max + i] = pattern(me, p, round, i);
            MPI_Isend(sbuf + (size_t)p * max, (int)len, MPI_BYTE, p, TAG_WORK, MPI_COMM_WORLD,
                      &reqs[n++]);
        }
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        for (int p = 0; p < size; p++)
            for (size_t i = 0; p != me && i < len; i++)
                if (rbuf[(size_t)p * max + i] != pattern(p, me, round, i)) {
                    fprintf(stderr, "hostile_job[rank %d]: round %d: byte %zu from rank %d "
                            "differs\n", me, round, i, p);
                    errors++;
                    break;
                }
        long sum = me, total = 0;
        MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (total != (long)size * (size - 1) / 2) {
            fprintf(stderr, "hostile_job[rank %d]: allreduce gave %ld\n", me, total);
            errors++;
        }
    }
    free(reqs);
    free(rbuf);
    free(sbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *attack = argc > 1 ? argv[1] : "none";
    if (size < 3) {
        if (me == 0)
            fprintf(stderr, "hostile_job: needs 3 or more ranks\n");
        MPI_Finalize();
        return 2;
    }
    int h = size - 1, go = 1;
    srand(12345);
    if (me == h) {
        learn();
        if (!strcmp(attack, "forge"))
            attack_forge();
        else if (!strcmp(attack, "emfile"))
            attack_emfile();
        else if (strcmp(attack, "none") != 0)
            attack_member(attack);
        fflush(stdout);
        for (int p = 0; p < h; p++)
            MPI_Send(&go, 1, MPI_INT, p, TAG_GO, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&go, 1, MPI_INT, h, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double t0 = MPI_Wtime();
    workload();
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        if (all == 0)
            printf("hostile_job: OK (attack %s, %d rounds in %.1f s)\n", attack, ROUNDS,
                   MPI_Wtime() - t0);
        else
            printf("hostile_job: FAILED (attack %s): %d errors\n", attack, all);
    }
    if (me == h)
        PMIx_Finalize(NULL, 0);
    MPI_Finalize();
    return all ? 1 : 0;
}
