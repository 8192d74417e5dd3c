/*
 * Memory of MPI_Win_allocate_shared: one POSIX shared-memory object per
 * window, made by the window's rank 0 and mapped by every rank (they share
 * its node, or the call fails with MPI_ERR_RMA_SHARED). The parts of the
 * ranks follow each other in rank order, each rounded up to 64 bytes, so
 * ranks load and store each other's parts directly.
 *
 * The object is named like the shm transport's segments (core/shmname.h:
 * the job's key-derived tag), plus 16 random bytes: nobody outside the job
 * can predict it. It is created O_EXCL with mode 0600; the other ranks open
 * it only after checking it is a regular object of this user, mode 0600, of
 * the size rank 0 made; it is unlinked once all ranks mapped it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rma/rma.h"
#include "collectives/coll.h"
#include "core/log.h"
#include "core/secret.h"
#include "core/shmname.h"

#define NAME_LEN 200

static int check_object(int fd, size_t expect, const char *name)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        core_error("RMA: cannot stat shared window %s: %s", name, strerror(errno));
        return CORE_EIO;
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) ||
        st.st_size < 0 || (uint64_t)st.st_size != (uint64_t)expect) {
        core_error("RMA: refusing shared window %s: uid %u, mode %04o, %lld bytes (expected "
                   "this user's, 0600, %zu bytes)", name, (unsigned)st.st_uid,
                   (unsigned)(st.st_mode & 07777), (long long)st.st_size, expect);
        return CORE_EPERM;
    }
    return 0;
}

static int make_object(MPI_Win win, char *name, size_t len, int *fd_p)
{
    core_runtime_t *rt = win->st->rt;
    char prefix[160];
    uint8_t rnd[16];
    char hex[33];
    core_shm_job_prefix(prefix, sizeof(prefix), rt->nspace, rt->job_key);
    core_random(rnd, sizeof(rnd));
    core_hex(rnd, sizeof(rnd), hex);
    snprintf(name, NAME_LEN, "/%swin.%s", prefix, hex);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        core_error("RMA: cannot create shared window %s: %s", name, strerror(errno));
        return errno == ENOMEM || errno == ENOSPC ? CORE_ENOMEM : CORE_EIO;
    }
    if (fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)len) != 0) {
        core_error("RMA: cannot size shared window %s to %zu bytes: %s", name, len,
                   strerror(errno));
        close(fd);
        shm_unlink(name);
        return CORE_ENOMEM;
    }
    *fd_p = fd;
    return 0;
}

int rma_shm_create(MPI_Win win, MPI_Aint size)
{
    core_runtime_t *rt = win->st->rt;
    for (int r = 0; r < win->size; r++) {
        int w = core_comm_world_rank(win->comm, r), i = 0;
        while (i < rt->local_size && rt->local_ranks[i] != w)
            i++;
        /* Members on two nodes: every member sees one off its node, so all fail alike. */
        if (i == rt->local_size)
            return CORE_ERMA_SHARED;
    }
    MPI_Aint *sizes = malloc((size_t)win->size * sizeof(MPI_Aint));
    win->shm_off = malloc((size_t)win->size * sizeof(MPI_Aint));
    if (!sizes || !win->shm_off) {
        free(sizes);
        return CORE_ENOMEM;
    }
    int rc = coll_allgather(&size, 1, MPI_AINT, sizes, 1, MPI_AINT, win->comm);
    if (rc) {
        free(sizes);
        return rc;
    }
    size_t total = 0;
    for (int r = 0; r < win->size; r++) {
        win->shm_off[r] = (MPI_Aint)total;
        total += ((size_t)sizes[r] + 63) & ~(size_t)63;
    }
    free(sizes);
    if (total == 0)
        total = 64;
    /* Rank 0 makes the object; its name (or an empty one: failed) goes to everyone. */
    char name[NAME_LEN] = "";
    int fd = -1;
    if (win->rank == 0 && make_object(win, name, total, &fd) != 0)
        name[0] = '\0';
    rc = coll_bcast(name, NAME_LEN, MPI_CHAR, 0, win->comm);
    if (rc == 0 && name[0] == '\0')
        rc = CORE_ENOMEM;
    if (rc == 0 && win->rank != 0) {
        fd = shm_open(name, O_RDWR, 0);
        if (fd < 0) {
            core_error("RMA: cannot open shared window %s: %s", name, strerror(errno));
            rc = CORE_EIO;
        } else {
            rc = check_object(fd, total, name);
        }
    }
    void *map = MAP_FAILED;
    if (rc == 0) {
        map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED) {
            core_error("RMA: cannot map shared window %s: %s", name, strerror(errno));
            rc = CORE_ENOMEM;
        }
    }
    if (fd >= 0)
        close(fd);
    /* Everyone mapped it or failed (all fail together): the name can go. */
    int bad = rc != 0, any = 1;
    int brc = coll_allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, win->comm);
    if (win->rank == 0 && name[0])
        shm_unlink(name);
    if (rc == 0 && (brc || any))
        rc = brc ? brc : CORE_ERMA_SHARED;
    if (rc) {
        if (map != MAP_FAILED)
            munmap(map, total);
        return rc;
    }
    win->shm = map;
    win->shm_len = total;
    win->base = size > 0 ? (char *)map + win->shm_off[win->rank] : NULL;
    return 0;
}

void rma_shm_destroy(MPI_Win win)
{
    if (win->shm)
        munmap(win->shm, win->shm_len);
    win->shm = NULL;
    free(win->shm_off);
    win->shm_off = NULL;
}
