// Umbrella header for the system library `nghttp2` (Debian package providing <nghttp2/nghttp2.h>).
// Nothing but the one Swift module that owns this dependency imports CNghttp2.
#include <nghttp2/nghttp2.h>
