import Foundation
import HTTP2
import Synchronization
import XCTest

/// The server's HTTP/1.1 fallback over loopback, driven with raw request bytes: the same handler
/// and responder as HTTP/2, keep-alive, pipelining, limits, cancellation, shutdown, and HTTP/2 on
/// the same port.
final class HTTP1ServerTests: ResourceCheckingTestCase {
    func testGetIsAnsweredWithContentLength() async throws {
        let log = RequestLog()
        let server = try TestServer { request, responder in
            log.append(request)
            echoHandler(request, responder)
        }
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("GET /a/b?x=1 HTTP/1.1\r\nHost: example.test:7700\r\nX-Size: 5\r\nAccept: */*\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "xxxxx")
        XCTAssertEqual(response.header("content-length"), "5")
        XCTAssertNil(response.header("transfer-encoding"))
        XCTAssertNil(response.header("connection"), "HTTP/1.1 keeps the connection without saying so")
        XCTAssertEqual(response.header("x-path"), "/a/b?x=1")
        XCTAssertEqual(response.header("x-method"), "GET")
        XCTAssertNil(response.header("x-trailer"), "trailers of a whole response are dropped, not turned into headers")

        let request = try XCTUnwrap(log.all.first)
        XCTAssertEqual(request.streamID, 1)
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.path, "/a/b?x=1")
        XCTAssertEqual(request.authority, "example.test:7700")
        XCTAssertEqual(request.scheme, "http")
        XCTAssertEqual(request.header("x-size"), "5", "names are lowercased, as on HTTP/2")
        XCTAssertNil(request.header("host"), "Host became the authority")
        XCTAssertEqual(request.headers.map(\.name), ["x-size", "accept"])
    }

