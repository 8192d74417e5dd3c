/*
 * Unit test of the shm segment's creation and attach checks
 * (transports/shm/shm_seg.c) against real objects in /dev/shm.
 *
 * The check alone on made-up fstat results (owner, mode bits, size, file
 * type); then a segment is created (mode exactly 0600 whatever the umask),
 * a second creation of the same name fails and leaves the first object
 * alone, an object someone else made first under the name is neither
 * reused, truncated nor removed, and an attach refuses an object of the
 * wrong size, with group or other permission bits, of another owner (when
 * run as root, which can give it away), or a symlink planted under the name;
 * each error names the object and what is wrong. A right attach maps it and,
 * being the last of the node's ranks, removes the name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/log.h"
#include "core/secret.h"
#include "core/shmname.h"
#include "transports/shm/shm.h"

int core_log_level = CORE_LOG_WARN;
static char last_log[1024];

void core_log_emit(int level, const char *fmt, ...)
{
    (void)level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_log, sizeof(last_log), fmt, ap);
    va_end(ap);
}

static int failures;

static void check(int cond, const char *name, const char *fmt, ...)
{
    if (cond)
        return;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: unit/shm_seg/%s ", name);
    vprintf(fmt, ap);
    printf(" (last log: %s)\n", last_log);
    va_end(ap);
    failures++;
}

static void pass(const char *name, int before)
{
    if (failures == before)
        printf("PASS: unit/shm_seg/%s\n", name);
}

static core_runtime_t rt;

static void iface_init(tp_shm_iface_t *s)
{
    memset(s, 0, sizeof(*s));
    s->rt = &rt;
    s->me = 0;
    s->nlocal = 2;
}

static int exists(const char *name)
{
    char path[400];
    struct stat st;
    snprintf(path, sizeof(path), "/dev/shm%s", name);
    return lstat(path, &st) == 0;
}

static void test_check(void)
{
    int before = failures;
    struct stat st;
    char why[160];
    uid_t me = geteuid();
    memset(&st, 0, sizeof(st));
    st.st_mode = S_IFREG | 0600;
    st.st_uid = me;
    st.st_size = 1 << 20;
    check(tp_shm_seg_check(&st, me, 1 << 20, why, sizeof(why)) == 0, "check", "a good one: %s",
          why);
    st.st_uid = me + 1;
    check(tp_shm_seg_check(&st, me, 1 << 20, why, sizeof(why)) == CORE_EPERM &&
              strstr(why, "uid"), "check", "another owner passed: %s", why);
    st.st_uid = me;
    mode_t bad[] = {0640, 0604, 0660, 0606, 0610, 0601, 0777};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        st.st_mode = S_IFREG | bad[i];
        check(tp_shm_seg_check(&st, me, 1 << 20, why, sizeof(why)) == CORE_EPERM &&
                  strstr(why, "mode"), "check", "mode %04o passed: %s", (unsigned)bad[i], why);
    }
    st.st_mode = S_IFREG | 0400; /* less than 0600 for the owner: the mapping fails, not this */
    check(tp_shm_seg_check(&st, me, 1 << 20, why, sizeof(why)) == 0, "check", "0400 refused");
    st.st_mode = S_IFREG | 0600;
    off_t sizes[] = {0, 4096, (1 << 20) - 1, (1 << 20) + 1, (off_t)1 << 40};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        st.st_size = sizes[i];
        check(tp_shm_seg_check(&st, me, 1 << 20, why, sizeof(why)) == CORE_EIO &&
                  strstr(why, "bytes"), "check", "size %lld passed", (long long)sizes[i]);
    }
    st.st_size = 1 << 20;
    st.st_mode = S_IFDIR | 0700;
    check(tp_shm_seg_check(&st, me, 1 << 20, why, sizeof(why)) == CORE_EPERM, "check",
          "a directory passed");
    pass("check", before);
}

