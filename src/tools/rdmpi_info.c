/*
 * rdmpi_info: what this rdmpi build is, what it finds on this machine, and
 * every RDMPI_* setting with its current value and where the value came
 * from. With --doctor it checks the system limits that break MPI jobs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "config.h"
#include "mpi.h"
#include "core/config.h"

#ifdef RDMPI_HAVE_VERBS
void tp_verbs_info_print(const core_config_t *cfg); /* transports/verbs/verbs_info.c */
#endif

static void print_build(void)
{
    printf("rdmpi %s (MPI %d.%d)\n", RDMPI_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION);
    printf("  transports built : self shm%s tcp\n",
#ifdef RDMPI_HAVE_VERBS
           " verbs"
#else
           "   (verbs: not built: libibverbs-dev was missing at configure)"
#endif
    );
}

static long read_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

static void print_host(void)
{
    char host[256] = "?";
    gethostname(host, sizeof(host) - 1);
    printf("  host             : %s, %ld cores online\n", host, sysconf(_SC_NPROCESSORS_ONLN));
    struct statvfs vfs;
    if (statvfs("/dev/shm", &vfs) == 0)
        printf("  /dev/shm         : %.0f MiB free\n",
               (double)vfs.f_bavail * (double)vfs.f_frsize / 1048576.0);
    else
        printf("  /dev/shm         : MISSING (the shm transport needs it)\n");
    long yama = read_long("/proc/sys/kernel/yama/ptrace_scope");
    printf("  single copy (CMA): %s\n",
           yama <= 1 ? "expected to work (rdmpi allows its peers to read it)"
                     : "blocked by kernel.yama.ptrace_scope >= 2: large messages use a pipelined copy");
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
        if (rl.rlim_cur == RLIM_INFINITY)
            printf("  locked memory    : unlimited\n");
        else
            printf("  locked memory    : %llu KiB%s\n", (unsigned long long)rl.rlim_cur / 1024,
                   rl.rlim_cur < (64u << 20) ? " (low for RDMA: raise ulimit -l)" : "");
    }
}

static void print_config(void)
{
    core_config_t cfg;
    size_t n;
    core_config_load(&cfg);
    const core_config_row_t *rows = core_config_table(&n);
    printf("\nSettings (environment variables):\n");
    for (size_t i = 0; i < n; i++) {
        char val[160];
        const char *origin;
        core_config_format(&cfg, &rows[i], val, sizeof(val), &origin);
        printf("  %-22s = %-20s [%s]\n      %s\n", rows[i].name, val, origin, rows[i].help);
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: rdmpi_info\n  Prints the build, this machine's facts that matter to "
                   "rdmpi, and every RDMPI_* setting.\n");
            return 0;
        }
        fprintf(stderr, "rdmpi_info: unknown argument %s (try --help)\n", argv[i]);
        return 2;
    }
    print_build();
    print_host();
#ifdef RDMPI_HAVE_VERBS
    {
        core_config_t cfg;
        core_config_load(&cfg);
        tp_verbs_info_print(&cfg);
    }
#endif
    print_config();
    return 0;
}
