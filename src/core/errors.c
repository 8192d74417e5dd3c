/*
 * Descriptions of the CORE_* status codes, for log lines and for the reason
 * part of an MPI error message.
 */
#include "core/errors.h"

const char *core_strerror(int code)
{
    switch (code) {
    case CORE_OK: return "success";
    case CORE_INPROGRESS: return "operation in progress";
    case CORE_EBUSY: return "resource busy, try again";
    case CORE_ENOMEM: return "out of memory";
    case CORE_EINVAL: return "invalid argument";
    case CORE_ETRUNC: return "message truncated";
    case CORE_ERANK: return "invalid rank";
    case CORE_ETAG: return "invalid tag";
    case CORE_ECOUNT: return "invalid count";
    case CORE_ETYPE: return "invalid datatype";
    case CORE_ECOMM: return "invalid communicator";
    case CORE_EGROUP: return "invalid group";
    case CORE_EREQUEST: return "invalid request";
    case CORE_EROOT: return "invalid root";
    case CORE_EOP: return "invalid reduction operation";
    case CORE_EBUFFER: return "invalid buffer";
    case CORE_EINFO: return "invalid info object";
    case CORE_EINFO_KEY: return "invalid info key";
    case CORE_EINFO_VALUE: return "invalid info value";
    case CORE_EINFO_NOKEY: return "info key not found";
    case CORE_EUNSUPPORTED: return "not supported in this build or configuration";
    case CORE_EIO: return "system call failed";
    case CORE_EPEER: return "peer unreachable or dead";
    case CORE_EPERM: return "operation not permitted";
    case CORE_EINTERN: return "internal error";
    case CORE_EINSTATUS: return "error in status";
    case CORE_EPENDING: return "operation pending";
    case CORE_EERRHANDLER: return "invalid error handler";
    case CORE_ENOTFOUND: return "not found";
    case CORE_EOTHER: return "other error";
    case CORE_EDIMS: return "invalid dimensions";
    case CORE_ETOPOLOGY: return "invalid topology";
    case CORE_ECANCELLED: return "operation cancelled";
    case CORE_EKEYVAL: return "invalid keyval";
    case CORE_EPROTO: return "malformed message from a peer";
    case CORE_ERMA_SYNC: return "RMA call outside the synchronization it needs";
    case CORE_ERMA_RANGE: return "target memory outside the window";
    case CORE_ERMA_CONFLICT: return "conflicting RMA accesses";
    case CORE_EWIN: return "invalid window";
    case CORE_ELOCKTYPE: return "invalid lock type";
    case CORE_ERMA_SHARED: return "memory cannot be shared";
    case CORE_ERMA_FLAVOR: return "wrong window flavor";
    case CORE_ERMA_ATTACH: return "memory cannot be attached";
    case CORE_EASSERT: return "invalid assert";
    case CORE_EDISP: return "invalid displacement unit";
    case CORE_ESIZE: return "invalid size";
    case CORE_ENOFILE: return "no such file or directory";
    case CORE_EACCESS: return "permission denied";
    case CORE_EEXIST: return "file exists";
    case CORE_ENOSPACE: return "no space left on device";
    case CORE_EQUOTA: return "disk quota exceeded";
    case CORE_EROFS: return "read-only file or file system";
    case CORE_EAMODE: return "invalid access mode";
    case CORE_EBADFILE: return "invalid file name";
    case CORE_EFILE: return "invalid file handle";
    case CORE_EDATAREP: return "unsupported data representation";
    case CORE_EDUPDATAREP: return "data representation already registered";
    case CORE_EFILEINUSE: return "file in use";
    case CORE_ENOTSAME: return "argument differs between ranks";
    case CORE_EFILEIO: return "I/O error";
    case CORE_ESPAWN: return "spawning processes failed";
    case CORE_EPORT: return "invalid port";
    case CORE_ESERVICE: return "service name not published here or published already";
    case CORE_ENAME: return "no port published under that name";
    default: return "unknown error code";
    }
}
