/*
 * When a rank asks the scheduler for short time slices (RDMPI_WAIT_SLICE; the asking and
 * its reasons are core/progress.c's): once signs that others' processes took its cores (a
 * yield that lasted a time slice, a wait found descheduled) come often, not at the first.
 * Pure: a unit test checks it.
 */
#ifndef RDMPI_CORE_WAITSLICE_H
#define RDMPI_CORE_WAITSLICE_H

typedef struct core_crowd {
    double first;  /* when the signs counted began (seconds, core_wtime's clock) */
    int count;     /* signs since then */
} core_crowd_t;    /* zeroed: no signs */

/* Notes one sign at time now; 1 when the rank should ask for the short slice: at once when
 * the job's ranks on this node fit its cores (crowded 0: the others are not ours), else when
 * CROWD_SIGNS of them came within CROWD_WINDOW. */
int core_crowd_note(core_crowd_t *c, double now, int crowded);

#endif
