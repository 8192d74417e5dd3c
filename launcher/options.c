/*
 * rdmpirun's command line. Options follow mpirun: each long option may be
 * written with one or two dashes, with its value either as the next argument
 * or after '='. The first argument that is not an option is the program;
 * everything after it belongs to the program. Host selection is only
 * collected here; hosts.c decides whether it is something we can run.
 */
#include "launch.h"

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define MAX_RANKS 65535 /* PMIX_LOCAL_RANK is a uint16_t */

enum opt_id {
    OPT_NP, OPT_TAG, OPT_TIMEOUT, OPT_BIND, OPT_OVERSUB, OPT_REPORT,
    OPT_EXPORT, OPT_HOST, OPT_HOSTFILE, OPT_MAPBY, OPT_AGENT, OPT_FLAT, OPT_VERSION, OPT_HELP, OPT_NOOP
};

struct opt_row {
    const char *name;
    int has_arg;
    enum opt_id id;
};

static const struct opt_row opt_table[] = {
    {"n", 1, OPT_NP},
    {"np", 1, OPT_NP},
    {"tag-output", 0, OPT_TAG},
    {"timeout", 1, OPT_TIMEOUT},
    {"bind-to", 1, OPT_BIND},
    {"oversubscribe", 0, OPT_OVERSUB},
    {"report-bindings", 0, OPT_REPORT},
    {"x", 1, OPT_EXPORT},
    {"host", 1, OPT_HOST},
    {"H", 1, OPT_HOST},
    {"hostfile", 1, OPT_HOSTFILE},
    {"machinefile", 1, OPT_HOSTFILE},
    {"map-by", 1, OPT_MAPBY},
    {"launch-agent", 1, OPT_AGENT},
    {"launch-flat", 0, OPT_FLAT},
    {"version", 0, OPT_VERSION},
    {"V", 0, OPT_VERSION},
    {"h", 0, OPT_HELP},
    {"help", 0, OPT_HELP},
    /* Accepted so that command lines written for Open MPI keep working. */
    {"allow-run-as-root", 0, OPT_NOOP},
};

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: rdmpirun [options] program [args...]\n"
        "Start N ranks of program as one MPI job, on this node or on the given hosts.\n\n"
        "  -n, -np N              number of ranks (default: all slots of the hosts, else\n"
        "                         the number of cores)\n"
        "  --tag-output           prefix each output line with [1,rank]<stdout>: or <stderr>:\n"
        "  --timeout SEC          end the job after SEC seconds, exit status 124\n"
        "                         (default: $RDMPI_TIMEOUT, else no limit)\n"
        "  --bind-to core|none    bind rank i to core i %% ncores (default: core unless\n"
        "                         oversubscribed)\n"
        "  --report-bindings      print each rank's binding to stderr\n"
        "  --oversubscribe        say nothing when ranks outnumber cores (always allowed; without\n"
        "                         it rdmpirun warns)\n"
        "  -x VAR[=value]         export VAR to the ranks\n"
        "  --host H1:S1,H2:S2     run on these hosts with S slots each (default 1)\n"
        "  --hostfile F           hosts from F: 'host slots=N' or 'host:N' lines, # comments\n"
        "  --map-by slot|node     fill each host's slots in turn (default), or one rank per\n"
        "                         host round-robin; MPI_Comm_spawn's children too (over the\n"
        "                         slots left free, then round-robin)\n"
        "  --launch-agent CMD     start rdmpid on other hosts with 'CMD host rdmpid'\n"
        "                         (default: ssh -x -o BatchMode=yes); every rdmpid starts\n"
        "                         those of its children in the daemon tree the same way\n"
        "  --launch-flat          start every rdmpid from this host (for hosts that cannot\n"
        "                         start commands on each other; O(hosts) agents here)\n"
        "  --version              print the version and exit\n"
        "  -h, --help             print this help and exit\n");
}

static void version(void)
{
    printf("rdmpirun (rdmpi) %s\nPMIx: %s\n", PACKAGE_VERSION, PMIx_Get_version());
}

static const struct opt_row *lookup(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]); i++)
        if (strlen(opt_table[i].name) == len && !strncmp(opt_table[i].name, name, len))
            return &opt_table[i];
    return NULL;
}

