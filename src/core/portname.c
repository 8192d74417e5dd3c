/*
 * Port names and connect requests (core/portname.h).
 */
#include <stdint.h>
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

/* Exactly 2*n lowercase hex digits ending at stop ('\0': the end of the string), into out
 * (n bytes, most significant first); advances *s past them and stop. Lowercase only, so
 * that a name has one spelling. */
static int hex(const char **s, char stop, uint8_t *out, size_t n)
{
    const char *p = *s;
    for (size_t i = 0; i < 2 * n; i++) {
        int c = p[i], v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0)
            return -1;
        out[i / 2] = (uint8_t)(i % 2 ? (out[i / 2] << 4) | v : v);
    }
    if (p[2 * n] != stop)
        return -1;
    *s = stop ? p + 2 * n + 1 : p + 2 * n;
    return 0;
}

static void hex_out(char *out, const uint8_t *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

int core_port_job_valid(const char *name)
{
    core_port_t q; /* job() copies the name into it: a check of name's characters */
    const char *s = name;
    return job(&s, '\0', &q) == 0;
}

/* "a.b.c.d:port/": four decimals below 256 and a port of 1..65535, into p. */
static int address(const char **s, core_port_t *p)
{
    for (int i = 0; i < 4; i++) {
        int v;
        if (num(s, i < 3 ? "." : ":", &v) || v > 255)
            return -1;
        p->ip[i] = (uint8_t)v;
    }
    return num(s, "/", &p->tport) || p->tport < 1 || p->tport > 65535 ? -1 : 0;
}

static int valid(const core_port_t *p)
{
    if (!memchr(p->nspace, '\0', sizeof(p->nspace)) || p->tport < 1 || p->tport > 65535)
        return 0;
    return core_port_job_valid(p->nspace) && p->rank >= 0 && p->rank < NUM_MAX && p->ubase >= 0 &&
           p->ubase < NUM_MAX && p->seq >= 0 && p->seq < NUM_MAX;
}

int core_port_format(char *out, size_t len, const core_port_t *p)
{
    if (!valid(p))
        return CORE_EPORT;
    uint8_t run[8];
    char run_hex[17], key_hex[2 * CORE_KEY_LEN + 1];
    for (int i = 0; i < 8; i++)
        run[i] = (uint8_t)(p->run >> (56 - 8 * i));
    hex_out(run_hex, run, sizeof(run));
    hex_out(key_hex, p->key, sizeof(p->key));
    int n = snprintf(out, len, CORE_PORT_PREFIX "%s/%s/%d/%d/%d/%u.%u.%u.%u:%d/%s", run_hex,
                     p->nspace, p->rank, p->ubase, p->seq, p->ip[0], p->ip[1], p->ip[2],
                     p->ip[3], p->tport, key_hex);
    return n > 0 && (size_t)n < len ? 0 : CORE_EPORT;
}

int core_port_parse(const char *name, core_port_t *p)
{
    core_port_t q;
    memset(&q, 0, sizeof(q));
    size_t pl = strlen(CORE_PORT_PREFIX);
    if (!name || strncmp(name, CORE_PORT_PREFIX, pl))
        return CORE_EPORT;
    const char *s = name + pl;
    uint8_t run[8];
    if (hex(&s, '/', run, sizeof(run)) || job(&s, '/', &q) || num(&s, "/", &q.rank) ||
        num(&s, "/", &q.ubase) || num(&s, "/", &q.seq) || address(&s, &q) ||
        hex(&s, '\0', q.key, sizeof(q.key)) ||
        *s)
        return CORE_EPORT;
    q.run = 0;
    for (int i = 0; i < 8; i++)
        q.run = q.run << 8 | run[i];
    *p = q;
    return 0;
}

int core_port_request_format(char *out, size_t len, const core_port_t *p)
{
    core_port_t q = *p;
    q.seq = 0;
    q.tport = 1;
    if (!valid(&q))
        return CORE_EPORT;
    int n = snprintf(out, len, "%s %d %d", p->nspace, p->rank, p->ubase);
    return n > 0 && (size_t)n < len ? 0 : CORE_EPORT;
}

int core_port_request_parse(const char *req, core_port_t *p)
{
    core_port_t q;
    const char *s = req;
    memset(&q, 0, sizeof(q));
    if (!req || job(&s, ' ', &q) || num(&s, " ", &q.rank) || num(&s, "", &q.ubase) || *s)
        return CORE_EPROTO;
    *p = q;
    return 0;
}