static void test_create_attach(void)
{
    int before = failures;
    tp_shm_iface_t a, b, c;
    iface_init(&a);
    mode_t old = umask(0277); /* shm_open alone would make it 0400 */
    int rc = tp_shm_seg_create(&a, 64u << 10);
    umask(old);
    check(rc == 0, "create", "creating failed: %d", rc);
    if (rc)
        return;
    char path[400];
    struct stat st;
    snprintf(path, sizeof(path), "/dev/shm%s", a.seg.name);
    check(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_uid == geteuid(),
          "create", "%s has mode %04o (0600 wanted)", path, (unsigned)(st.st_mode & 07777));
    check(strstr(a.seg.name, rt.nspace) != NULL, "create", "%s lacks the nspace", a.seg.name);

    /* The same name again: refused, the first left alone. */
    iface_init(&b);
    rc = tp_shm_seg_create(&b, 64u << 10);
    check(rc == CORE_EPERM && strstr(last_log, "already exists") && strstr(last_log, a.seg.name),
          "create", "a second creation gave %d", rc);
    check(exists(a.seg.name), "create", "the second creation removed the first object");
    pass("create", before);

    before = failures;
    int fd = shm_open(a.seg.name, O_RDWR, 0);
    /* Attaches that must be refused, each saying why, none counted. */
    iface_init(&c);
    c.me = 1;
    memcpy(c.seg.name, a.seg.name, sizeof(c.seg.name));
    rc = tp_shm_seg_attach(&c, a.seg.len + 4096);
    check(rc != 0 && strstr(last_log, a.seg.name) && strstr(last_log, "bytes"), "attach",
          "the wrong size was accepted (%d)", rc);
    fchmod(fd, 0640);
    rc = tp_shm_seg_attach(&c, a.seg.len);
    check(rc == CORE_EPERM && strstr(last_log, a.seg.name) && strstr(last_log, "0640"), "attach",
          "mode 0640 was accepted (%d)", rc);
    fchmod(fd, 0606);
    rc = tp_shm_seg_attach(&c, a.seg.len);
    check(rc == CORE_EPERM && strstr(last_log, "0606"), "attach", "mode 0606 was accepted");
    fchmod(fd, 0600);
    if (geteuid() == 0) {
        check(fchown(fd, 65534, 65534) == 0, "attach", "fchown: %s", strerror(errno));
        rc = tp_shm_seg_attach(&c, a.seg.len);
        check(rc == CORE_EPERM && strstr(last_log, "uid 65534"), "attach",
              "another owner's object was accepted (%d)", rc);
        check(fchown(fd, 0, 0) == 0, "attach", "fchown back: %s", strerror(errno));
    } else {
        printf("SKIP: unit/shm_seg/attach-owner: only root can give an object to another uid\n");
    }
    tp_shm_seg_hdr_t *hdr = a.seg.base;
    check(atomic_load(&hdr->attached) == 1, "attach", "refused attaches were counted");
    check(exists(a.seg.name), "attach", "a refused attach removed the name");

    /* The right one: mapped, counted, and as the last rank it removes the name. */
    rc = tp_shm_seg_attach(&c, a.seg.len);
    check(rc == 0, "attach", "a right attach failed: %d", rc);
    check(rc || atomic_load(&hdr->attached) == 2, "attach", "attached is %u",
          atomic_load(&hdr->attached));
    check(!exists(a.seg.name), "attach", "%s still exists after every rank attached",
          a.seg.name);
    close(fd);
    if (rc == 0)
        tp_shm_seg_destroy(&c);
    tp_shm_seg_destroy(&a);
    pass("attach", before);
}

/* Someone creates the name before the job does: the job fails with a clear
 * error and the object is untouched. Then a symlink under the name. */
