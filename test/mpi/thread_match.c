/*
 * MPI_THREAD_MULTIPLE, matching order: NT threads per rank (first argument, default 4; the
 * second, messages per stream, default 24) send and receive at once with every mix of
 * specific and wildcard source and tag, and every message is checked against the one MPI's
 * rules make the receive take. Messages of one sending thread to one destination on one
 * communicator are a stream: a receive that names a source (and a tag, or MPI_ANY_TAG)
 * takes that stream's earliest message it matches; one with MPI_ANY_SOURCE takes some
 * stream's earliest match; receives posted together match in posting order. Sends from
 * different threads are not ordered, so each receive's candidates come from one sending
 * thread per source:
 *  - own communicators: thread t of every rank receives, alone, on communicator t (one
 *    dup per thread index), where only the threads t send (tags 0..2 by sequence number):
 *    any source, any tag, both, neither, and pairs of receives posted before either waits;
 *  - a shared communicator: every thread sends to every thread of every rank, the tag
 *    naming receiving thread, sending thread and class (so MPI_ANY_TAG, which would take
 *    another thread's message, is not used): specific and MPI_ANY_SOURCE receives, pairs.
 * Each message carries (rank, thread, sequence); source, tag, count and payload are checked.
 */
#include "mt.h"

#define CLASSES 3

static int nt = 4, nmsg = 24;
static MPI_Comm own[MT_MAX], shared;

/* Which messages of each stream (source rank, sending thread) one thread has received. */
typedef struct model {
    int nsend;          /* sending threads per source */
    int base;           /* tag of (sending thread 0, class 0) */
    unsigned char *got; /* [src][s][i] */
    int *left;          /* messages not received yet, [src] */
} model_t;

static void model_init(model_t *m, int nsend, int base)
{
    m->nsend = nsend;
    m->base = base;
    m->got = calloc((size_t)t_size * (size_t)nsend * (size_t)nmsg, 1);
    m->left = malloc(sizeof(int) * (size_t)t_size);
    CHECK(m->got && m->left, "out of memory");
    for (int r = 0; r < t_size; r++)
        m->left[r] = nsend * nmsg;
}

static unsigned char *got_of(model_t *m, int src, int s)
{
    return m->got + ((size_t)src * (size_t)m->nsend + (size_t)s) * (size_t)nmsg;
}

/* The earliest message not received of stream (src, s) in class cls (-1: any), or -1. */
static int earliest(model_t *m, int src, int s, int cls)
{
    unsigned char *g = got_of(m, src, s);
    for (int i = 0; i < nmsg; i++)
        if (!g[i] && (cls < 0 || i % CLASSES == cls))
            return i;
    return -1;
}

static int tag_of(const model_t *m, int s, int i)
{
    return m->base + s * CLASSES + i % CLASSES;
}

/* Checks a received message against the model and records it. want_src and want_tag are
 * the receive's (wildcards allowed); expect, when >= 0, the sequence number it must be. */
static void take(model_t *m, int t, const char *part, const int *msg, const MPI_Status *st,
                 int want_src, int want_tag, int expect)
{
    int src = st->MPI_SOURCE, tag = st->MPI_TAG, count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    CHECK(count == 3, "%s thread %d: count %d", part, t, count);
    CHECK(src >= 0 && src < t_size && (want_src == MPI_ANY_SOURCE || src == want_src),
          "%s thread %d: source %d for a receive from %d", part, t, src, want_src);
    CHECK(want_tag == MPI_ANY_TAG || tag == want_tag, "%s thread %d: tag %d, asked for %d", part,
          t, tag, want_tag);
    CHECK(tag >= m->base && tag < m->base + m->nsend * CLASSES, "%s thread %d: tag %d", part, t,
          tag);
    int s = (tag - m->base) / CLASSES, cls = (tag - m->base) % CLASSES;
    /* the earliest of the stream the receive could take */
    int first = earliest(m, src, s, want_tag == MPI_ANY_TAG ? -1 : cls);
    if (expect < 0)
        expect = first;
    CHECK(msg[0] == src && msg[1] == (m->nsend > 1 ? s : t) && msg[2] == expect &&
              expect == first && tag == tag_of(m, s, expect),
          "%s thread %d: from %d tag %d got (%d, %d, %d), expected (%d, %d, %d)", part, t, src,
          tag, msg[0], msg[1], msg[2], src, m->nsend > 1 ? s : t, expect);
    got_of(m, src, s)[expect] = 1;
    m->left[src]--;
}

/* A source with messages left (of stream s, class cls when s >= 0), starting at hint; -1 if
 * none. */
static int source_with(model_t *m, int hint, int s, int cls)
{
    for (int k = 0; k < t_size; k++) {
        int r = (hint + k) % t_size;
        if (s < 0 ? m->left[r] > 0 : earliest(m, r, s, cls) >= 0)
            return r;
    }
    return -1;
}

