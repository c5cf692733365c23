// Umbrella header for the system library `yajl` (Debian package providing <yajl/yajl_parse.h>).
// Imported by Catalog (the catalog line parser) and JSONTree (request bodies), nothing else.
#include <yajl/yajl_parse.h>

// `yajl_config` is variadic, and Swift does not import C variadic functions. Every yajl option
// takes exactly one `int` argument, so this fixed-arity wrapper covers all of them.
static inline int cyajl_config(yajl_handle handle, yajl_option option, int enabled) {
    return yajl_config(handle, option, enabled);
}
