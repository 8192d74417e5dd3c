/*
 * Datatypes and the pack engine. A datatype is described by the byte runs
 * (blocks) of one item, in type-map order, plus its extent; count items are
 * laid out extent bytes apart. Messages travel packed (the concatenation of
 * the blocks); a contiguous type (one block at offset 0 spanning the whole
 * extent) is sent straight from the user's buffer.
 */
#ifndef RDMPI_CORE_DATATYPE_H
#define RDMPI_CORE_DATATYPE_H

#include <stddef.h>
#include <sys/types.h>
#include "mpi.h"
#include "core/attr.h"

/* The kind of a predefined type's elements: what reduction ops compute on. */
enum core_dt_kind {
    CORE_DT_NONE = 0,   /* derived or not reducible (MPI_PACKED) */
    CORE_DT_CHAR, CORE_DT_SCHAR, CORE_DT_UCHAR, CORE_DT_BYTE,
    CORE_DT_SHORT, CORE_DT_USHORT, CORE_DT_INT, CORE_DT_UINT,
    CORE_DT_LONG, CORE_DT_ULONG, CORE_DT_LLONG, CORE_DT_ULLONG,
    CORE_DT_INT8, CORE_DT_INT16, CORE_DT_INT32, CORE_DT_INT64,
    CORE_DT_UINT8, CORE_DT_UINT16, CORE_DT_UINT32, CORE_DT_UINT64,
    CORE_DT_FLOAT, CORE_DT_DOUBLE, CORE_DT_LDOUBLE, CORE_DT_WCHAR, CORE_DT_BOOL,
    CORE_DT_AINT, CORE_DT_OFFSET, CORE_DT_COUNT,
    CORE_DT_CFLOAT, CORE_DT_CDOUBLE, CORE_DT_CLDOUBLE,
    CORE_DT_FLOAT_INT, CORE_DT_DOUBLE_INT, CORE_DT_LONG_INT, CORE_DT_2INT,
    CORE_DT_SHORT_INT, CORE_DT_LDOUBLE_INT,
    CORE_DT_PACKED,
    CORE_DT_FLOGICAL,                 /* Fortran LOGICAL: .TRUE. is 1 (gfortran) */
    CORE_DT_2REAL, CORE_DT_2DOUBLE,   /* Fortran MINLOC/MAXLOC pairs: the index is a REAL */
    CORE_DT_FLOAT128, CORE_DT_CFLOAT128,   /* REAL(16), COMPLEX(16): IEEE binary128 */
    CORE_DT_NKINDS
};

/* CORE_DT_MARKED: the bounds were set by Type_create_resized (in this type or
 * one it is built from), so a struct containing it is not padded to its
 * members' alignment. */
enum { CORE_DT_PREDEFINED = 1u, CORE_DT_COMMITTED = 2u, CORE_DT_CONTIG = 4u, CORE_DT_MARKED = 8u };

typedef struct core_dt_block {
    MPI_Aint off;   /* from the item's start */
    size_t len;
} core_dt_block_t;

/* A run of a mixed type's element signature (dtsig.c): n units of ubytes
 * bytes, each holding per elements. */
typedef struct core_dt_sig {
    size_t ubytes;
    unsigned per;
    size_t n;
} core_dt_sig_t;

/* How a derived type was made, for MPI_Type_get_envelope/get_contents: the
 * combiner and the constructor's integer, address and type arguments. */
typedef struct core_dt_args {
    int combiner;               /* MPI_COMBINER_* */
    int ni, na, nd;
    MPI_Aint *aints;
    MPI_Datatype *types;        /* each retained while the args live */
    int *ints;
} core_dt_args_t;

struct rdmpi_datatype {
    int refcount;
    unsigned flags;           /* CORE_DT_* */
    size_t size;              /* data bytes in one item */
    MPI_Aint lb, extent;
    MPI_Aint true_lb, true_extent;
    enum core_dt_kind kind;   /* predefined: its own kind; derived: CORE_DT_NONE */
    enum core_dt_kind basic;  /* the single predefined kind all elements share, or NONE */
    size_t nbasic;            /* predefined elements per item (pair types count 2) */
    size_t align;             /* the strictest alignment of its predefined elements */
    size_t nblocks;
    core_dt_block_t *blocks;  /* nblocks runs of one item (of one tile when tiled) */
    /* Tiled (ntile > 1): one item is ntile copies of the nblocks runs, tile_stride bytes
     * apart: a vector of more blocks than CORE_DT_MAX_RUNS keeps one block's runs, not a
     * run per block. 0 and 1 both mean one tile (predefined types leave it 0). */
    size_t ntile;
    MPI_Aint tile_stride;
    core_dt_block_t block0;   /* storage for predefined single-block types */
    core_dt_args_t *args;     /* derived: how it was made (NULL: built internally) */
    core_attr_t *attrs;       /* cached attributes (deleted by MPI_Type_free) */
    char name[MPI_MAX_OBJECT_NAME];
    core_dt_sig_t *sig;       /* basic NONE: the element signature of one item, or NULL */
    size_t nsig;
};

