# User tools: the compiler wrapper and rdmpi_info.
bin_SCRIPTS += src/tools/rdmpicc
EXTRA_DIST += src/tools/rdmpicc.in
bin_PROGRAMS += rdmpi_info
rdmpi_info_SOURCES = src/tools/rdmpi_info.c src/core/config.c src/core/log.c src/core/errors.c
rdmpi_info_CPPFLAGS = $(AM_CPPFLAGS)
