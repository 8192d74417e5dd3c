/*
 * p2p_cancel_send: MPI_Cancel on sends. MPI allows either outcome, but not
 * both: a cancelled send (MPI_Test_cancelled true) delivers nothing, one
 * that is not cancelled delivers its message intact.
 * - race: each rank cancels a small (eager) and a large (rendezvous) send to
 *   its right neighbour, posts the receive from its left one, waits for the
 *   send, tells the neighbour the outcome on another tag, and the neighbour
 *   then either receives exactly the message or cancels its receive, which
 *   must come back cancelled and untouched. Repeated: both outcomes occur.
 * - unmatched (ranks 0 and 1): an eager, synchronous or rendezvous send that no
 *   receive can have matched yet; MPI_Wait must return (MPI-3.1 3.8.4) and,
 *   under rdmpi, the send is cancelled; a later message with the same tag is
 *   the one received.
 * - matched: a send whose message was received cannot be cancelled.
 * - persistent: a cancelled round of a persistent send, then one that arrives.
 */
#include "check.h"

static void one(int len, int tag)
{
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    int *out = malloc(sizeof(int) * (size_t)len), *in = malloc(sizeof(int) * (size_t)len);
    for (int i = 0; i < len; i++)
        out[i] = t_rank * 1000003 + i, in[i] = -1;
    MPI_Request sr, rr;
    MPI_Status st;
    MPI_OK(MPI_Isend(out, len, MPI_INT, right, tag, MPI_COMM_WORLD, &sr));
    MPI_OK(MPI_Cancel(&sr));
    /* the receive is posted before waiting: a send that is not cancelled may
     * need it to complete (a rendezvous send does, under rdmpi and Open MPI) */
    MPI_OK(MPI_Irecv(in, len, MPI_INT, left, tag, MPI_COMM_WORLD, &rr));
    MPI_OK(MPI_Wait(&sr, &st));
    int cancelled = -1, theirs = -1;
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    MPI_OK(MPI_Sendrecv(&cancelled, 1, MPI_INT, right, tag + 1, &theirs, 1, MPI_INT, left,
                        tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (!theirs) {
        MPI_OK(MPI_Wait(&rr, &st));
        CHECK_STATUS(st, left, tag, MPI_INT, len);
        for (int i = 0; i < len; i++)
            CHECK(in[i] == left * 1000003 + i, "int %d of %d from %d is %d", i, len, left, in[i]);
    } else {
        /* nothing may arrive for it: the receive is cancelled */
        int flag = 0;
        MPI_OK(MPI_Cancel(&rr));
        MPI_OK(MPI_Wait(&rr, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag && in[0] == -1, "a cancelled send of %d ints arrived", len);
    }
    t_sync();
    free(out);
    free(in);
}

static int *ints(int len, int seed)
{
    int *p = malloc(sizeof(int) * (size_t)len);
    for (int i = 0; i < len; i++)
        p[i] = seed * 7919 + i;
    return p;
}

static void check_ints(const int *p, int len, int seed, const char *what)
{
    for (int i = 0; i < len; i++)
        if (p[i] != seed * 7919 + i) {
            CHECK(0, "%s: int %d of %d is %d, expected %d", what, i, len, p[i], seed * 7919 + i);
            return;
        }
}

/* Rank 0 starts a send (mode: 's' Issend, 'i' Isend, 'p' persistent synchronous, 'q'
 * persistent standard) rank 1 has not
 * received, cancels it and waits; rank 1 then receives, with the same tag, a second
 * message sent after: the cancelled one never arrives. Returns whether it was cancelled. */
static void unmatched(char mode, int len, int tag)
{
    int cancelled = 0;
    if (t_rank == 0) {
        int *a = ints(len, 1), *b = ints(len, 2);
        MPI_Request r;
        MPI_Status st;
        if (mode == 's')
            MPI_OK(MPI_Issend(a, len, MPI_INT, 1, tag, MPI_COMM_WORLD, &r));
        else if (mode == 'i')
            MPI_OK(MPI_Isend(a, len, MPI_INT, 1, tag, MPI_COMM_WORLD, &r));
        else if (mode == 'p') {
            MPI_OK(MPI_Ssend_init(a, len, MPI_INT, 1, tag, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Start(&r));
        } else {
            MPI_OK(MPI_Send_init(a, len, MPI_INT, 1, tag, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Start(&r));
        }
        MPI_OK(MPI_Cancel(&r));
        MPI_OK(MPI_Wait(&r, &st));
        MPI_OK(MPI_Test_cancelled(&st, &cancelled));
#ifdef RDMPI
        CHECK(cancelled, "rdmpi did not cancel an unmatched %c send of %d ints", mode, len);
#endif
        if (mode == 'p' || mode == 'q') { /* the next round is an ordinary one */
            memcpy(a, b, sizeof(int) * (size_t)len);
            MPI_OK(MPI_Bcast(&cancelled, 1, MPI_INT, 0, MPI_COMM_WORLD));
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Wait(&r, &st));
            int again = 1;
            MPI_OK(MPI_Test_cancelled(&st, &again));
            CHECK(!again, "a persistent send's uncancelled round says cancelled");
            MPI_OK(MPI_Request_free(&r));
        } else {
            MPI_OK(MPI_Bcast(&cancelled, 1, MPI_INT, 0, MPI_COMM_WORLD));
            MPI_OK(MPI_Send(b, len, MPI_INT, 1, tag, MPI_COMM_WORLD));
        }
        free(a);
        free(b);
    } else {
        MPI_OK(MPI_Bcast(&cancelled, 1, MPI_INT, 0, MPI_COMM_WORLD));
        if (t_rank == 1) {
            int *in = calloc((size_t)len, sizeof(int));
            MPI_Status st;
            if (!cancelled) { /* another MPI refused: the first message arrives */
                MPI_OK(MPI_Recv(in, len, MPI_INT, 0, tag, MPI_COMM_WORLD, &st));
                check_ints(in, len, 1, "the uncancelled send");
            }
            MPI_OK(MPI_Recv(in, len, MPI_INT, 0, tag, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, 0, tag, MPI_INT, len);
            check_ints(in, len, 2, "the message after a cancelled one");
            int flag = 1;
            MPI_OK(MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "a message is left after the cancelled one (%c, %d ints)", mode, len);
            free(in);
        }
    }
    t_sync();
}

/* A send whose message rank 1 received (and said so) is not cancelled. */
static void matched(char mode, int len, int tag)
{
    if (t_rank == 0) {
        int *a = ints(len, 3), done = 0;
        MPI_Request r;
        MPI_Status st;
        if (mode == 's')
            MPI_OK(MPI_Issend(a, len, MPI_INT, 1, tag, MPI_COMM_WORLD, &r));
        else
            MPI_OK(MPI_Isend(a, len, MPI_INT, 1, tag, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Recv(&done, 1, MPI_INT, 1, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Cancel(&r));
        MPI_OK(MPI_Wait(&r, &st));
        int cancelled = 1;
        MPI_OK(MPI_Test_cancelled(&st, &cancelled));
        CHECK(!cancelled, "a received %c send of %d ints says cancelled", mode, len);
        free(a);
    } else if (t_rank == 1) {
        int *in = calloc((size_t)len, sizeof(int)), done = 1;
        MPI_Status st;
        MPI_OK(MPI_Recv(in, len, MPI_INT, 0, tag, MPI_COMM_WORLD, &st));
        check_ints(in, len, 3, "a matched send");
        MPI_OK(MPI_Send(&done, 1, MPI_INT, 0, tag + 1, MPI_COMM_WORLD));
        free(in);
    }
    t_sync();
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_begin("cancel-eager-send");
    for (int i = 0; i < 20; i++)
        one(4, 10);
    t_begin("cancel-rendezvous-send");
    for (int i = 0; i < 5; i++)
        one(1 << 18, 20);
    if (t_size >= 2) {
        t_begin("cancel-unmatched-eager-isend"); /* complete at once, yet not handed back */
        unmatched('i', 4, 29);
        unmatched('i', 1000, 28);
        t_begin("cancel-unmatched-issend");
        unmatched('s', 4, 30);
        t_begin("cancel-unmatched-rendezvous");
        unmatched('i', 1 << 18, 31);
        t_begin("cancel-unmatched-rendezvous-ssend");
        unmatched('s', 1 << 18, 32);
        t_begin("cancel-persistent");
        unmatched('p', 4, 33);
        unmatched('p', 1 << 18, 34);
        unmatched('q', 4, 35);
        unmatched('q', 1 << 18, 36);
        t_begin("cancel-matched");
        matched('s', 4, 40);
        matched('i', 4, 42);
        matched('s', 1 << 18, 44);
        matched('i', 1 << 18, 46);
    }
    t_finish();
    if (t_rank == 0)
        printf("p2p_cancel_send: OK\n");
    return 0;
}
