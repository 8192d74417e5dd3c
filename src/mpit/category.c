/*
 * Categories: one per component of the settings registry ("core", "shm",
 * "p2p", "coll", ...), holding its control variables and the performance
 * variables of the same name (p2p's counters, each transport's), plus one
 * for a transport that has counters but no settings (self). Built once at
 * MPI_T init: they never change (MPI_T_category_changed's stamp stays 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api/api.h"
#include "mpit/mpit.h"

static mpit_cat_t *cat_named(mpit_state_t *st, const char *name)
{
    for (int i = 0; i < st->ncats; i++)
        if (!strcmp(st->cats[i].name, name))
            return &st->cats[i];
    if (st->ncats == MPIT_MAX_CATS)
        return NULL;
    mpit_cat_t *c = &st->cats[st->ncats++];
    c->name = name;
    snprintf(c->desc, sizeof(c->desc), "the %s component's RDMPI_* settings and counters", name);
    return c;
}

static int append(int **list, int *n, int v)
{
    int *t = realloc(*list, (size_t)(*n + 1) * sizeof(int));
    if (!t)
        return -1;
    t[(*n)++] = v;
    *list = t;
    return 0;
}

int mpit_cats_build(mpit_state_t *st)
{
    for (int i = 0; i < st->ncvars; i++) {
        core_config_param_t p;
        mpit_cat_t *c;
        if (core_config_param(&st->own, (size_t)i, &p) != 0 || !(c = cat_named(st, p.component)) ||
            append(&c->cvars, &c->ncvars, i) != 0)
            return -1;
    }
    for (int i = 0; i < mpit_pvar_count(); i++) {
        mpit_cat_t *c = cat_named(st, mpit_pvar_category(i));
        if (!c || append(&c->pvars, &c->npvars, i) != 0)
            return -1;
    }
    return 0;
}

void mpit_cats_free(mpit_state_t *st)
{
    for (int i = 0; i < st->ncats; i++) {
        free(st->cats[i].cvars);
        free(st->cats[i].pvars);
    }
    st->ncats = 0;
}

int PMPI_T_category_get_num(int *num_cat)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    if (!num_cat)
        return MPI_T_ERR_INVALID;
    *num_cat = st->ncats;
    return MPI_SUCCESS;
}
int MPI_T_category_get_num(int *num_cat) API_ALIAS(MPI_T_category_get_num);

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    if (cat_index < 0 || cat_index >= st->ncats)
        return MPI_T_ERR_INVALID_INDEX;
    const mpit_cat_t *c = &st->cats[cat_index];
    mpit_put_str(c->name, name, name_len);
    mpit_put_str(c->desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = c->ncvars;
    if (num_pvars)
        *num_pvars = c->npvars;
    if (num_categories)
        *num_categories = 0;
    return MPI_SUCCESS;
}
int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                            int *num_cvars, int *num_pvars, int *num_categories)
    API_ALIAS(MPI_T_category_get_info);

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < st->ncats; i++)
        if (!strcmp(st->cats[i].name, name)) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
int MPI_T_category_get_index(const char *name, int *cat_index)
    API_ALIAS(MPI_T_category_get_index);

static int get_list(int cat_index, int len, int indices[], int which)
{
    MPIT_CHECK_INIT(st);
    if (cat_index < 0 || cat_index >= st->ncats)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    const mpit_cat_t *c = &st->cats[cat_index];
    const int *list = which == 0 ? c->cvars : c->pvars;
    int n = which == 0 ? c->ncvars : which == 1 ? c->npvars : 0;
    for (int i = 0; i < n && i < len; i++)
        indices[i] = list[i];
    return MPI_SUCCESS;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    MPIT_API_ENTER;
    return get_list(cat_index, len, indices, 0);
}
int MPI_T_category_get_cvars(int cat_index, int len, int indices[])
    API_ALIAS(MPI_T_category_get_cvars);

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    MPIT_API_ENTER;
    return get_list(cat_index, len, indices, 1);
}
int MPI_T_category_get_pvars(int cat_index, int len, int indices[])
    API_ALIAS(MPI_T_category_get_pvars);

/* No category has subcategories. */
int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    MPIT_API_ENTER;
    return get_list(cat_index, len, indices, 2);
}
int MPI_T_category_get_categories(int cat_index, int len, int indices[])
    API_ALIAS(MPI_T_category_get_categories);

int PMPI_T_category_changed(int *stamp)
{
    MPIT_API_ENTER;
    MPIT_CHECK_INIT(st);
    (void)st;
    if (!stamp)
        return MPI_T_ERR_INVALID;
    *stamp = 0;
    return MPI_SUCCESS;
}
int MPI_T_category_changed(int *stamp) API_ALIAS(MPI_T_category_changed);
