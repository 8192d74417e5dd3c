/*
 * Datatypes at the edges of the size rdmpi represents (MPICH's
 * datatype/indexed_misc and large_count): an indexed type whose empty
 * blocks sit at displacement INT_MAX has the size, bounds, MPI_Pack_size
 * and pack/unpack of its one real block; a vector of INT_MAX/2 separate
 * blocks is refused with MPI_ERR_COUNT (more runs than rdmpi keeps), not
 * MPI_ERR_NO_MEM, and a contiguous one of as many items works.
 */
#include <limits.h>
#include "check.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_begin("indexed with empty blocks");
    MPI_Datatype t;
    int len[3] = { 0, 4, 0 }, disp[3] = { INT_MAX, 2, INT_MAX };
    MPI_OK(MPI_Type_indexed(3, len, disp, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    int size, psize;
    MPI_Aint lb, extent;
    MPI_OK(MPI_Type_size(t, &size));
    MPI_OK(MPI_Type_get_extent(t, &lb, &extent));
    CHECK(size == 4 * (int)sizeof(int), "size %d", size);
    CHECK(lb == 2 * (MPI_Aint)sizeof(int) && extent == 4 * (MPI_Aint)sizeof(int),
          "lb %ld extent %ld", (long)lb, (long)extent);
    MPI_OK(MPI_Pack_size(3, t, MPI_COMM_SELF, &psize));
    CHECK(psize >= 3 * size && psize < 3 * size + 1024, "pack size %d for 3 items of %d", psize,
          size);
    int buf[20], out[20];
    for (int i = 0; i < 20; i++)
        buf[i] = i;
    char *pk = malloc((size_t)psize);
    int pos = 0;
    MPI_OK(MPI_Pack(buf, 3, t, pk, psize, &pos, MPI_COMM_SELF));
    CHECK(pos == 3 * size, "packed %d bytes", pos);
    memset(out, 0, sizeof(out));
    pos = 0;
    MPI_OK(MPI_Unpack(pk, psize, &pos, out, 3, t, MPI_COMM_SELF));
    for (int i = 2; i < 14; i++)
        CHECK(out[i] == i, "unpacked [%d] = %d", i, out[i]);
    free(pk);
    MPI_OK(MPI_Type_free(&t));

    t_begin("vector of INT_MAX/2 blocks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype four, v;
    MPI_OK(MPI_Type_contiguous(4, MPI_INT, &four));
    int rc = MPI_Type_vector(INT_MAX / 2, 1, 3, four, &v), cls = MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        /* an implementation that can hold it must get its size right */
        MPI_Count sx;
        MPI_OK(MPI_Type_size_x(v, &sx));
        CHECK(sx == 16LL * (INT_MAX / 2), "size %lld", (long long)sx);
        MPI_OK(MPI_Type_free(&v));
    } else {
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_COUNT, "class %d, want MPI_ERR_COUNT (%d)", cls, MPI_ERR_COUNT);
    }
    t_begin("contiguous vector of INT_MAX/2 items");
    MPI_OK(MPI_Type_vector(INT_MAX / 2, 1, 1, four, &v));
    MPI_Count sx;
    MPI_OK(MPI_Type_size_x(v, &sx));
    CHECK(sx == 16LL * (INT_MAX / 2), "size %lld", (long long)sx);
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_free(&four));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    t_finish();
    return 0;
}
