/*
 * Keyvals and attribute lists (see attr.h).
 *
 * Keyval handles are small integers: the predefined ones (MPI_TAG_UB ...
 * MPI_APPNUM, 1-7) answer from a table of process-wide values on every
 * communicator and cannot be set or deleted; user keyvals start at
 * KEYVAL_BASE and index a growing table. MPI lets a program free a keyval
 * while objects still cache attributes of it: the entry then stays, marked
 * freed, until the last of those attributes is deleted, so the callbacks are
 * still there to be called.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/attr.h"
#include "core/errors.h"
#include "core/runtime.h"

enum { NPREDEF = CORE_ATTR_NPREDEF, KEYVAL_BASE = 16 };

typedef struct core_keyval {
    enum core_attr_kind kind; /* 0: unused slot */
    int freed;
    int holders;              /* attributes of this keyval still attached */
    core_attr_fn_t copy_fn, delete_fn;
    void *extra;
} keyval_t;

/* The table lives in the base instance (core_rt->attr). */
#define A (&core_rt->attr)

void core_attr_set_predefined(int keyval, int value)
{
    if (keyval > 0 && keyval < NPREDEF) {
        A->predef_value[keyval] = value;
        A->predef_set[keyval] = 1;
    }
}

int core_attr_predefined(int keyval, void **value)
{
    if (keyval <= 0 || keyval >= NPREDEF || !A->predef_set[keyval])
        return 0;
    *value = &A->predef_value[keyval];
    return 1;
}

static keyval_t *lookup(int keyval)
{
    int i = keyval - KEYVAL_BASE;
    return i >= 0 && i < A->nkeyvals && A->keyvals[i].kind ? &A->keyvals[i] : NULL;
}

int core_attr_keyval_create(enum core_attr_kind kind, core_attr_fn_t copy_fn,
                            core_attr_fn_t delete_fn, void *extra, int *keyval)
{
    int i = 0;
    while (i < A->nkeyvals && A->keyvals[i].kind)
        i++;
    if (i == A->nkeyvals) {
        if (A->nkeyvals == A->capkeyvals) {
            int cap = A->capkeyvals ? 2 * A->capkeyvals : 16;
            keyval_t *k = realloc(A->keyvals, (size_t)cap * sizeof(*k));
            if (!k)
                return CORE_ENOMEM;
            A->keyvals = k;
            A->capkeyvals = cap;
        }
        A->nkeyvals++;
    }
    A->keyvals[i] = (keyval_t){kind, 0, 0, copy_fn, delete_fn, extra};
    *keyval = KEYVAL_BASE + i;
    return 0;
}

/* Releases the slot of a freed keyval nobody holds. */
static void maybe_drop(keyval_t *k)
{
    if (k->freed && k->holders == 0)
        k->kind = 0;
}

int core_attr_keyval_check(enum core_attr_kind kind, int keyval, int predef_ok, int freed_ok)
{
    if (keyval > 0 && keyval < NPREDEF)
        return predef_ok && kind == CORE_ATTR_COMM ? 0 : CORE_EINVAL;
    keyval_t *k = lookup(keyval);
    return k && (freed_ok || !k->freed) && k->kind == kind ? 0 : CORE_EINVAL;
}

int core_attr_keyval_free(enum core_attr_kind kind, int keyval)
{
    /* Freeing again a keyval whose attributes remain (a delete callback that frees its
     * keyval, called for each of them) changes nothing: Open MPI and MPICH accept it, and
     * programs (MPICH's attr/keyval_double_free) rely on it. */
    int rc = core_attr_keyval_check(kind, keyval, 0, 1);
    if (rc != 0)
        return rc;
    keyval_t *k = lookup(keyval);
    k->freed = 1;
    maybe_drop(k);
    return 0;
}

static core_attr_t **find(core_attr_t **list, int keyval)
{
    for (; *list; list = &(*list)->next)
        if ((*list)->keyval == keyval)
            return list;
    return NULL;
}

void core_attr_out(enum core_attr_lang from, void *stored, enum core_attr_lang to, void *out)
{
    MPI_Aint v;
    if (from == CORE_ATTR_C)
        v = (MPI_Aint)(intptr_t)*(void **)stored;
    else if (from == CORE_ATTR_AINT)
        v = *(MPI_Aint *)stored;
    else
        v = *(int *)stored;   /* sign-extended */
    if (to == CORE_ATTR_C)
        *(void **)out = from == CORE_ATTR_C ? *(void **)stored : stored;
    else if (to == CORE_ATTR_AINT)
        *(MPI_Aint *)out = v;
    else
        *(int *)out = (int)v; /* the low part, as MPI_ATTR_GET reads it */
}

/* The value as the callbacks get it: the pointer, or the integer in a pointer. */
static void *raw(const core_attr_t *a)
{
    if (a->lang == CORE_ATTR_C)
        return a->v.ptr;
    return (void *)(intptr_t)(a->lang == CORE_ATTR_AINT ? a->v.aint : a->v.i);
}

