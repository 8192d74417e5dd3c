/*
 * Unit test of src/core/info.c: set/get/replace keeping position, length
 * limits, delete, dup, nth key, and MPI_INFO_ENV filled from argc/argv.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/errors.h"
#include "core/info.h"
#include "core/info_ops.h"

static int failures;

static void report(const char *name, int ok, const char *fmt, ...)
{
    if (ok) {
        printf("PASS: unit/info/%s\n", name);
        return;
    }
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    printf("FAIL: unit/info/%s %s\n", name, detail);
    failures++;
}

static int str_is(const char *got, const char *exp)
{
    return got && strcmp(got, exp) == 0;
}

/* Checks that info's keys are exactly the given ones, in order. */
static int keys_are(MPI_Info info, int n, const char *const *keys)
{
    if (core_info_nkeys(info) != n)
        return 0;
    for (int i = 0; i < n; i++) {
        if (!str_is(core_info_nthkey(info, i), keys[i]))
            return 0;
    }
    return core_info_nthkey(info, n) == NULL && core_info_nthkey(info, -1) == NULL;
}

static void test_basic(void)
{
    MPI_Info info;
    int rc = core_info_create(&info);
    report("create", rc == 0 && info && core_info_nkeys(info) == 0 && !info->predefined,
           "rc %d", rc);
    report("get_missing", core_info_get(info, "a") == NULL, "");

    rc = core_info_set(info, "alpha", "1");
    rc |= core_info_set(info, "beta", "two");
    rc |= core_info_set(info, "gamma", "");
    report("set", rc == 0 && str_is(core_info_get(info, "alpha"), "1") &&
                      str_is(core_info_get(info, "beta"), "two") &&
                      str_is(core_info_get(info, "gamma"), ""),
           "rc %d", rc);
    report("order", keys_are(info, 3, (const char *[]){ "alpha", "beta", "gamma" }), "");

    rc = core_info_set(info, "alpha", "replaced value");
    report("replace_keeps_position",
           rc == 0 && str_is(core_info_get(info, "alpha"), "replaced value") &&
               keys_are(info, 3, (const char *[]){ "alpha", "beta", "gamma" }),
           "rc %d", rc);
    report("case_sensitive", core_info_get(info, "ALPHA") == NULL, "");

    rc = core_info_delete(info, "beta");
    report("delete", rc == 0 && core_info_get(info, "beta") == NULL &&
                         keys_are(info, 2, (const char *[]){ "alpha", "gamma" }),
           "rc %d", rc);
    rc = core_info_delete(info, "beta");
    report("delete_missing", rc == CORE_EINFO_NOKEY, "rc %d", rc);
    rc = core_info_set(info, "beta", "back");
    report("reinsert_goes_last", rc == 0 && keys_are(info, 3, (const char *[]){ "alpha", "gamma", "beta" }),
           "rc %d", rc);

    /* growth past the initial capacity, then deletes from the front */
    char k[32], v[32];
    for (int i = 0; i < 100; i++) {
        snprintf(k, sizeof(k), "key%d", i);
        snprintf(v, sizeof(v), "val%d", i * 7);
        rc |= core_info_set(info, k, v);
    }
    int ok = rc == 0 && core_info_nkeys(info) == 103 && str_is(core_info_get(info, "key57"), "val399") &&
             str_is(core_info_nthkey(info, 3), "key0") && str_is(core_info_nthkey(info, 102), "key99");
    ok = ok && core_info_delete(info, "alpha") == 0 && str_is(core_info_nthkey(info, 0), "gamma");
    report("many_keys", ok, "rc %d nkeys %d", rc, core_info_nkeys(info));

    MPI_Info copy = NULL;
    rc = core_info_dup(info, &copy);
    ok = rc == 0 && copy != info && core_info_nkeys(copy) == core_info_nkeys(info);
    for (int i = 0; ok && i < core_info_nkeys(info); i++) {
        const char *key = core_info_nthkey(info, i);
        ok = str_is(core_info_nthkey(copy, i), key) &&
             str_is(core_info_get(copy, key), core_info_get(info, key)) &&
             core_info_get(copy, key) != core_info_get(info, key);
    }
    report("dup", ok, "rc %d", rc);
    core_info_set(copy, "gamma", "changed");
    core_info_delete(copy, "beta");
    report("dup_independent", str_is(core_info_get(info, "gamma"), "") &&
                                  str_is(core_info_get(info, "beta"), "back"),
           "");
    core_info_destroy(copy);
    core_info_destroy(info);

    rc = core_info_create(&info);
    MPI_Info empty_copy = NULL;
    rc |= core_info_dup(info, &empty_copy);
    report("dup_empty", rc == 0 && empty_copy && core_info_nkeys(empty_copy) == 0, "rc %d", rc);
    core_info_destroy(empty_copy);
    core_info_destroy(info);
}

