@testable import HTTP2
import XCTest

/// The HTTP/1.1 request parser and response encoder without sockets: bytes in, events out, in any
/// split; framing and field rules of the encoder.
final class HTTP1CodecTests: XCTestCase {
    func parse(_ chunks: [String], maxHeaderListSize: Int = 16 << 10, maxBodySize: Int = 1 << 20) -> [HTTP1RequestParser.Event] {
        let parser = HTTP1RequestParser(maxHeaderListSize: maxHeaderListSize, maxBodySize: maxBodySize)
        var events: [HTTP1RequestParser.Event] = []
        for chunk in chunks {
            Array(chunk.utf8).withUnsafeBytes { parser.receive($0) }
            parser.drainEvents { events.append($0) }
        }
        return events
    }

    func requests(_ events: [HTTP1RequestParser.Event]) -> [(HTTP2Request, HTTP1RequestInfo)] {
        events.compactMap { if case .request(let request, let info) = $0 { (request, info) } else { nil } }
    }

    func refusal(_ events: [HTTP1RequestParser.Event]) -> HTTP1Refusal? {
        events.compactMap { if case .refused(let refusal) = $0 { refusal } else { nil } }.first
    }

    static let pipeline = "POST /a?b=c HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        + "GET /chunked HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n1\r\nd\r\n0\r\nX-T: 1\r\n\r\n"
        + "HEAD / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"

    func testAnySplitGivesTheSameRequests() {
        let whole = requests(parse([Self.pipeline]))
        let byteByByte = requests(parse(Self.pipeline.map { String($0) }))
        XCTAssertEqual(whole.count, 3)
        for (a, b) in zip(whole, byteByByte) {
            XCTAssertEqual(a.0.streamID, b.0.streamID)
            XCTAssertEqual(a.0.method, b.0.method)
            XCTAssertEqual(a.0.path, b.0.path)
            XCTAssertEqual(a.0.body, b.0.body)
            XCTAssertEqual(a.0.headers.map(\.name), b.0.headers.map(\.name))
            XCTAssertEqual(a.0.trailers.map(\.value), b.0.trailers.map(\.value))
            XCTAssertEqual(a.1, b.1)
        }
        XCTAssertEqual(whole.map(\.0.streamID), [1, 3, 5])
        XCTAssertEqual(whole.map(\.0.method), ["POST", "GET", "HEAD"])
        XCTAssertEqual(whole[0].0.path, "/a?b=c")
        XCTAssertEqual(whole[0].0.authority, "h")
        XCTAssertEqual(text(whole[0].0.body), "{}")
        XCTAssertEqual(text(whole[1].0.body), "abcd")
        XCTAssertEqual(whole[1].0.trailers.map(\.name), ["x-t"])
        XCTAssertEqual(whole.map(\.1.keepAlive), [true, true, false])
        XCTAssertEqual(whole.map(\.1.isHead), [false, false, true])
    }

    func testNothingIsParsedAfterTheLastRequest() {
        let events = parse(["GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\nGARBAGE\r\n\r\n"])
        XCTAssertEqual(requests(events).count, 1)
        XCTAssertNil(refusal(events), "what follows the last request is not even looked at")
    }

    func testHeaderBytesAreCountedAsInHTTP2() {
        // ":method" GET + ":path" / + "x-a: <v>", each + 32, as RFC 9113 §6.5.2 counts them.
        let fixed = (7 + 3 + 32) + (5 + 1 + 32) + (4 + 1 + 32) + (3 + 32)  // and Host: h
        let fits = "GET / HTTP/1.1\r\nHost: h\r\nx-a: \(String(repeating: "v", count: 100))\r\n\r\n"
        XCTAssertEqual(requests(parse([fits], maxHeaderListSize: fixed + 100)).count, 1)
        XCTAssertEqual(refusal(parse([fits], maxHeaderListSize: fixed + 99)), .headersTooLarge(limit: fixed + 99))
    }

