/*
 * Algorithm selection: which algorithms each collective has, the rules that
 * pick one from the message size, group size and node layout (rows scanned
 * in order, first match wins), and RDMPI_COLL_<NAME>=<algorithm>, read once
 * at coll_init, which forces one. The thresholds follow the defaults of
 * MPICH and Open MPI's tuned component (design brief, section 6), adjusted
 * where measurements on shared memory said otherwise (noted per row).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "collectives/coll_impl.h"
#include "core/log.h"

#define COLL_MAX_ALGS 6

static const char *const alg_names[COLL_NALGS] = {
    [COLL_ALG_AUTO] = "auto",
    [COLL_ALG_DISSEMINATION] = "dissemination",
    [COLL_ALG_BINOMIAL] = "binomial",
    [COLL_ALG_SCATTER_RING] = "scatter_ring",
    [COLL_ALG_SCATTER_RECDBL] = "scatter_recursive_doubling",
    [COLL_ALG_RSAG] = "reduce_scatter_gather",
    [COLL_ALG_RECDBL] = "recursive_doubling",
    [COLL_ALG_RABENSEIFNER] = "rabenseifner",
    [COLL_ALG_RING] = "ring",
    [COLL_ALG_REDUCE_BCAST] = "reduce_bcast",
    [COLL_ALG_LINEAR] = "linear",
    [COLL_ALG_BRUCK] = "bruck",
    [COLL_ALG_PAIRWISE] = "pairwise",
    [COLL_ALG_HALVING] = "recursive_halving",
    [COLL_ALG_TWO_LEVEL] = "two_level",
};

static const struct {
    const char *name;                     /* "MPI_Bcast" */
    const char *env;                      /* RDMPI_COLL_<NAME>, NULL: one algorithm, no choice */
    enum coll_alg algs[COLL_MAX_ALGS];    /* what RDMPI_COLL_<NAME> may name */
} colls[COLL_NCOLLS] = {
    [COLL_BARRIER] = { "MPI_Barrier", "RDMPI_COLL_BARRIER",
                       { COLL_ALG_DISSEMINATION, COLL_ALG_LINEAR, COLL_ALG_TWO_LEVEL } },
    [COLL_BCAST] = { "MPI_Bcast", "RDMPI_COLL_BCAST",
                     { COLL_ALG_BINOMIAL, COLL_ALG_SCATTER_RING, COLL_ALG_SCATTER_RECDBL,
                       COLL_ALG_LINEAR, COLL_ALG_TWO_LEVEL } },
    [COLL_REDUCE] = { "MPI_Reduce", "RDMPI_COLL_REDUCE",
                      { COLL_ALG_BINOMIAL, COLL_ALG_RSAG, COLL_ALG_TWO_LEVEL, COLL_ALG_LINEAR } },
    [COLL_ALLREDUCE] = { "MPI_Allreduce", "RDMPI_COLL_ALLREDUCE",
                         { COLL_ALG_RECDBL, COLL_ALG_RABENSEIFNER, COLL_ALG_RING,
                           COLL_ALG_REDUCE_BCAST, COLL_ALG_TWO_LEVEL, COLL_ALG_LINEAR } },
    [COLL_GATHER] = { "MPI_Gather", "RDMPI_COLL_GATHER", { COLL_ALG_BINOMIAL, COLL_ALG_LINEAR } },
    [COLL_GATHERV] = { "MPI_Gatherv", "RDMPI_COLL_GATHERV", { COLL_ALG_LINEAR } },
    [COLL_SCATTER] = { "MPI_Scatter", "RDMPI_COLL_SCATTER",
                       { COLL_ALG_BINOMIAL, COLL_ALG_LINEAR } },
    [COLL_SCATTERV] = { "MPI_Scatterv", "RDMPI_COLL_SCATTERV", { COLL_ALG_LINEAR } },
    [COLL_ALLGATHER] = { "MPI_Allgather", "RDMPI_COLL_ALLGATHER",
                         { COLL_ALG_RECDBL, COLL_ALG_BRUCK, COLL_ALG_RING, COLL_ALG_LINEAR } },
    [COLL_ALLGATHERV] = { "MPI_Allgatherv", "RDMPI_COLL_ALLGATHERV",
                          { COLL_ALG_RECDBL, COLL_ALG_BRUCK, COLL_ALG_RING, COLL_ALG_LINEAR } },
    [COLL_ALLTOALL] = { "MPI_Alltoall", "RDMPI_COLL_ALLTOALL",
                        { COLL_ALG_PAIRWISE, COLL_ALG_LINEAR, COLL_ALG_BRUCK } },
    [COLL_ALLTOALLV] = { "MPI_Alltoallv", "RDMPI_COLL_ALLTOALLV",
                         { COLL_ALG_PAIRWISE, COLL_ALG_LINEAR } },
    [COLL_ALLTOALLW] = { "MPI_Alltoallw", "RDMPI_COLL_ALLTOALLW",
                         { COLL_ALG_PAIRWISE, COLL_ALG_LINEAR } },
    [COLL_REDUCE_SCATTER] = { "MPI_Reduce_scatter", "RDMPI_COLL_REDUCE_SCATTER",
                              { COLL_ALG_HALVING, COLL_ALG_PAIRWISE } },
    [COLL_REDUCE_SCATTER_BLOCK] = { "MPI_Reduce_scatter_block",
                                    "RDMPI_COLL_REDUCE_SCATTER_BLOCK",
                                    { COLL_ALG_HALVING, COLL_ALG_PAIRWISE } },
    [COLL_SCAN] = { "MPI_Scan", "RDMPI_COLL_SCAN", { COLL_ALG_RECDBL, COLL_ALG_LINEAR } },
    [COLL_EXSCAN] = { "MPI_Exscan", "RDMPI_COLL_EXSCAN", { COLL_ALG_RECDBL, COLL_ALG_LINEAR } },
    [COLL_NEIGHBOR_ALLGATHER] = { "MPI_Neighbor_allgather", NULL, { COLL_ALG_LINEAR } },
    [COLL_NEIGHBOR_ALLGATHERV] = { "MPI_Neighbor_allgatherv", NULL, { COLL_ALG_LINEAR } },
    [COLL_NEIGHBOR_ALLTOALL] = { "MPI_Neighbor_alltoall", NULL, { COLL_ALG_LINEAR } },
    [COLL_NEIGHBOR_ALLTOALLV] = { "MPI_Neighbor_alltoallv", NULL, { COLL_ALG_LINEAR } },
    [COLL_NEIGHBOR_ALLTOALLW] = { "MPI_Neighbor_alltoallw", NULL, { COLL_ALG_LINEAR } },
};

