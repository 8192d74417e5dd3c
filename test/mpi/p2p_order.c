/*
 * Message ordering: messages with the same (source, tag, communicator) are
 * received in the order they were sent, whatever their sizes (eager and
 * rendezvous mixed, 0 B .. 1 MiB), whether the receives were posted before or
 * after the messages arrived, and with wildcard receives. Also checks that
 * communicators isolate traffic: a message on a duplicate never matches a
 * receive on the original, wildcards included.
 */
#include "check.h"

static int rank, size, left, right;

#define NMSG 48

/* Sizes in bytes of message i: small, medium, large and empty mixed. */
static size_t msg_size(int i)
{
    static const size_t sizes[] = {4,      1 << 20, 100, 0,     65536,   8,
                                   300000, 5000,    4,   17000, 1 << 20, 12};
    return sizes[i % (int)(sizeof(sizes) / sizeof(sizes[0]))];
}

/* Fills message i: its sequence number first (when it fits), then the pattern. */
static void fill_msg(unsigned char *buf, int src, int i)
{
    size_t n = msg_size(i);
    t_fill(buf, src + i, n);
    if (n >= 4)
        memcpy(buf, &i, sizeof(int));
}

static void check_msg(const unsigned char *buf, const MPI_Status *st, int src, int i)
{
    int n;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK((size_t)n == msg_size(i), "message %d from %d has %d bytes, expected %zu (out of order?)",
          i, src, n, msg_size(i));
    if (n >= 4) {
        int seq;
        memcpy(&seq, buf, sizeof(int));
        CHECK(seq == i, "message %d from %d carries sequence number %d", i, src, seq);
        for (size_t k = 4; k < (size_t)n; k++)
            CHECK(buf[k] == t_pattern(src + i, (size_t)n, k),
                  "message %d from %d: byte %zu differs", i, src, k);
    }
}

/* All sends to the right neighbour are started before the receives exist. */
static void unexpected_order(int wildcard)
{
    t_begin(wildcard ? "order-unexpected-wildcard" : "order-unexpected");
    unsigned char *sbuf[NMSG];
    MPI_Request req[NMSG];
    for (int i = 0; i < NMSG; i++) {
        sbuf[i] = malloc(msg_size(i) + 1);
        fill_msg(sbuf[i], rank, i);
        MPI_Isend(sbuf[i], (int)msg_size(i), MPI_BYTE, right, 1, MPI_COMM_WORLD, &req[i]);
    }
    unsigned char *rbuf = malloc((1 << 20) + 1);
    for (int i = 0; i < NMSG; i++) {
        MPI_Status st;
        MPI_Recv(rbuf, 1 << 20, MPI_BYTE, wildcard ? MPI_ANY_SOURCE : left,
                 wildcard ? MPI_ANY_TAG : 1, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 1, "message %d: source %d tag %d", i,
              st.MPI_SOURCE, st.MPI_TAG);
        check_msg(rbuf, &st, left, i);
    }
    MPI_Waitall(NMSG, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < NMSG; i++)
        free(sbuf[i]);
    free(rbuf);
}

/* All receives are posted before the left neighbour starts sending. */
static void preposted_order(int wildcard)
{
    t_begin(wildcard ? "order-preposted-wildcard" : "order-preposted");
    unsigned char *rbuf[NMSG];
    MPI_Request req[NMSG];
    MPI_Status st[NMSG];
    for (int i = 0; i < NMSG; i++) {
        rbuf[i] = malloc((1 << 20) + 1);
        MPI_Irecv(rbuf[i], 1 << 20, MPI_BYTE, wildcard ? MPI_ANY_SOURCE : left,
                  wildcard ? MPI_ANY_TAG : 2, MPI_COMM_WORLD, &req[i]);
    }
    t_sync();
    unsigned char *sbuf = malloc((1 << 20) + 1);
    MPI_Request sreq;
    for (int i = 0; i < NMSG; i++) {
        fill_msg(sbuf, rank, i);
        /* alternate blocking and nonblocking sends */
        if (i % 2) {
            MPI_Isend(sbuf, (int)msg_size(i), MPI_BYTE, right, 2, MPI_COMM_WORLD, &sreq);
            MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(sbuf, (int)msg_size(i), MPI_BYTE, right, 2, MPI_COMM_WORLD);
        }
    }
    MPI_Waitall(NMSG, req, st);
    for (int i = 0; i < NMSG; i++) {
        CHECK(st[i].MPI_SOURCE == left && st[i].MPI_TAG == 2, "message %d: source %d tag %d", i,
              st[i].MPI_SOURCE, st[i].MPI_TAG);
        check_msg(rbuf[i], &st[i], left, i);
        free(rbuf[i]);
    }
    free(sbuf);
}

