/*
 * Performance variables: a table over what the library counts (p2p's
 * counters, p2p_counters_read; every transport interface's, tp_layer_stats),
 * sessions and handles.
 *
 * The library's counters only grow, from MPI_Init on; a handle keeps its own
 * view of a COUNTER: what it accumulated while started, plus, while started,
 * how far the counter moved since it was started. So start, stop, reset and
 * write act on the handle, never on the library's counter, and sessions do
 * not disturb each other. LEVEL and HIGHWATERMARK variables are the library's
 * current values: continuous and read-only. Before MPI_Init and after
 * MPI_Finalize every counter reads 0 (nothing runs).
 */
#include <stdlib.h>
#include <string.h>
#include "api/api.h"
#include "mpit/mpit.h"
#include "p2p/p2p.h"
#include "rt/rt.h"

enum { SRC_P2P, SRC_TP };

typedef struct pvar_row {
    const char *name;
    int var_class;
    int src;             /* SRC_P2P: a p2p_counters_t field; SRC_TP: a tp_stats_t field */
    const char *tp;      /* SRC_TP: the transport */
    size_t off;          /* of the uint64_t field */
    const char *desc;
} pvar_row_t;

#define P2P(f) SRC_P2P, NULL, offsetof(p2p_counters_t, f)
#define TP(t, f) SRC_TP, t, offsetof(tp_stats_t, f)
#define C MPI_T_PVAR_CLASS_COUNTER

/* The same four counters for every transport. */
#define TP_ROWS(t)                                                                               \
    { "rdmpi_" t "_msgs_sent", C, TP(t, am_sent),                                                \
      "active messages handed to the " t " transport (eager messages, rendezvous control "      \
      "messages and pipelined chunks of every send)" },                                         \
    { "rdmpi_" t "_bytes_sent", C, TP(t, am_bytes),                                              \
      "bytes of those active messages (protocol headers and payload)" },                        \
    { "rdmpi_" t "_rdma_ops", C, TP(t, rdma_ops),                                                \
      "zero-copy reads and writes started over the " t " transport (rendezvous; shm: CMA)" },   \
    { "rdmpi_" t "_rdma_bytes", C, TP(t, rdma_bytes), "bytes of those reads and writes" }

static const pvar_row_t rows[] = {
    { "rdmpi_p2p_msgs_sent", C, P2P(sent),
      "point-to-point messages this rank started to send, the collectives' own included, over "
      "every transport (MPI_PROC_NULL sends excluded)" },
    { "rdmpi_p2p_bytes_sent", C, P2P(sent_bytes), "bytes of those messages" },
    { "rdmpi_p2p_eager_sent", C, P2P(eager), "of those messages, the ones sent eagerly" },
    { "rdmpi_p2p_rndv_read_sent", C, P2P(rndv_get),
      "of those messages, the ones the receiver read (rendezvous, RDMPI_RNDV_PROTO=read)" },
    { "rdmpi_p2p_rndv_write_sent", C, P2P(rndv_put),
      "of those messages, the ones written into the receiver (rendezvous, write)" },
    { "rdmpi_p2p_rndv_pipelined_sent", C, P2P(rndv_pipe),
      "of those messages, the ones copied in chunks (rendezvous, pipelined)" },
    { "rdmpi_p2p_msgs_arrived", C, P2P(arrived),
      "point-to-point messages that arrived at this rank (matched at once or not)" },
    { "rdmpi_p2p_bytes_arrived", C, P2P(arrived_bytes), "bytes of those messages" },
    { "rdmpi_p2p_unexpected", MPI_T_PVAR_CLASS_LEVEL, P2P(unexp_now),
      "messages waiting in the unexpected queues (arrived before their receive), now" },
    { "rdmpi_p2p_unexpected_max", MPI_T_PVAR_CLASS_HIGHWATERMARK, P2P(unexp_max),
      "the most messages the unexpected queues held at once since MPI_Init" },
    TP_ROWS("self"),
    TP_ROWS("shm"),
    TP_ROWS("tcp"),
    TP_ROWS("verbs"),
    { "rdmpi_verbs_retransmissions", C, TP("verbs", resent),
      "UD packets the verbs transport sent again (lost or unacknowledged in time)" },
    { "rdmpi_verbs_rcache_hits", C, TP("verbs", rcache_hits),
      "rendezvous buffers found registered in the verbs registration cache" },
    { "rdmpi_verbs_rcache_misses", C, TP("verbs", rcache_misses),
      "rendezvous buffers the verbs registration cache had to register" },
};
#define NROWS ((int)(sizeof(rows) / sizeof(rows[0])))