/* Conditions of a rule besides the byte range and group size. */
enum {
    W_POW2 = 1u, W_NOT_POW2 = 2u, W_COMMUTE = 4u, W_FEW = 8u /* count < pof2 */,
    W_NODES = 16u, /* the communicator spans nodes, and some node holds several of its ranks */
    W_CHUNKS = 32u, /* bytes / size >= 8 KiB: a ring's pieces are bandwidth-bound */
    W_CROWDED = 64u /* one node with more ranks than cores (coll_query_t) */
};

typedef struct coll_rule {
    enum coll_id id;
    size_t min_bytes, max_bytes;   /* applies when min_bytes <= bytes <= max_bytes */
    int min_size, max_size;        /* ... and the group has min_size..max_size ranks (0: any) */
    unsigned when;                 /* ... and these W_* conditions hold */
    enum coll_alg alg;
} coll_rule_t;

#define ANY SIZE_MAX
#define KB ((size_t)1024)

/* What "bytes" is: bcast, reduce, allreduce, scan, exscan: the vector;
 * reduce_scatter(_block): the whole input vector; gather, scatter,
 * alltoall: one rank's block; allgather(v): the whole result. The v and w
 * collectives other than allgatherv have one rule: their sizes differ
 * between ranks, which must all choose alike.
 *
 * Measured on shared memory at 2 and 4 ranks (benchmarks/rdmpi-compare-coll
 * and per-algorithm runs, 2026-11-30), where the MPICH and Open MPI defaults
 * were not the best: a local copy or reduction costs as much as a message
 * there, so the algorithms that move or reduce the whole vector fewer times
 * win later than on a network. Reduce: the binomial tree, but for long
 * vectors on 8 or more ranks (reduce-scatter + gather moves the vector 1.5
 * times: 15 against 11 us at 64 KiB and 93 against 72 us at 1 MiB on 2
 * ranks). Allreduce: on 2 ranks recursive doubling, one exchange (7.6
 * against 13 us for Rabenseifner at 64 KiB, 97 against 115 at 1 MiB); the
 * ring once its pieces are 8 KiB or more (28 against 77 us at 64 KiB on 4
 * ranks: eager pieces, where Rabenseifner's larger messages wait for
 * rendezvous partners; 624 against 650 at 1 MiB). Gather
 * and scatter: linear above 2 KiB (the binomial tree's forwarding copies
 * cost more than the messages saved: 6.9 against 8.2 us at 64 KiB); on 2
 * ranks linear always (one message either way, no tree bookkeeping), which
 * the dispatchers run as direct p2p calls (coll_fast_gather_linear).
 * Allgatherv on 2 ranks: the direct exchange, which receives into place
 * (recursive doubling's v form goes through a packed buffer: 2 copies more
 * and an allocation of the whole result per call; OSU 64 KiB: 20 against 8
 * us for Open MPI). Alltoall: all messages at once (linear) except on many ranks with large
 * blocks, where pairwise keeps a network from flooding (60 against 99 us at
 * 64 KiB, 4 ranks).
 *
 * Crowded (coll_query_t: one node, more ranks than cores), a rank that waits
 * has given its core away, and every level of a tree or round of an
 * exchange waits for some particular rank to be scheduled again; with the
 * host's other work that costs tens of microseconds to milliseconds per
 * level. There the algorithms in which every rank depends on the root alone
 * win at every size (OSU 7.4, 8 ranks on 2 cores, load average 30-38,
 * medians of 3, 2026-12-06): the linear barrier, which also releases rank 0
 * first, so the root of the next broadcast sends while the others wake
 * (osu_bcast 8 B: 0.3 against 78-120 us; 64 KiB: 9.8 against 455; 1 MiB:
 * 1.2 against 10.8 ms), linear gather (8 B: 13 against 84 us) and scatter
 * (1 KiB: 0.6 against 5.0 us); and allgather by direct exchange up to a
 * few ranks (1 KiB blocks: 381 against 502 us; 64 KiB: 4.6 against 5.5 ms), at every size:
 * the ring's p-1 steps each wait for a neighbour (OSU 7.4, 1 MiB blocks, load average 9-10,
 * medians of 4-5, 2026-12-07: 4 ranks 752 against 1223 us, Open MPI 1109; 8 ranks 3944
 * against 7467, Open MPI 7331; 128 KiB blocks on 8 ranks 813 against 1675, Open MPI 677;
 * osu_allgatherv 1 MiB, 8 ranks: 4034 against 7663, Open MPI 10063).
 * So do reduce to one rank (every rank sends to the root: only the root
 * waits) and allreduce of vectors that leave eagerly (every rank sends to
 * all and combines: each waits for the last arrival only, not log2(p)
 * partners in turn; OSU 4 ranks 8 B, load average 32, medians of 4: 14
 * against 37 us for recursive doubling, with ranks that sleep after one
 * idle yield, core/progress.c). Longer vectors: the reduction to rank 0
 * and its broadcast (linear up to 64 KiB), not the ring, whose 2(p-1)
 * steps each wait for a neighbour to be scheduled (OSU 7.4, medians of 3-4,
 * load average 13-28, 2026-12-06: 64 KiB 133 against 1078 us on 8 ranks,
 * 101 against 155 on 4; 1 MiB 5.5 against 6.3 ms on 8, 1.1 against 1.8 on
 * 4). The reduction there, and a crowded reduce of long vectors on 8 or more ranks: the
 * binomial tree, not reduce-scatter + gather, whose p-1 exchanges of pieces each wait for a
 * partner to be scheduled, while the tree spreads the combining over both cores in log2(p)
 * levels (OSU 7.4, 8 ranks on 2 cores, 1 MiB, load average 8-9, medians of 5-7,
 * 2026-12-07: osu_reduce 700 against 1205 us; osu_allreduce 2048 against 2482, Open MPI
 * 2261). Alltoall, crowded: all at once for short blocks (8 ranks, 8 B: 32
 * against 398 us for Bruck's log2(p) rounds, each waiting for a partner);
 * for 64 KiB blocks on 4 ranks the order depends on the load: pairwise won
 * at load average 30 (128 against 332 us: one rendezvous partner at a time
 * instead of three ranks' transfers at once for two cores), all at once at
 * load average 17-26 with the measured ranks at nice -15 (OSU 7.4, 7
 * interleaved rounds, 2026-12-07: median 35 against 41 us, Open MPI 32),
 * which is how the comparison tables are taken: linear there. Crowded
 * broadcast of 64 KiB, where Open MPI (basic linear too) is faster (OSU 7.4,
 * load average 21-30, 15 interleaved rounds, 2026-12-07: 4 ranks 28 against
 * 16.6 us, 8 ranks 85 against 62): linear still beats the other algorithms
 * here (4 ranks, medians of 5: binomial 38, scatter + recursive doubling 98,
 * scatter + ring 131 against 34), and so does its rendezvous the root's copy
 * of each message out at once (every message eager, coded and measured: 35
 * against 28 at 4 ranks, 105 against 85 at 8). The loss is the rendezvous
 * and the wake-ups, not the order of the messages. The crowded barrier at
 * 4 ranks (two per core, quiet host, medians of 6-7, 2026-12-07): linear
 * still, as osu_bcast 8 B after it takes 0.58 us against 6.2 after
 * dissemination (Open MPI 1.1), though the barrier alone costs 21 against
 * 19 (Open MPI 18); its waits stay awake there (collectives/fast.c: 15 us
 * against Open MPI's 13). Crowded allreduce of 256 KiB and more on up to 8 ranks: the ring
 * after all, since the barrier's and the waits' changes (2026-12-08, OSU 7.4, medians of 3
 * interleaved rounds): quiet, 1 MiB 502 against 1027 us for reduce + bcast on 4 ranks (Open
 * MPI 645), 1379 against 2425 on 8 (Open MPI 1184), 256 KiB 213 against 313 on 4, 553 against
 * 652 on 8 (64 KiB on 8: reduce + bcast 106 against 162, so not below 256 KiB); with a busy
 * loop per core it loses to reduce + bcast (1 MiB: 5076 against 4179 on 4, 14345 against
 * 5181 on 8) but stays well ahead of Open MPI's 14898 and 31600. */
