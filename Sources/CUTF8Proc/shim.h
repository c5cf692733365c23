// Umbrella header for the system library `utf8proc` (Debian package providing <utf8proc.h>).
// Nothing but the one Swift module that owns this dependency imports CUTF8Proc.
#include <utf8proc.h>
