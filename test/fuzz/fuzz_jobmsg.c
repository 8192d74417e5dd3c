/*
 * Fuzz target: the LAUNCH message a daemon unpacks (launcher/jobmsg.c).
 *
 * Input: one byte, the daemon's tree member (0..7; 0, rdmpirun, is refused),
 * then the payload.
 * Properties of an accepted message: this member has a node, every rank's
 * node exists, the local counts add up, argv has a program and both string
 * lists are NULL-terminated; packed again by launch_jobmsg_pack and
 * unpacked, it gives the same job (the two functions agree on the format).
 * A refused one must leave nothing allocated that the documented cleanup
 * does not free (LeakSanitizer checks).
 */
#include <string.h>
#include "fuzz.h"
#include "launcher/jobmsg.h"

static void job_free(struct launch_job *job, struct launch_jobmsg *jm)
{
    free(job->nodes);
    free(job->ranks);
    launch_jobmsg_free(jm);
}

static void check_job(const struct launch_job *job, const struct launch_jobmsg *jm, int me)
{
    int nlocal = 0, *count = calloc((size_t)job->nnodes, sizeof(int));
    FUZZ_CHECK(count);
    FUZZ_CHECK(job->nnodes > 0 && job->nranks > 0 && job->opts == &jm->opts);
    FUZZ_CHECK(job->my_node >= 0 && job->my_node < job->nnodes);
    FUZZ_CHECK(job->nodes[job->my_node].vpid == me);
    for (int r = 0; r < job->nranks; r++) {
        const struct launch_rank *rk = &job->ranks[r];
        FUZZ_CHECK(rk->node >= 0 && rk->node < job->nnodes);
        FUZZ_CHECK(rk->local_rank == count[rk->node]++);
        nlocal += rk->local;
    }
    for (int i = 0; i < job->nnodes; i++) {
        FUZZ_CHECK(job->nodes[i].nranks == count[i]);
        FUZZ_CHECK(job->nodes[i].machine >= 0 && job->nodes[i].machine < job->nnodes);
        FUZZ_CHECK(job->nodes[i].slots >= 0 && job->nodes[i].slots <= LAUNCH_MAX_SLOTS);
    }
    FUZZ_CHECK(nlocal == job->nlocal && nlocal == count[job->my_node]);
    FUZZ_CHECK(jm->argv && jm->argv[0] && jm->cwd);
    int nexp = 0;
    while (jm->exports[nexp])
        nexp++;
    FUZZ_CHECK(nexp == jm->opts.nexports);
    free(count);
}

static int same_job(const struct launch_job *a, const struct launch_jobmsg *ja,
                    const struct launch_job *b, const struct launch_jobmsg *jb)
{
    if (strcmp(a->nspace, b->nspace) || a->nnodes != b->nnodes || a->nranks != b->nranks ||
        a->my_node != b->my_node || ja->opts.tag_output != jb->opts.tag_output ||
        ja->opts.report_bindings != jb->opts.report_bindings || ja->opts.bind != jb->opts.bind ||
        ja->opts.nexports != jb->opts.nexports)
        return 0;
    for (int i = 0; i < a->nnodes; i++)
        if (strcmp(a->nodes[i].host, b->nodes[i].host) || a->nodes[i].vpid != b->nodes[i].vpid ||
            a->nodes[i].machine != b->nodes[i].machine || a->nodes[i].slots != b->nodes[i].slots)
            return 0;
    for (int r = 0; r < a->nranks; r++)
        if (a->ranks[r].node != b->ranks[r].node)
            return 0;
    for (int i = 0; ja->argv[i] || jb->argv[i]; i++)
        if (!ja->argv[i] || !jb->argv[i] || strcmp(ja->argv[i], jb->argv[i]))
            return 0;
    for (int i = 0; i < ja->opts.nexports; i++)
        if (strcmp(ja->exports[i], jb->exports[i]))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int me = data[0] & 7;
    struct launch_job job = { 0 }, again = { 0 };
    struct launch_jobmsg jm, jm2;
    if (launch_jobmsg_unpack((const char *)data + 1, size - 1, me, &job, &jm) != 0) {
        job_free(&job, &jm);
        return 0;
    }
    check_job(&job, &jm, me);
    /* Exports without '=' are looked up in rdmpirun's environment when
     * packed, so only messages without them survive a round trip as is. */
    int plain = 1;
    for (int i = 0; i < jm.opts.nexports; i++)
        plain &= strchr(jm.exports[i], '=') != NULL;
    struct launch_buf b = { 0 };
    if (plain && launch_jobmsg_pack(&job, &b) == 0) {
        FUZZ_CHECK(launch_jobmsg_unpack(b.p, b.len, me, &again, &jm2) == 0);
        FUZZ_CHECK(same_job(&job, &jm, &again, &jm2));
        job_free(&again, &jm2);
    }
    lbuf_free(&b);
    job_free(&job, &jm);
    return 0;
}

#ifdef FUZZ_SEEDS
/* A job as rdmpirun builds it: nodes, a rank table, options. */
static void seed_job(const char *name, int me, int nnodes, int nranks, int by_node, char **argv,
                     const char **exports, int nexports)
{
    struct launch_opts o = { 0 };
    struct launch_job job = { 0 };
    struct launch_node nodes[8] = { { .slots = 0 } };
    struct launch_rank ranks[64];
    o.tag_output = nexports & 1;
    o.bind = LAUNCH_BIND_CORE;
    o.argv = argv;
    o.exports = exports;
    o.nexports = nexports;
    job.opts = &o;
    snprintf(job.nspace, sizeof(job.nspace), "rdmpi-4242");
    job.nnodes = nnodes;
    job.nodes = nodes;
    job.nranks = nranks;
    job.ranks = ranks;
    for (int i = 0; i < nnodes; i++) {
        snprintf(nodes[i].host, sizeof(nodes[i].host), "node%d.example", i);
        nodes[i].vpid = i;
        nodes[i].machine = i / 2;
        nodes[i].slots = 2 + i;
    }
    for (int r = 0; r < nranks; r++)
        ranks[r].node = by_node ? r % nnodes : r * nnodes / nranks;
    struct launch_buf b = { 0 };
    lbuf_raw(&b, &(char){ (char)me }, 1);
    if (launch_jobmsg_pack(&job, &b) != 0)
        abort();
    fuzz_seed(name, b.p, b.len);
    lbuf_free(&b);
}

void fuzz_make_seeds(void)
{
    char *argv1[] = { "./a.out", NULL };
    char *argv3[] = { "/usr/bin/env", "-i", "prog", NULL };
    const char *exp[] = { "RDMPI_LOG_LEVEL=debug", "PATH=/bin", "EMPTY=" };
    seed_job("two-nodes", 1, 2, 4, 0, argv1, NULL, 0);
    seed_job("four-nodes-exports", 3, 4, 9, 1, argv3, exp, 3);
    seed_job("one-rank", 1, 2, 1, 0, argv1, exp, 1); /* member 1 runs no rank */
    seed_job("rdmpirun", 0, 2, 2, 0, argv1, NULL, 0); /* refused: member 0 is no daemon */
    /* Edge cases: a member with no node, and a message cut short. */
    seed_job("not-my-job", 5, 2, 2, 0, argv1, NULL, 0);
    static const char cut[] = "\x01\x00\x00\x00\x04rdmp";
    fuzz_seed("truncated", cut, sizeof(cut) - 1);
}
#endif
