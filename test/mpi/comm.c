/*
 * Communicators and groups: Comm_dup/idup/split/split_type/create/
 * create_group/compare/free/set_name/get_name/test_inter and the Group_*
 * operations, each checked against answers computed here from plain arrays,
 * then point-to-point traffic on every new communicator.
 */
#include "check.h"

static int rank, size;
static MPI_Group world_group;

/* World ranks of the members of g, in g's order. Returns the group size. */
static int members(MPI_Group g, int *out)
{
    int n;
    MPI_Group_size(g, &n);
    int *idx = malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        idx[i] = i;
    if (n > 0)
        MPI_Group_translate_ranks(g, n, idx, world_group, out);
    free(idx);
    return n;
}

static void expect_group(MPI_Group g, const int *expect, int n, const char *what)
{
    int got[64];
    int gn = members(g, got);
    CHECK(gn == n, "%s: size %d, expected %d", what, gn, n);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == expect[i], "%s: member %d is world rank %d, expected %d", what, i, got[i],
              expect[i]);
    int myrank, want = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (expect[i] == rank)
            want = i;
    MPI_Group_rank(g, &myrank);
    CHECK(myrank == want, "%s: Group_rank %d, expected %d", what, myrank, want);
}

/*
 * Ring traffic on comm: each rank sends its world rank to the next one; the
 * value received must be the world rank of the previous member of comm, as
 * given by comm's group. Also an exchange with every member.
 */
static void traffic(MPI_Comm comm, const char *what)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    MPI_Group g;
    MPI_Comm_group(comm, &g);
    int *w = malloc(sizeof(int) * (size_t)n);
    members(g, w);
    CHECK(w[r] == rank, "%s: my member entry is %d", what, w[r]);
    int v = rank, got = -1;
    MPI_Status st;
    MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % n, 77, &got, 1, MPI_INT, (r + n - 1) % n, 77, comm, &st);
    CHECK(got == w[(r + n - 1) % n], "%s: ring got %d from comm rank %d, expected world rank %d",
          what, got, st.MPI_SOURCE, w[(r + n - 1) % n]);
    /* everyone to everyone with wildcard receives */
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)n);
    for (int p = 0; p < n; p++)
        MPI_Isend(&v, 1, MPI_INT, p, 78, comm, &req[p]);
    for (int p = 0; p < n; p++) {
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 78, comm, &st);
        CHECK(got == w[st.MPI_SOURCE], "%s: got %d from comm rank %d (world %d)", what, got,
              st.MPI_SOURCE, w[st.MPI_SOURCE]);
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    free(req);
    free(w);
    MPI_Group_free(&g);
}

static void dup_and_compare(void)
{
    t_begin("comm-dup");
    MPI_Comm dup, idup;
    int res;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res);
    CHECK(res == MPI_IDENT, "compare(world, world) = %d", res);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
    CHECK(res == MPI_CONGRUENT, "compare(world, dup) = %d", res);
    int r, n, inter = 1;
    MPI_Comm_rank(dup, &r);
    MPI_Comm_size(dup, &n);
    CHECK(r == rank && n == size, "dup: rank %d size %d", r, n);
    MPI_Comm_test_inter(dup, &inter);
    CHECK(!inter, "Comm_test_inter true for an intracommunicator");
    traffic(dup, "dup");

    MPI_Request req;
    MPI_OK(MPI_Comm_idup(dup, &idup, &req));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_compare(dup, idup, &res);
    CHECK(res == MPI_CONGRUENT, "compare(dup, idup) = %d", res);
    traffic(idup, "idup");

    MPI_Comm self_dup;
    MPI_Comm_dup(MPI_COMM_SELF, &self_dup);
    MPI_Comm_compare(MPI_COMM_SELF, self_dup, &res);
    CHECK(res == MPI_CONGRUENT, "compare(self, dup(self)) = %d", res);
    MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &res);
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(self, world) = %d", res);
    traffic(self_dup, "dup(self)");

    MPI_OK(MPI_Comm_free(&idup));
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Comm_free(&self_dup));
    CHECK(dup == MPI_COMM_NULL && idup == MPI_COMM_NULL, "Comm_free did not null the handle");
}

/* MPI_Comm_idup must not block: rank 0 starts one and then sends to every
 * other rank, which receive before they start theirs (a blocking idup
 * would deadlock). Then several idups of different communicators are in
 * flight at once, started in different orders on different ranks, with a
 * blocking Comm_dup in the middle; all must yield working communicators. */
