/*
 * MPI-IO's process state: MPI_FILE_NULL's error handler (the handler new
 * files start with), the data representations registered with
 * MPI_Register_datarep, and the table behind MPI_File_c2f/f2c. It hangs off
 * the runtime (core_rt->io), made on first use and freed by io_fini at
 * MPI_Finalize.
 *
 * Data representations: "native" and "internal" (which MPI lets an
 * implementation define; rdmpi's is native) are used as they are.
 * "external32" needs every element converted to its big-endian, fixed-size
 * form; rdmpi does not convert yet and says MPI_ERR_UNSUPPORTED_DATAREP
 * rather than write native bytes under that name. A registered
 * representation whose conversion functions are both MPI_CONVERSION_FN_NULL
 * is native-like (MPI says so) and works; one with conversion functions is
 * refused at MPI_File_set_view the same way.
 */
#include <stdlib.h>
#include <string.h>
#include "core/comm.h"
#include "core/errors.h"
#include "core/runtime.h"
#include "io/io.h"

typedef struct io_datarep {
    struct io_datarep *next;
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *rd, *wr;
    MPI_Datarep_extent_function *ext;
    void *extra;
} io_datarep_t;

io_runtime_t *io_rt(void)
{
    if (!core_rt->io) {
        core_rt->io = calloc(1, sizeof(io_runtime_t));
        if (!core_rt->io)
            core_fatal("out of memory for MPI-IO's state");
        core_rt->io->hook = -1;
    }
    return core_rt->io;
}

void io_fini(void)
{
    io_runtime_t *io = core_rt ? core_rt->io : NULL;
    if (!io)
        return;
    while (io->datareps) {
        io_datarep_t *d = io->datareps;
        io->datareps = d->next;
        free(d);
    }
    core_errhandler_release(io->file_null_errh);
    free(io->ftab);
    free(io);
    core_rt->io = NULL;
}

static io_datarep_t *find_rep(const char *name)
{
    for (io_datarep_t *d = io_rt()->datareps; d; d = d->next)
        if (!strcmp(d->name, name))
            return d;
    return NULL;
}

int io_register_datarep(const char *name, MPI_Datarep_conversion_function *rd,
                        MPI_Datarep_conversion_function *wr, MPI_Datarep_extent_function *ext,
                        void *extra)
{
    if (strlen(name) >= MPI_MAX_DATAREP_STRING || !name[0])
        return CORE_EINVAL;
    if (!strcmp(name, "native") || !strcmp(name, "internal") || !strcmp(name, "external32") ||
        find_rep(name))
        return CORE_EDUPDATAREP;
    io_datarep_t *d = calloc(1, sizeof(*d));
    if (!d)
        return CORE_ENOMEM;
    strcpy(d->name, name);
    d->rd = rd;
    d->wr = wr;
    d->ext = ext;
    d->extra = extra;
    io_runtime_t *io = io_rt();
    d->next = io->datareps;
    io->datareps = d;
    return 0;
}

int io_datarep_check(const char *name, MPI_Datarep_extent_function **ext, void **extra)
{
    *ext = NULL;
    *extra = NULL;
    if (!strcmp(name, "native") || !strcmp(name, "internal"))
        return 0;
    io_datarep_t *d = find_rep(name);
    if (!d || d->rd || d->wr)
        return CORE_EDATAREP;
    *ext = d->ext;
    *extra = d->extra;
    return 0;
}

MPI_Fint io_c2f(MPI_File fh)
{
    if (fh->fint)
        return fh->fint;
    io_runtime_t *io = io_rt();
    if (io->nftab == io->capftab) {
        int cap = io->capftab ? io->capftab * 2 : 16;
        MPI_File *t = realloc(io->ftab, (size_t)cap * sizeof(*t));
        if (!t)
            return 0;
        io->ftab = t;
        io->capftab = cap;
    }
    io->ftab[io->nftab++] = fh;
    fh->fint = io->nftab;
    return fh->fint;
}

MPI_File io_f2c(MPI_Fint i)
{
    io_runtime_t *io = io_rt();
    if (i <= 0 || i > io->nftab)
        return MPI_FILE_NULL;
    return io->ftab[i - 1];
}

void io_forget(MPI_File fh)
{
    if (fh->fint && core_rt->io && fh->fint <= core_rt->io->nftab)
        core_rt->io->ftab[fh->fint - 1] = MPI_FILE_NULL;
}
