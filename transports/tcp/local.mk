# transports/tcp: active messages over TCP sockets (epoll, lazy connections).
librdmpi_la_SOURCES += \
	transports/tcp/tcp.h \
	transports/tcp/tcp_frame.h \
	transports/tcp/tcp_frame.c \
	transports/tcp/tcp_auth.h \
	transports/tcp/tcp_auth.c \
	transports/tcp/tcp_addr.c \
	transports/tcp/tcp_conn.c \
	transports/tcp/tcp_hs.c \
	transports/tcp/tcp_iface.c \
	transports/tcp/tcp_config.c

# Framing and reassembly alone: streams split at every point.
check_PROGRAMS += test/unit/test_tcp_frame
test_unit_test_tcp_frame_SOURCES = test/unit/test_tcp_frame.c transports/tcp/tcp_frame.c
test_unit_test_tcp_frame_CPPFLAGS = $(AM_CPPFLAGS)

# RDMPI_TCP_IF parsing and interface selection.
check_PROGRAMS += test/unit/test_tcp_addr
test_unit_test_tcp_addr_SOURCES = test/unit/test_tcp_addr.c transports/tcp/tcp_addr.c \
	src/core/log.c
test_unit_test_tcp_addr_CPPFLAGS = $(AM_CPPFLAGS)

# The connection handshake's messages: forged, reflected, replayed and cut-short proofs.
check_PROGRAMS += test/unit/test_tcp_auth
test_unit_test_tcp_auth_SOURCES = test/unit/test_tcp_auth.c transports/tcp/tcp_auth.c \
	src/core/secret.c
test_unit_test_tcp_auth_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_test_tcp_auth_CFLAGS = $(AM_CFLAGS) $(SODIUM_CFLAGS)
test_unit_test_tcp_auth_LDADD = $(SODIUM_LIBS)
