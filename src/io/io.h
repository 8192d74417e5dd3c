/*
 * MPI-IO (src/io, prefix io_): files opened by a group of processes, views,
 * independent and collective access, file pointers, and their POSIX back end.
 *
 * The layer sits below src/api and above the collectives: it moves data
 * between ranks with the PMPI_ collectives on a private duplicate of the
 * opening communicator (so it never matches user traffic), and reaches the
 * file system through POSIX calls only (ext4, tmpfs, NFS). It sends no wire
 * message of its own.
 *
 * Functions return 0 or a negative CORE_E* code; a failure of the file
 * system also leaves a description (call, file name, strerror) in the
 * file's last_error, which src/api puts in the error message.
 */
#ifndef RDMPI_IO_H
#define RDMPI_IO_H

#include <stddef.h>
#include <sys/types.h>
#include "mpi.h"

/* One contiguous run of the file, in the order of the access's data. */
typedef struct io_piece {
    MPI_Offset off;
    MPI_Offset len;
} io_piece_t;

/* The hints in use (info keys named as ROMIO names them). */
typedef struct io_hints {
    int cb_nodes;            /* aggregators for collective buffering */
    MPI_Offset cb_buffer_size;
    int cb_read, cb_write;   /* IO_ENABLE, IO_DISABLE, IO_AUTOMATIC */
    int ds_read, ds_write;   /* data sieving of independent access */
    MPI_Offset ind_rd_buffer_size, ind_wr_buffer_size;
    int file_perm;           /* mode of a created file */
    int cb_push;             /* rdmpi_cb_push: collective writes through node-shared windows
                              * when every rank is on one node (push.c), unless IO_DISABLE */
} io_hints_t;

enum { IO_AUTOMATIC = 0, IO_ENABLE = 1, IO_DISABLE = 2 };

/* A collective access in progress (icoll.c). */
typedef struct io_job io_job_t;
/* Called once when a collective access ends: rc 0 or a CORE_* code, and the bytes moved. */
typedef void io_done_fn(void *arg, int rc, MPI_Offset bytes);

/* The active split collective of a file (MPI_File_*_begin/_end). */
enum { IO_SPLIT_NONE = 0, IO_SPLIT_READ_AT, IO_SPLIT_WRITE_AT, IO_SPLIT_READ, IO_SPLIT_WRITE,
       IO_SPLIT_READ_ORD, IO_SPLIT_WRITE_ORD };

struct rdmpi_file {
    MPI_Comm comm;           /* private duplicate, MPI_ERRORS_RETURN */
    int rank, size;
    int fd;
    char *path;
    int amode;
    int atomic;
    MPI_Errhandler errh;
    MPI_Info info;           /* the hints in use, for MPI_File_get_info */
    io_hints_t hints;
    MPI_Offset blksize;      /* file domains are aligned to it */
    int naggr;
    int *aggr;               /* comm ranks of the aggregators */
    int is_aggr;
    int cb_nodes_set;        /* the cb_nodes hint was given (else the default's choice) */
    int local;               /* a node-local file system, the page cache every rank of the
                              * node shares is the file: 2 tmpfs/ramfs, 1 ext4, xfs, ... */

    /* the view */
    MPI_Offset disp;
    MPI_Datatype etype, ftype;
    char datarep[MPI_MAX_DATAREP_STRING];
    int x32;                 /* the view's data representation is external32 */
    MPI_Offset fp;           /* individual file pointer, in etypes */

    /* the shared file pointer: a counter in a lock file (shfp.c) */
    char *shfp_path;
    int shfp_fd;

    int split;               /* IO_SPLIT_* */
    MPI_Status split_status;
    int split_rc;
    MPI_Request split_req;   /* a split collective _all/_at_all running in the background */

    /* collective accesses started and not finished, run one at a time in this order */
    io_job_t *jobs, *jobs_tail;
    int fint;                /* Fortran handle, 0 until MPI_File_c2f */

    /* collective buffering's buffers, kept from call to call: touching fresh pages costs
     * more than the copies through them (twophase.c) */
    char *cb_win, *cb_sbuf, *cb_rbuf, *cb_rseg;
    size_t cb_wincap, cb_sbcap, cb_rbcap, cb_rsegcap;
    /* every aggregator's two write windows in node-shared memory, made at open when all
     * ranks share a node (push.c): cb_shbase[i] is aggregator i's part, NULL: none */
    MPI_Win cb_shwin;
    char **cb_shbase;
    MPI_Offset cb_shcb;      /* the window size they were made for */
    long long cb_shseq;      /* rounds written through them so far (the same on every rank) */

