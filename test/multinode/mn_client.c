/*
 * Test rank for multi-node launches: a plain PMIx client that checks what a
 * rank learns about the job across hosts, then does what its rule says.
 *
 * Usage: mn_client [WHO:ACTION[:ARG]]...  (other arguments are ignored, so a
 * test can add a marker to find its processes)
 *   WHO is a rank number or '*'. ACTION: exit:N, abort:N, kill-self:SIG,
 *   sleep:S, print:N, check-env, read-stdin, dmodex, gate (wait for the
 *   file $TEST_GATE, then fence again), lookup (PMIx_Lookup of a name nobody
 *   publishes, again and again while it says not found, SIGTERM ignored;
 *   writes "looking" and then how the last one ended to $TEST_OUT.<rank>,
 *   since its output may have nowhere to go by then). Default: exit:0.
 * Every rank first puts "mn.key", and (unless its rule is dmodex) fences
 * with PMIX_COLLECT_DATA and reads every peer's key; with dmodex it reads
 * them without any fence, so each lookup of a rank on another host is a
 * direct-modex request through the launchers (see get_local_peer for the
 * ranks of its own host). Then it
 * prints one line:
 *   rank R/N host H lrank L lsize S lpeers P nodes M hosts H0,H1,... wireup ok pid X
 * where hosts lists PMIX_HOSTNAME of every rank. With TEST_SHM=1 each rank
 * also creates a POSIX shm object named with the job's prefix, as the shm
 * transport would, and prints "shm /dev/shm/NAME".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/shmname.h"

static pmix_proc_t me;
static uint32_t nprocs;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "rank %u: %s failed: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(3);
}

static pmix_value_t *get(pmix_rank_t rank, const char *key, int node_scope)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_info_t info;
    bool yes = true;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    PMIX_INFO_LOAD(&info, PMIX_NODE_INFO, &yes, PMIX_BOOL);
    rc = PMIx_Get(&p, key, node_scope ? &info : NULL, node_scope ? 1 : 0, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        char what[300];
        snprintf(what, sizeof(what), "PMIx_Get(%s) of rank %d", key, (int)rank);
        die(what, rc);
    }
    return v;
}

/* Whether rank is in the comma-separated list. */
static int in_list(const char *list, pmix_rank_t rank)
{
    for (const char *p = list; *p;) {
        if (strtoul(p, NULL, 10) == rank)
            return 1;
        p += strcspn(p, ",");
        p += *p == ',';
    }
    return 0;
}

/*
 * A local peer's key without any fence. libpmix 4.2's shared-memory store
 * (gds ds21) answers NOT-FOUND at once for a sibling that has not committed
 * yet instead of holding the request, so this is a race between the two
 * ranks, outside the launcher; keys of ranks on other hosts are what the
 * launcher's direct modex serves, and those must come on the first try.
 */
static pmix_value_t *get_local_peer(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;

    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    for (int i = 0; i < 200 && rc == PMIX_ERR_NOT_FOUND; i++) {
        if (i)
            usleep(50000);
        rc = PMIx_Get(&p, key, NULL, 0, &v);
    }
    if (rc != PMIX_SUCCESS) {
        char what[300];
        snprintf(what, sizeof(what), "PMIx_Get(%s) of local rank %d for 10 s", key, (int)rank);
        die(what, rc);
    }
    return v;
}

static void wireup(int fence)
{
    pmix_value_t val, *v;
    pmix_info_t info;
    char mine[300], want[300], hosts[4096] = "", host[256] = "", peers[1024] = "";
    unsigned lrank, lsize, nnodes;
    bool yes = true;
    size_t len = 0;
    pmix_status_t rc;

    v = get(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, 0);
    nprocs = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    v = get(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, 1);
    snprintf(peers, sizeof(peers), "%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
    snprintf(mine, sizeof(mine), "value-of-%u-in-%s", me.rank, me.nspace);
    PMIX_VALUE_LOAD(&val, mine, PMIX_STRING);
    if ((rc = PMIx_Put(PMIX_GLOBAL, "mn.key", &val)) != PMIX_SUCCESS)
        die("PMIx_Put", rc);
    PMIX_VALUE_DESTRUCT(&val);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        die("PMIx_Commit", rc);
    if (fence) {
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        if ((rc = PMIx_Fence(NULL, 0, &info, 1)) != PMIX_SUCCESS)
            die("PMIx_Fence", rc);
        PMIX_INFO_DESTRUCT(&info);
    }
    for (uint32_t r = 0; r < nprocs; r++) {
        uint32_t k = (me.rank + r) % nprocs; /* not all ranks asking rank 0 first */
        snprintf(want, sizeof(want), "value-of-%u-in-%s", k, me.nspace);
        v = !fence && k != me.rank && in_list(peers, k) ? get_local_peer(k, "mn.key")
                                                         : get(k, "mn.key", 0);
        if (v->type != PMIX_STRING || strcmp(v->data.string, want)) {
            fprintf(stderr, "rank %u: wrong mn.key of rank %u\n", me.rank, k);
            exit(3);
        }
        PMIX_VALUE_RELEASE(v);
    }
    for (uint32_t r = 0; r < nprocs; r++) {
        v = get(r, PMIX_HOSTNAME, 0);
        len += (size_t)snprintf(hosts + len, sizeof(hosts) - len, r ? ",%s" : "%s", v->data.string);
        if (r == me.rank)
            snprintf(host, sizeof(host), "%s", v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    v = get(me.rank, PMIX_LOCAL_RANK, 0);
    lrank = v->data.uint16;
    PMIX_VALUE_RELEASE(v);
    v = get(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, 1);
    lsize = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    v = get(PMIX_RANK_WILDCARD, PMIX_NUM_NODES, 0);
    nnodes = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    printf("rank %u/%u host %s lrank %u lsize %u lpeers %s nodes %u hosts %s wireup ok pid %d\n",
           me.rank, nprocs, host, lrank, lsize, peers, nnodes, hosts, (int)getpid());
    fflush(stdout);
}

static const char *find_rule(int argc, char **argv)
{
    char mine[32];
    const char *any = NULL;
    size_t len = (size_t)snprintf(mine, sizeof(mine), "%u:", me.rank);

    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], mine, len))
            return argv[i] + len;
        if (!any && !strncmp(argv[i], "*:", 2))
            any = argv[i] + 2;
    }
    return any ? any : "exit:0";
}

