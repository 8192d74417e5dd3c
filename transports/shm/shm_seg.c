/*
 * The node's shared-memory segment: one POSIX shm object per node per job,
 * created by local rank 0 before the bootstrap fence and mapped by the other
 * local ranks after it. It holds a header page and one ring per ordered pair
 * of local ranks (ring src->dst at index src * local_size + dst; the
 * diagonal carries no ring: the first line of rank r's diagonal slot is r's
 * doorbell, shm_bell.h, alone on its page). tmpfs allocates pages lazily, so only the
 * rings that are used cost memory. The last rank to attach removes the name,
 * so nothing is left in /dev/shm even if the job later crashes.
 *
 * /dev/shm is shared by every user of the node. The name carries a tag from
 * the job key (core/shmname.h), so nobody outside the job can predict it;
 * it is created exclusively, so a name that exists already is an error and
 * never reused or removed (another user, or another job, may own it); and
 * the other ranks map it only once fstat shows it is this user's, open to
 * nobody else, and of the size local rank 0 published through PMIx. With
 * /dev/shm's sticky bit nobody else can rename or remove it meanwhile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "core/log.h"
#include "core/shmname.h"
#include "transports/shm/shm.h"

static size_t pow2_floor(size_t x)
{
    size_t p = 1;
    while (p <= x / 2)
        p *= 2;
    return p;
}

static size_t ring_stride(size_t ring_size)
{
    return (tp_shm_ring_footprint(ring_size) + TP_SHM_COOP_AREA + 4095) & ~(size_t)4095;
}

/* The configured ring size, or the automatic one: 32 MiB spread over the
 * local_size^2 rings, clamped to [64 KiB, 1 MiB]; a power of two either way. */
size_t tp_shm_ring_size_pick(const core_runtime_t *rt, const tp_shm_config_t *cfg)
{
    size_t n = (size_t)rt->local_size * (size_t)rt->local_size;
    size_t size = cfg->shm_ring_size;
    if (size == 0) {
        size = TP_SHM_RING_AUTO_TOTAL / n;
        size = size < TP_SHM_RING_AUTO_MIN ? TP_SHM_RING_AUTO_MIN : size;
        size = size > TP_SHM_RING_AUTO_MAX ? TP_SHM_RING_AUTO_MAX : size;
    }
    size = size < TP_SHM_RING_FLOOR ? TP_SHM_RING_FLOOR : size;
    size = size > TP_SHM_RING_CEIL ? TP_SHM_RING_CEIL : size;
    size_t p = pow2_floor(size);
    if (cfg->shm_ring_size && p != cfg->shm_ring_size)
        core_warn("shm: RDMPI_SHM_RING_SIZE=%zu is not a power of two in [4k, 1G]; using %zu",
                  cfg->shm_ring_size, p);
    return p;
}

static size_t seg_bytes(int nlocal, size_t ring_size)
{
    return TP_SHM_SEG_HDR + (size_t)nlocal * (size_t)nlocal * ring_stride(ring_size);
}

/* Shrinks the ring size until every ring that may be used fits in the free
 * space of the file system behind fd: touching a page that tmpfs cannot
 * supply kills the process with SIGBUS, far from any useful message. */
static int fit_free_space(tp_shm_iface_t *s, int fd, size_t *ring_size)
{
    struct statvfs vfs;
    if (fstatvfs(fd, &vfs) != 0)
        return 0; /* cannot tell: keep the size */
    uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    uint64_t rings = (uint64_t)s->nlocal * (uint64_t)(s->nlocal - 1);
    uint64_t fixed = TP_SHM_SEG_HDR + (uint64_t)s->nlocal * 4096; /* header, doorbell pages */
    size_t size = *ring_size;
    while (size > TP_SHM_RING_FLOOR && rings * ring_stride(size) + fixed > avail)
        size /= 2;
    if (rings * ring_stride(size) + fixed > avail) {
        core_error("shm: %s: only %llu bytes free in /dev/shm, %llu needed for %d local ranks",
                   s->seg.name, (unsigned long long)avail,
                   (unsigned long long)(rings * ring_stride(size) + fixed), s->nlocal);
        return CORE_ENOMEM;
    }
    if (size != *ring_size)
        core_info("shm: /dev/shm has %llu bytes free: rings shrunk from %zu to %zu bytes",
                  (unsigned long long)avail, *ring_size, size);
    *ring_size = size;
    return 0;
}