#define HANDLE_MAGIC 0x70766168u
#define SESSION_MAGIC 0x70767373u

struct rdmpi_t_pvar_handle {
    unsigned magic;
    struct rdmpi_t_pvar_session *session;
    struct rdmpi_t_pvar_handle *next;
    int index;
    int started;
    uint64_t accum;      /* COUNTER: counted while started before the last start */
    uint64_t snap;       /* COUNTER: the library's counter at the last start */
};

struct rdmpi_t_pvar_session {
    unsigned magic;
    struct rdmpi_t_pvar_handle *handles;
    struct rdmpi_t_pvar_session *next;
};

int mpit_pvar_count(void)
{
    return NROWS;
}

const char *mpit_pvar_category(int i)
{
    return rows[i].src == SRC_P2P ? "p2p" : rows[i].tp;
}

static int continuous(int i)
{
    return rows[i].var_class != C;
}

/* The library's value now (0 when it does not run, or the transport is not open). */
static uint64_t source(int i)
{
    const pvar_row_t *r = &rows[i];
    if (!mpit_running())
        return 0;
    if (r->src == SRC_P2P) {
        p2p_counters_t c;
        p2p_counters_read(&c);
        return *(const uint64_t *)((const char *)&c + r->off);
    }
    tp_stats_t s;
    tp_layer_stats(&rt_get()->tp, r->tp, &s);
    return *(const uint64_t *)((const char *)&s + r->off);
}

/* A counter's movement since snap (0 if the library restarted under it). */
static uint64_t since(int i, uint64_t snap)
{
    uint64_t now = source(i);
    return now >= snap ? now - snap : 0;
}

static uint64_t value(const struct rdmpi_t_pvar_handle *h)
{
    if (continuous(h->index))
        return source(h->index);
    return h->accum + (h->started ? since(h->index, h->snap) : 0);
}

int PMPI_T_pvar_get_num(int *num_pvar)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    (void)st;
    if (!num_pvar)
        return MPI_T_ERR_INVALID;
    *num_pvar = NROWS;
    return MPI_SUCCESS;
}
int MPI_T_pvar_get_num(int *num_pvar) API_ALIAS(MPI_T_pvar_get_num);

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                         char *desc, int *desc_len, int *bind, int *readonly, int *continuous_,
                         int *atomic)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    (void)st;
    if (pvar_index < 0 || pvar_index >= NROWS)
        return MPI_T_ERR_INVALID_INDEX;
    const pvar_row_t *r = &rows[pvar_index];
    mpit_put_str(r->name, name, name_len);
    mpit_put_str(r->desc, desc, desc_len);
    if (verbosity)
        *verbosity = r->src == SRC_P2P ? MPI_T_VERBOSITY_USER_BASIC : MPI_T_VERBOSITY_TUNER_BASIC;
    if (var_class)
        *var_class = r->var_class;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = continuous(pvar_index);
    if (continuous_)
        *continuous_ = continuous(pvar_index);
    if (atomic)
        *atomic = 0;
    return MPI_SUCCESS;
}
int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                        int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                        int *desc_len, int *bind, int *readonly, int *continuous_, int *atomic)
    API_ALIAS(MPI_T_pvar_get_info);

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    (void)st;
    if (!name || !pvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < NROWS; i++)
        if (rows[i].var_class == var_class && !strcmp(rows[i].name, name)) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
    API_ALIAS(MPI_T_pvar_get_index);

/* ---- Sessions and handles ---------------------------------------------------------------- */

static int session_ok(MPI_T_pvar_session s)
{
    return s && s->magic == SESSION_MAGIC;
}

static int handle_ok(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    return h && h != MPI_T_PVAR_ALL_HANDLES && h->magic == HANDLE_MAGIC && h->session == s;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    if (!session)
        return MPI_T_ERR_INVALID;
    struct rdmpi_t_pvar_session *s = calloc(1, sizeof(*s));
    if (!s)
        return MPI_T_ERR_OUT_OF_SESSIONS;
    s->magic = SESSION_MAGIC;
    s->next = st->sessions;
    st->sessions = s;
    *session = s;
    return MPI_SUCCESS;
}
int MPI_T_pvar_session_create(MPI_T_pvar_session *session) API_ALIAS(MPI_T_pvar_session_create);

static void session_destroy(struct rdmpi_t_pvar_session *s)
{
    for (struct rdmpi_t_pvar_handle *h = s->handles, *n; h; h = n) {
        n = h->next;
        h->magic = 0;
        free(h);
    }
    s->magic = 0;
    free(s);
}

