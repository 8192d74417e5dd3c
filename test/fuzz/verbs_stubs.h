/*
 * Stand-ins for the parts of the library and of the verbs transport around
 * the file a verbs fuzz target tests (verbs_ud.c, verbs_fp.c): no device,
 * no runtime. Included by one target each; every function here either
 * cannot be reached from the receive paths fuzzed (and aborts if it is) or
 * records what it was given.
 */
#ifndef RDMPI_FUZZ_VERBS_STUBS_H
#define RDMPI_FUZZ_VERBS_STUBS_H

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>
#include "core/log.h"
#include "fuzz.h"
#include "transports/verbs/verbs.h"

#define NPEERS 4

int core_log_level = CORE_LOG_ERROR;
/* The handler table the transports layer would own (iface->am points here). */
static tp_am_entry_t tp_am_table[TP_AM_MAX];

static vb_peer_t *stub_peers[NPEERS];
static unsigned stub_other;      /* messages handed to vb_dispatch_other */
static jmp_buf *stub_fatal_jmp;  /* where core_fatal returns to, or NULL: abort */
static unsigned stub_fatals;

void core_log_emit(int level, const char *fmt, ...)
{
    (void)level;
    (void)fmt;
}

void core_fatal(const char *fmt, ...)
{
    /* A fatal error on malformed input ends the process in the library:
     * not a crash of the decoder, but counted, and the target resumes. */
    stub_fatals++;
    if (stub_fatal_jmp)
        longjmp(*stub_fatal_jmp, 1);
    abort();
}

const char *core_rank_host(core_runtime_t *rt, int rank)
{
    return "fuzzhost";
}

double core_wtime(void)
{
    return 1000.0;
}

/* Reads every byte of a message handed up, so ASan sees an overread. */
static void stub_touch(const void *p, size_t n)
{
    const volatile uint8_t *b = p;
    uint8_t sum = 0;
    FUZZ_CHECK(n == 0 || p);
    for (size_t i = 0; i < n; i++)
        sum += b[i];
    (void)sum;
}

vb_peer_t *vb_peer_get(vb_iface_t *s, int rank)
{
    FUZZ_CHECK(rank >= 0 && rank < s->size);
    return rank < NPEERS ? stub_peers[rank] : NULL;
}

/* Senders by uid, mapped as verbs_iface.c maps them (vb_uid_index, the real one): our
 * ranks are uids 0..NPEERS-1, and no process of another job is known. */
vb_peer_t *vb_peer_of_uid(vb_iface_t *s, uint32_t uid)
{
    int idx = vb_uid_index(uid, 0, s->size, NULL, 0);
    FUZZ_CHECK(idx < s->size);
    return idx >= 0 ? vb_peer_get(s, idx) : NULL;
}

/* Only reached from timers (a silent process of another job), which no target drives. */
void tp_peer_lost(tp_iface_t *iface, int peer)
{
    abort();
}

void vb_active_add(vb_iface_t *s, vb_peer_t *p)
{
}

int vb_dispatch_other(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len)
{
    stub_touch(hdr, hdr_len);
    stub_touch(payload, len);
    stub_other++;
    return 0;
}

/* As verbs_iface.c does, without the report: nothing more is taken from the peer. */
void vb_peer_malformed(vb_iface_t *s, vb_peer_t *p, unsigned id, int rc, const char *what,
                       const char *why)
{
    FUZZ_CHECK(rc < 0 || what);
    p->failed = 1;
}

uint64_t vb_rand(vb_iface_t *s)
{
    return 42;
}

void vb_wc_fatal(vb_iface_t *s, const struct ibv_wc *wc, int peer, const char *what)
{
    abort();
}

#endif
