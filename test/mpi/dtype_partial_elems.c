/*
 * MPI_Get_elements after a receive that fills only part of one item of a
 * struct of mixed types (MPICH's datatype/getpartelm): the elements of the
 * partial item count one by one, MPI_Get_count gives MPI_UNDEFINED, and a
 * cut inside an element gives MPI_UNDEFINED for both.
 */
#include "check.h"

static MPI_Datatype make_struct(int nchars)
{
    MPI_Datatype t, types[2] = { MPI_INT, MPI_CHAR };
    int lens[2] = { 1, nchars };
    MPI_Aint disps[2] = { 0, sizeof(int) };
    MPI_OK(MPI_Type_create_struct(2, lens, disps, types, &t));
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size < 2)
        t_skip("needs two ranks");
    int nsend[3] = { 16, 17, 0 };
    if (t_rank == 0) {
        int buf[64] = { 0 };
        for (int i = 0; i < 2; i++) {
            MPI_Datatype t = make_struct(nsend[i]);
            buf[0] = nsend[i];
            MPI_OK(MPI_Send(buf, 1, t, 1, i, MPI_COMM_WORLD));
            MPI_OK(MPI_Type_free(&t));
        }
        /* packed: an int and 7 chars */
        char pk[64];
        int pos = 0, cnt = 7;
        MPI_OK(MPI_Pack(&cnt, 1, MPI_INT, pk, sizeof(pk), &pos, MPI_COMM_WORLD));
        MPI_OK(MPI_Pack("message", 7, MPI_CHAR, pk, sizeof(pk), &pos, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(pk, pos, MPI_PACKED, 1, 2, MPI_COMM_WORLD));
        /* two ints and 2 bytes of a third: cut inside an element of the receiver's type */
        MPI_OK(MPI_Send(buf, 2 * (int)sizeof(int) + 2, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
        /* two whole items and a partial third (an int and 3 chars) */
        MPI_Datatype t = make_struct(8);
        char two[64];
        MPI_OK(MPI_Send(two, 2 * (4 + 8) + 4 + 3, MPI_BYTE, 1, 4, MPI_COMM_WORLD));
        MPI_OK(MPI_Type_free(&t));
    } else if (t_rank == 1) {
        MPI_Datatype t = make_struct(256);
        int buf[128];
        MPI_Status st;
        int elems, count;
        for (int i = 0; i < 3; i++) {
            t_begin(i < 2 ? "struct" : "packed");
            MPI_OK(MPI_Recv(buf, 1, t, 0, i, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_elements(&st, t, &elems));
            MPI_OK(MPI_Get_count(&st, t, &count));
            CHECK(elems == buf[0] + 1, "message %d: %d elements, want %d", i, elems, buf[0] + 1);
            CHECK(count == MPI_UNDEFINED, "message %d: count %d", i, count);
        }
        t_begin("inside an element");
        MPI_Datatype t3;
        MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE };
        int lens[2] = { 2, 2 };
        MPI_Aint disps[2] = { 0, 8 };
        MPI_OK(MPI_Type_create_struct(2, lens, disps, types, &t3));
        MPI_OK(MPI_Type_commit(&t3));
        MPI_OK(MPI_Recv(buf, 1, t3, 0, 3, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_elements(&st, t3, &elems));
        CHECK(elems == MPI_UNDEFINED, "cut inside a double: %d elements", elems);
        MPI_Count ex;
        MPI_OK(MPI_Get_elements_x(&st, t3, &ex));
        CHECK(ex == MPI_UNDEFINED, "cut inside a double: %lld elements (x)", (long long)ex);
        MPI_OK(MPI_Type_free(&t3));
        t_begin("whole items and a part");
        MPI_Datatype t8 = make_struct(8);
        char rb[256];
        MPI_OK(MPI_Recv(rb, 3, t8, 0, 4, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_elements(&st, t8, &elems));
        CHECK(elems == 2 * 9 + 1 + 3, "%d elements, want %d", elems, 2 * 9 + 4);
        MPI_OK(MPI_Type_free(&t8));
        MPI_OK(MPI_Type_free(&t));
    }
    t_finish();
    return 0;
}
