import Foundation
import HTTP2
import XCTest

/// The server against real HTTP/2 clients. Skipped (with a message) when a tool is not installed;
/// `scripts/setup.sh` installs curl and nghttp2-client.
final class InteropTests: ResourceCheckingTestCase {
    override class func setUp() {
        super.setUp()
        // Foundation's Process opens a few sockets of its own the first time it runs a child;
        // run one before the leak checks start counting.
        _ = try? runTool("true", [])
    }

    func testCurlWithPriorKnowledge() throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/curl/path?q=1"
        guard let get = try runTool("curl", ["--silent", "--show-error", "--http2-prior-knowledge", "--max-time", "10",
                                             "--write-out", "\\n%{http_version} %{response_code}", "-H", "x-size: 5", url]) else {
            throw XCTSkip("curl is not installed")
        }
        XCTAssertEqual(get.status, 0, get.error)
        XCTAssertEqual(get.output, "xxxxx\n2 200")

        let post = try XCTUnwrap(try runTool("curl", ["--silent", "--show-error", "--http2-prior-knowledge", "--max-time", "10",
                                                      "--include", "--data-binary", "hello", url]))
        XCTAssertEqual(post.status, 0, post.error)
        XCTAssertTrue(post.output.hasPrefix("HTTP/2 200"), post.output)
        XCTAssertTrue(post.output.contains("x-method: POST"), post.output)
        XCTAssertTrue(post.output.contains("\r\n\r\nolleh"), post.output)
        XCTAssertTrue(post.output.contains("x-trailer: done"), "curl prints trailers after the body")
    }

    func testCurlOverHTTP1() throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let common = ["--silent", "--show-error", "--max-time", "10"]
        // No --http2-prior-knowledge: what an operator types. Two URLs: curl reuses the connection.
        guard let get = try runTool("curl", common + ["--write-out", "\\n%{http_version} %{response_code} %{num_connects}\\n",
                                                      "-H", "x-size: 5", "\(base)/one", "\(base)/two"]) else {
            throw XCTSkip("curl is not installed")
        }
        XCTAssertEqual(get.status, 0, get.error)
        XCTAssertEqual(get.output, "xxxxx\n1.1 200 1\nxxxxx\n1.1 200 0\n", "one connection, kept alive")

        let post = try XCTUnwrap(try runTool("curl", common + ["--include", "-H", "content-type: application/json",
                                                               "--data-binary", "{\"text\":\"gard\"}", "\(base)/json"]))
        XCTAssertEqual(post.status, 0, post.error)
        XCTAssertTrue(post.output.hasPrefix("HTTP/1.1 200 OK\r\n"), post.output)
        XCTAssertTrue(post.output.contains("x-method: POST"), post.output)
        XCTAssertTrue(post.output.hasSuffix("\r\n\r\n}\"drag\":\"txet\"{"), post.output)

        // A body curl streams with chunked encoding, and HEAD.
        let chunked = try XCTUnwrap(try runTool("curl", common + ["-H", "transfer-encoding: chunked", "--data-binary", "abc", "\(base)/c"]))
        XCTAssertEqual(chunked.output, "cba", chunked.error)
        let head = try XCTUnwrap(try runTool("curl", common + ["--head", "-H", "x-size: 7", "\(base)/h"]))
        XCTAssertTrue(head.output.contains("content-length: 7\r\n"), head.output)

        // --http2 on an http:// URL asks to upgrade to h2c; the server stays on HTTP/1.1.
        let upgrade = try XCTUnwrap(try runTool("curl", common + ["--http2", "--write-out", "%{http_version}", "\(base)/u"]))
        XCTAssertEqual(upgrade.status, 0, upgrade.error)
        XCTAssertTrue(upgrade.output.hasSuffix("1.1"), upgrade.output)
    }

    func testNghttpWithManyStreams() throws {
        let server = try TestServer(handler: echoHandler)
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        // Several URIs on one connection, with trailers, verbose frame log.
        guard let result = try runTool("nghttp", ["-v", "-t", "10", "-H", "x-size: 3", "\(base)/a", "\(base)/b", "\(base)/c"]) else {
            throw XCTSkip("nghttp (nghttp2-client) is not installed")
        }
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertEqual(result.output.components(separatedBy: "recv HEADERS frame").count - 1, 6,
                       "3 responses with headers and trailers")
        XCTAssertTrue(result.output.contains("x-trailer: done"), result.output)
        XCTAssertEqual(result.output.components(separatedBy: "recv DATA frame <length=3").count - 1, 3, "three 3-byte bodies")
    }

    func testH2loadSmoke() throws {
        let server = try TestServer { _, responder in responder.respond(status: 200, body: bytes("ok")) }
        defer { server.stop() }
        guard let result = try runTool("h2load", ["-n", "200", "-c", "2", "-m", "10", "http://127.0.0.1:\(server.port)/"]) else {
            throw XCTSkip("h2load (nghttp2-client) is not installed")
        }
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertTrue(result.output.contains("200 succeeded, 0 failed, 0 errored"), result.output)
    }

    func testH2loadOverHTTP1WithPipelining() throws {
        let server = try TestServer { _, responder in responder.respond(status: 200, body: bytes("ok")) }
        defer { server.stop() }
        // --h1: HTTP/1.1; -m 10: ten pipelined requests per connection.
        guard let result = try runTool("h2load", ["--h1", "-n", "2000", "-c", "4", "-m", "10", "http://127.0.0.1:\(server.port)/"]) else {
            throw XCTSkip("h2load (nghttp2-client) is not installed")
        }
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertTrue(result.output.contains("2000 succeeded, 0 failed, 0 errored"), result.output)
        XCTAssertTrue(result.output.contains("Application protocol: http/1.1"), result.output)
    }
}
