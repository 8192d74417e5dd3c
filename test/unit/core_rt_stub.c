/*
 * The base instance for unit tests and fuzz targets that link core modules reading core_rt
 * (attr.c's keyval table) without building a runtime.
 */
#include "core/runtime.h"

static core_runtime_t stub;
core_runtime_t *core_rt = &stub;