static inline int core_dt_is_contig(MPI_Datatype dt)
{
    return (dt->flags & CORE_DT_CONTIG) != 0;
}

static inline size_t core_dt_ntile(MPI_Datatype dt)
{
    return dt->ntile > 1 ? dt->ntile : 1;
}

/* The runs of one item, tiles included, and run k of them (0 <= k < core_dt_nruns). */
static inline size_t core_dt_nruns(MPI_Datatype dt)
{
    return dt->nblocks * core_dt_ntile(dt);
}

static inline core_dt_block_t core_dt_run(MPI_Datatype dt, size_t k)
{
    core_dt_block_t b = dt->blocks[k % dt->nblocks];
    b.off += (MPI_Aint)(k / dt->nblocks) * dt->tile_stride;
    return b;
}

/* A type is its list of contiguous runs: at most this many (a larger one
 * is refused with CORE_ECOUNT, its count being the problem, not memory). */
#define CORE_DT_MAX_RUNS ((size_t)1 << 26)

/* count blocks of blocklength items of old, block i at byte i * stride, as a tiled type
 * (one block's runs, count tiles): for vectors of more blocks than CORE_DT_MAX_RUNS.
 * CORE_ECOUNT when old mixes element kinds or is tiled itself, or one block has too
 * many runs. */
int core_dt_tiled(size_t count, size_t blocklength, MPI_Aint stride, MPI_Datatype old,
                  MPI_Datatype *out);

/* Builds the predefined types' tables; called once at init (idempotent). */
void core_dt_init(void);
int core_dt_contiguous(int count, MPI_Datatype old, MPI_Datatype *out);
int core_dt_dup(MPI_Datatype old, MPI_Datatype *out);

/* One piece of a type being built: count items of type, the first at byte
 * displacement disp, the others type->extent bytes apart. */
typedef struct core_dt_piece {
    size_t count;
    MPI_Aint disp;
    MPI_Datatype type;
} core_dt_piece_t;

/* Element signatures of mixed types (dtsig.c): built by core_dt_pieces, copied by
 * core_dt_dup, freed with the type. core_dt_sig_elements counts the elements in the first
 * rest bytes of one item (MPI_UNDEFINED when they end inside an element or t has none). */
void core_dt_sig_build(MPI_Datatype t, size_t n, const core_dt_piece_t *p);
int core_dt_sig_copy(MPI_Datatype t, MPI_Datatype old);
void core_dt_sig_free(MPI_Datatype t);
MPI_Count core_dt_sig_elements(MPI_Datatype t, size_t rest);
/* The size of a pair kind's value (0: not a pair kind). */
size_t core_dt_pair_value_size(enum core_dt_kind kind);

/*
 * The type made of pieces p[0..n) in that order: what vector, indexed and
 * struct constructors all describe. pad: round the extent up to the
 * strictest alignment of the members, as MPI defines a struct's extent
 * (not done when a member's bounds were set explicitly).
 */
int core_dt_pieces(size_t n, const core_dt_piece_t *p, int pad, MPI_Datatype *out);
/* The subarray of an array of sizes[] items of old (MPI_Type_create_subarray; the
 * arguments already checked); c_order: the last dimension varies fastest. */
int core_dt_subarray(int ndims, const int *sizes, const int *subsizes, const int *starts,
                     int c_order, MPI_Datatype old, MPI_Datatype *out);
/* Records how t was made (copies the arrays, retains the types). */
int core_dt_set_args(MPI_Datatype t, int combiner, int ni, const int *ints, int na,
                     const MPI_Aint *aints, int nd, const MPI_Datatype *types);
/* One item of like's data (its size, element kinds and signature) at the byte runs
 * runs[0..n) in that order, committed: the data of a buffer laid out some other way (a
 * Fortran array section; api/type_section.c). CORE_EINVAL: the runs do not hold like->size
 * bytes. */
int core_dt_remap(MPI_Datatype like, size_t n, const core_dt_block_t *runs, MPI_Datatype *out);
/* old with its lower bound and extent replaced (MPI_Type_create_resized). */
int core_dt_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out);
void core_dt_retain(MPI_Datatype dt);
void core_dt_release(MPI_Datatype dt);

/* Packs count items of dt at buf into dst (size count*dt->size). */
void core_dt_pack(void *dst, const void *buf, size_t count, MPI_Datatype dt);
/* Unpacks len packed bytes into count items at buf; stops after len bytes
 * (a short message fills a prefix, possibly ending mid-item). */
void core_dt_unpack(void *buf, size_t count, MPI_Datatype dt, const void *src, size_t len);
/* Number of predefined elements in nbytes packed bytes of dt (MPI_Get_elements);
 * MPI_UNDEFINED when it does not divide evenly into elements. */
MPI_Count core_dt_elements(MPI_Datatype dt, size_t nbytes);

#endif
