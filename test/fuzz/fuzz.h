/*
 * Shared by the fuzz targets (test/fuzz/fuzz_*.c). test/fuzz/run builds each
 * target with clang -fsanitize=fuzzer,address,undefined from the project's
 * own sources, so a target calls the real decoder, never a copy.
 *
 * A target defines LLVMFuzzerTestOneInput and fuzz_make_seeds(). Built with
 * -DFUZZ_SEEDS and seedmain.c instead of libFuzzer (test/fuzz/run --seeds),
 * fuzz_make_seeds() writes its seed corpus (real inputs as the project's own
 * encoders produce them, plus edge cases) with fuzz_seed().
 *
 * FUZZ_CHECK states a property of the decoder beyond "does not crash"; a
 * failed one aborts, which libFuzzer reports as a crash with the input.
 */
#ifndef RDMPI_FUZZ_H
#define RDMPI_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fuzz_make_seeds(void);
/* Writes one seed file named name into the target's corpus directory. */
void fuzz_seed(const char *name, const void *data, size_t len);

/* Where FUZZ_CHECK reports: stderr, unless fuzz_quiet() silenced it. */
static FILE *fuzz_err;

#define FUZZ_CHECK(cond)                                                               \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(fuzz_err ? fuzz_err : stderr, "fuzz check failed: %s (%s:%d)\n",    \
                    #cond, __FILE__, __LINE__);                                        \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* Sends what the code under test prints to stdout and stderr to /dev/null
 * (millions of "invalid value" lines would slow the fuzzer down); the
 * sanitizers write their reports to file descriptor 2 and still show. */
static inline void fuzz_quiet(void)
{
    if (fuzz_err)
        return;
    int fd = dup(2);
    FILE *null = fopen("/dev/null", "w");
    if (fd < 0 || !null || !(fuzz_err = fdopen(fd, "w")))
        abort();
    setvbuf(fuzz_err, NULL, _IONBF, 0);
    stderr = null;
    stdout = null;
}

/* Reads the input front to back; past its end every read gives zeros. */
typedef struct fuzz_in {
    const uint8_t *p;
    size_t left;
} fuzz_in_t;

static inline uint8_t fuzz_u8(fuzz_in_t *in)
{
    if (!in->left)
        return 0;
    in->left--;
    return *in->p++;
}

static inline uint32_t fuzz_u32(fuzz_in_t *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)fuzz_u8(in) << (8 * i);
    return v;
}

/* Growable byte buffer for building seeds. */
typedef struct fuzz_buf {
    uint8_t *p;
    size_t len, cap;
} fuzz_buf_t;

static inline void fuzz_put(fuzz_buf_t *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q)
            abort();
        b->p = q;
        b->cap = cap;
    }
    for (size_t i = 0; i < n; i++)
        b->p[b->len + i] = ((const uint8_t *)p)[i];
    b->len += n;
}

static inline void fuzz_put_u8(fuzz_buf_t *b, uint8_t v)
{
    fuzz_put(b, &v, 1);
}

#endif
