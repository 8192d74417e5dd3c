/*
 * MPI_Comm_join (MPI 11.8.5): an intercommunicator between the two
 * processes at the ends of a connected socket the application made.
 *
 * Each side writes its hello on the socket (its job and rank, core/jobid.h)
 * and reads the other's: exactly CORE_JOIN_HELLO_LEN bytes each way, so
 * nothing is left unread on the socket afterwards, as MPI asks. What comes
 * off the socket is untrusted (whatever the application connected to may
 * be at the other end): it is read with a bound and a deadline and decoded
 * with every field checked, and the process it names must be one the
 * launcher knows with that numbering (api_dyn_proc), which is also what
 * makes the hello worth believing: a peer can only name a process this one
 * could already address. Then the two processes meet as the connect path
 * does: a two-process communicator on CORE_CTX_DYN (api_dyn_pair), with the
 * lower (job name, rank) as its rank 0, and an MPI_Intercomm_create between
 * the two MPI_COMM_SELFs (api_intercomm_make).
 *
 * Between two separately started rdmpiruns (the hello carries the run id,
 * core_run_id; their job names and uids may coincide, so neither launcher is
 * asked) the two go on over the socket as the roots of an accept/connect
 * between runs do (api/xport.c, docs/dynamic.md design b), with no port key
 * to prove: each sends an ephemeral X25519 public key (core_kx), both derive
 * the bridge key from the agreement, and each sends its table of one entry
 * (uid, tcp address) MACed with it. A passive observer of the socket learns
 * nothing of the key; the application's socket is what MPI trusts to lead
 * to the right process, as within one run. Exactly 32 + 76 more bytes each
 * way, so the socket is again left with nothing unread.
 *
 * Last, each side writes one byte on the socket, 1 when it is ready for the
 * intercommunicator's creation (the other process added to its table, the
 * two-process communicator made), 0 when it failed, and one that is ready
 * reads the other's: so neither waits in the context-id agreement for a
 * process that gave up (a side that fails before that byte leaves the other
 * waiting at most 30 s: once its hello is here, the other side is in MPI_Comm_join and owes
 * each later step at once). A side whose hello cannot be decoded writes a 0 byte, which ends
 * the join at once at a peer of its own run (it reads that byte as "failed").
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "api/api.h"
#include "api/dynamic.h"
#include "api/intercomm.h"
#include "api/xport.h"
#include "core/secret.h"
#include "core/xwire.h"
#include "core/jobid.h"
#include "core/log.h"
#include "core/procs.h"
#include "core/progress.h"

#define JOIN_TAG 13      /* on the two-process communicator of CORE_CTX_DYN */
#define JOIN_WAIT 300.0  /* seconds the other side has to send its hello */
#define STEP_WAIT 30.0   /* then for each later step: it is in MPI_Comm_join, and answers at
                          * once unless it failed there while its process lives on */

/* Moves exactly len bytes over fd (out: writes), polling in short slices so that this
 * process keeps serving its MPI traffic while the other side takes its time. The socket's
 * own flags are left as the application set them. */
static int fd_move(int fd, uint8_t *buf, size_t len, int out, double wait, const char **why)
{
    double until = core_wtime() + wait;
    size_t done = 0;
    while (done < len) {
        if (core_wtime() > until) {
            if (wait >= JOIN_WAIT)
                *why = out ? "the other side read nothing for 300 s"
                           : "the other side sent no complete hello in 300 s";
            else
                *why = out ? "the other side, past its hello, read nothing for 30 s"
                           : "the other side, past its hello, sent nothing for 30 s (it "
                             "failed in MPI_Comm_join, or is not an MPI process)";
            return CORE_EIO;
        }
        struct pollfd p = { fd, out ? POLLOUT : POLLIN, 0 };
        int n = poll(&p, 1, 10);
        if (n < 0 && errno != EINTR) {
            *why = strerror(errno);
            return CORE_EIO;
        }
        if (n <= 0) {
            core_progress();
            continue;
        }
        ssize_t k = out ? send(fd, buf + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT)
                        : recv(fd, buf + done, len - done, MSG_DONTWAIT);
        if (k < 0 && errno == ENOTSOCK) /* a pipe or the like: poll said it is ready */
            k = out ? write(fd, buf + done, len - done) : read(fd, buf + done, len - done);
        if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (k < 0) {
            *why = strerror(errno);
            return CORE_EIO;
        }
        if (k == 0) {
            *why = wait >= JOIN_WAIT ? "the other side closed the socket before its hello "
                                       "was complete"
                                     : "the other side closed the socket in the middle of "
                                       "the exchange";
            return CORE_EIO;
        }
        done += (size_t)k;
    }
    return 0;
}

/* The last byte each way (see the top): 0 when both sides are ready; a side that failed
 * (ok 0) says so and returns at once. */
