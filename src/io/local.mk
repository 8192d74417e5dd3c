# MPI-IO: files, views, independent and collective access (below src/api).
librdmpi_la_SOURCES += src/io/io.h src/io/runtime.c src/io/hints.c src/io/file.c \
	src/io/view.c src/io/posix.c src/io/rw.c src/io/stream.c src/io/twophase.h src/io/twophase.c src/io/push.c src/io/icoll.c \
	src/io/shfp.c
