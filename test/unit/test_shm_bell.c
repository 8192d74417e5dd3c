/*
 * Unit test of the shm doorbell protocol (transports/shm/shm_bell.h) with
 * the shm ring, between two processes over an anonymous shared mapping.
 *
 * The lost-wake race: the producer publishes a record, then rings (fence,
 * look at the bell); the consumer, finding its ring empty, arms the bell
 * (flag, fence), looks at the ring once more and only then waits. The
 * producer pauses at random between records so the consumer often goes to
 * sleep just as a record lands. Every wait is bounded (2 s here): a wait
 * that ends by its timeout while a record was there is a lost wake and
 * fails the test. Also: a bogus bell value (what a broken peer may write)
 * neither makes the sleeper hang nor the sender wake anyone.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "transports/shm/shm_bell.h"
#include "transports/shm/shm_ring.h"

#define RING 4096
#define RECORDS 4000
#define WAIT_LIMIT 2.0 /* seconds: a sleep this long means the wake was lost */

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: unit/shm_bell ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    exit(1);
}

#define CHECK(cond, ...)       \
    do {                       \
        if (!(cond))           \
            fail(__VA_ARGS__); \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct shared {
    _Alignas(64) _Atomic uint32_t bell;
    _Alignas(64) _Atomic uint64_t woken; /* rings that woke the consumer */
    _Alignas(64) unsigned char ring[TP_SHM_RING_CTRL + RING];
} shared_t;

/* Pushes one record, waits until it is consumed, pauses from none to ~200 us
 * so the consumer often arms its bell right as the next record lands. */
static void producer(shared_t *sh, int light)
{
    tp_shm_prod_t p;
    /* Never outlive a consumer that failed. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1 || tp_shm_prod_init(&p, sh->ring, RING) != 0)
        _exit(2);
    unsigned seed = 12345;
    for (uint64_t i = 1; i <= RECORDS; i++) {
        while (tp_shm_ring_push(&p, 1, NULL, 0, &i, sizeof(i)) == CORE_EBUSY)
            ;
        if (light ? tp_shm_bell_ring_light(&sh->bell) : tp_shm_bell_ring(&sh->bell))
            atomic_fetch_add(&sh->woken, 1);
        /* One record at a time: a lost wake is then never rescued by the next ring. */
        for (int k = 0; !tp_shm_ring_drained(&p); k++)
            if (k > 1000)
                sched_yield();
        unsigned r = (unsigned)rand_r(&seed) % 8;
        if (r == 0)
            usleep((useconds_t)(rand_r(&seed) % 200));
        else if (r == 1)
            for (volatile int k = rand_r(&seed) % 2000; k > 0; k--)
                ;
    }
    _exit(0);
}

/* light: the producer rings without a fence (registered for the global expedited
 * membarrier, as shm_iface.c's senders are), the consumer calls the membarrier after arming. */
static void race(int light)
{
    shared_t *sh = mmap(NULL, sizeof(shared_t), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sh != MAP_FAILED, "mmap");
    memset(sh, 0, sizeof(*sh));
    CHECK(tp_shm_ring_init(sh->ring, RING) == 0, "ring init");
    tp_shm_cons_t c;
    CHECK(tp_shm_cons_init(&c, sh->ring, RING) == 0, "consumer init");
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        if (light && tp_shm_bell_light_init() != 0)
            _exit(3);
        producer(sh, light);
    }
    uint64_t next = 1, sleeps = 0, rechecks = 0;
    unsigned seed = 777;
    double longest = 0;
    while (next <= RECORDS) {
        tp_shm_rec_t rec;
        int rc = tp_shm_ring_peek(&c, &rec, NULL);
        CHECK(rc >= 0, "malformed record");
        if (rc == 1) {
            uint64_t v;
            CHECK(rec.len == sizeof(v), "record length %zu", rec.len);
            memcpy(&v, rec.payload, sizeof(v));
            CHECK(v == next, "record %llu where %llu was due", (unsigned long long)v,
                  (unsigned long long)next);
            tp_shm_ring_release(&c);
            next++;
            continue;
        }
        /* Widen the window between finding the ring empty and arming: a record that lands
         * in it must be caught by the recheck below, or it is never rung for. */
        if ((rand_r(&seed) & 3) == 0)
            for (volatile int k = rand_r(&seed) % 20000; k > 0; k--)
                ;
        tp_shm_bell_arm(&sh->bell);
        CHECK(!light || tp_shm_bell_light_sleep() == 0, "membarrier failed");
        if (!tp_shm_ring_empty(&c)) {
            tp_shm_bell_clear(&sh->bell);
            rechecks++;
            continue;
        }
        double t0 = now();
        tp_shm_bell_wait(&sh->bell, WAIT_LIMIT);
        double t = now() - t0;
        tp_shm_bell_clear(&sh->bell);
        sleeps++;
        longest = t > longest ? t : longest;
        /* The producer never pauses for more than a fraction of the limit. */
        CHECK(t < WAIT_LIMIT * 0.9, "lost wake: slept %.3f s with record %llu due", t,
              (unsigned long long)next);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "producer failed");
    CHECK(sleeps > 0, "the consumer never slept: the race was not exercised");
    printf("PASS: unit/shm_bell_race%s (%d records, %llu sleeps, %llu woken by the producer, "
           "%llu caught by the recheck, longest sleep %.1f ms)\n",
           light ? "_light" : "", RECORDS, (unsigned long long)sleeps, (unsigned long long)atomic_load(&sh->woken),
           (unsigned long long)rechecks, longest * 1e3);
    munmap(sh, sizeof(*sh));
}

