/*
 * Memory events: tells subscribers about every change of the process's
 * mappings that can put different pages behind an address (unmap, remap,
 * discard, heap shrink, shared-memory detach, a fixed mapping over old
 * ones), including the changes glibc makes internally (free() unmapping a
 * large block, realloc moving one, malloc_trim discarding pages, sbrk
 * shrinking the heap). A registration cache needs exactly this to never hand
 * out a key for pages that are gone.
 *
 * It works by patching libc's munmap, mremap, madvise, brk, shmat, shmdt and
 * mmap (x86_64 Linux with glibc only; core/patch.h) with jumps to handlers
 * here, which report the range and then make the system call themselves.
 * The patches are made once, when the library is loaded (a constructor:
 * before main(), or inside dlopen()), and only if no other thread exists
 * then; they prove themselves with a self-test (a freed 64 MiB malloc block
 * must be seen, so must munmap and madvise(MADV_DONTNEED)), are taken back
 * when it fails, and are never taken back otherwise (librdmpi is never
 * unloaded: -z nodelete). RDMPI_VERBS_RCACHE=0, or an RDMPI_TRANSPORTS
 * without verbs, means no patches at all. The rest of the runtime only asks
 * core_memhooks_status() and must do without a cache when it says no.
 */
#ifndef RDMPI_CORE_MEMHOOKS_H
#define RDMPI_CORE_MEMHOOKS_H

#include <stdint.h>

enum core_mem_event {
    CORE_MEM_UNMAP = 1, /* munmap */
    CORE_MEM_REMAP,     /* mremap: the old range (and a fixed new one) */
    CORE_MEM_DISCARD,   /* madvise that can replace pages (DONTNEED, FREE, REMOVE, ...) */
    CORE_MEM_BRK,       /* the heap shrank: [new break, old break) */
    CORE_MEM_SHMDT,     /* a System V segment detached (or replaced by shmat SHM_REMAP) */
    CORE_MEM_FIXED      /* mmap(MAP_FIXED) over whatever was mapped there */
};

/* Called BEFORE the pages of [start, end) change, from whichever thread
 * changes them, possibly inside malloc or free with glibc's locks held and
 * possibly concurrently from several threads. It must not allocate, free,
 * map, unmap or call anything that might (no ibv_* calls, no logging), and
 * must not block on a lock whose holder could do one of those. The range is
 * page-aligned and may be wider than what really changes. */
typedef void (*core_mem_cb_t)(void *arg, uintptr_t start, uintptr_t end, int event);

#define CORE_MEMHOOKS_MAX_SUBS 8

/* Whether the hooks are usable: 0 when they were installed at load time,
 * passed the self-test and are still intact; else CORE_EUNSUPPORTED, and
 * *why (when why is not NULL; a static string) says why. Cheap. */
int core_memhooks_status(const char **why);
/* Whether the hooks are installed and still ours (another library patching
 * the same functions after us would silently take events away). Cheap: a
 * few loads. */
int core_memhooks_intact(void);
/* Adds a subscriber; returns a handle >= 0, or CORE_EBUSY when all
 * CORE_MEMHOOKS_MAX_SUBS slots are taken, CORE_EUNSUPPORTED without hooks. */
int core_memhooks_subscribe(core_mem_cb_t cb, void *arg);
/* Removes a subscriber; when it returns, cb is not running in any thread and
 * will not be called again. Must not be called from inside a callback. */
void core_memhooks_unsubscribe(int handle);

#endif
