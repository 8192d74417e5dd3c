/*
 * A bridge segment: the shared memory of one pair of processes of two jobs of one run on one
 * node (docs/dynamic.md, design a). Its name comes from both uids and a tag of the run's job
 * key (core_shm_bridge_prefix), so only the run can predict it, and the launcher's cleanup
 * finds it by prefix. The lower uid creates it exclusively, mode 0600; the higher uid maps it
 * only once fstat shows this user's object open to nobody else, and every field of the header
 * matches what the creator must have written; it then removes the name, so nothing outlives
 * the pair even if both crash later. The creator removes it itself when the other side never
 * attached (refused, or gone).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/log.h"
#include "core/shmname.h"
#include "transports/shm/shm.h"

size_t tp_shm_bseg_stride(size_t ring_size)
{
    return (tp_shm_ring_footprint(ring_size) + 4095) & ~(size_t)4095;
}

static uint64_t seg_bytes(uint64_t ring_size)
{
    return TP_SHM_BRIDGE_HDR + 2 * (uint64_t)tp_shm_bseg_stride(ring_size);
}

void tp_shm_bseg_name(char *buf, size_t len, const uint8_t *job_key, uint32_t lo, uint32_t hi)
{
    char prefix[64];
    core_shm_bridge_prefix(prefix, sizeof(prefix), job_key);
    snprintf(buf, len, "/%s%u-%u", prefix, (unsigned)lo, (unsigned)hi);
}

int tp_shm_bseg_check(const tp_shm_bridge_hdr_t *h, uint32_t lo, uint32_t hi, uint64_t size,
                      char *why, size_t len)
{
    uint64_t rs = h->ring_size;
    if (atomic_load_explicit(&h->magic, memory_order_relaxed) != TP_SHM_BRIDGE_MAGIC)
        snprintf(why, len, "no bridge header (magic %016llx)",
                 (unsigned long long)atomic_load_explicit(&h->magic, memory_order_relaxed));
    else if (h->uid_lo != lo || h->uid_hi != hi)
        snprintf(why, len, "it names processes %u and %u, not %u and %u", (unsigned)h->uid_lo,
                 (unsigned)h->uid_hi, (unsigned)lo, (unsigned)hi);
    else if (rs < TP_SHM_RING_FLOOR || rs > TP_SHM_RING_CEIL || (rs & (rs - 1)) != 0)
        snprintf(why, len, "rings of %llu bytes", (unsigned long long)rs);
    else if (h->ring_stride != tp_shm_bseg_stride(rs) || h->total != seg_bytes(rs) ||
             h->total != size)
        snprintf(why, len, "a geometry of %llu/%llu/%llu bytes in a %llu-byte object",
                 (unsigned long long)rs, (unsigned long long)h->ring_stride,
                 (unsigned long long)h->total, (unsigned long long)size);
    else if (atomic_load_explicit(&h->attached, memory_order_relaxed) != 1 ||
             atomic_load_explicit(&h->unlinked, memory_order_relaxed) != 0)
        snprintf(why, len, "attached %u times already",
                 (unsigned)atomic_load_explicit(&h->attached, memory_order_relaxed));
    else if (h->pid[0] <= 0 || h->pid[1] != 0 || h->probe[1] != 0 ||
             atomic_load_explicit(&h->cma[0], memory_order_relaxed) != TP_SHM_CMA_UNKNOWN ||
             atomic_load_explicit(&h->cma[1], memory_order_relaxed) != TP_SHM_CMA_UNKNOWN)
        snprintf(why, len, "a single-copy state that is not the creator's first");
    else
        return 0;
    return CORE_EIO;
}

void tp_shm_bseg_hdr_init(tp_shm_bridge_hdr_t *h, uint32_t lo, uint32_t hi, size_t ring_size,
                          int32_t pid, uint64_t probe)
{
    h->uid_lo = lo;
    h->uid_hi = hi;
    h->ring_size = ring_size;
    h->ring_stride = tp_shm_bseg_stride(ring_size);
    h->total = seg_bytes(ring_size);
    h->pid[0] = pid;
    h->probe[0] = probe;
    atomic_store_explicit(&h->attached, 1, memory_order_relaxed);
    atomic_store_explicit(&h->magic, TP_SHM_BRIDGE_MAGIC, memory_order_release);
}

static void unlink_once(tp_shm_bseg_t *b)
{
    tp_shm_bridge_hdr_t *h = b->base;
    if (atomic_exchange_explicit(&h->unlinked, 1, memory_order_acq_rel) == 0)
        shm_unlink(b->name);
}

int tp_shm_bseg_create(tp_shm_bseg_t *b, uint32_t lo, uint32_t hi, size_t ring_size,
                       int32_t pid, uint64_t probe)
{
    int fd = shm_open(b->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        /* EEXIST: someone holding the run's key made it; never ours to reuse or remove. */
        core_info("shm: cannot create bridge %s: %s", b->name, strerror(errno));
        return CORE_EIO;
    }
    size_t len = (size_t)seg_bytes(ring_size);
    void *base = MAP_FAILED;
    if (fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)len) != 0 ||
        (errno = posix_fallocate(fd, 0, (off_t)len)) != 0 ||
        (base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        /* posix_fallocate: a bridge /dev/shm cannot hold fails here, not with SIGBUS later. */
        core_info("shm: cannot make bridge %s of %zu bytes: %s", b->name, len, strerror(errno));
        shm_unlink(b->name);
        close(fd);
        return CORE_ENOMEM;
    }
    close(fd);
    tp_shm_bseg_hdr_init(base, lo, hi, ring_size, pid, probe); /* fresh pages: zeros */
    b->base = base;
    b->len = len;
    b->ring_size = ring_size;
    b->stride = tp_shm_bseg_stride(ring_size);
    b->creator = 1;
    return 0;
}

