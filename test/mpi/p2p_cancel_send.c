/*
 * p2p_cancel_send: MPI_Cancel on sends. MPI allows either outcome, but not
 * both: a cancelled send (MPI_Test_cancelled true) delivers nothing, one
 * that is not cancelled delivers its message intact. Each rank cancels a
 * small (eager) and a large (rendezvous) send to its right neighbour, posts
 * the receive from its left one, waits for the send, tells the neighbour
 * the outcome on another tag, and the neighbour then either receives
 * exactly the message or cancels its receive, which must come back
 * cancelled and untouched. rdmpi never cancels sends (a documented
 * refusal, see MPI_Cancel in src/api/wait.c): under it the flag must be
 * false; other MPIs may cancel.
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
#ifdef RDMPI
    CHECK(!cancelled, "rdmpi cancelled a send of %d ints", len);
#endif
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

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_begin("cancel-eager-send");
    one(4, 10);
    t_begin("cancel-rendezvous-send");
    one(1 << 20, 20);
    t_finish();
    if (t_rank == 0)
        printf("p2p_cancel_send: OK\n");
    return 0;
}
