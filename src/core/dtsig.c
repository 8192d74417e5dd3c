/*
 * Element signatures of datatypes that mix predefined kinds (a struct of an
 * int and chars: basic NONE), so MPI_Get_elements can count the elements of
 * a partial item (a receive shorter than the type, MPI 4.1.11): the type
 * map's predefined elements in order, as runs of equal-sized units. One
 * unit is one element, or a pair type's value and index (2 elements).
 * Only the sizes matter for counting, so an int run followed by a float run
 * is one run. A type whose signature needs more than SIG_MAX runs keeps
 * none, and a partial item of it counts as MPI_UNDEFINED, as before.
 */
#include <stdlib.h>
#include <string.h>
#include "core/datatype.h"
#include "core/errors.h"

#define SIG_MAX 256

typedef struct sigbuf {
    core_dt_sig_t *r;
    size_t n, cap;
    int overflow;
} sigbuf_t;

static void push(sigbuf_t *b, size_t ubytes, unsigned per, size_t n)
{
    if (b->overflow || n == 0)
        return;
    if (b->n && b->r[b->n - 1].ubytes == ubytes && b->r[b->n - 1].per == per) {
        b->r[b->n - 1].n += n;
        return;
    }
    if (b->n == SIG_MAX) {
        b->overflow = 1;
        return;
    }
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 8;
        core_dt_sig_t *r = realloc(b->r, cap * sizeof(*r));
        if (!r) {
            b->overflow = 1;
            return;
        }
        b->r = r;
        b->cap = cap;
    }
    b->r[b->n++] = (core_dt_sig_t){ ubytes, per, n };
}

/* Appends count items of t. */
static void push_type(sigbuf_t *b, size_t count, MPI_Datatype t)
{
    if (t->size == 0 || count == 0)
        return;
    if (t->basic != CORE_DT_NONE) {
        unsigned per = core_dt_pair_value_size(t->basic) ? 2 : 1;
        push(b, t->size * per / t->nbasic, per, count * t->nbasic / per);
        return;
    }
    if (!t->sig) {
        b->overflow = 1;
        return;
    }
    for (size_t i = 0; i < count && !b->overflow; i++)
        for (size_t k = 0; k < t->nsig && !b->overflow; k++)
            push(b, t->sig[k].ubytes, t->sig[k].per, t->sig[k].n);
}

void core_dt_sig_build(MPI_Datatype t, size_t n, const core_dt_piece_t *p)
{
    t->sig = NULL;
    t->nsig = 0;
    if (t->basic != CORE_DT_NONE || t->size == 0)
        return;
    sigbuf_t b = { NULL, 0, 0, 0 };
    for (size_t i = 0; i < n && !b.overflow; i++)
        push_type(&b, p[i].count, p[i].type);
    if (b.overflow) {
        free(b.r);
        return;
    }
    t->sig = b.r;
    t->nsig = b.n;
}

int core_dt_sig_copy(MPI_Datatype t, MPI_Datatype old)
{
    t->sig = NULL;
    t->nsig = 0;
    if (!old->sig)
        return 0;
    t->sig = malloc(old->nsig * sizeof(*t->sig));
    if (!t->sig)
        return CORE_ENOMEM;
    memcpy(t->sig, old->sig, old->nsig * sizeof(*t->sig));
    t->nsig = old->nsig;
    return 0;
}

void core_dt_sig_free(MPI_Datatype t)
{
    free(t->sig);
    t->sig = NULL;
    t->nsig = 0;
}

MPI_Count core_dt_sig_elements(MPI_Datatype t, size_t rest)
{
    MPI_Count e = 0;
    if (!t->sig)
        return MPI_UNDEFINED;
    for (size_t k = 0; k < t->nsig && rest > 0; k++) {
        size_t all = t->sig[k].ubytes * t->sig[k].n;
        if (rest >= all) {
            e += (MPI_Count)(t->sig[k].n * t->sig[k].per);
            rest -= all;
            continue;
        }
        if (rest % t->sig[k].ubytes)
            return MPI_UNDEFINED;
        return e + (MPI_Count)(rest / t->sig[k].ubytes * t->sig[k].per);
    }
    return rest ? MPI_UNDEFINED : e;
}
