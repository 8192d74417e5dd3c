/*
 * Port names and connect requests of MPI_Open_port/Comm_connect (src/api/port.c) as pure
 * text: names with no pointer in them, parsed with bounds since they come from users and
 * from other jobs (through the launcher's name service).
 *
 *   port:    "rdmpi-port/<job>/<rank>/<first uid>/<number>"
 *   request: "<job> <rank> <first uid>"   (the connecting root)
 *
 * A job name is 1..255 characters without '/', ' ' or control characters; numbers are
 * decimal, below 2^30, without sign or leading '+'.
 */
#ifndef RDMPI_CORE_PORTNAME_H
#define RDMPI_CORE_PORTNAME_H

#include <stddef.h>

#define CORE_PORT_PREFIX "rdmpi-port/"

typedef struct core_port {
    char nspace[256];
    int rank, ubase, seq;
} core_port_t;

/* 0, or CORE_EPORT when it does not fit len. */
int core_port_format(char *out, size_t len, const core_port_t *p);
/* 0, or CORE_EPORT: not a port name. */
int core_port_parse(const char *name, core_port_t *p);
/* A request from p (seq unused). 0, or CORE_EPORT when it does not fit. */
int core_port_request_format(char *out, size_t len, const core_port_t *p);
/* 0, or CORE_EPROTO: malformed. */
int core_port_request_parse(const char *req, core_port_t *p);

#endif
