/*
 * Port names and connect requests of MPI_Open_port/Comm_connect (src/api/port.c) as pure
 * text: names with no pointer in them, parsed with bounds since they come from users, from
 * other jobs (through the launcher's name service) and from other rdmpirun runs (a file,
 * the user's own channels).
 *
 *   port:    "rdmpi-port3/<run id>/<job>/<rank>/<first uid>/<number>/<ip>:<tcp port>/<port key>"
 *   request: "<job> <rank> <first uid>"   (the connecting root)
 *
 * The run id names the rdmpirun run (16 lowercase hex digits, core_run_id): a port of
 * another run cannot be reached through this run's launcher, but at <ip>:<tcp port>, where
 * the opening process listens (IPv4, dotted decimal; the port 1..65535). The port key (64
 * lowercase hex digits: CORE_KEY_LEN bytes) is what a connector from another run proves it
 * holds (docs/dynamic.md, design b); within one run the launcher is trusted and it is not
 * used. A job name is 1..255 characters without '/', ' ' or control characters; numbers
 * are decimal, below 2^30, without sign or leading '+'.
 */
#ifndef RDMPI_CORE_PORTNAME_H
#define RDMPI_CORE_PORTNAME_H

#include <stddef.h>
#include <stdint.h>
#include "core/secret.h"

#define CORE_PORT_PREFIX "rdmpi-port3/"

typedef struct core_port {
    char nspace[256];
    int rank, ubase, seq;
    uint64_t run;                  /* the run id (ports; requests: unused) */
    uint8_t key[CORE_KEY_LEN];     /* the port key (ports; requests: unused) */
    uint8_t ip[4];                 /* where the opener listens (ports; requests: unused) */
    int tport;
} core_port_t;

/* 1 when name (a C string) is a valid job name, else 0. */
int core_port_job_valid(const char *name);
/* 0, or CORE_EPORT when it does not fit len. */
int core_port_format(char *out, size_t len, const core_port_t *p);
/* 0, or CORE_EPORT: not a port name. */
int core_port_parse(const char *name, core_port_t *p);
/* A request from p (seq, run and key unused). 0, or CORE_EPORT when it does not fit. */
int core_port_request_format(char *out, size_t len, const core_port_t *p);
/* 0, or CORE_EPROTO: malformed. */
int core_port_request_parse(const char *req, core_port_t *p);

#endif
