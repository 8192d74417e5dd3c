/*
 * The environment: Init_thread and the thread queries, Initialized/Finalized
 * before and after, Wtime/Wtick, Get_processor_name, Get_version,
 * Get_library_version, Alloc_mem/Free_mem, the Info object calls and
 * MPI_INFO_ENV, sizes and extents of the predefined datatypes (checked
 * against the C types), Type_contiguous/dup/commit/free/get_name/set_name,
 * and Get_address/Aint_add/Aint_diff.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <time.h>
#include "check.h"

static void init_and_threads(int *argc, char ***argv)
{
    int flag = 1;
    MPI_Initialized(&flag);
    if (flag) {
        fprintf(stderr, "env: MPI_Initialized is true before MPI_Init_thread\n");
        exit(1);
    }
    MPI_Finalized(&flag);
    if (flag) {
        fprintf(stderr, "env: MPI_Finalized is true before MPI_Init_thread\n");
        exit(1);
    }
    int provided = -1;
    MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    MPI_Comm_dup(MPI_COMM_WORLD, &t_sync_comm);

    t_begin("init-thread");
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
              MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
          "thread levels are not ordered");
    CHECK(provided >= MPI_THREAD_SERIALIZED && provided <= MPI_THREAD_MULTIPLE,
          "asked for MPI_THREAD_SERIALIZED, provided %d", provided);
    int q = -1;
    MPI_OK(MPI_Query_thread(&q));
    CHECK(q == provided, "Query_thread %d, Init_thread provided %d", q, provided);
    flag = 0;
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK(flag, "Is_thread_main false in the thread that called Init_thread");
    flag = 0;
    MPI_Initialized(&flag);
    CHECK(flag, "Initialized false after Init_thread");
    MPI_Finalized(&flag);
    CHECK(!flag, "Finalized true before Finalize");
}

static void clocks(void)
{
    t_begin("wtime");
    double tick = MPI_Wtick();
    CHECK(tick > 0 && tick < 0.01, "Wtick %g", tick);
    double prev = MPI_Wtime();
    for (int i = 0; i < 100000; i++) {
        double now = MPI_Wtime();
        CHECK(now >= prev, "Wtime went back from %.9f to %.9f", prev, now);
        prev = now;
    }
    double t0 = MPI_Wtime();
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    double dt = MPI_Wtime() - t0;
    CHECK(dt >= 0.019 && dt < 2.0, "20 ms of sleep measured as %.6f s", dt);
}

static void identity(void)
{
    t_begin("processor-name");
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = -1;
    memset(name, 'x', sizeof(name));
    MPI_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (size_t)len == strnlen(name, sizeof(name)),
          "processor name length %d", len);

    t_begin("version");
    int v = -1, sv = -1;
    MPI_OK(MPI_Get_version(&v, &sv));
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "Get_version %d.%d, mpi.h says %d.%d", v, sv,
          MPI_VERSION, MPI_SUBVERSION);
    CHECK(v > 3 || (v == 3 && sv >= 1), "version %d.%d is older than 3.1", v, sv);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    memset(lib, 'x', sizeof(lib));
    MPI_OK(MPI_Get_library_version(lib, &len));
#ifdef OPEN_MPI
    if ((size_t)len == strnlen(lib, sizeof(lib)) + 1)
        len--; /* Open MPI counts the terminating null */
#endif
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING &&
              (size_t)len == strnlen(lib, sizeof(lib)),
          "library version length %d for \"%s\"", len, lib);
}

static void memory(void)
{
    t_begin("alloc-mem");
    void *p = NULL;
    MPI_OK(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &p));
    CHECK(p != NULL, "Alloc_mem returned NULL");
    memset(p, 0xab, 1 << 20);
    /* usable as a communication buffer */
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    unsigned char *q = p;
    q[0] = (unsigned char)t_rank;
    MPI_Sendrecv_replace(q, 1 << 20, MPI_BYTE, right, 1, left, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    CHECK(q[0] == left && q[(1 << 20) - 1] == 0xab, "data in Alloc_mem memory wrong");
    MPI_OK(MPI_Free_mem(p));
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "some_hint", "true");
    MPI_OK(MPI_Alloc_mem(4096, info, &p));
    memset(p, 1, 4096);
    MPI_OK(MPI_Free_mem(p));
    MPI_Info_free(&info);
}