    func testLimitsAndRefusals() {
        XCTAssertEqual(refusal(parse(["POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n"], maxBodySize: 10)), .bodyTooLarge(limit: 10))
        XCTAssertEqual(refusal(parse(["POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nabcdef\r\n"],
                                     maxBodySize: 10)), .bodyTooLarge(limit: 10))
        XCTAssertEqual(refusal(parse(["POST / HTTP/1.1\r\nHost: h\r\ncontent-type: Application/GRPC\r\n\r\n"])), .grpcNeedsHTTP2)
        XCTAssertEqual(refusal(parse(["GET / HTTP/2.0\r\n\r\n"])), .versionNotSupported(major: 2))
        XCTAssertEqual(refusal(parse(["\u{16}\u{03}\u{01}"]))?.status, 400)
        // Request smuggling: both framings, or a transfer coding that is not chunked.
        XCTAssertEqual(refusal(parse(["POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"]))?.status, 400)
        XCTAssertEqual(refusal(parse(["POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n"]))?.status, 400)
        XCTAssertEqual(refusal(parse(["POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"]))?.status, 400)
    }

    func testUpgradeAndConnectDoNotStopParsing() {
        let events = parse(["GET /u HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
                            + "CONNECT host:443 HTTP/1.1\r\nHost: host:443\r\n\r\n"
                            + "GET /after HTTP/1.1\r\nHost: h\r\n\r\n"])
        XCTAssertEqual(requests(events).map(\.0.path), ["/u", "host:443", "/after"])
        XCTAssertEqual(requests(events)[0].0.headers.map(\.name), [], "connection and upgrade are the connection's fields")
    }

    func testAbsoluteFormTarget() {
        let request = requests(parse(["GET http://node-3:7700/metrics?x=1 HTTP/1.1\r\nHost: other\r\n\r\n"])).first?.0
        XCTAssertEqual(request?.path, "/metrics?x=1")
        XCTAssertEqual(request?.authority, "node-3:7700", "the target's authority wins over Host (RFC 9112 §3.2.2)")
        XCTAssertEqual(HTTP1RequestParser.splitAbsoluteForm(Array("http://h".utf8))?.path, "/")
        XCTAssertEqual(HTTP1RequestParser.splitAbsoluteForm(Array("http://h?q".utf8))?.path, "/?q")
    }

