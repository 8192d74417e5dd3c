/*
 * Test shim, LD_PRELOADed into rdmpirun by test/launch/run's late_finalize case: the first
 * socket read made by a thread other than the main one (libpmix's progress thread: the PMIx
 * server) once the file named by RDMPI_TEST_SLOW_MARK exists first waits RDMPI_TEST_SLOW_MS
 * milliseconds. A rank creates the file just before PMIx_Finalize, so its server reads the
 * finalize after libpmix's client has given up waiting for it (2 s), and meanwhile reads
 * nothing else: the situation of a launcher on a node loaded far beyond its cores. Other
 * processes (the ranks inherit the preload) are left alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int in_launcher(void)
{
    static int known = -1;
    if (known < 0) {
        char comm[32] = {0};
        FILE *f = fopen("/proc/self/comm", "r");
        known = f && fgets(comm, sizeof(comm), f) && !strncmp(comm, "rdmpirun", 8);
        if (f)
            fclose(f);
    }
    return known;
}

static void maybe_wait(int fd)
{
    static atomic_int waited;
    const char *mark = getenv("RDMPI_TEST_SLOW_MARK");
    const char *ms = getenv("RDMPI_TEST_SLOW_MS");
    struct stat st;
    if (!mark || !ms || getpid() == gettid() || !in_launcher() || fstat(fd, &st) ||
        !S_ISSOCK(st.st_mode) || access(mark, F_OK) || atomic_exchange(&waited, 1))
        return;
    long n = atol(ms);
    struct timespec t = {n / 1000, (n % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

ssize_t read(int fd, void *buf, size_t len)
{
    static ssize_t (*real)(int, void *, size_t);
    if (!real)
        real = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    maybe_wait(fd);
    return real(fd, buf, len);
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    static ssize_t (*real)(int, void *, size_t, int);
    if (!real)
        real = (ssize_t(*)(int, void *, size_t, int))dlsym(RTLD_NEXT, "recv");
    maybe_wait(fd);
    return real(fd, buf, len, flags);
}

ssize_t readv(int fd, const struct iovec *iov, int n)
{
    static ssize_t (*real)(int, const struct iovec *, int);
    if (!real)
        real = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "readv");
    maybe_wait(fd);
    return real(fd, iov, n);
}
