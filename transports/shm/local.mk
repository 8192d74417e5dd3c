# transports/shm: rings in a per-node segment, CMA single copy.
librdmpi_la_SOURCES += \
	transports/shm/shm.h \
	transports/shm/shm_ring.h \
	transports/shm/shm_bell.h \
	transports/shm/shm_ring.c \
	transports/shm/shm_seg.c \
	transports/shm/shm_iface.c \
	transports/shm/shm_cma.c \
	transports/shm/shm_coop.c \
	transports/shm/shm_config.c \
	transports/shm/shm_bseg.c \
	transports/shm/shm_bridge.c

# The ring alone, over an anonymous shared mapping (--bench: ping-pong latency).
check_PROGRAMS += test/unit/test_shm_ring
test_unit_test_shm_ring_SOURCES = test/unit/test_shm_ring.c transports/shm/shm_ring.c
test_unit_test_shm_ring_CPPFLAGS = $(AM_CPPFLAGS)

# The whole transport between forked processes, with a stand-in bootstrap.
check_PROGRAMS += test/unit/test_shm_iface
test_unit_test_shm_iface_SOURCES = test/unit/test_shm_iface.c transports/shm/shm_ring.c \
	transports/shm/shm_seg.c transports/shm/shm_iface.c transports/shm/shm_cma.c \
	transports/shm/shm_coop.c transports/shm/shm_config.c src/core/config.c src/core/secret.c \
	src/core/handle.c src/core/thread.c src/core/count.c
test_unit_test_shm_iface_CPPFLAGS = $(AM_CPPFLAGS) $(SODIUM_CFLAGS)
test_unit_test_shm_iface_LDADD = $(SODIUM_LIBS)

# Creating the segment exclusively, and what an attach refuses (owner, mode, size, symlinks).
check_PROGRAMS += test/unit/test_shm_seg
test_unit_test_shm_seg_SOURCES = test/unit/test_shm_seg.c transports/shm/shm_seg.c \
	transports/shm/shm_bseg.c transports/shm/shm_ring.c src/core/secret.c
test_unit_test_shm_seg_CPPFLAGS = $(AM_CPPFLAGS) $(SODIUM_CFLAGS)
test_unit_test_shm_seg_LDADD = $(SODIUM_LIBS)

# The doorbell protocol with a ring between two processes: the lost-wake race, bogus values.
check_PROGRAMS += test/unit/test_shm_bell
test_unit_test_shm_bell_SOURCES = test/unit/test_shm_bell.c transports/shm/shm_ring.c
test_unit_test_shm_bell_CPPFLAGS = $(AM_CPPFLAGS)
