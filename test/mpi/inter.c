/*
 * Intercommunicators: MPI_Intercomm_create between the even and the odd
 * ranks of MPI_COMM_WORLD, the queries, point-to-point (remote ranks,
 * MPI_ANY_SOURCE, status), every collective blocking and nonblocking with
 * MPI_ROOT/MPI_PROC_NULL roots, merge (both orders of the high flag),
 * dup, idup, split, create, compare, names, attributes and free, and the
 * error classes of calls that only take intracommunicators.
 */
#include "check.h"

static int wrank, wsize, color, lrank, lsize, rsize;
static MPI_Comm ic;

/* What local rank i of group c (0: evens, 1: odds) contributes: its world rank. */
static int world_of(int c, int i)
{
    return 2 * i + c;
}

static int group_size(int c)
{
    return (wsize - c + 1) / 2;
}

static void wait_or(int nb, MPI_Request *r)
{
    if (nb)
        MPI_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
}

static void test_p2p(void)
{
    t_begin("p2p");
    for (int d = 0; d < rsize; d++) {
        int v = lrank * 1000 + d;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, d, 7, ic));
    }
    for (int k = 0; k < rsize; k++) {
        int v;
        MPI_Status st;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, ic, &st));
        CHECK(v / 1000 == st.MPI_SOURCE, "value %d from source %d", v, st.MPI_SOURCE);
        CHECK(v % 1000 == lrank, "value %d sent to %d", v, lrank);
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize, "source %d", st.MPI_SOURCE);
    }
    /* remote rank j sends to every local rank i with i % (its remote size) == j: each rank
     * gets exactly one message, from remote rank lrank % rsize */
    int got = -1;
    MPI_Request r;
    MPI_Status st;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 9, ic, &r));
    for (int i = 0; i < rsize; i++)
        if (i % lsize == lrank) {
            int v = world_of(color, lrank);
            MPI_OK(MPI_Send(&v, 1, MPI_INT, i, 9, ic));
        }
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == lrank % rsize, "source %d, want %d", st.MPI_SOURCE, lrank % rsize);
    CHECK(got == world_of(1 - color, st.MPI_SOURCE), "got %d from %d", got, st.MPI_SOURCE);
    MPI_OK(MPI_Barrier(ic));
}