static void finish(int code)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        die("PMIx_Finalize", rc);
    exit(code);
}

static void create_shm(void)
{
    char prefix[300], name[400];
    int fd;

    uint8_t key[CORE_KEY_LEN];
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, CORE_JOB_KEY_PMIX, NULL, 0, &val) != PMIX_SUCCESS || !val ||
        val->type != PMIX_BYTE_OBJECT || val->data.bo.size != CORE_KEY_LEN) {
        fprintf(stderr, "rank %u: no job key (%s) in the job data\n", me.rank, CORE_JOB_KEY_PMIX);
        exit(6);
    }
    memcpy(key, val->data.bo.bytes, CORE_KEY_LEN);
    PMIX_VALUE_RELEASE(val);
    core_shm_job_prefix(prefix, sizeof(prefix), me.nspace, key);
    snprintf(name, sizeof(name), "/%stest%u", prefix, me.rank);
    fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, 4096)) {
        fprintf(stderr, "rank %u: shm_open %s: %s\n", me.rank, name, strerror(errno));
        exit(6);
    }
    close(fd);
    printf("rank %u shm /dev/shm%s\n", me.rank, name);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);

    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 3;
    }
    const char *rule = find_rule(argc, argv);
    const char *arg = strchr(rule, ':');
    int n = arg ? atoi(arg + 1) : 0;
    size_t alen = arg ? (size_t)(arg - rule) : strlen(rule);
#define IS(name) (alen == strlen(name) && !strncmp(rule, name, alen))

    wireup(!IS("dmodex"));
    if (getenv("TEST_SHM") && !strcmp(getenv("TEST_SHM"), "1"))
        create_shm();
    if (IS("exit") || IS("dmodex")) {
        finish(n);
    } else if (IS("abort")) {
        PMIx_Abort(n, "test abort", NULL, 0);
        sleep(10);
        return 99;
    } else if (IS("kill-self")) {
        kill(getpid(), n);
        sleep(10);
        return 98;
    } else if (IS("sleep")) {
        for (int i = 0; i < n * 20; i++)
            usleep(50000);
    } else if (IS("print")) {
        for (int k = 0; k < n; k++) {
            printf("line %d of rank %u\n", k, me.rank);
            fprintf(stderr, "err %d of rank %u\n", k, me.rank);
        }
    } else if (IS("check-env")) {
        const char *x = getenv("TEST_XVAR"), *y = getenv("TEST_YVAR");
        const char *l = getenv("MPI_LOCALRANKID"), *s = getenv("MPI_LOCALNRANKS");
        printf("rank %u env TEST_XVAR=%s TEST_YVAR=%s MPI_LOCALRANKID=%s MPI_LOCALNRANKS=%s\n",
               me.rank, x ? x : "(unset)", y ? y : "(unset)", l ? l : "(unset)", s ? s : "(unset)");
    } else if (IS("gate")) {
        /* waits for the file $TEST_GATE (at most 90 s), then fences across the job once
         * more: the daemon tree still carries the job after whatever happened meanwhile */
        const char *gate = getenv("TEST_GATE");
        bool yes = true;
        pmix_info_t info;
        for (int i = 0; gate && i < 1800 && access(gate, F_OK); i++)
            usleep(50000);
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &info, 1);
        printf("rank %u gate %s\n", me.rank, rc == PMIX_SUCCESS ? "fence ok" : PMIx_Error_string(rc));
    } else if (IS("lookup")) {
        char path[600];
        FILE *f;
        long k = 0;
        snprintf(path, sizeof(path), "%s.%u", getenv("TEST_OUT") ? getenv("TEST_OUT") : "/dev/null",
                 me.rank);
        signal(SIGTERM, SIG_IGN);
        do {
            pmix_pdata_t pd;
            PMIX_PDATA_CONSTRUCT(&pd);
            PMIX_LOAD_KEY(pd.key, "mn-never-published");
            rc = PMIx_Lookup(&pd, 1, NULL, 0);
            PMIX_PDATA_DESTRUCT(&pd);
            if (++k == 10 && (f = fopen(path, "w"))) {
                fprintf(f, "looking\n");
                fclose(f);
            }
        } while (rc == PMIX_ERR_NOT_FOUND);
        if ((f = fopen(path, "a"))) {
            fprintf(f, "rank %u lookup %ld ended: %s\n", me.rank, k, PMIx_Error_string(rc));
            fclose(f);
        }
        _exit(0);
    } else if (IS("read-stdin")) {
        char buf[256];
        ssize_t got = read(STDIN_FILENO, buf, sizeof(buf) - 1);
        buf[got > 0 ? got : 0] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        printf("rank %u stdin read %zd: %s\n", me.rank, got, buf);
    } else {
        fprintf(stderr, "rank %u: unknown action '%s'\n", me.rank, rule);
        finish(2);
    }
    fflush(stdout);
    finish(0);
    return 0;
}
