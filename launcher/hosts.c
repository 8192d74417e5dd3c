/*
 * Host selection (--host, --hostfile). rdmpirun launches on this node only,
 * so for now the host lists are just checked: naming only this host is fine,
 * naming any other host is refused with a clear message. Multi-node
 * launching will replace the check with a real node list.
 */
#include "launch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True when name (without any ":slots" suffix) denotes this host. */
static int is_local(const char *name, size_t len, const char *localhost)
{
    static const char *const aliases[] = {"localhost", "127.0.0.1", "::1"};
    size_t short_len = strcspn(localhost, ".");

    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (strlen(aliases[i]) == len && !strncmp(aliases[i], name, len))
            return 1;
    if (strlen(localhost) == len && !strncmp(localhost, name, len))
        return 1;
    return short_len == len && !strncmp(localhost, name, len);
}

static int refuse(const char *name, size_t len, const char *localhost)
{
    fprintf(stderr,
            "rdmpirun: multi-node launching is not supported yet "
            "(host '%.*s' is not this host '%s')\n", (int)len, name, localhost);
    return -ENOTSUP;
}

/* Checks one comma-separated --host value, entries "name" or "name:slots". */
static int check_list(const char *list, const char *localhost)
{
    const char *p = list;

    while (*p) {
        size_t item = strcspn(p, ",");
        size_t name = strcspn(p, ",:");
        if (name > 0 && !is_local(p, name, localhost))
            return refuse(p, name, localhost);
        p += item;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* A hostfile line is "name [slots=N] ..."; '#' starts a comment. */
static int check_hostfile(const char *path, const char *localhost)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int rc = 0;

    if (!f) {
        fprintf(stderr, "rdmpirun: cannot read hostfile '%s': %s\n", path, strerror(errno));
        return -errno;
    }
    while (!rc && fgets(line, sizeof(line), f)) {
        char *p = line + strspn(line, " \t");
        size_t len = strcspn(p, " \t\r\n#:");
        if (len > 0 && !is_local(p, len, localhost))
            rc = refuse(p, len, localhost);
    }
    fclose(f);
    return rc;
}

int launch_hosts_check(const struct launch_opts *o, const char *localhost)
{
    for (int i = 0; i < o->nhosts; i++) {
        int rc = check_list(o->hosts[i], localhost);
        if (rc)
            return rc;
    }
    return o->hostfile ? check_hostfile(o->hostfile, localhost) : 0;
}