static int confirm(int fd, int ok, const char **why)
{
    uint8_t mine = ok ? 1 : 0, theirs = 0;
    int rc = fd_move(fd, &mine, 1, 1, STEP_WAIT, why);
    if (!ok)
        return CORE_EOTHER;
    if (!rc)
        rc = fd_move(fd, &theirs, 1, 0, STEP_WAIT, why);
    if (!rc && theirs != 1) {
        *why = theirs == 0 ? "the other side failed after the socket exchange (it says so)"
                           : "a confirmation byte that is neither yes nor no";
        rc = CORE_EOTHER;
    }
    return rc ? CORE_EOTHER : 0;
}

/* Both hellos: ours written first (a few hundred bytes fit any socket's buffer, so both
 * sides writing first cannot deadlock), then theirs read and decoded. */
static int swap_hellos(int fd, core_join_hello_t *them, const char **why)
{
    core_join_hello_t me = { { "", core_rt->uid_base }, core_rt->rank, core_run_id(core_rt) };
    snprintf(me.job.nspace, sizeof(me.job.nspace), "%s", core_rt->nspace);
    uint8_t out[CORE_JOIN_HELLO_LEN], in[CORE_JOIN_HELLO_LEN];
    if (core_join_hello_encode(out, &me)) {
        *why = "this job's name cannot be sent";
        return CORE_EINTERN;
    }
    int rc = fd_move(fd, out, sizeof(out), 1, JOIN_WAIT, why);
    if (!rc)
        rc = fd_move(fd, in, sizeof(in), 0, JOIN_WAIT, why);
    if (!rc && (rc = core_join_hello_decode(in, sizeof(in), them, why))) {
        uint8_t no = 0; /* a peer of this run reads it as its confirmation byte */
        const char *ignored;
        fd_move(fd, &no, 1, 1, 1.0, &ignored);
    }
    return rc;
}

/* The join with a process of another run (them: its hello), over the same socket. */
static int join_other_run(int fd, const core_join_hello_t *them, MPI_Comm *intercomm,
                          char *why, size_t wlen)
{
    uint8_t pk[CORE_KX_PUBLIC], sk[CORE_KX_SECRET], tpk[CORE_KX_PUBLIC], key[CORE_KEY_LEN];
    uint8_t tab[CORE_XWIRE_TABLE_HDR + CORE_XWIRE_ENTRY + CORE_MAC_LEN];
    core_xwire_entry_t me, peer;
    core_xwire_table_t mine = { 1, 0, core_run_id(core_rt), &me }, theirs = { 0, 0, 0, &peer };
    const char *w = "";
    int rc = api_xport_my_entry(&me), swapped = 0;
    if (rc) {
        snprintf(why, wlen, "this process has no tcp address for the other run: %s",
                 core_strerror(rc));
        return rc;
    }
    core_kx_keypair(pk, sk);
    if (!(rc = fd_move(fd, pk, sizeof(pk), 1, STEP_WAIT, &w)) &&
        !(rc = fd_move(fd, tpk, sizeof(tpk), 0, STEP_WAIT, &w))) {
        rc = core_kx_shared(pk, sk, tpk, key);
        if (rc)
            w = "its key agreement message is not a usable public key";
    }
    memset(sk, 0, sizeof(sk));
    uint8_t lo = core_run_id(core_rt) < them->run ? 'L' : 'H'; /* each side's MAC role */
    if (!rc) {
        core_xwire_table_encode(&mine, key, lo, tab);
        if (!(rc = fd_move(fd, tab, sizeof(tab), 1, STEP_WAIT, &w)) &&
            !(rc = fd_move(fd, tab, sizeof(tab), 0, STEP_WAIT, &w)) && (swapped = 1))
            rc = core_xwire_table_decode(tab, sizeof(tab), key, lo == 'L' ? 'H' : 'L',
                                         &theirs, &w);
    }
    if (!rc && (theirs.run != them->run || theirs.n != 1 ||
                (int)peer.uid != them->job.ubase + them->rank)) {
        w = "its table does not name the process its hello named";
        rc = CORE_EPROTO;
    }
    if (rc) {
        memset(key, 0, sizeof(key));
        if (swapped) /* the stream is in step: the other side reads our word */
            confirm(fd, 0, &w);
        snprintf(why, wlen, "with rank %d of job %s of another rdmpirun run (%016llx), the "
                 "bridge over the socket: %s", them->rank, them->job.nspace,
                 (unsigned long long)them->run, w);
        return rc;
    }
    int b = core_bridge_add(core_rt, them->run, key), idx = b;
    memset(key, 0, sizeof(key));
    char addr[48];
    snprintf(addr, sizeof(addr), "%u.%u.%u.%u:%u", peer.ip[0], peer.ip[1], peer.ip[2],
             peer.ip[3], (unsigned)peer.port);
    if (b >= 0)
        idx = core_proc_add_foreign(core_rt, them->run, (int)peer.uid, addr, b);
    if (idx >= 0 && core_rt->settings->test_xrun_fail == core_rt->rank)
        idx = CORE_EOTHER; /* fault injection (tests): as when out of table space */
    MPI_Comm pair = MPI_COMM_NULL;
    const char *what = "adding the other run's process";
    int first = core_run_id(core_rt) < them->run;
    if ((rc = idx < 0 ? idx : 0) == 0) {
        what = "making the two-process communicator";
        rc = api_dyn_pair(idx, first, &pair);
    }
    int crc = confirm(fd, !rc, &w);
    if (!rc && crc) {
        rc = crc;
        what = w;
    }
    if (!rc)
        rc = api_intercomm_make_known(MPI_COMM_SELF, 0, pair, first ? 1 : 0, JOIN_TAG, &idx, 1,
                                      core_rt->settings->connect_timeout, intercomm, &what);
    if (pair != MPI_COMM_NULL)
        core_comm_release(pair);
    if (rc && crc && what == w) {
        snprintf(why, wlen, "with rank %d of job %s of another rdmpirun run (%016llx), "
                 "confirming: %s", them->rank, them->job.nspace, (unsigned long long)them->run,
                 w);
        /* the other side's failure: an application that lets errors return sees the class
         * only, so this side says it */
        core_warn("MPI_Comm_join (rank %d): %s", core_rt->rank, why);
    }
    else if (rc)
        snprintf(why, wlen, "with rank %d of job %s of another rdmpirun run (%016llx), %s "
                 "failed: %s", them->rank, them->job.nspace, (unsigned long long)them->run,
                 what, core_strerror(rc));
    return rc;
}

