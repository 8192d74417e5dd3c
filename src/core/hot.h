/*
 * CORE_HOT marks the functions of a latency-critical path (a one-sided operation and its
 * flush): GCC places them in .text.hot, which the linker keeps together, so the path spans a
 * few code pages instead of one or two per source file. Under Soft-RoCE in a TCG guest every
 * page the origin touches again after the kernel's work on the doorbell costs a software TLB
 * refill, and natively the same shows as iTLB and i-cache misses.
 */
#ifndef RDMPI_CORE_HOT_H
#define RDMPI_CORE_HOT_H

#if defined(__GNUC__)
#define CORE_HOT __attribute__((hot))
#else
#define CORE_HOT
#endif

#endif
