/*
 * Memory that changes under a registration: a transport that caches RDMA
 * registrations must never reuse a key for pages that were freed, unmapped,
 * discarded or moved, even when the new memory has the same address. Over
 * verbs (rendezvous by RDMA read), a stale key reads the OLD pages (or the
 * write lands in them) and the data is wrong without any error.
 *
 * Ranks 0 and 1 exchange rendezvous-sized messages (64 KiB + 1 .. 4 MiB)
 * in rounds; between rounds the buffer on both sides (the sender's, read
 * remotely; the receiver's, written locally) is replaced at the same
 * address, with new content:
 *   malloc   free + malloc of the same size (glibc mmaps and munmaps such
 *            blocks: the address often comes back; reported, not required)
 *   mmap     munmap + mmap(MAP_FIXED) at the same address (always reused)
 *   madvise  MADV_DONTNEED on a private mapping: new zero pages, same address
 *   realloc  realloc to twice the size and back
 *   bigmalloc free + malloc of 40 MiB: above glibc's largest mmap threshold,
 *            so free() always unmaps it (inside glibc, not through the
 *            application's munmap) and the next malloc usually gets the
 *            same address
 *   heap     free + malloc of 1 MiB from the brk heap (mmap threshold
 *            raised, trim threshold lowered): free() shrinks the heap with
 *            brk when the block is on top, malloc grows it back
 * Every round checks every byte. With one rank the messages go to self;
 * other ranks only wait. Where verbs does not carry the messages between ranks 0 and 1 (shm,
 * tcp or self does, or another MPI runs it), no registration is made: the program says SKIP.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

static const size_t sizes[] = { (64u << 10) + 1, 1u << 20, (4u << 20) - 3 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
static const size_t big_size[] = { 40u << 20 };
static const size_t heap_size[] = { 1u << 20 };

typedef enum { K_MALLOC, K_MMAP, K_MADVISE, K_REALLOC, K_BIGMALLOC, K_HEAP, K_END } kind_t;
static const char *const kind_name[] = { "malloc", "mmap", "madvise", "realloc", "bigmalloc",
                                         "heap" };

static const size_t *kind_sizes(kind_t k, size_t *n)
{
    if (k == K_BIGMALLOC) {
        *n = 1;
        return big_size;
    }
    if (k == K_HEAP) {
        *n = 1;
        return heap_size;
    }
    *n = NSIZES;
    return sizes;
}

static int is_malloc(kind_t k)
{
    return k == K_MALLOC || k == K_REALLOC || k == K_BIGMALLOC || k == K_HEAP;
}

typedef struct buf {
    unsigned char *p;
    size_t len, maplen;
} buf_t;

static size_t page_round(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

static void buf_new(buf_t *b, kind_t k, size_t len)
{
    b->len = len;
    b->maplen = page_round(len);
    if (is_malloc(k)) {
        b->p = malloc(len);
        CHECK(b->p, "cannot allocate %zu bytes", len);
    } else {
        b->p = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(b->p != MAP_FAILED, "mmap of %zu bytes failed", b->maplen);
    }
}

/* Replaces the memory behind b; returns 1 when the address stayed the same. */
static int buf_replace(buf_t *b, kind_t k)
{
    unsigned char *old = b->p;
    switch (k) {
    case K_MALLOC:
    case K_BIGMALLOC:
    case K_HEAP:
        free(b->p);
        b->p = malloc(b->len);
        CHECK(b->p, "cannot allocate %zu bytes", b->len);
        break;
    case K_MMAP:
        CHECK(munmap(b->p, b->maplen) == 0, "munmap failed");
        b->p = mmap(old, b->maplen, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        CHECK(b->p == old, "mmap(MAP_FIXED) at %p failed", (void *)old);
        break;
    case K_MADVISE:
        CHECK(madvise(b->p, b->maplen, MADV_DONTNEED) == 0, "madvise(MADV_DONTNEED) failed");
        CHECK(b->p[0] == 0 && b->p[b->len - 1] == 0, "discarded pages are not zero");
        break;
    case K_REALLOC: {
        unsigned char *q = realloc(b->p, 2 * b->len);
        CHECK(q, "cannot reallocate %zu bytes", 2 * b->len);
        memset(q, 0xee, 2 * b->len); /* the old pages' content is gone either way */
        b->p = realloc(q, b->len);
        CHECK(b->p, "cannot reallocate %zu bytes", b->len);
        break;
    }
    default:
        break;
    }
    return b->p == old;
}

static void buf_free(buf_t *b, kind_t k)
{
    if (is_malloc(k))
        free(b->p);
    else
        munmap(b->p, b->maplen);
    b->p = NULL;
}

/* Content of round gen: differs between rounds at every position that matters. */
static int who(int rank, int gen)
{
    return rank + 1000 * gen;
}

/* One message of b->len bytes from 'from' to 'to' (either may be this rank). */
static void exchange(int from, int to, buf_t *sb, buf_t *rb, int gen, const char *what)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Status st;
    if (t_rank != from && t_rank != to)
        return;
    size_t n = sb ? sb->len : rb->len;
    if (t_rank == to) {
        memset(rb->p, 0xa5, n);
        MPI_Irecv(rb->p, (int)n, MPI_BYTE, from, gen, MPI_COMM_WORLD, &rq);
    }
    if (t_rank == from) {
        t_fill(sb->p, who(from, gen), n);
        MPI_Send(sb->p, (int)n, MPI_BYTE, to, gen, MPI_COMM_WORLD);
    }
    if (t_rank == to) {
        MPI_Wait(&rq, &st);
        CHECK_STATUS(st, from, gen, MPI_BYTE, n);
        size_t bad = t_verify(rb->p, who(from, gen), n);
        if (bad < n && t_verify(rb->p, who(from, gen - 1), n) == n)
            t_fail(__FILE__, __LINE__,
                   "%s, %zu bytes, round %d: the receiver got the PREVIOUS round's data "
                   "(a stale registration of the sender's replaced buffer)", what, n, gen);
        CHECK(bad == n, "%s, %zu bytes, round %d: byte %zu is 0x%02x, expected 0x%02x", what, n,
              gen, bad, rb->p[bad], t_pattern(who(from, gen), n, bad));
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int from = 0, to = t_size > 1 ? 1 : 0;
    int reused[K_END] = { 0 }, rounds = 3;
    int other = t_rank == from ? to : from;
    t_begin("transport");
    t_require_transport("verbs", &other, t_rank == from || t_rank == to ? 1 : 0);
    for (kind_t k = K_MALLOC; k < K_END; k++) {
        t_begin(kind_name[k]);
        size_t nsizes;
        const size_t *ksizes = kind_sizes(k, &nsizes);
        if (k == K_HEAP) {
            mallopt(M_MMAP_THRESHOLD, 64 << 20);
            mallopt(M_TRIM_THRESHOLD, 128 << 10);
        }
        for (size_t i = 0; i < nsizes; i++) {
            buf_t sb = { 0 }, rb = { 0 };
            int me_send = t_rank == from, me_recv = t_rank == to;
            if (me_send)
                buf_new(&sb, k, ksizes[i]);
            if (me_recv)
                buf_new(&rb, k, ksizes[i]);
            for (int gen = 1; gen <= rounds; gen++) {
                if (gen > 1) {
                    /* Both sides' buffers change between rounds: the sender's is read
                     * by RDMA, the receiver's is written by it. */
                    if (me_send)
                        reused[k] += buf_replace(&sb, k);
                    if (me_recv)
                        reused[k] += buf_replace(&rb, k);
                }
                exchange(from, to, me_send ? &sb : NULL, me_recv ? &rb : NULL, gen,
                         kind_name[k]);
                /* and back, so each rank has been sender and receiver of this memory */
                if (from != to) {
                    t_begin(kind_name[k]);
                    exchange(to, from, me_recv ? &rb : NULL, me_send ? &sb : NULL, gen + 100,
                             kind_name[k]);
                }
            }
            if (me_send)
                buf_free(&sb, k);
            if (me_recv)
                buf_free(&rb, k);
        }
        if (k == K_HEAP)
            mallopt(M_MMAP_THRESHOLD, 128 << 10);
        if (t_rank == 0)
            printf("verbs_regcache: %s: %d of %d replacements at the same address\n",
                   kind_name[k], reused[k],
                   (int)(nsizes * (size_t)(rounds - 1)) * (from == to ? 2 : 1));
    }
    t_begin("same-address");
    if (t_rank == 0)
        CHECK(reused[K_MMAP] > 0 && reused[K_MADVISE] > 0,
              "mmap(MAP_FIXED) and madvise must keep the address (mmap %d, madvise %d)",
              reused[K_MMAP], reused[K_MADVISE]);
    t_finish();
    if (t_rank == 0)
        printf("verbs_regcache: done\n");
    return 0;
}
