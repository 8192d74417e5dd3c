# launcher: rdmpirun, the single-node PMIx server that starts the ranks.
bin_PROGRAMS += rdmpirun
rdmpirun_SOURCES = \
	launcher/launch.h \
	launcher/server.h \
	launcher/main.c \
	launcher/options.c \
	launcher/hosts.c \
	launcher/signals.c \
	launcher/binding.c \
	launcher/server.c \
	launcher/nspace.c \
	launcher/env.c \
	launcher/spawn.c \
	launcher/stdinfwd.c \
	launcher/iofwd.c \
	launcher/monitor.c \
	launcher/cleanup.c
rdmpirun_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
rdmpirun_LDADD = $(PMIX_LIBS) $(HWLOC_LIBS)
rdmpirun_LDFLAGS = -Wl,-rpath,$(PMIX_LIBDIR)
EXTRA_DIST += test/launch/run test/launch/pmix_client.c
