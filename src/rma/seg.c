/*
 * The node segment of a window from MPI_Win_allocate or
 * MPI_Win_allocate_shared: one POSIX shared-memory object per window and
 * node, made by the window's lowest rank on the node (its "leader") and
 * mapped by the window's other ranks there. It holds one control block per
 * rank of the node (rma_ctl_t: lock word, accumulate lock), then the ranks'
 * parts in rank order, each rounded up to 64 bytes, so the node's ranks load
 * and store each other's parts (MPI_Win_shared_query) and Put/Get/atomics
 * among them are copies and CPU atomics.
 *
 * allocate_shared needs every member on one node (else all fail with
 * MPI_ERR_RMA_SHARED). allocate gets a segment on every node when the shm
 * transport serves the node (the same on every rank: one configuration per
 * job); otherwise, or when a segment cannot be made, private memory and the
 * message path (CORE_EUNSUPPORTED to the caller, on every rank alike).
 *
 * The object is named like the shm transport's segments (core/shmname.h:
 * the job's key-derived tag, swept by the launcher after a failed job), plus
 * 16 random bytes: nobody outside the job can predict it. It is created
 * O_EXCL with mode 0600; the other ranks open it only after checking it is a
 * regular object of this user, mode 0600, of the size the leader made; it is
 * unlinked once every rank mapped it (or failed to), so a rank dying later
 * leaves nothing behind.
 *
 * MPI_Win_create and dynamic windows get a segment of the control blocks
 * alone (rma_seg_ctl_create): their memory stays the user's (CMA, messages),
 * but the node's ranks take each other's passive-target locks on the lock
 * words, as in allocated windows, instead of a LOCK/GRANT and an
 * UNLOCK/UNLOCKED round trip each (the target grants message requests on the
 * same word).
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
#include "rt/rt.h"
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

static int shm_served(void)
{
    tp_layer_t *tp = &rt_get()->tp;
    for (int i = 0; i < tp->niface; i++)
        if (strcmp(tp->ifaces[i]->name, "shm") == 0)
            return 1;
    return 0;
}

static int world_on_node(core_runtime_t *rt, int w)
{
    for (int i = 0; i < rt->local_size; i++)
        if (rt->local_ranks[i] == w)
            return 1;
    return 0;
}

int rma_on_node(MPI_Win win, int r)
{
    return world_on_node(win->st->rt, core_comm_world_rank(win->comm, r)) && shm_served();
}

/* Opens (leader: creates) the object and maps it; *map_p stays MAP_FAILED on failure. */
static int map_segment(MPI_Win win, int leader, char *names, size_t total, void **map_p)
{
    char *name = names + (size_t)leader * NAME_LEN;
    int fd = -1, rc = 0;
    if (win->rank != leader) {
        fd = shm_open(name, O_RDWR, 0);
        if (fd < 0) {
            core_error("RMA: cannot open shared window %s: %s", name, strerror(errno));
            return CORE_EIO;
        }
        rc = check_object(fd, total, name);
    } else {
        fd = shm_open(name, O_RDWR, 0);   /* ours: made O_EXCL just before */
        if (fd < 0)
            return CORE_EIO;
    }
    if (rc == 0) {
        void *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED) {
            core_error("RMA: cannot map shared window %s: %s", name, strerror(errno));
            rc = CORE_ENOMEM;
        } else {
            *map_p = map;
        }
    }
    close(fd);
    return rc;
}

