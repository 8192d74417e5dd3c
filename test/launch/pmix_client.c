/*
 * Test rank for rdmpirun: a minimal PMIx client that checks the wire-up
 * (Init, Put/Commit, Fence with PMIX_COLLECT_DATA, Get of every peer's key
 * and hostname) and then does what the command line tells its rank to do.
 *
 * Usage: pmix_client [WHO:ACTION[:ARG]]...   (other arguments are ignored,
 * so a test can add a unique marker to find its processes with pgrep)
 *   WHO is a rank number or '*' (every rank without a rule of its own).
 *   ACTION: exit:N, abort:N, kill-self:SIG, sleep:S, trap-sleep:S,
 *           exit-without-finalize, print:N, create-shm, check-env,
 *           read-stdin, affinity, late-finalize:MS (creates the file named by
 *           RDMPI_TEST_SLOW_MARK, waits MS ms, then finalizes: slowserver.c).
 *           Default: finalize and exit 0.
 * Prints "rank R/N wireup ok pid P" after a successful fence and lookup.
 * With TEST_SHM=1 in the environment every rank first creates a POSIX shm
 * object named with the job's prefix (core_shm_job_prefix), as the shm
 * transport would, so that a test can check rdmpirun removes it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pmix.h>
#include <sched.h>
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
static volatile sig_atomic_t stop_sig;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "rank %u: %s failed: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(3);
}

static pmix_value_t *get(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        die(key, rc);
    return v;
}

static void wireup(void)
{
    pmix_value_t val, *v;
    pmix_info_t info;
    char mine[512], want[512];
    bool yes = true;
    pmix_status_t rc;

    v = get(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    nprocs = v->data.uint32;
    PMIX_VALUE_RELEASE(v);

    snprintf(mine, sizeof(mine), "value-of-%u-in-%s", me.rank, me.nspace);
    PMIX_VALUE_LOAD(&val, mine, PMIX_STRING);
    if ((rc = PMIx_Put(PMIX_GLOBAL, "test.key", &val)) != PMIX_SUCCESS)
        die("PMIx_Put", rc);
    PMIX_VALUE_DESTRUCT(&val);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        die("PMIx_Commit", rc);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if ((rc = PMIx_Fence(NULL, 0, &info, 1)) != PMIX_SUCCESS)
        die("PMIx_Fence", rc);
    PMIX_INFO_DESTRUCT(&info);

    for (uint32_t r = 0; r < nprocs; r++) {
        snprintf(want, sizeof(want), "value-of-%u-in-%s", r, me.nspace);
        v = get(r, "test.key");
        if (v->type != PMIX_STRING || strcmp(v->data.string, want)) {
            fprintf(stderr, "rank %u: wrong test.key of rank %u\n", me.rank, r);
            exit(3);
        }
        PMIX_VALUE_RELEASE(v);
        v = get(r, PMIX_HOSTNAME);
        PMIX_VALUE_RELEASE(v);
    }
    v = get(me.rank, PMIX_LOCAL_RANK);
    if (v->data.uint16 != me.rank) {
        fprintf(stderr, "rank %u: PMIX_LOCAL_RANK is %u\n", me.rank, v->data.uint16);
        exit(3);
    }
    PMIX_VALUE_RELEASE(v);
    printf("rank %u/%u wireup ok pid %d\n", me.rank, nprocs, (int)getpid());
    fflush(stdout);
}

/* Finds this rank's rule: its own number first, then '*'. */
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

static void on_signal(int sig)
{
    char msg[64];
    int n = snprintf(msg, sizeof(msg), "rank %u got signal %d\n", me.rank, sig);
    if (write(STDOUT_FILENO, msg, (size_t)n) < 0)
        return;
    if (sig == SIGTERM || sig == SIGINT)
        stop_sig = sig;
}

static void nap(double seconds)
{
    double end = seconds;
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 50 * 1000 * 1000};

    while (end > 0 && !stop_sig) {
        nanosleep(&ts, NULL);
        end -= 0.05;
    }
}

