/*
 * mpi.h: rdmpi's public interface, the C bindings of MPI (names, types and
 * constants of MPI-4.1). A function is declared here only once it works: a
 * program that needs a function rdmpi does not have yet fails to compile,
 * which is better than a stub that pretends. Every MPI_* function is also
 * available as PMPI_* for profiling tools.
 *
 * Handles are pointers to opaque structures; predefined handles are the
 * addresses of objects exported by librdmpi (rdmpi_* symbols).
 */
#ifndef RDMPI_MPI_H
#define RDMPI_MPI_H

#include <stddef.h>

#if defined(__GNUC__)
#define RDMPI_API __attribute__((visibility("default")))
#else
#define RDMPI_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The newest version whose required functions all work. */
#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define RDMPI_VERSION_STRING "0.1.0"
#define RDMPI 1

/* ---- Types ---------------------------------------------------------- */
typedef long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct rdmpi_comm *MPI_Comm;
typedef struct rdmpi_group *MPI_Group;
typedef struct rdmpi_datatype *MPI_Datatype;
typedef struct rdmpi_op *MPI_Op;
typedef struct rdmpi_request *MPI_Request;
typedef struct rdmpi_errhandler *MPI_Errhandler;
typedef struct rdmpi_info *MPI_Info;
typedef struct rdmpi_message *MPI_Message;
typedef struct rdmpi_win *MPI_Win;
typedef struct rdmpi_file *MPI_File;
typedef struct rdmpi_session *MPI_Session;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int rdmpi_cancelled;
    long long rdmpi_nbytes; /* bytes received */
} MPI_Status;

typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
/* MPI-1's name of the same type (MPI_Errhandler_create). */
typedef MPI_Comm_errhandler_function MPI_Handler_function;
typedef void MPI_File_errhandler_function(MPI_File *, int *, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *file_extent,
                                        void *extra_state);
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
/* Generalized requests (MPI_Grequest_start). */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

/* ---- Constants ------------------------------------------------------ */
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)

/* Attribute caching: callbacks and the predefined keyvals (communicators). */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
typedef MPI_Comm_copy_attr_function MPI_Copy_function;      /* MPI-1 names */
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_LASTUSEDCODE 6
#define MPI_APPNUM 7
#define MPI_BSEND_OVERHEAD 128
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_INFO_KEY 256
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_PORT_NAME 1024
#define MPI_MAX_DATAREP_STRING 128
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256

#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* MPI_Type_get_envelope: how a type was made */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_F90_REAL 13
#define MPI_COMBINER_F90_COMPLEX 14
#define MPI_COMBINER_F90_INTEGER 15
#define MPI_COMBINER_RESIZED 16
/* MPI-1 combiners of Fortran-only constructors, removed in MPI-3.0: never returned, defined
 * (as by both Open MPI and MPICH) so that code that tests for them still compiles */
#define MPI_COMBINER_HVECTOR_INTEGER 17
#define MPI_COMBINER_HINDEXED_INTEGER 18
#define MPI_COMBINER_STRUCT_INTEGER 19

/* MPI_Type_create_subarray/darray: array storage order */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
/* MPI_Type_create_darray: distributions and the default distribution argument */
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
/* MPI_Type_match_size */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* MPI-IO: access modes (bit flags), seek whence, views */
#define MPI_MODE_RDONLY 2
#define MPI_MODE_RDWR 8
#define MPI_MODE_WRONLY 4
#define MPI_MODE_CREATE 1
#define MPI_MODE_EXCL 64
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT (-54278278LL)
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)
/* ROMIO's names for the requests of nonblocking file calls, which MPICH and Open MPI also
 * provide and older codes still use */
#define MPIO_Request MPI_Request
#define MPIO_REQUEST_NULL MPI_REQUEST_NULL
#define MPIO_Test MPI_Test
#define MPIO_Wait MPI_Wait
#define PMPIO_Test PMPI_Test
#define PMPIO_Wait PMPI_Wait

#define MPI_COMM_TYPE_SHARED 1
#define MPI_COMM_TYPE_HW_UNGUIDED 2
#define MPI_COMM_TYPE_HW_GUIDED 3

#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_UNWEIGHTED ((int *)2)
#define MPI_WEIGHTS_EMPTY ((int *)3)
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3

/* Error classes (MPI-4.1 section 9.4). */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_BAD_FILE 22
#define MPI_ERR_CONVERSION 23
#define MPI_ERR_DUP_DATAREP 24
#define MPI_ERR_FILE_EXISTS 25
#define MPI_ERR_FILE_IN_USE 26
#define MPI_ERR_FILE 27
#define MPI_ERR_INFO 28
#define MPI_ERR_INFO_KEY 29
#define MPI_ERR_INFO_VALUE 30
#define MPI_ERR_INFO_NOKEY 31
#define MPI_ERR_IO 32
#define MPI_ERR_NAME 33
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_NOT_SAME 35
#define MPI_ERR_NO_SPACE 36
#define MPI_ERR_NO_SUCH_FILE 37
#define MPI_ERR_PORT 38
#define MPI_ERR_QUOTA 39
#define MPI_ERR_READ_ONLY 40
#define MPI_ERR_SERVICE 41
#define MPI_ERR_SPAWN 42
#define MPI_ERR_UNSUPPORTED_DATAREP 43
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_WIN 45
#define MPI_ERR_BASE 46
#define MPI_ERR_LOCKTYPE 47
#define MPI_ERR_KEYVAL 48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_SIZE 51
#define MPI_ERR_DISP 52
#define MPI_ERR_ASSERT 53
#define MPI_ERR_RMA_RANGE 54
#define MPI_ERR_RMA_ATTACH 55
#define MPI_ERR_RMA_SHARED 56
#define MPI_ERR_RMA_FLAVOR 57
#define MPI_ERR_SESSION 58
#define MPI_ERR_PROC_ABORTED 59
#define MPI_ERR_VALUE_TOO_LARGE 60
#define MPI_ERR_ERRHANDLER 61
/* The tools interface's error classes (returned by MPI_T_* calls only). */
#define MPI_T_ERR_MEMORY 62
#define MPI_T_ERR_NOT_INITIALIZED 63
#define MPI_T_ERR_CANNOT_INIT 64
#define MPI_T_ERR_INVALID_INDEX 65
#define MPI_T_ERR_INVALID_ITEM 66
#define MPI_T_ERR_INVALID_HANDLE 67
#define MPI_T_ERR_OUT_OF_HANDLES 68
#define MPI_T_ERR_OUT_OF_SESSIONS 69
#define MPI_T_ERR_INVALID_SESSION 70
#define MPI_T_ERR_CVAR_SET_NOT_NOW 71
#define MPI_T_ERR_CVAR_SET_NEVER 72
#define MPI_T_ERR_PVAR_NO_STARTSTOP 73
#define MPI_T_ERR_PVAR_NO_WRITE 74
#define MPI_T_ERR_PVAR_NO_ATOMIC 75
#define MPI_T_ERR_INVALID_NAME 76
#define MPI_T_ERR_INVALID 77
#define MPI_ERR_LASTCODE 127