static void test_limits(void)
{
    MPI_Info info;
    core_info_create(&info);
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];

    memset(key, 'k', MPI_MAX_INFO_KEY - 1);
    key[MPI_MAX_INFO_KEY - 1] = '\0';
    int rc = core_info_set(info, key, "x");
    report("key_max_len", rc == 0 && str_is(core_info_get(info, key), "x"), "rc %d", rc);
    key[MPI_MAX_INFO_KEY - 1] = 'k';
    key[MPI_MAX_INFO_KEY] = '\0';
    rc = core_info_set(info, key, "x");
    report("key_too_long", rc == CORE_EINFO_KEY && core_info_nkeys(info) == 1, "rc %d", rc);
    rc = core_info_set(info, "", "x");
    report("key_empty", rc == CORE_EINFO_KEY, "rc %d", rc);

    memset(val, 'v', MPI_MAX_INFO_VAL - 1);
    val[MPI_MAX_INFO_VAL - 1] = '\0';
    rc = core_info_set(info, "big", val);
    report("value_max_len", rc == 0 && strlen(core_info_get(info, "big")) == MPI_MAX_INFO_VAL - 1,
           "rc %d", rc);
    val[MPI_MAX_INFO_VAL - 1] = 'v';
    val[MPI_MAX_INFO_VAL] = '\0';
    rc = core_info_set(info, "big", val);
    report("value_too_long",
           rc == CORE_EINFO_VALUE && strlen(core_info_get(info, "big")) == MPI_MAX_INFO_VAL - 1,
           "rc %d", rc);
    rc = core_info_set(info, "new", val);
    report("value_too_long_new_key", rc == CORE_EINFO_VALUE && core_info_get(info, "new") == NULL,
           "rc %d", rc);
    core_info_destroy(info);
}

static void test_env(void)
{
    report("env_predefined", rdmpi_info_env.predefined == 1 && MPI_INFO_ENV == &rdmpi_info_env, "");

    char *argv[] = { "./prog", "-n", "5", "--flag", NULL };
    core_info_env_init(4, argv);
    MPI_Info env = MPI_INFO_ENV;
    report("env_command", str_is(core_info_get(env, "command"), "./prog"), "got %s",
           core_info_get(env, "command") ? core_info_get(env, "command") : "(none)");
    report("env_argv", str_is(core_info_get(env, "argv"), "-n 5 --flag"), "got %s",
           core_info_get(env, "argv") ? core_info_get(env, "argv") : "(none)");
    char host[256] = "";
    gethostname(host, sizeof(host));
    report("env_host", str_is(core_info_get(env, "host"), host), "");
    report("env_arch", core_info_get(env, "arch") && core_info_get(env, "arch")[0], "");
    char cwd[4096];
    report("env_wdir", getcwd(cwd, sizeof(cwd)) && str_is(core_info_get(env, "wdir"), cwd), "");

    MPI_Info copy;
    int rc = core_info_dup(env, &copy);
    report("env_dup", rc == 0 && !copy->predefined &&
                          core_info_nkeys(copy) == core_info_nkeys(env) &&
                          str_is(core_info_get(copy, "command"), "./prog"),
           "rc %d", rc);
    core_info_destroy(copy);
    core_info_destroy(env);   /* must not free the predefined object */
    report("env_destroy_noop", str_is(core_info_get(env, "command"), "./prog"), "");

    /* init again: replaced, not accumulated; no arguments means no "argv" key */
    char *argv1[] = { "/bin/other", NULL };
    core_info_env_init(1, argv1);
    report("env_reinit", str_is(core_info_get(env, "command"), "/bin/other") &&
                             core_info_get(env, "argv") == NULL,
           "");

    /* an argument list longer than a value can hold keeps the arguments that fit */
    enum { NARG = 300 };
    char *long_argv[NARG + 2];
    char words[NARG][16];
    long_argv[0] = "prog";
    for (int i = 0; i < NARG; i++) {
        snprintf(words[i], sizeof(words[i]), "argument%03d", i);
        long_argv[i + 1] = words[i];
    }
    long_argv[NARG + 1] = NULL;
    core_info_env_init(NARG + 1, long_argv);
    const char *a = core_info_get(env, "argv");
    report("env_argv_truncated", a && strlen(a) <= MPI_MAX_INFO_VAL - 1 &&
                                     strncmp(a, "argument000 argument001", 23) == 0 &&
                                     a[strlen(a) - 1] != ' ',
           "len %zu", a ? strlen(a) : 0);

    core_info_env_init(0, NULL);
    report("env_no_argv", core_info_get(env, "command") == NULL && core_info_get(env, "host"), "");
    core_info_env_fini();
    report("env_fini", core_info_nkeys(env) == 0, "");
}

int main(void)
{
    test_basic();
    test_limits();
    test_env();
    if (failures)
        printf("unit/info: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