static void seg_name(tp_shm_iface_t *s)
{
    char prefix[256];
    core_shm_job_prefix(prefix, sizeof(prefix), s->rt->nspace, s->rt->job_key);
    /* Names longer than NAME_MAX fail: cut the hostname, never the prefix. */
    snprintf(s->seg.name, sizeof(s->seg.name), "/%s%.64s.seg", prefix, s->rt->hostname);
    for (char *p = s->seg.name + 1; *p; p++)
        if (*p == '/')
            *p = '_';
}

static int errno_code(int err)
{
    switch (err) {
    case ENOMEM:
    case ENOSPC:
    case EFBIG:
        return CORE_ENOMEM;
    case EACCES:
    case EPERM:
        return CORE_EPERM;
    default:
        return CORE_EIO;
    }
}

static const char *hint(int err)
{
    if (err == ENOENT || err == ENOSYS)
        return " (is /dev/shm mounted?)";
    if (err == ENOSPC || err == ENOMEM)
        return " (is /dev/shm full? see df /dev/shm)";
    return "";
}

int tp_shm_seg_check(const struct stat *st, uid_t uid, size_t expect, char *why, size_t len)
{
    if (!S_ISREG(st->st_mode)) {
        snprintf(why, len, "it is not a shared-memory object (file type %o)",
                 (unsigned)(st->st_mode & S_IFMT) >> 12);
        return CORE_EPERM;
    }
    if (st->st_uid != uid) {
        snprintf(why, len, "it belongs to uid %u, not to this user (uid %u)",
                 (unsigned)st->st_uid, (unsigned)uid);
        return CORE_EPERM;
    }
    if (st->st_mode & (S_IRWXG | S_IRWXO)) {
        snprintf(why, len, "other users may open it (mode %04o, expected 0600)",
                 (unsigned)(st->st_mode & 07777));
        return CORE_EPERM;
    }
    if (st->st_size < 0 || (uint64_t)st->st_size != (uint64_t)expect) {
        snprintf(why, len, "it has %lld bytes, local rank 0 made %zu", (long long)st->st_size,
                 expect);
        return CORE_EIO;
    }
    return 0;
}

/* The name exists already: never ours to reuse or remove (the tag makes it
 * this job's name, so someone either guessed it or is another job with our
 * key). Says who owns it, when we may know. */
static void report_exists(tp_shm_iface_t *s)
{
    char path[400];
    struct stat st;
    snprintf(path, sizeof(path), "/dev/shm%s", s->seg.name);
    if (stat(path, &st) == 0)
        core_error("shm: cannot create segment %s: it already exists (owner uid %u, mode %04o); "
                   "another process made it: it is neither reused nor removed",
                   s->seg.name, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
    else
        core_error("shm: cannot create segment %s: it already exists; another process made it: "
                   "it is neither reused nor removed", s->seg.name);
}

/* Local rank 0, before the fence: create, size and map the segment, write
 * its header and mark it ready. Only the header page is touched. */
int tp_shm_seg_create(tp_shm_iface_t *s, size_t ring_size)
{
    seg_name(s);
    int fd = shm_open(s->seg.name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        int err = errno;
        if (err == EEXIST) {
            report_exists(s);
            return CORE_EPERM;
        }
        core_error("shm: cannot create segment %s: %s%s", s->seg.name, strerror(err), hint(err));
        return errno_code(err);
    }
    /* Exactly 0600 whatever the umask: the other ranks refuse anything else. */
    int rc = fchmod(fd, 0600) == 0 ? 0 : CORE_EIO;
    if (rc) {
        core_error("shm: cannot set the mode of segment %s: %s", s->seg.name, strerror(errno));
        goto err_unlink;
    }
    rc = fit_free_space(s, fd, &ring_size);
    if (rc)
        goto err_unlink;
    size_t len = seg_bytes(s->nlocal, ring_size);
    if (ftruncate(fd, (off_t)len) != 0 || (errno = posix_fallocate(fd, 0, TP_SHM_SEG_HDR)) != 0) {
        int err = errno;
        core_error("shm: cannot size segment %s to %zu bytes: %s%s", s->seg.name, len,
                   strerror(err), hint(err));
        rc = errno_code(err);
        goto err_unlink;
    }
    void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        int err = errno;
        core_error("shm: cannot map segment %s (%zu bytes): %s", s->seg.name, len, strerror(err));
        rc = errno_code(err);
        goto err_unlink;
    }
    close(fd);

    tp_shm_seg_hdr_t *hdr = base;
    hdr->local_size = (uint32_t)s->nlocal;
    hdr->ring_size = ring_size;
    hdr->ring_stride = ring_stride(ring_size);
    hdr->total = len;
    atomic_store_explicit(&hdr->attached, 1, memory_order_relaxed);
    atomic_store_explicit(&hdr->unlinked, 0, memory_order_relaxed);
    atomic_store_explicit(&hdr->sleepers, 0, memory_order_relaxed);
    atomic_store_explicit(&hdr->light, 0, memory_order_relaxed);
    atomic_store_explicit(&hdr->magic, TP_SHM_SEG_MAGIC, memory_order_release);

    s->seg.base = base;
    s->seg.len = len;
    s->seg.creator = 1;
    s->ring_size = ring_size;
    core_debug("shm: created %s: %d local ranks, rings of %zu bytes", s->seg.name, s->nlocal,
               ring_size);
    return 0;

err_unlink:
    shm_unlink(s->seg.name);
    close(fd);
    return rc;
}

