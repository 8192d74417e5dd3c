/*
 * Unit test of a persistent request's restart under MULTIPLE (core/request.h): one thread
 * completes the request round after round (core_req_complete, as the progress engine outside
 * G would), the other waits for each completion and starts the request again at once
 * (core_req_restart, as MPI_Wait and MPI_Start do). The waiter may see the request complete
 * while its completer still rings it (CORE_REQ_COMPLETING); a restart that did not wait that
 * out had the completer's last store mark the new round complete, which the waiter then saw
 * as a completion nobody made. The waiter's flag `sleeping` is kept set so that every
 * completion rings (a futex call inside that window), which makes the window wide enough to
 * be met within the rounds below on two cores.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include "core/handle.h"
#include "core/request.h"
#include "core/runtime.h"
#include "p2p_fake.h"

#define ROUNDS 200000
#define SECONDS 3.0

static MPI_Request req;
static _Atomic int made;   /* completions made by the completer */
static _Atomic int stop;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *completer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= ROUNDS; i++) {
        while (core_req_is_complete(req))
            if (stop)
                return NULL;
        made = i;
        core_req_complete(req);
    }
    return NULL;
}

int main(void)
{
    p2p_fake_init(2, 0, 0);
    core_req_table_init(&core_rt->reqs, 1);
    core_handles.shared = 1;
    req = core_req_alloc(CORE_REQ_RECV);
    req->persistent = 1;
    req->sleeping = 1;
    pthread_t t;
    pthread_create(&t, NULL, completer, NULL);
    int seen = 0, stale = 0;
    double t0 = now();
    for (int j = 1; j <= ROUNDS && now() - t0 < SECONDS; j++) {
        while (!core_req_is_complete(req))
            ;
        if (made < j) { /* complete, but no completion of this round was made */
            stale = j;
            break;
        }
        seen = j;
        core_req_restart(req);
    }
    stop = 1;
    pthread_join(t, NULL);
    if (stale)
        printf("FAIL: unit/req_restart/no-stale-completion (round %d showed complete after "
               "%d completions)\n", stale, made);
    else
        printf("PASS: unit/req_restart/no-stale-completion (%d rounds)\n", seen);
    req->sleeping = 0;
    core_handles.shared = 0;
    return stale != 0;
}