static void infos(void)
{
    t_begin("info");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Info info, dup;
    char val[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    int flag, n, len;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 0, "new info has %d keys", n);
    MPI_OK(MPI_Info_set(info, "alpha", "1"));
    MPI_OK(MPI_Info_set(info, "beta", "two words"));
    MPI_OK(MPI_Info_set(info, "gamma", "x"));
    MPI_OK(MPI_Info_set(info, "alpha", "one")); /* replaces */
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 3, "info has %d keys, expected 3", n);
    MPI_OK(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && !strcmp(val, "one"), "alpha = \"%s\" (flag %d)", flag ? val : "", flag);
    MPI_OK(MPI_Info_get_valuelen(info, "beta", &len, &flag));
    CHECK(flag && len == 9, "valuelen of beta: %d (flag %d)", len, flag);
    MPI_OK(MPI_Info_get(info, "nothere", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(!flag, "a missing key was found");
    MPI_OK(MPI_Info_get_valuelen(info, "nothere", &len, &flag));
    CHECK(!flag, "a missing key has a value length");
    /* a short buffer gets a truncated value */
    memset(val, 'z', sizeof(val));
    MPI_OK(MPI_Info_get(info, "beta", 3, val, &flag));
    CHECK(flag && !strncmp(val, "two", 3), "beta truncated to 3: \"%.3s\"", val);
#if !defined(OPEN_MPI) || MPI_VERSION >= 4
    len = sizeof(val);
    MPI_OK(MPI_Info_get_string(info, "beta", &len, val, &flag));
    CHECK(flag && !strcmp(val, "two words") && len == 10, "get_string beta: \"%s\" buflen %d", val,
          len);
    len = 4;
    MPI_OK(MPI_Info_get_string(info, "beta", &len, val, &flag));
    CHECK(flag && len == 10 && !strcmp(val, "two"),
          "get_string with buflen 4: \"%s\", buflen now %d (expected \"two\", 10)", val, len);
#endif
    /* keys in order of insertion is not required, but each index gives a key that exists */
    int seen = 0;
    for (int i = 0; i < 3; i++) {
        MPI_OK(MPI_Info_get_nthkey(info, i, key));
        if (!strcmp(key, "alpha"))
            seen |= 1;
        else if (!strcmp(key, "beta"))
            seen |= 2;
        else if (!strcmp(key, "gamma"))
            seen |= 4;
    }
    CHECK(seen == 7, "nthkey gave keys 0x%x", seen);

    MPI_OK(MPI_Info_dup(info, &dup));
    MPI_OK(MPI_Info_delete(info, "gamma"));
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 2, "after delete: %d keys", n);
    MPI_Info_get_nkeys(dup, &n);
    CHECK(n == 3, "the dup lost a key when the original was changed: %d keys", n);
    MPI_Info_get(dup, "gamma", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && !strcmp(val, "x"), "dup gamma = \"%s\"", val);
    int rc = MPI_Info_delete(info, "gamma"), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO_NOKEY, "deleting a missing key: %d (class %d)", rc, cls);
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Info_free(&dup));
    CHECK(info == MPI_INFO_NULL && dup == MPI_INFO_NULL, "Info_free did not null the handle");

    t_begin("info-env");
    MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    CHECK(n >= 0, "MPI_INFO_ENV has %d keys", n);
    for (int i = 0; i < n; i++) {
        MPI_OK(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key));
        MPI_OK(MPI_Info_get_valuelen(MPI_INFO_ENV, key, &len, &flag));
        CHECK(flag && len >= 0 && len <= MPI_MAX_INFO_VAL, "MPI_INFO_ENV key %s: len %d flag %d",
              key, len, flag);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

struct double_int {
    double d;
    int i;
};
struct float_int {
    float f;
    int i;
};
struct long_int {
    long l;
    int i;
};
struct short_int {
    short s;
    int i;
};
struct long_double_int {
    long double l;
    int i;
};

