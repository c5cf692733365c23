/// Entry points for the fuzz targets (`scripts/fuzz.sh`, `Tests/Fuzz/`): each takes arbitrary bytes,
/// as a hostile client would send them, and must return. They drive the same parsers the server
/// runs, with the server's default limits, and answer every request so that the response paths
/// run too. Public so that the fuzz package can reach parsers that are otherwise internal.
public enum HTTP2Fuzzing {
    /// The HTTP/1.1 request parser, fed `bytes[1...]` in two reads split after `bytes[0]` bytes
    /// (so heads and bodies split across reads are covered as well).
    public static func http1Requests(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[1...])
        let split = min(rest.count, Int(first))
        let parser = HTTP1RequestParser(maxHeaderListSize: 16 << 10, maxBodySize: 1 << 20)
        parser.receive(UnsafeRawBufferPointer(rebasing: rest[..<split]))
        parser.receive(UnsafeRawBufferPointer(rebasing: rest[split...]))
        parser.drainEvents { _ in }
    }

    /// A server session (nghttp2 under our callbacks) fed `bytes` after the client preface, as a
    /// connection's reads; every complete request is answered and the output drained, as the
    /// server's loop does.
    public static func http2ServerSession(_ bytes: UnsafeRawBufferPointer) {
        guard let session = try? HTTP2ServerSession() else { return }
        var input = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        input.append(contentsOf: bytes)
        var out: [UInt8] = []
        do {
            try session.receive(input)
            session.drainEvents { event in
                switch event {
                case .request(let request):
                    try? session.respond(streamID: request.streamID, status: 200, body: Array("ok".utf8),
                                         trailers: [(name: "grpc-status", value: "0")])
                case .requestRejected(let streamID, _, _):
                    try? session.respond(streamID: streamID, status: 413)
                case .streamClosed, .goAway:
                    break
                }
            }
            _ = try session.send(into: &out)
        } catch {
            // A protocol error ends the connection: what the server does too.
        }
    }
}
