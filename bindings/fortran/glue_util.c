/*
 * The out-of-line helpers of the generated Fortran glue (declared in glue.h): strings,
 * non-contiguous mpi_f08 buffers, the lengths of type arrays.
 */
#include <stdint.h>
#include "bindings/fortran/glue.h"
#include "api/api.h"

int fg_desc_slow(CFI_cdesc_t *d, void **addr, MPI_Fint *ierr)
{
    (void)addr;
    /* memory that must be one region, or data that lies outside the section: reported
     * through the world's handler, as a C call with a bad buffer would be */
    int rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_BUFFER);
    (void)d;
    if (ierr)
        *ierr = rc == MPI_SUCCESS ? MPI_ERR_BUFFER : rc;
    return 1;
}

/* The byte offset from the section's first element of its element number i (array element
 * order: the first dimension varies fastest). */
static MPI_Aint elem_offset(const CFI_index_t *extent, const CFI_index_t *sm, int rank, MPI_Aint i)
{
    MPI_Aint off = 0;
    for (int k = 0; k < rank; k++) {
        off += (i % extent[k]) * sm[k];
        i /= extent[k];
    }
    return off;
}

/* What count items of the datatype describe in a contiguous array, on the section's elements.
 * The common case, a contiguous datatype whose size divides the element size (MPI_INTEGER
 * over an INTEGER array, ...) covering the whole section, is contiguous(elem_len / size,
 * type) repeated by one hvector per dimension with the descriptor's byte stride; any other
 * datatype and count (a vector, a count covering the section's first elements, MPI_2INTEGER
 * over an INTEGER section, ...) is the datatype's byte runs moved onto the elements
 * (api_type_section). An invalid datatype is left to the call to report. */
int fg_section(CFI_cdesc_t *d, void **addr, fg_section_t *s, MPI_Fint *ierr)
{
    MPI_Datatype dt = fh_Type_f2c(*s->type), t = MPI_DATATYPE_NULL, next;
    MPI_Aint lb = 0, ext = 0, n = 1;
    int size = 0, count = *s->count, rc;
    for (int i = 0; i < d->rank; i++)
        n *= (MPI_Aint)d->dim[i].extent;
    *addr = d->base_addr;
    if (count == 0)   /* nothing moves: any address will do */
        return 0;
    if (dt != MPI_DATATYPE_NULL && PMPI_Type_get_extent(dt, &lb, &ext) == MPI_SUCCESS &&
        PMPI_Type_size(dt, &size) == MPI_SUCCESS && size > 0 && lb == 0 && ext == size &&
        d->elem_len % (size_t)size == 0 && (MPI_Aint)count * size == n * (MPI_Aint)d->elem_len) {
        rc = PMPI_Type_contiguous((int)(d->elem_len / (size_t)size), dt, &t);
        for (int i = 0; rc == MPI_SUCCESS && i < d->rank; i++) {
            rc = PMPI_Type_create_hvector((int)d->dim[i].extent, 1, (MPI_Aint)d->dim[i].sm, t,
                                          &next);
            if (rc != MPI_SUCCESS)
                break;
            PMPI_Type_free(&t);   /* next holds what it needs of t */
            t = next;
        }
        if (rc == MPI_SUCCESS)
            rc = PMPI_Type_commit(&t);
    } else {
        MPI_Aint extent[CFI_MAX_RANK], sm[CFI_MAX_RANK];
        for (int k = 0; k < d->rank; k++) {
            extent[k] = (MPI_Aint)d->dim[k].extent;
            sm[k] = (MPI_Aint)d->dim[k].sm;
        }
        api_section_t sec = { d->elem_len, d->rank, extent, sm };
        rc = api_type_section(dt, count, &sec, &t);
        if (rc == MPI_ERR_TYPE)
            return 0;   /* the call gets the caller's count and datatype, and refuses them */
        if (rc == MPI_ERR_BUFFER)
            return fg_desc_slow(d, addr, ierr);
    }
    if (rc != MPI_SUCCESS) {
        if (t != MPI_DATATYPE_NULL)
            PMPI_Type_free(&t);
        if (ierr)
            *ierr = rc;
        return 1;
    }
    s->made = t;
    s->one = 1;
    s->ftype = fh_Type_c2f(t);
    s->count = &s->one;
    s->type = &s->ftype;
    return 0;
}