void mpit_sessions_free(mpit_state_t *st)
{
    for (struct rdmpi_t_pvar_session *s = st->sessions, *n; s; s = n) {
        n = s->next;
        session_destroy(s);
    }
    st->sessions = NULL;
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    if (!session || !session_ok(*session))
        return MPI_T_ERR_INVALID_SESSION;
    for (struct rdmpi_t_pvar_session **pp = &st->sessions; *pp; pp = &(*pp)->next)
        if (*pp == *session) {
            *pp = (*session)->next;
            break;
        }
    session_destroy(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
int MPI_T_pvar_session_free(MPI_T_pvar_session *session) API_ALIAS(MPI_T_pvar_session_free);

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    (void)st;
    (void)obj_handle; /* every variable is bound to no object */
    if (!session_ok(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (pvar_index < 0 || pvar_index >= NROWS)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct rdmpi_t_pvar_handle *h = calloc(1, sizeof(*h));
    if (!h)
        return MPI_T_ERR_OUT_OF_HANDLES;
    h->magic = HANDLE_MAGIC;
    h->session = session;
    h->index = pvar_index;
    h->started = continuous(pvar_index); /* a counter starts stopped, at 0 */
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}
int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                            MPI_T_pvar_handle *handle, int *count)
    API_ALIAS(MPI_T_pvar_handle_alloc);

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    (void)st;
    if (!session_ok(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (!handle || !handle_ok(session, *handle))
        return MPI_T_ERR_INVALID_HANDLE;
    for (struct rdmpi_t_pvar_handle **pp = &session->handles; *pp; pp = &(*pp)->next)
        if (*pp == *handle) {
            *pp = (*handle)->next;
            break;
        }
    (*handle)->magic = 0;
    free(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
    API_ALIAS(MPI_T_pvar_handle_free);

enum { OP_START, OP_STOP, OP_RESET };

static void apply(struct rdmpi_t_pvar_handle *h, int op)
{
    switch (op) {
    case OP_START:
        if (!h->started) {
            h->snap = source(h->index);
            h->started = 1;
        }
        break;
    case OP_STOP:
        if (h->started) {
            h->accum += since(h->index, h->snap);
            h->started = 0;
        }
        break;
    case OP_RESET:
        h->accum = 0;
        h->snap = source(h->index);
        break;
    }
}

/* start, stop, reset: one handle, or every handle of the session that allows it. */
static int each(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int op)
{
    MPIT_CHECK_INIT(st);
    (void)st;
    if (!session_ok(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct rdmpi_t_pvar_handle *h = session->handles; h; h = h->next)
            if (!continuous(h->index))
                apply(h, op);
        return MPI_SUCCESS;
    }
    if (!handle_ok(session, handle))
        return MPI_T_ERR_INVALID_HANDLE;
    if (continuous(handle->index))
        return op == OP_RESET ? MPI_T_ERR_PVAR_NO_WRITE : MPI_T_ERR_PVAR_NO_STARTSTOP;
    apply(handle, op);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIT_API_ENTER;
    return each(session, handle, OP_START);
}
int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
    API_ALIAS(MPI_T_pvar_start);

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIT_API_ENTER;
    return each(session, handle, OP_STOP);
}
int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
    API_ALIAS(MPI_T_pvar_stop);

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIT_API_ENTER;
    return each(session, handle, OP_RESET);
}
int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
    API_ALIAS(MPI_T_pvar_reset);

static int checked(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    if (!mpit_get())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!session_ok(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (!handle_ok(session, handle))
        return MPI_T_ERR_INVALID_HANDLE;
    return buf ? 0 : MPI_T_ERR_INVALID;
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    MPIT_API_ENTER;
    int rc = checked(session, handle, buf);
    if (rc)
        return rc;
    *(unsigned long long *)buf = value(handle);
    return MPI_SUCCESS;
}
int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
    API_ALIAS(MPI_T_pvar_read);

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    MPIT_API_ENTER;
    int rc = checked(session, handle, buf);
    if (rc)
        return rc;
    if (continuous(handle->index))
        return MPI_T_ERR_PVAR_NO_WRITE;
    handle->accum = *(const unsigned long long *)buf;
    handle->snap = source(handle->index);
    return MPI_SUCCESS;
}
int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
    API_ALIAS(MPI_T_pvar_write);

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    MPIT_API_ENTER;
    int rc = checked(session, handle, buf);
    if (rc)
        return rc;
    if (continuous(handle->index))
        return MPI_T_ERR_PVAR_NO_WRITE;
    *(unsigned long long *)buf = value(handle);
    apply(handle, OP_RESET);
    return MPI_SUCCESS;
}
int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
    API_ALIAS(MPI_T_pvar_readreset);
