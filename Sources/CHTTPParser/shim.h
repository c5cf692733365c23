// Umbrella header for the system library `http_parser` (Node.js's http-parser 2.9; Debian package
// libhttp-parser-dev providing <http_parser.h>). Nothing but the one Swift module that owns this
// dependency (HTTP2, for its HTTP/1.1 fallback) imports CHTTPParser.
#include <http_parser.h>
