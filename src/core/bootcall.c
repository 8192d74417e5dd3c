/*
 * The boot layer's PMIx-call lock (see bootcall.h).
 */
#include <unistd.h>
#include "core/bootcall.h"

void core_boot_lock_init(core_runtime_t *rt)
{
    pthread_mutex_init(&rt->boot_lock, NULL);
}

void core_boot_lock_destroy(core_runtime_t *rt)
{
    pthread_mutex_destroy(&rt->boot_lock);
}

void core_boot_call_begin(core_runtime_t *rt, int may_leave, core_boot_call_t *c)
{
    /* G first, then this lock: waiting here with G left lets the other threads go on. */
    c->left = may_leave ? core_cs_leave(&rt->cs) : 0;
    pthread_mutex_lock(&rt->boot_lock);
}

void core_boot_call_end(core_runtime_t *rt, core_boot_call_t *c)
{
    pthread_mutex_unlock(&rt->boot_lock);
    core_cs_return(&rt->cs, c->left);
}

int core_boot_call_try(core_runtime_t *rt, core_boot_call_t *c)
{
    c->left = 0;
    for (int i = 0; i < 100; i++) {
        if (pthread_mutex_trylock(&rt->boot_lock) == 0)
            return 1;
        usleep(10000);
    }
    return 0;
}
