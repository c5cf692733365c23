// Umbrella header for the system library `sqlite3` (Debian package providing <sqlite3.h>).
// Nothing but the one Swift module that owns this dependency imports CSQLite.
#include <sqlite3.h>
