/*
 * MPI_Publish_name, MPI_Lookup_name and MPI_Unpublish_name (MPI 3.1, 10.4.4): any port
 * string is stored and found again by every rank (one that MPI_Open_port made, and one it
 * did not: "otherhost:122", as MPICH's namepub uses); a name is published once; only the
 * exact pair (service and port) is unpublished, anything else is MPI_ERR_SERVICE; looking up
 * a name that is not (or no longer) published is MPI_ERR_NAME. Standard MPI only.
 */
#include <unistd.h>
#include "check.h"

#include <stdlib.h>

static int err_class(int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

/* Every rank finds service published as port. */
static void check_found(const char *service, const char *port)
{
    char got[MPI_MAX_PORT_NAME];
    memset(got, 0, sizeof(got));
    MPI_OK(MPI_Lookup_name(service, MPI_INFO_NULL, got));
    CHECK(!strcmp(got, port), "%s: looked up '%s', published '%s'", service, got, port);
}

static void check_absent(const char *service)
{
    char got[MPI_MAX_PORT_NAME];
    int cls = err_class(MPI_Lookup_name(service, MPI_INFO_NULL, got));
    CHECK(cls == MPI_ERR_NAME, "looking up %s: class %d, expected MPI_ERR_NAME", service, cls);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char service[64], other[64];
    /* names of this run only: other jobs of the same launcher must not see a stale one */
    snprintf(service, sizeof(service), "rdmpi-names-%d", (int)getpid());
    MPI_OK(MPI_Bcast(service, sizeof(service), MPI_CHAR, 0, MPI_COMM_WORLD));
    snprintf(other, sizeof(other), "%s-other", service);
    const char *fake = "otherhost:122";

    t_begin("unknown name");
    check_absent(other);

    t_begin("publish a port string not from MPI_Open_port");
    int rc = MPI_SUCCESS;
    if (t_rank == 0)
        rc = MPI_Publish_name(service, MPI_INFO_NULL, fake);
    MPI_OK(MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_OK(rc);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    check_found(service, fake);

    t_begin("publish twice");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == t_size - 1) {
        int cls = err_class(MPI_Publish_name(service, MPI_INFO_NULL, "elsewhere:1"));
        CHECK(cls == MPI_ERR_SERVICE, "a second publish of %s: class %d", service, cls);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    check_found(service, fake);

    t_begin("unpublish needs the exact pair");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == 0) {
        int cls = err_class(MPI_Unpublish_name(service, MPI_INFO_NULL, "otherhost:123"));
        CHECK(cls == MPI_ERR_SERVICE, "unpublish with another port: class %d", cls);
        cls = err_class(MPI_Unpublish_name(other, MPI_INFO_NULL, fake));
        CHECK(cls == MPI_ERR_SERVICE, "unpublish of a name never published: class %d", cls);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    check_found(service, fake);

    t_begin("unpublish");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == 0)
        MPI_OK(MPI_Unpublish_name(service, MPI_INFO_NULL, fake));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    check_absent(service);

    t_begin("a port of MPI_Open_port, published by the last rank");
    char port[MPI_MAX_PORT_NAME] = "";
    int last = t_size - 1;
    if (t_rank == last) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        MPI_OK(MPI_Publish_name(other, MPI_INFO_NULL, port));
    }
    MPI_OK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, last, MPI_COMM_WORLD));
    check_found(other, port);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == last) {
        MPI_OK(MPI_Unpublish_name(other, MPI_INFO_NULL, port));
        MPI_OK(MPI_Close_port(port));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    check_absent(other);
    t_finish();
    return 0;
}