static void check_type(MPI_Datatype t, const char *name, MPI_Aint size, MPI_Aint extent,
                       MPI_Aint true_extent)
{
    int sz = -1;
    MPI_Count szx = -1;
    MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1;
    MPI_OK(MPI_Type_size(t, &sz));
    MPI_OK(MPI_Type_size_x(t, &szx));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    MPI_OK(MPI_Type_get_true_extent(t, &tlb, &text));
    CHECK(sz == size && szx == size, "%s: size %d (size_x %lld), expected %ld", name, sz,
          (long long)szx, (long)size);
    CHECK(lb == 0 && ext == extent, "%s: lb %ld extent %ld, expected 0 and %ld", name, (long)lb,
          (long)ext, (long)extent);
    CHECK(tlb == 0 && text == true_extent, "%s: true lb %ld true extent %ld, expected 0 and %ld",
          name, (long)tlb, (long)text, (long)true_extent);
    char got[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Type_get_name(t, got, &len));
    /* synonyms (MPI_LONG_LONG is MPI_LONG_LONG_INT) may carry either name */
    int ok = !strcmp(got, name) ||
             (!strcmp(name, "MPI_LONG_LONG") && !strcmp(got, "MPI_LONG_LONG_INT")) ||
             (!strcmp(name, "MPI_C_FLOAT_COMPLEX") && !strcmp(got, "MPI_C_COMPLEX"));
    CHECK(ok && len == (int)strlen(got), "Type_get_name gives \"%s\" (%d) for %s", got, len, name);
}

#define BASIC(t, ctype) check_type(t, #t, sizeof(ctype), sizeof(ctype), sizeof(ctype))
#define PAIR(t, s, a, b)                                                                           \
    check_type(t, #t, sizeof(((s *)0)->a) + sizeof(int), sizeof(s), offsetof(s, b) + sizeof(int))

static void predefined_types(void)
{
    t_begin("predefined-types");
    BASIC(MPI_CHAR, char);
    BASIC(MPI_SIGNED_CHAR, signed char);
    BASIC(MPI_UNSIGNED_CHAR, unsigned char);
    BASIC(MPI_SHORT, short);
    BASIC(MPI_UNSIGNED_SHORT, unsigned short);
    BASIC(MPI_INT, int);
    BASIC(MPI_UNSIGNED, unsigned);
    BASIC(MPI_LONG, long);
    BASIC(MPI_UNSIGNED_LONG, unsigned long);
    BASIC(MPI_LONG_LONG, long long);
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    BASIC(MPI_FLOAT, float);
    BASIC(MPI_DOUBLE, double);
    BASIC(MPI_WCHAR, wchar_t);
    BASIC(MPI_INT8_T, int8_t);
    BASIC(MPI_INT16_T, int16_t);
    BASIC(MPI_INT32_T, int32_t);
    BASIC(MPI_INT64_T, int64_t);
    BASIC(MPI_UINT8_T, uint8_t);
    BASIC(MPI_UINT16_T, uint16_t);
    BASIC(MPI_UINT32_T, uint32_t);
    BASIC(MPI_UINT64_T, uint64_t);
    BASIC(MPI_C_BOOL, _Bool);
    BASIC(MPI_AINT, MPI_Aint);
    BASIC(MPI_OFFSET, MPI_Offset);
    BASIC(MPI_COUNT, MPI_Count);
    BASIC(MPI_C_FLOAT_COMPLEX, float _Complex);
    BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex);
    check_type(MPI_BYTE, "MPI_BYTE", 1, 1, 1);
    check_type(MPI_PACKED, "MPI_PACKED", 1, 1, 1);
    /* long double has padding on x86-64: the size is the data, not sizeof */
    int sz;
    MPI_Type_size(MPI_LONG_DOUBLE, &sz);
    CHECK(sz == (int)sizeof(long double) || sz == 10 || sz == 12,
          "MPI_LONG_DOUBLE size %d, sizeof %zu", sz, sizeof(long double));
    PAIR(MPI_DOUBLE_INT, struct double_int, d, i);
    PAIR(MPI_FLOAT_INT, struct float_int, f, i);
    PAIR(MPI_LONG_INT, struct long_int, l, i);
    PAIR(MPI_SHORT_INT, struct short_int, s, i);
    check_type(MPI_2INT, "MPI_2INT", 2 * sizeof(int), 2 * sizeof(int), 2 * sizeof(int));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(MPI_LONG_DOUBLE_INT, &lb, &ext);
    CHECK(ext == sizeof(struct long_double_int), "MPI_LONG_DOUBLE_INT extent %ld, expected %zu",
          (long)ext, sizeof(struct long_double_int));
}