static const coll_rule_t rules[] = {
    { COLL_BARRIER, 0, ANY, 0, 0, W_NODES, COLL_ALG_TWO_LEVEL },
    { COLL_BARRIER, 0, ANY, 3, 0, W_CROWDED, COLL_ALG_LINEAR },
    { COLL_BARRIER, 0, ANY, 0, 0, 0, COLL_ALG_DISSEMINATION },

    { COLL_BCAST, 0, ANY, 0, 0, W_NODES, COLL_ALG_TWO_LEVEL },
    { COLL_BCAST, 0, ANY, 3, 0, W_CROWDED, COLL_ALG_LINEAR },
    { COLL_BCAST, 0, 12 * KB, 0, 0, 0, COLL_ALG_BINOMIAL },
    { COLL_BCAST, 0, 512 * KB, 8, 0, W_POW2, COLL_ALG_SCATTER_RECDBL },
    { COLL_BCAST, 0, ANY, 8, 0, 0, COLL_ALG_SCATTER_RING },
    { COLL_BCAST, 0, ANY, 0, 0, 0, COLL_ALG_BINOMIAL },

    { COLL_REDUCE, 0, ANY, 0, 0, W_NODES | W_COMMUTE, COLL_ALG_TWO_LEVEL },
    { COLL_REDUCE, 0, 64 * KB, 3, 16, W_CROWDED, COLL_ALG_LINEAR },
    { COLL_REDUCE, 512 * KB, ANY, 8, 16, W_CROWDED, COLL_ALG_BINOMIAL },
    { COLL_REDUCE, 512 * KB, ANY, 8, 0, 0, COLL_ALG_RSAG },
    { COLL_REDUCE, 0, ANY, 0, 0, 0, COLL_ALG_BINOMIAL },

    { COLL_ALLREDUCE, 0, ANY, 0, 0, W_NODES | W_COMMUTE, COLL_ALG_TWO_LEVEL },
    { COLL_ALLREDUCE, 0, 4 * KB, 3, 8, W_CROWDED, COLL_ALG_LINEAR },
    { COLL_ALLREDUCE, 256 * KB, ANY, 3, 8, W_CROWDED | W_COMMUTE | W_CHUNKS, COLL_ALG_RING },
    { COLL_ALLREDUCE, 0, ANY, 3, 16, W_CROWDED | W_COMMUTE, COLL_ALG_REDUCE_BCAST },
    { COLL_ALLREDUCE, 0, 2 * KB, 0, 0, 0, COLL_ALG_RECDBL },
    { COLL_ALLREDUCE, 0, ANY, 0, 0, W_FEW, COLL_ALG_RECDBL },
    { COLL_ALLREDUCE, 0, ANY, 0, 2, 0, COLL_ALG_RECDBL },
    { COLL_ALLREDUCE, 0, ANY, 4, 0, W_COMMUTE | W_CHUNKS, COLL_ALG_RING },
    { COLL_ALLREDUCE, 0, ANY, 0, 0, 0, COLL_ALG_RABENSEIFNER },

    { COLL_GATHER, 0, ANY, 2, 2, 0, COLL_ALG_LINEAR },
    { COLL_GATHER, 0, ANY, 3, 0, W_CROWDED, COLL_ALG_LINEAR },
    { COLL_GATHER, 0, 32 * KB, 16, 0, 0, COLL_ALG_BINOMIAL },
    { COLL_GATHER, 0, 2 * KB, 0, 0, 0, COLL_ALG_BINOMIAL },
    { COLL_GATHER, 0, ANY, 0, 0, 0, COLL_ALG_LINEAR },
    { COLL_GATHERV, 0, ANY, 0, 0, 0, COLL_ALG_LINEAR },
    { COLL_SCATTER, 0, ANY, 2, 2, 0, COLL_ALG_LINEAR },
    { COLL_SCATTER, 0, ANY, 3, 0, W_CROWDED, COLL_ALG_LINEAR },
    { COLL_SCATTER, 0, 32 * KB, 16, 0, 0, COLL_ALG_BINOMIAL },
    { COLL_SCATTER, 0, 2 * KB, 0, 0, 0, COLL_ALG_BINOMIAL },
    { COLL_SCATTER, 0, ANY, 0, 0, 0, COLL_ALG_LINEAR },
    { COLL_SCATTERV, 0, ANY, 0, 0, 0, COLL_ALG_LINEAR },

    { COLL_ALLGATHER, 0, ANY, 3, 16, W_CROWDED, COLL_ALG_LINEAR },
    { COLL_ALLGATHER, 0, 512 * KB, 0, 0, W_POW2, COLL_ALG_RECDBL },
    { COLL_ALLGATHER, 0, 80 * KB, 0, 0, W_NOT_POW2, COLL_ALG_BRUCK },
    { COLL_ALLGATHER, 0, ANY, 0, 0, 0, COLL_ALG_RING },
    { COLL_ALLGATHERV, 0, ANY, 2, 2, 0, COLL_ALG_LINEAR },
    { COLL_ALLGATHERV, 0, ANY, 3, 16, W_CROWDED, COLL_ALG_LINEAR },
    { COLL_ALLGATHERV, 0, 512 * KB, 0, 0, W_POW2, COLL_ALG_RECDBL },
    { COLL_ALLGATHERV, 0, 80 * KB, 0, 0, W_NOT_POW2, COLL_ALG_BRUCK },
    { COLL_ALLGATHERV, 0, ANY, 0, 0, 0, COLL_ALG_RING },

    { COLL_ALLTOALL, 0, 8 * KB, 3, 16, W_CROWDED, COLL_ALG_LINEAR },
    { COLL_ALLTOALL, 0, 256, 8, 0, 0, COLL_ALG_BRUCK },
    { COLL_ALLTOALL, 0, 256 * KB, 0, 0, 0, COLL_ALG_LINEAR },
    { COLL_ALLTOALL, 0, ANY, 0, 15, 0, COLL_ALG_LINEAR },
    { COLL_ALLTOALL, 0, ANY, 0, 0, 0, COLL_ALG_PAIRWISE },
    { COLL_ALLTOALLV, 0, ANY, 0, 0, 0, COLL_ALG_LINEAR },
    { COLL_ALLTOALLW, 0, ANY, 0, 0, 0, COLL_ALG_LINEAR },

    { COLL_REDUCE_SCATTER, 0, 512 * KB, 0, 0, 0, COLL_ALG_HALVING },
    { COLL_REDUCE_SCATTER, 0, ANY, 0, 0, W_COMMUTE, COLL_ALG_PAIRWISE },
    { COLL_REDUCE_SCATTER, 0, ANY, 0, 0, 0, COLL_ALG_HALVING },
    { COLL_REDUCE_SCATTER_BLOCK, 0, 512 * KB, 0, 0, 0, COLL_ALG_HALVING },
    { COLL_REDUCE_SCATTER_BLOCK, 0, ANY, 0, 0, W_COMMUTE, COLL_ALG_PAIRWISE },
    { COLL_REDUCE_SCATTER_BLOCK, 0, ANY, 0, 0, 0, COLL_ALG_HALVING },

    { COLL_SCAN, 0, ANY, 0, 0, 0, COLL_ALG_RECDBL },
    { COLL_EXSCAN, 0, ANY, 0, 0, 0, COLL_ALG_RECDBL },
};


