// Umbrella header for the system library `lmdb` (Debian package providing <lmdb.h>).
// Nothing but the one Swift module that owns this dependency imports CLMDB.
#include <lmdb.h>
