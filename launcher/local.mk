# launcher: rdmpirun (the launcher, PMIx server of its own node) and rdmpid
# (the daemon it starts on every other node). Both build from the same
# sources but for their main: main.c/options.c/monitor.c/remote.c are
# rdmpirun's, daemon.c/kids.c rdmpid's (agent.c is both's: in a tree launch
# each daemon starts its children's daemons).
LAUNCH_COMMON = \
	launcher/launch.h \
	launcher/server.h \
	launcher/tree.h \
	launcher/jobmsg.h \
	launcher/signals.c \
	launcher/binding.c \
	launcher/server.c \
	launcher/lastwords.c \
	launcher/nspace.c \
	launcher/env.c \
	launcher/spawn.c \
	launcher/stdinfwd.c \
	launcher/iofwd.c \
	launcher/cleanup.c \
	launcher/net.c \
	launcher/tree.c \
	launcher/tree_impl.h \
	launcher/treeauth.c \
	launcher/treewire.c \
	launcher/jobmsg.c \
	launcher/fence.c \
	launcher/dmodex.c \
	launcher/dyn_impl.h \
	launcher/dyn.c \
	launcher/dyntree.c \
	launcher/dynwire.h \
	launcher/dynwire.c \
	launcher/names.c \
	launcher/namefwd.c \
	launcher/hosts.c \
	launcher/agent.h \
	launcher/agent.c \
	src/core/secret.h \
	src/core/secret.c

bin_PROGRAMS += rdmpirun rdmpid
rdmpirun_SOURCES = $(LAUNCH_COMMON) \
	launcher/main.c \
	launcher/options.c \
	launcher/monitor.c \
	launcher/remote.c
rdmpirun_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS) $(SODIUM_CFLAGS)
rdmpirun_LDADD = $(PMIX_LIBS) $(HWLOC_LIBS) $(SODIUM_LIBS)
rdmpirun_LDFLAGS = -Wl,-rpath,$(PMIX_LIBDIR)

rdmpid_SOURCES = $(LAUNCH_COMMON) \
	launcher/kids.h \
	launcher/kids.c \
	launcher/daemon.c
rdmpid_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS) $(SODIUM_CFLAGS)
rdmpid_LDADD = $(PMIX_LIBS) $(HWLOC_LIBS) $(SODIUM_LIBS)
rdmpid_LDFLAGS = -Wl,-rpath,$(PMIX_LIBDIR)
# The wire decoders, direction rules and handshake, without PMIx (test/unit).
check_PROGRAMS += test/unit/test_launch_wire
test_unit_test_launch_wire_SOURCES = test/unit/test_launch_wire.c launcher/net.c \
	launcher/tree.c launcher/treeauth.c launcher/treewire.c launcher/jobmsg.c launcher/dynwire.c \
	src/core/secret.c
test_unit_test_launch_wire_CFLAGS = $(AM_CFLAGS) $(SODIUM_CFLAGS)
test_unit_test_launch_wire_LDADD = $(SODIUM_LIBS)

EXTRA_DIST += test/launch/run test/launch/pmix_client.c test/launch/pmix_spawn.c test/launch/treepeer.py \
	test/multinode/run test/multinode/testbed.sh test/multinode/mn_client.c \
	test/engines/run test/engines/startup