const char *coll_alg_name(enum coll_alg alg)
{
    return alg >= 0 && alg < COLL_NALGS ? alg_names[alg] : "?";
}

const char *coll_name(int id)
{
    return id >= 0 && id < COLL_NCOLLS ? colls[id].name : "a collective";
}

int coll_sim_ppn(void)
{
    return COLL->sim_ppn;
}

static int rule_matches(const coll_rule_t *w, const coll_query_t *q)
{
    if (q->bytes < w->min_bytes || q->bytes > w->max_bytes || q->size < w->min_size ||
        (w->max_size && q->size > w->max_size))
        return 0;
    if ((w->when & W_POW2) && !coll_is_pof2(q->size))
        return 0;
    if ((w->when & W_NOT_POW2) && coll_is_pof2(q->size))
        return 0;
    if ((w->when & W_COMMUTE) && !q->commute)
        return 0;
    if ((w->when & W_FEW) && q->count >= coll_pof2(q->size))
        return 0;
    if ((w->when & W_NODES) && !(q->nodes > 1 && q->shared))
        return 0;
    if ((w->when & W_CHUNKS) && q->bytes / (size_t)q->size < 8 * KB)
        return 0;
    if ((w->when & W_CROWDED) && !q->crowded)
        return 0;
    return 1;
}

