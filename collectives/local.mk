# Collectives: algorithms over p2p (one file each), the selector, the blocking
# entry points, and the MPI_* collective calls of src/api.
librdmpi_la_SOURCES += collectives/coll.h collectives/coll_impl.h \
	collectives/xfer.c collectives/buffer.c collectives/halving.c \
	collectives/select.c collectives/dispatch.c \
	collectives/barrier_dissemination.c \
	collectives/bcast_binomial.c collectives/bcast_scatter_ring.c \
	collectives/reduce_binomial.c collectives/reduce_rsag.c \
	collectives/allreduce_recdbl.c collectives/allreduce_rabenseifner.c \
	collectives/allreduce_ring.c collectives/allreduce_reduce_bcast.c \
	collectives/gather_binomial.c collectives/gather_linear.c \
	collectives/scatter_binomial.c collectives/scatter_linear.c \
	collectives/allgather_recdbl.c collectives/allgather_bruck.c collectives/allgather_ring.c \
	collectives/alltoall_pairwise.c collectives/alltoall_linear.c collectives/alltoall_bruck.c \
	src/api/coll.c

