/*
 * The collectives' settings: RDMPI_COLL_<NAME> forces one algorithm of a
 * collective (the choices are the algorithms select.c has for it, "auto"
 * first: the selection table), and the node-layout simulation for tests.
 * Registered by the runtime (rt_config_register); coll_init reads them.
 */
#include <limits.h>
#include "collectives/coll_impl.h"

#define OFF(f) offsetof(coll_config_t, f)

static const char *const barrier_algs[] = {
    "auto", "dissemination", "linear", "two_level", NULL
};
static const char *const bcast_algs[] = {
    "auto", "binomial", "scatter_ring", "scatter_recursive_doubling", "linear", "two_level", NULL
};
static const char *const reduce_algs[] = {
    "auto", "binomial", "reduce_scatter_gather", "two_level", "linear", NULL
};
static const char *const allreduce_algs[] = {
    "auto", "recursive_doubling", "rabenseifner", "ring", "reduce_bcast", "two_level", "linear",
    NULL
};
static const char *const gather_algs[] = { "auto", "binomial", "linear", NULL };
static const char *const gatherv_algs[] = { "auto", "linear", NULL };
static const char *const scatter_algs[] = { "auto", "binomial", "linear", NULL };
static const char *const scatterv_algs[] = { "auto", "linear", NULL };
static const char *const allgather_algs[] = {
    "auto", "recursive_doubling", "bruck", "ring", "linear", NULL
};
static const char *const allgatherv_algs[] = {
    "auto", "recursive_doubling", "bruck", "ring", "linear", NULL
};
static const char *const alltoall_algs[] = { "auto", "pairwise", "linear", "bruck", NULL };
static const char *const alltoallv_algs[] = { "auto", "pairwise", "linear", NULL };
static const char *const alltoallw_algs[] = { "auto", "pairwise", "linear", NULL };
static const char *const reduce_scatter_algs[] = { "auto", "recursive_halving", "pairwise", NULL };
static const char *const reduce_scatter_block_algs[] = {
    "auto", "recursive_halving", "pairwise", NULL
};
static const char *const scan_algs[] = { "auto", "recursive_doubling", "linear", NULL };
static const char *const exscan_algs[] = { "auto", "recursive_doubling", "linear", NULL };

static const core_config_row_t rows[] = {
    { "RDMPI_COLL_BARRIER", CORE_CFG_ENUM, "auto",
      "barrier algorithm: auto, dissemination, linear, two_level",
      OFF(alg[COLL_BARRIER]), 0, barrier_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_BCAST", CORE_CFG_ENUM, "auto",
      "bcast algorithm: auto, binomial, scatter_ring, scatter_recursive_doubling, linear, "
      "two_level",
      OFF(alg[COLL_BCAST]), 0, bcast_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_REDUCE", CORE_CFG_ENUM, "auto",
      "reduce algorithm: auto, binomial, reduce_scatter_gather, two_level (commutative ops "
      "only), linear",
      OFF(alg[COLL_REDUCE]), 0, reduce_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_ALLREDUCE", CORE_CFG_ENUM, "auto",
      "allreduce algorithm: auto, recursive_doubling, rabenseifner, ring (commutative ops "
      "only), reduce_bcast, two_level (commutative ops only), linear",
      OFF(alg[COLL_ALLREDUCE]), 0, allreduce_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_GATHER", CORE_CFG_ENUM, "auto",
      "gather algorithm: auto, binomial, linear",
      OFF(alg[COLL_GATHER]), 0, gather_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_GATHERV", CORE_CFG_ENUM, "auto",
      "gatherv algorithm: auto, linear",
      OFF(alg[COLL_GATHERV]), 0, gatherv_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_SCATTER", CORE_CFG_ENUM, "auto",
      "scatter algorithm: auto, binomial, linear",
      OFF(alg[COLL_SCATTER]), 0, scatter_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_SCATTERV", CORE_CFG_ENUM, "auto",
      "scatterv algorithm: auto, linear",
      OFF(alg[COLL_SCATTERV]), 0, scatterv_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_ALLGATHER", CORE_CFG_ENUM, "auto",
      "allgather algorithm: auto, recursive_doubling, bruck, ring, linear",
      OFF(alg[COLL_ALLGATHER]), 0, allgather_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_ALLGATHERV", CORE_CFG_ENUM, "auto",
      "allgatherv algorithm: auto, recursive_doubling, bruck, ring, linear",
      OFF(alg[COLL_ALLGATHERV]), 0, allgatherv_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_ALLTOALL", CORE_CFG_ENUM, "auto",
      "alltoall algorithm: auto, pairwise, linear, bruck",
      OFF(alg[COLL_ALLTOALL]), 0, alltoall_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_ALLTOALLV", CORE_CFG_ENUM, "auto",
      "alltoallv algorithm: auto, pairwise, linear",
      OFF(alg[COLL_ALLTOALLV]), 0, alltoallv_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_ALLTOALLW", CORE_CFG_ENUM, "auto",
      "alltoallw algorithm: auto, pairwise, linear",
      OFF(alg[COLL_ALLTOALLW]), 0, alltoallw_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_REDUCE_SCATTER", CORE_CFG_ENUM, "auto",
      "reduce_scatter algorithm: auto, recursive_halving, pairwise (commutative ops only)",
      OFF(alg[COLL_REDUCE_SCATTER]), 0, reduce_scatter_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_REDUCE_SCATTER_BLOCK", CORE_CFG_ENUM, "auto",
      "reduce_scatter_block algorithm: auto, recursive_halving, pairwise (commutative ops "
      "only)",
      OFF(alg[COLL_REDUCE_SCATTER_BLOCK]), 0, reduce_scatter_block_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_SCAN", CORE_CFG_ENUM, "auto",
      "scan algorithm: auto, recursive_doubling, linear",
      OFF(alg[COLL_SCAN]), 0, scan_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_EXSCAN", CORE_CFG_ENUM, "auto",
      "exscan algorithm: auto, recursive_doubling, linear",
      OFF(alg[COLL_EXSCAN]), 0, exscan_algs, 0, 0, CORE_CFG_LIVE | CORE_CFG_SAME },
    { "RDMPI_COLL_SIM_PPN", CORE_CFG_INT, "0",
      "testing: pretend every N consecutive ranks form a node, so the two_level collectives "
      "run on one machine (0: the real node layout)",
      OFF(sim_ppn), 0, NULL, 0, INT_MAX },
};

const core_config_group_t coll_config_group = {
    "coll", rows, sizeof(rows) / sizeof(rows[0]), sizeof(coll_config_t)
};
