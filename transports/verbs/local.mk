# transports/verbs: RDMA over rdma-core: one UD QP per process made reliable
# in software, RC QPs on demand (handshake over UD), RDMA read/write, the RDMA-write fast path.
librdmpi_la_SOURCES += \
	transports/verbs/verbs.h \
	transports/verbs/verbs_rel.h \
	transports/verbs/verbs_rel.c \
	transports/verbs/verbs_wire.h \
	transports/verbs/verbs_wire.c \
	transports/verbs/verbs_dev.c \
	transports/verbs/verbs_iface.c \
	transports/verbs/verbs_ud.c \
	transports/verbs/verbs_rc.c \
	transports/verbs/verbs_fp.c \
	transports/verbs/verbs_mem.c \
	transports/verbs/verbs_rcache.c \
	transports/verbs/verbs_config.c
librdmpi_la_CFLAGS += $(VERBS_CFLAGS)
librdmpi_la_LIBADD += $(VERBS_LIBS)

# rdmpi_info lists the RDMA devices, ports, GIDs, limits and thresholds.
rdmpi_info_SOURCES += transports/verbs/verbs_info.c transports/verbs/verbs_dev.c transports/verbs/verbs_config.c \
	src/core/memhooks.c src/core/patch.c
rdmpi_info_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS) $(VERBS_CFLAGS)
rdmpi_info_LDADD = $(VERBS_LIBS) $(HWLOC_LIBS)

# The UD reliability window under simulated loss, duplication and reordering.
check_PROGRAMS += test/unit/test_verbs_rel
test_unit_test_verbs_rel_SOURCES = test/unit/test_verbs_rel.c transports/verbs/verbs_rel.c
test_unit_test_verbs_rel_CPPFLAGS = $(AM_CPPFLAGS)

# The decoders of UD packets, RC headers and RDMA-write slots against malformed input.
check_PROGRAMS += test/unit/test_verbs_wire
test_unit_test_verbs_wire_SOURCES = test/unit/test_verbs_wire.c transports/verbs/verbs_wire.c \
	transports/verbs/verbs_rel.c
test_unit_test_verbs_wire_CPPFLAGS = $(AM_CPPFLAGS)

# The whole transport between forked ranks on one device (skipped without one).
check_PROGRAMS += test/unit/test_verbs_iface
test_unit_test_verbs_iface_SOURCES = test/unit/test_verbs_iface.c transports/verbs/verbs_rel.c \
	transports/verbs/verbs_wire.c \
	transports/verbs/verbs_dev.c transports/verbs/verbs_iface.c transports/verbs/verbs_ud.c \
	transports/verbs/verbs_rc.c transports/verbs/verbs_fp.c transports/verbs/verbs_mem.c \
	transports/verbs/verbs_rcache.c transports/verbs/verbs_config.c \
	src/core/memhooks.c src/core/patch.c src/core/itree.c src/core/config.c src/core/errors.c src/core/secret.c \
	src/core/handle.c src/core/count.c
test_unit_test_verbs_iface_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS) $(VERBS_CFLAGS) $(SODIUM_CFLAGS)
test_unit_test_verbs_iface_LDADD = $(VERBS_LIBS) $(HWLOC_LIBS) $(SODIUM_LIBS) -lpthread

# The registration cache's lookups and invalidation, with stand-ins for
# ibv_reg_mr/ibv_dereg_mr and the real memory hooks (no device needed).
check_PROGRAMS += test/unit/test_verbs_rcache
test_unit_test_verbs_rcache_SOURCES = test/unit/test_verbs_rcache.c src/core/memhooks.c \
	src/core/patch.c src/core/itree.c src/core/log.c
test_unit_test_verbs_rcache_CPPFLAGS = $(AM_CPPFLAGS) $(VERBS_CFLAGS)
test_unit_test_verbs_rcache_LDADD = -lpthread