/*
 * Rank 0 receives from everyone with MPI_ANY_SOURCE: the interleaving of
 * senders is free, but each sender's sequence must arrive in order. Tags vary
 * per message; MPI_ANY_TAG must still respect the order of one sender.
 */
static void many_senders(void)
{
    t_begin("order-any-source-many-senders");
    enum { M = 200 };
    int vals[M][2];
    MPI_Request req[M];
    for (int i = 0; i < M; i++) {
        vals[i][0] = rank;
        vals[i][1] = i;
        MPI_Isend(vals[i], 2, MPI_INT, 0, 3 + i % 5, MPI_COMM_WORLD, &req[i]);
    }
    if (rank == 0) {
        int next[64] = {0};
        for (int k = 0; k < M * size; k++) {
            int v[2];
            MPI_Status st;
            MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int s = st.MPI_SOURCE;
            CHECK(v[0] == s, "payload says source %d, status says %d", v[0], s);
            CHECK(v[1] == next[s], "from %d got sequence %d, expected %d", s, v[1], next[s]);
            CHECK(st.MPI_TAG == 3 + v[1] % 5, "tag %d for sequence %d", st.MPI_TAG, v[1]);
            next[s]++;
        }
    }
    MPI_Waitall(M, req, MPI_STATUSES_IGNORE);
}

/*
 * A receive for a specific tag skips earlier messages with other tags, and
 * the skipped ones are then received in their original order.
 */
static void tag_selection(void)
{
    t_begin("order-tag-selection");
    int out[10];
    MPI_Request req[10];
    for (int i = 0; i < 10; i++) {
        out[i] = rank * 100 + i;
        MPI_Isend(&out[i], 1, MPI_INT, right, 10 + i, MPI_COMM_WORLD, &req[i]);
    }
    int v;
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, left, 17, MPI_COMM_WORLD, &st);
    CHECK(v == left * 100 + 7, "tag 17 gave %d", v);
    for (int i = 0; i < 10; i++) {
        if (i == 7)
            continue;
        MPI_Recv(&v, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(v == left * 100 + i && st.MPI_TAG == 10 + i, "got %d with tag %d, expected %d/%d", v,
              st.MPI_TAG, left * 100 + i, 10 + i);
    }
    MPI_Waitall(10, req, MPI_STATUSES_IGNORE);
}

static void comm_isolation(void)
{
    t_begin("comm-isolation");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int a = 1000 + rank, b = 2000 + rank, c = 3000 + rank;
    MPI_Request req[3];
    /* on dup first, then on world, same tag */
    MPI_Isend(&a, 1, MPI_INT, right, 5, dup, &req[0]);
    MPI_Isend(&b, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&c, 1, MPI_INT, right, 6, dup, &req[2]);
    int v;
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &st);
    CHECK(v == 2000 + left, "receive on MPI_COMM_WORLD got %d (dup's message %d?)", v, 1000 + left);
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st);
    CHECK(v == 1000 + left && st.MPI_TAG == 5, "first on dup: %d tag %d", v, st.MPI_TAG);
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st);
    CHECK(v == 3000 + left && st.MPI_TAG == 6, "second on dup: %d tag %d", v, st.MPI_TAG);
    MPI_Waitall(3, req, MPI_STATUSES_IGNORE);

    /* a wildcard receive pre-posted on world is not satisfied by dup traffic */
    MPI_Request rreq;
    int w = -1, flag = 0;
    MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq);
    t_sync();
    MPI_Request sreq;
    MPI_Isend(&a, 1, MPI_INT, right, 8, dup, &sreq);
    MPI_Recv(&v, 1, MPI_INT, left, 8, dup, &st);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    /* my dup message has arrived; world messages are sent only after the next sync */
    MPI_Test(&rreq, &flag, &st);
    CHECK(!flag,
          "wildcard receive on MPI_COMM_WORLD matched a message (value %d, source %d, tag %d)", w,
          st.MPI_SOURCE, st.MPI_TAG);
    t_sync();
    MPI_Send(&b, 1, MPI_INT, right, 9, MPI_COMM_WORLD);
    MPI_Wait(&rreq, &st);
    CHECK(w == 2000 + left && st.MPI_TAG == 9, "world wildcard got %d tag %d", w, st.MPI_TAG);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    rank = t_rank;
    size = t_size;
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    unexpected_order(0);
    t_sync();
    unexpected_order(1);
    t_sync();
    preposted_order(0);
    t_sync();
    preposted_order(1);
    t_sync();
    many_senders();
    t_sync();
    tag_selection();
    t_sync();
    comm_isolation();
    t_finish();
    return 0;
}
