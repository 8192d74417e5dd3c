/*
 * Logging. Every line is prefixed "rdmpi[host:pid:rank]" so a message in a
 * big job's merged output names its origin. The level comes from
 * RDMPI_LOG_LEVEL (error, warn, info, debug) and is tested before any
 * formatting happens.
 */
#ifndef RDMPI_CORE_LOG_H
#define RDMPI_CORE_LOG_H

enum { CORE_LOG_ERROR = 0, CORE_LOG_WARN, CORE_LOG_INFO, CORE_LOG_DEBUG };

extern int core_log_level;

void core_log_emit(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets the identity printed in every prefix (called once rank is known). */
void core_log_set_identity(const char *host, int rank);

#define core_log_(lvl, ...)                          \
    do {                                             \
        if ((lvl) <= core_log_level)                 \
            core_log_emit((lvl), __VA_ARGS__);       \
    } while (0)
#define core_error(...) core_log_(CORE_LOG_ERROR, __VA_ARGS__)
#define core_warn(...) core_log_(CORE_LOG_WARN, __VA_ARGS__)
#define core_info(...) core_log_(CORE_LOG_INFO, __VA_ARGS__)
#define core_debug(...) core_log_(CORE_LOG_DEBUG, __VA_ARGS__)

#endif
