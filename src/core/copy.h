/*
 * A copy of a few bytes without a call to memcpy: small messages are copied once on their
 * way into a shm ring and once out into the posted receive, and for 1-16 byte messages the
 * two memcpy calls were a quarter of the instructions of a send.
 */
#ifndef RDMPI_CORE_COPY_H
#define RDMPI_CORE_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copies n bytes from src to dst (not overlapping): up to 32 inline in overlapping words,
 * memcpy above. */
static inline __attribute__((always_inline)) void core_copy_small(void *dst, const void *src,
                                                                  size_t n)
{
    uint8_t *d = dst;
    const uint8_t *p = src;
    uint64_t a, b, c, e;
    if (n >= 8 && n <= 32) { /* overlapping words: [0,8) [n-8,n), and [8,16) [n-16,n-8) */
        memcpy(&a, p, 8);
        memcpy(&b, p + n - 8, 8);
        if (n > 16) {
            memcpy(&c, p + 8, 8);
            memcpy(&e, p + n - 16, 8);
            memcpy(d + 8, &c, 8);
            memcpy(d + n - 16, &e, 8);
        }
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t x, y;
        memcpy(&x, p, 4);
        memcpy(&y, p + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++)
            d[i] = p[i];
    } else {
        memcpy(d, p, n);
    }
}

#endif