/* ---- Predefined objects (defined in librdmpi) ----------------------- */
extern RDMPI_API struct rdmpi_comm rdmpi_comm_world, rdmpi_comm_self;
extern RDMPI_API struct rdmpi_group rdmpi_group_empty;
extern RDMPI_API struct rdmpi_errhandler rdmpi_errors_are_fatal, rdmpi_errors_return,
    rdmpi_errors_abort;
extern RDMPI_API struct rdmpi_info rdmpi_info_env;

#define MPI_COMM_WORLD (&rdmpi_comm_world)
#define MPI_COMM_SELF (&rdmpi_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_GROUP_EMPTY (&rdmpi_group_empty)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_ERRORS_ARE_FATAL (&rdmpi_errors_are_fatal)
#define MPI_ERRORS_RETURN (&rdmpi_errors_return)
#define MPI_ERRORS_ABORT (&rdmpi_errors_abort)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_INFO_ENV (&rdmpi_info_env)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)1)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_FILE_NULL ((MPI_File)0)
#define MPI_SESSION_NULL ((MPI_Session)0)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)

/* Predefined datatypes. */
#define RDMPI_DT(name) extern RDMPI_API struct rdmpi_datatype rdmpi_dt_##name;
RDMPI_DT(char) RDMPI_DT(signed_char) RDMPI_DT(unsigned_char) RDMPI_DT(byte) RDMPI_DT(packed)
RDMPI_DT(short) RDMPI_DT(unsigned_short) RDMPI_DT(int) RDMPI_DT(unsigned)
RDMPI_DT(long) RDMPI_DT(unsigned_long) RDMPI_DT(long_long) RDMPI_DT(unsigned_long_long)
RDMPI_DT(float) RDMPI_DT(double) RDMPI_DT(long_double) RDMPI_DT(wchar) RDMPI_DT(c_bool)
RDMPI_DT(int8_t) RDMPI_DT(int16_t) RDMPI_DT(int32_t) RDMPI_DT(int64_t)
RDMPI_DT(uint8_t) RDMPI_DT(uint16_t) RDMPI_DT(uint32_t) RDMPI_DT(uint64_t)
RDMPI_DT(aint) RDMPI_DT(offset) RDMPI_DT(count)
RDMPI_DT(c_float_complex) RDMPI_DT(c_double_complex) RDMPI_DT(c_long_double_complex)
RDMPI_DT(float_int) RDMPI_DT(double_int) RDMPI_DT(long_int) RDMPI_DT(2int)
RDMPI_DT(short_int) RDMPI_DT(long_double_int)
RDMPI_DT(integer) RDMPI_DT(real) RDMPI_DT(double_precision) RDMPI_DT(complex)
RDMPI_DT(double_complex) RDMPI_DT(logical) RDMPI_DT(character) RDMPI_DT(integer1)
RDMPI_DT(integer2) RDMPI_DT(integer4) RDMPI_DT(integer8) RDMPI_DT(real4) RDMPI_DT(real8)
RDMPI_DT(complex8) RDMPI_DT(complex16) RDMPI_DT(2integer) RDMPI_DT(2real)
RDMPI_DT(2double_precision) RDMPI_DT(cxx_bool) RDMPI_DT(cxx_float_complex)
RDMPI_DT(cxx_double_complex) RDMPI_DT(cxx_long_double_complex) RDMPI_DT(real16)
RDMPI_DT(complex32) RDMPI_DT(lb) RDMPI_DT(ub)
#undef RDMPI_DT

#define MPI_CHAR (&rdmpi_dt_char)
#define MPI_SIGNED_CHAR (&rdmpi_dt_signed_char)
#define MPI_UNSIGNED_CHAR (&rdmpi_dt_unsigned_char)
#define MPI_BYTE (&rdmpi_dt_byte)
#define MPI_PACKED (&rdmpi_dt_packed)
#define MPI_SHORT (&rdmpi_dt_short)
#define MPI_UNSIGNED_SHORT (&rdmpi_dt_unsigned_short)
#define MPI_INT (&rdmpi_dt_int)
#define MPI_UNSIGNED (&rdmpi_dt_unsigned)
#define MPI_LONG (&rdmpi_dt_long)
#define MPI_UNSIGNED_LONG (&rdmpi_dt_unsigned_long)
#define MPI_LONG_LONG_INT (&rdmpi_dt_long_long)
#define MPI_LONG_LONG (&rdmpi_dt_long_long)
#define MPI_UNSIGNED_LONG_LONG (&rdmpi_dt_unsigned_long_long)
#define MPI_FLOAT (&rdmpi_dt_float)
#define MPI_DOUBLE (&rdmpi_dt_double)
#define MPI_LONG_DOUBLE (&rdmpi_dt_long_double)
#define MPI_WCHAR (&rdmpi_dt_wchar)
#define MPI_C_BOOL (&rdmpi_dt_c_bool)
#define MPI_INT8_T (&rdmpi_dt_int8_t)
#define MPI_INT16_T (&rdmpi_dt_int16_t)
#define MPI_INT32_T (&rdmpi_dt_int32_t)
#define MPI_INT64_T (&rdmpi_dt_int64_t)
#define MPI_UINT8_T (&rdmpi_dt_uint8_t)
#define MPI_UINT16_T (&rdmpi_dt_uint16_t)
#define MPI_UINT32_T (&rdmpi_dt_uint32_t)
#define MPI_UINT64_T (&rdmpi_dt_uint64_t)
#define MPI_AINT (&rdmpi_dt_aint)
#define MPI_OFFSET (&rdmpi_dt_offset)
#define MPI_COUNT (&rdmpi_dt_count)
#define MPI_C_COMPLEX (&rdmpi_dt_c_float_complex)
#define MPI_C_FLOAT_COMPLEX (&rdmpi_dt_c_float_complex)
#define MPI_C_DOUBLE_COMPLEX (&rdmpi_dt_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX (&rdmpi_dt_c_long_double_complex)
#define MPI_FLOAT_INT (&rdmpi_dt_float_int)
#define MPI_DOUBLE_INT (&rdmpi_dt_double_int)
#define MPI_LONG_INT (&rdmpi_dt_long_int)
#define MPI_2INT (&rdmpi_dt_2int)
#define MPI_SHORT_INT (&rdmpi_dt_short_int)
#define MPI_LONG_DOUBLE_INT (&rdmpi_dt_long_double_int)
/* Fortran's types (gfortran's sizes: INTEGER and LOGICAL 4 bytes, .TRUE. is 1). */
#define MPI_INTEGER (&rdmpi_dt_integer)
#define MPI_REAL (&rdmpi_dt_real)
#define MPI_DOUBLE_PRECISION (&rdmpi_dt_double_precision)
#define MPI_COMPLEX (&rdmpi_dt_complex)
#define MPI_DOUBLE_COMPLEX (&rdmpi_dt_double_complex)
#define MPI_LOGICAL (&rdmpi_dt_logical)
#define MPI_CHARACTER (&rdmpi_dt_character)
#define MPI_INTEGER1 (&rdmpi_dt_integer1)
#define MPI_INTEGER2 (&rdmpi_dt_integer2)
#define MPI_INTEGER4 (&rdmpi_dt_integer4)
#define MPI_INTEGER8 (&rdmpi_dt_integer8)
#define MPI_REAL4 (&rdmpi_dt_real4)
#define MPI_REAL8 (&rdmpi_dt_real8)
#define MPI_COMPLEX8 (&rdmpi_dt_complex8)
#define MPI_COMPLEX16 (&rdmpi_dt_complex16)
#define MPI_2INTEGER (&rdmpi_dt_2integer)
#define MPI_2REAL (&rdmpi_dt_2real)
#define MPI_2DOUBLE_PRECISION (&rdmpi_dt_2double_precision)
#define MPI_CXX_BOOL (&rdmpi_dt_cxx_bool)
#define MPI_CXX_FLOAT_COMPLEX (&rdmpi_dt_cxx_float_complex)
#define MPI_CXX_DOUBLE_COMPLEX (&rdmpi_dt_cxx_double_complex)
#define MPI_CXX_LONG_DOUBLE_COMPLEX (&rdmpi_dt_cxx_long_double_complex)
/* Fortran's REAL(16) and COMPLEX(16) (gfortran: IEEE binary128, C's __float128). */
#define MPI_REAL16 (&rdmpi_dt_real16)
#define MPI_COMPLEX32 (&rdmpi_dt_complex32)
/* MPI-1's bound markers, only meaningful as entries of MPI_Type_struct (which turns them into
 * an explicit lower/upper bound); anywhere else they are not a datatype (MPI_ERR_TYPE). */