    char last_error[512];
};

/* File creation and its properties (file.c). */
/* why: what failed, for the error message. */
int io_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, MPI_File *out, char *why,
            size_t whylen);
int io_close(MPI_File fh);
int io_delete(const char *path, char *why, size_t whylen);
int io_set_size(MPI_File fh, MPI_Offset size, int prealloc);
int io_get_size(MPI_File fh, MPI_Offset *size);
int io_set_info(MPI_File fh, MPI_Info info);
int io_sync(MPI_File fh);
int io_set_atomicity(MPI_File fh, int flag);
/* A CORE_* code for errno e after call op on path; describes it in why. */
int io_errno_code(int e, const char *op, const char *path, char *why, size_t whylen);
int io_fail(MPI_File fh, int e, const char *op);

/* Hints (hints.c). */
void io_hints_default(io_hints_t *h);
/* Takes the keys of info that rdmpi knows into h, records them in used. */
int io_hints_parse(io_hints_t *h, MPI_Info info, MPI_Info used);
int io_hints_export(const io_hints_t *h, MPI_Offset blksize, MPI_Info used);

/* Views (view.c). */
int io_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype ftype,
                const char *datarep);
/* The file runs of nbytes of view data starting at view byte vbyte (etype
 * position times etype size). *pieces is malloc'd (NULL when n is 0). */
int io_view_pieces(MPI_File fh, MPI_Offset vbyte, MPI_Offset nbytes, io_piece_t **pieces,
                   size_t *n);
/* The absolute byte of view position pos (etypes). */
MPI_Offset io_view_byte(MPI_File fh, MPI_Offset pos);
/* The view position (etypes) of the first view byte at or after absolute byte off. */
MPI_Offset io_view_pos_of_byte(MPI_File fh, MPI_Offset off);
/* The current end of the file as a view position (MPI_SEEK_END). */
int io_view_end(MPI_File fh, MPI_Offset *pos);
int io_type_extent(MPI_File fh, MPI_Datatype dt, MPI_Aint *extent);

/* Data access (rw.c): count items of dt at buf, at view position pos
 * (etypes). coll: every rank of the file calls (collective buffering may
 * be used). *bytes: the bytes moved (a read stops at the end of the file). */
int io_access(MPI_File fh, int write, int coll, MPI_Offset pos, void *buf, int count,
              MPI_Datatype dt, MPI_Offset *bytes);

/* The data representation (rw.c). CORE_EDATAREP (why in last_error) unless dt's elements
 * keep their size in external32. */
int io_x32_check(MPI_File fh, MPI_Datatype dt, const char *what);
/* count items of dt at buf as the stream the file holds (packed; converted to external32
 * under such a view), and back: got bytes of the stream (a read may stop early). */
int io_stream_pack(MPI_File fh, char *data, const void *buf, int count, MPI_Datatype dt);
int io_stream_unpack(MPI_File fh, void *buf, int count, MPI_Datatype dt, char *data,
                     MPI_Offset got);

/* A place in the stream of count items of dt at buf (stream.c): stream bytes packed from,
 * or unpacked into, the user's buffer a range at a time (a non-contiguous memory type
 * without a packed copy of the whole access). off + len <= count * dt->size. */
typedef struct io_cursor {
    void *buf;
    size_t count;
    MPI_Datatype dt;
    MPI_Offset pos;                /* the stream byte the fields below stand at */
    size_t item, tile, blk, in;
} io_cursor_t;

void io_cursor_init(io_cursor_t *c, void *buf, size_t count, MPI_Datatype dt);
void io_cursor_pack(io_cursor_t *c, char *dst, MPI_Offset off, size_t len);
void io_cursor_unpack(io_cursor_t *c, const char *src, MPI_Offset off, size_t len);

/* Independent access to the runs p (rw.c); takes the atomic-mode lock. sieve 0: each run
 * on its own, whatever the ds_read/ds_write hints say. */
int io_access_indep(MPI_File fh, int write, int sieve, const io_piece_t *p, size_t n,
                    char *data, MPI_Offset nbytes, MPI_Offset *bytes);
int io_pieces_sorted(const io_piece_t *p, size_t n);
/* The same from and into the user's buffer through c, a chunk of the stream at a time (a
 * non-contiguous memory type, native representation). p is changed while it runs and
 * restored. */