static int parse_nranks(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > MAX_RANKS) {
        fprintf(stderr, "rdmpirun: invalid number of ranks '%s' (expected 1..%d)\n",
                s, MAX_RANKS);
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

static int parse_timeout(const char *s, const char *origin, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0) {
        fprintf(stderr, "rdmpirun: invalid timeout '%s' from %s (expected seconds >= 0)\n",
                s, origin);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int push(const char ***list, int *n, const char *s)
{
    const char **l = realloc(*list, (size_t)(*n + 1) * sizeof(*l));
    if (!l)
        return -ENOMEM;
    l[(*n)++] = s;
    *list = l;
    return 0;
}

static int apply(struct launch_opts *o, enum opt_id id, const char *val)
{
    switch (id) {
    case OPT_NP:
        return parse_nranks(val, &o->nranks);
    case OPT_TAG:
        o->tag_output = 1;
        return 0;
    case OPT_TIMEOUT:
        return parse_timeout(val, "--timeout", &o->timeout);
    case OPT_BIND:
        if (!strcmp(val, "core")) {
            o->bind = LAUNCH_BIND_CORE;
        } else if (!strcmp(val, "none")) {
            o->bind = LAUNCH_BIND_NONE;
        } else {
            fprintf(stderr, "rdmpirun: unsupported --bind-to '%s' (use core or none)\n", val);
            return -EINVAL;
        }
        return 0;
    case OPT_REPORT:
        o->report_bindings = 1;
        return 0;
    case OPT_EXPORT:
        if (!*val || *val == '=') {
            fprintf(stderr, "rdmpirun: -x needs a variable name, got '%s'\n", val);
            return -EINVAL;
        }
        return push(&o->exports, &o->nexports, val);
    case OPT_HOST:
        return push(&o->hosts, &o->nhosts, val);
    case OPT_HOSTFILE:
        o->hostfile = val;
        return 0;
    case OPT_MAPBY:
        if (!strcmp(val, "slot") || !strcmp(val, "core")) {
            o->map_by_node = 0;
        } else if (!strcmp(val, "node")) {
            o->map_by_node = 1;
        } else {
            fprintf(stderr, "rdmpirun: unsupported --map-by '%s' (use slot or node)\n", val);
            return -EINVAL;
        }
        return 0;
    case OPT_AGENT:
        if (!val[strspn(val, " \t")]) {
            fprintf(stderr, "rdmpirun: --launch-agent needs a command\n");
            return -EINVAL;
        }
        o->agent = val;
        return 0;
    case OPT_FLAT:
        o->launch_flat = 1;
        return 0;
    case OPT_VERSION:
        version();
        return LAUNCH_OPTS_DONE;
    case OPT_HELP:
        usage(stdout);
        return LAUNCH_OPTS_DONE;
    case OPT_OVERSUB:
        o->oversubscribe = 1;
        return 0;
    case OPT_NOOP:
        return 0;
    }
    return 0;
}

/*
 * Parses one option at argv[*i], advancing *i past its value. Returns 0,
 * LAUNCH_OPTS_DONE, or a negative code after printing why.
 */
static int parse_one(int argc, char **argv, int *i, struct launch_opts *o)
{
    const char *arg = argv[*i];
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct opt_row *row = lookup(name, len);

    if (!row) {
        fprintf(stderr, "rdmpirun: unknown option '%s' (see rdmpirun --help)\n", arg);
        return -EINVAL;
    }
    if (!row->has_arg) {
        if (eq) {
            fprintf(stderr, "rdmpirun: option '%.*s' takes no value\n", (int)(eq - arg), arg);
            return -EINVAL;
        }
        return apply(o, row->id, NULL);
    }
    const char *val = eq ? eq + 1 : NULL;
    if (!val) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "rdmpirun: option '%s' needs a value\n", arg);
            return -EINVAL;
        }
        val = argv[++*i];
    }
    return apply(o, row->id, val);
}

int launch_options_parse(int argc, char **argv, struct launch_opts *o)
{
    int i, rc;

    memset(o, 0, sizeof(*o));
    o->bind = LAUNCH_BIND_DEFAULT;
    o->timeout = -1; /* not given: RDMPI_TIMEOUT decides below */
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--")) {
            i++;
            break;
        }
        if (arg[0] != '-' || !arg[1])
            break;
        rc = parse_one(argc, argv, &i, o);
        if (rc)
            return rc;
    }
    if (i >= argc) {
        fprintf(stderr, "rdmpirun: no program given (see rdmpirun --help)\n");
        return -EINVAL;
    }
    o->argv = &argv[i];

    if (o->timeout >= 0)
        return 0;
    o->timeout = 0;
    const char *env = getenv("RDMPI_TIMEOUT");
    if (env && *env)
        return parse_timeout(env, "RDMPI_TIMEOUT", &o->timeout);
    return 0;
}

void launch_options_free(struct launch_opts *o)
{
    free(o->exports);
    free(o->hosts);
    o->exports = o->hosts = NULL;
}
