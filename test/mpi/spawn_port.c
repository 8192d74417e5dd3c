/*
 * Ports and names between two jobs: the parents open a port and publish it under a service
 * name, then spawn children; the children find the port with MPI_Lookup_name and
 * MPI_Comm_connect to it while the parents MPI_Comm_accept on it. Over the new
 * intercommunicator each side's rank 0 sends the other side's ranks their numbers. Then
 * the name is unpublished (a second lookup fails with MPI_ERR_NAME) and the port closed.
 * Standard MPI only (RDMPI_TEST_PEER_TRANSPORT: the transport between the jobs, checked
 * with rdmpi's extension, check.h).
 */
#include "check.h"

#define SERVICE "rdmpi-test-spawn-port"

static void ping(MPI_Comm inter, int side)
{
    int lrank, rsize;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    if (lrank == 0)
        for (int k = 0; k < rsize; k++) {
            int v = 100 * side + k;
            MPI_OK(MPI_Send(&v, 1, MPI_INT, k, 9, inter));
        }
    int got = -1;
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE));
    CHECK(got == 100 * !side + lrank, "got %d", got);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm parent, inter, conn;
    char port[MPI_MAX_PORT_NAME];
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        t_begin("lookup");
        MPI_OK(MPI_Lookup_name(SERVICE, MPI_INFO_NULL, port));
        t_begin("connect");
        MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &conn));
        int rsize;
        MPI_Comm_remote_size(conn, &rsize);
        t_check_remote_transport(conn, 0);
        ping(conn, 0);
        t_begin("transport");
        t_check_inter_transports(conn);
        MPI_OK(MPI_Comm_disconnect(&conn));
        MPI_OK(MPI_Comm_disconnect(&parent));
        t_finish();
        return 0;
    }
    t_begin("open_port");
    int pub = MPI_SUCCESS;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (t_rank == 0) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        pub = MPI_Publish_name(SERVICE, MPI_INFO_NULL, port);
    }
    MPI_OK(MPI_Bcast(&pub, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_OK(pub);
    t_begin("spawn");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            MPI_ERRCODES_IGNORE);
    MPI_OK(rc);
    t_begin("accept");
    MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &conn));
    int rsize;
    MPI_Comm_remote_size(conn, &rsize);
    CHECK(rsize == 2, "accepted a group of %d", rsize);
    t_check_remote_transport(conn, 1);
    ping(conn, 1);
    t_begin("transport"); /* between jobs that met through a port: as between spawned ones */
    t_check_inter_transports(conn);
    MPI_OK(MPI_Comm_disconnect(&conn));
    MPI_OK(MPI_Comm_disconnect(&inter));
    if (t_rank == 0) {
        t_begin("unpublish");
        MPI_OK(MPI_Unpublish_name(SERVICE, MPI_INFO_NULL, port));
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        char again[MPI_MAX_PORT_NAME];
        int rc = MPI_Lookup_name(SERVICE, MPI_INFO_NULL, again), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_NAME, "a lookup after unpublishing gave class %d", cls);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_OK(MPI_Close_port(port));
    }
    t_finish();
    return 0;
}
