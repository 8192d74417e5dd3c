/*
 * comm_info: info hints on communicators. MPI_Comm_set_info keeps the hints
 * rdmpi knows (MPI-4's mpi_assert_* communicator assertions) and ignores
 * the others, as MPI allows; MPI_Comm_get_info returns a new info object
 * with the hints kept (none at first), freed by the caller; MPI_Comm_dup
 * copies them and MPI_Comm_dup_with_info replaces them with its argument's;
 * a later set_info changes a value. The duplicates are real communicators
 * (a message goes round a ring on them). Under other MPIs only the calls
 * and the communicators are checked: the hints an implementation keeps are
 * its choice (Open MPI 4.1 keeps none of these).
 */
#include "check.h"

#ifdef RDMPI
#define HINT_CHECK CHECK
#else
#define HINT_CHECK(cond, ...) ((void)(cond))
#endif

static int get(MPI_Comm c, const char *key, char *val)
{
    MPI_Info info;
    int flag = 0;
    MPI_OK(MPI_Comm_get_info(c, &info));
    CHECK(info != MPI_INFO_NULL, "Comm_get_info gave MPI_INFO_NULL");
    MPI_OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, val, &flag));
    MPI_OK(MPI_Info_free(&info));
    return flag;
}

static int nkeys(MPI_Comm c)
{
    MPI_Info info;
    int n;
    MPI_OK(MPI_Comm_get_info(c, &info));
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    MPI_OK(MPI_Info_free(&info));
    return n;
}

static void ring(MPI_Comm c)
{
    int rank, size, v = -1;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    MPI_Request r;
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, (rank + size - 1) % size, 5, c, &r));
    MPI_OK(MPI_Send(&rank, 1, MPI_INT, (rank + 1) % size, 5, c));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(v == (rank + size - 1) % size, "ring: got %d", v);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    char val[MPI_MAX_INFO_VAL];
    MPI_Comm a, b, c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));

    t_begin("set-get");
#ifdef RDMPI
    CHECK(nkeys(a) == 0, "a new communicator has %d hints", nkeys(a));
#endif
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MPI_OK(MPI_Info_set(info, "rdmpi_no_such_hint", "42"));
    MPI_OK(MPI_Comm_set_info(a, info));
    HINT_CHECK(get(a, "mpi_assert_no_any_tag", val) && !strcmp(val, "true"),
          "mpi_assert_no_any_tag did not come back");
#ifdef RDMPI
    HINT_CHECK(!get(a, "rdmpi_no_such_hint", val), "an unknown hint was kept");
    CHECK(nkeys(a) == 1, "%d hints, want 1", nkeys(a));
#endif

    t_begin("dup");
    MPI_OK(MPI_Comm_dup(a, &b));
    HINT_CHECK(get(b, "mpi_assert_no_any_tag", val) && !strcmp(val, "true"),
          "MPI_Comm_dup lost the hint");
    ring(b);

    t_begin("dup-with-info");
    MPI_Info other;
    MPI_OK(MPI_Info_create(&other));
    MPI_OK(MPI_Info_set(other, "mpi_assert_allow_overtaking", "false"));
    MPI_OK(MPI_Comm_dup_with_info(a, other, &c));
    HINT_CHECK(get(c, "mpi_assert_allow_overtaking", val) && !strcmp(val, "false"),
          "dup_with_info: the new hint is missing");
#ifdef RDMPI
    HINT_CHECK(!get(c, "mpi_assert_no_any_tag", val), "dup_with_info kept the old communicator's hint");
#endif
    ring(c);
    MPI_OK(MPI_Comm_free(&b));
    MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_ENV, &b));
    ring(b);
    MPI_OK(MPI_Comm_free(&b));
    MPI_OK(MPI_Comm_dup_with_info(a, MPI_INFO_NULL, &b));
    HINT_CHECK(nkeys(b) == 0, "dup_with_info(MPI_INFO_NULL) kept %d hints", nkeys(b));
    ring(b);

    t_begin("change");
    MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "false"));
    MPI_OK(MPI_Comm_set_info(a, info));
    HINT_CHECK(get(a, "mpi_assert_no_any_tag", val) && !strcmp(val, "false"),
          "set_info did not change the hint (%s)", val);

    t_begin("errors");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_set_info(MPI_COMM_NULL, info) != MPI_SUCCESS, "MPI_COMM_NULL accepted");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Info_free(&other));
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Comm_free(&b));
    MPI_OK(MPI_Comm_free(&c));
    t_finish();
    if (t_rank == 0)
        printf("comm_info: OK\n");
    return 0;
}