#define MPI_LB (&rdmpi_dt_lb)
#define MPI_UB (&rdmpi_dt_ub)

/* Predefined reduction operations. */
extern RDMPI_API struct rdmpi_op rdmpi_op_max, rdmpi_op_min, rdmpi_op_sum, rdmpi_op_prod, rdmpi_op_land, rdmpi_op_band, rdmpi_op_lor, rdmpi_op_bor, rdmpi_op_lxor, rdmpi_op_bxor, rdmpi_op_minloc, rdmpi_op_maxloc, rdmpi_op_replace, rdmpi_op_no_op;
#define MPI_MAX (&rdmpi_op_max)
#define MPI_MIN (&rdmpi_op_min)
#define MPI_SUM (&rdmpi_op_sum)
#define MPI_PROD (&rdmpi_op_prod)
#define MPI_LAND (&rdmpi_op_land)
#define MPI_BAND (&rdmpi_op_band)
#define MPI_LOR (&rdmpi_op_lor)
#define MPI_BOR (&rdmpi_op_bor)
#define MPI_LXOR (&rdmpi_op_lxor)
#define MPI_BXOR (&rdmpi_op_bxor)
#define MPI_MINLOC (&rdmpi_op_minloc)
#define MPI_MAXLOC (&rdmpi_op_maxloc)
#define MPI_REPLACE (&rdmpi_op_replace)
#define MPI_NO_OP (&rdmpi_op_no_op)

