# benchmarks: OSU-style point-to-point benchmarks, built against rdmpi itself, and rdmpi-compare,
# which builds the same sources with rdmpicc, Open MPI and MPICH and runs them side by side.
# The sources are installed too, since rdmpi-compare compiles them with every MPI's mpicc.
bench_common = benchmarks/bench_util.c benchmarks/bench_util.h

bin_PROGRAMS += rdmpi_latency rdmpi_bw rdmpi_bibw rdmpi_mbw_mr
rdmpi_latency_SOURCES = benchmarks/latency.c $(bench_common)
rdmpi_latency_LDADD = librdmpi.la
rdmpi_bw_SOURCES = benchmarks/bw.c $(bench_common)
rdmpi_bw_LDADD = librdmpi.la
rdmpi_bibw_SOURCES = benchmarks/bibw.c $(bench_common)
rdmpi_bibw_LDADD = librdmpi.la
rdmpi_mbw_mr_SOURCES = benchmarks/mbw_mr.c $(bench_common)
rdmpi_mbw_mr_LDADD = librdmpi.la

bin_SCRIPTS += benchmarks/rdmpi-compare
EXTRA_DIST += benchmarks/rdmpi-compare

# MPI-IO bandwidth (collective contiguous/strided, independent, plain pwrite) and its comparison
bin_PROGRAMS += rdmpi_io_bw
rdmpi_io_bw_SOURCES = benchmarks/io_bw.c
rdmpi_io_bw_LDADD = librdmpi.la
bin_SCRIPTS += benchmarks/rdmpi-compare-io
EXTRA_DIST += benchmarks/rdmpi-compare-io

# One-sided latency (put/get with lock+flush, fence, PSCW; accumulate, fetch-and-op,
# compare-and-swap) and bandwidth; rdmpi-compare --bench rma_* runs them beside the peers.
bin_PROGRAMS += rdmpi_rma_lat rdmpi_rma_bw
rdmpi_rma_lat_SOURCES = benchmarks/rma_lat.c $(bench_common)
rdmpi_rma_lat_LDADD = librdmpi.la
rdmpi_rma_bw_SOURCES = benchmarks/rma_bw.c $(bench_common)
rdmpi_rma_bw_LDADD = librdmpi.la
# Window creation: create+free and allocate+free pairs at any rank count.
bin_PROGRAMS += rdmpi_rma_win
rdmpi_rma_win_SOURCES = benchmarks/rma_win.c
rdmpi_rma_win_LDADD = librdmpi.la

# Memory per process and startup at scale (docs/scale.md): rdmpi_mem_scale, and
# rdmpi-compare-scale, which builds it with each MPI and times the launchers.
bin_PROGRAMS += rdmpi_mem_scale
rdmpi_mem_scale_SOURCES = benchmarks/mem_scale.c
rdmpi_mem_scale_LDADD = librdmpi.la
bin_SCRIPTS += benchmarks/rdmpi-compare-scale
EXTRA_DIST += benchmarks/rdmpi-compare-scale

benchsrcdir = $(pkgdatadir)/benchmarks
benchsrc_DATA = benchmarks/latency.c benchmarks/bw.c benchmarks/bibw.c benchmarks/mbw_mr.c \
	benchmarks/bench_util.c benchmarks/bench_util.h benchmarks/io_bw.c benchmarks/rma_lat.c \
	benchmarks/rma_bw.c benchmarks/rma_win.c benchmarks/mem_scale.c

# Collective benchmarks (OSU style): one source per collective, built blocking (rdmpi_<name>)
# and nonblocking with overlap measurement (rdmpi_i<name>, -DCOLL_BENCH_NONBLOCKING);
# rdmpi-compare-coll runs them side by side with Open MPI and MPICH.
coll_bench_common = benchmarks/coll_util.c benchmarks/coll_util.h
coll_bench_nb = $(AM_CPPFLAGS) -DCOLL_BENCH_NONBLOCKING=1
bin_PROGRAMS += rdmpi_barrier rdmpi_bcast rdmpi_reduce rdmpi_allreduce rdmpi_gather \
	rdmpi_scatter rdmpi_allgather rdmpi_alltoall rdmpi_ibarrier rdmpi_ibcast rdmpi_ireduce \
	rdmpi_iallreduce rdmpi_igather rdmpi_iscatter rdmpi_iallgather rdmpi_ialltoall