/* Receives everything model m expects, on comm, the k-th receive of kind k % 5. */
static void receive_all(model_t *m, MPI_Comm comm, int t, const char *part, int any_tag_ok)
{
    int total = t_size * m->nsend * nmsg;
    for (int k = 0, done = 0; done < total; k++) {
        int msg[3] = { -1, -1, -1 }, msg2[3] = { -1, -1, -1 };
        MPI_Status st, st2;
        int s = (k / 5) % m->nsend, cls = (k / 3) % CLASSES;
        int src = source_with(m, k, s, cls);
        int kind = k % 5;
        if (!any_tag_ok && (kind == 0 || kind == 3))
            kind = 2;   /* MPI_ANY_TAG would take another thread's message */
        if (src < 0) {   /* stream s has nothing left of class cls: any stream's earliest */
            for (s = 0, src = -1; src < 0 && s < m->nsend; s++)
                for (cls = 0; src < 0 && cls < CLASSES; cls++)
                    src = source_with(m, k, s, cls);
            s--, cls--;
        }
        CHECK(src >= 0, "%s thread %d: nothing left after %d of %d", part, t, done, total);
        int tag = m->base + s * CLASSES + cls;
        switch (kind) {
        case 0: /* named source, any tag */
            MPI_OK(MPI_Recv(msg, 3, MPI_INT, src, MPI_ANY_TAG, comm, &st));
            take(m, t, part, msg, &st, src, MPI_ANY_TAG, -1);
            done++;
            break;
        case 1: /* any source, named tag */
            MPI_OK(MPI_Recv(msg, 3, MPI_INT, MPI_ANY_SOURCE, tag, comm, &st));
            take(m, t, part, msg, &st, MPI_ANY_SOURCE, tag, -1);
            done++;
            break;
        case 2: /* both named */
            MPI_OK(MPI_Recv(msg, 3, MPI_INT, src, tag, comm, &st));
            take(m, t, part, msg, &st, src, tag, -1);
            done++;
            break;
        case 3: /* both wildcards */
            MPI_OK(MPI_Recv(msg, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
            take(m, t, part, msg, &st, MPI_ANY_SOURCE, MPI_ANY_TAG, -1);
            done++;
            break;
        default: { /* two receives from one source posted, completed last first */
            int i1 = earliest(m, src, s, cls), i2 = -1;
            unsigned char *g = got_of(m, src, s);
            for (int i = i1 + 1; i < nmsg && i2 < 0; i++)
                if (!g[i] && i % CLASSES == cls)
                    i2 = i;
            if (i2 < 0) {
                MPI_OK(MPI_Recv(msg, 3, MPI_INT, src, tag, comm, &st));
                take(m, t, part, msg, &st, src, tag, -1);
                done++;
                break;
            }
            MPI_Request r[2];
            MPI_OK(MPI_Irecv(msg, 3, MPI_INT, src, tag, comm, &r[0]));
            MPI_OK(MPI_Irecv(msg2, 3, MPI_INT, src, tag, comm, &r[1]));
            MPI_OK(MPI_Wait(&r[1], &st2));
            MPI_OK(MPI_Wait(&r[0], &st));
            take(m, t, part, msg, &st, src, tag, i1);
            take(m, t, part, msg2, &st2, src, tag, i2);
            done += 2;
        }
        }
    }
}

/* Sends stream (this rank, thread t) to every rank: n messages each, tags from tag_of. */
static void send_all(MPI_Comm comm, int t, int s_index, int base, int *bufs, MPI_Request *reqs)
{
    model_t m = { 0 };
    m.base = base;
    for (int d = 0, k = 0; d < t_size; d++)
        for (int i = 0; i < nmsg; i++, k++) {
            int *b = &bufs[3 * k];
            b[0] = t_rank;
            b[1] = t;
            b[2] = i;
            MPI_OK(MPI_Isend(b, 3, MPI_INT, d, tag_of(&m, s_index, i), comm, &reqs[k]));
        }
}

static void *body(void *p)
{
    mt_arg_t *a = p;
    int t = a->id, per = t_size * nmsg;
    int *bufs = malloc(sizeof(int) * 3 * (size_t)per * (size_t)(nt + 1));
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)per * (size_t)(nt + 1));
    CHECK(bufs && reqs, "out of memory");

    /* Own communicator: this thread's peers only, every wildcard. */
    model_t mo;
    model_init(&mo, 1, 0);
    send_all(own[t], t, 0, 0, bufs, reqs);
    receive_all(&mo, own[t], t, "own", 1);
    MPI_OK(MPI_Waitall(per, reqs, MPI_STATUSES_IGNORE));

    /* Shared communicator: every thread to every thread; the receiver's tag range. */
    model_t ms;
    model_init(&ms, nt, t * nt * CLASSES);
    for (int r = 0; r < nt; r++)
        send_all(shared, t, t, r * nt * CLASSES, bufs + 3 * (size_t)per * (size_t)r,
                 reqs + (size_t)per * (size_t)r);
    receive_all(&ms, shared, t, "shared", 0);
    MPI_OK(MPI_Waitall(per * nt, reqs, MPI_STATUSES_IGNORE));
    for (int r = 0; r < t_size; r++)
        CHECK(mo.left[r] == 0 && ms.left[r] == 0, "thread %d: messages from %d left", t, r);
    free(mo.got);
    free(mo.left);
    free(ms.got);
    free(ms.left);
    free(bufs);
    free(reqs);
    return NULL;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    t_begin("thread_match");
    if (argc > 1)
        nt = atoi(argv[1]);
    if (argc > 2)
        nmsg = atoi(argv[2]);
    CHECK(nt >= 1 && nt <= MT_MAX && nmsg >= 2, "threads %d, messages %d", nt, nmsg);
    for (int t = 0; t < nt; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &own[t]);
    MPI_Comm_dup(MPI_COMM_WORLD, &shared);
    mt_run(nt, body, NULL);
    for (int t = 0; t < nt; t++)
        MPI_Comm_free(&own[t]);
    MPI_Comm_free(&shared);
    t_finish();
    return 0;
}