/* ---- Functions ------------------------------------------------------ */
RDMPI_API int MPI_Init(int *argc, char ***argv);
RDMPI_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
RDMPI_API int MPI_Query_thread(int *provided);
RDMPI_API int MPI_Is_thread_main(int *flag);
RDMPI_API int MPI_Initialized(int *flag);
RDMPI_API int MPI_Finalize(void);
RDMPI_API int MPI_Finalized(int *flag);
RDMPI_API int MPI_Abort(MPI_Comm comm, int errorcode);
RDMPI_API double MPI_Wtime(void);
RDMPI_API double MPI_Wtick(void);
RDMPI_API int MPI_Get_processor_name(char *name, int *resultlen);
RDMPI_API int MPI_Get_version(int *version, int *subversion);
RDMPI_API int MPI_Get_library_version(char *version, int *resultlen);
RDMPI_API int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
RDMPI_API int MPI_Free_mem(void *base);
RDMPI_API int MPI_Get_address(const void *location, MPI_Aint *address);
RDMPI_API MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
RDMPI_API MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
RDMPI_API int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
RDMPI_API int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
RDMPI_API int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
RDMPI_API int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
RDMPI_API int MPI_Errhandler_free(MPI_Errhandler *errhandler);
RDMPI_API int MPI_Error_string(int errorcode, char *string, int *resultlen);
RDMPI_API int MPI_Error_class(int errorcode, int *errorclass);
RDMPI_API int MPI_Add_error_class(int *errorclass);
RDMPI_API int MPI_Add_error_code(int errorclass, int *errorcode);
RDMPI_API int MPI_Add_error_string(int errorcode, const char *string);
RDMPI_API int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
RDMPI_API int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
RDMPI_API int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
RDMPI_API int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
RDMPI_API int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
RDMPI_API int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Buffer_attach(void *buffer, int size);
RDMPI_API int MPI_Buffer_detach(void *buffer_addr, int *size);
RDMPI_API int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
RDMPI_API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
RDMPI_API int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
RDMPI_API int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
RDMPI_API int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
RDMPI_API int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);
RDMPI_API int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status);
RDMPI_API int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request);
RDMPI_API int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
RDMPI_API int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
RDMPI_API int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
RDMPI_API int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
RDMPI_API int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
RDMPI_API int MPI_Status_set_cancelled(MPI_Status *status, int flag);
RDMPI_API int MPI_Wait(MPI_Request *request, MPI_Status *status);
RDMPI_API int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
RDMPI_API int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
RDMPI_API int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]);
RDMPI_API int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
RDMPI_API int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]);
RDMPI_API int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status);
RDMPI_API int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]);
RDMPI_API int MPI_Request_free(MPI_Request *request);
RDMPI_API int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
RDMPI_API int MPI_Cancel(MPI_Request *request);
RDMPI_API int MPI_Test_cancelled(const MPI_Status *status, int *flag);
RDMPI_API int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Start(MPI_Request *request);
RDMPI_API int MPI_Startall(int count, MPI_Request array_of_requests[]);
RDMPI_API int MPI_Comm_rank(MPI_Comm comm, int *rank);
RDMPI_API int MPI_Comm_size(MPI_Comm comm, int *size);
RDMPI_API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
RDMPI_API int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
RDMPI_API int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
RDMPI_API int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
RDMPI_API int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
RDMPI_API int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
RDMPI_API int MPI_Comm_free(MPI_Comm *comm);
RDMPI_API int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
RDMPI_API int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
RDMPI_API int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
RDMPI_API int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
RDMPI_API int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
RDMPI_API int MPI_Comm_remote_size(MPI_Comm comm, int *size);
RDMPI_API int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
RDMPI_API int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm);
RDMPI_API int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
RDMPI_API int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
RDMPI_API int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
RDMPI_API int MPI_Comm_get_parent(MPI_Comm *parent);
RDMPI_API int MPI_Comm_disconnect(MPI_Comm *comm);
RDMPI_API int MPI_Comm_join(int fd, MPI_Comm *intercomm);
RDMPI_API int MPI_Open_port(MPI_Info info, char *port_name);
RDMPI_API int MPI_Close_port(const char *port_name);
RDMPI_API int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
RDMPI_API int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
RDMPI_API int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name);
RDMPI_API int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name);
RDMPI_API int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name);
RDMPI_API int MPI_Group_size(MPI_Group group, int *size);
RDMPI_API int MPI_Group_rank(MPI_Group group, int *rank);
RDMPI_API int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
RDMPI_API int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
RDMPI_API int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
RDMPI_API int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
RDMPI_API int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
RDMPI_API int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
RDMPI_API int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
RDMPI_API int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
RDMPI_API int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]);
RDMPI_API int MPI_Group_free(MPI_Group *group);
RDMPI_API int MPI_Info_create(MPI_Info *info);
RDMPI_API int MPI_Info_set(MPI_Info info, const char *key, const char *value);
RDMPI_API int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
RDMPI_API int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);
RDMPI_API int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
RDMPI_API int MPI_Info_delete(MPI_Info info, const char *key);
RDMPI_API int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
RDMPI_API int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
RDMPI_API int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
RDMPI_API int MPI_Info_free(MPI_Info *info);
RDMPI_API int MPI_Type_size(MPI_Datatype datatype, int *size);
RDMPI_API int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
RDMPI_API int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
RDMPI_API int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
RDMPI_API int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
RDMPI_API int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
RDMPI_API int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_commit(MPI_Datatype *datatype);
RDMPI_API int MPI_Type_free(MPI_Datatype *datatype);
RDMPI_API int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
RDMPI_API int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
RDMPI_API int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
/* MPI-1's forms removed in MPI-3, kept for old codes (src/api/mpi1.c). */
RDMPI_API int MPI_Address(void *location, MPI_Aint *address);
RDMPI_API int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
RDMPI_API int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
RDMPI_API int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
RDMPI_API int MPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[], MPI_Datatype *newtype);
RDMPI_API int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
RDMPI_API int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
RDMPI_API int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
RDMPI_API int MPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
RDMPI_API int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm);
RDMPI_API int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm);
RDMPI_API int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
RDMPI_API int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state);
RDMPI_API int MPI_Comm_free_keyval(int *comm_keyval);
RDMPI_API int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
RDMPI_API int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
RDMPI_API int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
RDMPI_API int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state);
RDMPI_API int MPI_Type_free_keyval(int *type_keyval);
RDMPI_API int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
RDMPI_API int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
RDMPI_API int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
RDMPI_API int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state);
RDMPI_API int MPI_Keyval_free(int *keyval);
RDMPI_API int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
RDMPI_API int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
RDMPI_API int MPI_Attr_delete(MPI_Comm comm, int keyval);
RDMPI_API int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner);
RDMPI_API int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);

RDMPI_API int MPI_Barrier(MPI_Comm comm);
RDMPI_API int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
RDMPI_API int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
RDMPI_API int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
RDMPI_API int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op);
RDMPI_API int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
RDMPI_API int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
RDMPI_API int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
RDMPI_API int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
RDMPI_API int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
RDMPI_API int MPI_Op_free(MPI_Op *op);
RDMPI_API int MPI_Op_commutative(MPI_Op op, int *commute);
RDMPI_API int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
RDMPI_API int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
RDMPI_API int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
RDMPI_API int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
RDMPI_API int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
RDMPI_API int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Dims_create(int nnodes, int ndims, int dims[]);
RDMPI_API int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart);
RDMPI_API int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
RDMPI_API int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
RDMPI_API int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
RDMPI_API int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
RDMPI_API int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
RDMPI_API int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
RDMPI_API int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int *sourceweights, int outdegree, const int destinations[], const int *destweights, MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
RDMPI_API int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int *weights, MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
RDMPI_API int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);
RDMPI_API int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int *sourceweights, int maxoutdegree, int destinations[], int *destweights);
RDMPI_API int MPI_Topo_test(MPI_Comm comm, int *status);
RDMPI_API int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
RDMPI_API int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);

/* MPI-IO (chapter 14 of MPI-4.1; the MPI-3.1 set) */
RDMPI_API int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
RDMPI_API int MPI_File_close(MPI_File *fh);
RDMPI_API int MPI_File_delete(const char *filename, MPI_Info info);
RDMPI_API int MPI_File_set_size(MPI_File fh, MPI_Offset size);
RDMPI_API int MPI_File_preallocate(MPI_File fh, MPI_Offset size);
RDMPI_API int MPI_File_get_size(MPI_File fh, MPI_Offset *size);
RDMPI_API int MPI_File_get_group(MPI_File fh, MPI_Group *group);
RDMPI_API int MPI_File_get_amode(MPI_File fh, int *amode);
RDMPI_API int MPI_File_set_info(MPI_File fh, MPI_Info info);
RDMPI_API int MPI_File_get_info(MPI_File fh, MPI_Info *info_used);
RDMPI_API int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info);
RDMPI_API int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep);
RDMPI_API int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
RDMPI_API int MPI_File_get_position(MPI_File fh, MPI_Offset *offset);
RDMPI_API int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
RDMPI_API int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
RDMPI_API int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
RDMPI_API int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype);
RDMPI_API int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
RDMPI_API int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype);
RDMPI_API int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
RDMPI_API int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
RDMPI_API int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
RDMPI_API int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
RDMPI_API int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
RDMPI_API int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
RDMPI_API int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
RDMPI_API int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
RDMPI_API int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
RDMPI_API int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
RDMPI_API int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);
RDMPI_API int MPI_File_set_atomicity(MPI_File fh, int flag);
RDMPI_API int MPI_File_get_atomicity(MPI_File fh, int *flag);
RDMPI_API int MPI_File_sync(MPI_File fh);
RDMPI_API int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler);
RDMPI_API int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
RDMPI_API int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
RDMPI_API int MPI_File_call_errhandler(MPI_File fh, int errorcode);

