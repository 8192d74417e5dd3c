/*
 * Fuzz target: rdmpirun's command line (launcher/options.c) and host
 * selection (launcher/hosts.c: --host lists, hostfiles, mapping ranks to
 * nodes), run in the order main.c runs them.
 *
 * Input: a flags byte (bit 0: map by node, bits 1-3: cores of this node),
 * then the arguments after "rdmpirun", each ended by a NUL byte, an empty
 * argument ending them; what follows is the content of the hostfile that a
 * --hostfile option reads (its path is replaced by an in-memory file, so
 * the input never names a real file).
 * Properties: accepted options have a program; every node named has 1..65535
 * slots and a name that fits; after mapping, every rank is on a node that
 * got ranks, each node's rank count and local ranks add up, no node holds
 * more ranks than slots unless the job has more ranks than all slots, the
 * node rdmpirun runs on is member 0 and the others are 1, 2, ...
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include "fuzz.h"
#include "launcher/launch.h"

#define HERE "here.example.org"

static int hostfile_fd = -1;
static char hostfile_path[64];

static void check_map(const struct launch_job *job, long total_slots)
{
    int *count = calloc((size_t)job->nnodes, sizeof(int));
    FUZZ_CHECK(count);
    FUZZ_CHECK(job->nnodes > 0);
    for (int r = 0; r < job->nranks; r++) {
        const struct launch_rank *rk = &job->ranks[r];
        FUZZ_CHECK(rk->node >= 0 && rk->node < job->nnodes);
        FUZZ_CHECK(rk->local_rank == count[rk->node]++);
        FUZZ_CHECK(rk->local == (rk->node == job->my_node));
    }
    int vpid = 1, nlocal = 0;
    for (int i = 0; i < job->nnodes; i++) {
        const struct launch_node *n = &job->nodes[i];
        FUZZ_CHECK(n->nranks == count[i]); /* a node without a rank stays: spawn's slots */
        FUZZ_CHECK(n->slots >= 1 && n->slots <= 65535);
        if (job->nranks <= total_slots)
            FUZZ_CHECK(n->nranks <= n->slots);
        if (i == job->my_node)
            FUZZ_CHECK(n->vpid == 0 && n->is_here);
        else
            FUZZ_CHECK(n->vpid == vpid++ && !n->is_here);
    }
    for (int r = 0; r < job->nranks; r++)
        nlocal += job->ranks[r].local;
    FUZZ_CHECK(nlocal == job->nlocal);
    free(count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    if (hostfile_fd < 0) {
        hostfile_fd = memfd_create("fuzz-hostfile", 0);
        FUZZ_CHECK(hostfile_fd >= 0);
        snprintf(hostfile_path, sizeof(hostfile_path), "/proc/self/fd/%d", hostfile_fd);
    }
    if (size < 1)
        return 0;
    int flags = data[0];
    /* The arguments, as NUL-terminated copies (argv strings must be). */
    char *copy = malloc(size);
    FUZZ_CHECK(copy);
    memcpy(copy, data + 1, size - 1);
    copy[size - 1] = '\0';
    char *argv[66] = { "rdmpirun" };
    int argc = 1;
    size_t pos = 0;
    while (pos < size - 1 && copy[pos] && argc < 64) {
        argv[argc++] = copy + pos;
        pos += strlen(copy + pos) + 1;
    }
    argv[argc] = NULL;
    pos = pos < size - 1 ? pos + 1 : size - 1;
    FUZZ_CHECK(ftruncate(hostfile_fd, 0) == 0);
    if (size - 1 - pos)
        FUZZ_CHECK(pwrite(hostfile_fd, data + 1 + pos, size - 1 - pos, 0) == (ssize_t)(size - 1 - pos));

    struct launch_opts o;
    int rc = launch_options_parse(argc, argv, &o);
    if (rc == 0) {
        FUZZ_CHECK(o.argv && o.argv[0] && o.nranks >= 0 && o.nranks <= 65535);
        if (o.hostfile)
            o.hostfile = hostfile_path;
        o.map_by_node = flags & 1;
        struct launch_job job = { 0 };
        job.opts = &o;
        job.ncores = 1 + ((flags >> 1) & 7);
        snprintf(job.host, sizeof(job.host), HERE);
        if (launch_hosts_parse(&job) == 0) {
            long slots = 0;
            for (int i = 0; i < job.nnodes; i++) {
                FUZZ_CHECK(job.nodes[i].slots >= 1 && job.nodes[i].slots <= 65535);
                FUZZ_CHECK(job.nodes[i].name[0] && strlen(job.nodes[i].name) < sizeof(job.nodes[i].name));
                slots += job.nodes[i].slots;
            }
            /* As main.c: -n, else every slot, else a rank per core (bounded here
             * to keep runs fast). */
            job.nranks = o.nranks > 0 ? o.nranks : job.nnodes ? (int)(slots < 5000 ? slots : 5000)
                                                                : job.ncores;
            if (!job.nnodes)
                slots = job.ncores;
            job.ranks = calloc((size_t)job.nranks, sizeof(*job.ranks));
            FUZZ_CHECK(job.ranks);
            if (launch_hosts_map(&job) == 0)
                check_map(&job, slots);
        }
        free(job.ranks);
        free(job.nodes);
    }
    launch_options_free(&o);
    free(copy);
    return 0;
}

