/*
 * Shared by the window entry points (win.c, win_attr.c, rma.c): the window
 * handle check and the error path through the window's error handler.
 */
#ifndef RDMPI_API_WIN_H
#define RDMPI_API_WIN_H

#include "api/api.h"
#include "rma/rma.h"

/* Reports code (CORE_*) of call fn through win's error handler (MPI_WIN_NULL: the
 * MPI_COMM_WORLD handler); returns the MPI error class when the handler returns. */
int api_win_error(MPI_Win win, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Runs win's handler for an MPI error code (MPI_Win_call_errhandler). */
int api_win_raise(MPI_Win win, int cls, const char *fn, const char *msg);
int api_bad_win(MPI_Win win, const char *fn) __attribute__((cold));

static inline int api_check_win(MPI_Win win, const char *fn)
{
    return core_handle_valid(&core_handles.win, win) ? 0 : api_bad_win(win, fn);
}

/* Window ranks of an operation: a rank of the window or MPI_PROC_NULL. */
static inline int api_check_win_rank(MPI_Win win, int rank, int null_ok, const char *fn)
{
    if ((rank >= 0 && rank < win->size) || (null_ok && rank == MPI_PROC_NULL))
        return 0;
    return api_win_error(win, CORE_ERANK, fn, "rank %d is not a rank of the window (size %d)",
                         rank, win->size);
}

#endif
