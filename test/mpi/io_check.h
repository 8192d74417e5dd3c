/*
 * Helpers of the MPI-IO tests: a temporary directory per run (made by rank 0
 * under $TMPDIR or /tmp, its name sent to the others by point-to-point
 * messages, removed with everything in it at the end), and file names in it.
 */
#ifndef RDMPI_TEST_IO_CHECK_H
#define RDMPI_TEST_IO_CHECK_H

#include <dirent.h>
#include <unistd.h>
#include "check.h"

static char t_io_dir[512];

static inline void t_io_begin(const char *prog)
{
    if (t_rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(t_io_dir, sizeof(t_io_dir), "%s/rdmpi-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
                 prog);
        CHECK(mkdtemp(t_io_dir) != NULL, "mkdtemp(%s) failed", t_io_dir);
        for (int r = 1; r < t_size; r++)
            MPI_Send(t_io_dir, sizeof(t_io_dir), MPI_CHAR, r, 7, t_sync_comm);
    } else {
        MPI_Recv(t_io_dir, sizeof(t_io_dir), MPI_CHAR, 0, 7, t_sync_comm, MPI_STATUS_IGNORE);
    }
}

/* dir/name in buf (static storage of the caller). */
static inline const char *t_io_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", t_io_dir, name);
    return buf;
}

/* Removes the directory and what is in it (rank 0, after everyone is done). */
static inline void t_io_end(void)
{
    t_sync();
    if (t_rank != 0)
        return;
    DIR *d = opendir(t_io_dir);
    if (!d)
        return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof(p), "%s/%s", t_io_dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    CHECK(rmdir(t_io_dir) == 0, "rmdir(%s) failed: a file was left behind", t_io_dir);
}

/* Reads a whole file (rank-local, POSIX) into a malloc'd buffer; *len its size. */
static inline unsigned char *t_io_slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*len ? (size_t)*len : 1);
    CHECK(b && fread(b, 1, (size_t)*len, f) == (size_t)*len, "cannot read %s", path);
    fclose(f);
    return b;
}

#endif
