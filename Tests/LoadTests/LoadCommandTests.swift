import Foundation
import Load
import TestSupport
import XCTest

/// `typeahead load` as a person runs it: one-line usage errors with exit status 2, clear errors
/// for files and targets, and a real run whose JSON report matches what the server saw.
final class LoadCommandTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        guard TypeaheadExecutable.isBuilt else { throw XCTSkip("typeahead binary not built next to the tests") }
        directory = TemporaryDirectory("load-command")
    }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = directory.path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testAbsurdOptionsAreOneLineUsageErrors() throws {
        let queries = try write("q.txt", Array("knife\n".utf8))
        let cases: [([String], String)] = [
            (["--target", "127.0.0.1:7700"], "give --catalog FILE or --queries FILE"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--catalog", queries], "exclude each other"),
            (["--queries", queries], "--target is required"),
            (["--target", "nowhere", "--queries", queries], "--target must look like HOST:PORT"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--connections", "0"], "--connections must be 1...10000, got 0"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--rate", "-3"], "--rate must be above 0"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--rate", "fast"], "--rate must be a number"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--max", "--rate", "5"], "--rate is for the open loop"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--streams", "4"], "--streams applies to --max only"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--rate", "5", "--request-rate", "50"], "not both"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--key-delay-ms", "300-100"], "--key-delay-ms range is backwards"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--key-delay-ms", "soon"], "--key-delay-ms must look like 80-250"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--typo-rate", "2"], "--typo-rate must be a probability"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--duration", "0"], "--duration must be above 0"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--arrivals", "bursty"], "--arrivals must be one of poisson|uniform"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--max", "--streams", "5000"], "--streams must be 1...1000"),
            (["--target", "127.0.0.1:7700", "--queries", queries, "--bogus"], "unknown option --bogus"),
        ]
        for (arguments, expected) in cases {
            let run = try TypeaheadExecutable.run(["load"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.hasPrefix("typeahead load: "), "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(expected), "\(arguments): expected \"\(expected)\" in \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one line: \(run.stderr)")
            XCTAssertEqual(run.stdout, "")
        }
    }

    func testMalformedFilesNameTheirLines() throws {
        let queries = try write("bad.txt", Array("knife\n".utf8) + [0xC3, 0x28, 0x0A] + Array("garden\n".utf8))
        var run = try TypeaheadExecutable.run(["load", "--target", "127.0.0.1:7700", "--queries", queries])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("line 2: invalid UTF-8"), run.stderr)
        let catalog = try write("bad.jsonl", Array("{\"id\":\"a\",\"title\":\"A\"}\n{\"id\":\"b\",\"weight\":-1}\n".utf8))
        run = try TypeaheadExecutable.run(["load", "--target", "127.0.0.1:7700", "--catalog", catalog])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("line 2:"), run.stderr)
        run = try TypeaheadExecutable.run(["load", "--target", "127.0.0.1:7700", "--catalog", directory.path + "/missing.jsonl"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("No such file"), run.stderr)
    }

    func testUnreachableTarget() throws {
        let probe = try RecordingServer()
        let port = probe.port
        probe.shutdown()
        let queries = try write("q.txt", Array("knife\n".utf8))
        let run = try TypeaheadExecutable.run(["load", "--target", "127.0.0.1:\(port)", "--queries", queries, "--duration", "1"])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "typeahead load: cannot connect to 127.0.0.1:\(port): connect: Connection refused (errno 111)\n")
    }

    /// A real run: the JSON on standard output is the report, and it counts what the server saw
    /// (less the preflight Suggest); --report writes the three files.
    func testJSONReportOfARealRun() throws {
        let server = try RecordingServer(.init(supersedeEvery: 3))
        defer { server.shutdown() }
        let queries = try write("q.txt", Array("knife\nred shoes\n".utf8))
        let reports = directory.path + "/report"
        let run = try TypeaheadExecutable.run(["load", "--target", "127.0.0.1:\(server.port)", "--queries", queries, "--rate", "30",
                                               "--duration", "0.5", "--key-delay-ms", "1-2", "--submit-rate", "1", "--connections", "2",
                                               "--seed", "7", "--json", "--quiet", "--report", reports])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try JSONDecoder().decode(LoadReport.self, from: Data(run.stdout.utf8))
        XCTAssertEqual(report.requests.sent, server.calls.withLock { $0.count } - 1)
        XCTAssertEqual(report.requests.superseded, server.answers.withLock { $0.superseded })
        XCTAssertEqual(report.requests.failed, 0)
        XCTAssertEqual(report.settings.seed, 7)
        XCTAssertEqual(report.settings.connections, 2)
        XCTAssertTrue(run.stderr.contains("typeahead load: open loop, Poisson arrivals at 30 sessions/s"), run.stderr)
        XCTAssertFalse(run.stderr.contains(" s  sessions "), "--quiet: no progress lines")
        for name in ["report.json", "latency.svg", "summary.txt"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: reports + "/" + name), name)
        }
    }
}
