/*
 * coll_topo: process topologies and the neighborhood collectives.
 * MPI_Dims_create on known answers and an impossible case; a Cartesian
 * grid over all ranks (2-D, one periodic dimension) and a periodic ring
 * (where, at 1 and 2 ranks, a neighbor is the same rank in both
 * directions): MPI_Topo_test, Cartdim_get, Cart_get, Cart_coords,
 * Cart_rank, Cart_shift against coordinates computed here, Cart_sub, a
 * grid smaller than the communicator, and MPI_Comm_dup keeping the
 * topology; distributed graphs made by Dist_graph_create_adjacent (with a
 * repeated edge and weights) and Dist_graph_create (edges given by other
 * ranks), checked with Dist_graph_neighbors(_count). On each topology the
 * neighborhood collectives (allgather, allgatherv, alltoall, alltoallv,
 * alltoallw), blocking and nonblocking, against the blocks the neighbors
 * must have sent; and MPI_ERR_TOPOLOGY on a communicator without one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

static int wrank, wsize;
static char cur[256];

#define COLL_TEST "coll_topo"
#define COLL_RANK wrank
#define COLL_CUR cur
#include "coll_check.h"

#define CHECK(cond, ...)          \
    do {                          \
        if (!(cond))              \
            FAIL(__VA_ARGS__);    \
    } while (0)

/* ---- MPI_Dims_create ------------------------------------------------------------ */

static void test_dims(void)
{
    static const struct { int n, nd, in[3], out[3]; } cases[] = {
        { 6, 2, { 0, 0 }, { 3, 2 } },       { 12, 3, { 0, 0, 0 }, { 3, 2, 2 } },
        { 7, 2, { 0, 0 }, { 7, 1 } },       { 16, 2, { 0, 2 }, { 8, 2 } },
        { 36, 3, { 0, 0, 0 }, { 4, 3, 3 } }, { 1, 3, { 0, 0, 0 }, { 1, 1, 1 } },
        { 24, 3, { 0, 3, 0 }, { 4, 3, 2 } }, { 64, 3, { 0, 0, 0 }, { 4, 4, 4 } },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int d[3];
        memcpy(d, cases[i].in, sizeof(d));
        snprintf(cur, sizeof(cur), "MPI_Dims_create(%d, %d)", cases[i].n, cases[i].nd);
        CHECK_MPI(MPI_Dims_create(cases[i].n, cases[i].nd, d));
        for (int k = 0; k < cases[i].nd; k++)
            CHECK(d[k] == cases[i].out[k], "dims[%d] = %d, expected %d", k, d[k],
                  cases[i].out[k]);
    }
    snprintf(cur, sizeof(cur), "MPI_Dims_create(7, {2, 0})");
    int d[2] = { 2, 0 }, cls;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Dims_create(7, 2, d);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_DIMS, "returned class %d, expected MPI_ERR_DIMS", cls);
}

/* ---- neighborhood collectives on any topology -------------------------------- */

static int nb_mode;

static int complete(int rc, MPI_Request *req)
{
    int flag = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < 3 && !flag; k++)
        if ((rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            return rc;
    return flag ? MPI_SUCCESS : MPI_Wait(req, MPI_STATUS_IGNORE);
}

/* The in- and out-neighbors of comm, as the neighborhood collectives order them. */
static void neighbors(MPI_Comm comm, int *indeg, int **in, int *outdeg, int **out)
{
    int kind;
    MPI_Topo_test(comm, &kind);
    if (kind == MPI_CART) {
        int nd;
        MPI_Cartdim_get(comm, &nd);
        *indeg = *outdeg = 2 * nd;
        *in = xmalloc(sizeof(int) * 2 * nd);
        *out = xmalloc(sizeof(int) * 2 * nd);
        for (int d = 0; d < nd; d++) {
            MPI_Cart_shift(comm, d, 1, &(*in)[2 * d], &(*in)[2 * d + 1]);
            (*out)[2 * d] = (*in)[2 * d];
            (*out)[2 * d + 1] = (*in)[2 * d + 1];
        }
    } else {
        int w;
        MPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &w);
        *in = xmalloc(sizeof(int) * (*indeg + 1));
        *out = xmalloc(sizeof(int) * (*outdeg + 1));
        MPI_Dist_graph_neighbors(comm, *indeg, *in, MPI_UNWEIGHTED, *outdeg, *out, MPI_UNWEIGHTED);
    }
}

