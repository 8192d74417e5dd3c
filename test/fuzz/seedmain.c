/*
 * main() of a target built to write its seed corpus (test/fuzz/run --seeds):
 * seedmain DIR writes the seeds into DIR, then runs each through the target
 * once, so a seed that crashes is caught before it is committed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz.h"

static const char *seed_dir;
static int nseeds;

void fuzz_seed(const char *name, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", seed_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    LLVMFuzzerTestOneInput(data, len);
    nseeds++;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    seed_dir = argv[1];
    fuzz_make_seeds();
    /* stdout may have been silenced by fuzz_quiet(); its descriptor was not. */
    dprintf(STDOUT_FILENO, "%d seeds written to %s\n", nseeds, seed_dir);
    return 0;
}
