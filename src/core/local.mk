# Core services: runtime, bootstrap, config, logging, objects.
librdmpi_la_SOURCES += \
	src/core/copy.h src/core/errors.h src/core/log.h src/core/config.h src/core/runtime.h \
	src/core/bootstrap.h src/core/shmname.h src/core/group.h src/core/info.h \
	src/core/comm.h src/core/attr.h src/core/datatype.h src/core/op.h src/core/request.h src/core/progress.h src/core/hot.h src/core/futex.h src/core/lock.h \
	src/core/memhooks.h src/core/memhooks.c src/core/procfile.h src/core/patch.h src/core/patch.c \
	src/core/itree.h src/core/itree.c src/core/list.h src/core/secret.h src/core/secret.c \
	src/core/handle.h src/core/handle.c src/core/thread.h src/core/thread.c src/core/count.h src/core/count.c \
	src/core/log.c src/core/errors.c src/core/config.c src/core/bootstrap.c src/core/job.c \
	src/core/wire.c src/core/progress.c src/core/comm.c src/core/attr.c src/core/request.c \
	src/core/group.c src/core/info.c src/core/datatype.c src/core/dtsig.c \
	src/core/procs.h src/core/procs.c src/core/bootdyn.h src/core/bootdyn.c src/core/bootcall.h src/core/bootcall.c src/core/portname.h src/core/portname.c \
	src/core/waitslice.h src/core/waitslice.c \
	src/core/jobid.h src/core/jobid.c src/core/xwire.h src/core/xwire.c src/core/namedir.h src/core/namedir.c
# The reduction kernels: a convenience library of their own, built with
# OP_CFLAGS (configure.ac) so their loops are vectorized.
noinst_LTLIBRARIES = librdmpi_op.la
librdmpi_op_la_SOURCES = src/core/op.c
librdmpi_op_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(OP_CFLAGS)
librdmpi_la_LIBADD += librdmpi_op.la
# The memory hooks (memhooks.c) point libc's code at handlers in this
# library: it must never be unmapped, even by a dlclose.
librdmpi_la_LDFLAGS += -Wl,-z,nodelete
librdmpi_la_SOURCES += src/core/topo_graph.c src/core/darray.h src/core/darray.c \
	src/core/external32.h src/core/external32.c

# What the roots of two runs exchange (xwire.c) and the name directory runs share.
check_PROGRAMS += test/unit/test_xwire
test_unit_test_xwire_SOURCES = test/unit/test_xwire.c src/core/xwire.c src/core/namedir.c \
	src/core/secret.c
test_unit_test_xwire_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_test_xwire_CFLAGS = $(AM_CFLAGS) $(SODIUM_CFLAGS)
test_unit_test_xwire_LDADD = $(SODIUM_LIBS)
