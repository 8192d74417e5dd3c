/*
 * dtype_match: MPI_Type_match_size and the C++ named types usable from C.
 * For each type class and each size a C type of that class has, the type
 * returned is predefined (its envelope says MPI_COMBINER_NAMED), has that
 * size, and is of the class (a value of a C type of that class and size
 * goes through MPI_Pack/Unpack and MPI_Reduce_local with MPI_SUM intact);
 * a size no type has and an unknown class are errors. MPI_CXX_BOOL and the
 * MPI_CXX_*_COMPLEX types have the sizes of bool and std::complex, carry
 * values in messages, and reduce (MPI_LAND, MPI_SUM).
 */
#include <complex.h>
#include <stdbool.h>
#include "check.h"

static void expect(int cls, int size)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Type_match_size(cls, size, &t));
    int sz, ni, na, nd, comb;
    MPI_OK(MPI_Type_size(t, &sz));
    MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(sz == size && comb == MPI_COMBINER_NAMED, "class %d size %d: type of %d bytes, combiner %d",
          cls, size, sz, comb);
    /* 3 + 4 must be 7 in the type's own arithmetic */
    unsigned char a[32], b[32];
    memset(a, 0, sizeof(a));
    memset(b, 0, sizeof(b));
    if (cls == MPI_TYPECLASS_INTEGER) {
        switch (size) {
        case 1: *(signed char *)a = 3, *(signed char *)b = 4; break;
        case 2: *(short *)a = 3, *(short *)b = 4; break;
        case 4: *(int32_t *)a = 3, *(int32_t *)b = 4; break;
        case 8: *(int64_t *)a = 3, *(int64_t *)b = 4; break;
        }
    } else if (cls == MPI_TYPECLASS_REAL) {
        if (size == 4) *(float *)a = 3, *(float *)b = 4;
        else if (size == 8) *(double *)a = 3, *(double *)b = 4;
        else *(long double *)a = 3, *(long double *)b = 4;
    } else {
        if (size == 8) *(float _Complex *)a = 3, *(float _Complex *)b = 4;
        else if (size == 16) *(double _Complex *)a = 3, *(double _Complex *)b = 4;
        else *(long double _Complex *)a = 3, *(long double _Complex *)b = 4;
    }
    MPI_OK(MPI_Reduce_local(a, b, 1, t, MPI_SUM));
    int ok;
    if (cls == MPI_TYPECLASS_INTEGER)
        ok = size == 1 ? *(signed char *)b == 7 : size == 2 ? *(short *)b == 7
             : size == 4 ? *(int32_t *)b == 7 : *(int64_t *)b == 7;
    else if (cls == MPI_TYPECLASS_REAL)
        ok = size == 4 ? *(float *)b == 7 : size == 8 ? *(double *)b == 7 : *(long double *)b == 7;
    else
        ok = size == 8 ? *(float _Complex *)b == 7 : size == 16 ? *(double _Complex *)b == 7
                                                                : *(long double _Complex *)b == 7;
    CHECK(ok, "class %d size %d: 3 + 4 is not 7 in the type returned", cls, size);
}

static void test_match(void)
{
    t_begin("match-size");
    static const int isz[] = { 1, 2, 4, 8 };
    for (int i = 0; i < 4; i++)
        expect(MPI_TYPECLASS_INTEGER, isz[i]);
    expect(MPI_TYPECLASS_REAL, 4);
    expect(MPI_TYPECLASS_REAL, 8);
    expect(MPI_TYPECLASS_REAL, (int)sizeof(long double));
    expect(MPI_TYPECLASS_COMPLEX, 8);
    expect(MPI_TYPECLASS_COMPLEX, 16);
    expect(MPI_TYPECLASS_COMPLEX, (int)sizeof(long double _Complex));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t) != MPI_SUCCESS, "a 3-byte real");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 7, &t) != MPI_SUCCESS, "a 7-byte integer");
    CHECK(MPI_Type_match_size(12345, 4, &t) != MPI_SUCCESS, "type class 12345");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_cxx(void)
{
    t_begin("cxx-types");
    int s;
    MPI_OK(MPI_Type_size(MPI_CXX_BOOL, &s));
    CHECK(s == (int)sizeof(bool), "MPI_CXX_BOOL: %d bytes", s);
    MPI_OK(MPI_Type_size(MPI_CXX_FLOAT_COMPLEX, &s));
    CHECK(s == 8, "MPI_CXX_FLOAT_COMPLEX: %d bytes", s);
    MPI_OK(MPI_Type_size(MPI_CXX_DOUBLE_COMPLEX, &s));
    CHECK(s == 16, "MPI_CXX_DOUBLE_COMPLEX: %d bytes", s);
    MPI_OK(MPI_Type_size(MPI_CXX_LONG_DOUBLE_COMPLEX, &s));
    CHECK(s == (int)sizeof(long double _Complex), "MPI_CXX_LONG_DOUBLE_COMPLEX: %d bytes", s);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Type_get_name(MPI_CXX_DOUBLE_COMPLEX, name, &len));
    CHECK(!strcmp(name, "MPI_CXX_DOUBLE_COMPLEX"), "name \"%s\"", name);

    bool in[3] = { true, false, true }, io[3] = { true, true, false };
    MPI_OK(MPI_Reduce_local(in, io, 3, MPI_CXX_BOOL, MPI_LAND));
    CHECK(io[0] && !io[1] && !io[2], "MPI_LAND on MPI_CXX_BOOL");
    double _Complex z[2] = { 1 + 2 * I, 3 }, w[2] = { 1, -1 * I };
    MPI_OK(MPI_Reduce_local(z, w, 2, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM));
    CHECK(w[0] == 2 + 2 * I && w[1] == 3 - I, "MPI_SUM on MPI_CXX_DOUBLE_COMPLEX");

    /* around a ring */
    long double _Complex lz = t_rank + 0.5 * I, got = 0;
    float _Complex fz = (float)t_rank * I, fgot = 0;
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    MPI_OK(MPI_Sendrecv(&lz, 1, MPI_CXX_LONG_DOUBLE_COMPLEX, right, 1, &got, 1,
                        MPI_CXX_LONG_DOUBLE_COMPLEX, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Sendrecv(&fz, 1, MPI_CXX_FLOAT_COMPLEX, right, 2, &fgot, 1, MPI_CXX_FLOAT_COMPLEX,
                        left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == left + 0.5 * I && fgot == (float)left * I, "complex values from rank %d", left);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_match();
    test_cxx();
    t_finish();
    if (t_rank == 0)
        printf("dtype_match: OK\n");
    return 0;
}
