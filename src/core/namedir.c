/*
 * The name directory (core/namedir.h).
 */
#define _GNU_SOURCE /* O_NOFOLLOW */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/errors.h"
#include "core/namedir.h"
#include "core/secret.h"

#define MAGIC "rdmpi-name1\n"
#define FILE_MAX 4096

/* The directory is ours and closed to everyone else. */
static int dir_ok(const char *dir)
{
    struct stat st;
    if (!dir || !*dir || lstat(dir, &st))
        return CORE_EACCESS;
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
        return CORE_EACCESS;
    return 0;
}

static int path_of(const char *dir, const char *service, char *out, size_t len)
{
    static const uint8_t zero[CORE_KEY_LEN];
    uint8_t h[16];
    char hex[33];
    core_kdf(zero, service, h, sizeof(h));
    core_hex(h, sizeof(h), hex);
    int n = snprintf(out, len, "%s/%s", dir, hex);
    return n > 0 && (size_t)n < len ? 0 : CORE_EINVAL;
}

int core_namedir_publish(const char *dir, const char *service, const char *port)
{
    char path[PATH_MAX], tmp[PATH_MAX + 32];
    int rc = dir_ok(dir);
    if (rc || (rc = path_of(dir, service, path, sizeof(path))))
        return rc;
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return CORE_EIO;
    char buf[FILE_MAX];
    int n = snprintf(buf, sizeof(buf), MAGIC "%s\n%s\n", service, port);
    rc = n > 0 && n < (int)sizeof(buf) && write(fd, buf, (size_t)n) == n ? 0 : CORE_EIO;
    if (close(fd))
        rc = CORE_EIO;
    /* link: the name appears whole, and only if nobody published it first */
    if (!rc && link(tmp, path))
        rc = errno == EEXIST ? CORE_ESERVICE : CORE_EIO;
    unlink(tmp);
    return rc;
}

int core_namedir_lookup(const char *dir, const char *service, char *port, size_t len)
{
    char path[PATH_MAX], buf[FILE_MAX + 1];
    int rc = dir_ok(dir);
    if (rc || (rc = path_of(dir, service, path, sizeof(path))))
        return rc;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? CORE_ENAME : CORE_EIO;
    struct stat st;
    ssize_t n = -1;
    if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        st.st_size < FILE_MAX)
        n = read(fd, buf, FILE_MAX);
    close(fd);
    if (n < 0)
        return CORE_EIO;
    buf[n] = '\0';
    size_t ml = strlen(MAGIC), sl = strlen(service);
    const char *p = buf + ml;
    if ((size_t)n < ml + sl + 2 || memcmp(buf, MAGIC, ml) || memcmp(p, service, sl) ||
        p[sl] != '\n')
        return CORE_ENAME; /* another service with the same hash, or no file of ours */
    p += sl + 1;
    const char *nl = strchr(p, '\n');
    if (!nl || nl[1] || nl == p || (size_t)(nl - p) >= len)
        return CORE_EIO;
    memcpy(port, p, (size_t)(nl - p));
    port[nl - p] = '\0';
    return 0;
}

int core_namedir_unpublish(const char *dir, const char *service, const char *port)
{
    char have[FILE_MAX], path[PATH_MAX];
    int rc = core_namedir_lookup(dir, service, have, sizeof(have));
    if (rc == CORE_ENAME || (!rc && strcmp(have, port)))
        return CORE_ESERVICE;
    if (rc || (rc = path_of(dir, service, path, sizeof(path))))
        return rc;
    return unlink(path) ? CORE_EIO : 0;
}
