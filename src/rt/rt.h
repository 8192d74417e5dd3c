/*
 * The runtime layer: the top of the library below the MPI entry points. It
 * builds and tears down every layer in order (MPI_Init, MPI_Finalize) and
 * registers every component's settings.
 */
#ifndef RDMPI_RT_H
#define RDMPI_RT_H

#include "core/config.h"

/* Registers the settings of every component (core, transports, p2p, collectives, and the
 * variables read outside the library) with reg. */
int rt_config_register(core_config_t *reg);

#endif
