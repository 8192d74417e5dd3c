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

benchsrcdir = $(pkgdatadir)/benchmarks
benchsrc_DATA = benchmarks/latency.c benchmarks/bw.c benchmarks/bibw.c benchmarks/mbw_mr.c \
	benchmarks/bench_util.c benchmarks/bench_util.h