/* Profiling interface: the same functions under PMPI_ names. */
RDMPI_API int PMPI_Init(int *argc, char ***argv);
RDMPI_API int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided);
RDMPI_API int PMPI_Query_thread(int *provided);
RDMPI_API int PMPI_Is_thread_main(int *flag);
RDMPI_API int PMPI_Initialized(int *flag);
RDMPI_API int PMPI_Finalize(void);
RDMPI_API int PMPI_Finalized(int *flag);
RDMPI_API int PMPI_Abort(MPI_Comm comm, int errorcode);
RDMPI_API double PMPI_Wtime(void);
RDMPI_API double PMPI_Wtick(void);
RDMPI_API int PMPI_Get_processor_name(char *name, int *resultlen);
RDMPI_API int PMPI_Get_version(int *version, int *subversion);
RDMPI_API int PMPI_Get_library_version(char *version, int *resultlen);
RDMPI_API int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
RDMPI_API int PMPI_Free_mem(void *base);
RDMPI_API int PMPI_Get_address(const void *location, MPI_Aint *address);
RDMPI_API MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
RDMPI_API MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
RDMPI_API int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
RDMPI_API int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
RDMPI_API int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
RDMPI_API int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
RDMPI_API int PMPI_Errhandler_free(MPI_Errhandler *errhandler);
RDMPI_API int PMPI_Error_string(int errorcode, char *string, int *resultlen);
RDMPI_API int PMPI_Error_class(int errorcode, int *errorclass);
RDMPI_API int PMPI_Add_error_class(int *errorclass);
RDMPI_API int PMPI_Add_error_code(int errorclass, int *errorcode);
RDMPI_API int PMPI_Add_error_string(int errorcode, const char *string);
RDMPI_API int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
RDMPI_API int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
RDMPI_API int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
RDMPI_API int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
RDMPI_API int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
RDMPI_API int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Buffer_attach(void *buffer, int size);
RDMPI_API int PMPI_Buffer_detach(void *buffer_addr, int *size);
RDMPI_API int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
RDMPI_API int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
RDMPI_API int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
RDMPI_API int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
RDMPI_API int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
RDMPI_API int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);
RDMPI_API int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status);
RDMPI_API int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request);
RDMPI_API int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
RDMPI_API int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
RDMPI_API int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
RDMPI_API int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
RDMPI_API int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
RDMPI_API int PMPI_Status_set_cancelled(MPI_Status *status, int flag);
RDMPI_API int PMPI_Wait(MPI_Request *request, MPI_Status *status);
RDMPI_API int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
RDMPI_API int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
RDMPI_API int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]);
RDMPI_API int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
RDMPI_API int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]);
RDMPI_API int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status);
RDMPI_API int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]);
RDMPI_API int PMPI_Request_free(MPI_Request *request);
RDMPI_API int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
RDMPI_API int PMPI_Cancel(MPI_Request *request);
RDMPI_API int PMPI_Test_cancelled(const MPI_Status *status, int *flag);
RDMPI_API int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Start(MPI_Request *request);
RDMPI_API int PMPI_Startall(int count, MPI_Request array_of_requests[]);
RDMPI_API int PMPI_Comm_rank(MPI_Comm comm, int *rank);
RDMPI_API int PMPI_Comm_size(MPI_Comm comm, int *size);
RDMPI_API int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
RDMPI_API int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
RDMPI_API int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
RDMPI_API int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
RDMPI_API int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
RDMPI_API int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
RDMPI_API int PMPI_Comm_free(MPI_Comm *comm);
RDMPI_API int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
RDMPI_API int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group);
RDMPI_API int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
RDMPI_API int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
RDMPI_API int PMPI_Comm_test_inter(MPI_Comm comm, int *flag);
RDMPI_API int PMPI_Comm_remote_size(MPI_Comm comm, int *size);
RDMPI_API int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
RDMPI_API int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm);
RDMPI_API int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
RDMPI_API int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
RDMPI_API int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
RDMPI_API int PMPI_Comm_get_parent(MPI_Comm *parent);
RDMPI_API int PMPI_Comm_disconnect(MPI_Comm *comm);
RDMPI_API int PMPI_Comm_join(int fd, MPI_Comm *intercomm);
RDMPI_API int PMPI_Open_port(MPI_Info info, char *port_name);
RDMPI_API int PMPI_Close_port(const char *port_name);
RDMPI_API int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
RDMPI_API int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
RDMPI_API int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name);
RDMPI_API int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name);
RDMPI_API int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name);
RDMPI_API int PMPI_Group_size(MPI_Group group, int *size);
RDMPI_API int PMPI_Group_rank(MPI_Group group, int *rank);
RDMPI_API int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
RDMPI_API int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
RDMPI_API int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
RDMPI_API int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
RDMPI_API int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
RDMPI_API int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
RDMPI_API int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
RDMPI_API int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
RDMPI_API int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]);
RDMPI_API int PMPI_Group_free(MPI_Group *group);
RDMPI_API int PMPI_Info_create(MPI_Info *info);
RDMPI_API int PMPI_Info_set(MPI_Info info, const char *key, const char *value);
RDMPI_API int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
RDMPI_API int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);
RDMPI_API int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
RDMPI_API int PMPI_Info_delete(MPI_Info info, const char *key);
RDMPI_API int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
RDMPI_API int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys);
RDMPI_API int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key);
RDMPI_API int PMPI_Info_free(MPI_Info *info);
RDMPI_API int PMPI_Type_size(MPI_Datatype datatype, int *size);
RDMPI_API int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
RDMPI_API int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
RDMPI_API int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
RDMPI_API int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
RDMPI_API int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
RDMPI_API int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_commit(MPI_Datatype *datatype);
RDMPI_API int PMPI_Type_free(MPI_Datatype *datatype);
RDMPI_API int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
RDMPI_API int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
RDMPI_API int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Address(void *location, MPI_Aint *address);
RDMPI_API int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
RDMPI_API int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
RDMPI_API int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
RDMPI_API int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[], MPI_Datatype *newtype);
RDMPI_API int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
RDMPI_API int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
RDMPI_API int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
RDMPI_API int PMPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm);
RDMPI_API int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm);
RDMPI_API int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
RDMPI_API int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state);
RDMPI_API int PMPI_Comm_free_keyval(int *comm_keyval);
RDMPI_API int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
RDMPI_API int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
RDMPI_API int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
RDMPI_API int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state);
RDMPI_API int PMPI_Type_free_keyval(int *type_keyval);
RDMPI_API int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
RDMPI_API int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
RDMPI_API int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
RDMPI_API int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state);
RDMPI_API int PMPI_Keyval_free(int *keyval);
RDMPI_API int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
RDMPI_API int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
RDMPI_API int PMPI_Attr_delete(MPI_Comm comm, int keyval);

