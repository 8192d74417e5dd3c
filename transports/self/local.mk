librdmpi_la_SOURCES += transports/self/self.c
