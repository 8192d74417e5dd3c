/*
 * An intrusive doubly-linked list: each element embeds a core_list_t, and the list itself is one
 * more core_list_t, its head, joined to the elements in a ring. A ring has no ends to special-case,
 * so inserting and unlinking are two assignments each, and an element unlinks itself without
 * knowing which list holds it. An unlinked element points at itself: core_list_linked() tells
 * whether it is on a list.
 */
#ifndef RDMPI_CORE_LIST_H
#define RDMPI_CORE_LIST_H

#include <stddef.h>

typedef struct core_list {
    struct core_list *next, *prev;
} core_list_t;

/* The element of type `type` whose member `member` is the list link `l`. */
#define core_list_elem(l, type, member) ((type *)((char *)(l) - offsetof(type, member)))

/* An empty list, or an element on none. */
static inline void core_list_init(core_list_t *l)
{
    l->next = l->prev = l;
}

static inline int core_list_empty(const core_list_t *head)
{
    return head->next == head;
}

static inline int core_list_linked(const core_list_t *e)
{
    return e->next != e;
}

static inline void core_list_insert_after(core_list_t *at, core_list_t *e)
{
    e->prev = at;
    e->next = at->next;
    at->next->prev = e;
    at->next = e;
}

/* First position (the head's next). */
static inline void core_list_push_front(core_list_t *head, core_list_t *e)
{
    core_list_insert_after(head, e);
}

/* Takes e off its list; e is then on none. */
static inline void core_list_unlink(core_list_t *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    core_list_init(e);
}

/* Walks the list first to last (the _backward_ one: last to first). In the _safe_ walks the body
 * may unlink (and free) `it`: the walk has already taken its neighbour in `tmp`. */
#define core_list_each_safe(it, tmp, head) \
    for ((it) = (head)->next, (tmp) = (it)->next; (it) != (head); (it) = (tmp), (tmp) = (it)->next)
#define core_list_each_backward_safe(it, tmp, head) \
    for ((it) = (head)->prev, (tmp) = (it)->prev; (it) != (head); (it) = (tmp), (tmp) = (it)->prev)
#define core_list_each(it, head) for ((it) = (head)->next; (it) != (head); (it) = (it)->next)

#endif