/* ctl_only: the control blocks alone (rma_seg_ctl_create), the paths left as they are. */
static int seg_make(MPI_Win win, MPI_Aint size, int ctl_only)
{
    core_runtime_t *rt = win->st->rt;
    int shared = win->flavor == MPI_WIN_FLAVOR_SHARED;
    int *node = malloc((size_t)win->size * sizeof(int)), nnode = 0;
    MPI_Aint *sizes = malloc((size_t)win->size * sizeof(MPI_Aint));
    char *names = malloc((size_t)win->size * NAME_LEN);
    if (!node || !sizes || !names) {
        free(node);
        free(sizes);
        free(names);
        return CORE_ENOMEM;
    }
    for (int r = 0; r < win->size; r++)
        if (world_on_node(rt, core_comm_world_rank(win->comm, r)))
            node[nnode++] = r;
    int rc = 0;
    /* Members on two nodes: every member sees one off its node, so all fail alike. */
    if (shared && nnode != win->size)
        rc = CORE_ERMA_SHARED;
    else if (!shared && !shm_served())
        rc = CORE_EUNSUPPORTED;
    if (rc == 0 && ctl_only)
        memset(sizes, 0, (size_t)win->size * sizeof(MPI_Aint));
    else if (rc == 0)
        rc = coll_allgather(&size, 1, MPI_AINT, sizes, 1, MPI_AINT, win->comm);
    if (rc) {
        free(node);
        free(sizes);
        free(names);
        return rc;
    }
    /* The layout, computed alike by every rank of the node. */
    size_t total = (size_t)nnode * sizeof(rma_ctl_t), me_idx = 0;
    size_t *off = malloc((size_t)nnode * sizeof(size_t));
    for (int i = 0; off && i < nnode; i++) {
        off[i] = total;
        total += ((size_t)sizes[node[i]] + 63) & ~(size_t)63;
        if (node[i] == win->rank)
            me_idx = (size_t)i;
    }
    int leader = node[0];
    char *mine = names + (size_t)win->rank * NAME_LEN;
    memset(mine, 0, NAME_LEN);
    int fd = -1;
    if (off && win->rank == leader && make_object(win, mine, total, &fd) == 0)
        close(fd);
    rc = coll_allgather(mine, NAME_LEN, MPI_CHAR, names, NAME_LEN, MPI_CHAR, win->comm);
    if (rc == 0 && !off)
        rc = CORE_ENOMEM;
    if (rc == 0 && names[(size_t)leader * NAME_LEN] == '\0')
        rc = CORE_ENOMEM;
    void *map = MAP_FAILED;
    if (rc == 0)
        rc = map_segment(win, leader, names, total, &map);
    if (map != MAP_FAILED) {
        /* Set before the last collective: a peer done with it may send to us at once. */
        win->shm = map;
        win->shm_len = total;
        win->ctl = (rma_ctl_t *)map + me_idx;
        if (!ctl_only)
            win->base = size > 0 ? (uint8_t *)map + off[me_idx] : NULL;
    }
    /* Everyone mapped it or failed (all fail together): the names can go. */
    int bad = rc != 0, any = 1;
    int brc = coll_allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, win->comm);
    if (win->rank == leader && names[(size_t)leader * NAME_LEN])
        shm_unlink(names + (size_t)leader * NAME_LEN);
    if (brc == 0 && !any) {
        for (int i = 0; i < nnode; i++) {
            rma_peer_t *p = &win->peers[node[i]];
            p->ctl = (rma_ctl_t *)map + i;
            if (!ctl_only) {
                p->path = RMA_PATH_SHM;
                p->mem = (uint8_t *)map + off[i];
            }
        }
    } else {
        rma_seg_destroy(win);
        if (!ctl_only)
            win->base = NULL;
        rc = brc ? brc : shared ? (rc ? rc : CORE_ERMA_SHARED) : CORE_EUNSUPPORTED;
        if (rc == 0)
            rc = CORE_EUNSUPPORTED;
    }
    free(off);
    free(node);
    free(sizes);
    free(names);
    return brc == 0 && !any ? 0 : rc;
}

int rma_seg_create(MPI_Win win, MPI_Aint size)
{
    return seg_make(win, size, 0);
}

int rma_seg_ctl_create(MPI_Win win)
{
    if (!shm_served())   /* the same on every rank: nobody makes one */
        return 0;
    int rc = seg_make(win, 0, 1);
    return rc == CORE_EUNSUPPORTED ? 0 : rc;   /* no segment: locks by messages */
}

void rma_seg_destroy(MPI_Win win)
{
    if (win->shm)
        munmap(win->shm, win->shm_len);
    win->shm = NULL;
    win->ctl = NULL;
    for (int r = 0; win->peers && r < win->size; r++) {
        if (win->peers[r].path == RMA_PATH_SHM) {
            win->peers[r].path = RMA_PATH_MSG;
            win->peers[r].mem = NULL;
        }
        win->peers[r].ctl = NULL;
    }
}