/* What rank src puts in item i of the block for its out-slot k. */
static int item(int src, int k, int i) { return src * 1000000 + k * 1000 + i; }

/* The out-slot of rank src whose block lands in slot j of this rank: on a
 * grid the opposite direction; on a graph the same occurrence of the edge. */
static int peer_slot(MPI_Comm comm, int kind, const int *in, int j, int me, int *all_out,
                     int maxdeg, const int *outdegs)
{
    int src = in[j];
    if (kind == MPI_CART)
        return j ^ 1;
    int occ = 0;
    for (int t = 0; t < j; t++)
        occ += in[t] == src;
    const int *o = all_out + (size_t)src * maxdeg;
    for (int k = 0; k < outdegs[src]; k++)
        if (o[k] == me && occ-- == 0)
            return k;
    (void)comm;
    FAIL("rank %d lists no matching edge to %d", src, me);
    return -1;
}

static void test_neighbor(MPI_Comm comm, const char *name, int count)
{
    int me, n, kind, indeg, outdeg, *in, *out;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Topo_test(comm, &kind);
    neighbors(comm, &indeg, &in, &outdeg, &out);
    /* Everyone's out-lists, to know which block a neighbor sent me. */
    int maxdeg = outdeg;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &maxdeg, 1, MPI_INT, MPI_MAX, comm));
    int *outdegs = xmalloc(sizeof(int) * n), *all_out = xmalloc(sizeof(int) * n * (maxdeg + 1));
    int *mine = xmalloc(sizeof(int) * (maxdeg + 1));
    for (int k = 0; k < maxdeg; k++)
        mine[k] = k < outdeg ? out[k] : -1;
    CHECK_MPI(MPI_Allgather(&outdeg, 1, MPI_INT, outdegs, 1, MPI_INT, comm));
    CHECK_MPI(MPI_Allgather(mine, maxdeg, MPI_INT, all_out, maxdeg, MPI_INT, comm));

    int *sbuf = xmalloc(sizeof(int) * (outdeg + 1) * (count + 1));
    int *rbuf = xmalloc(sizeof(int) * (indeg + 1) * (count + 2));
    MPI_Request q;

    /* allgather: slot j holds source j's block 0 (untouched for MPI_PROC_NULL). */
    snprintf(cur, sizeof(cur), "MPI_Neighbor_allgather on %s, count %d", name, count);
    for (int i = 0; i < count; i++)
        sbuf[i] = item(me, 0, i);
    for (int i = 0; i < indeg * count; i++)
        rbuf[i] = -7;
    if (nb_mode)
        CHECK_MPI(complete(MPI_Ineighbor_allgather(sbuf, count, MPI_INT, rbuf, count, MPI_INT,
                                                   comm, &q), &q));
    else
        CHECK_MPI(MPI_Neighbor_allgather(sbuf, count, MPI_INT, rbuf, count, MPI_INT, comm));
    for (int j = 0; j < indeg; j++)
        for (int i = 0; i < count; i++) {
            int want = in[j] == MPI_PROC_NULL ? -7 : item(in[j], 0, i);
            CHECK(rbuf[j * count + i] == want, "slot %d item %d: %d, expected %d", j, i,
                  rbuf[j * count + i], want);
        }

    /* alltoall: slot j holds the block its source meant for it. */
    snprintf(cur, sizeof(cur), "MPI_Neighbor_alltoall on %s, count %d", name, count);
    for (int k = 0; k < outdeg; k++)
        for (int i = 0; i < count; i++)
            sbuf[k * count + i] = item(me, k, i);
    for (int i = 0; i < indeg * count; i++)
        rbuf[i] = -7;
    if (nb_mode)
        CHECK_MPI(complete(MPI_Ineighbor_alltoall(sbuf, count, MPI_INT, rbuf, count, MPI_INT,
                                                  comm, &q), &q));
    else
        CHECK_MPI(MPI_Neighbor_alltoall(sbuf, count, MPI_INT, rbuf, count, MPI_INT, comm));
    for (int j = 0; j < indeg; j++)
        for (int i = 0; i < count; i++) {
            int want = in[j] == MPI_PROC_NULL
                           ? -7
                           : item(in[j], peer_slot(comm, kind, in, j, me, all_out, maxdeg,
                                                   outdegs), i);
            CHECK(rbuf[j * count + i] == want, "slot %d item %d: %d, expected %d", j, i,
                  rbuf[j * count + i], want);
        }

    /* v and w forms: on a grid the block for slot j has count + j % 2 items
     * (both ends agree: the size follows the receiver's slot); blocks lie in
     * reverse order, one item apart. */
    int *rc = xmalloc(sizeof(int) * (indeg + 1)), *rd = xmalloc(sizeof(int) * (indeg + 1));
    int *sc = xmalloc(sizeof(int) * (outdeg + 1)), *sd = xmalloc(sizeof(int) * (outdeg + 1));
    MPI_Aint *rdw = xmalloc(sizeof(MPI_Aint) * (indeg + 1));
    MPI_Aint *sdw = xmalloc(sizeof(MPI_Aint) * (outdeg + 1));
    MPI_Datatype *rt = xmalloc(sizeof(MPI_Datatype) * (indeg + 1));
    MPI_Datatype *st = xmalloc(sizeof(MPI_Datatype) * (outdeg + 1));
    int rtot = 1;
    for (int j = indeg - 1; j >= 0; j--) {
        rc[j] = kind == MPI_CART ? count + j % 2 : count;
        rd[j] = rtot;
        rdw[j] = (MPI_Aint)rtot * (MPI_Aint)sizeof(int);
        rt[j] = MPI_INT;
        rtot += rc[j] + 1;
    }
    free(rbuf);
    rbuf = xmalloc(sizeof(int) * rtot);
    int stot = 0;
    for (int k = 0; k < outdeg; k++) {
        /* my block k lands in slot k ^ 1 of a grid neighbor */
        sc[k] = kind == MPI_CART ? count + (k ^ 1) % 2 : count;
        sd[k] = stot;
        sdw[k] = (MPI_Aint)stot * (MPI_Aint)sizeof(int);
        st[k] = MPI_INT;
        stot += sc[k];
    }
    free(sbuf);
    sbuf = xmalloc(sizeof(int) * (stot + 1));
    for (int k = 0; k < outdeg; k++)
        for (int i = 0; i < sc[k]; i++)
            sbuf[sd[k] + i] = item(me, k, i);
    for (int form = 0; form < 3; form++) {
        const char *fname = form == 0 ? "MPI_Neighbor_allgatherv"
                            : form == 1 ? "MPI_Neighbor_alltoallv" : "MPI_Neighbor_alltoallw";
        snprintf(cur, sizeof(cur), "%s on %s, count %d", fname, name, count);
        for (int i = 0; i < rtot; i++)
            rbuf[i] = -7;
        int *gc = rc;
        if (form == 0) {
            /* allgatherv: every neighbor sends its first block of count items */
            gc = xmalloc(sizeof(int) * (indeg + 1));
            for (int j = 0; j < indeg; j++)
                gc[j] = count;
            if (nb_mode)
                CHECK_MPI(complete(MPI_Ineighbor_allgatherv(sbuf, count, MPI_INT, rbuf, gc, rd,
                                                            MPI_INT, comm, &q), &q));
            else
                CHECK_MPI(MPI_Neighbor_allgatherv(sbuf, count, MPI_INT, rbuf, gc, rd, MPI_INT,
                                                  comm));
        } else if (form == 1) {
            if (nb_mode)
                CHECK_MPI(complete(MPI_Ineighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd,
                                                           MPI_INT, comm, &q), &q));
            else
                CHECK_MPI(MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT,
                                                 comm));
        } else {
            if (nb_mode)
                CHECK_MPI(complete(MPI_Ineighbor_alltoallw(sbuf, sc, sdw, st, rbuf, rc, rdw, rt,
                                                           comm, &q), &q));
            else
                CHECK_MPI(MPI_Neighbor_alltoallw(sbuf, sc, sdw, st, rbuf, rc, rdw, rt, comm));
        }
        char *seen = calloc((size_t)rtot, 1);
        for (int j = 0; j < indeg; j++) {
            int k = form == 0 ? 0
                    : in[j] == MPI_PROC_NULL
                        ? 0
                        : peer_slot(comm, kind, in, j, me, all_out, maxdeg, outdegs);
            for (int i = 0; i < gc[j]; i++) {
                int want = in[j] == MPI_PROC_NULL ? -7 : item(in[j], k, i);
                CHECK(rbuf[rd[j] + i] == want, "slot %d item %d: %d, expected %d", j, i,
                      rbuf[rd[j] + i], want);
            }
            memset(seen + rd[j], 1, (size_t)gc[j]);
        }
        for (int i = 0; i < rtot; i++)
            CHECK(seen[i] || rbuf[i] == -7, "item %d (a gap) was written", i);
        free(seen);
        if (gc != rc)
            free(gc);
    }
    free(rc), free(rd), free(sc), free(sd), free(rdw), free(sdw), free(rt), free(st);
    free(sbuf), free(rbuf), free(in), free(out), free(outdegs), free(all_out), free(mine);
}

