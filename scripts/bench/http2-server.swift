// The benchmark server of scripts/bench-http2.sh (not a package target: the script compiles it
// against the release build of the HTTP2 module). Answers every request with 200 and a fixed body.
//
//   http2-server PORT THREADS BODY_BYTES      prints the bound port, serves until SIGTERM/SIGINT
import HTTP2
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 0 : 0
let threads = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1
let bodySize = arguments.count > 3 ? Int(arguments[3]) ?? 64 : 64
let body = [UInt8](repeating: UInt8(ascii: "x"), count: bodySize)

var configuration = HTTP2Server.Configuration()
configuration.port = port
configuration.threadCount = threads
configuration.session.maxConcurrentStreams = 1_000
let server = HTTP2Server(configuration: configuration) { _, responder in
    responder.respond(status: 200, headers: [("content-type", "text/plain")], body: body)
}
do {
    let bound = try server.start()
    print(bound)
    fflush(stdout)
} catch {
    fputs("http2-server: \(error)\n", stderr)
    exit(1)
}
// Block SIGTERM/SIGINT and wait for one, then shut down gracefully.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGTERM)
sigaddset(&signals, SIGINT)
pthread_sigmask(SIG_BLOCK, &signals, nil)
var received: Int32 = 0
sigwait(&signals, &received)
server.shutdown(gracePeriod: .seconds(1))
