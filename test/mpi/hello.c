/*
 * The first program a user runs, checked: every rank's rank and size are in range and agree
 * with every other rank's (each rank's identity travels around a ring of point-to-point
 * messages, so rank 0 sees the ranks 0..N-1 exactly once, in order, each with the same size),
 * MPI_Get_processor_name gives a non-empty name whose length is the one returned, the
 * launcher's local rank count (MPI_LOCALNRANKS, when it sets one) fits in the job, and a
 * message from each rank to itself arrives. Rank 0 then prints one line per rank:
 * "hello from rank R of N on HOST". Standard MPI only.
 */
#include <stdlib.h>
#include "check.h"

typedef struct {
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
} ident_t;

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    ident_t me;
    memset(&me, 0, sizeof(me));
    t_begin("identity");
    int flag = 0;
    MPI_Initialized(&flag);
    CHECK(flag, "MPI_Initialized says no after MPI_Init");
    CHECK(t_size >= 1 && t_rank >= 0 && t_rank < t_size, "rank %d of size %d", t_rank, t_size);
    me.rank = t_rank;
    me.size = t_size;
    me.len = -1;
    MPI_OK(MPI_Get_processor_name(me.host, &me.len));
    CHECK(me.len > 0 && me.len < MPI_MAX_PROCESSOR_NAME && (size_t)me.len == strlen(me.host),
          "processor name \"%s\" of length %d", me.host, me.len);
    const char *lsize = getenv("MPI_LOCALNRANKS");
    if (lsize)
        CHECK(atoi(lsize) >= 1 && atoi(lsize) <= t_size, "MPI_LOCALNRANKS=%s in a job of %d",
              lsize, t_size);

    t_begin("self");
    ident_t back;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(&me, (int)sizeof(me), MPI_BYTE, t_rank, 7, &back, (int)sizeof(back),
                        MPI_BYTE, t_rank, 7, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, t_rank, 7, MPI_BYTE, sizeof(me));
    CHECK(memcmp(&me, &back, sizeof(me)) == 0, "a message to itself came back different");

    /* The ring: rank r receives the identities of 0..r-1 from r-1, adds its own, passes them on;
     * rank 0 gets all of them back from N-1. */
    t_begin("ring");
    ident_t *all = calloc((size_t)t_size, sizeof(*all));
    CHECK(all, "out of memory");
    int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size;
    int bytes = t_size * (int)sizeof(ident_t);
    if (t_rank != 0) {
        MPI_OK(MPI_Recv(all, bytes, MPI_BYTE, prev, 1, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, prev, 1, MPI_BYTE, t_rank * (int)sizeof(ident_t));
    }
    all[t_rank] = me;
    if (t_size > 1)
        MPI_OK(MPI_Send(all, (t_rank + 1) * (int)sizeof(ident_t), MPI_BYTE, next, 1,
                        MPI_COMM_WORLD));
    if (t_rank == 0 && t_size > 1) {
        MPI_OK(MPI_Recv(all, bytes, MPI_BYTE, prev, 1, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, prev, 1, MPI_BYTE, bytes);
    }
    if (t_rank == 0) {
        for (int r = 0; r < t_size; r++) {
            CHECK(all[r].rank == r && all[r].size == t_size,
                  "entry %d of the ring says rank %d of %d (expected rank %d of %d)", r,
                  all[r].rank, all[r].size, r, t_size);
            CHECK(all[r].len > 0 && all[r].len < MPI_MAX_PROCESSOR_NAME &&
                      all[r].host[all[r].len] == '\0' && (size_t)all[r].len == strlen(all[r].host),
                  "rank %d's processor name is bad", r);
        }
        for (int r = 0; r < t_size; r++)
            printf("hello from rank %d of %d on %s\n", r, t_size, all[r].host);
        fflush(stdout);
    }
    free(all);
    t_finish();
    return 0;
}
