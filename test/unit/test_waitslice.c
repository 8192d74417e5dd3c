/*
 * Unit test of when a rank asks for short scheduler slices (src/core/waitslice.c): at the
 * first sign of others on its cores when the job's ranks fit them; in a crowded job not at a
 * lone sign, nor at signs spread out in time (a low-weight neighbour that gets a slice now
 * and then), but once they come in a burst (a busy neighbour of the ranks' weight); a clock
 * going backwards starts the count again.
 */
#include <stdio.h>
#include "core/waitslice.h"

static int failures;
#define CHECK(name, cond)                                                      \
    do {                                                                       \
        if (cond)                                                              \
            printf("PASS: unit/waitslice/%s\n", name);                         \
        else {                                                                 \
            printf("FAIL: unit/waitslice/%s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond); \
            failures++;                                                        \
        }                                                                      \
    } while (0)

/* The number of signs, one every gap seconds from t0, until the first 1 (0: none in max). */
static int signs_to_ask(core_crowd_t *c, double t0, double gap, int max)
{
    for (int i = 0; i < max; i++)
        if (core_crowd_note(c, t0 + i * gap, 1))
            return i + 1;
    return 0;
}

int main(void)
{
    core_crowd_t c = { 0 };
    CHECK("crowded: a lone sign does not ask", core_crowd_note(&c, 1000.0, 1) == 0);
    c = (core_crowd_t){ 0 };
    CHECK("fitting: the first sign asks", core_crowd_note(&c, 1000.0, 0) == 1);
    c = (core_crowd_t){ 0 };
    int spread = 1;
    for (int i = 0; i < 100; i++)
        spread &= core_crowd_note(&c, 1000.0 + i, 0);
    CHECK("fitting: every sign asks", spread);
    c = (core_crowd_t){ 0 };
    int burst = signs_to_ask(&c, 1000.0, 0.0014, 1000); /* a neighbour's slice at each yield */
    CHECK("a burst asks", burst > 1 && burst <= 8);
    c = (core_crowd_t){ 0 };
    CHECK("signs a second apart never ask", signs_to_ask(&c, 1000.0, 1.0, 1000) == 0);
    c = (core_crowd_t){ 0 };
    CHECK("signs 0.25 s apart never ask", signs_to_ask(&c, 1000.0, 0.25, 1000) == 0);
    /* A burst interrupted by a long pause starts again. */
    c = (core_crowd_t){ 0 };
    for (int i = 0; i < burst - 1; i++)
        core_crowd_note(&c, 1000.0 + i * 0.001, 1);
    CHECK("a pause starts the count again", signs_to_ask(&c, 1010.0, 0.001, 1000) == burst);
    /* Time going backwards (another clock) starts again too, without asking at once. */
    c = (core_crowd_t){ 0 };
    for (int i = 0; i < burst - 1; i++)
        core_crowd_note(&c, 1000.0 + i * 0.001, 1);
    CHECK("a clock going back starts again", core_crowd_note(&c, 10.0, 1) == 0);
    /* Once due it stays due while signs keep coming (the caller asks once). */
    c = (core_crowd_t){ 0 };
    signs_to_ask(&c, 1000.0, 0.001, 1000);
    CHECK("due while the burst lasts", core_crowd_note(&c, 1000.0 + burst * 0.001, 1) == 1);
    return failures != 0;
}
