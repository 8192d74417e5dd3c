/*
 * MPI-1's calls that MPI-3 removed and rdmpi keeps for old codes: each
 * against its MPI-2 form (MPI_Address / MPI_Get_address, MPI_Type_extent,
 * lb and ub / MPI_Type_get_extent, MPI_Type_hvector, hindexed and struct /
 * the create_ forms, MPI_Errhandler_create, set and get / the Comm_ forms),
 * and MPI_Type_struct's MPI_LB and MPI_UB markers: the bounds they set, the
 * same type map as the MPI-2 struct resized to them (a message of two
 * elements, the bytes between left untouched), and MPI_ERR_TYPE wherever
 * else a marker is used.
 */
#include "check.h"

#include <stddef.h>

static void same_bounds(MPI_Datatype a, MPI_Datatype b, const char *what)
{
    int sa, sb;
    MPI_Aint la, ea, lb, eb, l1, u1, e1;
    MPI_OK(MPI_Type_size(a, &sa));
    MPI_OK(MPI_Type_size(b, &sb));
    MPI_OK(MPI_Type_get_extent(a, &la, &ea));
    MPI_OK(MPI_Type_get_extent(b, &lb, &eb));
    CHECK(sa == sb && la == lb && ea == eb, "%s: size/lb/extent %d %ld %ld vs %d %ld %ld", what,
          sa, (long)la, (long)ea, sb, (long)lb, (long)eb);
    MPI_OK(MPI_Type_lb(a, &l1));
    MPI_OK(MPI_Type_ub(a, &u1));
    MPI_OK(MPI_Type_extent(a, &e1));
    CHECK(l1 == la && u1 == la + ea && e1 == ea,
          "%s: Type_lb/ub/extent %ld %ld %ld, want %ld %ld %ld", what, (long)l1, (long)u1,
          (long)e1, (long)la, (long)(la + ea), (long)ea);
}

/* a and b pack the same bytes from the same buffer: the same type map. */
static void same_map(MPI_Datatype a, MPI_Datatype b, int count, const char *what)
{
    static char src[4096], pa[4096], pb[4096];
    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = (char)(i * 7 + 3);
    int na = 0, nb = 0;
    MPI_OK(MPI_Type_commit(&a));
    MPI_OK(MPI_Type_commit(&b));
    MPI_OK(MPI_Pack(src + 1024, count, a, pa, sizeof(pa), &na, MPI_COMM_WORLD));
    MPI_OK(MPI_Pack(src + 1024, count, b, pb, sizeof(pb), &nb, MPI_COMM_WORLD));
    CHECK(na == nb && memcmp(pa, pb, (size_t)na) == 0, "%s: packed %d vs %d bytes, or differ",
          what, na, nb);
}

