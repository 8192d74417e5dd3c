/*
 * Unit test of the intrusive list (core/list.h): order of insertion, unlinking from the front,
 * middle and back, walks in both directions that unlink as they go, and the linked/empty states.
 */
#include <stdio.h>
#include "core/list.h"

static int failures;
#define CHECK(name, cond)                                                      \
    do {                                                                       \
        if (cond)                                                              \
            printf("PASS: unit/list/%s\n", name);                              \
        else {                                                                 \
            printf("FAIL: unit/list/%s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond); \
            failures++;                                                        \
        }                                                                      \
    } while (0)

typedef struct item {
    int value;
    core_list_t link;
} item_t;

/* The values from first to last (or last to first) as digits, e.g. 3210; -1 if the ring's
 * next and prev pointers disagree anywhere. */
static int digits(core_list_t *head, int backward)
{
    core_list_t *it, *tmp;
    int v = 0;
    for (it = head->next; it != head; it = it->next)
        if (it->next->prev != it || it->prev->next != it)
            return -1;
    if (backward) {
        core_list_each_backward_safe(it, tmp, head)
            v = v * 10 + core_list_elem(it, item_t, link)->value;
    } else {
        core_list_each(it, head)
            v = v * 10 + core_list_elem(it, item_t, link)->value;
    }
    return v;
}

int main(void)
{
    core_list_t head;
    item_t it[5];
    core_list_t *l, *tmp;

    core_list_init(&head);
    CHECK("empty_at_init", core_list_empty(&head) && digits(&head, 0) == 0);
    for (int i = 0; i < 5; i++) {
        it[i].value = i;
        core_list_init(&it[i].link);
    }
    CHECK("element_unlinked_at_init", !core_list_linked(&it[0].link));

    for (int i = 1; i < 5; i++)
        core_list_push_front(&head, &it[i].link);
    CHECK("push_front_order", digits(&head, 0) == 4321);
    CHECK("backward_order", digits(&head, 1) == 1234);
    CHECK("linked_after_push", core_list_linked(&it[3].link) && !core_list_empty(&head));

    core_list_unlink(&it[3].link); /* middle */
    CHECK("unlink_middle", digits(&head, 0) == 421 && !core_list_linked(&it[3].link));
    core_list_unlink(&it[4].link); /* first */
    core_list_unlink(&it[1].link); /* last */
    CHECK("unlink_ends", digits(&head, 0) == 2 && digits(&head, 1) == 2);
    core_list_insert_after(&it[2].link, &it[3].link);
    CHECK("insert_after", digits(&head, 0) == 23);

    /* A walk that unlinks every element it visits leaves nothing behind. */
    for (int i = 0; i < 5; i++)
        if (!core_list_linked(&it[i].link))
            core_list_push_front(&head, &it[i].link);
    int seen = 0;
    core_list_each_safe(l, tmp, &head) {
        seen++;
        core_list_unlink(l);
    }
    CHECK("safe_walk_unlinks_all", seen == 5 && core_list_empty(&head));

    /* Backward, unlinking only odd values, as an LRU sweep skipping busy entries does. */
    for (int i = 0; i < 5; i++)
        core_list_push_front(&head, &it[i].link);
    core_list_each_backward_safe(l, tmp, &head)
        if (core_list_elem(l, item_t, link)->value % 2)
            core_list_unlink(l);
    CHECK("backward_walk_unlinks_some", digits(&head, 0) == 420);
    return failures ? 1 : 0;
}