int tp_shm_bseg_attach(tp_shm_bseg_t *b, uint32_t lo, uint32_t hi)
{
    int fd = shm_open(b->name, O_RDWR, 0); /* O_NOFOLLOW added by glibc */
    if (fd < 0) {
        core_info("shm: cannot open bridge %s: %s", b->name, strerror(errno));
        return CORE_EIO;
    }
    struct stat st;
    char why[160];
    int rc = CORE_EIO;
    void *base = MAP_FAILED;
    if (fstat(fd, &st) != 0) {
        snprintf(why, sizeof(why), "fstat: %s", strerror(errno));
    } else if (st.st_size < (off_t)seg_bytes(TP_SHM_RING_FLOOR) ||
               st.st_size > (off_t)seg_bytes(TP_SHM_RING_CEIL)) {
        snprintf(why, sizeof(why), "it has %lld bytes", (long long)st.st_size);
    } else if ((rc = tp_shm_seg_check(&st, geteuid(), (size_t)st.st_size, why, sizeof(why))) ==
               0) {
        base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (base == MAP_FAILED) {
            snprintf(why, sizeof(why), "mmap: %s", strerror(errno));
            rc = CORE_ENOMEM;
        }
    }
    close(fd);
    if (base == MAP_FAILED) {
        core_info("shm: not using bridge %s: %s", b->name, why);
        return rc ? rc : CORE_EIO;
    }
    /* Read once, then checked: the creator may still write, but not what we check. */
    tp_shm_bridge_hdr_t copy;
    if (atomic_load_explicit(&((tp_shm_bridge_hdr_t *)base)->magic, memory_order_acquire) ==
        TP_SHM_BRIDGE_MAGIC)
        memcpy(&copy, base, sizeof(copy));
    else
        memset(&copy, 0, sizeof(copy));
    if ((rc = tp_shm_bseg_check(&copy, lo, hi, (uint64_t)st.st_size, why, sizeof(why))) != 0) {
        core_info("shm: not using bridge %s: %s", b->name, why);
        munmap(base, (size_t)st.st_size);
        return rc;
    }
    b->base = base;
    b->len = (size_t)st.st_size;
    b->ring_size = copy.ring_size;
    b->stride = copy.ring_stride;
    b->creator = 0;
    atomic_fetch_add_explicit(&((tp_shm_bridge_hdr_t *)base)->attached, 1, memory_order_acq_rel);
    unlink_once(b);
    return 0;
}

void tp_shm_bseg_destroy(tp_shm_bseg_t *b)
{
    if (!b->base)
        return;
    tp_shm_bridge_hdr_t *h = b->base;
    if (b->creator && atomic_load_explicit(&h->attached, memory_order_acquire) < 2)
        unlink_once(b);
    munmap(b->base, b->len);
    b->base = NULL;
}

void *tp_shm_bseg_ring(tp_shm_bseg_t *b, int dir)
{
    return (uint8_t *)b->base + TP_SHM_BRIDGE_HDR + (size_t)dir * b->stride;
}
