# Fortran bindings (mpif.h, the mpi and mpi_f08 modules) and the C conversions they rest on.
# gen.py writes them from include/mpi.h and facts.txt at build time; a function of mpi.h whose
# Fortran form facts.txt cannot decide stops the build here.
FORTRAN_GEN = $(PYTHON3) $(srcdir)/bindings/fortran/gen.py
FORTRAN_GEN_DEPS = $(srcdir)/bindings/fortran/gen.py $(srcdir)/bindings/fortran/facts.txt \
	$(srcdir)/include/mpi.h
FORTRAN_GENERATED = bindings/fortran/fortran_handles.h bindings/fortran/fortran_glue.c \
	bindings/fortran/mpif.h bindings/fortran/mpi.f90 bindings/fortran/mpi_f08.f90
EXTRA_DIST += bindings/fortran/gen.py bindings/fortran/facts.txt
CLEANFILES += $(FORTRAN_GENERATED) bindings/fortran/gen.stamp

bindings/fortran/gen.stamp: $(FORTRAN_GEN_DEPS)
	@$(MKDIR_P) bindings/fortran
	$(AM_V_GEN)$(FORTRAN_GEN) $(srcdir)/include/mpi.h $(srcdir)/bindings/fortran/facts.txt bindings/fortran
	@touch $@
$(FORTRAN_GENERATED): bindings/fortran/gen.stamp
BUILT_SOURCES = bindings/fortran/gen.stamp

librdmpi_la_SOURCES += bindings/fortran/handles.c bindings/fortran/fhandle.h
librdmpi_la_CPPFLAGS = $(AM_CPPFLAGS) $(FORTRAN_GLUE_CPPFLAGS)
nodist_librdmpi_la_SOURCES = bindings/fortran/fortran_handles.h

if HAVE_FC
# The Fortran-callable symbols (C, built into librdmpi) and the modules (gfortran's .mod files;
# they have no procedures of their own, so there is nothing to link but librdmpi).
librdmpi_la_SOURCES += bindings/fortran/glue.h bindings/fortran/glue_util.c \
	bindings/fortran/callbacks.c bindings/fortran/procs.c
nodist_librdmpi_la_SOURCES += bindings/fortran/fortran_glue.c
FORTRAN_MODS = bindings/fortran/mpi.mod bindings/fortran/mpi_f08.mod
noinst_DATA = $(FORTRAN_MODS) bindings/fortran/mpif.h
CLEANFILES += $(FORTRAN_MODS) bindings/fortran/mpi.o bindings/fortran/mpi_f08.o
bindings/fortran/mpi.mod: bindings/fortran/mpi.f90
	$(AM_V_GEN)cd bindings/fortran && $(FC) $(FCFLAGS) -c mpi.f90 -o mpi.o
bindings/fortran/mpi_f08.mod: bindings/fortran/mpi_f08.f90
	$(AM_V_GEN)cd bindings/fortran && $(FC) $(FCFLAGS) -c mpi_f08.f90 -o mpi_f08.o
install-data-local: install-fortran
uninstall-local: uninstall-fortran
install-fortran: $(FORTRAN_MODS) bindings/fortran/mpif.h
	$(MKDIR_P) $(DESTDIR)$(includedir)
	$(INSTALL_DATA) bindings/fortran/mpif.h $(FORTRAN_MODS) $(DESTDIR)$(includedir)
uninstall-fortran:
	rm -f $(DESTDIR)$(includedir)/mpif.h $(DESTDIR)$(includedir)/mpi.mod \
		$(DESTDIR)$(includedir)/mpi_f08.mod
bin_SCRIPTS += src/tools/rdmpifort
EXTRA_DIST += src/tools/rdmpifort.in
endif

# C++: rdmpicxx (rdmpic++), mpicxx's counterpart; mpi.h is C++-clean.
bin_SCRIPTS += src/tools/rdmpicxx
EXTRA_DIST += src/tools/rdmpicxx.in
install-exec-hook: install-wrapper-links
install-wrapper-links:
	cd $(DESTDIR)$(bindir) && rm -f rdmpic++ && $(LN_S) rdmpicxx rdmpic++
if HAVE_FC
	cd $(DESTDIR)$(bindir) && rm -f rdmpif77 rdmpif90 && $(LN_S) rdmpifort rdmpif77 && \
		$(LN_S) rdmpifort rdmpif90
endif