static void derived_types(void)
{
    t_begin("derived-types");
    MPI_Datatype c5, d, c3di;
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Type_contiguous(5, MPI_INT, &c5));
    MPI_OK(MPI_Type_commit(&c5));
    check_type(c5, "", 5 * sizeof(int), 5 * sizeof(int), 5 * sizeof(int));
    MPI_OK(MPI_Type_set_name(c5, "five ints"));
    MPI_OK(MPI_Type_get_name(c5, name, &len));
    CHECK(!strcmp(name, "five ints") && len == 9, "set name gave \"%s\" (%d)", name, len);
    MPI_OK(MPI_Type_dup(c5, &d));
    int sz;
    MPI_Type_size(d, &sz);
    CHECK(sz == 5 * (int)sizeof(int), "dup of five ints has size %d", sz);
    /* a dup is usable for communication and matches the original */
    int out[5] = {1, 2, 3, 4, 5}, in[5] = {0};
    MPI_Request req;
    MPI_Isend(out, 1, d, t_rank, 3, MPI_COMM_WORLD, &req);
    MPI_Recv(in, 5, MPI_INT, t_rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(in[0] == 1 && in[4] == 5, "data sent with a dup'd type: %d..%d", in[0], in[4]);
    MPI_OK(MPI_Type_free(&d));
    MPI_OK(MPI_Type_free(&c5));
    CHECK(c5 == MPI_DATATYPE_NULL && d == MPI_DATATYPE_NULL, "Type_free did not null the handle");

    MPI_OK(MPI_Type_contiguous(3, MPI_DOUBLE_INT, &c3di));
    MPI_OK(MPI_Type_commit(&c3di));
    check_type(c3di, "", 3 * (sizeof(double) + sizeof(int)), 3 * sizeof(struct double_int),
               2 * sizeof(struct double_int) + offsetof(struct double_int, i) + sizeof(int));
    MPI_Type_free(&c3di);

    /* a dup of a predefined type is a new, freeable type of the same size */
    MPI_OK(MPI_Type_dup(MPI_DOUBLE, &d));
    MPI_Type_size(d, &sz);
    CHECK(sz == (int)sizeof(double), "dup of MPI_DOUBLE has size %d", sz);
    MPI_Type_free(&d);
}

static void addresses(void)
{
    t_begin("addresses");
    int a[10];
    MPI_Aint a0, a5;
    MPI_OK(MPI_Get_address(&a[0], &a0));
    MPI_OK(MPI_Get_address(&a[5], &a5));
    CHECK(MPI_Aint_diff(a5, a0) == 5 * (MPI_Aint)sizeof(int), "Aint_diff = %ld",
          (long)MPI_Aint_diff(a5, a0));
    CHECK(MPI_Aint_add(a0, 5 * sizeof(int)) == a5, "Aint_add(a0, 20) != address of a[5]");
    struct double_int s;
    MPI_Aint sb, si;
    MPI_Get_address(&s, &sb);
    MPI_Get_address(&s.i, &si);
    CHECK(MPI_Aint_diff(si, sb) == (MPI_Aint)offsetof(struct double_int, i),
          "offset of the int member %ld", (long)MPI_Aint_diff(si, sb));
}

int main(int argc, char **argv)
{
    init_and_threads(&argc, &argv);
    clocks();
    identity();
    memory();
    infos();
    predefined_types();
    derived_types();
    addresses();
    t_finish();
    int flag = 0;
    MPI_Finalized(&flag);
    if (!flag) {
        fprintf(stderr, "rank %d: finalize: MPI_Finalized is false after MPI_Finalize\n", t_rank);
        return 1;
    }
    flag = 0;
    MPI_Initialized(&flag);
    if (!flag) {
        fprintf(stderr, "rank %d: finalize: MPI_Initialized is false after MPI_Finalize\n", t_rank);
        return 1;
    }
    return 0;
}