/* The rooted collectives with group `rg` holding the root at its local rank `rl`. */
static void test_rooted(int nb, int rg, int rl)
{
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Request *rp = nb ? &r : NULL;
    int in_root_group = color == rg;
    int root = in_root_group ? (lrank == rl ? MPI_ROOT : MPI_PROC_NULL) : rl;
    int am_root = root == MPI_ROOT;
    int n = 5, other = group_size(1 - rg);
    int buf[5], *big = calloc((size_t)(other * n + 1), sizeof(int));
    int counts[64], displs[64];

    t_begin(nb ? "ibcast" : "bcast");
    for (int i = 0; i < n; i++)
        buf[i] = am_root ? 100 + i : -1;
    if (nb)
        MPI_OK(MPI_Ibcast(buf, n, MPI_INT, root, ic, rp));
    else
        MPI_OK(MPI_Bcast(buf, n, MPI_INT, root, ic));
    wait_or(nb, &r);
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == (in_root_group && !am_root ? -1 : 100 + i), "buf[%d] = %d", i, buf[i]);

    t_begin(nb ? "ireduce" : "reduce");
    int sv[2] = { world_of(color, lrank), 1 }, rv[2] = { -1, -1 };
    if (nb)
        MPI_OK(MPI_Ireduce(sv, rv, 2, MPI_INT, MPI_SUM, root, ic, rp));
    else
        MPI_OK(MPI_Reduce(sv, rv, 2, MPI_INT, MPI_SUM, root, ic));
    wait_or(nb, &r);
    if (am_root) {
        int sum = 0;
        for (int i = 0; i < other; i++)
            sum += world_of(1 - rg, i);
        CHECK(rv[0] == sum && rv[1] == other, "reduce gave %d,%d, want %d,%d", rv[0], rv[1], sum,
              other);
    }

    t_begin(nb ? "igather" : "gather");
    int mine[2] = { world_of(color, lrank), 7 };
    if (nb)
        MPI_OK(MPI_Igather(mine, 2, MPI_INT, big, 2, MPI_INT, root, ic, rp));
    else
        MPI_OK(MPI_Gather(mine, 2, MPI_INT, big, 2, MPI_INT, root, ic));
    wait_or(nb, &r);
    if (am_root)
        for (int i = 0; i < other; i++)
            CHECK(big[2 * i] == world_of(1 - rg, i) && big[2 * i + 1] == 7, "gather block %d", i);

    t_begin(nb ? "igatherv" : "gatherv");
    for (int i = 0; i < other && i < 64; i++) {
        counts[i] = i % 3;
        displs[i] = 3 * (other - 1 - i);
    }
    memset(big, 0xff, sizeof(int) * (size_t)(other * n + 1));
    int vals[3] = { world_of(color, lrank), world_of(color, lrank) + 1, world_of(color, lrank) + 2 };
    int mycount = in_root_group ? 0 : lrank % 3;
    if (nb)
        MPI_OK(MPI_Igatherv(vals, mycount, MPI_INT, big, counts, displs, MPI_INT, root, ic, rp));
    else
        MPI_OK(MPI_Gatherv(vals, mycount, MPI_INT, big, counts, displs, MPI_INT, root, ic));
    wait_or(nb, &r);
    if (am_root)
        for (int i = 0; i < other; i++)
            for (int k = 0; k < counts[i]; k++)
                CHECK(big[displs[i] + k] == world_of(1 - rg, i) + k, "gatherv %d.%d", i, k);

    t_begin(nb ? "iscatter" : "scatter");
    if (am_root)
        for (int i = 0; i < 2 * other; i++)
            big[i] = 50 + i;
    int two[2] = { -1, -1 };
    if (nb)
        MPI_OK(MPI_Iscatter(big, 2, MPI_INT, two, 2, MPI_INT, root, ic, rp));
    else
        MPI_OK(MPI_Scatter(big, 2, MPI_INT, two, 2, MPI_INT, root, ic));
    wait_or(nb, &r);
    if (!in_root_group)
        CHECK(two[0] == 50 + 2 * lrank && two[1] == 51 + 2 * lrank, "scatter got %d,%d", two[0],
              two[1]);

    t_begin(nb ? "iscatterv" : "scatterv");
    if (am_root)
        for (int i = 0; i < 3 * other; i++)
            big[i] = 300 + i;
    int three[3] = { -1, -1, -1 };
    if (nb)
        MPI_OK(MPI_Iscatterv(big, counts, displs, MPI_INT, three, mycount, MPI_INT, root, ic, rp));
    else
        MPI_OK(MPI_Scatterv(big, counts, displs, MPI_INT, three, mycount, MPI_INT, root, ic));
    wait_or(nb, &r);
    if (!in_root_group)
        for (int k = 0; k < mycount; k++)
            CHECK(three[k] == 300 + displs[lrank] + k, "scatterv %d = %d", k, three[k]);
    free(big);
}

