/*
 * The naming rule for rdmpi's POSIX shared-memory objects, shared by the shm
 * transport (which creates them) and the launcher (which removes whatever a
 * failed job left behind). Every object of a job is named
 *   /rdmpi.<nspace>.<suffix>
 * with characters outside [A-Za-z0-9_-] in the nspace replaced by '_', so a
 * launcher that knows its nspace can sweep /dev/shm by prefix.
 */
#ifndef RDMPI_CORE_SHMNAME_H
#define RDMPI_CORE_SHMNAME_H

#include <stddef.h>
#include <stdio.h>

#define CORE_SHM_PREFIX "rdmpi."

/* Writes "rdmpi.<sanitized nspace>." into buf (no leading slash). */
static inline void core_shm_job_prefix(char *buf, size_t len, const char *nspace)
{
    size_t n = (size_t)snprintf(buf, len, "%s", CORE_SHM_PREFIX);
    for (const char *p = nspace; *p && n + 2 < len; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '_' || c == '-';
        buf[n++] = ok ? c : '_';
    }
    if (n + 1 < len)
        buf[n++] = '.';
    buf[n < len ? n : len - 1] = '\0';
}

#endif