rdmpi_barrier_SOURCES = benchmarks/coll_barrier.c $(coll_bench_common)
rdmpi_barrier_LDADD = librdmpi.la
rdmpi_ibarrier_SOURCES = benchmarks/coll_barrier.c $(coll_bench_common)
rdmpi_ibarrier_CPPFLAGS = $(coll_bench_nb)
rdmpi_ibarrier_LDADD = librdmpi.la
rdmpi_bcast_SOURCES = benchmarks/coll_bcast.c $(coll_bench_common)
rdmpi_bcast_LDADD = librdmpi.la
rdmpi_ibcast_SOURCES = benchmarks/coll_bcast.c $(coll_bench_common)
rdmpi_ibcast_CPPFLAGS = $(coll_bench_nb)
rdmpi_ibcast_LDADD = librdmpi.la
rdmpi_reduce_SOURCES = benchmarks/coll_reduce.c $(coll_bench_common)
rdmpi_reduce_LDADD = librdmpi.la
rdmpi_ireduce_SOURCES = benchmarks/coll_reduce.c $(coll_bench_common)
rdmpi_ireduce_CPPFLAGS = $(coll_bench_nb)
rdmpi_ireduce_LDADD = librdmpi.la
rdmpi_allreduce_SOURCES = benchmarks/coll_allreduce.c $(coll_bench_common)
rdmpi_allreduce_LDADD = librdmpi.la
rdmpi_iallreduce_SOURCES = benchmarks/coll_allreduce.c $(coll_bench_common)
rdmpi_iallreduce_CPPFLAGS = $(coll_bench_nb)
rdmpi_iallreduce_LDADD = librdmpi.la
rdmpi_gather_SOURCES = benchmarks/coll_gather.c $(coll_bench_common)
rdmpi_gather_LDADD = librdmpi.la
rdmpi_igather_SOURCES = benchmarks/coll_gather.c $(coll_bench_common)
rdmpi_igather_CPPFLAGS = $(coll_bench_nb)
rdmpi_igather_LDADD = librdmpi.la
rdmpi_scatter_SOURCES = benchmarks/coll_scatter.c $(coll_bench_common)
rdmpi_scatter_LDADD = librdmpi.la
rdmpi_iscatter_SOURCES = benchmarks/coll_scatter.c $(coll_bench_common)
rdmpi_iscatter_CPPFLAGS = $(coll_bench_nb)
rdmpi_iscatter_LDADD = librdmpi.la
rdmpi_allgather_SOURCES = benchmarks/coll_allgather.c $(coll_bench_common)
rdmpi_allgather_LDADD = librdmpi.la
rdmpi_iallgather_SOURCES = benchmarks/coll_allgather.c $(coll_bench_common)
rdmpi_iallgather_CPPFLAGS = $(coll_bench_nb)
rdmpi_iallgather_LDADD = librdmpi.la
rdmpi_alltoall_SOURCES = benchmarks/coll_alltoall.c $(coll_bench_common)
rdmpi_alltoall_LDADD = librdmpi.la
rdmpi_ialltoall_SOURCES = benchmarks/coll_alltoall.c $(coll_bench_common)
rdmpi_ialltoall_CPPFLAGS = $(coll_bench_nb)
rdmpi_ialltoall_LDADD = librdmpi.la
bin_SCRIPTS += benchmarks/rdmpi-compare-coll
EXTRA_DIST += benchmarks/rdmpi-compare-coll
benchsrc_DATA += benchmarks/coll_util.c benchmarks/coll_util.h benchmarks/coll_barrier.c \
	benchmarks/coll_bcast.c benchmarks/coll_reduce.c benchmarks/coll_allreduce.c \
	benchmarks/coll_gather.c benchmarks/coll_scatter.c benchmarks/coll_allgather.c \
	benchmarks/coll_alltoall.c

# Multi-threaded latency and message rate (MPI_THREAD_MULTIPLE); rdmpi-compare-mt runs it
# beside Open MPI and MPICH.
bin_PROGRAMS += rdmpi_mt
rdmpi_mt_SOURCES = benchmarks/mt.c
rdmpi_mt_LDADD = librdmpi.la -lpthread
bin_SCRIPTS += benchmarks/rdmpi-compare-mt
EXTRA_DIST += benchmarks/rdmpi-compare-mt
benchsrc_DATA += benchmarks/mt.c
# The 8-byte ping-pong written in Fortran (use mpi_f08 and include 'mpif.h'): the cost of the
# Fortran bindings beside rdmpi_latency's C figure (README, Fortran).
if HAVE_FC
bin_PROGRAMS += rdmpi_latency_f08 rdmpi_latency_f77
rdmpi_latency_f08_SOURCES = benchmarks/latency_f08.f90
rdmpi_latency_f08_FCFLAGS = $(FCFLAGS) -Ibindings/fortran
rdmpi_latency_f08_LDADD = librdmpi.la
rdmpi_latency_f77_SOURCES = benchmarks/latency_f77.f90
rdmpi_latency_f77_FCFLAGS = $(FCFLAGS) -Ibindings/fortran
rdmpi_latency_f77_LDADD = librdmpi.la
# the module and mpif.h are generated and compiled first
benchmarks/rdmpi_latency_f08-latency_f08.$(OBJEXT): bindings/fortran/mpi_f08.mod
benchmarks/rdmpi_latency_f77-latency_f77.$(OBJEXT): bindings/fortran/mpif.h
benchsrc_DATA += benchmarks/latency_f08.f90 benchmarks/latency_f77.f90
endif
# Inter-collectives against the intracommunicator collective of the same total size.
bin_PROGRAMS += rdmpi_inter_coll
rdmpi_inter_coll_SOURCES = benchmarks/inter_coll.c
rdmpi_inter_coll_LDADD = librdmpi.la
# MPI_Comm_spawn of N children until a barrier with them, again and again (any MPI's mpicc).
bin_PROGRAMS += rdmpi_spawn
rdmpi_spawn_SOURCES = benchmarks/spawn.c
rdmpi_spawn_LDADD = librdmpi.la
# rdmpi-compare-dyn builds both with each MPI: spawn time, inter/intra collective ratios
bin_SCRIPTS += benchmarks/rdmpi-compare-dyn
EXTRA_DIST += benchmarks/rdmpi-compare-dyn
benchsrc_DATA += benchmarks/spawn.c benchmarks/inter_coll.c