static void test_all(int nb)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int n = rsize;
    int *a = malloc(sizeof(int) * (size_t)(4 * n + 8)), *b = malloc(sizeof(int) * (size_t)(4 * n + 8));
    int *sc = malloc(sizeof(int) * (size_t)(n + lsize)), *sd = malloc(sizeof(int) * (size_t)(n + lsize));
    int *rc = malloc(sizeof(int) * (size_t)(n + lsize)), *rd = malloc(sizeof(int) * (size_t)(n + lsize));
    MPI_Datatype *ts = malloc(sizeof(MPI_Datatype) * (size_t)n);
    int me = world_of(color, lrank);

    t_begin(nb ? "ibarrier" : "barrier");
    if (nb) {
        MPI_OK(MPI_Ibarrier(ic, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Barrier(ic));
    }

    t_begin(nb ? "iallreduce" : "allreduce");
    int sv[2] = { me, 1 }, rv[2];
    if (nb)
        MPI_OK(MPI_Iallreduce(sv, rv, 2, MPI_INT, MPI_SUM, ic, &r));
    else
        MPI_OK(MPI_Allreduce(sv, rv, 2, MPI_INT, MPI_SUM, ic));
    wait_or(nb, &r);
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += world_of(1 - color, i);
    CHECK(rv[0] == sum && rv[1] == n, "allreduce %d,%d want %d,%d", rv[0], rv[1], sum, n);

    t_begin(nb ? "iallgather" : "allgather");
    if (nb)
        MPI_OK(MPI_Iallgather(&me, 1, MPI_INT, a, 1, MPI_INT, ic, &r));
    else
        MPI_OK(MPI_Allgather(&me, 1, MPI_INT, a, 1, MPI_INT, ic));
    wait_or(nb, &r);
    for (int i = 0; i < n; i++)
        CHECK(a[i] == world_of(1 - color, i), "allgather[%d] = %d", i, a[i]);

    t_begin(nb ? "iallgatherv" : "allgatherv");
    for (int i = 0; i < n; i++) {
        rc[i] = 1 + i % 2;
        rd[i] = 2 * (n - 1 - i);
    }
    int two[2] = { me, -me };
    if (nb)
        MPI_OK(MPI_Iallgatherv(two, 1 + lrank % 2, MPI_INT, a, rc, rd, MPI_INT, ic, &r));
    else
        MPI_OK(MPI_Allgatherv(two, 1 + lrank % 2, MPI_INT, a, rc, rd, MPI_INT, ic));
    wait_or(nb, &r);
    for (int i = 0; i < n; i++) {
        CHECK(a[rd[i]] == world_of(1 - color, i), "allgatherv block %d", i);
        if (rc[i] == 2)
            CHECK(a[rd[i] + 1] == -world_of(1 - color, i), "allgatherv block %d item 1", i);
    }

    t_begin(nb ? "ialltoall" : "alltoall");
    for (int i = 0; i < n; i++)
        a[i] = me * 100 + i;
    if (nb)
        MPI_OK(MPI_Ialltoall(a, 1, MPI_INT, b, 1, MPI_INT, ic, &r));
    else
        MPI_OK(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, ic));
    wait_or(nb, &r);
    for (int i = 0; i < n; i++)
        CHECK(b[i] == world_of(1 - color, i) * 100 + lrank, "alltoall[%d] = %d", i, b[i]);

    t_begin(nb ? "ialltoallv" : "alltoallv");
    /* i sends (remote rank j + 1) items to j, all equal to its world rank */
    int off = 0;
    for (int j = 0; j < n; j++) {
        sc[j] = 1 + lrank % 2;   /* what I send to j: depends on me */
        sd[j] = off;
        for (int k = 0; k < sc[j]; k++)
            a[off + k] = me;
        off += sc[j];
    }
    off = 0;
    for (int j = 0; j < n; j++) {
        rc[j] = 1 + j % 2;       /* what j sends me */
        rd[j] = off;
        off += rc[j];
    }
    if (nb)
        MPI_OK(MPI_Ialltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, ic, &r));
    else
        MPI_OK(MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, ic));
    wait_or(nb, &r);
    for (int j = 0; j < n; j++)
        for (int k = 0; k < rc[j]; k++)
            CHECK(b[rd[j] + k] == world_of(1 - color, j), "alltoallv from %d", j);

    t_begin(nb ? "ialltoallw" : "alltoallw");
    for (int j = 0; j < n; j++) {
        a[j] = me + j;
        sc[j] = rc[j] = 1;
        sd[j] = rd[j] = (int)sizeof(int) * j;
        ts[j] = MPI_INT;
    }
    if (nb)
        MPI_OK(MPI_Ialltoallw(a, sc, sd, ts, b, rc, rd, ts, ic, &r));
    else
        MPI_OK(MPI_Alltoallw(a, sc, sd, ts, b, rc, rd, ts, ic));
    wait_or(nb, &r);
    for (int j = 0; j < n; j++)
        CHECK(b[j] == world_of(1 - color, j) + lrank, "alltoallw from %d: %d", j, b[j]);

    /* Reduce-scatter: each group's vector is as long as the results it gets
     * (MPI makes the two totals equal): the group of size s gets blocks
     * of t / s items, t = lsize * rsize. */
    t_begin(nb ? "ireduce_scatter_block" : "reduce_scatter_block");
    int t = lsize * rsize, blk = rsize;
    for (int i = 0; i < t; i++)
        a[i] = me + i;
    if (nb)
        MPI_OK(MPI_Ireduce_scatter_block(a, b, blk, MPI_INT, MPI_SUM, ic, &r));
    else
        MPI_OK(MPI_Reduce_scatter_block(a, b, blk, MPI_INT, MPI_SUM, ic));
    wait_or(nb, &r);
    for (int k = 0; k < blk; k++) {
        int want = 0;
        for (int j = 0; j < n; j++)
            want += world_of(1 - color, j) + lrank * blk + k;
        CHECK(b[k] == want, "reduce_scatter_block[%d] = %d, want %d", k, b[k], want);
    }

    t_begin(nb ? "ireduce_scatter" : "reduce_scatter");
    /* local counts: blk items each, with the first rank taking one more and the last one less
     * when there are two or more */
    for (int i = 0; i < lsize; i++)
        sc[i] = blk + (lsize > 1 ? (i == 0) - (i == lsize - 1) : 0);
    int mystart = 0;
    for (int i = 0; i < lrank; i++)
        mystart += sc[i];
    if (nb)
        MPI_OK(MPI_Ireduce_scatter(a, b, sc, MPI_INT, MPI_SUM, ic, &r));
    else
        MPI_OK(MPI_Reduce_scatter(a, b, sc, MPI_INT, MPI_SUM, ic));
    wait_or(nb, &r);
    for (int k = 0; k < sc[lrank]; k++) {
        int want = 0;
        for (int j = 0; j < n; j++)
            want += world_of(1 - color, j) + mystart + k;
        CHECK(b[k] == want, "reduce_scatter[%d] = %d, want %d", k, b[k], want);
    }
    free(a);
    free(b);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(ts);
}