static void test_squatter(void)
{
    int before = failures;
    tp_shm_iface_t a, c;
    iface_init(&a);
    /* Learn the name the way the job makes it (a create that we undo). */
    if (tp_shm_seg_create(&a, 64u << 10) != 0) {
        check(0, "squatter", "cannot create");
        return;
    }
    char name[sizeof(a.seg.name)];
    memcpy(name, a.seg.name, sizeof(name));
    a.seg.creator = 0;
    munmap(a.seg.base, a.seg.len);
    shm_unlink(name);

    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0644);
    check(fd >= 0 && write(fd, "mine", 4) == 4, "squatter", "cannot plant %s", name);
    iface_init(&a);
    int rc = tp_shm_seg_create(&a, 64u << 10);
    check(rc != 0 && strstr(last_log, "already exists") && strstr(last_log, "0644"), "squatter",
          "a planted object was not refused (%d)", rc);
    struct stat st;
    char buf[8] = "";
    check(fstat(fd, &st) == 0 && st.st_size == 4 && pread(fd, buf, 4, 0) == 4 &&
              !memcmp(buf, "mine", 4), "squatter", "the planted object was changed");
    check(exists(name), "squatter", "the planted object was removed");
    close(fd);
    shm_unlink(name);

    /* A symlink under the name, to an object that would pass every check. */
    iface_init(&a);
    if (tp_shm_seg_create(&a, 64u << 10) == 0) {
        char path[400], target[400];
        snprintf(path, sizeof(path), "/dev/shm%s", name);
        snprintf(target, sizeof(target), "/dev/shm%s.real", name);
        check(rename(path, target) == 0 && symlink(target, path) == 0, "squatter",
              "cannot plant a symlink: %s", strerror(errno));
        iface_init(&c);
        c.me = 1;
        memcpy(c.seg.name, name, sizeof(c.seg.name));
        rc = tp_shm_seg_attach(&c, a.seg.len);
        check(rc != 0 && strstr(last_log, name), "squatter", "a symlink was followed (%d)", rc);
        if (rc == 0)
            tp_shm_seg_destroy(&c);
        unlink(path);
        unlink(target);
        a.seg.creator = 0;
        tp_shm_seg_destroy(&a);
    }
    pass("squatter", before);
}

/* A bridge segment between two processes of two jobs (shm_bseg.c): the creator's header
 * passes the attacher's check, the attacher unlinks the name, and what an attacher must refuse
 * is refused: another pair's name, a group- or world-open object, a second attach, a name
 * that exists already (never reused). */
static void test_bridge(void)
{
    int before = failures;
    tp_shm_bseg_t a, b, c;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    memset(&c, 0, sizeof(c));
    tp_shm_bseg_name(a.name, sizeof(a.name), rt.job_key, 3, 7);
    char prefix[64];
    core_shm_bridge_prefix(prefix, sizeof(prefix), rt.job_key);
    check(!strncmp(a.name + 1, prefix, strlen(prefix)), "bridge", "name %s without prefix %s",
          a.name, prefix);
    shm_unlink(a.name);
    check(tp_shm_bseg_create(&a, 3, 7, 4096, getpid(), 0x1000) == 0, "bridge", "create");
    memcpy(b.name, a.name, sizeof(b.name));
    memcpy(c.name, a.name, sizeof(c.name));
    check(tp_shm_bseg_create(&c, 3, 7, 4096, getpid(), 0x1000) != 0, "bridge",
          "a second create of %s succeeded", a.name);
    check(tp_shm_bseg_attach(&b, 3, 8) != 0 && exists(a.name), "bridge",
          "attached as another pair");
    struct stat st;
    char path[400];
    snprintf(path, sizeof(path), "/dev/shm%s", a.name);
    chmod(path, 0640);
    check(tp_shm_bseg_attach(&b, 3, 7) != 0, "bridge", "attached a group-readable object");
    chmod(path, 0600);
    check(tp_shm_bseg_attach(&b, 3, 7) == 0, "bridge", "attach");
    check(!exists(a.name) && stat(path, &st) != 0, "bridge", "the attacher left %s", a.name);
    check(b.ring_size == 4096 && b.len == a.len, "bridge", "geometry %zu/%zu", b.ring_size,
          b.len);
    /* the rings: one side's writes are the other's reads */
    tp_shm_prod_t p;
    tp_shm_cons_t q;
    tp_shm_rec_t rec;
    check(tp_shm_prod_init(&p, tp_shm_bseg_ring(&a, 0), a.ring_size) == 0 &&
              tp_shm_cons_init(&q, tp_shm_bseg_ring(&b, 0), b.ring_size) == 0, "bridge",
          "ring init");
    check(tp_shm_ring_push(&p, 5, "hdr", 3, "payload", 7) == 0 &&
              tp_shm_ring_peek(&q, &rec, NULL) == 1 && rec.id == 5 && rec.len == 7 &&
              !memcmp(rec.payload, "payload", 7), "bridge", "a record across the pair");
    tp_shm_bseg_destroy(&b);
    tp_shm_bseg_destroy(&a);
    /* never attached: the creator removes it */
    check(tp_shm_bseg_create(&a, 3, 7, 4096, getpid(), 0x1000) == 0 && exists(a.name),
          "bridge", "create again");
    tp_shm_bseg_destroy(&a);
    check(!exists(a.name), "bridge", "the creator left %s nobody attached", a.name);
    pass("bridge", before);
}

