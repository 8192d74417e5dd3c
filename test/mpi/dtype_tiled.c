/*
 * Vectors of more separate blocks than rdmpi lists runs for (CORE_DT_MAX_RUNS,
 * 2^26): kept as one block repeated (a tiled type). MPICH's datatype/large_count
 * and large_vec need them:
 *  - a vector of INT_MAX/2 blocks of 4 ints: size, extent, true extent (also
 *    resized), elements and count from a status, all beyond INT_MAX;
 *  - 2^26 + 3 blocks of one char, stride 2 (and a negative stride): pack,
 *    a shorter message received into it, and a send and receive through p2p (rank 0 to every
 *    other rank, or to itself at 1 rank) move exactly the blocks' bytes;
 *  - where a tiled type cannot go (a contiguous type of it, one-sided
 *    operations), the call fails with its error class, not silently.
 */
#include <limits.h>
#include <stdint.h>
#include "check.h"

#define NB ((1 << 26) + 3)

static char pattern(long i)
{
    return (char)(i * 7 + (i >> 9));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    t_begin("INT_MAX/2 blocks: sizes and bounds");
    MPI_Datatype four, v, vr;
    MPI_OK(MPI_Type_contiguous(4, MPI_INT, &four));
    MPI_OK(MPI_Type_vector(INT_MAX / 2, 1, 3, four, &v));
    MPI_OK(MPI_Type_commit(&v));
    MPI_Count sx, lbx, exx, tlbx, texx, el;
    MPI_OK(MPI_Type_size_x(v, &sx));
    MPI_OK(MPI_Type_get_extent_x(v, &lbx, &exx));
    MPI_OK(MPI_Type_get_true_extent_x(v, &tlbx, &texx));
    MPI_Count want_true = 3LL * 16 * (INT_MAX / 2 - 1) + 16;
    CHECK(sx == 16LL * (INT_MAX / 2), "size %lld", (long long)sx);
    CHECK(lbx == 0 && exx == want_true, "lb %lld extent %lld", (long long)lbx, (long long)exx);
    CHECK(tlbx == 0 && texx == want_true, "true lb %lld extent %lld", (long long)tlbx,
          (long long)texx);
    int size;
    MPI_OK(MPI_Type_size(v, &size));
    CHECK(size == MPI_UNDEFINED, "MPI_Type_size of a type over INT_MAX bytes gave %d", size);
    MPI_OK(MPI_Type_create_resized(v, INT_MAX, -1024, &vr));
    MPI_OK(MPI_Type_commit(&vr));
    MPI_OK(MPI_Type_get_extent_x(vr, &lbx, &exx));
    MPI_OK(MPI_Type_get_true_extent_x(vr, &tlbx, &texx));
    CHECK(lbx == INT_MAX && exx == -1024, "resized lb %lld extent %lld", (long long)lbx,
          (long long)exx);
    CHECK(tlbx == 0 && texx == want_true, "resized true extent %lld", (long long)texx);
    MPI_Status st;
    int elements, count;
    MPI_OK(MPI_Status_set_elements_x(&st, vr, 4LL * (INT_MAX / 2)));
    MPI_OK(MPI_Get_elements_x(&st, vr, &el));
    MPI_OK(MPI_Get_elements(&st, vr, &elements));
    MPI_OK(MPI_Get_count(&st, vr, &count));
    CHECK(el == 4LL * (INT_MAX / 2), "elements %lld", (long long)el);
    CHECK(elements == MPI_UNDEFINED, "int elements %d", elements);
    CHECK(count == 1, "count %d", count);
    MPI_Datatype two;
    int rc = MPI_Type_contiguous(2, v, &two), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_COUNT, "2 x a tiled type: class %d", cls);
    MPI_OK(MPI_Type_free(&vr));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_free(&four));

    t_begin("2^26+3 one-char blocks: pack, unpack, p2p");
    char *buf = malloc(2L * NB), *pk = malloc(NB), *back = malloc(2L * NB);
    CHECK(buf && pk && back, "out of memory");
    MPI_Datatype c;
    MPI_OK(MPI_Type_vector(NB, 1, 2, MPI_CHAR, &c));
    MPI_OK(MPI_Type_commit(&c));
    MPI_OK(MPI_Type_size_x(c, &sx));
    MPI_OK(MPI_Type_get_extent_x(c, &lbx, &exx));
    CHECK(sx == NB && lbx == 0 && exx == 2LL * NB - 1, "size %lld extent %lld", (long long)sx,
          (long long)exx);
    for (long i = 0; i < 2L * NB; i++)
        buf[i] = pattern(i);
    int pos = 0, psize;
    MPI_OK(MPI_Pack_size(1, c, MPI_COMM_SELF, &psize));
    CHECK(psize >= NB, "pack size %d", psize);
    MPI_OK(MPI_Pack(buf, 1, c, pk, NB, &pos, MPI_COMM_SELF));
    CHECK(pos == NB, "packed %d bytes", pos);
    long bad = 0;
    for (long i = 0; i < NB; i++)
        bad += pk[i] != pattern(2 * i);
    CHECK(bad == 0, "%ld packed bytes wrong", bad);
    /* a shorter message received with the tiled type fills its first blocks only */
    memset(back, 0x5a, 2L * NB);
    MPI_OK(MPI_Sendrecv(pk, NB - 5, MPI_CHAR, 0, 9, back, 1, c, 0, 9, MPI_COMM_SELF, &st));
    MPI_OK(MPI_Get_elements_x(&st, c, &el));
    MPI_OK(MPI_Get_count(&st, c, &count));
    CHECK(el == NB - 5 && count == MPI_UNDEFINED, "partial: %lld elements, count %d",
          (long long)el, count);
    bad = 0;
    for (long i = 0; i < 2L * NB; i++)
        bad += back[i] != ((i % 2 == 0 && i / 2 < NB - 5) ? pattern(i) : 0x5a);
    CHECK(bad == 0, "%ld bytes wrong after a partial receive", bad);

    /* rank 0 sends the blocks to every rank (itself included, through Sendrecv) */
    MPI_Request *rq = malloc((size_t)n * sizeof(*rq));
    memset(back, 0x5a, 2L * NB);
    if (me == 0) {
        for (int r = 1; r < n; r++)
            MPI_OK(MPI_Isend(buf, 1, c, r, 7, MPI_COMM_WORLD, &rq[r]));
        MPI_OK(MPI_Sendrecv(buf, 1, c, 0, 8, back, 1, c, 0, 8, MPI_COMM_WORLD, &st));
        if (n > 1)
            MPI_OK(MPI_Waitall(n - 1, rq + 1, MPI_STATUSES_IGNORE));
    } else {
        MPI_OK(MPI_Recv(back, 1, c, 0, 7, MPI_COMM_WORLD, &st));
    }
    MPI_OK(MPI_Get_elements_x(&st, c, &el));
    CHECK(el == NB, "received %lld elements", (long long)el);
    bad = 0;
    for (long i = 0; i < 2L * NB - 1; i++)
        bad += back[i] != (i % 2 == 0 ? pattern(i) : 0x5a);
    CHECK(bad == 0, "%ld bytes wrong after the transfer", bad);
    free(rq);

    t_begin("negative stride");
    MPI_Datatype neg;
    MPI_OK(MPI_Type_create_hvector(NB, 1, -2, MPI_CHAR, &neg));
    MPI_OK(MPI_Type_commit(&neg));
    MPI_OK(MPI_Type_get_extent_x(neg, &lbx, &exx));
    CHECK(lbx == -2LL * (NB - 1) && exx == 2LL * NB - 1, "lb %lld extent %lld",
          (long long)lbx, (long long)exx);
    pos = 0;
    MPI_OK(MPI_Pack(buf + 2L * (NB - 1), 1, neg, pk, NB, &pos, MPI_COMM_SELF));
    bad = 0;
    for (long i = 0; i < NB; i++)
        bad += pk[i] != pattern(2L * (NB - 1) - 2 * i);
    CHECK(pos == NB && bad == 0, "negative stride: %ld bytes wrong", bad);
    MPI_OK(MPI_Type_free(&neg));

    t_begin("one-sided refuses it");
    MPI_Win win;
    MPI_OK(MPI_Win_create(buf, 2L * NB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Win_fence(0, win));
    rc = MPI_Put(back, 1, c, 0, 0, 1, c, win);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_UNSUPPORTED_OPERATION, "Put: class %d", cls);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Type_free(&c));
    free(buf);
    free(pk);
    free(back);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    t_finish();
    return 0;
}