static void idup_nonblocking(void)
{
    t_begin("comm-idup-nonblocking");
    MPI_Comm c;
    MPI_Request req;
    int v = 0;
    if (rank == 0) {
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &req));
        for (int r = 1; r < size; r++) {
            v = 100 + r;
            MPI_Send(&v, 1, MPI_INT, r, 5, MPI_COMM_WORLD);
        }
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(v == 100 + rank, "received %d", v);
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &req));
    }
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(c != MPI_COMM_NULL, "idup gave MPI_COMM_NULL");
    traffic(c, "idup(world) overlapped with p2p");

    /* two halves and world: three idups in flight, order depending on rank */
    MPI_Comm half, a, b, d, mid;
    MPI_Request reqs[2];
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    if (rank % 2) {
        MPI_OK(MPI_Comm_idup(half, &a, &reqs[0]));
        MPI_OK(MPI_Comm_idup(c, &b, &reqs[1]));
    } else {
        MPI_OK(MPI_Comm_idup(c, &b, &reqs[1]));
        MPI_OK(MPI_Comm_idup(half, &a, &reqs[0]));
    }
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &mid));
    MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Comm_dup(a, &d));
    traffic(a, "idup(half)");
    traffic(b, "idup(idup(world))");
    traffic(mid, "dup(world) during idups");
    traffic(d, "dup(idup(half))");
    int res;
    MPI_Comm_compare(half, a, &res);
    CHECK(res == MPI_CONGRUENT, "compare(half, idup(half)) = %d", res);
    /* isolation: the same tag on all six at once; each must get its own */
    MPI_Comm comms[] = { c, half, a, b, d, mid };
    int got[6], out[6];
    MPI_Request rq[12];
    for (int i = 0; i < 6; i++) {
        int r, n;
        MPI_Comm_rank(comms[i], &r);
        MPI_Comm_size(comms[i], &n);
        MPI_Irecv(&got[i], 1, MPI_INT, (r + n - 1) % n, 9, comms[i], &rq[i]);
    }
    for (int i = 5; i >= 0; i--) {
        int r, n;
        MPI_Comm_rank(comms[i], &r);
        MPI_Comm_size(comms[i], &n);
        out[i] = 1000 * i + r;
        MPI_Isend(&out[i], 1, MPI_INT, (r + 1) % n, 9, comms[i], &rq[6 + i]);
    }
    MPI_OK(MPI_Waitall(12, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 6; i++) {
        int r, n;
        MPI_Comm_rank(comms[i], &r);
        MPI_Comm_size(comms[i], &n);
        CHECK(got[i] == 1000 * i + (r + n - 1) % n, "communicator %d received %d: contexts mixed",
              i, got[i]);
    }
    for (int i = 0; i < 6; i++)
        MPI_OK(MPI_Comm_free(&comms[i]));
}

static void names(void)
{
    t_begin("comm-names");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(!strcmp(name, "MPI_COMM_WORLD") && len == 14, "world is named \"%s\" (%d)", name, len);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    CHECK(!strcmp(name, "MPI_COMM_SELF"), "self is named \"%s\"", name);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_OK(MPI_Comm_set_name(dup, "my test communicator"));
    MPI_Comm_get_name(dup, name, &len);
    CHECK(!strcmp(name, "my test communicator") && len == (int)strlen(name),
          "dup is named \"%s\" (%d)", name, len);
    MPI_Comm_set_name(dup, "renamed");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(!strcmp(name, "renamed"), "renamed dup is named \"%s\"", name);
    MPI_Comm_free(&dup);
}

