/*
 * Local copies for the algorithms (their scratch memory comes from the
 * schedule: coll_sched_alloc, coll_sched_tmp). Reductions keep data in the
 * datatype's native layout (operations apply to native items); data that is
 * only moved travels packed, as bytes (a copy to or from MPI_BYTE packs or
 * unpacks).
 */
#include <stdlib.h>
#include <string.h>
#include "collectives/coll_impl.h"

int coll_copy(const void *src, size_t scount, MPI_Datatype sdt, void *dst, size_t rcount,
              MPI_Datatype rdt)
{
    size_t sbytes = scount * sdt->size, rbytes = rcount * rdt->size;
    if (sbytes > rbytes)
        return CORE_ETRUNC;
    if (sbytes == 0 || (src == dst && sdt == rdt))
        return 0;
    if (core_dt_is_contig(sdt) && core_dt_is_contig(rdt)) {
        memmove(dst, src, sbytes);
    } else if (core_dt_is_contig(sdt)) {
        core_dt_unpack(dst, rcount, rdt, src, sbytes);
    } else if (core_dt_is_contig(rdt)) {
        core_dt_pack(dst, src, scount, sdt);
    } else {
        void *tmp = malloc(sbytes);
        if (!tmp)
            return CORE_ENOMEM;
        core_dt_pack(tmp, src, scount, sdt);
        core_dt_unpack(dst, rcount, rdt, tmp, sbytes);
        free(tmp);
    }
    return 0;
}