/* Faults in the pages of a ring this rank uses, each side once its offset passed the ring's
 * first page (Linux >= 5.14; elsewhere a no-op). Without it the
 * first lap around a ring takes a page fault every 4 KiB on both sides (the first one also
 * clears the page): at 1 KiB messages that costs more than the messages (1.5 against 0.4 us
 * for a 2-rank allreduce of 1 KiB in a run shorter than one lap of the 1 MiB ring).
 * POPULATE_WRITE maps the pages writable without changing them. */
void tp_shm_seg_fill(tp_shm_iface_t *s, void *ring, tp_shm_fill_t *f)
{
    size_t len = ring_stride(s->ring_size);
#ifdef MADV_POPULATE_WRITE
    if (madvise(ring, len, MADV_POPULATE_WRITE) != 0)
        core_debug("shm: cannot populate %zu bytes of a ring: %s", len, strerror(errno));
#endif
    /* And a write to every page: populating fills this process's page tables, but where a
     * hypervisor shadows them (a paravirtualized guest) its first write to each page still
     * traps, ~8 us a page, which the first lap then paid (OSU 7.4 osu_reduce 1 KiB at 2
     * ranks, default -x 200: 1.8-2.8 us, 0.2 with a warm-up past the first lap). An atomic
     * OR of 0 writes without changing a byte: the peer may be using the ring meanwhile. */
    for (size_t off = 0; off < len; off += 4096)
        __atomic_fetch_or((uint64_t *)((char *)ring + off), 0, __ATOMIC_RELAXED);
    f->at = UINT64_MAX;
}

static void unlink_once(tp_shm_iface_t *s)
{
    tp_shm_seg_hdr_t *hdr = s->seg.base;
    if (atomic_exchange_explicit(&hdr->unlinked, 1, memory_order_acq_rel) == 0)
        shm_unlink(s->seg.name);
}

/* The other local ranks, after the fence: map the segment rank 0 made (name
 * and size from the bootstrap) once it proves to be it, and count
 * ourselves; the last one unlinks it. */
