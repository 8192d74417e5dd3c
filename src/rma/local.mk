# One-sided communication: windows, operations (in place within a node, else handled at the
# target), epochs.
librdmpi_la_SOURCES += src/rma/rma.h src/rma/rma_wire.h src/rma/wire.c src/rma/state.c \
	src/rma/win.c src/rma/seg.c src/rma/origin.c src/rma/direct.c src/rma/atomic.c \
	src/rma/apply.c src/rma/target.c src/rma/sync.c src/rma/rdma.c \
	src/rma/devatom.c
