/*
 * The tools interface (MPI_T): before MPI_Init, every control variable is an
 * RDMPI_* setting with a description, a type and a scope, and one set in the
 * environment (RDMPI_SPIN_COUNT, from tests.list) reads back its value; writes
 * are refused where the standard says (not now, never, out of bounds).
 * While the library runs, a writable variable takes a written value and the
 * library acts on it (RDMPI_RNDV_PROTO=pipelined: the next large send is
 * pipelined, as a performance variable shows); counters grow by exactly the
 * messages sent and received; the unexpected-queue level is the number of
 * messages waiting; start/stop/reset/write/readreset act on the handle's view.
 * After MPI_Finalize the control variables still read.
 */
#include "check.h"

static int cvar_index(const char *name)
{
    int i = -1;
    MPI_OK(MPI_T_cvar_get_index(name, &i));
    return i;
}

static int cvar_scope(const char *name)
{
    int scope = -1;
    MPI_OK(MPI_T_cvar_get_info(cvar_index(name), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                               &scope));
    return scope;
}

static int read_int(const char *name)
{
    MPI_T_cvar_handle h;
    int count = 0, v = -1;
    MPI_OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
    CHECK(count == 1, "%s: count %d", name, count);
    MPI_OK(MPI_T_cvar_read(h, &v));
    MPI_OK(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle not reset by free");
    return v;
}

static int write_int(const char *name, int v)
{
    MPI_T_cvar_handle h;
    int count;
    MPI_OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
    int rc = MPI_T_cvar_write(h, &v);
    MPI_OK(MPI_T_cvar_handle_free(&h));
    return rc;
}

/* The value of item `item` of the enumeration of cvar name. */
static int enum_value(const char *name, const char *item)
{
    MPI_T_enum e;
    MPI_Datatype dt;
    int num = 0;
    MPI_OK(MPI_T_cvar_get_info(cvar_index(name), NULL, NULL, NULL, &dt, &e, NULL, NULL, NULL,
                               NULL));
    CHECK(dt == MPI_INT && e != MPI_T_ENUM_NULL, "%s is not an enumeration", name);
    MPI_OK(MPI_T_enum_get_info(e, &num, NULL, NULL));
    for (int i = 0; i < num; i++) {
        char s[64];
        int len = sizeof(s), v;
        MPI_OK(MPI_T_enum_get_item(e, i, &v, s, &len));
        CHECK(len == (int)strlen(s) + 1, "item name length %d for \"%s\"", len, s);
        if (!strcmp(s, item))
            return v;
    }
    CHECK(0, "%s has no item %s", name, item);
    return -1;
}

static void enumerate_cvars(void)
{
    t_begin("cvar enumeration");
    int n = 0;
    MPI_OK(MPI_T_cvar_get_num(&n));
    CHECK(n >= 20, "only %d control variables", n);
    for (int i = 0; i < n; i++) {
        char name[128], desc[2048];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, bind, scope, j;
        MPI_Datatype dt;
        MPI_T_enum e;
        MPI_OK(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &e, desc, &dlen, &bind, &scope));
        CHECK(!strncmp(name, "RDMPI_", 6), "cvar %d is %s", i, name);
        CHECK(nlen == (int)strlen(name) + 1, "%s: name_len %d", name, nlen);
        CHECK(dlen > 10 && strstr(desc, "[default: "), "%s: description \"%s\"", name, desc);
        CHECK(verb >= MPI_T_VERBOSITY_USER_BASIC && verb <= MPI_T_VERBOSITY_MPIDEV_ALL,
              "%s: verbosity %d", name, verb);
        CHECK(dt == MPI_INT || dt == MPI_UNSIGNED_LONG || dt == MPI_DOUBLE || dt == MPI_CHAR,
              "%s: datatype", name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "%s: bind %d", name, bind);
        CHECK(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ, "%s: scope", name);
        MPI_OK(MPI_T_cvar_get_index(name, &j));
        CHECK(j == i, "%s: index %d, get_index says %d", name, i, j);
        /* the room a string needs, asked with a zero length */
        int need = 0;
        MPI_OK(MPI_T_cvar_get_info(i, NULL, &need, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        CHECK(need == nlen, "%s: needs %d, wrote %d", name, need, nlen);
    }
    /* bounds are part of the description */
    char desc[2048];
    int dlen = sizeof(desc);
    MPI_OK(MPI_T_cvar_get_info(cvar_index("RDMPI_SPIN_COUNT"), NULL, NULL, NULL, NULL, NULL, desc,
                               &dlen, NULL, NULL));
    CHECK(strstr(desc, "bounds: 0 to"), "RDMPI_SPIN_COUNT's description: %s", desc);
    int i;
    CHECK(MPI_T_cvar_get_index("RDMPI_NO_SUCH", &i) == MPI_T_ERR_INVALID_NAME, "unknown name");
    CHECK(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX, "index past the end");
    CHECK(cvar_scope("RDMPI_SPIN_COUNT") == MPI_T_SCOPE_LOCAL, "SPIN_COUNT scope");
    CHECK(cvar_scope("RDMPI_COLL_BCAST") == MPI_T_SCOPE_ALL_EQ, "COLL_BCAST scope");
    CHECK(cvar_scope("RDMPI_TRANSPORTS") == MPI_T_SCOPE_READONLY, "TRANSPORTS scope");
    CHECK(cvar_scope("RDMPI_TIMEOUT") == MPI_T_SCOPE_CONSTANT, "TIMEOUT scope");
    CHECK(enum_value("RDMPI_LOG_LEVEL", "debug") == 3, "LOG_LEVEL's items");

    t_begin("categories");
    int ncat = 0, npvar = 0, sumc = 0, sump = 0;
    MPI_OK(MPI_T_category_get_num(&ncat));
    MPI_OK(MPI_T_pvar_get_num(&npvar));
    CHECK(ncat >= 5 && npvar >= 10, "%d categories, %d pvars", ncat, npvar);
    for (int c = 0; c < ncat; c++) {
        char name[64];
        int len = sizeof(name), nc, np, nsub, k, idx[128];
        MPI_OK(MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &nsub));
        MPI_OK(MPI_T_category_get_index(name, &k));
        CHECK(k == c && nsub == 0 && nc <= 128 && np <= 128, "category %s", name);
        MPI_OK(MPI_T_category_get_cvars(c, nc, idx));
        for (int j = 0; j < nc; j++)
            CHECK(idx[j] >= 0 && idx[j] < n, "category %s: cvar %d", name, idx[j]);
        MPI_OK(MPI_T_category_get_pvars(c, np, idx));
        for (int j = 0; j < np; j++)
            CHECK(idx[j] >= 0 && idx[j] < npvar, "category %s: pvar %d", name, idx[j]);
        sumc += nc;
        sump += np;
    }
    CHECK(sumc == n && sump == npvar, "categories hold %d of %d cvars, %d of %d pvars", sumc, n,
          sump, npvar);
    int stamp = -1;
    MPI_OK(MPI_T_category_changed(&stamp));
    CHECK(stamp >= 0, "stamp %d", stamp);
}

static void before_init(void)
{
    t_begin("environment");
    const char *env = getenv("RDMPI_SPIN_COUNT");
    CHECK(env, "run with RDMPI_SPIN_COUNT set (tests.list)");
    CHECK(read_int("RDMPI_SPIN_COUNT") == atoi(env), "RDMPI_SPIN_COUNT reads %d, env %s",
          read_int("RDMPI_SPIN_COUNT"), env);
    t_begin("writes before MPI_Init");
    CHECK(write_int("RDMPI_SPIN_COUNT", 5) == MPI_T_ERR_CVAR_SET_NOT_NOW, "live before init");
    CHECK(read_int("RDMPI_SPIN_COUNT") == atoi(env), "refused write changed the value");
}

typedef struct {
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
} pv_t;

static pv_t pvar(MPI_T_pvar_session s, const char *name, int cls)
{
    pv_t p = { s, MPI_T_PVAR_HANDLE_NULL };
    int i, count, ro, cont;
    MPI_Datatype dt;
    MPI_OK(MPI_T_pvar_get_index(name, cls, &i));
    MPI_OK(MPI_T_pvar_get_info(i, NULL, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, &ro, &cont,
                               NULL));
    CHECK(dt == MPI_UNSIGNED_LONG_LONG, "%s: datatype", name);
    CHECK(cls == MPI_T_PVAR_CLASS_COUNTER ? !ro && !cont : ro && cont, "%s: ro %d cont %d", name,
          ro, cont);
    MPI_OK(MPI_T_pvar_handle_alloc(s, i, NULL, &p.h, &count));
    CHECK(count == 1, "%s: count %d", name, count);
    return p;
}

static unsigned long long rd(pv_t p)
{
    unsigned long long v = ~0ull;
    MPI_OK(MPI_T_pvar_read(p.s, p.h, &v));
    return v;
}

#define NMSG 25

static void running(void)
{
    t_begin("writable cvar");
    CHECK(write_int("RDMPI_SPIN_COUNT", 777) == MPI_SUCCESS, "write refused");
    CHECK(read_int("RDMPI_SPIN_COUNT") == 777, "reads %d after writing 777",
          read_int("RDMPI_SPIN_COUNT"));
    CHECK(write_int("RDMPI_SPIN_COUNT", -5) == MPI_T_ERR_INVALID, "out of bounds accepted");
    CHECK(read_int("RDMPI_SPIN_COUNT") == 777, "refused write changed the value");
    CHECK(write_int("RDMPI_TRANSPORTS", 0) == MPI_T_ERR_CVAR_SET_NEVER, "read-only written");
    CHECK(write_int("RDMPI_RNDV_PROTO", 99) == MPI_T_ERR_INVALID, "enum out of range");

    MPI_T_pvar_session s;
    MPI_OK(MPI_T_pvar_session_create(&s));
    pv_t sent = pvar(s, "rdmpi_p2p_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    pv_t arrived = pvar(s, "rdmpi_p2p_msgs_arrived", MPI_T_PVAR_CLASS_COUNTER);
    pv_t pipe = pvar(s, "rdmpi_p2p_rndv_pipelined_sent", MPI_T_PVAR_CLASS_COUNTER);
    pv_t unexp = pvar(s, "rdmpi_p2p_unexpected", MPI_T_PVAR_CLASS_LEVEL);
    pv_t unexp_max = pvar(s, "rdmpi_p2p_unexpected_max", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    CHECK(rd(sent) == 0, "a new counter handle reads %llu", rd(sent));
    CHECK(MPI_T_pvar_start(s, unexp.h) == MPI_T_ERR_PVAR_NO_STARTSTOP, "start a level");
    CHECK(MPI_T_pvar_reset(s, unexp.h) == MPI_T_ERR_PVAR_NO_WRITE, "reset a level");

    if (t_size >= 2 && t_rank < 2) {
        t_begin("counters");
        int peer = 1 - t_rank, go = 0, buf[NMSG];
        char tp[MPI_MAX_OBJECT_NAME], name[MPI_MAX_OBJECT_NAME + 32];
        int len;
        MPI_OK(rdmpi_peer_transport(MPI_COMM_WORLD, peer, tp, &len));
        snprintf(name, sizeof(name), "rdmpi_%s_msgs_sent", tp);
        pv_t tpsent = pvar(s, name, MPI_T_PVAR_CLASS_COUNTER);
        if (t_rank == 1) {
            /* nothing can come from rank 0 before "go" */
            unsigned long long base = rd(unexp);
            MPI_OK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
            MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
            /* the NMSG messages arrive before "done" (ordered per sender), and wait */
            MPI_Recv(&go, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(rd(unexp) == base + NMSG, "%llu unexpected, sent %d", rd(unexp) - base, NMSG);
            CHECK(rd(unexp_max) >= base + NMSG, "high-water mark %llu", rd(unexp_max));
            for (int i = 0; i < NMSG; i++) {
                MPI_Recv(&buf[i], 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(buf[i] == i, "message %d is %d", i, buf[i]);
            }
            CHECK(rd(unexp) == base, "%llu unexpected after the receives", rd(unexp) - base);
            MPI_OK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
            CHECK(rd(arrived) == NMSG + 1, "%llu arrived, %d sent", rd(arrived), NMSG + 1);
            CHECK(rd(sent) == 1, "%llu sent, 1 expected", rd(sent));
            MPI_Send(&go, 1, MPI_INT, peer, 6, MPI_COMM_WORLD); /* stopped: rank 0 goes on */
        } else {
            MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_OK(MPI_T_pvar_start(s, sent.h));
            MPI_OK(MPI_T_pvar_start(s, tpsent.h));
            for (int i = 0; i < NMSG; i++)
                MPI_Send(&i, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
            MPI_Send(&go, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
            MPI_OK(MPI_T_pvar_stop(s, sent.h));
            MPI_OK(MPI_T_pvar_stop(s, tpsent.h));
            CHECK(rd(sent) == NMSG + 1, "%llu sent, %d expected", rd(sent), NMSG + 1);
            CHECK(rd(tpsent) >= NMSG + 1, "%s: %llu sent, at least %d expected", name,
                  rd(tpsent), NMSG + 1);
            /* a stopped counter does not move (a message to itself: rank 1 counts no more) */
            MPI_Sendrecv(&go, 1, MPI_INT, 0, 4, &buf[0], 1, MPI_INT, 0, 4, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            CHECK(rd(sent) == NMSG + 1, "stopped counter moved to %llu", rd(sent));
            unsigned long long v = 100;
            MPI_OK(MPI_T_pvar_write(s, sent.h, &v));
            CHECK(rd(sent) == 100, "written 100, reads %llu", rd(sent));
            MPI_OK(MPI_T_pvar_readreset(s, sent.h, &v));
            CHECK(v == 100 && rd(sent) == 0, "readreset gave %llu, then %llu", v, rd(sent));
            MPI_Recv(&go, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }

        t_begin("writable cvar takes effect");
        const int big = 1 << 20;
        char *data = malloc(big);
        CHECK(data, "malloc");
        memset(data, 7, big);
        int pipelined = enum_value("RDMPI_RNDV_PROTO", "pipelined");
        CHECK(write_int("RDMPI_RNDV_PROTO", pipelined) == MPI_SUCCESS, "write refused");
        CHECK(read_int("RDMPI_RNDV_PROTO") == pipelined, "does not read back");
        MPI_OK(MPI_T_pvar_reset(s, pipe.h));
        MPI_OK(MPI_T_pvar_start(s, pipe.h));
        if (t_rank == 0) {
            MPI_Send(data, big, MPI_CHAR, peer, 5, MPI_COMM_WORLD);
        } else {
            memset(data, 0, big);
            MPI_Recv(data, big, MPI_CHAR, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(data[0] == 7 && data[big - 1] == 7, "large message content");
        }
        MPI_OK(MPI_T_pvar_stop(s, pipe.h));
        CHECK(rd(pipe) == (t_rank == 0 ? 1u : 0u), "%llu pipelined sends", rd(pipe));
        CHECK(write_int("RDMPI_RNDV_PROTO", enum_value("RDMPI_RNDV_PROTO", "read")) ==
                  MPI_SUCCESS, "write back refused");
        free(data);
    }
    MPI_T_pvar_handle h = sent.h;
    MPI_OK(MPI_T_pvar_handle_free(s, &h));
    CHECK(h == MPI_T_PVAR_HANDLE_NULL, "pvar handle not reset");
    CHECK(MPI_T_pvar_read(s, sent.h, &h) == MPI_T_ERR_INVALID_HANDLE, "freed handle read");
    MPI_OK(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "session not reset");
    t_sync();
}

int main(int argc, char **argv)
{
    int provided;
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);
    enumerate_cvars();
    before_init();
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)); /* nested: counted */
    t_init(&argc, &argv);
    running();
    MPI_OK(MPI_T_finalize());
    t_begin("error string");
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_OK(MPI_Error_string(MPI_T_ERR_CVAR_SET_NEVER, msg, &len));
    CHECK(strstr(msg, "never"), "MPI_T_ERR_CVAR_SET_NEVER: %s", msg);
    t_finish();
    /* after MPI_Finalize: still initialized once, the environment's value again */
    t_begin("after MPI_Finalize");
    CHECK(read_int("RDMPI_SPIN_COUNT") == atoi(getenv("RDMPI_SPIN_COUNT")), "after finalize");
    MPI_OK(MPI_T_finalize());
    int n;
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED, "usable after MPI_T_finalize");
    return 0;
}