/* Stores value (in lang's type) into a. */
static void store(core_attr_t *a, enum core_attr_lang lang, const void *value)
{
    a->lang = lang;
    if (lang == CORE_ATTR_C)
        a->v.ptr = *(void *const *)value;
    else if (lang == CORE_ATTR_AINT)
        a->v.aint = *(const MPI_Aint *)value;
    else
        a->v.i = *(const int *)value;
}

static int call_delete(void *obj, core_attr_call_t call, const core_attr_t *a)
{
    keyval_t *k = lookup(a->keyval);
    if (!k || !k->delete_fn)
        return MPI_SUCCESS;
    return call(obj, a->keyval, k->delete_fn, k->extra, raw(a), NULL, NULL, 0);
}

/* Where a is linked in list now, or NULL. A delete callback may delete or set
 * other attributes of the object, so a link found before it ran may be gone. */
static core_attr_t **refind(core_attr_t **list, const core_attr_t *a)
{
    for (; *list; list = &(*list)->next)
        if (*list == a)
            return list;
    return NULL;
}

static void unlink_attr(core_attr_t **at)
{
    core_attr_t *a = *at;
    *at = a->next;
    keyval_t *k = lookup(a->keyval);
    if (k) {
        k->holders--;
        maybe_drop(k);
    }
    free(a);
}

static int attach(core_attr_t **list, int keyval, enum core_attr_lang lang, const void *value)
{
    core_attr_t *a = malloc(sizeof(*a));
    if (!a)
        return CORE_ENOMEM;
    *a = (core_attr_t){ .keyval = keyval, .next = *list };
    store(a, lang, value);
    *list = a;
    lookup(keyval)->holders++;
    return 0;
}

int core_attr_set(core_attr_t **list, void *obj, core_attr_call_t call, int keyval,
                  enum core_attr_lang lang, const void *value, int *cb_rc)
{
    core_attr_t **at = find(list, keyval);
    if (at) {
        /* MPI: replacing a value deletes the old one first, through its callback */
        core_attr_t *a = *at;
        *cb_rc = call_delete(obj, call, a);
        if (*cb_rc != MPI_SUCCESS)
            return CORE_EOTHER;
        if ((at = refind(list, a)) != NULL) {
            store(*at, lang, value);
            return 0;
        }
    }
    return attach(list, keyval, lang, value);
}

void core_attr_get(core_attr_t *list, int keyval, enum core_attr_lang lang, void *value, int *flag)
{
    core_attr_t **at = find(&list, keyval);
    *flag = at != NULL;
    if (at)
        core_attr_out((*at)->lang, &(*at)->v, lang, value);
}

int core_attr_delete(core_attr_t **list, void *obj, core_attr_call_t call, int keyval,
                     int *cb_rc)
{
    core_attr_t **at = find(list, keyval);
    if (!at)
        return CORE_ENOTFOUND;
    core_attr_t *a = *at;
    *cb_rc = call_delete(obj, call, a);
    if (*cb_rc != MPI_SUCCESS)
        return CORE_EOTHER; /* MPI: the attribute stays when its callback fails */
    if ((at = refind(list, a)) != NULL)
        unlink_attr(at);
    return 0;
}

int core_attr_copy(core_attr_t *from, void *from_obj, core_attr_t **to, core_attr_call_t call,
                   int *cb_rc)
{
    /* oldest first, so the copy's list keeps the original's order */
    int n = 0;
    for (core_attr_t *a = from; a; a = a->next)
        n++;
    for (int i = n - 1; i >= 0; i--) {
        core_attr_t *a = from;
        for (int j = 0; j < i; j++)
            a = a->next;
        keyval_t *k = lookup(a->keyval);
        if (!k || !k->copy_fn)
            continue;
        void *out = NULL;
        int keep = 0;
        *cb_rc = call(from_obj, a->keyval, k->copy_fn, k->extra, raw(a), &out, &keep, 1);
        if (*cb_rc != MPI_SUCCESS)
            return CORE_EOTHER;
        /* the copy keeps the original's language: its callback gave a value of that kind */
        MPI_Aint aint = (MPI_Aint)(intptr_t)out;
        int i = (int)aint;
        const void *v = a->lang == CORE_ATTR_C ? (const void *)&out
                        : a->lang == CORE_ATTR_AINT ? (const void *)&aint : (const void *)&i;
        if (keep && attach(to, a->keyval, a->lang, v) != 0)
            return CORE_ENOMEM;
    }
    return 0;
}

int core_attr_delete_all(core_attr_t **list, void *obj, core_attr_call_t call, int *cb_rc)
{
    int ret = 0;
    *cb_rc = MPI_SUCCESS;
    while (*list) {
        core_attr_t *a = *list, **at;
        int rc = call_delete(obj, call, a);
        if (rc != MPI_SUCCESS && ret == 0) {
            *cb_rc = rc;
            ret = CORE_EOTHER;
        }
        if ((at = refind(list, a)) != NULL)
            unlink_attr(at);
    }
    return ret;
}

void core_attr_discard(core_attr_t **list)
{
    while (*list)
        unlink_attr(list);
}

void core_attr_fini(core_runtime_t *rt)
{
    free(rt->attr.keyvals);
    rt->attr = (core_attr_table_t){ 0 };
}
