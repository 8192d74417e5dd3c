# Transports: the interface, the registry, and one fragment per transport.
librdmpi_la_SOURCES += transports/transport.h transports/registry.c transports/config.c transports/tp.c
include $(srcdir)/transports/self/local.mk
include $(srcdir)/transports/shm/local.mk
if HAVE_VERBS
include $(srcdir)/transports/verbs/local.mk
endif
include $(srcdir)/transports/tcp/local.mk
