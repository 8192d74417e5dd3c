# The runtime: init/finalize orchestration of the layers, communicator
# creation and context-id agreement (above collectives and p2p).
librdmpi_la_SOURCES += src/rt/rt.h src/rt/runtime.c src/rt/ctx.c src/rt/rt_config.c
