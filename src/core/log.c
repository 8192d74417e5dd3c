/*
 * Logging: one line per message to stderr, prefixed with host, pid and rank,
 * written with a single write() so lines of different ranks never mix.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "core/log.h"

int core_log_level = CORE_LOG_WARN;

static char log_host[64] = "?";
static int log_rank = -1;

static const char *const level_names[] = { "error", "warning", "info", "debug" };

void core_log_set_identity(const char *host, int rank)
{
    snprintf(log_host, sizeof(log_host), "%s", host);
    log_rank = rank;
}

void core_log_emit(int level, const char *fmt, ...)
{
    char line[1024];
    int n;
    if (log_rank >= 0)
        n = snprintf(line, sizeof(line), "rdmpi[%s:%d:rank %d] %s: ", log_host, (int)getpid(),
                     log_rank, level_names[level]);
    else
        n = snprintf(line, sizeof(line), "rdmpi[%s:%d] %s: ", log_host, (int)getpid(),
                     level_names[level]);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}
