/*
 * File hints: the info keys rdmpi acts on (named as ROMIO names them, so
 * codes tuned for ROMIO keep their settings), and those it accepts and
 * ignores. Every rank parses the info it was given; io_open and
 * io_set_info then take rank 0's values, since aggregators and buffer sizes
 * must agree across the file's ranks.
 *
 * Ignored: the striping and layout hints of Lustre and GPFS (striping_factor,
 * striping_unit, start_iodevice, IBM_largeblock_io, ...): no such file system
 * here. They are kept in the info MPI_File_get_info returns, listed under
 * "rdmpi_ignored_hints", so a user can see they had no effect.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "core/info_ops.h"
#include "io/io.h"

#define MIB ((MPI_Offset)1 << 20)

void io_hints_default(io_hints_t *h)
{
    memset(h, 0, sizeof(*h));
    h->cb_nodes = 0;                  /* 0: one aggregator per node */
    h->cb_buffer_size = 16 * MIB;
    h->cb_read = IO_AUTOMATIC;
    h->cb_write = IO_AUTOMATIC;
    h->ds_read = IO_AUTOMATIC;
    h->ds_write = IO_AUTOMATIC;
    h->ind_rd_buffer_size = 4 * MIB;
    h->ind_wr_buffer_size = 512 * 1024;
    h->file_perm = 0666;              /* less the umask, as open(2) does */
}

static const char *const ignored_keys[] = {
    "striping_factor", "striping_unit", "start_iodevice", "romio_lustre_co_ratio",
    "romio_lustre_coll_threshold", "romio_lustre_ds_in_coll", "IBM_largeblock_io",
    "IBM_io_buffer_size", "IBM_sparse_access", "cb_config_list", "romio_no_indep_rw",
    "access_style", "nb_proc", "num_io_nodes", "io_node_list", "chunked", "chunked_item",
    "chunked_size", "filename", "romio_min_fdomain_size", "romio_cb_fr_types",
    "romio_cb_fr_alignment", "romio_cb_alltoall", "romio_cb_pfr", "romio_cb_ds_threshold",
    "romio_filesystem_type", "romio_aggregator_list", NULL
};

static int parse_mode(const char *v, int *out)
{
    if (!strcmp(v, "enable") || !strcmp(v, "true"))
        *out = IO_ENABLE;
    else if (!strcmp(v, "disable") || !strcmp(v, "false"))
        *out = IO_DISABLE;
    else if (!strcmp(v, "automatic"))
        *out = IO_AUTOMATIC;
    else
        return CORE_EINFO_VALUE;
    return 0;
}

static int parse_size(const char *v, MPI_Offset min, MPI_Offset *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < min)
        return CORE_EINFO_VALUE;
    *out = x;
    return 0;
}

/* Invalid values of known keys are ignored (MPI: hints never make a call
 * fail), keeping the default. */
int io_hints_parse(io_hints_t *h, MPI_Info info, MPI_Info used)
{
    if (info == MPI_INFO_NULL)
        return 0;
    char ignored[1024] = "";
    int n = core_info_nkeys(info);
    for (int i = 0; i < n; i++) {
        const char *k = core_info_nthkey(info, i);
        const char *v = core_info_get(info, k);
        MPI_Offset x;
        if (!strcmp(k, "cb_nodes") && !parse_size(v, 1, &x))
            h->cb_nodes = x > (1 << 30) ? (1 << 30) : (int)x;
        else if (!strcmp(k, "cb_buffer_size") && !parse_size(v, 4096, &x))
            h->cb_buffer_size = x;
        else if (!strcmp(k, "romio_cb_read"))
            parse_mode(v, &h->cb_read);
        else if (!strcmp(k, "romio_cb_write"))
            parse_mode(v, &h->cb_write);
        else if (!strcmp(k, "collective_buffering")) {
            int m;
            if (!parse_mode(v, &m))
                h->cb_read = h->cb_write = m;
        } else if (!strcmp(k, "rdmpi_cb_push"))
            parse_mode(v, &h->cb_push);
        else if (!strcmp(k, "romio_ds_read"))
            parse_mode(v, &h->ds_read);
        else if (!strcmp(k, "romio_ds_write"))
            parse_mode(v, &h->ds_write);
        else if (!strcmp(k, "ind_rd_buffer_size") && !parse_size(v, 64, &x))
            h->ind_rd_buffer_size = x;
        else if (!strcmp(k, "ind_wr_buffer_size") && !parse_size(v, 64, &x))
            h->ind_wr_buffer_size = x;
        else if (!strcmp(k, "file_perm")) {
            char *end;
            long p = strtol(v, &end, 0);
            if (end != v && !*end && p >= 0 && p <= 07777)
                h->file_perm = (int)p;
        } else {
            for (int j = 0; ignored_keys[j]; j++) {
                if (strcmp(k, ignored_keys[j]))
                    continue;
                if (used && core_info_set(used, k, v) != 0)
                    return CORE_ENOMEM;
                size_t l = strlen(ignored);
                snprintf(ignored + l, sizeof(ignored) - l, "%s%s", l ? "," : "", k);
            }
        }
    }
    if (used && ignored[0] && core_info_set(used, "rdmpi_ignored_hints", ignored) != 0)
        return CORE_ENOMEM;
    return 0;
}

static const char *mode_name(int m)
{
    return m == IO_ENABLE ? "enable" : m == IO_DISABLE ? "disable" : "automatic";
}

int io_hints_export(const io_hints_t *h, MPI_Offset blksize, MPI_Info used)
{
    char v[64];
    int rc = 0;
    snprintf(v, sizeof(v), "%lld", (long long)h->cb_buffer_size);
    rc |= core_info_set(used, "cb_buffer_size", v);
    snprintf(v, sizeof(v), "%d", h->cb_nodes);
    rc |= core_info_set(used, "cb_nodes", v);
    rc |= core_info_set(used, "romio_cb_read", mode_name(h->cb_read));
    rc |= core_info_set(used, "romio_cb_write", mode_name(h->cb_write));
    rc |= core_info_set(used, "rdmpi_cb_push", mode_name(h->cb_push));
    rc |= core_info_set(used, "romio_ds_read", mode_name(h->ds_read));
    rc |= core_info_set(used, "romio_ds_write", mode_name(h->ds_write));
    snprintf(v, sizeof(v), "%lld", (long long)h->ind_rd_buffer_size);
    rc |= core_info_set(used, "ind_rd_buffer_size", v);
    snprintf(v, sizeof(v), "%lld", (long long)h->ind_wr_buffer_size);
    rc |= core_info_set(used, "ind_wr_buffer_size", v);
    snprintf(v, sizeof(v), "%lld", (long long)blksize);
    rc |= core_info_set(used, "cb_block_size", v);
    return rc ? CORE_ENOMEM : 0;
}
