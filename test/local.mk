# Unit tests of the pure modules (test/unit) and the MPI test programs (test/mpi).
UNIT_CPPFLAGS = $(AM_CPPFLAGS) -DCORE_UNIT_TEST
check_PROGRAMS += test/unit/test_datatype test/unit/test_op test/unit/test_group \
	test/unit/test_info test/unit/test_config test/unit/test_match test/unit/test_memhooks \
	test/unit/test_list test/unit/test_itree test/unit/test_handle test/unit/test_peerq \
	test/unit/test_waitslice
test_unit_test_datatype_SOURCES = test/unit/test_datatype.c test/unit/core_rt_stub.c src/core/datatype.c src/core/dtsig.c src/core/attr.c \
	src/core/handle.c
test_unit_test_datatype_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_op_SOURCES = test/unit/test_op.c test/unit/core_rt_stub.c src/core/op.c src/core/datatype.c src/core/dtsig.c src/core/attr.c \
	src/core/handle.c
test_unit_test_op_CPPFLAGS = $(UNIT_CPPFLAGS)
# The kernels as the library builds them (vectorized).
test_unit_test_op_CFLAGS = $(AM_CFLAGS) $(OP_CFLAGS)
test_unit_test_group_SOURCES = test/unit/test_group.c src/core/group.c src/core/handle.c
test_unit_test_group_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_info_SOURCES = test/unit/test_info.c src/core/info.c src/core/handle.c
test_unit_test_info_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_config_SOURCES = test/unit/test_config.c src/core/config.c src/core/log.c src/core/errors.c \
	$(CONFIG_TABLES)
# Every component's settings table (what rdmpi_info and the registry's tests list).
CONFIG_TABLES = src/rt/rt_config.c transports/config.c transports/shm/shm_config.c \
	transports/tcp/tcp_config.c src/p2p/p2p_config.c collectives/coll_config.c
if HAVE_VERBS
CONFIG_TABLES += transports/verbs/verbs_config.c
endif
test_unit_test_config_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_match_SOURCES = test/unit/test_match.c src/p2p/match.c
test_unit_test_match_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_peerq_SOURCES = test/unit/test_peerq.c src/p2p/peerq.c
test_unit_test_peerq_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_list_SOURCES = test/unit/test_list.c
test_unit_test_list_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_waitslice_SOURCES = test/unit/test_waitslice.c src/core/waitslice.c
test_unit_test_waitslice_CPPFLAGS = $(UNIT_CPPFLAGS)
# The counters' per-thread shards (core/count.h).
check_PROGRAMS += test/unit/test_count
test_unit_test_count_SOURCES = test/unit/test_count.c src/core/count.c
test_unit_test_count_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_count_LDADD = -lpthread
test_unit_test_itree_SOURCES = test/unit/test_itree.c src/core/itree.c
test_unit_test_itree_CPPFLAGS = $(UNIT_CPPFLAGS)
# Handle pools: slabs, live slots, the predefined objects' hash (core/handle.h).
test_unit_test_handle_SOURCES = test/unit/test_handle.c src/core/handle.c
test_unit_test_handle_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_handle_LDADD = -lpthread
# The memory-event hooks the verbs registration cache relies on (no device needed).
test_unit_test_memhooks_SOURCES = test/unit/test_memhooks.c src/core/memhooks.c src/core/patch.c
test_unit_test_memhooks_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_memhooks_LDADD = -lpthread
# librdmpi itself loaded with dlopen: its hooks outlive dlclose (-z nodelete),
# and it leaves libc alone when loaded into a program that has threads.
check_PROGRAMS += test/unit/test_memhooks_dlopen
test_unit_test_memhooks_dlopen_SOURCES = test/unit/test_memhooks_dlopen.c
test_unit_test_memhooks_dlopen_CPPFLAGS = $(UNIT_CPPFLAGS) \
	-DRDMPI_TEST_LIBDIR=\"$(abs_top_builddir)/.libs\"
test_unit_test_memhooks_dlopen_LDADD = -ldl -lpthread
EXTRA_test_unit_test_memhooks_dlopen_DEPENDENCIES = librdmpi.la
# p2p's message handlers fed malformed messages through a fake runtime (test/unit/p2p_fake.h,
# also the endpoint for fuzzing them); the fake runtime with p2p's sources, for every such test
P2P_FAKE_SOURCES = test/unit/p2p_fake.c \
	test/unit/p2p_fake.h src/p2p/match.c src/p2p/recv.c src/p2p/rndv.c src/p2p/send.c src/p2p/peerq.c \
	src/p2p/cancel.c src/core/request.c src/core/datatype.c src/core/dtsig.c src/core/attr.c src/core/group.c src/core/errors.c \
	src/core/log.c src/core/wire.c src/core/progress.c src/core/waitslice.c src/core/thread.c src/core/handle.c src/core/count.c src/core/config.c \
	src/p2p/p2p_config.c
check_PROGRAMS += test/unit/test_p2p_wire
test_unit_test_p2p_wire_SOURCES = test/unit/test_p2p_wire.c $(P2P_FAKE_SOURCES)
test_unit_test_p2p_wire_CPPFLAGS = $(UNIT_CPPFLAGS)
# A persistent request restarted while its completer still rings its waiter (MULTIPLE).
check_PROGRAMS += test/unit/test_req_restart
test_unit_test_req_restart_SOURCES = test/unit/test_req_restart.c $(P2P_FAKE_SOURCES)
test_unit_test_req_restart_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_req_restart_LDADD = -lpthread
# The RMA OP decoder's segment forms and the target's pair types with holes (a fake window).
check_PROGRAMS += test/unit/test_rma_wire
test_unit_test_rma_wire_SOURCES = test/unit/test_rma_wire.c test/unit/core_rt_stub.c src/rma/wire.c \
	src/rma/apply.c src/rma/atomic.c src/core/op.c src/core/datatype.c src/core/dtsig.c \
	src/core/attr.c src/core/errors.c src/core/log.c src/core/handle.c
test_unit_test_rma_wire_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_rma_wire_LDADD = -lm
# external32 conversions (MPI_Pack_external): edge values and the walk of a mixed struct.
check_PROGRAMS += test/unit/test_external32
test_unit_test_external32_SOURCES = test/unit/test_external32.c test/unit/core_rt_stub.c src/core/external32.c \
	src/core/datatype.c src/core/dtsig.c src/core/attr.c src/core/handle.c
test_unit_test_external32_CPPFLAGS = $(UNIT_CPPFLAGS)
