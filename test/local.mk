# Unit tests of the pure modules (test/unit) and the MPI test programs (test/mpi).
UNIT_CPPFLAGS = $(AM_CPPFLAGS) -DCORE_UNIT_TEST
check_PROGRAMS += test/unit/test_datatype test/unit/test_op test/unit/test_group \
	test/unit/test_info test/unit/test_config test/unit/test_match test/unit/test_memhooks \
	test/unit/test_list
test_unit_test_datatype_SOURCES = test/unit/test_datatype.c src/core/datatype.c src/core/attr.c
test_unit_test_datatype_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_op_SOURCES = test/unit/test_op.c src/core/op.c src/core/datatype.c src/core/attr.c
test_unit_test_op_CPPFLAGS = $(UNIT_CPPFLAGS)
# The kernels as the library builds them (vectorized).
test_unit_test_op_CFLAGS = $(AM_CFLAGS) $(OP_CFLAGS)
test_unit_test_group_SOURCES = test/unit/test_group.c src/core/group.c
test_unit_test_group_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_info_SOURCES = test/unit/test_info.c src/core/info.c
test_unit_test_info_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_config_SOURCES = test/unit/test_config.c src/core/config.c src/core/log.c src/core/errors.c
test_unit_test_config_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_match_SOURCES = test/unit/test_match.c src/p2p/match.c
test_unit_test_match_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_list_SOURCES = test/unit/test_list.c
test_unit_test_list_CPPFLAGS = $(UNIT_CPPFLAGS)
# The memory-event hooks the verbs registration cache relies on (no device needed).
test_unit_test_memhooks_SOURCES = test/unit/test_memhooks.c src/core/memhooks.c
test_unit_test_memhooks_CPPFLAGS = $(UNIT_CPPFLAGS)
test_unit_test_memhooks_LDADD = -lpthread
# p2p's message handlers fed malformed messages through a fake runtime (test/unit/p2p_fake.h,
# also the endpoint for fuzzing them).
check_PROGRAMS += test/unit/test_p2p_wire
test_unit_test_p2p_wire_SOURCES = test/unit/test_p2p_wire.c test/unit/p2p_fake.c \
	test/unit/p2p_fake.h src/p2p/match.c src/p2p/recv.c src/p2p/rndv.c src/p2p/send.c \
	src/core/request.c src/core/datatype.c src/core/attr.c src/core/group.c src/core/errors.c \
	src/core/log.c src/core/wire.c src/core/progress.c
test_unit_test_p2p_wire_CPPFLAGS = $(UNIT_CPPFLAGS)