static void test_merge(void)
{
    t_begin("merge");
    for (int variant = 0; variant < 3; variant++) {
        /* 0: odds high; 1: evens high; 2: both false (order by leader) */
        int high = variant == 0 ? color == 1 : variant == 1 ? color == 0 : 0;
        MPI_Comm m;
        MPI_OK(MPI_Intercomm_merge(ic, high, &m));
        int mr, ms, flag;
        MPI_OK(MPI_Comm_rank(m, &mr));
        MPI_OK(MPI_Comm_size(m, &ms));
        MPI_OK(MPI_Comm_test_inter(m, &flag));
        CHECK(ms == wsize && !flag, "merged size %d inter %d", ms, flag);
        int first = variant == 0 ? 0 : variant == 1 ? 1 : 0;   /* evens' leader is world 0 */
        int want = color == first ? lrank : group_size(first) + lrank;
        CHECK(mr == want, "variant %d: merged rank %d, want %d", variant, mr, want);
        int s = mr, tot;
        MPI_OK(MPI_Allreduce(&s, &tot, 1, MPI_INT, MPI_SUM, m));
        CHECK(tot == wsize * (wsize - 1) / 2, "allreduce on merged: %d", tot);
        MPI_OK(MPI_Comm_free(&m));
    }
}

static int copies;
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)k; (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_manage(void)
{
    t_begin("dup");
    int key;
    MPI_OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_OK(MPI_Comm_set_attr(ic, key, (void *)(intptr_t)42));
    MPI_OK(MPI_Comm_set_name(ic, "the intercomm"));
    MPI_Comm d, d2;
    MPI_OK(MPI_Comm_dup(ic, &d));
    int flag, res, rs;
    void *val;
    MPI_OK(MPI_Comm_get_attr(d, key, &val, &flag));
    CHECK(flag && (intptr_t)val == 42 && copies == 1, "attribute copied: flag %d", flag);
    MPI_OK(MPI_Comm_test_inter(d, &flag));
    MPI_OK(MPI_Comm_remote_size(d, &rs));
    CHECK(flag && rs == rsize, "dup: inter %d remote size %d", flag, rs);
    MPI_OK(MPI_Comm_compare(ic, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare dup: %d", res);
    MPI_OK(MPI_Comm_compare(ic, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_UNEQUAL, "compare world: %d", res);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Comm_get_name(ic, name, &len));
    CHECK(strcmp(name, "the intercomm") == 0, "name %s", name);
    /* traffic on the dup does not mix with the original */
    int v = lrank, got = -1;
    MPI_Request rq;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, 0, 3, ic, &rq));
    if (lrank == 0) {
        int x = 1000;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 3, d));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 3, ic));
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 3, d, MPI_STATUS_IGNORE));
        CHECK(v == 0, "dup message %d", v);
    }
    if (lrank == 0) {
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(got == 1000, "intercomm message %d", got);
    } else {
        MPI_OK(MPI_Cancel(&rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }

    t_begin("idup");
    MPI_OK(MPI_Comm_idup(ic, &d2, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_remote_size(d2, &rs));
    CHECK(rs == rsize, "idup remote size %d", rs);
    int sv = 1, rv = 0;
    MPI_OK(MPI_Allreduce(&sv, &rv, 1, MPI_INT, MPI_SUM, d2));
    CHECK(rv == rsize, "allreduce on idup: %d", rv);
    MPI_OK(MPI_Comm_free(&d2));
    MPI_OK(MPI_Comm_free(&d));

    t_begin("split");
    /* colors by local rank parity; the evens' odd-rank members pass MPI_UNDEFINED */
    int c = lrank % 2;
    if (color == 0 && c == 1)
        c = MPI_UNDEFINED;
    MPI_Comm s;
    MPI_OK(MPI_Comm_split(ic, c, -lrank, &s));
    int rcount = 0, lcount = 0;   /* the expected sizes */
    for (int i = 0; i < group_size(color); i++)
        lcount += (i % 2 == lrank % 2);
    for (int i = 0; i < group_size(1 - color); i++) {
        int ci = i % 2;
        if (color == 1 && ci == 1)
            continue;   /* remote evens with odd local rank are undefined */
        rcount += ci == lrank % 2;
    }
    if (c == MPI_UNDEFINED || rcount == 0) {
        CHECK(s == MPI_COMM_NULL, "split gave a communicator where none is due");
    } else {
        CHECK(s != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
        int sr, ss;
        MPI_OK(MPI_Comm_size(s, &ss));
        MPI_OK(MPI_Comm_rank(s, &sr));
        MPI_OK(MPI_Comm_remote_size(s, &rs));
        CHECK(ss == lcount && rs == rcount, "split sizes %d/%d want %d/%d", ss, rs, lcount, rcount);
        CHECK(sr == lcount - 1 - lrank / 2, "split rank %d (keys reverse)", sr);
        int w = world_of(color, lrank), sumw = 0;
        MPI_OK(MPI_Allreduce(&w, &sumw, 1, MPI_INT, MPI_SUM, s));
        int want = 0;
        for (int i = 0; i < group_size(1 - color); i++)
            if (i % 2 == lrank % 2)
                want += world_of(1 - color, i);
        CHECK(sumw == want, "allreduce on split: %d want %d", sumw, want);
        MPI_OK(MPI_Comm_free(&s));
    }

    t_begin("create");
    MPI_Group lg, sub;
    MPI_OK(MPI_Comm_group(ic, &lg));
    int zero = 0;
    MPI_OK(MPI_Group_incl(lg, 1, &zero, &sub));   /* each group keeps its leader */
    MPI_Comm cc;
    MPI_OK(MPI_Comm_create(ic, sub, &cc));
    if (lrank == 0) {
        CHECK(cc != MPI_COMM_NULL, "create: no communicator at the leader");
        MPI_OK(MPI_Comm_remote_size(cc, &rs));
        CHECK(rs == 1, "create: remote size %d", rs);
        int x = world_of(color, 0), y = -1;
        MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, cc, MPI_STATUS_IGNORE));
        CHECK(y == world_of(1 - color, 0), "create: got %d", y);
        MPI_OK(MPI_Comm_free(&cc));
    } else {
        CHECK(cc == MPI_COMM_NULL, "create: a communicator outside the group");
    }
    MPI_OK(MPI_Group_free(&sub));
    MPI_OK(MPI_Group_free(&lg));
    MPI_OK(MPI_Comm_free_keyval(&key));
}

static void test_errors(void)
{
    t_begin("errors");
    MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    int dims = lsize, periods = 0, cls;
    MPI_Comm cart = MPI_COMM_NULL;
    int rc = MPI_Cart_create(ic, 1, &dims, &periods, 0, &cart);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "MPI_Cart_create on an intercommunicator: class %d", cls);
    int x = 0;
    rc = MPI_Bcast(&x, 1, MPI_INT, rsize, ic);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ROOT, "root out of range: class %d", cls);
    rc = MPI_Scan(&x, &dims, 1, MPI_INT, MPI_SUM, ic);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "MPI_Scan on an intercommunicator: class %d", cls);
    rc = MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, ic);
    CHECK(rc != MPI_SUCCESS, "MPI_IN_PLACE accepted on an intercommunicator");
    rc = MPI_Send(&x, 1, MPI_INT, rsize, 0, ic);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "send to remote rank %d: class %d", rsize, cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Comm_remote_size(MPI_COMM_WORLD, &x);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "remote size of an intracommunicator: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2)
        t_skip("needs two ranks");
    color = wrank % 2;
    MPI_Comm local;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
    t_begin("create");
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 5, &ic));
    MPI_OK(MPI_Comm_free(&local));
    int flag;
    MPI_OK(MPI_Comm_test_inter(ic, &flag));
    MPI_OK(MPI_Comm_rank(ic, &lrank));
    MPI_OK(MPI_Comm_size(ic, &lsize));
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    CHECK(flag, "not an intercommunicator");
    CHECK(lrank == wrank / 2 && lsize == group_size(color) && rsize == group_size(1 - color),
          "rank %d size %d remote %d", lrank, lsize, rsize);
    MPI_Group rg, wg;
    MPI_OK(MPI_Comm_remote_group(ic, &rg));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < rsize; i++) {
        int w;
        MPI_OK(MPI_Group_translate_ranks(rg, 1, &i, wg, &w));
        CHECK(w == world_of(1 - color, i), "remote rank %d is world %d", i, w);
    }
    MPI_OK(MPI_Group_free(&rg));
    MPI_OK(MPI_Group_free(&wg));

    test_p2p();
    for (int nb = 0; nb < 2; nb++) {
        for (int rg2 = 0; rg2 < 2; rg2++) {
            test_rooted(nb, rg2, 0);
            test_rooted(nb, rg2, group_size(rg2) - 1);
        }
        test_all(nb);
    }
    test_merge();
    test_manage();
    test_errors();
    MPI_OK(MPI_Comm_free(&ic));
    t_finish();
    return 0;
}