static int handler_calls, handler_code;
static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);

    t_begin("address");
    double x[4];
    MPI_Aint a1, a2;
    MPI_OK(MPI_Address(&x[2], &a1));
    MPI_OK(MPI_Get_address(&x[2], &a2));
    CHECK(a1 == a2, "MPI_Address %ld, MPI_Get_address %ld", (long)a1, (long)a2);

    t_begin("predefined bounds");
    same_bounds(MPI_DOUBLE, MPI_DOUBLE, "MPI_DOUBLE");

    t_begin("hvector");
    MPI_Datatype t1, t2;
    MPI_OK(MPI_Type_hvector(3, 2, 40, MPI_INT, &t1));
    MPI_OK(MPI_Type_create_hvector(3, 2, 40, MPI_INT, &t2));
    same_bounds(t1, t2, "hvector");
    same_map(t1, t2, 2, "hvector");
    MPI_OK(MPI_Type_free(&t1));
    MPI_OK(MPI_Type_free(&t2));

    t_begin("hindexed");
    int bl[3] = {2, 1, 3};
    MPI_Aint disp[3] = {64, -16, 200};
    MPI_OK(MPI_Type_hindexed(3, bl, disp, MPI_SHORT, &t1));
    MPI_OK(MPI_Type_create_hindexed(3, bl, disp, MPI_SHORT, &t2));
    same_bounds(t1, t2, "hindexed");
    same_map(t1, t2, 2, "hindexed");
    MPI_OK(MPI_Type_free(&t1));
    MPI_OK(MPI_Type_free(&t2));

    t_begin("struct");
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Aint sd[3] = {0, 8, 16};
    MPI_OK(MPI_Type_struct(3, bl, sd, ty, &t1));
    MPI_OK(MPI_Type_create_struct(3, bl, sd, ty, &t2));
    same_bounds(t1, t2, "struct");
    same_map(t1, t2, 2, "struct");
    MPI_OK(MPI_Type_free(&t1));
    MPI_OK(MPI_Type_free(&t2));

    t_begin("struct with MPI_LB and MPI_UB");
    /* an int at 0 and a double at 8, bounds -8 and 32 (two MPI_UB entries: the greatest
     * counts; an MPI_LB of blocklength 0 is no entry at all) */
    int mbl[6] = {1, 1, 1, 1, 1, 0};
    MPI_Aint md[6] = {-8, 0, 8, 24, 32, -100};
    MPI_Datatype mty[6] = {MPI_LB, MPI_INT, MPI_DOUBLE, MPI_UB, MPI_UB, MPI_LB};
    MPI_OK(MPI_Type_struct(6, mbl, md, mty, &t1));
    MPI_Aint lo, hi, ext;
    MPI_OK(MPI_Type_lb(t1, &lo));
    MPI_OK(MPI_Type_ub(t1, &hi));
    MPI_OK(MPI_Type_extent(t1, &ext));
    CHECK(lo == -8 && hi == 32 && ext == 40, "lb %ld ub %ld extent %ld, want -8 32 40", (long)lo,
          (long)hi, (long)ext);
    MPI_Datatype inner;
    MPI_OK(MPI_Type_create_struct(2, mbl + 1, md + 1, mty + 1, &inner));
    MPI_OK(MPI_Type_create_resized(inner, -8, 40, &t2));
    MPI_OK(MPI_Type_free(&inner));
    same_bounds(t1, t2, "marked struct");
    same_map(t1, t2, 3, "marked struct");
    /* the bounds stay with the type in a further constructor */
    MPI_Datatype c1;
    MPI_OK(MPI_Type_contiguous(2, t1, &c1));
    MPI_OK(MPI_Type_lb(c1, &lo));
    MPI_OK(MPI_Type_ub(c1, &hi));
    CHECK(lo == -8 && hi == 72, "contiguous of it: lb %ld ub %ld, want -8 72", (long)lo, (long)hi);
    MPI_OK(MPI_Type_free(&c1));
    /* only an MPI_UB: the lower bound is the data's */
    MPI_Datatype t3;
    MPI_OK(MPI_Type_struct(2, (int[]){1, 1}, (MPI_Aint[]){4, 16},
                           (MPI_Datatype[]){MPI_INT, MPI_UB}, &t3));
    MPI_OK(MPI_Type_lb(t3, &lo));
    MPI_OK(MPI_Type_extent(t3, &ext));
    CHECK(lo == 4 && ext == 12, "UB only: lb %ld extent %ld, want 4 12", (long)lo, (long)ext);
    MPI_OK(MPI_Type_free(&t3));

    t_begin("message of the marked struct");
    /* (committed by same_map) two elements at 8 and 48 of the buffer: an int at +0 and a
     * double at +8 of each */
    unsigned char sbuf[96], rbuf[96];
    for (int i = 0; i < 96; i++)
        sbuf[i] = (unsigned char)(t_rank * 31 + i), rbuf[i] = 0xee;
    int to = (t_rank + 1) % t_size, from = (t_rank + t_size - 1) % t_size;
    MPI_OK(MPI_Sendrecv(sbuf + 8, 2, t1, to, 5, rbuf + 8, 2, t2, from, 5, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    for (int i = 0; i < 96; i++) {
        int off = (i - 8) % 40, data = i >= 8 && i < 88 && (off < 4 || (off >= 8 && off < 16));
        unsigned char want = data ? (unsigned char)(from * 31 + i) : 0xee;
        CHECK(rbuf[i] == want, "byte %d: %u, want %u", i, rbuf[i], want);
    }
    MPI_OK(MPI_Type_free(&t1));
    MPI_OK(MPI_Type_free(&t2));

    t_begin("errhandler set and get");
    MPI_Errhandler eh, got;
    MPI_OK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_get(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_RETURN, "Errhandler_get does not give MPI_ERRORS_RETURN back");
    MPI_OK(MPI_Errhandler_free(&got));

    t_begin("markers anywhere else");
    char name[MPI_MAX_OBJECT_NAME];
    int len, cls;
    MPI_OK(MPI_Type_get_name(MPI_LB, name, &len));
    CHECK(strcmp(name, "MPI_LB") == 0, "MPI_LB's name is %s", name);
    MPI_OK(MPI_Type_get_name(MPI_UB, name, &len));
    CHECK(strcmp(name, "MPI_UB") == 0, "MPI_UB's name is %s", name);
    int rc = MPI_Send(sbuf, 1, MPI_LB, to, 6, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "MPI_Send of MPI_LB: class %d, want MPI_ERR_TYPE", cls);
    rc = MPI_Type_contiguous(2, MPI_UB, &t3);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "contiguous of MPI_UB: class %d, want MPI_ERR_TYPE", cls);

    t_begin("errhandler create");
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Errhandler_create(handler, &eh));
    MPI_OK(MPI_Errhandler_set(dup, eh));
    MPI_OK(MPI_Errhandler_get(dup, &got));
    CHECK(got == eh, "Errhandler_get does not give the handler set back");
    MPI_OK(MPI_Errhandler_free(&got));
    rc = MPI_Send(sbuf, 1, MPI_INT, t_size + 3, 0, dup);
    MPI_Error_class(handler_code, &cls);
    CHECK(handler_calls == 1 && cls == MPI_ERR_RANK, "handler called %d times, class %d",
          handler_calls, cls);
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    t_finish();
    return 0;
}
