/*
 * Running the launch agent that starts rdmpid on another host (agent.c).
 */
#ifndef RDMPI_LAUNCH_AGENT_H
#define RDMPI_LAUNCH_AGENT_H

#include "launch.h"

#define LAUNCH_AGENT_LINES 3

struct launch_agent {
    pid_t pid;
    int in_fd;          /* its stdin, -1 once closed */
    int out_fd;         /* its stdout and stderr, -1 at EOF */
    int reaped, status;
    int quiet;          /* keep lines instead of printing them */
    char last[LAUNCH_AGENT_LINES][256];
    int nlast;
    char part[512];     /* an incomplete line */
    size_t plen;
};

const char *launch_agent_cmd(const char *cmd);
int launch_agent_start(struct launch_agent *a, const char *cmd, const char *host,
                       char *const extra[], const char *input);
int launch_agent_read(struct launch_agent *a);
void launch_agent_unmute(struct launch_agent *a);
void launch_agent_close_stdin(struct launch_agent *a);
void launch_agent_describe(const struct launch_agent *a, char *buf, size_t len);
int launch_agent_reaped(struct launch_agent *a, pid_t pid, int status);
void launch_agent_kill(struct launch_agent *a, int sig);
int launch_agent_wait(struct launch_agent *a, double timeout);
void launch_agent_release(struct launch_agent *a);

#endif
