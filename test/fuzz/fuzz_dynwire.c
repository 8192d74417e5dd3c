/*
 * Fuzz target: the daemon tree's messages of spawned jobs (launcher/dynwire.c): SPAWN_REQ,
 * SPAWN_RESP, DYN_JOB, DYN_STARTED, DYN_EXIT, DYN_IO, NAME_REQ, NAME_RESP and the job index
 * in front of fences and direct modex.
 *
 * Input: one byte, the message (low 4 bits) and, for DYN_JOB, the run's node count (high
 * bits, 1..16), then the payload.
 * Properties of an accepted message: every count and string within its bound, argv with a
 * program, env entries NAME=value, a spawned job's ranks on nodes that exist and as many as
 * its applications ask for, names with non-empty distinct keys (values only to publish and in
 * a successful answer, which alone holds names) and valid publishers; encoded again it gives the very bytes it came from (one
 * encoding per message). A refused one leaves nothing allocated that the documented
 * _free does not release (LeakSanitizer checks).
 */
#include <string.h>
#include "fuzz.h"
#include "launcher/dynwire.h"

enum { T_SPAWN, T_RESP, T_JOB, T_STARTED, T_EXIT, T_IO, T_NAME_REQ, T_NAME_RESP, T_INDEX, T_COUNT };

static void check_apps(const struct launch_app *apps, int napps, int *total)
{
    *total = 0;
    FUZZ_CHECK(napps >= 1 && apps);
    for (int a = 0; a < napps; a++) {
        FUZZ_CHECK(apps[a].prog[0] && apps[a].argv && apps[a].argv[0] && apps[a].env);
        FUZZ_CHECK(apps[a].nprocs >= 1 && apps[a].nprocs <= LAUNCH_DYN_MAX_PROCS);
        FUZZ_CHECK(!apps[a].cwd[0] || apps[a].cwd[0] == '/');
        for (char **e = apps[a].env; *e; e++)
            FUZZ_CHECK((*e)[0] != '=' && strchr(*e, '='));
        *total += apps[a].nprocs;
    }
    FUZZ_CHECK(*total <= LAUNCH_DYN_MAX_PROCS);
}

static void check_names(const struct launch_dyn_name *v, uint32_t n, int values, int owners)
{
    FUZZ_CHECK(n <= LAUNCH_NAME_MAX && (n == 0) == (v == NULL));
    for (uint32_t i = 0; i < n; i++) {
        FUZZ_CHECK(v[i].key && v[i].key[0] && strlen(v[i].key) <= LAUNCH_NAME_KEY_MAX);
        FUZZ_CHECK(values ? v[i].value && strlen(v[i].value) <= LAUNCH_NAME_VALUE_MAX
                          : !v[i].value);
        FUZZ_CHECK(owners ? v[i].nspace[0] && v[i].rank < (1u << 30) : !v[i].nspace[0]);
        for (uint32_t k = 0; k < i; k++)
            FUZZ_CHECK(strcmp(v[k].key, v[i].key));
    }
}