int tp_shm_seg_attach(tp_shm_iface_t *s, size_t expect)
{
    int rc;
    /* glibc's shm_open adds O_NOFOLLOW: a symlink planted under the name is not followed. */
    int fd = shm_open(s->seg.name, O_RDWR, 0);
    if (fd < 0) {
        int err = errno;
        core_error("shm: cannot open segment %s: %s%s", s->seg.name, strerror(err), hint(err));
        return errno_code(err);
    }
    struct stat st;
    char why[160];
    if (fstat(fd, &st) != 0) {
        core_error("shm: cannot check segment %s: %s", s->seg.name, strerror(errno));
        rc = CORE_EIO;
        goto err_close;
    }
    if (expect < TP_SHM_SEG_HDR) {
        core_error("shm: local rank 0 published a size of %zu bytes for segment %s", expect,
                   s->seg.name);
        rc = CORE_EINTERN;
        goto err_close;
    }
    if ((rc = tp_shm_seg_check(&st, geteuid(), expect, why, sizeof(why))) != 0) {
        core_error("shm: not using segment %s: %s", s->seg.name, why);
        goto err_close;
    }
    size_t len = expect;
    void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        int err = errno;
        core_error("shm: cannot map segment %s (%zu bytes): %s", s->seg.name, len, strerror(err));
        rc = errno_code(err);
        goto err_close;
    }
    tp_shm_seg_hdr_t *hdr = base;
    if (atomic_load_explicit(&hdr->magic, memory_order_acquire) != TP_SHM_SEG_MAGIC ||
        hdr->local_size != (uint32_t)s->nlocal || hdr->total != len ||
        hdr->ring_stride != ring_stride(hdr->ring_size) ||
        len != seg_bytes(s->nlocal, hdr->ring_size)) {
        core_error("shm: segment %s is not ready or does not match this job (%d local ranks)",
                   s->seg.name, s->nlocal);
        rc = CORE_EIO;
        goto err_unmap;
    }
    close(fd);
    s->seg.base = base;
    s->seg.len = len;
    s->ring_size = hdr->ring_size;
    uint32_t n = atomic_fetch_add_explicit(&hdr->attached, 1, memory_order_acq_rel) + 1;
    if (n == (uint32_t)s->nlocal)
        unlink_once(s);
    return 0;

err_unmap:
    munmap(base, len);
err_close:
    close(fd);
    return rc;
}

/* Unmaps the segment. The creator also removes the name if some rank never
 * attached (an error path): otherwise the last attacher already did. */
void tp_shm_seg_destroy(tp_shm_iface_t *s)
{
    if (!s->seg.base)
        return;
    tp_shm_seg_hdr_t *hdr = s->seg.base;
    if (s->seg.creator &&
        atomic_load_explicit(&hdr->attached, memory_order_acquire) < (uint32_t)s->nlocal)
        unlink_once(s);
    munmap(s->seg.base, s->seg.len);
    s->seg.base = NULL;
}

void *tp_shm_seg_ring(tp_shm_iface_t *s, int src, int dst)
{
    tp_shm_seg_hdr_t *hdr = s->seg.base;
    size_t idx = (size_t)src * (size_t)s->nlocal + (size_t)dst;
    return (uint8_t *)s->seg.base + TP_SHM_SEG_HDR + idx * hdr->ring_stride;
}

/* Slot k of the cooperative-copy slots of the pair (requester, helper): they
 * sit after the requester->helper ring. */
tp_shm_coop_slot_t *tp_shm_seg_coop(tp_shm_iface_t *s, int requester, int helper, uint32_t k)
{
    uint8_t *ring = tp_shm_seg_ring(s, requester, helper);
    return (tp_shm_coop_slot_t *)(ring + tp_shm_ring_footprint(s->ring_size)) + k;
}

_Atomic uint32_t *tp_shm_seg_copying(tp_shm_iface_t *s, int r)
{
    return (_Atomic uint32_t *)(void *)&tp_shm_seg_coop(s, r, r, 0)->claim;
}

/* Local rank r's doorbell (shm_bell.h): the diagonal slot, which holds no ring. */
_Atomic uint32_t *tp_shm_seg_bell(tp_shm_iface_t *s, int r)
{
    return (_Atomic uint32_t *)tp_shm_seg_ring(s, r, r);
}

/* Its senders bitmap: the next cache line of the diagonal slot on, on the bell's page (a
 * page of ours that is touched anyway), written only when a peer first writes to r. */
_Atomic uint64_t *tp_shm_seg_senders(tp_shm_iface_t *s, int r, int nwords)
{
    tp_shm_seg_hdr_t *hdr = s->seg.base;
    if (64 + (size_t)nwords * sizeof(uint64_t) > 4096 || hdr->ring_stride < 4096)
        return NULL;
    return (_Atomic uint64_t *)((uint8_t *)tp_shm_seg_ring(s, r, r) + 64);
}
