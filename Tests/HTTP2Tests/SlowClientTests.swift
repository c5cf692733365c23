import Foundation
import HTTP2
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Slowloris: a client that trickles a request's head, byte by byte, keeps the idle timeout from
/// ever expiring; the request-head timeout ends it, over HTTP/1.1 and over HTTP/2.
final class SlowClientTests: ResourceCheckingTestCase {
    func configure(_ configuration: inout HTTP2Server.Configuration) {
        configuration.requestHeadTimeout = .milliseconds(400)
        configuration.idleTimeout = .seconds(30)
    }

    /// One header byte every 50 ms: 408 once the head has taken 400 ms, and the connection ends.
    func testATrickledHTTP1HeadIs408() async throws {
        let server = try TestServer(configure, handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        let started = ContinuousClock.now
        try client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        let box = Unchecked(client)
        let trickle = Task {
            for _ in 0..<60 {
                try? await Task.sleep(for: .milliseconds(50))
                try? box.value.send("a")
            }
        }
        defer { trickle.cancel() }
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 408)
        let waited = ContinuousClock.now - started
        // As below: the trickle holds the client's socket until it ends.
        trickle.cancel()
        await trickle.value
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(400))
        XCTAssertLessThan(waited, .seconds(3), "answered at the timeout, not when the client stops")
        await eventually("the server to close the connection") { server.server.statistics().openConnections == 0 }
    }

    /// A head that is slow but complete in time is served; the next request's head gets its own
    /// time, however long the connection has been open.
    func testASlowButTimelyHTTP1HeadIsServed() async throws {
        let server = try TestServer(configure, handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        for round in 0..<3 {
            for piece in ["GET /slow/\(round) HTTP/1.1\r\n", "Host: x\r\n", "\r\n"] {
                try client.send(piece)
                try await Task.sleep(for: .milliseconds(100))
            }
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.header("x-path"), "/slow/\(round)")
            try await Task.sleep(for: .milliseconds(300))  // idle between requests does not count
        }
    }

    /// HEADERS without END_HEADERS, then a CONTINUATION every 50 ms: GOAWAY ENHANCE_YOUR_CALM.
    func testATrickledHTTP2HeaderBlockEndsTheConnection() async throws {
        let server = try TestServer(configure, handler: echoHandler)
        defer { server.stop() }
        let socket = try RawSocket(port: server.port)
        let settings: [UInt8] = [0, 0, 0, 0x4, 0, 0, 0, 0, 0]
        // :method GET, :scheme http, :path / (static table 2, 6, 4), then a literal header
        // "x-slow" whose value never ends: its length says 100 bytes, one comes per CONTINUATION.
        let block: [UInt8] = [0x82, 0x86, 0x84, 0x00, 0x06] + Array("x-slow".utf8) + [100]
        try socket.write(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + settings
                         + Self.frame(type: 0x1, flags: 0x1, stream: 1, payload: block))
        let started = ContinuousClock.now
        let box = Unchecked(socket)
        let continuation = Self.frame(type: 0x9, flags: 0, stream: 1, payload: [UInt8(ascii: "a")])
        let trickle = Task {
            for _ in 0..<60 {
                try? await Task.sleep(for: .milliseconds(50))
                try? box.value.write(continuation)
            }
        }
        defer { trickle.cancel() }
        let received = try socket.readToEnd()
        let waited = ContinuousClock.now - started
        // The trickle holds the socket (its descriptor closes when the last reference goes): let
        // it end now, or the tear-down's count of open sockets may still see it.
        trickle.cancel()
        await trickle.value
        let goAway = Self.frames(received).first { $0.type == 0x7 }
        XCTAssertNotNil(goAway, "GOAWAY before the close")
        if let goAway, goAway.payload.count >= 8 {
            let code = goAway.payload[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
            XCTAssertEqual(code, 0xb, "ENHANCE_YOUR_CALM")
        }
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(350))
        XCTAssertLessThan(waited, .seconds(3))
        await eventually("the server to forget the connection") { server.server.statistics().openConnections == 0 }
    }

    static func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags,
                UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)] + payload
    }

    static func frames(_ bytes: [UInt8]) -> [(type: UInt8, payload: [UInt8])] {
        var frames: [(type: UInt8, payload: [UInt8])] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard offset + 9 + length <= bytes.count else { break }
            frames.append((bytes[offset + 3], Array(bytes[(offset + 9)..<(offset + 9 + length)])))
            offset += 9 + length
        }
        return frames
    }
}

/// A test's socket lent to the task that trickles bytes into it (the test reads, the task only
/// writes; a socket's send and recv may run on two threads at once).
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