/* Whether a forced algorithm can run this call. */
static int can_run(enum coll_id id, enum coll_alg alg, const coll_query_t *q)
{
    int reduction = id == COLL_REDUCE || id == COLL_ALLREDUCE;
    if (alg == COLL_ALG_TWO_LEVEL)   /* the whole communicator; reductions that commute */
        return q->nodes > 0 && (!reduction || q->commute);
    if ((alg == COLL_ALG_RING && id == COLL_ALLREDUCE) ||
        (alg == COLL_ALG_PAIRWISE &&
         (id == COLL_REDUCE_SCATTER || id == COLL_REDUCE_SCATTER_BLOCK)))
        return q->commute;   /* they combine in ring order */
    return 1;
}

#define NRULES (sizeof(rules) / sizeof(rules[0]))

enum coll_alg coll_select(enum coll_id id, const coll_query_t *q)
{
    if (COLL->forced[id] != COLL_ALG_AUTO && can_run(id, COLL->forced[id], q))
        return COLL->forced[id];
    for (size_t i = COLL->first_rule[id]; i < NRULES && rules[i].id == id; i++)
        if (rule_matches(&rules[i], q))
            return rules[i].alg;
    return colls[id].algs[0];
}

int coll_init(core_runtime_t *rt)
{
    if (!(rt->coll = calloc(1, sizeof(*rt->coll))))
        return CORE_ENOMEM;
    for (int id = 0; id < COLL_NCOLLS; id++) {
        COLL->first_rule[id] = NRULES;
        for (size_t i = NRULES; i-- > 0;)
            if (rules[i].id == (enum coll_id)id)
                COLL->first_rule[id] = i;
    }
    const coll_config_t *cfg = core_config_add(&rt->cfg, &coll_config_group);
    if (!cfg)
        return CORE_ENOMEM;
    coll_config_apply(rt);
    COLL->sim_ppn = cfg->sim_ppn;
    coll_sched_init();
    return 0;
}