static int join(int fd, MPI_Comm *intercomm, char *why, size_t wlen)
{
    core_join_hello_t them;
    const char *w = "";
    int rc = rt_dyn_prepare(); /* reachable before the other side can look */
    if (rc) {
        snprintf(why, wlen, "no transport reaches other jobs: %s", core_strerror(rc));
        return rc;
    }
    if ((rc = swap_hellos(fd, &them, &w))) {
        snprintf(why, wlen, "the hello over the socket: %s", w);
        return rc;
    }
    if (them.run != core_run_id(core_rt)) /* its job names and uids are not ours */
        return join_other_run(fd, &them, intercomm, why, wlen);
    int order = strcmp(core_rt->nspace, them.job.nspace);
    if (!order && them.rank == core_rt->rank) {
        snprintf(why, wlen, "the socket leads back to this process");
        return CORE_EINVAL;
    }
    int first = order < 0 || (!order && core_rt->rank < them.rank);
    int idx = api_dyn_proc(them.job.nspace, them.rank, them.job.ubase);
    if (idx >= 0 && core_rt->settings->test_xrun_fail == core_rt->rank)
        idx = CORE_EOTHER; /* fault injection (tests) */
    if (idx < 0) {
        confirm(fd, 0, &w);
        snprintf(why, wlen, "the other side says it is rank %d of job %s (first uid %d), "
                 "which this process's launcher does not know so (processes of separately "
                 "started launchers cannot join)", them.rank, them.job.nspace, them.job.ubase);
        return idx == CORE_EPORT ? CORE_EPEER : idx;
    }
    MPI_Comm pair = MPI_COMM_NULL;
    const char *what = "making the two-process communicator";
    rc = api_dyn_pair(idx, first, &pair);
    int crc = confirm(fd, !rc, &w);
    if (!rc && crc) {
        rc = crc;
        what = w;
    }
    if (!rc)
        rc = api_intercomm_make(MPI_COMM_SELF, 0, pair, first ? 1 : 0, JOIN_TAG, intercomm,
                                &what);
    if (pair != MPI_COMM_NULL)
        core_comm_release(pair);
    if (rc && crc && what == w) {
        snprintf(why, wlen, "with rank %d of job %s, confirming: %s", them.rank,
                 them.job.nspace, w);
        core_warn("MPI_Comm_join (rank %d): %s", core_rt->rank, why);
    }
    else if (rc)
        snprintf(why, wlen, "with rank %d of job %s, %s failed: %s", them.rank,
                 them.job.nspace, what, core_strerror(rc));
    return rc;
}

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    API_ENTER;
    static const char fn[] = "MPI_Comm_join";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_ptr(MPI_COMM_WORLD, intercomm, "intercomm", fn));
    *intercomm = MPI_COMM_NULL;
    if (fd < 0)
        return api_error(MPI_COMM_WORLD, CORE_EINVAL, fn, "file descriptor %d", fd);
    if (core_rt->singleton)
        return api_error(MPI_COMM_WORLD, CORE_EUNSUPPORTED, fn, "a singleton (started "
                         "without a launcher) cannot address processes of other jobs");
    char why[768];
    int rc = join(fd, intercomm, why, sizeof(why));
    if (rc) {
        *intercomm = MPI_COMM_NULL;
        return api_error(MPI_COMM_WORLD, rc, fn, "socket %d: %s", fd, why);
    }
    return MPI_SUCCESS;
}
int MPI_Comm_join(int fd, MPI_Comm *intercomm) API_ALIAS(MPI_Comm_join);
