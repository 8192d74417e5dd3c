/*
 * The arithmetic reductions on MPI_CHAR and MPI_SIGNED_CHAR, which Open MPI
 * and MPICH both accept (OSU's collective benchmarks reduce MPI_CHAR with
 * MPI_SUM by default): MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX through
 * MPI_Allreduce and MPI_Reduce_local.
 */
#include "check.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Op ops[4] = { MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX };
    const char *names[4] = { "sum", "prod", "min", "max" };
    MPI_Datatype types[2] = { MPI_CHAR, MPI_SIGNED_CHAR };
    for (int ti = 0; ti < 2; ti++)
        for (int o = 0; o < 4; o++) {
            t_begin(names[o]);
            char in[3], out[3];
            in[0] = (char)(t_rank + 1);
            in[1] = (char)(t_rank % 2 ? 1 : 2);
            in[2] = (char)(10 - t_rank);
            MPI_OK(MPI_Allreduce(in, out, 3, types[ti], ops[o], MPI_COMM_WORLD));
            for (int k = 0; k < 3; k++) {
                int want = o == 1 ? 1 : o == 2 ? 127 : o == 3 ? -128 : 0;
                for (int r = 0; r < t_size; r++) {
                    int v = k == 0 ? r + 1 : k == 1 ? (r % 2 ? 1 : 2) : 10 - r;
                    if (o == 0) want += v;
                    else if (o == 1) want *= v;
                    else if (o == 2) want = v < want ? v : want;
                    else want = v > want ? v : want;
                }
                CHECK(out[k] == (char)want, "%s item %d: %d, want %d", names[o], k, out[k],
                      (char)want);
            }
            char a[2] = { 3, 5 }, b[2] = { 4, 2 };
            MPI_OK(MPI_Reduce_local(a, b, 2, types[ti], ops[o]));
            char w0 = o == 0 ? 7 : o == 1 ? 12 : o == 2 ? 3 : 4;
            char w1 = o == 0 ? 7 : o == 1 ? 10 : o == 2 ? 2 : 5;
            CHECK(b[0] == w0 && b[1] == w1, "reduce_local %s: %d %d", names[o], b[0], b[1]);
        }
    t_finish();
    return 0;
}
