// Umbrella header for the system library `yajl` (Debian package providing <yajl/yajl_parse.h>).
// Nothing but the one Swift module that owns this dependency imports CYAJL.
#include <yajl/yajl_parse.h>