/* Moves a section's elements between the array and the contiguous copy (to_tmp: gather). */
static void copy_move(fg_copy_t *c, int to_tmp)
{
    MPI_Aint n = (MPI_Aint)(c->bytes / c->elem_len);
    char *tmp = c->tmp;
    /* the first dimension is the innermost loop: walk it without the division per element */
    MPI_Aint e0 = c->extent[0], sm0 = c->sm[0];
    for (MPI_Aint i = 0; i < n; i += e0) {
        char *p = c->base + elem_offset(c->extent, c->sm, c->rank, i);
        for (MPI_Aint j = 0; j < e0; j++, p += sm0, tmp += c->elem_len) {
            if (to_tmp)
                memcpy(tmp, p, c->elem_len);
            else
                memcpy(p, tmp, c->elem_len);
        }
    }
}

int fg_copy_slow(CFI_cdesc_t *d, void **addr, fg_copies_t *cs, int out, MPI_Fint *ierr)
{
    fg_copy_t *c = &cs->c[cs->n];
    MPI_Aint n = 1;
    for (int i = 0; i < d->rank; i++)
        n *= (MPI_Aint)d->dim[i].extent;
    c->base = d->base_addr;
    c->elem_len = d->elem_len;
    c->bytes = (size_t)n * d->elem_len;
    c->rank = d->rank;
    c->out = out;
    for (int i = 0; i < d->rank; i++) {
        c->extent[i] = d->dim[i].extent;
        c->sm[i] = d->dim[i].sm;
    }
    c->tmp = malloc(c->bytes ? c->bytes : 1);
    if (!c->tmp) {
        int rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
        if (ierr)
            *ierr = rc == MPI_SUCCESS ? MPI_ERR_NO_MEM : rc;
        return 1;
    }
    /* an output is gathered too: what the call does not write must come back unchanged */
    copy_move(c, 1);
    cs->n++;
    *addr = c->tmp;
    return 0;
}

static void copies_free(fg_copies_t *cs)
{
    for (int i = 0; i < cs->n; i++)
        free(cs->c[i].tmp);
    cs->n = 0;
}

void fg_copies_end(fg_copies_t *cs, int rc)
{
    for (int i = 0; rc == MPI_SUCCESS && i < cs->n; i++)
        if (cs->c[i].out)
            copy_move(&cs->c[i], 0);
    copies_free(cs);
}

static void copies_hook(void *arg, int event)
{
    fg_copies_t *cs = arg;
    for (int i = 0; i < cs->n; i++) {
        if (event == CORE_REQ_HOOK_START)
            copy_move(&cs->c[i], 1);
        else if (event == CORE_REQ_HOOK_DONE && cs->c[i].out)
            copy_move(&cs->c[i], 0);
    }
    if (event == CORE_REQ_HOOK_FREE) {
        copies_free(cs);
        free(cs);
    }
}

void fg_copies_request(fg_copies_t *cs, const MPI_Fint *request, int rc)
{
    if (cs->n == 0)
        return;
    if (rc != MPI_SUCCESS) {   /* no operation: nothing to copy back */
        copies_free(cs);
        return;
    }
    fg_copies_t *held = malloc(sizeof(*held));
    if (held) {
        *held = *cs;
        if (api_req_hook(fh_Request_f2c(*request), copies_hook, held) == MPI_SUCCESS) {
            cs->n = 0;   /* the request's now */
            return;
        }
        free(held);
    }
    /* the operation goes on with the copies and nothing would free them or copy them back:
     * they are left to it (never freed under it); the data that should come back is lost,
     * which only an out-of-memory process sees */
    cs->n = 0;
}

char *fg_str_in(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, f, len);
        c[len] = '\0';
    }
    return c;
}

char *fg_str_in_trim(const char *f, size_t len)
{
    while (len > 0 && f[0] == ' ') {
        f++;
        len--;
    }
    return fg_str_in(f, len);
}

