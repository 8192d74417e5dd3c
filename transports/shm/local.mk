# transports/shm (being written)
