# User tools: the compiler wrapper and rdmpi_info.
bin_SCRIPTS += src/tools/rdmpicc
EXTRA_DIST += src/tools/rdmpicc.in
bin_PROGRAMS += rdmpi_info
rdmpi_info_SOURCES = src/tools/rdmpi_info.c src/core/config.c src/core/log.c src/core/errors.c \
	src/rt/rt_config.c transports/config.c transports/shm/shm_config.c \
	transports/tcp/tcp_config.c src/p2p/p2p_config.c collectives/coll_config.c
rdmpi_info_CPPFLAGS = $(AM_CPPFLAGS)
