// HTTP2: the HTTP/2 transport of Typeahead (h2c with prior knowledge, as gRPC uses it), plus an
// HTTP/1.1 fallback on the server side for the tools operators point at a cleartext port
// (Prometheus, curl, Kubernetes probes, load-balancer health checks).
//
// Layers, bottom up (each one only talks to the one below):
//
//   CNghttp2, CHTTPParser,  C, wrapped once. Only this module imports them; nothing public mentions
//   CSystem                 an nghttp2 or http_parser type or a raw pointer.
//   Session/                sans-I/O protocol: `HTTP2ServerSession`, `HTTP2ClientSession` consume
//                           bytes, produce bytes and events. No sockets, no threads, no clocks, so
//                           tests pipe bytes between a client and a server session in memory.
//   Loop/                   I/O: `EventLoop` (one epoll instance and one thread), `Channel` (one
//                           nonblocking socket, its output buffer and backpressure), `SystemCall`
//                           (EINTR retried, EAGAIN → would block, errno errors), timers, wakeups.
//                           Public faces: `HTTP2EventLoopGroup`, `HTTP2EventLoop` (execute, timers),
//                           `HTTP2LoopBound` (loop-confined values).
//   HTTP1/                  the fallback's sans-I/O parts: `HTTP1RequestParser` (http_parser's
//                           events → `HTTP2Request`s, with the server's limits) and
//                           `HTTP1ResponseEncoder` (heads, chunks), and `HTTP1Connection`, which
//                           joins them to a channel.
//   Server/, Client/        glue: a connection handler joins one session to one channel;
//                           `HTTP2Server` and `HTTP2Client` are the public entry points. A server
//                           connection starts with `ProtocolSniffer`, which reads the first bytes
//                           and hands the channel to `ServerConnection` (the HTTP/2 preface) or to
//                           `HTTP1Connection` (anything else); both answer through the one
//                           `HTTP2Responder` type (`ResponseTarget`).
//
// Threading, in one paragraph: every connection (its channel, its session, its stream table) is
// owned by exactly one event-loop thread and is only touched there. Other threads reach it only by
// `EventLoop.execute`, which queues a closure and wakes the loop through an eventfd. Responders and
// client streams are the `Sendable` handles that do that hop for callers (inline, without a hop,
// when the caller is already on that loop: a server and a client sharing an `HTTP2EventLoopGroup`
// can serve a request, fan it out and answer it on one thread). nghttp2 calls back into
// Swift only synchronously from inside `nghttp2_session_mem_recv`/`mem_send`/`resume_data`, which
// only the owning thread calls, so the callbacks inherit that ownership (the concurrency checker
// cannot see through the C callbacks; this comment and the ones in `SessionCore` are the proof).
// http_parser is the same: it calls back only from `http_parser_execute`, which only the owning
// connection's thread calls (see `HTTP1RequestParser`).
