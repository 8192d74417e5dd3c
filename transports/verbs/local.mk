# transports/verbs: RDMA over rdma-core (being written).
librdmpi_la_LIBADD += $(VERBS_LIBS)