char *fg_str_buf(size_t len, int maxlen)
{
    size_t n = len + 1;
    if (maxlen > 0 && (size_t)maxlen + 1 > n)
        n = (size_t)maxlen + 1;
    if (n < MPI_MAX_INFO_VAL + 1)
        n = MPI_MAX_INFO_VAL + 1;
    char *c = malloc(n);
    if (c)
        c[0] = '\0';
    return c;
}

void fg_str_out(char *f, size_t len, const char *c)
{
    size_t n = strlen(c);
    if (n > len)
        n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

int fg_comm_size(MPI_Comm comm)
{
    int n = 0, inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    (void)inter;   /* intercommunicators: MPI_Comm_remote_size once rdmpi has them */
    if (MPI_Comm_size(comm, &n) != MPI_SUCCESS)
        return 0;
    return n;
}

int fg_neighbors(MPI_Comm comm, int out)
{
    int kind = MPI_UNDEFINED, in = 0, outd = 0, w = 0;
    if (MPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return 0;
    if (kind == MPI_CART) {
        int nd = 0;
        MPI_Cartdim_get(comm, &nd);
        return 2 * nd;
    }
    if (kind == MPI_DIST_GRAPH && MPI_Dist_graph_neighbors_count(comm, &in, &outd, &w) == MPI_SUCCESS)
        return out ? outd : in;
    return 0;
}

/* MPI_SIZEOF of the mpi and mpi_f08 modules: x is any intrinsic variable, scalar or array, as a
 * descriptor (TYPE(*), DIMENSION(..)); its element length is the size in bytes. */
FG_API void rdmpi_sizeof(CFI_cdesc_t *x, MPI_Fint *size, MPI_Fint *ierr)
{
    *size = (MPI_Fint)x->elem_len;
    if (ierr)
        *ierr = MPI_SUCCESS;
}

/* MPI_F_SYNC_REG: nothing to do; being an external call the compiler cannot see into is the
 * point (gen.py's sync_reg_interface). mpif.h and `mpi` pass the address, mpi_f08 a
 * descriptor. */
FG_API void mpi_f_sync_reg_(void *buf)
{
    (void)buf;
}

FG_API void pmpi_f_sync_reg_(void *buf)
{
    (void)buf;
}

/* mpi_f08's specific MPI_F_sync_reg_f08ts: the buffer comes as gfortran's descriptor */
FG_API void mpi_f_sync_reg_f08ts_(fg_gfc_t *buf)
{
    (void)buf;
}

FG_API void pmpi_f_sync_reg_f08ts_(fg_gfc_t *buf)
{
    (void)buf;
}

/* mpi_f08's MPI_Status_f082f/f2f08 (gen.py's status_conv_interface): TYPE(MPI_Status) and
 * the INTEGER array have one layout; an absent ierror comes as NULL. */
static void status_copy(MPI_Fint *to, const MPI_Fint *from, MPI_Fint *ierr)
{
    memcpy(to, from, FH_STATUS_SIZE * sizeof(MPI_Fint));
    if (ierr)
        *ierr = MPI_SUCCESS;
}

FG_API void mpi_status_f082f_(MPI_Fint *f08, MPI_Fint *f, MPI_Fint *ierr)
{
    status_copy(f, f08, ierr);
}

FG_API void pmpi_status_f082f_(MPI_Fint *f08, MPI_Fint *f, MPI_Fint *ierr)
{
    status_copy(f, f08, ierr);
}

FG_API void mpi_status_f2f08_(MPI_Fint *f, MPI_Fint *f08, MPI_Fint *ierr)
{
    status_copy(f08, f, ierr);
}

FG_API void pmpi_status_f2f08_(MPI_Fint *f, MPI_Fint *f08, MPI_Fint *ierr)
{
    status_copy(f08, f, ierr);
}

/* mpi_f08's specifics MPI_Status_f082f_f08 and MPI_Status_f2f08_f08 */
FG_F08_ALIAS(mpi_status_f082f_, mpi_status_f082f_f08_)
FG_F08_ALIAS(pmpi_status_f082f_, pmpi_status_f082f_f08_)
FG_F08_ALIAS(mpi_status_f2f08_, mpi_status_f2f08_f08_)
FG_F08_ALIAS(pmpi_status_f2f08_, pmpi_status_f2f08_f08_)
