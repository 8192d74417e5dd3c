/*
 * Test program for the launcher's dynamic-process upcalls: a plain PMIx
 * client (no MPI) that spawns copies of itself and checks what the server
 * says about them, so the launcher side is tested on its own.
 *
 * Usage: pmix_spawn [N [host]]   (other arguments after them are ignored: markers)
 * Parent job: rank 0 spawns N children (pmix_spawn child ...) and prints
 * "spawn N ms T"; every parent rank connects with the children's namespace;
 * rank 0 publishes "rdmpi-test-port"; the program checks MPI_UNIVERSE_SIZE's
 * source (PMIX_UNIV_SIZE >= the job's size). With a host argument rank 0
 * asks for that host and expects a refusal (prints "spawn refused: ...").
 * Children: check PMIX_PARENT_ID names the spawner and the job size is N,
 * see the argv they were given, connect, look up the published name, and
 * print "child R/N ok". Every failure exits non-zero with a message.
 */
#define _GNU_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;

static void fail(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "%s.%u: %s: %s\n", me.nspace, me.rank, what, PMIx_Error_string(rc));
    exit(3);
}

static uint32_t get_u32(const char *nspace, pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    uint32_t out;

    PMIX_LOAD_PROCID(&p, nspace, rank);
    if ((rc = PMIx_Get(&p, key, NULL, 0, &v)) != PMIX_SUCCESS)
        fail(key, rc);
    if (v->type != PMIX_UINT32)
        fail(key, PMIX_ERR_TYPE_MISMATCH);
    out = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return out;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* SPAWN_TEST_NO_NAMES: leave the name service out, keep the rest. */
static int use_names(void)
{
    return !getenv("SPAWN_TEST_NO_NAMES");
}

static void connect_with(const char *other)
{
    pmix_proc_t procs[2];
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&procs[0], me.nspace, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&procs[1], other, PMIX_RANK_WILDCARD);
    if ((rc = PMIx_Connect(procs, 2, NULL, 0)) != PMIX_SUCCESS)
        fail("PMIx_Connect", rc);
}

static int child(int argc, char **argv)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    pmix_pdata_t pd;
    uint32_t n;

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if ((rc = PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v)) != PMIX_SUCCESS)
        fail("PMIX_PARENT_ID", rc);
    if (v->type != PMIX_PROC || v->data.proc->rank != 0)
        fail("PMIX_PARENT_ID is not the spawner", PMIX_ERR_BAD_PARAM);
    char parent[PMIX_MAX_NSLEN + 1];
    snprintf(parent, sizeof(parent), "%s", v->data.proc->nspace);
    PMIX_VALUE_RELEASE(v);
    n = get_u32(me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    if (argc < 3 || strcmp(argv[2], "arg-two") || (int)n != atoi(argv[3]))
        fail("argv or job size", PMIX_ERR_BAD_PARAM);
    if (!getenv("SPAWN_TEST_ENV") || strcmp(getenv("SPAWN_TEST_ENV"), "yes"))
        fail("the environment given to the spawn is missing", PMIX_ERR_BAD_PARAM);
    if (getenv("SPAWN_TEST_FAIL")) /* inherited from the parents' environment */
        fail("asked to fail (SPAWN_TEST_FAIL)", PMIX_ERROR);
    connect_with(parent);
    /* The parents' job size is readable once connected. */
    if (get_u32(parent, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE) < 1)
        fail("parent job size", PMIX_ERR_BAD_PARAM);
    if (!use_names()) {
        printf("child %u/%u ok\n", me.rank, n);
        return 0;
    }
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, "rdmpi-test-port");
    for (int tries = 0; (rc = PMIx_Lookup(&pd, 1, NULL, 0)) != PMIX_SUCCESS; tries++) {
        if (tries > 200)
            fail("PMIx_Lookup", rc);
        usleep(10000);
    }
    if (pd.value.type != PMIX_STRING || strcmp(pd.value.data.string, "port-of-parent"))
        fail("looked-up value", PMIX_ERR_BAD_PARAM);
    PMIX_PDATA_DESTRUCT(&pd);
    connect_with(parent); /* the parents' rank 0 unpublishes after this */
    printf("child %u/%u ok\n", me.rank, n);
    return 0;
}