static void print_lines(int n)
{
    for (int k = 0; k < n; k++) {
        /* Each line in three writes, to give other ranks a chance to cut in. */
        for (int fd = 1; fd <= 2; fd++) {
            char a[64], b[64];
            int la = snprintf(a, sizeof(a), "line %d of rank %u", k, me.rank);
            int lb = snprintf(b, sizeof(b), " on fd %d end", fd);
            if (write(fd, a, (size_t)la) < 0 || (usleep(300), write(fd, b, (size_t)lb)) < 0 ||
                write(fd, "\n", 1) < 0)
                exit(5);
        }
    }
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
    printf("rank %u created /dev/shm%s\n", me.rank, name);
    fflush(stdout);
}

static int check_env(void)
{
    const char *keys[] = {"MPI_LOCALRANKID", "LOCAL_RANK", "MPI_LOCALNRANKS", "RDMPI_LAUNCHER"};
    char want[4][32];
    int bad = 0;

    snprintf(want[0], sizeof(want[0]), "%u", me.rank);
    snprintf(want[1], sizeof(want[1]), "%u", me.rank);
    snprintf(want[2], sizeof(want[2]), "%u", nprocs);
    snprintf(want[3], sizeof(want[3]), "rdmpirun");
    for (int i = 0; i < 4; i++) {
        const char *v = getenv(keys[i]);
        if (!v || strcmp(v, want[i])) {
            printf("rank %u env %s=%s, expected %s\n", me.rank, keys[i], v ? v : "(unset)", want[i]);
            bad = 1;
        }
    }
    const char *x = getenv("TEST_XVAR");
    printf("rank %u env %s TEST_XVAR=%s\n", me.rank, bad ? "BAD" : "ok", x ? x : "(unset)");
    return bad ? 4 : 0;
}

static void read_stdin(void)
{
    char buf[256];
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf) - 1);

    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    printf("rank %u stdin read %zd: %s\n", me.rank, n, buf);
}

static void affinity(void)
{
    cpu_set_t set;
    char list[1024];
    size_t len = 0;

    list[0] = '\0';
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int c = 0; c < CPU_SETSIZE && len < sizeof(list) - 8; c++)
            if (CPU_ISSET(c, &set))
                len += (size_t)snprintf(list + len, sizeof(list) - len, len ? ",%d" : "%d", c);
    printf("rank %u cpus %s\n", me.rank, list);
}

int main(int argc, char **argv)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);

    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 3;
    }
    wireup();
    if (getenv("TEST_SHM") && !strcmp(getenv("TEST_SHM"), "1"))
        create_shm();

    const char *rule = find_rule(argc, argv);
    const char *arg = strchr(rule, ':');
    int n = arg ? atoi(arg + 1) : 0;
    size_t alen = arg ? (size_t)(arg - rule) : strlen(rule);
#define IS(name) (alen == strlen(name) && !strncmp(rule, name, alen))

    if (IS("exit")) {
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
        nap(n);
    } else if (IS("trap-sleep")) {
        signal(SIGTERM, on_signal);
        signal(SIGINT, on_signal);
        signal(SIGUSR1, on_signal);
        signal(SIGRTMIN + 3, on_signal);
        nap(n);
    } else if (IS("exit-without-finalize")) {
        exit(0);
    } else if (IS("print")) {
        print_lines(n);
    } else if (IS("create-shm")) {
        create_shm();
        kill(getpid(), SIGKILL);
    } else if (IS("check-env")) {
        fflush(stdout);
        finish(check_env());
    } else if (IS("read-stdin")) {
        read_stdin();
    } else if (IS("affinity")) {
        affinity();
    } else if (IS("late-finalize")) {
        const char *mark = getenv("RDMPI_TEST_SLOW_MARK");
        FILE *f = mark ? fopen(mark, "w") : NULL;
        if (!f) {
            fprintf(stderr, "rank %u: cannot create RDMPI_TEST_SLOW_MARK\n", me.rank);
            finish(2);
        }
        fclose(f);
        usleep((useconds_t)n * 1000);
    } else {
        fprintf(stderr, "rank %u: unknown action '%s'\n", me.rank, rule);
        finish(2);
    }
    fflush(stdout);
    finish(0);
    return 0;
}
