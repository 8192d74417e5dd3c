/*
 * Ports across rdmpirun runs (docs/dynamic.md, design b): the listening socket an open port
 * names, and the roots' exchange over a connection to it (messages: core/xwire.h). Each
 * call returns 0 or a CORE_* code, with why (for the error message) set on failure.
 */
#ifndef RDMPI_API_XPORT_H
#define RDMPI_API_XPORT_H

#include <stddef.h>
#include "core/portname.h"
#include "core/xwire.h"

/* What the two roots agreed: the other run, the bridge key, the other group's table
 * (remote.e malloc'ed: api_xlink_free). */
typedef struct api_xlink {
    uint64_t run;
    uint8_t bridge[CORE_KEY_LEN];
    core_xwire_table_t remote;
    int sock;   /* the roots' socket, open until api_xport_confirm (-1: none) */
} api_xlink_t;

/* This process's tcp address (published by its tcp transport, opened for other jobs). */
int api_xport_own_addr(uint8_t ip[4], int *port);
/* This process's entry in a group table for another run: its uid and tcp address. */
int api_xport_my_entry(core_xwire_entry_t *e);
/* Listens for port seq on ip (this process's tcp address); *tport: the tcp port. */
int api_xport_open(int seq, const uint8_t ip[4], int *tport);
/* Stops listening for port seq; CORE_EPORT when it is not open. */
int api_xport_close(int seq);
/* MPI_Finalize: every port still open. */
void api_xport_close_all(void);
/* Accepting root, between its looks at the launcher: serves a connector waiting at the
 * port, if any (CORE_EBUSY: none, or one that was refused: logged, the accept goes on).
 * 0 once a connector proved port's key and the tables are swapped (mine: this group's). */
int api_xport_try_accept(const core_port_t *port, const core_xwire_table_t *mine,
                         api_xlink_t *out, char *why, size_t len);
/* Connecting root: connects to port's address within RDMPI_CONNECT_TIMEOUT, proves the
 * key, swaps tables. */
int api_xport_connect(const core_port_t *port, const core_xwire_table_t *mine,
                      api_xlink_t *out, char *why, size_t len);
/* Both roots, once every member of their group added the other group's processes (ok) or
 * one could not: each says so on the roots' socket and reads the other's word, within
 * CONFIRM_TIMEOUT. 0 when both groups go on; else CORE_EOTHER (the other side gave up,
 * vanished or said nothing), *why set. Closes the socket. */
int api_xport_confirm(api_xlink_t *l, int ok, char *why, size_t len);
/* Frees the table and closes the roots' socket if still open (sock -1 or a descriptor). */
void api_xlink_free(api_xlink_t *l);

#endif
