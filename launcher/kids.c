/*
 * A daemon's part of the tree launch (tree.h): starting the daemons of its
 * children in the daemon tree through the launch agent, as rdmpirun starts
 * its own (remote.c), once rdmpirun sent AGENTS. Each child gets the job's
 * secret on its agent's stdin, the only way the secret travels; the pipe
 * stays open, so that its EOF tells the child we are gone. An agent that
 * ends before its child linked to us is reported up as LOST with what the
 * agent said, so rdmpirun can name the host and the cause.
 */
#include "kids.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#define KIDS_STOP_WAIT 1.0 /* for the agents to end after their stdin closed */

int launch_kids_start(struct launch_kids *ks, const struct launch_agents *a, const char *secret,
                      int size, int port, launch_kids_fail_fn fail, void *ctx)
{
    char rdmpid[LAUNCH_PATH_MAX + 1];

    snprintf(rdmpid, sizeof(rdmpid), "%s", a->rdmpid);
    for (uint32_t i = 0; i < a->n && ks->n < LAUNCH_AGENTS_KIDS; i++) {
        struct launch_kid *k = &ks->k[ks->n++];
        char addrs[1024], line[2048], why[300];
        char *extra[] = {rdmpid, NULL};
        int rc;

        memset(k, 0, sizeof(*k));
        k->agent.in_fd = k->agent.out_fd = -1;
        k->vpid = (int)a->vpid[i];
        snprintf(k->name, sizeof(k->name), "%s", a->name[i]);
        addrs[0] = '\0';
        launch_net_route_addr(k->name, addrs, sizeof(addrs));
        launch_net_local_addrs(addrs, sizeof(addrs));
        snprintf(line, sizeof(line), "RDMPID2 %s %d %d %d %s %s\n", secret, k->vpid, size, port,
                 addrs, k->name);
        rc = launch_agent_start(&k->agent, a->cmd[0] ? a->cmd : NULL, k->name, extra, line);
        memset(line, 0, sizeof(line));
        if (rc) {
            snprintf(why, sizeof(why), "cannot start the launch agent: %s", strerror(-rc));
            k->reported = 1;
            fail(ctx, k->vpid, why);
        }
    }
    return 0;
}

int launch_kids_fill_pollfds(struct launch_kids *ks, struct pollfd *pfd, int max)
{
    int n = 0;

    for (int i = 0; i < ks->n && n < max; i++) {
        pfd[n].fd = ks->k[i].agent.out_fd; /* -1 at EOF: poll skips it */
        pfd[n].events = POLLIN;
        pfd[n++].revents = 0;
    }
    return n;
}

void launch_kids_handle(struct launch_kids *ks, const struct pollfd *pfd, int n)
{
    for (int i = 0; i < n && i < ks->n; i++)
        if (pfd[i].revents)
            launch_agent_read(&ks->k[i].agent);
}

int launch_kids_reaped(struct launch_kids *ks, pid_t pid, int status)
{
    for (int i = 0; i < ks->n; i++)
        if (launch_agent_reaped(&ks->k[i].agent, pid, status))
            return 1;
    return 0;
}

void launch_kids_check(struct launch_kids *ks, const struct launch_tree *t,
                       launch_kids_fail_fn fail, void *ctx)
{
    for (int i = 0; i < ks->n; i++) {
        struct launch_kid *k = &ks->k[i];
        char how[1024], why[1200];

        if (!k->linked && launch_tree_child_linked(t, k->vpid)) {
            k->linked = 1;
            launch_agent_unmute(&k->agent); /* its output now goes up with ours */
        }
        if (k->linked || k->reported || !k->agent.reaped)
            continue;
        while (launch_agent_read(&k->agent) == 0)
            ;
        launch_agent_describe(&k->agent, how, sizeof(how));
        snprintf(why, sizeof(why), "the launch agent ended before rdmpid connected back%s%s",
                 how[0] ? ": " : "", how);
        k->reported = 1;
        fail(ctx, k->vpid, why);
    }
}

/* Closes the agents' stdin (a child daemon leaves on its EOF), waits a little, then ends
 * the agents that linger: nothing of the subtree's start is left behind. */
void launch_kids_stop(struct launch_kids *ks)
{
    double waited = 0;

    for (int i = 0; i < ks->n; i++)
        launch_agent_close_stdin(&ks->k[i].agent);
    for (int i = 0; i < ks->n && waited < KIDS_STOP_WAIT; i++) {
        double t0 = launch_now();
        launch_agent_wait(&ks->k[i].agent, KIDS_STOP_WAIT - waited);
        waited += launch_now() - t0;
    }
    for (int sig = SIGTERM; sig; sig = sig == SIGTERM ? SIGKILL : 0) {
        int left = 0;
        for (int i = 0; i < ks->n; i++) {
            struct launch_agent *a = &ks->k[i].agent;
            if (a->pid > 0 && !a->reaped) {
                launch_agent_kill(a, sig);
                left = 1;
            }
        }
        for (int i = 0; left && i < ks->n; i++)
            launch_agent_wait(&ks->k[i].agent, 1.0);
    }
    for (int i = 0; i < ks->n; i++) {
        while (launch_agent_read(&ks->k[i].agent) == 0)
            ;
        launch_agent_release(&ks->k[i].agent);
    }
    ks->n = 0;
}
