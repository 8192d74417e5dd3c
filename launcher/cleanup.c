/*
 * What a job leaves on the node, removed after it ends however it ended:
 * the private PMIx tmpdir (rendezvous sockets, the dstore's shared memory)
 * and the POSIX shared-memory objects of the job's shm transport, named by
 * core_shm_job_prefix() so that they can be found by prefix here.
 */
#include "launch.h"

#include "core/shmname.h"

#include <dirent.h>
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
        fprintf(stderr, "rdmpirun: warning: cannot remove %s: %s\n", path, strerror(errno));
    return 0; /* keep going: remove as much as we can */
}

int launch_cleanup_tmpdir(const char *dir)
{
    if (!dir || !*dir)
        return 0;
    /* Depth first, and never following a symlink out of the directory. */
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) ? -errno : 0;
}

int launch_cleanup_shm(const char *nspace)
{
    char prefix[300];
    struct dirent *de;
    DIR *d;
    size_t plen;

    core_shm_job_prefix(prefix, sizeof(prefix), nspace);
    plen = strlen(prefix);
    d = opendir(SHM_DIR);
    if (!d)
        return errno == ENOENT ? 0 : -errno;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, plen))
            continue;
        if (unlinkat(dirfd(d), de->d_name, 0) && errno != ENOENT)
            fprintf(stderr, "rdmpirun: warning: cannot remove %s/%s: %s\n", SHM_DIR,
                    de->d_name, strerror(errno));
    }
    closedir(d);
    return 0;
}