int io_access_indep_mem(MPI_File fh, int write, int sieve, io_piece_t *p, size_t n,
                        io_cursor_t *c, MPI_Offset nbytes, MPI_Offset *bytes);

/* Collective access (icoll.c): io_coll_start does the local part and returns; the
 * rest runs from MPI's progress engine and ends with done(arg, rc, bytes), which may
 * come before io_coll_start returns. buf and dt stay in use until then. */
int io_coll_start(MPI_File fh, int write, MPI_Offset pos, void *buf, int count, MPI_Datatype dt,
                  io_done_fn *done, void *arg);
/* The same, waiting for the end: the blocking _all calls. */
int io_coll_access(MPI_File fh, int write, MPI_Offset pos, void *buf, int count, MPI_Datatype dt,
                   MPI_Offset *bytes);
/* Waits until fh's collective accesses have ended: whatever else uses the file's
 * communicator calls it first, so every rank starts its collectives in one order. */
void io_drain(MPI_File fh);

/* POSIX access to file runs (posix.c). data is the access's contiguous data. */
int io_pwrite_all(MPI_File fh, const void *data, size_t len, MPI_Offset off);
int io_pread_all(MPI_File fh, void *data, size_t len, MPI_Offset off, size_t *got);
/* The same from/into a vector of buffers covering consecutive file bytes from off: any
 * number of entries (IOV_MAX at a time); iov is modified. */
struct iovec;
int io_pwritev_all(MPI_File fh, struct iovec *iov, int cnt, MPI_Offset off);
int io_preadv_all(MPI_File fh, struct iovec *iov, int cnt, MPI_Offset off, size_t *got);
int io_lock(MPI_File fh, int write, MPI_Offset off, MPI_Offset len);
int io_unlock(MPI_File fh, MPI_Offset off, MPI_Offset len);
/* Whether the descriptor was opened with read access (sieved writes need it). */
int io_can_read(MPI_File fh);
int io_indep_write(MPI_File fh, const io_piece_t *p, size_t n, const char *data, int locked,
                   int sieve);
int io_indep_read(MPI_File fh, const io_piece_t *p, size_t n, char *data, MPI_Offset *bytes,
                  int sieve);
/* Bytes of the runs before the end of the file eof (a read stops there). */
MPI_Offset io_bytes_before(const io_piece_t *p, size_t n, MPI_Offset eof);

/* Collective buffering (twophase.c; its steps in twophase.h). */
int io_aggregators(MPI_File fh);
void io_twophase_free(MPI_File fh);
/* The node-shared write windows (push.c): made (collective; none when the ranks span nodes
 * or the hints say no) and freed (collective). */
int io_push_setup(MPI_File fh);
void io_push_free(MPI_File fh);

/* The shared file pointer (shfp.c). */
int io_shfp_setup(MPI_File fh, const char *name);
void io_shfp_teardown(MPI_File fh);
/* Fetch-and-add: *old gets the pointer, which advances by add (etypes). */
int io_shfp_fetch_add(MPI_File fh, MPI_Offset add, MPI_Offset *old);
int io_shfp_set(MPI_File fh, MPI_Offset val);
/* MPI_File_{read,write}_ordered: collective, in rank order from the shared pointer. */
int io_ordered(MPI_File fh, int write, void *buf, int count, MPI_Datatype dt, MPI_Offset *bytes);

/* Process state (runtime.c). */
struct io_datarep;
typedef struct io_runtime {
    MPI_Errhandler file_null_errh;   /* MPI_FILE_NULL's handler: default for new files */
    struct io_datarep *datareps;     /* MPI_Register_datarep */
    MPI_File *ftab;                  /* Fortran handles: ftab[i - 1] */
    int nftab, capftab;
    unsigned nopen;                  /* opens so far, for unique lock-file names */
    io_job_t *running;               /* collective accesses waiting for an exchange */
    int hook, in_hook;               /* their progress hook (-1 until the first) */
} io_runtime_t;

io_runtime_t *io_rt(void);
void io_fini(void);
int io_register_datarep(const char *name, MPI_Datarep_conversion_function *rd,
                        MPI_Datarep_conversion_function *wr, MPI_Datarep_extent_function *ext,
                        void *extra);
/* CORE_EDATAREP unless name is a representation views can use. */
int io_datarep_check(const char *name, MPI_Datarep_extent_function **ext, void **extra);
MPI_Fint io_c2f(MPI_File fh);
MPI_File io_f2c(MPI_Fint i);
void io_forget(MPI_File fh);

#endif