static void split(void)
{
    t_begin("comm-split");
    int expect[64], n = 0;
    /* colour by parity, key reverses the order */
    MPI_Comm c;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &c));
    for (int r = size - 1; r >= 0; r--)
        if (r % 2 == rank % 2)
            expect[n++] = r;
    MPI_Group g;
    MPI_Comm_group(c, &g);
    expect_group(g, expect, n, "split even/odd reversed");
    MPI_Group_free(&g);
    int res;
    MPI_Comm_compare(MPI_COMM_WORLD, c, &res);
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(world, split) = %d", res);
    traffic(c, "split even/odd");
    MPI_Comm_free(&c);

    /* one colour, key 0 everywhere: ties keep the world order */
    MPI_Comm_split(MPI_COMM_WORLD, 5, 0, &c);
    MPI_Comm_compare(MPI_COMM_WORLD, c, &res);
    CHECK(res == MPI_CONGRUENT, "compare(world, split with one colour) = %d", res);
    MPI_Comm_free(&c);

    /* one colour, reversed keys: same members, another order */
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &c);
    MPI_Comm_compare(MPI_COMM_WORLD, c, &res);
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare(world, reversed) = %d", res);
    traffic(c, "split reversed");
    MPI_Comm_free(&c);

    /* MPI_UNDEFINED colour gives MPI_COMM_NULL */
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &c);
    if (rank == 0)
        CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED colour gave a communicator");
    else {
        int r;
        MPI_Comm_rank(c, &r);
        CHECK(r == rank - 1, "rank %d in the split without rank 0", r);
        traffic(c, "split without rank 0");
        MPI_Comm_free(&c);
    }

    /* split of a split */
    MPI_Comm half, quarter;
    MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2, rank, &half);
    MPI_Comm_split(half, rank % 2, rank, &quarter);
    n = 0;
    for (int r = 0; r < size; r++)
        if ((r < (size + 1) / 2) == (rank < (size + 1) / 2) && r % 2 == rank % 2)
            expect[n++] = r;
    MPI_Comm_group(quarter, &g);
    expect_group(g, expect, n, "split of a split");
    MPI_Group_free(&g);
    traffic(quarter, "split of a split");
    MPI_Comm_free(&quarter);
    MPI_Comm_free(&half);

    t_begin("comm-split-type");
    MPI_OK(
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &c));
    /* the ranks that share my node are those with my processor name */
    char mine[MPI_MAX_PROCESSOR_NAME], other[MPI_MAX_PROCESSOR_NAME];
    int len;
    memset(mine, 0, sizeof(mine));
    MPI_Get_processor_name(mine, &len);
    MPI_Request *nreq = malloc(sizeof(MPI_Request) * (size_t)size);
    for (int r = 0; r < size; r++)
        MPI_Isend(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r, 79, MPI_COMM_WORLD, &nreq[r]);
    n = 0;
    for (int r = size - 1; r >= 0; r--) {
        MPI_Recv(other, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!strcmp(other, mine))
            expect[n++] = r;
    }
    MPI_Waitall(size, nreq, MPI_STATUSES_IGNORE);
    free(nreq);
    MPI_Comm_group(c, &g);
    expect_group(g, expect, n, "split_type shared, keys reversed");
    MPI_Group_free(&g);
    traffic(c, "split_type");
    MPI_Comm_free(&c);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c);
    CHECK(c == MPI_COMM_NULL, "split_type MPI_UNDEFINED gave a communicator");
}

