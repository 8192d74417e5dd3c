/*
 * Attribute caching (MPI keyvals): a table of keyvals, each with the user's
 * copy and delete callbacks, and per-object attribute lists. The module does
 * not know what an object is: the callbacks are called through a small
 * trampoline the API layer passes in (core_attr_call_t), which casts them to
 * the communicator or datatype signature.
 */
#ifndef RDMPI_CORE_ATTR_H
#define RDMPI_CORE_ATTR_H

#include "mpi.h"

enum core_attr_kind { CORE_ATTR_COMM = 1, CORE_ATTR_TYPE, CORE_ATTR_WIN };

/* A user callback, stored untyped; the trampoline casts it back. */
typedef void (*core_attr_fn_t)(void);

/*
 * The language an attribute value was set from, which decides what a get in another language
 * reads (MPI-3.1 17.2.7): C stores a pointer, Fortran an INTEGER(KIND=MPI_ADDRESS_KIND) or,
 * through MPI_ATTR_PUT, an INTEGER. C reading a Fortran value gets a pointer to the stored
 * integer; Fortran reading a C value gets the address as an integer (an INTEGER: truncated);
 * Fortran reading the other Fortran kind gets the value sign-extended or truncated.
 */
enum core_attr_lang { CORE_ATTR_C = 0, CORE_ATTR_AINT, CORE_ATTR_INT };

/* One cached attribute; a list is most recently set first. */
typedef struct core_attr {
    int keyval;
    enum core_attr_lang lang;   /* which member of v holds the value */
    union {
        void *ptr;
        MPI_Aint aint;
        int i;
    } v;
    struct core_attr *next;
} core_attr_t;

/* Writes into *out (a void * for C, an MPI_Aint for CORE_ATTR_AINT, an int for CORE_ATTR_INT)
 * what a get in language to reads of a value stored as from at stored (a void ** for C); C
 * reading an integer gets stored itself, so stored must outlive the read. */
void core_attr_out(enum core_attr_lang from, void *stored, enum core_attr_lang to, void *out);

/*
 * Calls keyval's copy callback (copy != 0: the value for the new object in
 * *out, *keep says whether to attach it) or its delete callback, on the
 * object obj; returns the callback's MPI error code.
 */
typedef int (*core_attr_call_t)(void *obj, int keyval, core_attr_fn_t fn, void *extra, void *value,
                                void **out, int *keep, int copy);

/* A new keyval of kind with the user's callbacks (NULL: the null functions). */
int core_attr_keyval_create(enum core_attr_kind kind, core_attr_fn_t copy_fn, core_attr_fn_t delete_fn,
                            void *extra, int *keyval);
/* Marks keyval freed: it goes once no object holds an attribute of it (freeing it again
 * before then is accepted and changes nothing). */
int core_attr_keyval_free(enum core_attr_kind kind, int keyval);
/* CORE_EINVAL unless keyval is a keyval of kind: a predefined one only when
 * predef_ok, one the program freed (whose attributes remain) only when
 * freed_ok (reading and deleting them stays allowed). */
int core_attr_keyval_check(enum core_attr_kind kind, int keyval, int predef_ok, int freed_ok);

/* value points to the value in lang's type (a void * for C). */
int core_attr_set(core_attr_t **list, void *obj, core_attr_call_t call, int keyval,
                  enum core_attr_lang lang, const void *value, int *cb_rc);
/* *flag = 0 when obj has no attribute of keyval; else *value as core_attr_out writes it.
 * Callbacks get the value stored (an integer as a pointer-sized one), whatever its language. */
void core_attr_get(core_attr_t *list, int keyval, enum core_attr_lang lang, void *value, int *flag);
int core_attr_delete(core_attr_t **list, void *obj, core_attr_call_t call, int keyval,
                     int *cb_rc);
/* The attributes of from (on from_obj) that their copy callbacks keep, added to *to. */
int core_attr_copy(core_attr_t *from, void *from_obj, core_attr_t **to, core_attr_call_t call,
                   int *cb_rc);
/* Frees the list without calling any callback (a copy that was never handed out). */
void core_attr_discard(core_attr_t **list);
/* Deletes every attribute, most recently set first; the first failing callback's code in *cb_rc. */
int core_attr_delete_all(core_attr_t **list, void *obj, core_attr_call_t call, int *cb_rc);

/* The predefined keyvals on communicators (MPI_TAG_UB, ...): their values, set at init. */
int core_attr_predefined(int keyval, void **value);
/* Frees the keyval table of rt (MPI_Finalize). */
struct core_runtime;
void core_attr_fini(struct core_runtime *rt);
void core_attr_set_predefined(int keyval, int value);

#endif