/* The predefined attribute callbacks (functions, as MPI defines them). */
RDMPI_API int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *);
RDMPI_API int MPI_COMM_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
RDMPI_API int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void *, void *);
RDMPI_API int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void *, void *, void *, int *);
RDMPI_API int MPI_TYPE_DUP_FN(MPI_Datatype, int, void *, void *, void *, int *);
RDMPI_API int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void *, void *);
RDMPI_API int MPI_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *);
RDMPI_API int MPI_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
RDMPI_API int MPI_NULL_DELETE_FN(MPI_Comm, int, void *, void *);
RDMPI_API int PMPI_COMM_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *);
RDMPI_API int PMPI_COMM_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
RDMPI_API int PMPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void *, void *);
RDMPI_API int PMPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void *, void *, void *, int *);
RDMPI_API int PMPI_TYPE_DUP_FN(MPI_Datatype, int, void *, void *, void *, int *);
RDMPI_API int PMPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void *, void *);
RDMPI_API int PMPI_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *);
RDMPI_API int PMPI_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
RDMPI_API int PMPI_NULL_DELETE_FN(MPI_Comm, int, void *, void *);
RDMPI_API int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner);
RDMPI_API int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);

RDMPI_API int PMPI_Barrier(MPI_Comm comm);
RDMPI_API int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
RDMPI_API int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
RDMPI_API int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
RDMPI_API int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op);
RDMPI_API int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
RDMPI_API int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
RDMPI_API int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
RDMPI_API int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
RDMPI_API int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
RDMPI_API int PMPI_Op_free(MPI_Op *op);
RDMPI_API int PMPI_Op_commutative(MPI_Op op, int *commute);
RDMPI_API int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
RDMPI_API int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
RDMPI_API int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
RDMPI_API int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
RDMPI_API int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
RDMPI_API int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Dims_create(int nnodes, int ndims, int dims[]);
RDMPI_API int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart);
RDMPI_API int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
RDMPI_API int PMPI_Cartdim_get(MPI_Comm comm, int *ndims);
RDMPI_API int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
RDMPI_API int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
RDMPI_API int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
RDMPI_API int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
RDMPI_API int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int *sourceweights, int outdegree, const int destinations[], const int *destweights, MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
RDMPI_API int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int *weights, MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
RDMPI_API int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);
RDMPI_API int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int *sourceweights, int maxoutdegree, int destinations[], int *destweights);
RDMPI_API int PMPI_Topo_test(MPI_Comm comm, int *status);
RDMPI_API int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
RDMPI_API int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
RDMPI_API int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
RDMPI_API int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);

/* ---- More of MPI-3.1: info hints on communicators, graph topologies and
 * mapping, darray, external32, Type_match_size, generalized requests ---- */
RDMPI_API int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
RDMPI_API int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
RDMPI_API int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
RDMPI_API int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph);
RDMPI_API int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
RDMPI_API int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
RDMPI_API int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
RDMPI_API int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
RDMPI_API int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank);
RDMPI_API int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
RDMPI_API int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
RDMPI_API int MPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position);
RDMPI_API int MPI_Unpack_external(const char *datarep, const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype);
RDMPI_API int MPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size);
RDMPI_API int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request);
RDMPI_API int MPI_Grequest_complete(MPI_Request request);
RDMPI_API int MPI_Pcontrol(const int level, ...);
RDMPI_API int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
RDMPI_API int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
RDMPI_API int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
RDMPI_API int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph);
RDMPI_API int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
RDMPI_API int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
RDMPI_API int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
RDMPI_API int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
RDMPI_API int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank);
RDMPI_API int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
RDMPI_API int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
RDMPI_API int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position);
RDMPI_API int PMPI_Unpack_external(const char *datarep, const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype);
RDMPI_API int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size);
RDMPI_API int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request);
RDMPI_API int PMPI_Grequest_complete(MPI_Request request);
RDMPI_API int PMPI_Pcontrol(const int level, ...);
/* ---- Fortran: handle and status conversions (bindings/fortran) ------- */
/* An mpif.h/`mpi` status is MPI_F_STATUS_SIZE MPI_Fints; MPI_F_SOURCE, MPI_F_TAG and
 * MPI_F_ERROR index its fields from C (Fortran's MPI_SOURCE... minus one). */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
/* mpi_f08's TYPE(MPI_Status), as C sees it. */
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint rdmpi_private[3];
} MPI_F08_status;
#define RDMPI_CONV(T, N)                                                                   \
    RDMPI_API MPI_Fint MPI_##N##_c2f(T h); RDMPI_API T MPI_##N##_f2c(MPI_Fint h);           \
    RDMPI_API MPI_Fint PMPI_##N##_c2f(T h); RDMPI_API T PMPI_##N##_f2c(MPI_Fint h);