static void same_bytes(const struct launch_buf *b, const uint8_t *p, size_t n)
{
    FUZZ_CHECK(!b->err && b->len == n && !memcmp(b->p, p, n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int type = data[0] & 15, nnodes = (data[0] >> 4) + 1, total;
    const char *p = (const char *)data + 1, *why;
    size_t n = size - 1;
    struct launch_buf b = { 0 };

    switch (type % T_COUNT) {
    case T_SPAWN: {
        struct launch_dyn_spawn_msg m;
        if (!launch_dyn_spawn_decode(p, n, &m, &why)) {
            check_apps(m.apps, m.napps, &total);
            FUZZ_CHECK(m.parent_nspace[0]);
            launch_dyn_spawn_encode(&b, &m);
            same_bytes(&b, data + 1, n);
        }
        launch_dyn_spawn_free(&m);
        break;
    }
    case T_RESP: {
        struct launch_dyn_resp_msg m;
        if (!launch_dyn_resp_decode(p, n, &m, &why)) {
            FUZZ_CHECK(m.status <= 0 && (m.status || m.nspace[0]));
            launch_dyn_resp_encode(&b, &m);
            same_bytes(&b, data + 1, n);
        }
        break;
    }
    case T_JOB: {
        struct launch_dyn_job_msg m;
        if (!launch_dyn_job_decode(p, n, nnodes, &m, &why)) {
            check_apps(m.apps, m.napps, &total);
            FUZZ_CHECK(m.index >= 1 && m.nspace[0] && m.parent_nspace[0] && m.nranks == total);
            for (int r = 0; r < m.nranks; r++)
                FUZZ_CHECK(m.node[r] < (uint32_t)nnodes);
            launch_dyn_job_encode(&b, &m);
            same_bytes(&b, data + 1, n);
        }
        launch_dyn_job_free(&m);
        break;
    }
    case T_STARTED: {
        struct launch_dyn_started_msg m;
        if (!launch_dyn_started_decode(p, n, &m, &why)) {
            FUZZ_CHECK(m.index >= 1 && m.code <= 255);
            launch_dyn_started_encode(&b, &m);
            same_bytes(&b, data + 1, n);
        }
        break;
    }
    case T_EXIT: {
        struct launch_dyn_exit_msg m;
        if (!launch_dyn_exit_decode(p, n, &m, &why)) {
            FUZZ_CHECK(m.index >= 1 && m.rank < LAUNCH_DYN_MAX_PROCS && m.connected <= 1 &&
                       m.finalized <= 1);
            launch_dyn_exit_encode(&b, &m);
            same_bytes(&b, data + 1, n);
        }
        break;
    }
    case T_IO: {
        struct launch_dyn_io_msg m;
        if (!launch_dyn_io_decode(p, n, &m, &why)) {
            FUZZ_CHECK(m.index >= 1 && m.is_err <= 1 && m.data >= p && m.data + m.len <= p + n);
            launch_dyn_io_encode(&b, &m);
            same_bytes(&b, data + 1, n);
        }
        break;
    }
    case T_NAME_REQ: {
        struct launch_dyn_name_req_msg m;
        if (!launch_dyn_name_req_decode(p, n, &m, &why)) {
            FUZZ_CHECK(m.op >= LAUNCH_NAME_PUBLISH && m.op <= LAUNCH_NAME_UNPUBLISH &&
                       m.nspace[0] && m.rank < (1u << 30) && m.n >= 1);
            check_names(m.names, m.n, m.op == LAUNCH_NAME_PUBLISH, 0);
            launch_dyn_name_req_encode(&b, &m);
            same_bytes(&b, data + 1, n);
        }
        launch_dyn_names_free(m.names, m.n);
        break;
    }
    case T_NAME_RESP: {
        struct launch_dyn_name_resp_msg m;
        if (!launch_dyn_name_resp_decode(p, n, &m, &why)) {
            FUZZ_CHECK(m.status <= 0 && (m.status == 0 || m.n == 0));
            check_names(m.names, m.n, 1, 1);
            launch_dyn_name_resp_encode(&b, &m);
            same_bytes(&b, data + 1, n);
        }
        launch_dyn_names_free(m.names, m.n);
        break;
    }
    default: {
        uint32_t index;
        if (!launch_dyn_index_decode(p, n, &index, &why))
            FUZZ_CHECK(n >= 4 && index <= (1u << 20));
        break;
    }
    }
    lbuf_free(&b);
    return 0;
}

#ifdef FUZZ_SEEDS
static void seed(const char *name, int type, int nnodes, const struct launch_buf *b)
{
    struct launch_buf s = { 0 };
    lbuf_raw(&s, &(char){ (char)(type | (nnodes - 1) << 4) }, 1);
    lbuf_raw(&s, b->p, b->len);
    if (s.err)
        abort();
    fuzz_seed(name, s.p, s.len);
    lbuf_free(&s);
}

void fuzz_make_seeds(void)
{
    char *argv1[] = { "./child", "child-arg", "", NULL }, *argv2[] = { "/bin/true", NULL };
    char *env1[] = { "A=1", "EMPTY=", NULL }, *env0[] = { NULL };
    struct launch_app apps[2] = { { .argv = argv1, .env = env1, .nprocs = 2 },
                                  { .argv = argv2, .env = env0, .nprocs = 1,
                                    .path = "/opt/bin:/usr/bin", .host = "node2,node3" } };
    uint32_t nodes[3] = { 0, 1, 1 };
    struct launch_buf b = { 0 };
    snprintf(apps[0].prog, sizeof(apps[0].prog), "child");
    snprintf(apps[1].prog, sizeof(apps[1].prog), "true");
    snprintf(apps[1].cwd, sizeof(apps[1].cwd), "/tmp");

    struct launch_dyn_spawn_msg sp = { .id = 7, .parent_rank = 3, .apps = apps, .napps = 2 };
    snprintf(sp.parent_nspace, sizeof(sp.parent_nspace), "rdmpi-4242");
    launch_dyn_spawn_encode(&b, &sp);
    seed("spawn-two-apps", T_SPAWN, 1, &b);
    lbuf_free(&b);

    struct launch_dyn_resp_msg ok = { .id = 7 }, bad = { .id = 8, .status = -46 };
    snprintf(ok.nspace, sizeof(ok.nspace), "rdmpi-4242-s0");
    snprintf(bad.why, sizeof(bad.why), "cannot spawn 'x' on host node2: not found");
    launch_dyn_resp_encode(&b, &ok);
    seed("resp-ok", T_RESP, 1, &b);
    lbuf_free(&b);
    launch_dyn_resp_encode(&b, &bad);
    seed("resp-failed", T_RESP, 1, &b);
    lbuf_free(&b);

    struct launch_dyn_job_msg job = { .index = 1, .ubase = 4, .parent_rank = 0, .apps = apps,
                                      .napps = 2, .nranks = 3, .node = nodes };
    snprintf(job.nspace, sizeof(job.nspace), "rdmpi-4242-s0");
    snprintf(job.parent_nspace, sizeof(job.parent_nspace), "rdmpi-4242");
    launch_dyn_job_encode(&b, &job);
    seed("job-two-nodes", T_JOB, 2, &b);
    seed("job-node-missing", T_JOB, 1, &b); /* refused: node 1 of a one-node run */
    lbuf_free(&b);

    struct launch_dyn_started_msg st = { .index = 1, .code = 127 };
    snprintf(st.why, sizeof(st.why), "cannot spawn 'x' on host node2: not found");
    launch_dyn_started_encode(&b, &st);
    seed("started-failed", T_STARTED, 1, &b);
    lbuf_free(&b);

    struct launch_dyn_exit_msg ex = { .index = 2, .rank = 1, .status = 256, .connected = 1 };
    launch_dyn_exit_encode(&b, &ex);
    seed("exit", T_EXIT, 1, &b);
    lbuf_free(&b);

    struct launch_dyn_io_msg io = { .index = 1, .rank = 2, .is_err = 1, .data = "hello\n",
                                    .len = 6 };
    launch_dyn_io_encode(&b, &io);
    seed("io", T_IO, 1, &b);
    lbuf_free(&b);

    struct launch_dyn_name pub[2] = { { .key = "mpi-svc:a", .value = "rdmpi-port3/1/x" },
                                      { .key = "k2", .value = "" } };
    struct launch_dyn_name_req_msg nq = { .id = 3, .op = LAUNCH_NAME_PUBLISH, .rank = 1,
                                          .n = 2, .names = pub };
    snprintf(nq.nspace, sizeof(nq.nspace), "rdmpi-4242-s0");
    launch_dyn_name_req_encode(&b, &nq);
    seed("name-publish", T_NAME_REQ, 1, &b);
    lbuf_free(&b);
    struct launch_dyn_name keys[2] = { { .key = "mpi-svc:a" }, { .key = "mpi-svc:b" } };
    nq.op = LAUNCH_NAME_LOOKUP;
    nq.names = keys;
    launch_dyn_name_req_encode(&b, &nq);
    seed("name-lookup", T_NAME_REQ, 1, &b);
    lbuf_free(&b);
    keys[1].key = "mpi-svc:a"; /* refused: a key twice */
    nq.op = LAUNCH_NAME_UNPUBLISH;
    launch_dyn_name_req_encode(&b, &nq);
    seed("name-unpublish-twice", T_NAME_REQ, 1, &b);
    lbuf_free(&b);
    struct launch_dyn_name found[1] = { { .key = "mpi-svc:a", .value = "rdmpi-port3/1/x",
                                          .rank = 1 } };
    snprintf(found[0].nspace, sizeof(found[0].nspace), "rdmpi-4242");
    struct launch_dyn_name_resp_msg nr = { .id = 3, .n = 1, .names = found };
    launch_dyn_name_resp_encode(&b, &nr);
    seed("name-found", T_NAME_RESP, 1, &b);
    lbuf_free(&b);
    struct launch_dyn_name_resp_msg nf = { .id = 4, .status = -46 };
    launch_dyn_name_resp_encode(&b, &nf);
    seed("name-not-found", T_NAME_RESP, 1, &b);
    lbuf_free(&b);

    lbuf_u32(&b, 3);
    lbuf_str(&b, "*");
    seed("index-fence", T_INDEX, 1, &b);
    lbuf_free(&b);
    static const char cut[] = "\x07\x00\x00\x00\x0arpmi";
    fuzz_seed("truncated", cut, sizeof(cut) - 1);
}
#endif
