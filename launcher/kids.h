/*
 * The daemons a daemon starts for its children in a tree launch (kids.c).
 */
#ifndef RDMPI_LAUNCH_KIDS_H
#define RDMPI_LAUNCH_KIDS_H

#include "agent.h"
#include "tree.h"

struct launch_kid {
    int vpid;
    char name[LAUNCH_HOST_MAX + 1];
    struct launch_agent agent;
    int linked;   /* its daemon linked to us */
    int reported; /* its failure was reported */
};

struct launch_kids {
    int n;
    struct launch_kid k[LAUNCH_AGENTS_KIDS];
};

/* Called once for a child whose daemon could not be started, with why. */
typedef void (*launch_kids_fail_fn)(void *ctx, int vpid, const char *why);

/* Starts an agent per child in a, each given "RDMPID2 secret vpid size port addrs name"
 * on its stdin (port: ours, the children link to us). */
int launch_kids_start(struct launch_kids *ks, const struct launch_agents *a, const char *secret,
                      int size, int port, launch_kids_fail_fn fail, void *ctx);
int launch_kids_fill_pollfds(struct launch_kids *ks, struct pollfd *pfd, int max);
void launch_kids_handle(struct launch_kids *ks, const struct pollfd *pfd, int n);
/* 1 when pid was one of our agents (its status recorded). */
int launch_kids_reaped(struct launch_kids *ks, pid_t pid, int status);
/* Notes the children that linked; reports the agents that ended before. */
void launch_kids_check(struct launch_kids *ks, const struct launch_tree *t,
                       launch_kids_fail_fn fail, void *ctx);
void launch_kids_stop(struct launch_kids *ks);

#endif