/* What a broken or hostile peer may leave in the bell. */
static void bogus(void)
{
    _Atomic uint32_t bell;
    uint32_t values[] = { 2, 7, 0xffffffffu, 0x80000000u };
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        atomic_store(&bell, values[i]);
        double t0 = now();
        tp_shm_bell_wait(&bell, 1.0); /* not ASLEEP: returns at once */
        CHECK(now() - t0 < 0.5, "a bell holding 0x%x kept the sleeper", values[i]);
        CHECK(tp_shm_bell_ring(&bell) == 0, "a bell holding 0x%x was rung", values[i]);
        CHECK(atomic_load(&bell) == values[i], "ringing changed a bogus bell");
    }
    /* Armed but never rung: the wait ends by its bound. */
    tp_shm_bell_arm(&bell);
    double t0 = now();
    tp_shm_bell_wait(&bell, 0.05);
    double t = now() - t0;
    CHECK(t >= 0.04 && t < 1.0, "a bounded wait of 50 ms took %.3f s", t);
    /* Awake: ringing costs no wake and leaves the bell alone. */
    tp_shm_bell_clear(&bell);
    CHECK(tp_shm_bell_ring(&bell) == 0 && atomic_load(&bell) == TP_SHM_BELL_AWAKE,
          "ringing an awake bell");
    /* Asleep: one ring wakes and resets it, a second finds it awake. */
    tp_shm_bell_arm(&bell);
    CHECK(tp_shm_bell_ring(&bell) == 1 && atomic_load(&bell) == TP_SHM_BELL_AWAKE,
          "ringing a sleeping bell");
    CHECK(tp_shm_bell_ring(&bell) == 0, "a second ring");
    /* The fenceless ring does the same. */
    CHECK(tp_shm_bell_ring_light(&bell) == 0 && atomic_load(&bell) == TP_SHM_BELL_AWAKE,
          "ringing an awake bell (light)");
    tp_shm_bell_arm(&bell);
    CHECK(tp_shm_bell_ring_light(&bell) == 1 && atomic_load(&bell) == TP_SHM_BELL_AWAKE,
          "ringing a sleeping bell (light)");
    atomic_store(&bell, 7);
    CHECK(tp_shm_bell_ring_light(&bell) == 0 && atomic_load(&bell) == 7,
          "a bogus bell was rung (light)");
    printf("PASS: unit/shm_bell_bogus\n");
}

/* The two orders of the race, one step at a time in one process. */
static void orders(void)
{
    static _Alignas(64) unsigned char mem[TP_SHM_RING_CTRL + 256];
    _Atomic uint32_t bell = TP_SHM_BELL_AWAKE;
    tp_shm_prod_t p;
    tp_shm_cons_t c;
    uint64_t v = 1;
    CHECK(tp_shm_ring_init(mem, 256) == 0 && tp_shm_prod_init(&p, mem, 256) == 0 &&
          tp_shm_cons_init(&c, mem, 256) == 0, "ring init");
    /* The record lands between the sleeper's empty look and its arming: the sender saw it
     * awake and rang nobody, so the sleeper's second look must find the record. */
    CHECK(tp_shm_ring_empty(&c), "fresh ring not empty");
    CHECK(tp_shm_ring_push(&p, 1, NULL, 0, &v, sizeof(v)) == 0, "push");
    CHECK(tp_shm_bell_ring(&bell) == 0, "rang an awake bell");
    tp_shm_bell_arm(&bell);
    CHECK(!tp_shm_ring_empty(&c), "the recheck after arming missed the record");
    tp_shm_bell_clear(&bell);
    tp_shm_rec_t rec;
    CHECK(tp_shm_ring_peek(&c, &rec, NULL) == 1, "peek");
    tp_shm_ring_release(&c);
    /* The record lands after the arming: the sender rings, resetting the bell, so the wait
     * returns at once. */
    tp_shm_bell_arm(&bell);
    CHECK(tp_shm_ring_empty(&c), "ring not empty");
    CHECK(tp_shm_ring_push(&p, 1, NULL, 0, &v, sizeof(v)) == 0, "push");
    CHECK(tp_shm_bell_ring(&bell) == 1, "a sleeping bell was not rung");
    double t0 = now();
    tp_shm_bell_wait(&bell, 5.0);
    CHECK(now() - t0 < 1.0, "the wait after a ring slept");
    printf("PASS: unit/shm_bell_orders\n");
}

int main(void)
{
    alarm(120);
    orders();
    bogus();
    race(0);
    /* The kernel may not offer the membarrier (then shm_iface.c fences, as race(0)). */
    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (q >= 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED))
        race(1);
    else
        printf("SKIP: unit/shm_bell_race_light (no global expedited membarrier)\n");
    return 0;
}