static void groups(void)
{
    t_begin("groups");
    int expect[64], n, res;
    MPI_Group g, evens, odds, u, x, d, rev;
    int sz;
    MPI_Group_size(world_group, &sz);
    CHECK(sz == size, "world group size %d", sz);
    for (int i = 0; i < size; i++)
        expect[i] = i;
    expect_group(world_group, expect, size, "world group");

    MPI_Group_size(MPI_GROUP_EMPTY, &sz);
    CHECK(sz == 0, "MPI_GROUP_EMPTY has size %d", sz);
    MPI_Group_rank(MPI_GROUP_EMPTY, &sz);
    CHECK(sz == MPI_UNDEFINED, "rank in MPI_GROUP_EMPTY is %d", sz);

    /* incl: last and first */
    int ranks[2] = {size - 1, 0};
    MPI_Group_incl(world_group, size > 1 ? 2 : 1, ranks, &g);
    expect_group(g, ranks, size > 1 ? 2 : 1, "incl {size-1, 0}");
    MPI_Group_compare(g, world_group, &res);
    CHECK(res == (size == 1   ? MPI_IDENT
                  : size == 2 ? MPI_SIMILAR
                              : MPI_UNEQUAL),
          "compare(incl, world) = %d", res);
    MPI_Group_free(&g);
    CHECK(g == MPI_GROUP_NULL, "Group_free did not null the handle");

    /* excl: rank 0 */
    int zero = 0;
    MPI_Group_excl(world_group, 1, &zero, &g);
    for (n = 0; n < size - 1; n++)
        expect[n] = n + 1;
    expect_group(g, expect, n, "excl {0}");
    MPI_Group_free(&g);

    /* range_incl evens, range_excl evens = odds, reversed range */
    int tri[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world_group, 1, tri, &evens);
    for (n = 0; 2 * n < size; n++)
        expect[n] = 2 * n;
    expect_group(evens, expect, n, "range_incl {0, size-1, 2}");
    MPI_Group_range_excl(world_group, 1, tri, &odds);
    for (n = 0; 2 * n + 1 < size; n++)
        expect[n] = 2 * n + 1;
    expect_group(odds, expect, n, "range_excl {0, size-1, 2}");
    int back[1][3] = {{size - 1, 0, -1}};
    MPI_Group_range_incl(world_group, 1, back, &rev);
    for (n = 0; n < size; n++)
        expect[n] = size - 1 - n;
    expect_group(rev, expect, n, "range_incl {size-1, 0, -1}");
    MPI_Group_compare(rev, world_group, &res);
    CHECK(res == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare(reversed, world) = %d", res);

    /* union: the first group's members, then the second's that are new */
    MPI_Group_union(odds, evens, &u);
    n = 0;
    for (int r = 1; r < size; r += 2)
        expect[n++] = r;
    for (int r = 0; r < size; r += 2)
        expect[n++] = r;
    expect_group(u, expect, n, "union(odds, evens)");
    MPI_Group_compare(u, world_group, &res);
    CHECK(res == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare(union, world) = %d", res);
    MPI_Group_free(&u);
    MPI_Group_union(world_group, rev, &u);
    MPI_Group_compare(u, world_group, &res);
    CHECK(res == MPI_IDENT, "compare(union(world, reversed), world) = %d", res);
    MPI_Group_free(&u);

    /* intersection keeps the first group's order */
    MPI_Group_intersection(rev, evens, &x);
    n = 0;
    for (int r = size - 1; r >= 0; r--)
        if (r % 2 == 0)
            expect[n++] = r;
    expect_group(x, expect, n, "intersection(reversed, evens)");
    MPI_Group_free(&x);
    MPI_Group_intersection(evens, odds, &x);
    MPI_Group_size(x, &sz);
    CHECK(sz == 0, "intersection(evens, odds) has size %d", sz);
    MPI_Group_compare(x, MPI_GROUP_EMPTY, &res);
    CHECK(res == MPI_IDENT, "empty intersection compared with MPI_GROUP_EMPTY: %d", res);
    MPI_Group_free(&x);

    /* difference */
    MPI_Group_difference(rev, evens, &d);
    n = 0;
    for (int r = size - 1; r >= 0; r--)
        if (r % 2 == 1)
            expect[n++] = r;
    expect_group(d, expect, n, "difference(reversed, evens)");
    MPI_Group_compare(d, odds, &res);
    CHECK(res == (n <= 1 ? MPI_IDENT : MPI_SIMILAR), "compare(difference, odds) = %d", res);
    MPI_Group_free(&d);

    /* translate: non-members give MPI_UNDEFINED, MPI_PROC_NULL maps to itself */
    int in[3] = {0, size - 1, MPI_PROC_NULL}, out[3];
    MPI_Group_translate_ranks(world_group, 2, in, odds, out);
    MPI_Group_translate_ranks(world_group, 1, in + 2, rev, out + 2);
    CHECK(out[0] == MPI_UNDEFINED, "world rank 0 in odds: %d", out[0]);
    int last_odd = (size - 1) % 2 == 1 ? (size - 1) / 2 : MPI_UNDEFINED;
    CHECK(out[1] == last_odd, "world rank %d in odds: %d, expected %d", size - 1, out[1], last_odd);
    CHECK(out[2] == MPI_PROC_NULL, "MPI_PROC_NULL translated to %d", out[2]);

    /* communicators from groups */
    t_begin("comm-create");
    MPI_Comm c;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, rev, &c));
    int r;
    MPI_Comm_rank(c, &r);
    CHECK(r == size - 1 - rank, "rank %d in the reversed communicator", r);
    traffic(c, "create(reversed)");
    MPI_Comm_free(&c);
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
    if (rank % 2) {
        CHECK(c == MPI_COMM_NULL, "a non-member got a communicator from Comm_create");
    } else {
        MPI_Comm_rank(c, &r);
        CHECK(r == rank / 2, "rank %d in the evens communicator", r);
        traffic(c, "create(evens)");
        MPI_Comm_free(&c);
    }

    t_begin("comm-create-group");
    MPI_Group mygroup = rank % 2 ? odds : evens;
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, mygroup, 42, &c));
    MPI_Comm_rank(c, &r);
    CHECK(r == rank / 2, "rank %d in the create_group communicator", r);
    MPI_Group cg;
    MPI_Comm_group(c, &cg);
    MPI_Group_compare(cg, mygroup, &res);
    CHECK(res == MPI_IDENT, "group of the created communicator compares %d", res);
    MPI_Group_free(&cg);
    traffic(c, "create_group(parity)");
    MPI_Comm_free(&c);
    /* only the members call it: a group of rank 0 alone */
    if (rank == 0) {
        MPI_Group_incl(world_group, 1, &zero, &g);
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 43, &c));
        traffic(c, "create_group({0})");
        MPI_Comm_free(&c);
        MPI_Group_free(&g);
    }

    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&rev);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    rank = t_rank;
    size = t_size;
    CHECK(size <= 64, "this test handles up to 64 ranks");
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    dup_and_compare();
    idup_nonblocking();
    names();
    split();
    groups();
    traffic(MPI_COMM_WORLD, "world after all");
    MPI_Group_free(&world_group);
    t_finish();
    return 0;
}
