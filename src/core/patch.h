/*
 * Code patching (x86_64): makes calls to a function of another library (in
 * practice libc's memory functions, for memhooks.c) run a handler instead,
 * by replacing one instruction near the function's entry with a 5-byte
 * relative jump to a slot that jumps to the handler. Only what
 * memhooks.c needs: no calling the original, no arbitrary prologues.
 *
 * Safety contract (see patch.c for why each part is needed):
 * - the replaced instruction is a single whole instruction at least 5 bytes
 *   long, so no thread can ever be stopped between two instructions that the
 *   jump overlaps; the instructions before it may only move the stack
 *   pointer (the slot moves it back) or write scratch registers;
 * - the 5 bytes lie in one aligned 16-byte block written by one locked
 *   16-byte compare-and-swap, so nothing ever sees them half-written;
 * - the slots live in a page that is never unmapped, and the caller keeps
 *   the handlers loaded (librdmpi is linked with -z nodelete);
 * - the caller applies and reverts patches only while no other thread
 *   exists (memhooks.c does it from a library constructor), because the
 *   processor's rules for modifying code that another core may be executing
 *   ask for a synchronization the other threads cannot be made to do.
 */
#ifndef RDMPI_CORE_PATCH_H
#define RDMPI_CORE_PATCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct core_patch {
    uint8_t *entry;         /* the function */
    void *handler;
    int site;               /* offset of the replaced instruction from entry */
    uint8_t *block;         /* the aligned 16 bytes holding it */
    uint8_t orig[16];       /* the block before */
    uint8_t patched[16];    /* ... and after */
    int applied;
} core_patch_t;

/* Where a jump may replace one whole instruction of the function whose
 * first len bytes are code and whose entry is at address addr: returns the
 * instruction's offset from the entry, or -1 when there is no such place
 * among the instructions we know; *undo is then the number of bytes the
 * instructions before it took off the stack. Pure: for tests too. */
int core_patch_site(const uint8_t *code, size_t len, uintptr_t addr, int *undo);

/* Prepares p[0..n) (entry and handler set by the caller): finds each site,
 * and builds the jump slots in a page within 2 GiB of the entries. Nothing
 * is written to the functions. Returns NULL, or a reason (a static
 * string). */
const char *core_patch_prepare(core_patch_t *p, int n);
/* Writes every patch; all or none: on failure the ones written are taken
 * back and a reason is returned. Only while no other thread exists. */
const char *core_patch_apply(core_patch_t *p, int n);
/* Takes back every applied patch. Only while no other thread exists. */
void core_patch_revert(core_patch_t *p, int n);
/* Whether every patch is applied and its bytes are still ours. */
int core_patch_intact(const core_patch_t *p, int n);

#endif
