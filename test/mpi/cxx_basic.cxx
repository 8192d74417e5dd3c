// C++ through rdmpicxx: mpi.h from C++, STL containers as buffers, MPI_CXX_BOOL and
// MPI_CXX_DOUBLE_COMPLEX reductions, a communicator in a RAII holder.
#include <mpi.h>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

static int rank_ = -1;

static void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "rank %d: cxx_basic: %s\n", rank_, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

struct Comm {
    MPI_Comm c = MPI_COMM_NULL;
    explicit Comm(MPI_Comm from) { MPI_Comm_dup(from, &c); }
    ~Comm() { if (c != MPI_COMM_NULL) MPI_Comm_free(&c); }
    Comm(const Comm &) = delete;
    Comm &operator=(const Comm &) = delete;
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    {
        Comm comm(MPI_COMM_WORLD);
        std::vector<int> mine(5, rank_), all(5 * static_cast<size_t>(size));
        MPI_Allgather(mine.data(), 5, MPI_INT, all.data(), 5, MPI_INT, comm.c);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < 5; i++)
                check(all[static_cast<size_t>(r * 5 + i)] == r, "allgather into a vector");
        bool b = rank_ == 0, any = false;
        MPI_Allreduce(&b, &any, 1, MPI_CXX_BOOL, MPI_LOR, comm.c);
        check(any, "MPI_CXX_BOOL lor");
        std::complex<double> z(rank_, 1.0), zs;
        MPI_Allreduce(&z, &zs, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, comm.c);
        check(zs == std::complex<double>(size * (size - 1) / 2.0, size), "complex sum");
        std::vector<double> v(100);
        std::iota(v.begin(), v.end(), rank_);
        MPI_Allreduce(MPI_IN_PLACE, v.data(), 100, MPI_DOUBLE, MPI_MAX, comm.c);
        check(v[99] == 99 + size - 1, "in-place max");
    }
    MPI_Finalize();
    return 0;
}