/* ---- Cartesian grids ------------------------------------------------------------- */

static void test_cart(void)
{
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, kind, nd, r;
    MPI_Comm cart, dup, row, none;
    CHECK_MPI(MPI_Dims_create(wsize, 2, dims));
    snprintf(cur, sizeof(cur), "MPI_Cart_create %dx%d", dims[0], dims[1]);
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    CHECK(cart != MPI_COMM_NULL, "no grid communicator");
    CHECK_MPI(MPI_Topo_test(cart, &kind));
    CHECK(kind == MPI_CART, "MPI_Topo_test says %d", kind);
    CHECK_MPI(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == 2, "MPI_Cartdim_get says %d", nd);
    CHECK_MPI(MPI_Comm_rank(cart, &r));
    int gd[2], gp[2], gc[2], c[2];
    CHECK_MPI(MPI_Cart_get(cart, 2, gd, gp, gc));
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0 &&
              gc[0] == r / dims[1] && gc[1] == r % dims[1],
          "MPI_Cart_get: dims %dx%d periods %d,%d coords %d,%d", gd[0], gd[1], gp[0], gp[1],
          gc[0], gc[1]);
    for (int k = 0; k < wsize; k++) {
        int back;
        CHECK_MPI(MPI_Cart_coords(cart, k, 2, c));
        CHECK(c[0] == k / dims[1] && c[1] == k % dims[1], "coords of %d: %d,%d", k, c[0], c[1]);
        CHECK_MPI(MPI_Cart_rank(cart, c, &back));
        CHECK(back == k, "MPI_Cart_rank of coords of %d is %d", k, back);
    }
    c[0] = gc[0] - dims[0];   /* periodic: wraps */
    c[1] = gc[1];
    CHECK_MPI(MPI_Cart_rank(cart, c, &r));
    CHECK(r == gc[0] * dims[1] + gc[1], "periodic MPI_Cart_rank is %d", r);
    for (int d = 0; d < 2; d++)
        for (int disp = -2; disp <= 2; disp++) {
            int src, dst, want_src, want_dst;
            CHECK_MPI(MPI_Cart_shift(cart, d, disp, &src, &dst));
            int up = gc[d] + disp, down = gc[d] - disp;
            int cc[2] = { gc[0], gc[1] };
            if (d == 0) {
                up = ((up % dims[0]) + dims[0]) % dims[0];
                down = ((down % dims[0]) + dims[0]) % dims[0];
            }
            cc[d] = up;
            want_dst = up < 0 || up >= dims[d] ? MPI_PROC_NULL : cc[0] * dims[1] + cc[1];
            cc[d] = down;
            want_src = down < 0 || down >= dims[d] ? MPI_PROC_NULL : cc[0] * dims[1] + cc[1];
            CHECK(src == want_src && dst == want_dst,
                  "MPI_Cart_shift(%d, %d): %d, %d; expected %d, %d", d, disp, src, dst, want_src,
                  want_dst);
        }
    for (int count = 0; count <= 1000; count = count ? count * 10 : 1)
        test_neighbor(cart, "2-D grid", count);

    snprintf(cur, sizeof(cur), "MPI_Comm_dup of a grid");
    CHECK_MPI(MPI_Comm_dup(cart, &dup));
    CHECK_MPI(MPI_Topo_test(dup, &kind));
    CHECK(kind == MPI_CART, "the duplicate has topology %d", kind);
    test_neighbor(dup, "duplicated grid", 3);
    CHECK_MPI(MPI_Comm_free(&dup));

    snprintf(cur, sizeof(cur), "MPI_Cart_sub");
    int keep[2] = { 0, 1 }, rs, rr;
    CHECK_MPI(MPI_Cart_sub(cart, keep, &row));
    CHECK_MPI(MPI_Comm_size(row, &rs));
    CHECK_MPI(MPI_Comm_rank(row, &rr));
    CHECK_MPI(MPI_Cartdim_get(row, &nd));
    CHECK(rs == dims[1] && rr == gc[1] && nd == 1, "row: size %d rank %d ndims %d", rs, rr, nd);
    test_neighbor(row, "grid row (Cart_sub)", 2);
    CHECK_MPI(MPI_Comm_free(&row));
    keep[0] = keep[1] = 0;
    CHECK_MPI(MPI_Cart_sub(cart, keep, &none));
    CHECK_MPI(MPI_Comm_size(none, &rs));
    CHECK_MPI(MPI_Cartdim_get(none, &nd));
    CHECK(rs == 1 && nd == 0, "no dimensions kept: size %d ndims %d", rs, nd);
    CHECK_MPI(MPI_Comm_free(&none));
    CHECK_MPI(MPI_Comm_free(&cart));

    /* A periodic ring: at 1 and 2 ranks both neighbors are one rank. */
    int ring = wsize, per = 1;
    snprintf(cur, sizeof(cur), "MPI_Cart_create ring");
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &ring, &per, 1, &cart));
    for (int count = 0; count <= 100; count = count ? count * 10 : 1)
        test_neighbor(cart, "periodic ring", count);
    CHECK_MPI(MPI_Comm_free(&cart));

    /* A grid smaller than the communicator leaves the last rank out. */
    if (wsize > 1) {
        int small = wsize - 1, np = 0;
        snprintf(cur, sizeof(cur), "MPI_Cart_create of %d of %d ranks", small, wsize);
        CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &small, &np, 0, &cart));
        CHECK((cart == MPI_COMM_NULL) == (wrank == wsize - 1), "membership wrong");
        if (cart != MPI_COMM_NULL) {
            test_neighbor(cart, "line", 5);
            CHECK_MPI(MPI_Comm_free(&cart));
        }
    }
}

