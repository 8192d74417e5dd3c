# Point-to-point: matching and protocols.
librdmpi_la_SOURCES += src/p2p/p2p.h src/p2p/match.h src/p2p/proto.h \
	src/p2p/match.c src/p2p/send.c src/p2p/peerq.c src/p2p/recv.c src/p2p/rndv.c src/p2p/cancel.c src/p2p/p2p_config.c