RDMPI_CONV(MPI_Comm, Comm) RDMPI_CONV(MPI_Datatype, Type) RDMPI_CONV(MPI_Group, Group)
RDMPI_CONV(MPI_Op, Op) RDMPI_CONV(MPI_Info, Info) RDMPI_CONV(MPI_Errhandler, Errhandler)
RDMPI_CONV(MPI_Request, Request) RDMPI_CONV(MPI_Message, Message) RDMPI_CONV(MPI_Win, Win)
RDMPI_CONV(MPI_File, File) RDMPI_CONV(MPI_Session, Session)
#undef RDMPI_CONV
RDMPI_API int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
RDMPI_API int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
RDMPI_API int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
RDMPI_API int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
RDMPI_API int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);
RDMPI_API int MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);
RDMPI_API int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
RDMPI_API int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
RDMPI_API int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
RDMPI_API int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
RDMPI_API int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);
RDMPI_API int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);
/* Fortran's SELECTED_INT_KIND/SELECTED_REAL_KIND types (a predefined type of that size). */
RDMPI_API int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
RDMPI_API int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
RDMPI_API int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
/* ---- One-sided communication ------------------------------------------ */
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
/* predefined window attributes (keyvals) */
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12
typedef void MPI_Win_errhandler_function(MPI_Win *, int *, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
RDMPI_API int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);
RDMPI_API int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
RDMPI_API int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
RDMPI_API int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
RDMPI_API int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
RDMPI_API int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
RDMPI_API int MPI_Win_detach(MPI_Win win, const void *base);
RDMPI_API int MPI_Win_free(MPI_Win *win);
RDMPI_API int MPI_Win_get_group(MPI_Win win, MPI_Group *group);
RDMPI_API int MPI_Win_set_name(MPI_Win win, const char *win_name);
RDMPI_API int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
RDMPI_API int MPI_Win_set_info(MPI_Win win, MPI_Info info);
RDMPI_API int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
RDMPI_API int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state);
RDMPI_API int MPI_Win_free_keyval(int *win_keyval);
RDMPI_API int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
RDMPI_API int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
RDMPI_API int MPI_Win_delete_attr(MPI_Win win, int win_keyval);
RDMPI_API int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler);
RDMPI_API int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
RDMPI_API int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
RDMPI_API int MPI_Win_call_errhandler(MPI_Win win, int errorcode);
RDMPI_API int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
RDMPI_API int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
RDMPI_API int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
RDMPI_API int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
RDMPI_API int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
RDMPI_API int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win);
RDMPI_API int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
RDMPI_API int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
RDMPI_API int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
RDMPI_API int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
RDMPI_API int MPI_Win_fence(int assert, MPI_Win win);
RDMPI_API int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
RDMPI_API int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
RDMPI_API int MPI_Win_complete(MPI_Win win);
RDMPI_API int MPI_Win_wait(MPI_Win win);
RDMPI_API int MPI_Win_test(MPI_Win win, int *flag);
RDMPI_API int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
RDMPI_API int MPI_Win_unlock(int rank, MPI_Win win);
RDMPI_API int MPI_Win_lock_all(int assert, MPI_Win win);
RDMPI_API int MPI_Win_unlock_all(MPI_Win win);
RDMPI_API int MPI_Win_flush(int rank, MPI_Win win);
RDMPI_API int MPI_Win_flush_all(MPI_Win win);
RDMPI_API int MPI_Win_flush_local(int rank, MPI_Win win);
RDMPI_API int MPI_Win_flush_local_all(MPI_Win win);
RDMPI_API int MPI_Win_sync(MPI_Win win);
RDMPI_API int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);
RDMPI_API int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
RDMPI_API int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
RDMPI_API int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
RDMPI_API int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
RDMPI_API int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
RDMPI_API int PMPI_Win_detach(MPI_Win win, const void *base);
RDMPI_API int PMPI_Win_free(MPI_Win *win);
RDMPI_API int PMPI_Win_get_group(MPI_Win win, MPI_Group *group);
RDMPI_API int PMPI_Win_set_name(MPI_Win win, const char *win_name);
RDMPI_API int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
RDMPI_API int PMPI_Win_set_info(MPI_Win win, MPI_Info info);
RDMPI_API int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
RDMPI_API int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state);
RDMPI_API int PMPI_Win_free_keyval(int *win_keyval);
RDMPI_API int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
RDMPI_API int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
RDMPI_API int PMPI_Win_delete_attr(MPI_Win win, int win_keyval);
RDMPI_API int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler);
RDMPI_API int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
RDMPI_API int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
RDMPI_API int PMPI_Win_call_errhandler(MPI_Win win, int errorcode);
RDMPI_API int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
RDMPI_API int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
RDMPI_API int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
RDMPI_API int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
RDMPI_API int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
RDMPI_API int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win);
RDMPI_API int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
RDMPI_API int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
RDMPI_API int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
RDMPI_API int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
RDMPI_API int PMPI_Win_fence(int assert, MPI_Win win);
RDMPI_API int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win);
RDMPI_API int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win);
RDMPI_API int PMPI_Win_complete(MPI_Win win);
RDMPI_API int PMPI_Win_wait(MPI_Win win);
RDMPI_API int PMPI_Win_test(MPI_Win win, int *flag);
RDMPI_API int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
RDMPI_API int PMPI_Win_unlock(int rank, MPI_Win win);
RDMPI_API int PMPI_Win_lock_all(int assert, MPI_Win win);
RDMPI_API int PMPI_Win_unlock_all(MPI_Win win);
RDMPI_API int PMPI_Win_flush(int rank, MPI_Win win);
RDMPI_API int PMPI_Win_flush_all(MPI_Win win);
RDMPI_API int PMPI_Win_flush_local(int rank, MPI_Win win);
RDMPI_API int PMPI_Win_flush_local_all(MPI_Win win);
RDMPI_API int PMPI_Win_sync(MPI_Win win);
RDMPI_API int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
RDMPI_API int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
RDMPI_API int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state);
RDMPI_API int PMPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
RDMPI_API int PMPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out, int *flag);
RDMPI_API int PMPI_WIN_NULL_DELETE_FN(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state);
/* MPI-IO */
RDMPI_API int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
RDMPI_API int PMPI_File_close(MPI_File *fh);
RDMPI_API int PMPI_File_delete(const char *filename, MPI_Info info);
RDMPI_API int PMPI_File_set_size(MPI_File fh, MPI_Offset size);
RDMPI_API int PMPI_File_preallocate(MPI_File fh, MPI_Offset size);
RDMPI_API int PMPI_File_get_size(MPI_File fh, MPI_Offset *size);
RDMPI_API int PMPI_File_get_group(MPI_File fh, MPI_Group *group);
RDMPI_API int PMPI_File_get_amode(MPI_File fh, int *amode);
RDMPI_API int PMPI_File_set_info(MPI_File fh, MPI_Info info);
RDMPI_API int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used);
RDMPI_API int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info);
RDMPI_API int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep);
RDMPI_API int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
RDMPI_API int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset);
RDMPI_API int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
RDMPI_API int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
RDMPI_API int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
RDMPI_API int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
RDMPI_API int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
RDMPI_API int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype);
RDMPI_API int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
RDMPI_API int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype);
RDMPI_API int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
RDMPI_API int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
RDMPI_API int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
RDMPI_API int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
RDMPI_API int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
RDMPI_API int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
RDMPI_API int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
RDMPI_API int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
RDMPI_API int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
RDMPI_API int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
RDMPI_API int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);
RDMPI_API int PMPI_File_set_atomicity(MPI_File fh, int flag);
RDMPI_API int PMPI_File_get_atomicity(MPI_File fh, int *flag);
RDMPI_API int PMPI_File_sync(MPI_File fh);
RDMPI_API int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler);
RDMPI_API int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
RDMPI_API int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
RDMPI_API int PMPI_File_call_errhandler(MPI_File fh, int errorcode);