    func testKeepAliveServesSeveralRequestsOnOneConnection() async throws {
        let log = RequestLog()
        let server = try TestServer { request, responder in
            log.append(request)
            echoHandler(request, responder)
        }
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        for i in 0..<3 {
            try client.send("POST /n/\(i) HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nab\(i)")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "\(i)ba")
            XCTAssertEqual(response.header("x-path"), "/n/\(i)")
        }
        XCTAssertEqual(log.all.map(\.streamID), [1, 3, 5], "a fresh odd stream id per request")
        XCTAssertEqual(server.server.statistics().openConnections, 1)
    }

    func testPipelinedRequestsAreAnsweredInOrder() async throws {
        let inFlight = Atomic<Int>(0), peak = Atomic<Int>(0)
        let server = try TestServer { request, responder in
            _ = peak.max(inFlight.wrappingAdd(1, ordering: .relaxed).newValue, ordering: .relaxed)
            // The first answers last if they all ran at once.
            let delay = request.path == "/1" ? 300 : 0
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) {
                inFlight.subtract(1, ordering: .relaxed)
                responder.respond(status: 200, headers: [("x-path", request.path)], body: request.body)
            }
        }
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody"
                        + "GET /3 HTTP/1.1\r\nHost: x\r\n\r\n")
        var paths: [String] = []
        for _ in 0..<3 { paths.append(try client.readResponse().header("x-path") ?? "?") }
        XCTAssertEqual(paths, ["/1", "/2", "/3"])
        XCTAssertEqual(peak.load(ordering: .relaxed), 1, "one request in flight at a time")
    }

    func testChunkedJSONPostWithTrailers() async throws {
        let log = RequestLog()
        let server = try TestServer { request, responder in
            log.append(request)
            echoHandler(request, responder)
        }
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("POST /typeahead.v1.Typeahead/Suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n")
        try client.send("7\r\n{\"a\":1,\r\n")
        try client.send("6\r\n\"b\":2}\r\n0\r\nX-Checksum: 42\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, String("{\"a\":1,\"b\":2}".reversed()))
        let request = try XCTUnwrap(log.all.first)
        XCTAssertEqual(text(request.body), "{\"a\":1,\"b\":2}")
        XCTAssertEqual(request.header("content-type"), "application/json")
        XCTAssertNil(request.header("transfer-encoding"), "framing fields describe the connection, not the request")
        XCTAssertEqual(request.trailers.map(\.name), ["x-checksum"])
        XCTAssertEqual(request.trailers.first?.value, "42")
    }

    func testConnectionCloseIsHonoured() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        do {
            let client = try HTTP1TestClient(port: server.port)
            try client.send("GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /ignored HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.header("connection"), "close")
            XCTAssertEqual(try client.readToEnd(), [], "the server closes after that response, ignoring what follows")
        }
        await eventually("the server to forget the connection") { server.server.statistics().openConnections == 0 }
    }

    func testHTTP10ClosesUnlessAskedToKeepAlive() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        // 18 bytes, shorter than the HTTP/2 preface: recognised all the same.
        let plain = try HTTP1TestClient(port: server.port)
        try plain.send("GET / HTTP/1.0\r\n\r\n")
        let first = try plain.readResponse()
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.header("connection"), "close")
        XCTAssertEqual(try plain.readToEnd(), [])

        let keepAlive = try HTTP1TestClient(port: server.port)
        for _ in 0..<2 {
            try keepAlive.send("GET /k HTTP/1.0\r\nConnection: keep-alive\r\nX-Size: 2\r\n\r\n")
            let response = try keepAlive.readResponse()
            XCTAssertEqual(response.text, "xx")
            XCTAssertEqual(response.header("connection"), "keep-alive")
        }
    }

    func testOversizedHeadersAre431() async throws {
        let server = try TestServer({ $0.session.maxHeaderListSize = 1_024 }, handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "v", count: 2_000))\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 431)
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertEqual(try client.readToEnd(), [])
        // A request within the limit, on a new connection, is fine.
        let next = try HTTP1TestClient(port: server.port)
        try next.send("GET / HTTP/1.1\r\nHost: x\r\nX-Small: \(String(repeating: "v", count: 500))\r\n\r\n")
        XCTAssertEqual(try next.readResponse().status, 200)
    }

    func testOversizedBodyIs413() async throws {
        let handled = Atomic<Int>(0)
        let server = try TestServer({ $0.session.maxBodySize = 1_000 }) { request, responder in
            handled.add(1, ordering: .relaxed)
            echoHandler(request, responder)
        }
        defer { server.stop() }
        // Announced by content-length: refused before the body, while the client still sends it.
        let announced = try HTTP1TestClient(port: server.port)
        try announced.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n")
        try announced.send([UInt8](repeating: 1, count: 200_000))
        let refused = try announced.readResponse()
        XCTAssertEqual(refused.status, 413)
        XCTAssertEqual(refused.header("connection"), "close")
        XCTAssertTrue(refused.text.contains("1000"), refused.text)
        XCTAssertEqual(try announced.readToEnd(), [])
        // Chunked: refused once the chunks pass the limit.
        let chunked = try HTTP1TestClient(port: server.port)
        try chunked.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<3 { try chunked.send("200\r\n" + String(repeating: "z", count: 512) + "\r\n") }
        XCTAssertEqual(try chunked.readResponse().status, 413)
        XCTAssertEqual(handled.load(ordering: .relaxed), 0, "the handler never saw them")
    }

    func testMalformedRequestIs400() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertEqual(response.header("content-type"), "text/plain")
        XCTAssertEqual(try client.readToEnd(), [])
    }

    /// RFC 9112: a server must refuse these with 400 (each is read differently by some proxy, the
    /// stuff of request smuggling); HTTP/1.0 needs no Host, and a higher 1.x minor is read as 1.1.
    func testHeadsRFC9112RefusesAre400() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let refused: [(String, String)] = [
            ("GET / HTTP/1.1\r\n\r\n", "without a Host header"),
            ("GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", "2 Host headers"),
            ("GET / HTTP/1.1\r\nHost : x\r\n\r\n", "whitespace between a header field name and its colon"),
            ("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", "obs-fold"),
            ("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tb\r\n\r\n", "obs-fold"),
            ("GET / HTTP/1.9\r\n\r\n", "without a Host header"),
        ]
        for (head, reason) in refused {
            let client = try HTTP1TestClient(port: server.port)
            try client.send(head)
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 400, head)
            XCTAssertTrue(text(response.body).contains(reason), "\(head): \(text(response.body))")
        }
        // A fold split by the network is still a fold; a value split anywhere else is not.
        let folded = try HTTP1TestClient(port: server.port)
        try folded.send("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n")
        try await Task.sleep(for: .milliseconds(30))
        try folded.send(" b\r\n\r\n")
        XCTAssertEqual(try folded.readResponse().status, 400)
        for head in ["GET / HTTP/1.0\r\n\r\n", "GET / HTTP/1.9\r\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nX-A: aaa bbb\r\n\r\n"] {
            let client = try HTTP1TestClient(port: server.port)
            let middle = head.index(head.startIndex, offsetBy: head.count - 8)
            try client.send(String(head[..<middle]))
            try await Task.sleep(for: .milliseconds(30))
            try client.send(String(head[middle...]))
            XCTAssertEqual(try client.readResponse().status, 200, head)
        }
    }

    func testGRPCOverHTTP1IsRefusedWith505() async throws {
        let handled = Atomic<Int>(0)
        let server = try TestServer { request, responder in
            handled.add(1, ordering: .relaxed)
            echoHandler(request, responder)
        }
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("POST /typeahead.v1.Typeahead/Suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/grpc+proto\r\n"
                        + "Content-Length: 5\r\n\r\n\0\0\0\0\0")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 505)
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertTrue(response.text.contains("HTTP/2"), response.text)
        XCTAssertEqual(try client.readToEnd(), [])
        XCTAssertEqual(handled.load(ordering: .relaxed), 0)
    }

    func testSlowHandlerAnswersLaterFromAnotherThread() async throws {
        let server = try TestServer(handler: echoHandler)  // x-delay-ms: answers from a dispatch queue
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\nX-Delay-Ms: 200\r\nX-Size: 3\r\n\r\n")
        let slow = try client.readResponse()
        XCTAssertEqual(slow.status, 200)
        XCTAssertEqual(slow.text, "xxx")
        try client.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try client.readResponse().header("x-path"), "/after")
    }

    func testStreamedResponseIsChunkedWithTrailers() async throws {
        let server = try TestServer { request, responder in
            responder.sendHeaders(status: 200, headers: [("content-type", "text/plain"), ("content-length", "999")])
            DispatchQueue.global().async {
                responder.sendBody(bytes("hello, "))
                responder.sendBody(bytes("world"))
                responder.finish(trailers: [("x-checksum", "7")])
            }
        }
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.header("transfer-encoding"), "chunked")
        XCTAssertNil(response.header("content-length"), "the handler's framing fields are not sent")
        XCTAssertEqual(response.text, "hello, world")
        XCTAssertEqual(response.trailer("x-checksum"), "7")
        // The same over HTTP/1.0, which has no chunks: the body ends with the connection.
        let old = try HTTP1TestClient(port: server.port)
        try old.send("GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let unframed = try old.readResponse()
        XCTAssertEqual(unframed.header("connection"), "close")
        XCTAssertNil(unframed.header("transfer-encoding"))
        XCTAssertEqual(unframed.text, "hello, world")
    }

    func testHeadRequestGetsTheLengthButNoBody() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("HEAD /h HTTP/1.1\r\nHost: x\r\nX-Size: 5\r\n\r\n")
        let head = try client.readResponse(bodyless: true)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("content-length"), "5")
        // Had the body been sent, it would now be read as the next response's status line.
        try client.send("GET /g HTTP/1.1\r\nHost: x\r\nX-Size: 2\r\n\r\n")
        XCTAssertEqual(try client.readResponse().text, "xx")
    }

    func testExpectContinueGetsAnInterimAnswer() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 100)
        try client.send("hello")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "olleh")
    }

    func testUpgradeToH2cIsIgnored() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        // What `curl --http2` sends to an http:// URL.
        try client.send("GET /up HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                        + "HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200, "served as HTTP/1.1, not 101 Switching Protocols")
        XCTAssertEqual(response.header("x-path"), "/up")
        try client.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try client.readResponse().header("x-path"), "/next", "and the connection goes on in HTTP/1.1")
    }

    func testClientClosingMidRequestCancelsIt() async throws {
        let received = expectation(description: "handler got the request")
        let cancelled = expectation(description: "handler saw the cancellation")
        let responders = Mutex<[HTTP2Responder]>([])
        let server = try TestServer { _, responder in
            responder.onCancel { cancelled.fulfill() }
            responders.withLock { $0.append(responder) }
            received.fulfill()
            // Never answers.
        }
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
        await fulfillment(of: [received], timeout: 10)
        XCTAssertEqual(server.server.statistics().activeRequests, 1)
        client.hangUp()
        await fulfillment(of: [cancelled], timeout: 10)
        XCTAssertEqual(responders.withLock { $0.map(\.isCancelled) }, [true])
        await eventually("the server to forget the connection") { server.server.statistics().openConnections == 0 }
    }

    func testShutdownLetsTheRequestInFlightComplete() async throws {
        let server = try TestServer(handler: echoHandler)
        let client = try HTTP1TestClient(port: server.port)
        let idle = try HTTP1TestClient(port: server.port)
        try idle.send("GET /before HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try idle.readResponse().status, 200)
        try client.send("GET /in-flight HTTP/1.1\r\nHost: x\r\nX-Delay-Ms: 300\r\nX-Size: 4\r\n\r\n")
        await eventually("the request to be in flight") { server.server.statistics().activeRequests == 1 }
        let stopped = Task.detached { server.stop(grace: .seconds(10)) }
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "xxxx")
        XCTAssertEqual(response.header("connection"), "close", "the last response on this connection")
        XCTAssertEqual(try client.readToEnd(), [])
        XCTAssertEqual(try idle.readToEnd(), [], "an idle keep-alive connection is closed at once")
        await stopped.value
        XCTAssertThrowsError(try RawSocket(port: server.port))
    }

    func testIdleConnectionIsClosed() async throws {
        let server = try TestServer({ $0.idleTimeout = .milliseconds(200) }, handler: echoHandler)
        defer { server.stop() }
        let client = try HTTP1TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
        XCTAssertEqual(try client.readToEnd(), [], "closed once idle")
        await eventually("the server to forget the connection") { server.server.statistics().openConnections == 0 }
    }

    func testHTTP1AndHTTP2ShareThePort() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let http1 = try HTTP1TestClient(port: server.port)
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        for i in 0..<3 {
            let response = try await connection.send(HTTP2ClientRequest(method: "POST", path: "/h2/\(i)", body: bytes("abc")))
            XCTAssertEqual(text(response.body), "cba")
            XCTAssertEqual(response.trailer("x-trailer"), "done", "HTTP/2 still gets trailers")
            try http1.send("GET /h1/\(i) HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(try http1.readResponse().header("x-path"), "/h1/\(i)")
        }
        XCTAssertEqual(server.server.statistics().openConnections, 2)
    }

    func testHTTP1ConnectionsCountTowardTheLimit() async throws {
        let server = try TestServer({ $0.maxConnections = 1 }, handler: echoHandler)
        defer { server.stop() }
        let first = try HTTP1TestClient(port: server.port)
        try first.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try first.readResponse().status, 200)
        let refused = try HTTP1TestClient(port: server.port)
        try? refused.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try refused.readToEnd(), [], "closed without an answer")
        let statistics = server.server.statistics()
        XCTAssertEqual(statistics.openConnections, 1)
        XCTAssertEqual(statistics.activeRequests, 0)
    }

    func testPrefaceInPiecesIsStillHTTP2() async throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let session = try HTTP2ClientSession()
        let id = try session.sendRequest(path: "/pieces")
        var out: [UInt8] = []
        try session.send(into: &out)
        let socket = try RawSocket(port: server.port)
        // 5 bytes, then up to the middle of the preface, then the rest: the server must wait for 24.
        try socket.write(Array(out[0..<5]))
        try await Task.sleep(for: .milliseconds(50))
        try socket.write(Array(out[5..<15]))
        try await Task.sleep(for: .milliseconds(50))
        try socket.write(Array(out[15...]))
        var response: HTTP2Response?
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while response == nil {
            let n = buffer.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return XCTFail("connection closed before the response") }
            try session.receive(Array(buffer[0..<n]))
            session.drainEvents { if case .response(let r) = $0, r.streamID == id { response = r } }
            var more: [UInt8] = []
            try session.send(into: &more)
            if !more.isEmpty { try socket.write(more) }
        }
        XCTAssertEqual(response?.header("x-path"), "/pieces")
    }

    func testAClientThatDoesNotReadIsBounded() async throws {
        let outputLimit = 64 << 10
        let server = try TestServer({ $0.outputLimit = outputLimit }, handler: echoHandler)
        defer { server.stop() }
        // Four pipelined requests for 8 MiB each, never read.
        let greedy = try HTTP1TestClient(port: server.port)
        try greedy.send(String(repeating: "GET /big HTTP/1.1\r\nHost: x\r\nX-Size: \(8 << 20)\r\n\r\n", count: 4))
        await eventually("the greedy connection to pause reading") {
            server.server.statistics().connectionsWithReadingPaused == 1
        }
        // Others are served meanwhile.
        let other = try HTTP1TestClient(port: server.port)
        for i in 0..<5 {
            try other.send("GET /fast HTTP/1.1\r\nHost: x\r\nX-Size: \(i * 1000)\r\n\r\n")
            XCTAssertEqual(try other.readResponse().body.count, i * 1000)
        }
        let statistics = server.server.statistics()
        XCTAssertEqual(statistics.openConnections, 2)
        XCTAssertEqual(statistics.activeRequests, 0, "the greedy one's first response is written; the next waits for it to drain")
        XCTAssertLessThanOrEqual(statistics.peakPendingOutputBytes, outputLimit)
    }
}
