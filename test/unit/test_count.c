/*
 * Unit test of the counters' per-thread shards (core/count.h): threads bumping the
 * counters of one block at once lose nothing (each its own shard, summed by the reader);
 * a thread that exits hands its shard, counts included, to the next new thread, so the
 * shards are as many as the threads that counted at once; a block registered in place of
 * an unregistered one starts from zero; a block without room in the shards takes locked
 * increments and still counts right.
 */
#include <pthread.h>
#include <stdio.h>
#include "core/count.h"

static int failures;
#define CHECK(name, cond)                                                      \
    do {                                                                       \
        if (cond)                                                              \
            printf("PASS: unit/count/%s\n", name);                             \
        else {                                                                 \
            printf("FAIL: unit/count/%s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond); \
            failures++;                                                        \
        }                                                                      \
    } while (0)

#define THREADS 4
#define ROUNDS 200000

typedef struct { uint64_t msgs, bytes, other; } block_t;

static block_t blk, big[40];
static pthread_barrier_t start;

static void *bump(void *arg)
{
    block_t *b = arg;
    pthread_barrier_wait(&start);
    core_count_add_as(&b->other, 0, 1);
    /* every thread has its shard before any exits (an exited one's would be adopted) */
    pthread_barrier_wait(&start);
    for (int i = 0; i < ROUNDS; i++) {
        core_count_add2_as(&b->msgs, 1, &b->bytes, 8, 1);
        if (i % 2)
            core_count_add_as(&b->other, 1, 1);
    }
    return NULL;
}

static void run(block_t *b, int n)
{
    pthread_t t[THREADS];
    pthread_barrier_init(&start, NULL, (unsigned)n);
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, bump, b);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
}

static int nshards(void)
{
    int n = 0;
    for (core_count_shard_t *s = core_counts.shards; s; s = s->next)
        n++;
    return n;
}

int main(void)
{
    CHECK("a block registers", core_count_register(&blk.msgs, 3) == 0);
    /* counted without threads sharing objects: in the block itself */
    core_count_add_as(&blk.msgs, 5, 0);
    run(&blk, THREADS);
    CHECK("no message lost", core_count_read(&blk.msgs) == 5 + (uint64_t)THREADS * ROUNDS);
    CHECK("no byte lost", core_count_read(&blk.bytes) == (uint64_t)THREADS * ROUNDS * 8);
    CHECK("a lone counter too", core_count_read(&blk.other) == (uint64_t)THREADS * (ROUNDS / 2));
    CHECK("the block's own words stay unlocked", core_count_get(&blk.msgs) == 5);
    int had = nshards();
    CHECK("a shard per counting thread", had == THREADS);
    /* the exited threads' shards are adopted, and what they counted still counts */
    run(&blk, 2);
    CHECK("exited threads' shards are reused", nshards() == had);
    CHECK("adopted shards keep their counts",
          core_count_read(&blk.msgs) == 5 + (uint64_t)(THREADS + 2) * ROUNDS);
    /* another block of the same size in its place starts from zero */
    core_count_unregister(&blk.msgs);
    static block_t again;
    CHECK("a block registers in a freed entry", core_count_register(&again.msgs, 3) == 0);
    CHECK("it starts from zero", core_count_read(&again.msgs) == 0);
    run(&again, 2);
    CHECK("and counts", core_count_read(&again.bytes) == 2ull * ROUNDS * 8);
    /* more blocks than the shards hold: the rest count with locked increments */
    int refused = 0;
    for (int i = 0; i < 40; i++)
        refused += core_count_register(&big[i].msgs, 3) != 0;
    CHECK("blocks beyond the shards' room are refused", refused > 0);
    run(&big[39], THREADS);
    CHECK("a refused block counts all the same",
          core_count_read(&big[39].msgs) == (uint64_t)THREADS * ROUNDS &&
              core_count_get(&big[39].msgs) == (uint64_t)THREADS * ROUNDS);
    return failures != 0;
}
