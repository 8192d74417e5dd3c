/*
 * The shm transport's settings (registered by the transports layer, see
 * transports/config.c; read at open through core_config_values).
 */
#include <limits.h>
#include "transports/shm/shm.h"

#define OFF(f) offsetof(tp_shm_config_t, f)

static const char *const fail_points[] = { "none", "create", "attach", NULL };

static const core_config_row_t rows[] = {
    { "RDMPI_SHM_EAGER_LIMIT", CORE_CFG_SIZE, "0",
      "largest message sent eagerly (copied through the ring) within a node (0: with single "
      "copy (CMA), a 32nd of a ring when rings are 256k or more (few local ranks), and up to "
      "an 8th of one when the ring to the receiver is drained; else 4k; without CMA 16k)",
      OFF(shm_eager_limit), 0, NULL },
    { "RDMPI_SHM_RING_SIZE", CORE_CFG_SIZE, "0",
      "bytes per ring between two ranks of a node (0: sized from the rank count)",
      OFF(shm_ring_size), 0, NULL },
    { "RDMPI_SHM_CMA", CORE_CFG_BOOL, "1",
      "single-copy large messages with process_vm_readv (0: pipelined copy)", OFF(shm_cma), 0,
      NULL },
    { "RDMPI_SHM_BELL_FENCE", CORE_CFG_BOOL, "0",
      "senders fence after every record before looking at the receiver's doorbell (0: no "
      "fence where the kernel offers the global expedited membarrier, which a rank going to "
      "sleep calls instead; not on an oversubscribed node)", OFF(shm_bell_fence), 0, NULL },
    { "RDMPI_SHM_BRIDGE_RING", CORE_CFG_SIZE, "1m",
      "bytes per ring of a bridge between two processes of different jobs of one run on one "
      "node (spawned jobs and their parents; a power of two)", OFF(shm_bridge_ring), 0, NULL,
      4096, 1 << 30 },
    { "RDMPI_TEST_SHM_BRIDGE_FAIL", CORE_CFG_ENUM, "none",
      "test suite only: a shm bridge between jobs fails where said (create: the lower uid "
      "cannot make the segment; attach: the higher uid refuses it), so the pair stays on tcp",
      OFF(test_bridge_fail), 0, fail_points, 0, 0, 0 },
};

/* Copied in and out of the ring, a message crosses between the two cores twice (the sender's
 * writes take the ring's lines from the receiver's cache, the receiver's reads take them
 * back); read by CMA, once. Measured on the 2-core Xeon VM (OSU-style ping-pong, minimum of
 * 2000-3000 round trips, one way): 16 KiB eager 2.5-3.3 us, by CMA 1.4-1.9 (Open MPI's, also
 * CMA, 1.4-1.9); 8 KiB eager 1.65-1.9, by CMA 1.45-1.65. With the reads of a batch in one
 * system call (tp_shm_getq_t), CMA also matches eager's bandwidth at 8 KiB (osu_bw-style
 * windows: 13.3-13.6 GB/s against 13.5-15.0; both directions 19.7-20.1 against 15.7-17.2);
 * at 4 KiB eager is faster (0.9-1.1 us against 1.15). */
#define SHM_EAGER_CMA (4u << 10)
#define SHM_EAGER_COPY (16u << 10)
/* ... but a rendezvous pays a round trip and both processes must run for it: with the other
 * cores busy (2-core VM, OSU 7.4, medians of 3 interleaved rounds, 2 ranks) 8 KiB by CMA took
 * 4.7 us one way against 1.3 eager, 16 KiB 5.3 against 1.75, 32 KiB 6.0 against 2.65
 * (Open MPI 4.5, 4.8, 5.3), and osu_bw/osu_bibw 8-32 KiB went 2-7x up. So with CMA and rings
 * of at least SHM_EAGER_BIG_RING bytes, messages up to a 32nd of a ring go eager (32 KiB with
 * the 1 MiB rings of 2-4 ranks, 16 KiB at 8). Not more: with a 64 or 128 KiB limit osu_bibw
 * at 64-128 KiB fell from 37-50 to 3-7 GB/s in most rounds (both sides' rings full, the
 * window of 64 sends queued), though osu_latency gained there (64 KiB 4.5 us against 8.7).
 * The ring size falls with the square of the node's rank count (tp_shm_ring_size_pick), so
 * this is only with few local ranks (up to 11 at the default sizes) and costs no memory
 * beyond the rings already there; with more ranks the limit stays SHM_EAGER_CMA. */
#define SHM_EAGER_BIG_RING (256u << 10)

size_t tp_shm_eager_limit(const tp_shm_config_t *cfg, int cma, size_t ring_size, size_t max_am)
{
    size_t want = cfg->shm_eager_limit ? cfg->shm_eager_limit
                  : !cma               ? SHM_EAGER_COPY
                  : ring_size >= SHM_EAGER_BIG_RING ? ring_size / 32
                                                    : SHM_EAGER_CMA;
    return want < max_am ? want : max_am;
}

/* A message above the eager limit but alone (the ring to its receiver drained: a ping-pong,
 * the first of a window) goes eagerly up to an 8th of a ring: its receiver is waiting, and
 * the rendezvous' round trip (RTS, a CMA read of the sender's pages, FIN) costs more than
 * the second copy. OSU 7.4 osu_latency, 2 ranks, medians of 3 interleaved rounds under load
 * (2-core VM): 64 KiB eager 4.5-4.9 us against 8.7-9.0 by rendezvous (Open MPI 6.8-6.9),
 * 128 KiB 8.2-8.6 against 10.4-11.3 (Open MPI 8.9-9.4), 256 KiB 13.1-13.7 against 13.0-15.1
 * (no gain: not taken). A stream keeps the rendezvous (its ring is not drained): with every
 * 64 KiB message eager, osu_bibw at 64 KiB was 23-26 GB/s even with rings that held a whole
 * window (8 MiB), against 37-38 by CMA. Only with the automatic eager limit (an
 * RDMPI_SHM_EAGER_LIMIT set is the limit for every message) and the rings of few ranks. */
size_t tp_shm_eager_idle_limit(const tp_shm_config_t *cfg, int cma, size_t ring_size,
                               size_t max_am)
{
    if (cfg->shm_eager_limit || !cma || ring_size < SHM_EAGER_BIG_RING)
        return 0;
    return ring_size / 8 < max_am ? ring_size / 8 : max_am;
}

const core_config_group_t tp_shm_config_group = {
    "shm", rows, sizeof(rows) / sizeof(rows[0]), sizeof(tp_shm_config_t)
};
