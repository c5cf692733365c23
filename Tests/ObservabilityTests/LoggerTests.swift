import Foundation
import XCTest

@testable import Observability

final class LoggerTests: XCTestCase {
    func testLevelFiltering() {
        let sink = MemorySink()
        let logger = Logger(label: "test", sink: sink, minimumLevel: .warning)
        logger.trace("t")
        logger.debug("d")
        logger.info("i")
        logger.notice("n")
        logger.warning("w")
        logger.error("e")
        logger.critical("c")
        XCTAssertEqual(sink.records.map(\.message), ["w", "e", "c"])
        XCTAssertEqual(sink.records.map(\.level), [.warning, .error, .critical])
        XCTAssertFalse(logger.isEnabled(.notice))
        XCTAssertTrue(logger.isEnabled(.warning))
    }

    func testDisabledLevelDoesNotEvaluateMessageOrMetadata() {
        let sink = MemorySink()
        let logger = Logger(label: "test", sink: sink, minimumLevel: .info)
        var evaluated = 0
        func expensive() -> String {
            evaluated += 1
            return "x"
        }
        logger.debug("\(expensive())", ["k": expensive()])
        XCTAssertEqual(evaluated, 0)
        logger.info("\(expensive())", ["k": expensive()])
        XCTAssertEqual(evaluated, 2)
    }

    func testMetadataMergesPerCallAndCopiesAreIndependent() {
        let sink = MemorySink()
        var base = Logger(label: "node", sink: sink, metadata: ["shard": "3", "region": "eu"])
        var child = base
        child[metadataKey: "request_id"] = "abc"
        base[metadataKey: "region"] = nil

        child.info("one", ["region": "us", "status": "OK"])
        base.info("two")

        XCTAssertEqual(sink.records[0].metadata, ["shard": "3", "region": "us", "request_id": "abc", "status": "OK"])
        XCTAssertEqual(sink.records[1].metadata, ["shard": "3"])
        XCTAssertEqual(sink.records[0].label, "node")
        XCTAssertEqual(child[metadataKey: "region"], "eu", "a call's metadata does not stick to the logger")
    }

    func testMemorySinkRendersAndClears() {
        let sink = MemorySink()
        Logger(label: "l", sink: sink).notice("hello world", ["k": "v"])
        let line = sink.lines(in: .logfmt)[0]
        XCTAssertTrue(line.hasSuffix(#" level=notice logger=l msg="hello world" k=v"#), line)
        sink.removeAll()
        XCTAssertTrue(sink.records.isEmpty)
    }

    /// Many threads, long lines (longer than PIPE_BUF), one file: every line must come back whole.
    func testStandardErrorSinkNeverInterleavesLines() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("observability-\(RequestID.next()).log").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer {
            close(fd)
            unlink(path)
        }
        let sink = StandardErrorSink(format: .jsonLines, fileDescriptor: fd)
        let logger = Logger(label: "w", sink: sink)
        let threads = 8, perThread = 200
        let padding = String(repeating: "x", count: 6000)
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<perThread {
                logger.info("line", ["thread": String(t), "i": String(i), "padding": padding])
            }
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.last, "")
        XCTAssertEqual(lines.count - 1, threads * perThread)
        var seen = Set<String>()
        for line in lines.dropLast() {
            let object = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "torn line")
            XCTAssertEqual(object["padding"], padding)
            seen.insert("\(object["thread"]!)/\(object["i"]!)")
        }
        XCTAssertEqual(seen.count, threads * perThread)
    }
}
