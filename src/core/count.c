/*
 * The shards of the counters (core/count.h): the registry of blocks, each thread's shard,
 * and the sums MPI_T reads.
 */
#include <pthread.h>
#include <stdlib.h>
#include "core/count.h"

core_counts_t core_counts;
_Thread_local core_count_shard_t *core_count_mine __attribute__((tls_model("initial-exec")));

/* Registration and unregistration (rare: a runtime's init and finalize, an interface's open
 * and close). */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static int key_ok;

/* At a counting thread's exit: its shard, counts and all, goes to the next new thread. */
static void shard_release(void *p)
{
    core_count_shard_t *s = p;
    __atomic_store_n(&s->free_, 1, __ATOMIC_RELEASE);
}

static void make_key(void)
{
    key_ok = pthread_key_create(&key, shard_release) == 0;
}

core_count_shard_t *core_count_shard_get(void)
{
    (void)pthread_once(&key_once, make_key);
    core_count_shard_t *s;
    /* Adopt a shard whose thread exited (acquire: its last counts come with it). */
    for (s = __atomic_load_n(&core_counts.shards, __ATOMIC_ACQUIRE); s; s = s->next) {
        int one = 1;
        if (__atomic_load_n(&s->free_, __ATOMIC_RELAXED) &&
            __atomic_compare_exchange_n(&s->free_, &one, 0, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            break;
    }
    if (!s) {
        /* Without a key its exit could not hand the shard on: counted locked instead. */
        if (!key_ok || !(s = calloc(1, sizeof(*s))))
            return NULL;
        core_count_shard_t *head = __atomic_load_n(&core_counts.shards, __ATOMIC_RELAXED);
        do
            s->next = head;
        while (!__atomic_compare_exchange_n(&core_counts.shards, &head, s, 1, __ATOMIC_RELEASE,
                                            __ATOMIC_RELAXED));
    }
    if (pthread_setspecific(key, s) != 0) {
        __atomic_store_n(&s->free_, 1, __ATOMIC_RELEASE);
        return NULL;
    }
    core_count_mine = s;
    return s;
}

static void zero_words(uint32_t off, uint32_t n)
{
    for (core_count_shard_t *s = __atomic_load_n(&core_counts.shards, __ATOMIC_ACQUIRE); s;
         s = s->next)
        for (uint32_t i = 0; i < n; i++)
            __atomic_store_n(&s->w[off + i], 0, __ATOMIC_RELAXED);
}

int core_count_register(uint64_t *base, size_t n)
{
    int rc = -1;
    pthread_mutex_lock(&reg_lock);
    int nblk = __atomic_load_n(&core_counts.nblk, __ATOMIC_RELAXED);
    for (int i = 0; i < nblk; i++) {
        core_count_block_t *b = &core_counts.blk[i];
        if (!__atomic_load_n(&b->base, __ATOMIC_RELAXED) && b->words == n) {
            zero_words(b->off, b->words);
            __atomic_store_n(&b->base, base, __ATOMIC_RELEASE);
            rc = 0;
            goto out;
        }
    }
    if (nblk < CORE_COUNT_BLOCKS && n <= CORE_COUNT_WORDS - core_counts.used) {
        core_count_block_t *b = &core_counts.blk[nblk];
        b->words = (uint32_t)n;
        b->off = core_counts.used;
        core_counts.used += (uint32_t)n;
        zero_words(b->off, b->words);
        __atomic_store_n(&b->base, base, __ATOMIC_RELAXED);
        /* release: a thread that sees the entry sees its size and offset */
        __atomic_store_n(&core_counts.nblk, nblk + 1, __ATOMIC_RELEASE);
        rc = 0;
    }
out:
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

void core_count_unregister(uint64_t *base)
{
    pthread_mutex_lock(&reg_lock);
    int nblk = __atomic_load_n(&core_counts.nblk, __ATOMIC_RELAXED);
    for (int i = 0; i < nblk; i++)
        if (__atomic_load_n(&core_counts.blk[i].base, __ATOMIC_RELAXED) == base)
            __atomic_store_n(&core_counts.blk[i].base, NULL, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&reg_lock);
}

void core_count_add_shared(uint64_t *c, uint64_t n)
{
    uint64_t *mine = core_count_slot(c);
    if (mine)
        core_count_bump(mine, n);
    else
        __atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

void core_count_add2_shared(uint64_t *c, uint64_t n, uint64_t *d, uint64_t m)
{
    uint64_t *mine = core_count_slot(c);
    if (mine) {
        core_count_bump(mine, n);
        core_count_bump(mine + (d - c), m);
    } else {
        __atomic_fetch_add(c, n, __ATOMIC_RELAXED);
        __atomic_fetch_add(d, m, __ATOMIC_RELAXED);
    }
}

uint64_t core_count_read(const uint64_t *c)
{
    uint64_t v = core_count_get(c);
    int n = __atomic_load_n(&core_counts.nblk, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        const core_count_block_t *b = &core_counts.blk[i];
        const uint64_t *base = __atomic_load_n(&b->base, __ATOMIC_ACQUIRE);
        if (base && c >= base && c < base + b->words) {
            size_t w = b->off + (size_t)(c - base);
            for (core_count_shard_t *s = __atomic_load_n(&core_counts.shards, __ATOMIC_ACQUIRE);
                 s; s = s->next)
                v += __atomic_load_n(&s->w[w], __ATOMIC_RELAXED);
            break;
        }
    }
    return v;
}