/* tp_shm_seg_fill maps a whole ring at once, the first time a side passes fill.at (its
 * first record in a large ring, its first page in a small one), and never again: every page of the ring is resident afterwards (mincore), and
 * the rings next to it are left alone. Where MADV_POPULATE_WRITE is missing it is a no-op
 * that still marks the ring done. */
static void test_fill(void)
{
    int before = failures;
    tp_shm_iface_t a;
    iface_init(&a);
    int rc = tp_shm_seg_create(&a, 64u << 10);
    check(rc == 0, "fill", "creating failed: %d", rc);
    if (rc)
        return;
    tp_shm_fill_t f;
    tp_shm_fill_init(&f, 1u << 20);
    check(f.at == 0, "fill", "a fresh ring of 1 MiB is not mapped at its first record (at %llu)",
          (unsigned long long)f.at);
    tp_shm_fill_init(&f, 64u << 10);
    check(f.at == TP_SHM_FILL_AFTER, "fill",
          "a fresh ring of 64 KiB is not mapped past its first page (at %llu)",
          (unsigned long long)f.at);
    void *ring = tp_shm_seg_ring(&a, 0, 1);
    void *next = tp_shm_seg_ring(&a, 1, 0);
    size_t span = (size_t)((char *)next - (char *)ring); /* the ring's stride */
    tp_shm_seg_fill(&a, ring, &f);
    check(f.at == UINT64_MAX, "fill", "the ring is not marked done (at %llu)",
          (unsigned long long)f.at);
#ifdef MADV_POPULATE_WRITE
    long pg = sysconf(_SC_PAGESIZE);
    size_t npages = span / (size_t)pg;
    unsigned char *vec = calloc(npages + 1, 1);
    /* the ring starts on a page (the segment's header is one) */
    if (vec && mincore(ring, span, vec) == 0) {
        size_t in = 0;
        for (size_t i = 0; i < npages; i++)
            in += vec[i] & 1;
        check(in == npages, "fill", "%zu of the ring's %zu pages resident", in, npages);
        /* the next ring (another pair's) is not touched */
        check(mincore(next, span, vec) == 0 && !(vec[0] & 1) && !(vec[npages - 1] & 1), "fill",
              "the next ring was mapped too");
    } else {
        check(0, "fill", "mincore failed: %s", strerror(errno));
    }
    free(vec);
#endif
    tp_shm_seg_destroy(&a);
    pass("fill", before);
}

int main(void)
{
    if (core_crypto_init()) {
        printf("FAIL: unit/shm_seg cannot initialize libsodium\n");
        return 1;
    }
    snprintf(rt.nspace, sizeof(rt.nspace), "test-shm-seg-%d", (int)getpid());
    snprintf(rt.hostname, sizeof(rt.hostname), "unit");
    core_random(rt.job_key, sizeof(rt.job_key));
    rt.local_size = 2;
    test_check();
    test_create_attach();
    test_squatter();
    test_bridge();
    test_fill();
    return failures ? 1 : 0;
}
