import Foundation
import HTTP2
import Synchronization
import XCTest

final class ServerClientTests: ResourceCheckingTestCase {
    func testRequestResponseOverSockets() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        let response = try await connection.send(HTTP2ClientRequest(method: "POST", path: "/echo?x=1",
                                                                    headers: [("x-test", "1")], body: bytes("abc")))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(text(response.body), "cba")
        XCTAssertEqual(response.header("x-path"), "/echo?x=1")
        XCTAssertEqual(response.header("x-method"), "POST")
        XCTAssertEqual(response.trailer("x-trailer"), "done")
    }

    func testHundredConcurrentStreamsOverOneConnection() async throws {
        let peak = Atomic<Int>(0), current = Atomic<Int>(0)
        let server = try TestServer { request, responder in
            let now = current.wrappingAdd(1, ordering: .relaxed).newValue
            _ = peak.max(now, ordering: .relaxed)
            // Answer from elsewhere, later: the handler must not need to finish on the loop.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
                current.subtract(1, ordering: .relaxed)
                responder.respond(status: 200, body: bytes(request.path))
            }
        }
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        try await withThrowingTaskGroup(of: (Int, HTTP2Response).self) { group in
            for i in 0..<100 {
                group.addTask { (i, try await connection.send(HTTP2ClientRequest(path: "/n/\(i)"))) }
            }
            var seen = Set<Int>()
            for try await (i, response) in group {
                XCTAssertEqual(text(response.body), "/n/\(i)")
                seen.insert(i)
            }
            XCTAssertEqual(seen.count, 100)
        }
        XCTAssertGreaterThan(peak.load(ordering: .relaxed), 1, "requests were in flight together")
        XCTAssertEqual(server.server.statistics().openConnections, 1)
    }

    func testSeveralConnections() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        var configuration = HTTP2Client.Configuration()
        configuration.threadCount = 2
        let client = try HTTP2Client(configuration: configuration)
        defer { client.shutdown() }
        var connections: [HTTP2ClientConnection] = []
        for _ in 0..<4 { connections.append(try await client.connect(host: "127.0.0.1", port: server.port)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (c, connection) in connections.enumerated() {
                for i in 0..<25 {
                    group.addTask {
                        let body = bytes("c\(c)-r\(i)")
                        let response = try await connection.send(HTTP2ClientRequest(method: "POST", path: "/", body: body))
                        XCTAssertEqual(response.body, body.reversed())
                    }
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(server.server.statistics().openConnections, 4)
    }

    func testLargeBodiesBothWays() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        let body = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let response = try await connection.send(HTTP2ClientRequest(method: "POST", path: "/big", body: body))
        XCTAssertTrue(response.body == body.reversed())
    }

    func testClientCancellationReachesTheHandler() async throws {
        let cancelled = expectation(description: "handler saw the cancellation")
        let received = expectation(description: "handler got the request")
        let server = try TestServer { request, responder in
            if request.path == "/after" { return responder.respond(status: 200) }
            responder.onCancel { cancelled.fulfill() }
            received.fulfill()
            // Never answers.
        }
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        let task = Task { try await connection.send(HTTP2ClientRequest(path: "/forever")) }
        await fulfillment(of: [received], timeout: 10)
        task.cancel()
        let error = await clientError { try await task.value }
        XCTAssertEqual(error?.code, .cancelled)
        await fulfillment(of: [cancelled], timeout: 10)
        // The connection still works.
        let response = try await connection.send(HTTP2ClientRequest(path: "/after"))
        XCTAssertEqual(response.status, 200)
    }

    func testOversizedRequestBodyIsAnsweredByTheRejectionHandler() async throws {
        let server = try TestServer({ configuration in
            configuration.session.maxBodySize = 1_000
            configuration.rejectionHandler = { _, _, responder in
                responder.respond(status: 200, headers: [("content-type", "application/grpc")],
                                  trailers: [("grpc-status", "8"), ("grpc-message", "request too large")])
            }
        }, handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        let rejected = try await connection.send(HTTP2ClientRequest(method: "POST", path: "/", body: [UInt8](repeating: 1, count: 200_000)))
        XCTAssertEqual(rejected.trailer("grpc-status"), "8")
        let fine = try await connection.send(HTTP2ClientRequest(method: "POST", path: "/", body: bytes("ok")))
        XCTAssertEqual(text(fine.body), "ko")
    }

    func testSlowClientIsBoundedAndDoesNotAffectOthers() async throws {
        let outputLimit = 64 << 10
        let server = try TestServer({ $0.outputLimit = outputLimit }, handler: echoHandler)
        defer { server.stop() }

        // A client that asks for 40 MiB with huge flow-control windows and then never reads.
        var greedy = HTTP2SessionConfiguration()
        greedy.initialWindowSize = (1 << 31) - 1
        let slow = try HTTP2ClientSession(configuration: greedy)
        for i in 0..<40 { _ = try slow.sendRequest(path: "/slow/\(i)", headers: [("x-size", "\(1 << 20)")]) }
        var bytesOut: [UInt8] = []
        try slow.send(into: &bytesOut)
        let socket = try RawSocket(port: server.port)
        try socket.write(bytesOut)

        await eventually("the slow connection to pause reading") {
            server.server.statistics().connectionsWithReadingPaused == 1
        }
        // Others are served meanwhile.
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        for i in 0..<20 {
            let response = try await connection.send(HTTP2ClientRequest(path: "/fast", headers: [("x-size", "\(i * 1000)")]))
            XCTAssertEqual(response.body.count, i * 1000)
        }
        let statistics = server.server.statistics()
        XCTAssertEqual(statistics.openConnections, 2)
        // The server's own buffer for the slow connection stays at the cap plus one frame,
        // although 40 MiB were asked for.
        XCTAssertLessThanOrEqual(statistics.peakPendingOutputBytes, outputLimit + 16_384 + 1_024)
        XCTAssertLessThanOrEqual(statistics.pendingOutputBytes, outputLimit + 16_384 + 1_024)
    }

    func testIdleConnectionIsClosedWithGoAway() async throws {
        let server = try TestServer({ $0.idleTimeout = .milliseconds(200) }, handler: echoHandler)
        defer { server.stop() }
        let session = try HTTP2ClientSession()
        var preface: [UInt8] = []
        try session.send(into: &preface)
        let socket = try RawSocket(port: server.port)
        try socket.write(preface)
        let received = try socket.readToEnd()  // returns at EOF, i.e. when the server closed
        try session.receive(received)
        var sawGoAway = false
        session.drainEvents { if case .goAway(_, .noError) = $0 { sawGoAway = true } }
        XCTAssertTrue(sawGoAway)
        await eventually("the server to forget the connection") { server.server.statistics().openConnections == 0 }
    }

    func testGracefulShutdownCompletesInFlightRequests() async throws {
        let server = try TestServer(handler: echoHandler)
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        let responses = Task {
            try await withThrowingTaskGroup(of: HTTP2Response.self) { group in
                for i in 0..<5 {
                    group.addTask {
                        try await connection.send(HTTP2ClientRequest(path: "/\(i)", headers: [("x-delay-ms", "300")]))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        await eventually("5 requests in flight") { server.server.statistics().activeRequests == 5 }
        let stopped = Task.detached { server.stop(grace: .seconds(10)) }
        let results = try await responses.value
        XCTAssertEqual(results.map(\.status), [200, 200, 200, 200, 200])
        await stopped.value
        // After shutdown the port is closed.
        XCTAssertThrowsError(try RawSocket(port: server.port))
    }

    func testShutdownPastTheGracePeriodCancelsRequests() async throws {
        let cancelled = expectation(description: "cancelled")
        let received = expectation(description: "received")
        let server = try TestServer { _, responder in
            responder.onCancel { cancelled.fulfill() }
            received.fulfill()
        }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        let pending = Task { try await connection.send(HTTP2ClientRequest(path: "/never")) }
        await fulfillment(of: [received], timeout: 10)
        await Task.detached { server.stop(grace: .milliseconds(100)) }.value
        await fulfillment(of: [cancelled], timeout: 10)
        let error = await clientError { try await pending.value }
        XCTAssertEqual(error?.code, .connectionClosed)
    }

    func testGarbageInsteadOfThePrefaceClosesOnlyThatConnection() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        do {
            let socket = try RawSocket(port: server.port)
            // The start of a TLS ClientHello (https:// to this cleartext port). Not the HTTP/2
            // preface, so it goes to the HTTP/1.1 fallback (an HTTP/1.1 request would now be
            // served: see HTTP1ServerTests), whose parser refuses it.
            try socket.write([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03] + [UInt8](repeating: 0, count: 32))
            let answer = try socket.readToEnd()  // the server answers 400 and closes the connection
            XCTAssertTrue(text(answer).hasPrefix("HTTP/1.1 400 Bad Request\r\n"), text(answer))
        }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        let response = try await connection.send(HTTP2ClientRequest(path: "/still-serving"))
        XCTAssertEqual(response.header("x-path"), "/still-serving")
        await eventually("the garbage connection to be gone") { server.server.statistics().openConnections == 1 }
    }

    func testConnectionsBeyondTheLimitAreRefused() async throws {
        let server = try TestServer({ $0.maxConnections = 2 }, handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let first = try await client.connect(host: "127.0.0.1", port: server.port)
        let second = try await client.connect(host: "127.0.0.1", port: server.port)
        _ = try await first.send(HTTP2ClientRequest(path: "/1"))
        _ = try await second.send(HTTP2ClientRequest(path: "/2"))
        let refused = RawSocketRefusalProbe(port: server.port)
        XCTAssertTrue(try refused.closedWithoutAnswer())
        _ = try await first.send(HTTP2ClientRequest(path: "/1-again"))
        XCTAssertEqual(server.server.statistics().openConnections, 2)
    }

    func testConnectFailureIsReported() async throws {
        let client = try HTTP2Client()
        defer { client.shutdown() }
        // A port nobody listens on: bind one and close it.
        let probe = try TestServer(handler: echoHandler)
        let port = probe.port
        probe.stop()
        let error = await clientError { try await client.connect(host: "127.0.0.1", port: port) }
        XCTAssertEqual(error?.code, .connectFailed)
    }
}

/// Connects a raw socket and checks that the server closes it without an HTTP/2 answer.
struct RawSocketRefusalProbe {
    let port: Int

    func closedWithoutAnswer() throws -> Bool {
        let socket = try RawSocket(port: port)
        var preface: [UInt8] = []
        try HTTP2ClientSession().send(into: &preface)
        try? socket.write(preface)
        return try socket.readToEnd().isEmpty
    }
}
