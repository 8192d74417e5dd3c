/*
 * What a job leaves on the node, removed after it ends however it ended:
 * the private PMIx tmpdir (rendezvous sockets, the dstore's shared memory)
 * and the POSIX shared-memory objects of the job's shm transport, named by
 * core_shm_job_prefix() (and the run's bridges, core_shm_bridge_prefix()) so that they can
 * be found by prefix here.
 */
#include "launch.h"

#include "core/shmname.h"

#include <dirent.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SHM_DIR "/dev/shm"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    if (remove(path) && errno != ENOENT)
        fprintf(stderr, "%s: warning: cannot remove %s: %s\n", launch_who, path, strerror(errno));
    return 0; /* keep going: remove as much as we can */
}

int launch_cleanup_tmpdir(const char *dir)
{
    if (!dir || !*dir)
        return 0;
    /* Depth first, and never following a symlink out of the directory. */
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) ? -errno : 0;
}

/* The job's segment, and the bridges between the run's jobs (whichever job's cleanup runs
 * first: they share the key). */
int launch_cleanup_shm(const char *nspace, const uint8_t job_key[CORE_KEY_LEN])
{
    char prefix[300], bprefix[64];
    struct dirent *de;
    DIR *d;
    size_t plen, blen;

    core_shm_job_prefix(prefix, sizeof(prefix), nspace, job_key);
    core_shm_bridge_prefix(bprefix, sizeof(bprefix), job_key);
    plen = strlen(prefix);
    blen = strlen(bprefix);
    d = opendir(SHM_DIR);
    if (!d)
        return errno == ENOENT ? 0 : -errno;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, plen) && strncmp(de->d_name, bprefix, blen))
            continue;
        if (unlinkat(dirfd(d), de->d_name, 0) && errno != ENOENT)
            fprintf(stderr, "%s: warning: cannot remove %s/%s: %s\n", launch_who, SHM_DIR,
                    de->d_name, strerror(errno));
    }
    closedir(d);
    return 0;
}

/* True when process pid has NAME=value in its environment. */
static int has_env(const char *pid, const char *entry)
{
    char path[64], buf[65536];
    size_t len = strlen(entry);
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%s/environ", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    for (ssize_t off = 0; n > 0 && off < n; off += (ssize_t)strlen(buf + off) + 1) {
        buf[n] = '\0';
        if (!strncmp(buf + off, entry, len) && buf[off + (ssize_t)len] == '\0')
            return 1;
    }
    return 0;
}

void launch_job_tag(char *buf, size_t len, const char *nspace, int vpid,
                    const uint8_t job_key[CORE_KEY_LEN])
{
    uint8_t tag[8];
    char hex[2 * sizeof(tag) + 1];

    /* A tag only the job's key gives: another job (of this user or not) that copies our
     * nspace and vpid into its environment is still not ours to kill. */
    core_kdf(job_key, "rdmpi cleanup tag", tag, sizeof(tag));
    core_hex(tag, sizeof(tag), hex);
    snprintf(buf, len, "%s.%d.%s", nspace, vpid, hex);
}

/*
 * What a killed daemon leaves on its node, removed by `rdmpid --cleanup`:
 * processes of the job tagged "RDMPID_JOB=<nspace>.<vpid>.<key tag>" (ranks and
 * what they forked), the job's shared-memory objects and the daemon's tmpdir.
 * Without the key, no process or object is touched (only the tmpdir, which is
 * private to this user). Returns the number of processes killed.
 */
int launch_cleanup_node(const char *nspace, int vpid, const uint8_t job_key[CORE_KEY_LEN])
{
    char entry[256], tag[200], pattern[PATH_MAX];
    const char *base = getenv("TMPDIR");
    struct dirent *de;
    glob_t g;
    int killed = 0;
    DIR *d = job_key ? opendir("/proc") : NULL;

    if (job_key) {
        launch_job_tag(tag, sizeof(tag), nspace, vpid, job_key);
        snprintf(entry, sizeof(entry), "%s=%s", LAUNCH_JOB_TAG, tag);
    }
    while (d && (de = readdir(d))) {
        pid_t pid = (pid_t)atoi(de->d_name);
        if (pid > 0 && pid != getpid() && has_env(de->d_name, entry) && kill(pid, SIGKILL) == 0)
            killed++;
    }
    if (d)
        closedir(d);
    if (job_key)
        launch_cleanup_shm(nspace, job_key);
    if (!base || !*base || strlen(base) > 64)
        base = "/tmp";
    snprintf(pattern, sizeof(pattern), "%s/rdmpid-%.40s-%d.*", base, nspace, vpid);
    if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            launch_cleanup_tmpdir(g.gl_pathv[i]);
        globfree(&g);
    }
    return killed;
}
