/*
 * Window objects and RMA errors: attributes (MPI_WIN_BASE, SIZE, DISP_UNIT,
 * CREATE_FLAVOR, MODEL) and keyvals with their delete callback, names, info,
 * the group, error handlers (MPI_ERRORS_RETURN, a user handler, call_errhandler)
 * and the error classes: MPI_ERR_RMA_SYNC (operation outside an epoch, unlock
 * without lock, complete without start, flush without passive epoch),
 * MPI_ERR_RMA_RANGE (target memory outside the window), MPI_ERR_LOCKTYPE,
 * MPI_ERR_RANK, MPI_ERR_RMA_FLAVOR, MPI_ERR_WIN, MPI_ERR_RMA_ATTACH,
 * MPI_ERR_ASSERT, MPI_ERR_DISP, MPI_ERR_SIZE, MPI_ERR_OP.
 */
#include "check.h"

static int deleted, handler_calls, handler_class;

static int del_fn(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win, (void)keyval, (void)extra;
    deleted += *(int *)value;
    return MPI_SUCCESS;
}

static void handler(MPI_Win *win, int *code, ...)
{
    (void)win;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

static void expect_class(int rc, int cls, const char *what)
{
    int got;
    CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    MPI_Error_class(rc, &got);
    CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int buf[16] = { 0 };
    MPI_Win win;

    t_begin("attributes");
    MPI_OK(MPI_Win_create(buf, sizeof(buf), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    void *base;
    MPI_Aint *size;
    int *unit, *flavor, *model, flag;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag && base == buf, "MPI_WIN_BASE %p, expected %p", base, (void *)buf);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
    CHECK(flag && *size == (MPI_Aint)sizeof(buf), "MPI_WIN_SIZE %ld", (long)*size);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    CHECK(flag && *unit == 4, "MPI_WIN_DISP_UNIT %d", *unit);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "flavor %d", *flavor);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE), "model %d", *model);

    int key, val = 5, *pv;
    MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &key, NULL));
    MPI_OK(MPI_Win_get_attr(win, key, &pv, &flag));
    CHECK(!flag, "attribute before set");
    MPI_OK(MPI_Win_set_attr(win, key, &val));
    MPI_OK(MPI_Win_get_attr(win, key, &pv, &flag));
    CHECK(flag && pv == &val, "attribute after set");
    MPI_OK(MPI_Win_delete_attr(win, key));
    CHECK(deleted == 5, "delete callback ran %d", deleted);
    MPI_OK(MPI_Win_set_attr(win, key, &val));

    t_begin("name, info, group");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Win_set_name(win, "my window"));
    MPI_OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 9 && strcmp(name, "my window") == 0, "name '%s'", name);
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "accumulate_ordering", "none"));
    MPI_OK(MPI_Win_set_info(win, info));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Win_get_info(win, &info));
    char v[MPI_MAX_INFO_VAL];
    MPI_OK(MPI_Info_get(info, "accumulate_ordering", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(flag && strcmp(v, "none") == 0, "accumulate_ordering '%s'", flag ? v : "(absent)");
    MPI_OK(MPI_Info_free(&info));
    MPI_Group g, wg;
    int cmp;
    MPI_OK(MPI_Win_get_group(win, &g));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_compare(g, wg, &cmp));
    CHECK(cmp == MPI_IDENT, "window group compares %d", cmp);
    MPI_Group_free(&g);

    t_begin("error classes");
    MPI_Errhandler eh;
    MPI_OK(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default window handler");
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int x = 1, peer = (me + 1) % n;
    expect_class(MPI_Put(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
                 "Put outside an epoch");
    expect_class(MPI_Win_unlock(peer, win), MPI_ERR_RMA_SYNC, "unlock without lock");
    expect_class(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "complete without start");
    expect_class(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "wait without post");
    expect_class(MPI_Win_flush(peer, win), MPI_ERR_RMA_SYNC, "flush without lock");
    expect_class(MPI_Win_lock(12345, peer, 0, win), MPI_ERR_LOCKTYPE, "bad lock type");
    expect_class(MPI_Win_lock(MPI_LOCK_SHARED, n, 0, win), MPI_ERR_RANK, "bad rank");
    expect_class(MPI_Win_fence(0x7, win), MPI_ERR_ASSERT, "bad assert");
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    expect_class(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win), MPI_ERR_RMA_SYNC, "lock twice");
    expect_class(MPI_Put(&x, 1, MPI_INT, peer, 16, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
                 "Put past the end");
    expect_class(MPI_Put(&x, 1, MPI_INT, peer, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
                 "Put before the start");
    expect_class(MPI_Get(buf, 2, MPI_INT, peer, 15, 2, MPI_INT, win), MPI_ERR_RMA_RANGE,
                 "Get across the end");
    expect_class(MPI_Accumulate(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_MAXLOC, win),
                 MPI_ERR_OP, "MAXLOC on MPI_INT");
    float fx = 1.0f, fc = 1.0f, fr = 0.0f;
    expect_class(MPI_Compare_and_swap(&fx, &fc, &fr, MPI_FLOAT, peer, 0, win), MPI_ERR_TYPE,
                 "Compare_and_swap on MPI_FLOAT");
    int px[2] = { 1, 2 }, pc[2] = { 1, 2 }, pr[2];
    expect_class(MPI_Compare_and_swap(px, pc, pr, MPI_2INT, peer, 0, win), MPI_ERR_TYPE,
                 "Compare_and_swap on MPI_2INT");
    MPI_OK(MPI_Put(&x, 1, MPI_INT, peer, 15, 1, MPI_INT, win));   /* the last int: fine */
    MPI_OK(MPI_Win_unlock(peer, win));
    /* a passive epoch between two fences ends the fence's epoch (MPICH's
     * errors/rma/win_sync_lock_fence): an operation after it has no epoch */
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, MPI_MODE_NOCHECK, win));
    MPI_OK(MPI_Get(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(peer, win));
    expect_class(MPI_Get(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
                 "Get after a lock epoch that followed a fence");
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Win_unlock_all(win));
    expect_class(MPI_Put(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
                 "Put after a lock_all epoch that followed a fence");
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    MPI_Aint qs;
    int qu;
    void *qb;
    /* MPI-4.0: any flavor may be queried; only the own memory is known reachable */
    MPI_OK(MPI_Win_shared_query(win, me, &qs, &qu, &qb));
    CHECK(qs == (MPI_Aint)sizeof(buf) && qu == 4 && qb == buf, "own shared_query");
    MPI_OK(MPI_Win_shared_query(win, peer, &qs, &qu, &qb));
    CHECK(peer == me || (qs == 0 && qb == NULL), "shared_query of another rank's memory");
    expect_class(MPI_Win_attach(win, buf, 4), MPI_ERR_RMA_FLAVOR, "attach to a created window");

    t_begin("user handler");
    MPI_Errhandler mine;
    MPI_OK(MPI_Win_create_errhandler(handler, &mine));
    MPI_OK(MPI_Win_set_errhandler(win, mine));
    MPI_OK(MPI_Errhandler_free(&mine));
    MPI_Put(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_RMA_SYNC, "handler calls %d class %d",
          handler_calls, handler_class);
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_OTHER, "call_errhandler: %d %d",
          handler_calls, handler_class);
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_free(&win));
    CHECK(deleted == 10, "Win_free ran the delete callback (%d)", deleted);
    MPI_OK(MPI_Win_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "keyval not reset");

    t_begin("creation errors");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_class(MPI_Win_create(buf, -1, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE,
                 "negative size");
    expect_class(MPI_Win_create(buf, 4, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP,
                 "zero displacement unit");
    expect_class(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN, "fence on MPI_WIN_NULL");

    t_begin("dynamic");
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Win_attach(win, buf, sizeof(buf)));
    expect_class(MPI_Win_attach(win, buf + 2, 8), MPI_ERR_RMA_ATTACH, "overlapping attach");
    expect_class(MPI_Win_detach(win, buf + 1), MPI_ERR_RMA_ATTACH, "detach of nothing");
    MPI_Aint addr, *addrs = malloc((size_t)n * sizeof(MPI_Aint));
    MPI_Get_address(buf, &addr);
    MPI_OK(MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    /* memory the target did not attach: the target refuses, the origin hears at unlock */
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win));
    MPI_OK(MPI_Put(&x, 1, MPI_INT, peer, addrs[peer] + (MPI_Aint)sizeof(buf), 1, MPI_INT, win));
    expect_class(MPI_Win_unlock(peer, win), MPI_ERR_RMA_RANGE, "Put outside attached memory");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* attached memory, then the same memory detached: origins on the node put by CMA once the
     * target's published table says it is attached, and must see the detach */
    int seven = 7 + me, from = (me + n - 1) % n;
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win));
    MPI_OK(MPI_Put(&seven, 1, MPI_INT, peer, addrs[peer], 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(peer, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(buf[0] == 7 + from, "Put into attached memory: %d, expected %d", buf[0], 7 + from);
    MPI_OK(MPI_Win_detach(win, buf));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win));
    MPI_OK(MPI_Put(&x, 1, MPI_INT, peer, addrs[peer], 1, MPI_INT, win));
    expect_class(MPI_Win_unlock(peer, win), MPI_ERR_RMA_RANGE, "Put into detached memory");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(buf[0] == 7 + from, "detached memory written: %d", buf[0]);
    /* more regions than the table first holds (it grows while published) */
    enum { NREG = 9 };
    int regs[NREG][4] = { { 0 } };
    for (int i = 0; i < NREG; i++)
        MPI_OK(MPI_Win_attach(win, regs[i], sizeof(regs[i])));
    MPI_Get_address(regs[NREG - 1], &addr);
    MPI_OK(MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    MPI_OK(MPI_Put(&seven, 1, MPI_INT, peer, addrs[peer] + 3 * (MPI_Aint)sizeof(int), 1, MPI_INT,
                   win));
    MPI_OK(MPI_Get(&x, 1, MPI_INT, peer, addrs[peer] + 3 * (MPI_Aint)sizeof(int), 1, MPI_INT,
                   win));
    MPI_OK(MPI_Win_unlock(peer, win));
    CHECK(x == seven, "Get after Put in the last region: %d", x);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(regs[NREG - 1][3] == 7 + from, "last region: %d", regs[NREG - 1][3]);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    MPI_OK(MPI_Put(&x, 2, MPI_INT, peer, addrs[peer] + 3 * (MPI_Aint)sizeof(int), 2, MPI_INT, win));
    expect_class(MPI_Win_unlock(peer, win), MPI_ERR_RMA_RANGE, "Put across a region's end");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < NREG; i++)
        MPI_OK(MPI_Win_detach(win, regs[i]));
    MPI_OK(MPI_Win_free(&win));
    free(addrs);
    t_finish();
    return 0;
}
