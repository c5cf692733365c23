import Foundation
import HTTP2
import Observability
import RPC
import Wire
import XCTest

/// The RPC server's endpoints over HTTP/1.1 (the transport's fallback), with plain `curl` as
/// operators and their tools use it: no `--http2-prior-knowledge`, no change to `RPCServer`.
final class RPCServerHTTP1Tests: XCTestCase {
    var server: RPCServer!
    var base = ""

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { throw XCTSkip("curl is not installed") }
        let methods: [RPCMethod] = [
            .unary(Typeahead_V1_TypeaheadService.suggest, access: .read, json: .suggest) { request, _, reply in
                reply(.success(Typeahead_V1_SuggestResponse(completions: [.init(text: request.text)])))
            },
        ]
        var configuration = RPCServer.Configuration()
        configuration.threads = 1
        configuration.shutdownGrace = .milliseconds(200)
        configuration.maximumMessageBytes = 1_000
        server = RPCServer(configuration: configuration, methods: methods,
                           telemetry: ServerTelemetry(label: "test", sink: MemorySink()),
                           healthServices: [Typeahead_V1_TypeaheadService.name], isReady: { true })
        base = "http://127.0.0.1:\(try server.start())"
    }

    override func tearDown() { server?.shutdown() }

    /// Runs curl; returns its standard output (status checked).
    func curl(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--silent", "--show-error", "--max-time", "10"] + arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, errorText, file: file, line: line)
        return String(decoding: data, as: UTF8.self)
    }

    func testOperatorEndpointsWithPlainCurl() throws {
        XCTAssertEqual(try curl(["--write-out", "%{http_version} %{response_code}", "--output", "/dev/null", "\(base)/readyz"]), "1.1 200")
        XCTAssertEqual(try curl(["\(base)/healthz"]), "ok\n")
        _ = try curl(["\(base)/v1/suggest?q=gar"])  // a call, so that the metrics count one
        let metrics = try curl(["--include", "\(base)/metrics"])
        XCTAssertTrue(metrics.hasPrefix("HTTP/1.1 200 OK\r\n"), metrics)
        XCTAssertTrue(metrics.contains("content-type: text/plain; version=0.0.4\r\n"), metrics)
        XCTAssertTrue(metrics.contains("# TYPE typeahead_requests_total counter"), metrics)
        XCTAssertTrue(metrics.contains(#"typeahead_requests_total{method="GET /v1/suggest",code="OK"} 1"#), metrics)
        XCTAssertEqual(try curl(["--write-out", "%{response_code}", "--output", "/dev/null", "\(base)/nope"]), "404")
    }

    func testJSONFormsOverHTTP1() throws {
        let get = try curl(["\(base)/v1/suggest?q=gar"])
        XCTAssertTrue(get.contains(#""text":"gar""#), get)
        let post = try curl(["-H", "content-type: application/json", "--data", #"{"text":"gard"}"#,
                             "\(base)/typeahead.v1.Typeahead/Suggest"])
        XCTAssertTrue(post.contains(#""text":"gard""#), post)
        // Over the limit: the HTTP/1.1 side answers a plain 413 itself (the RPC server's rejection
        // handler writes gRPC trailers, which HTTP/1.1 cannot carry).
        let large = try curl(["--write-out", "%{response_code}", "--output", "/dev/null", "-H", "content-type: application/json",
                              "--data", String(repeating: " ", count: 5_000), "\(base)/typeahead.v1.Typeahead/Suggest"])
        XCTAssertEqual(large, "413")
    }

    /// Over HTTP/2 too, a JSON, GET or health request over a limit gets the HTTP status its client
    /// reads (413, 431) with a JSON error body; only a gRPC call gets RESOURCE_EXHAUSTED in trailers.
    func testOverLimitRequestsOverHTTP2AreAnsweredInTheirClientsForm() throws {
        let post = try curl(["--http2-prior-knowledge", "--write-out", "\n%{response_code}", "-H", "content-type: application/json",
                             "--data", String(repeating: " ", count: 5_000), "\(base)/typeahead.v1.Typeahead/Suggest"])
        XCTAssertTrue(post.hasSuffix("\n413"), post)
        XCTAssertTrue(post.contains(#""code":"resource_exhausted""#), post)
        let big = String(repeating: "x", count: 20_000)
        for path in ["/v1/suggest?q=gar", "/healthz"] {
            let answer = try curl(["--http2-prior-knowledge", "--write-out", "\n%{response_code}", "-H", "x-padding: \(big)", "\(base)\(path)"])
            XCTAssertTrue(answer.hasSuffix("\n431"), "\(path): \(answer)")
        }
        let grpc = try curl(["--http2-prior-knowledge", "--include", "--output", "-", "-H", "content-type: application/grpc", "-H", "te: trailers",
                             "--data-binary", String(repeating: " ", count: 5_000), "\(base)/typeahead.v1.Typeahead/Suggest"])
        XCTAssertTrue(grpc.hasPrefix("HTTP/2 200"), grpc)
        XCTAssertTrue(grpc.contains("grpc-status: 8"), grpc)
    }

    func testGRPCOverHTTP1IsRefused() throws {
        let answer = try curl(["--write-out", "%{response_code}", "--output", "/dev/null", "-H", "content-type: application/grpc",
                               "--data-binary", "@/dev/null", "\(base)/typeahead.v1.Typeahead/Suggest"])
        XCTAssertEqual(answer, "505")
    }
}
