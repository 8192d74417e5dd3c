/*
 * Names and descriptions of MPI error classes, and the table of error
 * classes, codes and strings added at run time (MPI_Add_error_*).
 */
#ifndef RDMPI_API_ERRSTRING_H
#define RDMPI_API_ERRSTRING_H

/* "MPI_ERR_RANK" for a predefined class; a fixed placeholder otherwise (never NULL). */
const char *api_class_name(int cls);
/* "invalid rank" for a predefined class; a fixed placeholder otherwise (never NULL). */
const char *api_class_description(int cls);
/* The class of a class or code added by MPI_Add_error_class/code, or -1. */
int api_user_code_class(int code);
/* The largest class or code handed out so far (MPI_LASTUSEDCODE), at least MPI_ERR_LASTCODE. */
int api_last_used_code(void);

#endif