void coll_config_apply(core_runtime_t *rt)
{
    /* The registry checked each value against its row's choices (coll_config.c): map the
     * chosen name to the algorithm. */
    const core_config_t *reg = &rt->cfg;
    for (int id = 0; id < COLL_NCOLLS; id++) {
        COLL->forced[id] = COLL_ALG_AUTO;
        core_config_param_t p;
        long k = colls[id].env ? core_config_find(reg, colls[id].env) : -1;
        if (k < 0 || core_config_param(reg, (size_t)k, &p) != 0 || !p.value)
            continue;
        const char *v = p.row->choices[*(const int *)p.value];
        for (int i = 0; i < COLL_MAX_ALGS && colls[id].algs[i] != COLL_ALG_AUTO; i++)
            if (!strcmp(v, alg_names[colls[id].algs[i]]))
                COLL->forced[id] = colls[id].algs[i];
        if (COLL->forced[id] == COLL_ALG_AUTO && strcmp(v, "auto") != 0)
            core_warn("%s: coll_config.c offers \"%s\", which select.c does not have",
                      colls[id].env, v);
        else if (COLL->forced[id] != COLL_ALG_AUTO)
            core_debug("%s: forced to %s", colls[id].env, alg_names[COLL->forced[id]]);
    }
}

void coll_fini(void)
{
    if (!COLL)
        return;
    coll_sched_fini();
    free(COLL);
    core_rt->coll = NULL;
}
