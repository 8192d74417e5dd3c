# The tools interface (MPI_T): control and performance variables, categories.
librdmpi_la_SOURCES += src/mpit/mpit.h src/mpit/init.c src/mpit/cvar.c src/mpit/pvar.c \
	src/mpit/category.c
