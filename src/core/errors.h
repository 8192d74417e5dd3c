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
    /* MPI-IO (src/io): what the file system said, each its own MPI error class */
    CORE_ENOFILE = -34,      /* no such file or directory */
    CORE_EACCESS = -35,      /* permission denied */
    CORE_EEXIST = -36,       /* the file exists (MPI_MODE_EXCL) */
    CORE_ENOSPACE = -37,     /* no space left on the device */
    CORE_EQUOTA = -38,       /* quota exceeded */
    CORE_EROFS = -39,        /* read-only file or file system */
    CORE_EAMODE = -40,       /* invalid access mode */
    CORE_EBADFILE = -41,     /* invalid file name */
    CORE_EFILE = -42,        /* invalid file handle */
    CORE_EDATAREP = -43,     /* unsupported data representation */
    CORE_EDUPDATAREP = -44,  /* data representation already registered */
    CORE_EFILEINUSE = -45,   /* the file is open (MPI_File_delete) */
    CORE_ENOTSAME = -46,     /* a collective argument differs between ranks */
    CORE_EFILEIO = -47,      /* another I/O error */
};

/* A short English description of a CORE_* code. */
const char *core_strerror(int code);

#endif
