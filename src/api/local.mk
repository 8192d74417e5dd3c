# MPI entry points.
librdmpi_la_SOURCES += src/api/api.h src/api/attr.h src/api/attr.c \
	src/api/error.c src/api/errstring.c src/api/errhandler.c src/api/init.c src/api/util.c \
	src/api/send.c src/api/recv.c src/api/probe.c src/api/wait.c src/api/reqhook.c src/api/type_section.c src/api/persist.c src/api/bsend.c \
	src/api/comm.c src/api/intercomm.h src/api/intercomm.c src/api/dynamic.h src/api/dynamic.c src/api/port.c src/api/xport.h src/api/xport.c src/api/join.c src/api/group.c src/api/info.c src/api/datatype.c src/api/datatype_ctor.c src/api/mpi1.c src/api/pack.c \
	src/api/ext.c
librdmpi_la_SOURCES += src/api/graph.c src/api/comm_info.c src/api/darray.c \
	src/api/pack_external.c src/api/grequest.h src/api/grequest.c src/api/pcontrol.c \
	src/api/win.h src/api/win.c src/api/win_attr.c src/api/rma.c \
	src/api/file.h src/api/file.c src/api/file_rw.c
