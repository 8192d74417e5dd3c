# Collectives: the schedule engine, algorithms over p2p (one file each), the selector, the
# entry points, and the MPI_* collective and topology calls of src/api.
librdmpi_la_SOURCES += collectives/coll.h collectives/coll_impl.h \
	collectives/sched.h collectives/sched.c collectives/buffer.c collectives/halving.c \
	collectives/select.c collectives/coll_config.c collectives/dispatch.c collectives/dispatch_move.c \
	collectives/two_level.c collectives/fast.c collectives/fast2.c \
	collectives/barrier_dissemination.c collectives/barrier_linear.c \
	collectives/bcast_binomial.c collectives/bcast_scatter_ring.c collectives/bcast_linear.c \
	collectives/reduce_binomial.c collectives/reduce_rsag.c collectives/reduce_linear.c \
	collectives/allreduce_recdbl.c collectives/allreduce_rabenseifner.c \
	collectives/allreduce_ring.c collectives/allreduce_linear.c \
	collectives/reduce_scatter_halving.c collectives/reduce_scatter_pairwise.c \
	collectives/scan_recdbl.c collectives/scan_linear.c \
	collectives/gather_binomial.c collectives/gather_linear.c \
	collectives/scatter_binomial.c collectives/scatter_linear.c \
	collectives/allgather_recdbl.c collectives/allgather_bruck.c collectives/allgather_ring.c \
	collectives/allgather_linear.c \
	collectives/alltoall_pairwise.c collectives/alltoall_linear.c collectives/alltoall_bruck.c \
	collectives/neighbor.c \
	collectives/inter.h collectives/inter_rooted.c collectives/inter_exchange.c \
	collectives/inter_pairwise.c \
	src/api/coll_check.h src/api/coll_check.c src/api/coll.c src/api/coll_move.c \
	src/api/neighbor.c src/api/topo.c src/core/topo.h src/core/topo.c
