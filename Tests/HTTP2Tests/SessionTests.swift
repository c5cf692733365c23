import HTTP2
import XCTest

final class SessionTests: XCTestCase {
    func testRequestResponseWithTrailers() throws {
        let pair = try SessionPair()
        pair.onRequest = { server, request in
            try server.respond(streamID: request.streamID, status: 200,
                               headers: [("content-type", "application/grpc"), ("X-Mixed-Case", "v")],
                               body: request.body.reversed(), trailers: [("grpc-status", "0"), ("grpc-message", "ok")])
        }
        let id = try pair.client.sendRequest(method: "POST", authority: "localhost:1", path: "/svc/Method?q=1",
                                             headers: [("te", "trailers"), ("x-one", "1"), ("x-one", "2")],
                                             body: bytes("hello"))
        try pair.pump()

        let request = try XCTUnwrap(pair.requests.first)
        XCTAssertEqual(request.streamID, id)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/svc/Method?q=1")
        XCTAssertEqual(request.authority, "localhost:1")
        XCTAssertEqual(request.scheme, "http")
        XCTAssertEqual(request.headers.map { "\($0.name)=\($0.value)" }, ["te=trailers", "x-one=1", "x-one=2"])
        XCTAssertEqual(text(request.body), "hello")

        let response = try XCTUnwrap(pair.responses.first)
        XCTAssertEqual(response.streamID, id)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("content-type"), "application/grpc")
        XCTAssertEqual(response.header("x-mixed-case"), "v", "names are lowercased on the wire")
        XCTAssertEqual(text(response.body), "olleh")
        XCTAssertEqual(response.trailer("grpc-status"), "0")
        XCTAssertEqual(response.trailer("grpc-message"), "ok")
        XCTAssertEqual(pair.clientClose(of: id), .noError)
        XCTAssertEqual(pair.serverClose(of: id), .noError)
        XCTAssertEqual(pair.server.openStreamCount, 0)
        XCTAssertEqual(pair.client.openStreamCount, 0)
    }

    func testResponseInPartsAndHeadersOnly() throws {
        let pair = try SessionPair()
        var pending: [Int32] = []
        pair.onRequest = { server, request in
            if request.path == "/empty" {
                try server.sendHeaders(streamID: request.streamID, status: 204, endStream: true)
            } else {
                pending.append(request.streamID)
                try server.sendHeaders(streamID: request.streamID, status: 200)
            }
        }
        let empty = try pair.client.sendRequest(path: "/empty")
        let parts = try pair.client.sendRequest(path: "/parts")
        try pair.pump()
        XCTAssertEqual(pair.responses.first?.status, 204)
        XCTAssertEqual(pair.responses.first?.streamID, empty)
        XCTAssertEqual(pending, [parts])
        XCTAssertEqual(pair.responses.count, 1, "the second response is still open")

        try pair.server.sendBody(streamID: parts, bytes("a"))
        try pair.pump()
        try pair.server.sendBody(streamID: parts, bytes("bc"))
        try pair.server.sendBody(streamID: parts, bytes("d"), endStream: true)
        try pair.pump()
        XCTAssertEqual(pair.responses.count, 2)
        XCTAssertEqual(text(pair.responses[1].body), "abcd")
        XCTAssertEqual(pair.responses[1].trailers.count, 0)
        XCTAssertThrowsError(try pair.server.sendBody(streamID: parts, bytes("late")))
    }

    func testManyConcurrentStreamsBeyondTheLimitAreQueued() throws {
        var serverConfiguration = HTTP2SessionConfiguration()
        serverConfiguration.maxConcurrentStreams = 100
        let pair = try SessionPair(server: serverConfiguration)
        pair.onRequest = { server, request in
            try server.respond(streamID: request.streamID, status: 200, body: bytes(request.path))
        }
        var ids: [Int32: String] = [:]
        for i in 0..<250 { ids[try pair.client.sendRequest(path: "/item/\(i)")] = "/item/\(i)" }
        try pair.pump()
        XCTAssertEqual(pair.responses.count, 250)
        for response in pair.responses { XCTAssertEqual(text(response.body), ids[response.streamID]) }
        XCTAssertEqual(pair.server.openStreamCount, 0)
    }

    func testLargeBodiesRespectFlowControl() throws {
        var small = HTTP2SessionConfiguration()
        small.initialWindowSize = 65_535
        small.maxBodySize = 8 << 20
        let pair = try SessionPair(server: small, client: small)
        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        pair.onRequest = { server, request in
            try server.respond(streamID: request.streamID, status: 200, body: request.body)
        }
        _ = try pair.client.sendRequest(method: "POST", path: "/echo", body: big)
        _ = try pair.client.sendRequest(method: "POST", path: "/echo", body: Array(big.prefix(100_000)))
        try pair.pump()
        XCTAssertEqual(pair.responses.count, 2)
        XCTAssertTrue(pair.responses.first { $0.body.count == big.count }?.body == big)
    }

    func testClientResetCancelsTheServerStream() throws {
        let pair = try SessionPair()
        let id = try pair.client.sendRequest(path: "/slow")
        try pair.pump()
        XCTAssertEqual(pair.requests.count, 1, "the server holds the request without answering")
        try pair.client.resetStream(streamID: id, errorCode: .cancel)
        try pair.pump()
        XCTAssertEqual(pair.serverClose(of: id), .cancel)
        XCTAssertEqual(pair.clientClose(of: id), .cancel)
        XCTAssertEqual(pair.server.openStreamCount, 0)
        XCTAssertThrowsError(try pair.server.respond(streamID: id, status: 200)) { error in
            XCTAssertTrue((error as? HTTP2SessionError)?.isStreamClosed ?? false, "\(error)")
        }
        // The connection is unaffected.
        pair.onRequest = { server, request in try server.respond(streamID: request.streamID, status: 200) }
        _ = try pair.client.sendRequest(path: "/next")
        try pair.pump()
        XCTAssertEqual(pair.responses.map(\.status), [200])
    }

    /// A coordinator resets every superseded keystroke's stream: thousands of resets on one
    /// connection must not look like a rapid-reset attack (nghttp2's default bucket, 1,000 and
    /// 33/s, tore coordinator connections down under fast typing). A small configured bucket
    /// still ends the connection, so the limit is the one configured.
    func testManyStreamResetsKeepTheConnection() throws {
        func resetStreams(_ count: Int, limit: HTTP2SessionConfiguration.StreamResetLimit?) throws -> SessionPair {
            var configuration = HTTP2SessionConfiguration()
            if let limit { configuration.streamResetLimit = limit }
            let pair = try SessionPair(server: configuration)
            for _ in 0..<count {
                let id = try pair.client.sendRequest(path: "/keystroke")
                try pair.pump()
                try pair.client.resetStream(streamID: id, errorCode: .cancel)
                try pair.pump()
            }
            pair.onRequest = { server, request in try server.respond(streamID: request.streamID, status: 200) }
            _ = try pair.client.sendRequest(path: "/after")
            try pair.pump()
            return pair
        }
        let busy = try resetStreams(3_000, limit: nil)
        XCTAssertEqual(busy.responses.map(\.status), [200], "the connection survived 3,000 resets")
        XCTAssertFalse(busy.clientEvents.contains { if case .goAway = $0 { true } else { false } })

        let strict = try resetStreams(50, limit: .init(burst: 20, perSecond: 1))
        XCTAssertTrue(strict.clientEvents.contains { if case .goAway(_, .enhanceYourCalm) = $0 { true } else { false } },
                      "a flood past the bucket gets GOAWAY ENHANCE_YOUR_CALM: \(strict.clientEvents)")
        XCTAssertEqual(strict.responses.count, 0)
    }

    func testServerResetReachesTheClient() throws {
        let pair = try SessionPair()
        pair.onRequest = { server, request in try server.resetStream(streamID: request.streamID, errorCode: .refusedStream) }
        let id = try pair.client.sendRequest(path: "/x")
        try pair.pump()
        XCTAssertEqual(pair.clientClose(of: id), .refusedStream)
        XCTAssertTrue(pair.responses.isEmpty)
    }

    func testBodyOverTheLimitIsRejectedAndCanBeAnswered() throws {
        var configuration = HTTP2SessionConfiguration()
        configuration.maxBodySize = 1_000
        let pair = try SessionPair(server: configuration)
        pair.onRejected = { server, id, reason in
            XCTAssertEqual(reason, .bodyTooLarge(limit: 1_000))
            try server.respond(streamID: id, status: 200, trailers: [("grpc-status", "8")])
        }
        pair.onRequest = { server, request in try server.respond(streamID: request.streamID, status: 200, body: request.body) }
        let big = try pair.client.sendRequest(method: "POST", path: "/big", body: [UInt8](repeating: 7, count: 5_000))
        let fits = try pair.client.sendRequest(method: "POST", path: "/fits", body: [UInt8](repeating: 1, count: 1_000))
        try pair.pump()
        XCTAssertEqual(pair.requests.map(\.path), ["/fits"], "the oversized request is never delivered")
        XCTAssertEqual(pair.responses.first { $0.streamID == big }?.trailer("grpc-status"), "8")
        XCTAssertEqual(pair.responses.first { $0.streamID == fits }?.body.count, 1_000)
        XCTAssertEqual(pair.server.openStreamCount, 0)
    }

    func testBodyOverTheLimitWhileTheClientIsStillSendingGetsReset() throws {
        // A small window makes the client send in rounds, so the rejection answer goes out while
        // the request is still open: the server follows it with RST_STREAM(NO_ERROR).
        var server = HTTP2SessionConfiguration()
        server.maxBodySize = 1_000
        server.initialWindowSize = 65_535
        let pair = try SessionPair(server: server)
        pair.onRejected = { server, id, _ in try server.respond(streamID: id, status: 413) }
        let id = try pair.client.sendRequest(method: "POST", path: "/huge", body: [UInt8](repeating: 0, count: 1 << 20))
        try pair.pump()
        XCTAssertEqual(pair.responses.first?.status, 413)
        XCTAssertEqual(pair.clientClose(of: id), .noError)
        XCTAssertEqual(pair.server.openStreamCount, 0)
        XCTAssertEqual(pair.client.openStreamCount, 0)
    }

    func testHeaderListOverTheLimitIsRejected() throws {
        var configuration = HTTP2SessionConfiguration()
        configuration.maxHeaderListSize = 1_024
        let pair = try SessionPair(server: configuration)
        var rejections: [HTTP2StreamRejection] = []
        pair.onRejected = { server, id, reason in
            rejections.append(reason)
            try server.respond(streamID: id, status: 431)
        }
        pair.onRequest = { server, request in try server.respond(streamID: request.streamID, status: 200) }
        let big = try pair.client.sendRequest(path: "/h", headers: [("x-big", String(repeating: "v", count: 2_000))])
        let many = try pair.client.sendRequest(path: "/h", headers: (0..<40).map { ("x-\($0)", "0123456789") })
        let fine = try pair.client.sendRequest(path: "/h", headers: [("x-small", "v")])
        try pair.pump()
        XCTAssertEqual(rejections, [.headerListTooLarge(limit: 1_024), .headerListTooLarge(limit: 1_024)])
        XCTAssertEqual(pair.responses.first { $0.streamID == big }?.status, 431)
        XCTAssertEqual(pair.responses.first { $0.streamID == many }?.status, 431)
        XCTAssertEqual(pair.responses.first { $0.streamID == fine }?.status, 200)
        XCTAssertEqual(pair.requests.count, 1)
    }

    func testResponseOverTheClientLimitIsRejectedAndReset() throws {
        var client = HTTP2SessionConfiguration()
        client.maxBodySize = 100
        let pair = try SessionPair(client: client)
        pair.onRequest = { server, request in
            try server.respond(streamID: request.streamID, status: 200, body: [UInt8](repeating: 1, count: 1_000))
        }
        let id = try pair.client.sendRequest(path: "/big")
        try pair.pump()
        XCTAssertTrue(pair.responses.isEmpty)
        XCTAssertTrue(pair.clientEvents.contains {
            if case .responseRejected(id, .bodyTooLarge(limit: 100)) = $0 { return true } else { return false }
        })
        XCTAssertEqual(pair.client.openStreamCount, 0)
    }

    func testGoAwayLetsProcessedStreamsFinishAndRefusesNewOnes() throws {
        let pair = try SessionPair()
        let first = try pair.client.sendRequest(path: "/1")
        let second = try pair.client.sendRequest(path: "/2")
        try pair.pump()
        XCTAssertEqual(pair.requests.count, 2)
        try pair.server.goAway()
        try pair.pump()
        XCTAssertTrue(pair.clientEvents.contains {
            if case .goAway(second, .noError) = $0 { return true } else { return false }
        }, "\(pair.clientEvents)")
        // New requests after GOAWAY are not processed.
        if let third = try? pair.client.sendRequest(path: "/3") {
            try pair.pump()
            XCTAssertEqual(pair.clientClose(of: third), .refusedStream)
        }
        XCTAssertEqual(pair.requests.count, 2)
        // The two in-flight streams still complete.
        try pair.server.respond(streamID: first, status: 200, body: bytes("one"))
        try pair.server.respond(streamID: second, status: 200, body: bytes("two"))
        try pair.pump()
        XCTAssertEqual(Set(pair.responses.map { text($0.body) }), ["one", "two"])
        XCTAssertFalse(pair.server.wantsRead || pair.server.wantsWrite, "the server session is done")
    }

    func testGarbageInsteadOfThePrefaceIsFatal() throws {
        let server = try HTTP2ServerSession()
        XCTAssertThrowsError(try server.receive(bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))) { error in
            XCTAssertTrue((error as? HTTP2SessionError)?.isBadPreface ?? false, "\(error)")
        }
    }

    func testProtocolViolationsDoNotThrow() throws {
        // A valid preface followed by a HEADERS frame on an even (server-side) stream id: nghttp2
        // answers with GOAWAY(PROTOCOL_ERROR) instead of failing the call.
        let server = try HTTP2ServerSession()
        var input = bytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        input += [0, 0, 0, 4, 0, 0, 0, 0, 0]                   // empty SETTINGS
        input += [0, 0, 1, 1, 5, 0, 0, 0, 2, 0x82]            // HEADERS, stream 2, ":method GET"
        try server.receive(input)
        var output: [UInt8] = []
        try server.send(into: &output)
        XCTAssertTrue(output.count > 0)
        XCTAssertFalse(server.wantsRead)
    }
}
