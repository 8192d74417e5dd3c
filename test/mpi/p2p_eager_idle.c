/*
 * Within a node a message above the eager limit goes eagerly when the ring to its receiver
 * is drained (shm's eager_idle_limit, transports/shm/shm_config.c), and by rendezvous when
 * earlier messages still wait there. Counted with rdmpi's MPI_T counters: a 64 KiB ping-pong
 * (each message alone) is all eager; a window of 64 KiB sends to a receiver that is busy
 * computing (no MPI call, so nothing drains the ring) is at most one eager message, the
 * rest rendezvous reads. Every byte is checked either way. Only between two ranks on shm with
 * the automatic eager limit (RDMPI_SHM_EAGER_LIMIT unset): elsewhere it says SKIP.
 */
#include "check.h"

#define LEN 65536
#define PINGS 20
#define WINDOW 16

static MPI_T_pvar_session sess;

static MPI_T_pvar_handle counter(const char *name)
{
    int i, count;
    MPI_T_pvar_handle h;
    MPI_OK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &i));
    MPI_OK(MPI_T_pvar_handle_alloc(sess, i, NULL, &h, &count));
    CHECK(count == 1, "%s: count %d", name, count);
    MPI_OK(MPI_T_pvar_start(sess, h)); /* counters count only while started */
    return h;
}

static unsigned long long rd(MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    MPI_OK(MPI_T_pvar_read(sess, h, &v));
    return v;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int provided;
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    char got[64];
    if (t_size != 2 || getenv("RDMPI_SHM_EAGER_LIMIT") || !t_transport_is(t_rank ^ 1, "shm", got)) {
        MPI_T_finalize();
        t_skip("needs 2 ranks on shm with the automatic eager limit");
    }
    int peer = t_rank ^ 1;
    MPI_OK(MPI_T_pvar_session_create(&sess));
    MPI_T_pvar_handle eager = counter("rdmpi_p2p_eager_sent");
    MPI_T_pvar_handle rndv = counter("rdmpi_p2p_rndv_read_sent");
    unsigned char *sbuf = malloc((size_t)LEN * WINDOW), *rbuf = malloc((size_t)LEN * WINDOW);
    CHECK(sbuf && rbuf, "out of memory");

    t_begin("ping-pong");
    t_fill(sbuf, t_rank, LEN);
    t_sync();
    unsigned long long e0 = 0, r0 = 0;
    for (int i = 0; i <= PINGS; i++) {
        /* from the second round on: the first may find the barrier's last message still in
         * the ring */
        if (i == 1) {
            e0 = rd(eager);
            r0 = rd(rndv);
        }
        MPI_Status st;
        if (t_rank == 0) {
            MPI_OK(MPI_Send(sbuf, LEN, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(rbuf, LEN, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
        } else {
            MPI_OK(MPI_Recv(rbuf, LEN, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Send(sbuf, LEN, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
        }
        CHECK(t_verify(rbuf, peer, LEN) == LEN, "round %d: byte %zu differs", i,
              t_verify(rbuf, peer, LEN));
    }
    unsigned long long e1 = rd(eager), r1 = rd(rndv);
    CHECK(e1 - e0 == PINGS && r1 == r0,
          "%d lone 64 KiB sends: %llu eager, %llu rendezvous reads (want all eager)", PINGS,
          e1 - e0, r1 - r0);

    t_begin("window");
    t_sync();
    if (t_rank == 0) {
        MPI_Request req[WINDOW];
        e1 = rd(eager); /* the barrier's messages are counted too */
        r1 = rd(rndv);
        for (int k = 0; k < WINDOW; k++) {
            t_fill(sbuf + (size_t)k * LEN, 100 + k, LEN);
            MPI_OK(MPI_Isend(sbuf + (size_t)k * LEN, LEN, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
                             &req[k]));
        }
        unsigned long long e2 = rd(eager), r2 = rd(rndv);
        MPI_OK(MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE));
        /* the first finds the ring drained, unless the barrier's last message is still there */
        CHECK(e2 - e1 <= 1 && r2 - r1 >= WINDOW - 1 && e2 - e1 + r2 - r1 == WINDOW,
              "a window of %d to a busy receiver: %llu eager, %llu rendezvous reads (want at "
              "most 1 eager, the rest rendezvous)", WINDOW, e2 - e1, r2 - r1);
    } else {
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 0.1)
            ; /* computing: no MPI call drains the ring */
        for (int k = 0; k < WINDOW; k++) {
            MPI_Status st;
            MPI_OK(MPI_Recv(rbuf, LEN, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &st));
            size_t bad = t_verify(rbuf, 100 + k, LEN);
            CHECK(bad == LEN, "window message %d: byte %zu differs", k, bad);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_T_pvar_session_free(&sess);
    MPI_T_finalize();
    t_finish();
    return 0;
}
