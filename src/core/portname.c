/*
 * Port names and connect requests (core/portname.h).
 */
#include <stdio.h>
#include <string.h>
#include "core/errors.h"
#include "core/portname.h"

#define NUM_MAX (1 << 30)

/* Parses a decimal below NUM_MAX ending at one of the characters of ends ("" for the end
 * of the string); advances *s past the number and its ending. */
static int num(const char **s, const char *ends, int *out)
{
    const char *p = *s;
    long v = 0;
    if (*p < '0' || *p > '9')
        return -1;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p++ - '0');
        if (v >= NUM_MAX)
            return -1;
    }
    if (*p ? !strchr(ends, *p) || !*ends : 0)
        return -1;
    *out = (int)v;
    *s = *p ? p + 1 : p;
    return 0;
}

/* A job name ending at stop: copied into p->nspace. */
static int job(const char **s, char stop, core_port_t *p)
{
    const char *b = *s, *e = b;
    while (*e && *e != stop) {
        if ((unsigned char)*e <= ' ' || *e == '/' || *e == 0x7f)
            return -1;
        e++;
    }
    if (*e != stop || e == b || (size_t)(e - b) >= sizeof(p->nspace))
        return -1;
    memcpy(p->nspace, b, (size_t)(e - b));
    p->nspace[e - b] = '\0';
    *s = e + 1;
    return 0;
}

static int valid(const core_port_t *p)
{
    core_port_t q; /* job() copies the name into it: a check of p->nspace's characters */
    const char *s = p->nspace;
    if (!memchr(p->nspace, '\0', sizeof(p->nspace)))
        return 0;
    return job(&s, '\0', &q) == 0 && p->rank >= 0 && p->rank < NUM_MAX && p->ubase >= 0 &&
           p->ubase < NUM_MAX && p->seq >= 0 && p->seq < NUM_MAX;
}

int core_port_format(char *out, size_t len, const core_port_t *p)
{
    if (!valid(p))
        return CORE_EPORT;
    int n = snprintf(out, len, CORE_PORT_PREFIX "%s/%d/%d/%d", p->nspace, p->rank, p->ubase,
                     p->seq);
    return n > 0 && (size_t)n < len ? 0 : CORE_EPORT;
}

int core_port_parse(const char *name, core_port_t *p)
{
    core_port_t q;
    size_t pl = strlen(CORE_PORT_PREFIX);
    if (!name || strncmp(name, CORE_PORT_PREFIX, pl))
        return CORE_EPORT;
    const char *s = name + pl;
    if (job(&s, '/', &q) || num(&s, "/", &q.rank) || num(&s, "/", &q.ubase) ||
        num(&s, "", &q.seq) || *s)
        return CORE_EPORT;
    *p = q;
    return 0;
}

int core_port_request_format(char *out, size_t len, const core_port_t *p)
{
    core_port_t q = *p;
    q.seq = 0;
    if (!valid(&q))
        return CORE_EPORT;
    int n = snprintf(out, len, "%s %d %d", p->nspace, p->rank, p->ubase);
    return n > 0 && (size_t)n < len ? 0 : CORE_EPORT;
}

int core_port_request_parse(const char *req, core_port_t *p)
{
    core_port_t q;
    const char *s = req;
    q.seq = 0;
    if (!req || job(&s, ' ', &q) || num(&s, " ", &q.rank) || num(&s, "", &q.ubase) || *s)
        return CORE_EPROTO;
    *p = q;
    return 0;
}