int main(int argc, char **argv)
{
    pmix_status_t rc;
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    int n = argc > 1 ? atoi(argv[1]) : 2;
    char nspace[PMIX_MAX_NSLEN + 1] = "";

    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
        fail("PMIx_Init", rc);
    if (argc > 1 && !strcmp(argv[1], "child"))
        return child(argc, argv) || PMIx_Finalize(NULL, 0) != PMIX_SUCCESS;

    uint32_t size = get_u32(me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    uint32_t univ = get_u32(me.nspace, PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE);
    if (univ < size)
        fail("PMIX_UNIV_SIZE below the job size", PMIX_ERR_BAD_PARAM);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v) == PMIX_SUCCESS)
        fail("a job started by the launcher has a parent", PMIX_ERR_BAD_PARAM);

    if (me.rank == 0) {
        pmix_app_t app;
        pmix_info_t hinfo;
        char count[16], self[4096];
        char *cargv[] = {argv[0], "child", "arg-two", count, NULL};
        char *cenv[] = {"SPAWN_TEST_ENV=yes", NULL};
        ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

        if (len <= 0)
            fail("readlink /proc/self/exe", PMIX_ERROR);
        self[len] = '\0';
        snprintf(count, sizeof(count), "%d", n);
        PMIX_APP_CONSTRUCT(&app);
        app.cmd = self;
        app.argv = cargv;
        app.env = cenv;
        app.maxprocs = n;
        if (argc > 2 && strcmp(argv[2], "-")) {
            PMIX_INFO_LOAD(&hinfo, PMIX_HOST, argv[2], PMIX_STRING);
            app.info = &hinfo;
            app.ninfo = 1;
        }
        double t0 = now();
        rc = PMIx_Spawn(NULL, 0, &app, 1, nspace);
        double t1 = now();
        app.cmd = NULL, app.argv = NULL, app.env = NULL, app.info = NULL; /* not ours to free */
        if (argc > 2 && strcmp(argv[2], "-")) {
            if (rc == PMIX_SUCCESS)
                fail("spawn on a host that is not the launcher's succeeded", PMIX_ERROR);
            printf("spawn refused: %s\n", PMIx_Error_string(rc));
            PMIx_Finalize(NULL, 0);
            return 0;
        }
        if (rc != PMIX_SUCCESS)
            fail("PMIx_Spawn", rc);
        printf("spawn %d ms %.1f\n", n, (t1 - t0) * 1e3);
        pmix_info_t pub;
        PMIX_INFO_LOAD(&pub, "rdmpi-test-port", "port-of-parent", PMIX_STRING);
        if (use_names() && (rc = PMIx_Publish(&pub, 1)) != PMIX_SUCCESS)
            fail("PMIx_Publish", rc);
        PMIX_INFO_DESTRUCT(&pub);
    }
    /* Every parent learns the children's namespace from rank 0 (as MPI_Comm_spawn's root
     * tells its communicator). */
    pmix_info_t info;
    bool collect = true;
    if (me.rank == 0) {
        pmix_value_t val;
        PMIX_VALUE_LOAD(&val, nspace, PMIX_STRING);
        if ((rc = PMIx_Put(PMIX_GLOBAL, "rdmpi-test-child-ns", &val)) != PMIX_SUCCESS ||
            (rc = PMIx_Commit()) != PMIX_SUCCESS)
            fail("PMIx_Put", rc);
        PMIX_VALUE_DESTRUCT(&val);
    }
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if ((rc = PMIx_Fence(NULL, 0, &info, 1)) != PMIX_SUCCESS)
        fail("PMIx_Fence", rc);
    if (me.rank != 0) {
        pmix_proc_t zero;
        PMIX_LOAD_PROCID(&zero, me.nspace, 0);
        if ((rc = PMIx_Get(&zero, "rdmpi-test-child-ns", NULL, 0, &v)) != PMIX_SUCCESS)
            fail("child namespace", rc);
        snprintf(nspace, sizeof(nspace), "%s", v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    connect_with(nspace);
    if ((int)get_u32(nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE) != n)
        fail("the children's job size", PMIX_ERR_BAD_PARAM);
    if (!use_names()) {
        /* nothing more */
    } else if (me.rank == 0) {
        /* Unpublish only after the children found it: they connected, then looked up;
         * wait for them through a second connect. */
        connect_with(nspace);
        char *keys[] = {"rdmpi-test-port", NULL};
        if ((rc = PMIx_Unpublish(keys, NULL, 0)) != PMIX_SUCCESS)
            fail("PMIx_Unpublish", rc);
    } else {
        connect_with(nspace);
    }
    printf("parent %u/%u ok\n", me.rank, size);
    PMIx_Finalize(NULL, 0);
    return 0;
}