/* ---- The tools interface (MPI_T, chapter 14 of MPI-3.1) ------------------
 * Control variables: every RDMPI_* setting (rdmpi_info lists the same), with
 * its description and bounds; the ones the library reads where it uses them
 * can be written while it runs. Performance variables: what p2p and the
 * transports count. Usable before MPI_Init and after MPI_Finalize. */
typedef struct rdmpi_t_enum *MPI_T_enum;
typedef struct rdmpi_t_cvar_handle *MPI_T_cvar_handle;
typedef struct rdmpi_t_pvar_handle *MPI_T_pvar_handle;
typedef struct rdmpi_t_pvar_session *MPI_T_pvar_session;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)1)
enum {
    MPI_T_VERBOSITY_USER_BASIC = 1, MPI_T_VERBOSITY_USER_DETAIL, MPI_T_VERBOSITY_USER_ALL,
    MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_VERBOSITY_TUNER_ALL,
    MPI_T_VERBOSITY_MPIDEV_BASIC, MPI_T_VERBOSITY_MPIDEV_DETAIL, MPI_T_VERBOSITY_MPIDEV_ALL
};
enum {
    MPI_T_BIND_NO_OBJECT, MPI_T_BIND_MPI_COMM, MPI_T_BIND_MPI_DATATYPE,
    MPI_T_BIND_MPI_ERRHANDLER, MPI_T_BIND_MPI_FILE, MPI_T_BIND_MPI_GROUP, MPI_T_BIND_MPI_OP,
    MPI_T_BIND_MPI_REQUEST, MPI_T_BIND_MPI_WIN, MPI_T_BIND_MPI_MESSAGE, MPI_T_BIND_MPI_INFO,
    MPI_T_BIND_MPI_SESSION /* MPI-4's name; no variable binds to it (no sessions yet) */
};
enum {
    MPI_T_SCOPE_CONSTANT, MPI_T_SCOPE_READONLY, MPI_T_SCOPE_LOCAL, MPI_T_SCOPE_GROUP,
    MPI_T_SCOPE_GROUP_EQ, MPI_T_SCOPE_ALL, MPI_T_SCOPE_ALL_EQ
};
enum {
    MPI_T_PVAR_CLASS_STATE, MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_SIZE,
    MPI_T_PVAR_CLASS_PERCENTAGE, MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_PVAR_CLASS_LOWWATERMARK,
    MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_AGGREGATE, MPI_T_PVAR_CLASS_TIMER,
    MPI_T_PVAR_CLASS_GENERIC
};
RDMPI_API int MPI_T_init_thread(int required, int *provided);
RDMPI_API int MPI_T_finalize(void);
RDMPI_API int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);
RDMPI_API int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len);
RDMPI_API int MPI_T_cvar_get_num(int *num_cvar);
RDMPI_API int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope);
RDMPI_API int MPI_T_cvar_get_index(const char *name, int *cvar_index);
RDMPI_API int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count);
RDMPI_API int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle);
RDMPI_API int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf);
RDMPI_API int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf);
RDMPI_API int MPI_T_pvar_get_num(int *num_pvar);
RDMPI_API int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *readonly, int *continuous, int *atomic);
RDMPI_API int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index);
RDMPI_API int MPI_T_pvar_session_create(MPI_T_pvar_session *session);
RDMPI_API int MPI_T_pvar_session_free(MPI_T_pvar_session *session);
RDMPI_API int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle, MPI_T_pvar_handle *handle, int *count);
RDMPI_API int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
RDMPI_API int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
RDMPI_API int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
RDMPI_API int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
RDMPI_API int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
RDMPI_API int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
RDMPI_API int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
RDMPI_API int MPI_T_category_get_num(int *num_cat);
RDMPI_API int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars, int *num_pvars, int *num_categories);
RDMPI_API int MPI_T_category_get_index(const char *name, int *cat_index);
RDMPI_API int MPI_T_category_get_cvars(int cat_index, int len, int indices[]);
RDMPI_API int MPI_T_category_get_pvars(int cat_index, int len, int indices[]);
RDMPI_API int MPI_T_category_get_categories(int cat_index, int len, int indices[]);
RDMPI_API int MPI_T_category_changed(int *stamp);
/* and under PMPI_ names */
RDMPI_API int PMPI_T_init_thread(int required, int *provided);
RDMPI_API int PMPI_T_finalize(void);
RDMPI_API int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);
RDMPI_API int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len);
RDMPI_API int PMPI_T_cvar_get_num(int *num_cvar);
RDMPI_API int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope);
RDMPI_API int PMPI_T_cvar_get_index(const char *name, int *cvar_index);
RDMPI_API int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count);
RDMPI_API int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle);
RDMPI_API int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf);
RDMPI_API int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf);
RDMPI_API int PMPI_T_pvar_get_num(int *num_pvar);
RDMPI_API int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *readonly, int *continuous, int *atomic);
RDMPI_API int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index);
RDMPI_API int PMPI_T_pvar_session_create(MPI_T_pvar_session *session);
RDMPI_API int PMPI_T_pvar_session_free(MPI_T_pvar_session *session);
RDMPI_API int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle, MPI_T_pvar_handle *handle, int *count);
RDMPI_API int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
RDMPI_API int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
RDMPI_API int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
RDMPI_API int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
RDMPI_API int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
RDMPI_API int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
RDMPI_API int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
RDMPI_API int PMPI_T_category_get_num(int *num_cat);
RDMPI_API int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars, int *num_pvars, int *num_categories);
RDMPI_API int PMPI_T_category_get_index(const char *name, int *cat_index);
RDMPI_API int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]);
RDMPI_API int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]);
RDMPI_API int PMPI_T_category_get_categories(int cat_index, int len, int indices[]);
RDMPI_API int PMPI_T_category_changed(int *stamp);

/* ---- rdmpi extensions (not MPI; test with #ifdef RDMPI) ------------- */
/* The name of the transport ("self", "shm", "verbs", "tcp") that carries this rank's messages to
 * rank `rank` of comm, making first contact with it if none was made yet (the choice is then
 * kept); *resultlen gets its length, name at most MPI_MAX_OBJECT_NAME bytes with the NUL. */
RDMPI_API int rdmpi_peer_transport(MPI_Comm comm, int rank, char *name, int *resultlen);

#ifdef __cplusplus
}
#endif
#endif /* RDMPI_MPI_H */