    func testExpectContinueIsReportedOnlyWhileTheBodyIsAwaited() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nExpect: 100-Continue\r\n\r\n"
        let waiting = parse([head])
        XCTAssertEqual(waiting.count, 1)
        guard case .continueExpected = waiting[0] else { return XCTFail("\(waiting)") }
        let withBody = parse([head + "ok"])
        XCTAssertEqual(withBody.count, 1, "the body came along: too late for 100 Continue")
        XCTAssertEqual(requests(withBody).first?.0.header("expect"), nil)
    }

    func testEncoderFraming() {
        let head = HTTP1ResponseEncoder.encode(HTTP1ResponseHead(
            status: 404, headers: [("content-type", "text/plain"), ("Content-Length", "1"), ("connection", "x"),
                                   ("x-evil", "a\r\nset-cookie: b"), ("x-ok", "1")],
            length: .fixed(3), persistence: .close))
        XCTAssertEqual(text(head), "HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\nx-ok: 1\r\ncontent-length: 3\r\nconnection: close\r\n\r\n")
        XCTAssertEqual(text(HTTP1ResponseEncoder.encode(HTTP1ResponseHead(status: 299, headers: [], length: .chunked, persistence: .keepAlive))),
                       "HTTP/1.1 299 \r\ntransfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n")
        XCTAssertEqual(text(HTTP1ResponseEncoder.chunkStart(255)), "ff\r\n")
        XCTAssertEqual(text(HTTP1ResponseEncoder.lastChunk(trailers: [("grpc-status", "0"), ("content-length", "9")])),
                       "0\r\ngrpc-status: 0\r\n\r\n")
        XCTAssertEqual(text(HTTP1ResponseEncoder.refusal(.bodyTooLarge(limit: 5))),
                       "HTTP/1.1 413 Payload Too Large\r\ncontent-type: text/plain\r\ncontent-length: 33\r\nconnection: close\r\n\r\n"
                       + "request body larger than 5 bytes\n")
    }

    /// Applies `parts` to a fresh response and returns the bytes and the last outcome.
    func respond(_ info: HTTP1RequestInfo, _ parts: [ResponsePart], last: Bool = false) -> (String, HTTP1Response.Outcome?) {
        var response = HTTP1Response(for: info)
        var output = ByteQueue()
        var outcome: HTTP1Response.Outcome?
        for part in parts { outcome = response.apply(part, lastOnConnection: last, into: &output) }
        var bytes: [UInt8] = []
        output.move(into: &bytes, limit: .max)
        return (text(bytes), outcome)
    }

    static let get11 = HTTP1RequestInfo(keepAlive: true, isHead: false, isHTTP10: false)

    func testResponseFraming() {
        let whole = respond(Self.get11, [.whole(status: 200, headers: [("x", "1")], body: bytes("abc"), trailers: [("t", "1")])])
        XCTAssertEqual(whole.0, "HTTP/1.1 200 OK\r\nx: 1\r\ncontent-length: 3\r\n\r\nabc")
        XCTAssertEqual(whole.1, .complete)

        let streamed = respond(Self.get11, [.head(status: 200, headers: [], endStream: false), .body(bytes("hello"), endStream: false),
                                            .body([], endStream: false), .finish(trailers: [("grpc-status", "0")])])
        XCTAssertEqual(streamed.0, "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\ngrpc-status: 0\r\n\r\n")
        XCTAssertEqual(streamed.1, .complete)

        let head = respond(HTTP1RequestInfo(keepAlive: true, isHead: true, isHTTP10: false),
                           [.whole(status: 200, headers: [], body: bytes("abc"), trailers: [])])
        XCTAssertEqual(head.0, "HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n", "a HEAD gets the length, not the body")

        let noContent = respond(Self.get11, [.whole(status: 204, headers: [], body: bytes("ignored"), trailers: [])])
        XCTAssertEqual(noContent.0, "HTTP/1.1 204 No Content\r\n\r\n")

        let old = respond(HTTP1RequestInfo(keepAlive: true, isHead: false, isHTTP10: true),
                          [.head(status: 200, headers: [], endStream: false), .body(bytes("x"), endStream: true)])
        XCTAssertEqual(old.0, "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nx", "HTTP/1.0: no chunks, the close ends the body")

        let keptOld = respond(HTTP1RequestInfo(keepAlive: true, isHead: false, isHTTP10: true),
                              [.whole(status: 200, headers: [], body: [], trailers: [])])
        XCTAssertEqual(keptOld.0, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: keep-alive\r\n\r\n")

        let closing = respond(Self.get11, [.whole(status: 503, headers: [], body: [], trailers: [])], last: true)
        XCTAssertEqual(closing.0, "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
    }

    func testResponseCallsThatHTTP1CannotFrame() {
        XCTAssertEqual(respond(Self.get11, [.body(bytes("x"), endStream: true)]).1, .invalid("body before the head"))
        XCTAssertEqual(respond(Self.get11, [.finish(trailers: [])]).1, .invalid("finish before the head"))
        XCTAssertEqual(respond(Self.get11, [.head(status: 200, headers: [], endStream: false),
                                            .head(status: 200, headers: [], endStream: false)]).1,
                       .invalid("a second head for one response"))
        guard case .invalid = respond(Self.get11, [.head(status: 200, headers: [], endStream: false), .reset(.cancel)]).1 else {
            return XCTFail("a reset cannot be expressed in HTTP/1.1")
        }
    }
}
