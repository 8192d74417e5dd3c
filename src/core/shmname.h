/*
 * The naming rule for rdmpi's POSIX shared-memory objects, shared by the shm
 * transport (which creates them) and the launcher (which removes whatever a
 * failed job left behind). Every object of a job is named
 *   /rdmpi.<nspace>.<tag>.<suffix>
 * with characters outside [A-Za-z0-9_-] in the nspace replaced by '_', and
 * <tag> 16 hex digits derived from the job key: another user cannot predict
 * the name (to create it first, or to attach), two jobs with the same nspace
 * (the same pid on two login nodes) get different names, and a launcher that
 * knows its job's key sweeps /dev/shm by prefix without touching another
 * job's objects.
 */
#ifndef RDMPI_CORE_SHMNAME_H
#define RDMPI_CORE_SHMNAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/secret.h"

#define CORE_SHM_PREFIX "rdmpi."

/* Writes "rdmpi.<sanitized nspace>.<tag>." into buf (no leading slash). */
static inline void core_shm_job_prefix(char *buf, size_t len, const char *nspace,
                                       const uint8_t job_key[CORE_KEY_LEN])
{
    size_t n = (size_t)snprintf(buf, len, "%s", CORE_SHM_PREFIX);
    for (const char *p = nspace; *p && n + 2 < len; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '_' || c == '-';
        buf[n++] = ok ? c : '_';
    }
    uint8_t tag[16];
    char hex[2 * sizeof(tag) + 1];
    core_kdf(job_key, "rdmpi shm name", tag, sizeof(tag));
    core_hex(tag, 8, hex);
    if (n < len)
        snprintf(buf + n, len - n, ".%s.", hex);
    else
        buf[len - 1] = '\0';
}

/* Writes "rdmpi.b.<tag>." into buf (no leading slash): the prefix of the bridge segments
 * between processes of two jobs of one run (docs/dynamic.md, design a), one per pair,
 * named "<prefix><uid_lo>-<uid_hi>". Every job of one launcher holds its key, so the
 * launcher sweeps them by this prefix whichever job's cleanup runs. */
static inline void core_shm_bridge_prefix(char *buf, size_t len,
                                          const uint8_t job_key[CORE_KEY_LEN])
{
    uint8_t tag[16];
    char hex[2 * sizeof(tag) + 1];
    core_kdf(job_key, "rdmpi shm bridge", tag, sizeof(tag));
    core_hex(tag, 8, hex);
    snprintf(buf, len, "%sb.%s.", CORE_SHM_PREFIX, hex);
}

#endif