#ifdef FUZZ_SEEDS
static void seed(const char *name, int flags, const char *const *args, const char *hostfile)
{
    fuzz_buf_t b = { 0 };
    fuzz_put_u8(&b, (uint8_t)flags);
    for (int i = 0; args[i]; i++)
        fuzz_put(&b, args[i], strlen(args[i]) + 1);
    fuzz_put_u8(&b, 0);
    if (hostfile)
        fuzz_put(&b, hostfile, strlen(hostfile));
    fuzz_seed(name, b.p, b.len);
    free(b.p);
}

void fuzz_make_seeds(void)
{
    seed("np-only", 2, (const char *[]){ "-n", "4", "./a.out", NULL }, NULL);
    seed("hosts", 0, (const char *[]){ "--host", "node1:2,node2:2,localhost", "-np", "5",
                                       "--map-by", "node", "prog", "arg", NULL }, NULL);
    seed("ipv6-and-here", 5, (const char *[]){ "-H", "::1,here,fe80::1:4,here.example.org:3",
                                               "--bind-to=none", "-x", "A=1", "-x", "PATH",
                                               "--tag-output", "--timeout=2.5", "p", NULL }, NULL);
    seed("hostfile", 1, (const char *[]){ "--hostfile", "hf", "-n", "7", "--", "prog", NULL },
         "# cluster\nnode1 slots=2 max_slots=4\nnode2:3\n\n  node3\t slots=1 # tail\nnode1 slots=1\n");
    seed("hostfile-bad", 0, (const char *[]){ "--machinefile=hf", "prog", NULL },
         "node1 slots=0\n");
    seed("too-many-slots", 0, (const char *[]){ "--host", "a:65535,a:65535,b:99999", "x", NULL },
         NULL);
    /* Names of 255 bytes: the longest that fit. */
    char longname[300], hf[320];
    memset(longname, 'n', 255);
    strcpy(longname + 255, ":2,b");
    seed("long-name", 0, (const char *[]){ "--host", longname, "-n", "3", "x", NULL }, NULL);
    snprintf(hf, sizeof(hf), "%.255s slots=2\n", longname);
    seed("long-name-hostfile", 0, (const char *[]){ "--hostfile", "f", "x", NULL }, hf);
    seed("no-program", 0, (const char *[]){ "--oversubscribe", "--report-bindings", NULL }, NULL);
    seed("unknown", 0, (const char *[]){ "--no-such", "-np", "x", NULL }, NULL);
}
#endif
