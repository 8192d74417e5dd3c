# Collectives (being written).
librdmpi_la_SOURCES += collectives/coll.h
