/*
 * The MPI-IO entry points' shared checks and error path (file.c). Errors of
 * file calls go to the file's error handler; calls without a file (open,
 * delete, Register_datarep) and invalid file handles use MPI_FILE_NULL's,
 * which is MPI_ERRORS_RETURN until the program sets another (MPI-4.1 9.3).
 */
#ifndef RDMPI_API_FILE_H
#define RDMPI_API_FILE_H

#include "api/api.h"
#include "io/io.h"

/* Runs fh's handler (MPI_FILE_NULL's when fh is not a file) for code (a CORE_* code),
 * with a message naming the call; returns the error class. */
int api_file_error(MPI_File fh, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for an MPI error class or code (MPI_File_call_errhandler). */
int api_file_raise(MPI_File fh, int cls, const char *fn, const char *msg);
/* A CORE_* failure of io_*: the message is the file's last_error when set. */
int api_file_fail(MPI_File fh, int code, const char *fn);
/* 0 if fh is an open file, else the error (MPI_ERR_FILE). */
int api_check_file(MPI_File fh, const char *fn);

#endif
