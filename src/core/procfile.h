/*
 * Reading a small kernel-made file (/proc/loadavg, /proc/self/status) in one read: such files
 * are produced whole at read time, so one read of a buffer large enough gives a consistent
 * snapshot. Inline and libc-only because the memory hooks' constructor uses it before the
 * rest of the library is set up, and the tests that link memhooks.c alone need no more files.
 */
#ifndef RDMPI_CORE_PROCFILE_H
#define RDMPI_CORE_PROCFILE_H

#include <fcntl.h>
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

/* Reads up to len - 1 bytes of path into buf and ends them with a NUL. Returns the number of
 * bytes read (> 0), or -1 when the file cannot be opened or read or is empty. */
static inline ssize_t core_procfile_read(const char *path, char *buf, size_t len)
{
    if (len < 2)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return n;
}

#endif
