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
#include "core/log.h"
#include "rt/rt.h"

#ifdef RDMPI_HAVE_VERBS
#include "transports/verbs/verbs.h"
void tp_verbs_info_print(const vb_config_t *cfg); /* transports/verbs/verbs_info.c */
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

/* Every registered setting, through the registry's enumeration (what MPI_T will use). */
static void print_config(const core_config_t *reg)
{
    printf("\nSettings (environment variables):\n");
    for (size_t i = 0; i < core_config_count(reg); i++) {
        char val[160];
        core_config_param_t p;
        if (core_config_param(reg, i, &p) != 0)
            break;
        core_config_format(&p, val, sizeof(val));
        printf("  %-22s = %-20s [%s]\n      %s\n", p.row->name, val, p.origin, p.row->help);
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
    core_config_t reg = { .nslots = 0 };
    if (rt_config_register(&reg) != 0) {
        fprintf(stderr, "rdmpi_info: out of memory\n");
        return 1;
    }
    const core_settings_t *core = core_config_values(&reg, &core_settings_group);
    core_log_level = core->log_level;
    core_config_check_env(&reg);
    print_build();
    print_host();
#ifdef RDMPI_HAVE_VERBS
    tp_verbs_info_print(core_config_values(&reg, &tp_verbs_config_group));
#endif
    print_config(&reg);
    core_config_fini(&reg);
    return 0;
}
