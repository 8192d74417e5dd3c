/*
 * Status codes used below the MPI API. Functions return 0, CORE_INPROGRESS
 * (the one positive status: the completion fires later), or a negative
 * CORE_E* code. Only src/api turns these into MPI error classes.
 */
#ifndef RDMPI_CORE_ERRORS_H
#define RDMPI_CORE_ERRORS_H

enum {
    CORE_OK = 0,
    CORE_INPROGRESS = 1,
    CORE_EBUSY = -1,      /* nothing happened: out of queue space/credits, retry */
    CORE_ENOMEM = -2,
    CORE_EINVAL = -3,     /* bad argument (MPI_ERR_ARG) */
    CORE_ETRUNC = -4,
    CORE_ERANK = -5,
    CORE_ETAG = -6,
    CORE_ECOUNT = -7,
    CORE_ETYPE = -8,
    CORE_ECOMM = -9,
    CORE_EGROUP = -10,
    CORE_EREQUEST = -11,
    CORE_EROOT = -12,
    CORE_EOP = -13,
    CORE_EBUFFER = -14,
    CORE_EINFO = -15,
    CORE_EINFO_KEY = -16,
    CORE_EINFO_VALUE = -17,
    CORE_EINFO_NOKEY = -18,
    CORE_EUNSUPPORTED = -19, /* not available in this build/configuration */
    CORE_EIO = -20,          /* a system call failed */
    CORE_EPEER = -21,        /* a peer is unreachable or dead */
    CORE_EPERM = -22,
    CORE_EINTERN = -23,
    CORE_EINSTATUS = -24,    /* see the statuses of a multi-completion call */
    CORE_EPENDING = -25,
    CORE_EERRHANDLER = -26,
    CORE_ENOTFOUND = -27,
    CORE_EOTHER = -28,
    CORE_EDIMS = -29,
    CORE_ETOPOLOGY = -30,
    CORE_ECANCELLED = -31,
    CORE_EKEYVAL = -32,
    CORE_EPROTO = -33,       /* a peer sent a malformed message */
    /* one-sided communication (src/rma) */
    CORE_ERMA_SYNC = -34,    /* operation or call outside the epoch it needs */
    CORE_ERMA_RANGE = -35,   /* target displacement outside the target's window */
    CORE_ERMA_CONFLICT = -36,
    CORE_EWIN = -37,
    CORE_ELOCKTYPE = -38,
    CORE_ERMA_SHARED = -39,  /* memory cannot be shared (not all ranks on one node) */
    CORE_ERMA_FLAVOR = -40,  /* call not allowed for the window's flavor */
    CORE_ERMA_ATTACH = -41,
    CORE_EASSERT = -42,
    CORE_EDISP = -43,
    CORE_ESIZE = -44,
    /* MPI-IO (src/io): what the file system said, each its own MPI error class */
    CORE_ENOFILE = -45,      /* no such file or directory */
    CORE_EACCESS = -46,      /* permission denied */
    CORE_EEXIST = -47,       /* the file exists (MPI_MODE_EXCL) */
    CORE_ENOSPACE = -48,     /* no space left on the device */
    CORE_EQUOTA = -49,       /* quota exceeded */
    CORE_EROFS = -50,        /* read-only file or file system */
    CORE_EAMODE = -51,       /* invalid access mode */
    CORE_EBADFILE = -52,     /* invalid file name */
    CORE_EFILE = -53,        /* invalid file handle */
    CORE_EDATAREP = -54,     /* unsupported data representation */
    CORE_EDUPDATAREP = -55,  /* data representation already registered */
    CORE_EFILEINUSE = -56,   /* the file is open (MPI_File_delete) */
    CORE_ENOTSAME = -57,     /* a collective argument differs between ranks */
    CORE_EFILEIO = -58,      /* another I/O error */
    /* dynamic processes */
    CORE_ESPAWN = -59,       /* the launcher could not or would not spawn */
    CORE_EPORT = -60,        /* not a port name, or nobody accepts there */
    CORE_ESERVICE = -61,     /* the name is published already, or was not by this job */
    CORE_ENAME = -62,        /* no port published under that name */
};

/* A short English description of a CORE_* code. */
const char *core_strerror(int code);

#endif
