/*
 * Telling valgrind's memcheck about memory another agent wrote: a peer process through
 * process_vm_writev (shm's cooperative copy, the write rendezvous) or a NIC through RDMA lands
 * bytes in our buffers without a system call of ours that valgrind could see, so a program
 * run under valgrind would be told its received data is uninitialised. Client requests cost a
 * few instructions outside valgrind; without valgrind's header they are nothing.
 */
#ifndef RDMPI_CORE_MEMCHECK_H
#define RDMPI_CORE_MEMCHECK_H

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define CORE_MEM_DEFINED(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#endif
#endif
#ifndef CORE_MEM_DEFINED
#define CORE_MEM_DEFINED(p, n) ((void)(p), (void)(n))
#endif

#endif
