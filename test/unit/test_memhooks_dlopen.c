/*
 * The memory hooks when librdmpi is loaded with dlopen (as Python's mpi4py
 * or a plugin host would), each case in a child process of its own:
 *
 * - dlopen from a single-threaded program: the library's constructor
 *   patches libc (its code differs from the libc file afterwards); then
 *   dlclose, and the library must still be loaded (-z nodelete), and mmap,
 *   munmap, mremap, madvise and free() of large blocks must keep working,
 *   since libc's code still jumps into it. Without -z nodelete this child
 *   crashes at its first munmap.
 * - dlopen from a program that already runs a second thread: libc must be
 *   left exactly as it is in the file (patching code another thread may be
 *   executing is not safe), and the memory functions must work.
 *
 * The library is the one just built (RDMPI_TEST_LIBRDMPI overrides, e.g.
 * for an AddressSanitizer build).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RDMPI_TEST_LIBDIR
#define RDMPI_TEST_LIBDIR "."
#endif

static size_t pg;

/* Whether the first bytes of libc's fn in memory are those of the libc.so
 * file (its text is mapped at its file offset): 1, 0, or -1 if unknown. */
static int libc_as_on_disk(const char *fn)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    const uint8_t *f = libc ? dlsym(libc, fn) : NULL;
    Dl_info info;
    uint8_t disk[32];
    if (libc)
        dlclose(libc);
    if (!f || !dladdr(f, &info) || !info.dli_fname)
        return -1;
    FILE *lib = fopen(info.dli_fname, "rb");
    if (!lib)
        return -1;
    int ok = fseek(lib, (long)(f - (const uint8_t *)info.dli_fbase), SEEK_SET) == 0 &&
             fread(disk, 1, sizeof(disk), lib) == sizeof(disk);
    fclose(lib);
    return ok ? !memcmp(disk, f, sizeof(disk)) : -1;
}

static int libc_untouched(void)
{
    int a = libc_as_on_disk("munmap"), b = libc_as_on_disk("mmap"), c = libc_as_on_disk("mremap");
    if (a < 0 || b < 0 || c < 0)
        return -1;
    return a && b && c;
}

/* The memory functions on every path the hooks cover; returns 0 when all
 * worked and moved data right. */
static int exercise(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return -1;
        p[0] = 42;
        char *q = mremap(p, 2 * pg, 8 * pg, MREMAP_MAYMOVE);
        if (q == MAP_FAILED || q[0] != 42)
            return -1;
        if (madvise(q, 8 * pg, MADV_DONTNEED) != 0 || q[0] != 0)
            return -1;
        if (munmap(q, 8 * pg) != 0)
            return -1;
        char *b = malloc(64u << 20);
        if (!b)
            return -1;
        b[0] = 1;
        b = realloc(b, 96u << 20);
        if (!b || b[0] != 1)
            return -1;
        free(b);
    }
    return 0;
}

static const char *lib_path(void)
{
    const char *env = getenv("RDMPI_TEST_LIBRDMPI");
    return env && *env ? env : RDMPI_TEST_LIBDIR "/librdmpi.so";
}

/* Child: exit 0 pass, 1 fail (message printed), 2 skip (message printed). */
static int single_threaded(void)
{
    if (libc_untouched() != 1) {
        printf("SKIP: unit/memhooks_dlopen/dlclose: libc's code already differs from its file "
               "before loading librdmpi\n");
        return 2;
    }
    void *h = dlopen(lib_path(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("FAIL: unit/memhooks_dlopen/dlclose: dlopen: %s\n", dlerror());
        return 1;
    }
    if (libc_untouched() != 0) {
        dlclose(h);
        printf("SKIP: unit/memhooks_dlopen/dlclose: librdmpi did not patch libc here (its "
               "self-test may have refused this allocator)\n");
        return 2;
    }
    dlclose(h);
    void *again = dlopen(lib_path(), RTLD_NOW | RTLD_NOLOAD);
    if (!again) {
        printf("FAIL: unit/memhooks_dlopen/nodelete: librdmpi was unloaded by dlclose while "
               "libc's code jumps into it\n");
        fflush(stdout);
        /* Go on: the next calls show what that means. */
    } else {
        dlclose(again);
        printf("PASS: unit/memhooks_dlopen/nodelete\n");
    }
    fflush(stdout);
    if (exercise(50) != 0) {
        printf("FAIL: unit/memhooks_dlopen/dlclose: a memory function failed after dlclose\n");
        return 1;
    }
    printf("PASS: unit/memhooks_dlopen/dlclose (mmap, mremap, madvise, munmap, malloc/realloc/"
           "free of 64 MiB after dlclose)\n");
    return again ? 0 : 1;
}

static int go_fd[2];
static void *waiter(void *arg)
{
    char c;
    (void)arg;
    if (read(go_fd[0], &c, 1) < 0)
        return NULL;
    return NULL;
}

static int threaded(void)
{
    pthread_t t;
    if (pipe(go_fd) != 0 || pthread_create(&t, NULL, waiter, NULL) != 0) {
        printf("FAIL: unit/memhooks_dlopen/threaded: cannot start a thread\n");
        return 1;
    }
    int before = libc_untouched();
    void *h = dlopen(lib_path(), RTLD_NOW | RTLD_LOCAL);
    int after = libc_untouched();
    int worked = exercise(20) == 0;
    if (write(go_fd[1], "x", 1) != 1)
        worked = 0;
    pthread_join(t, NULL);
    if (!h) {
        printf("FAIL: unit/memhooks_dlopen/threaded: dlopen: %s\n", dlerror());
        return 1;
    }
    if (before != 1) {
        printf("SKIP: unit/memhooks_dlopen/threaded: libc's code differs from its file "
               "already\n");
        return 2;
    }
    if (after != 1 || !worked) {
        printf("FAIL: unit/memhooks_dlopen/threaded: %s\n",
               after != 1 ? "libc was patched although another thread was running"
                          : "a memory function failed");
        return 1;
    }
    printf("PASS: unit/memhooks_dlopen/threaded (libc left as on disk)\n");
    return 0;
}

static int run(int (*fn)(void), const char *name)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int rc = fn();
        fflush(stdout);
        _exit(rc);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) {
        printf("FAIL: unit/memhooks_dlopen/%s: fork\n", name);
        return 1;
    }
    if (WIFSIGNALED(st)) {
        printf("FAIL: unit/memhooks_dlopen/%s: killed by signal %d\n", name, WTERMSIG(st));
        return 1;
    }
    return WEXITSTATUS(st) == 1;
}

int main(void)
{
    pg = (size_t)sysconf(_SC_PAGESIZE);
#if !(defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__))
    printf("SKIP: unit/memhooks_dlopen: memory hooks exist for x86_64 Linux with glibc only\n");
    return 0;
#endif
    int failed = run(single_threaded, "dlclose");
    failed += run(threaded, "threaded");
    return failed ? 1 : 0;
}