/* ---- distributed graphs -------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static void test_graph(void)
{
    int n = wsize, me = wrank, kind;
    MPI_Comm g;
    /* Adjacent: out to me+1, me+2, me+1 again (weights 10, 20, 30); in from the mirror. */
    int out[3] = { (me + 1) % n, (me + 2) % n, (me + 1) % n }, ow[3] = { 10, 20, 30 };
    int in[3] = { (me - 1 + n) % n, (me - 2 + 2 * n) % n, (me - 1 + n) % n }, iw[3] = { 10, 20, 30 };
    snprintf(cur, sizeof(cur), "MPI_Dist_graph_create_adjacent");
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, iw, 3, out, ow, MPI_INFO_NULL,
                                             0, &g));
    CHECK_MPI(MPI_Topo_test(g, &kind));
    CHECK(kind == MPI_DIST_GRAPH, "MPI_Topo_test says %d", kind);
    int indeg, outdeg, w, gi[3], gw[3], go[3], gow[3];
    CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w));
    CHECK(indeg == 3 && outdeg == 3 && w, "counts %d %d weighted %d", indeg, outdeg, w);
    CHECK_MPI(MPI_Dist_graph_neighbors(g, 3, gi, gw, 3, go, gow));
    for (int k = 0; k < 3; k++)
        CHECK(gi[k] == in[k] && gw[k] == iw[k] && go[k] == out[k] && gow[k] == ow[k],
              "neighbor %d differs", k);
    for (int count = 0; count <= 1000; count = count ? count * 10 : 1)
        test_neighbor(g, "adjacent graph", count);
    CHECK_MPI(MPI_Comm_free(&g));

    /* General: rank r declares the edges of source (r + 1) % n: to itself, to r, and
     * to (r + 3) % n; unweighted. */
    int src = (me + 1) % n, deg = 3, dst[3] = { src, me, (me + 3) % n };
    snprintf(cur, sizeof(cur), "MPI_Dist_graph_create");
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, dst, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &g));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w));
    CHECK(!w, "unweighted graph reported weighted");
    /* Expected: edges from every declaring rank d: (d+1) -> {d+1, d, d+3}. */
    int *ein = xmalloc(sizeof(int) * 3 * n), *eout = xmalloc(sizeof(int) * 3 * n), ni = 0, no = 0;
    for (int d = 0; d < n; d++) {
        int s = (d + 1) % n, ds[3] = { s, d, (d + 3) % n };
        for (int k = 0; k < 3; k++) {
            if (s == me)
                eout[no++] = ds[k];
            if (ds[k] == me)
                ein[ni++] = s;
        }
    }
    CHECK(indeg == ni && outdeg == no, "degrees %d/%d, expected %d/%d", indeg, outdeg, ni, no);
    int *li = xmalloc(sizeof(int) * (ni + 1)), *lo = xmalloc(sizeof(int) * (no + 1));
    CHECK_MPI(MPI_Dist_graph_neighbors(g, ni, li, MPI_UNWEIGHTED, no, lo, MPI_UNWEIGHTED));
    qsort(li, ni, sizeof(int), cmp_int);
    qsort(lo, no, sizeof(int), cmp_int);
    qsort(ein, ni, sizeof(int), cmp_int);
    qsort(eout, no, sizeof(int), cmp_int);
    CHECK(!memcmp(li, ein, sizeof(int) * ni) && !memcmp(lo, eout, sizeof(int) * no),
          "the neighbor lists differ from the edges declared");
    for (int count = 0; count <= 100; count = count ? count * 10 : 1)
        test_neighbor(g, "general graph", count);
    CHECK_MPI(MPI_Comm_free(&g));
    free(ein), free(eout), free(li), free(lo);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    double t0 = MPI_Wtime();
    test_dims();
    for (nb_mode = 0; nb_mode < 2; nb_mode++) {
        test_cart();
        test_graph();
    }
    snprintf(cur, sizeof(cur), "MPI_Topo_test / neighborhood collective without a topology");
    int kind, x = 0, y[4], cls;
    CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &kind));
    CHECK(kind == MPI_UNDEFINED, "MPI_COMM_WORLD has topology %d", kind);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "returned class %d, expected MPI_ERR_TOPOLOGY", cls);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("coll_topo: %d ranks: all passed in %.2f s\n", wsize, MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
