import Foundation
import XCTest

@testable import Observability

final class LogFormatTests: XCTestCase {
    /// 2026-11-29T13:00:00.123Z
    private let when = Date(timeIntervalSince1970: 1_795_957_200.123)

    private func record(
        _ message: String = "request done",
        _ metadata: [String: String] = [:],
        label: String = "node",
        level: Logger.Level = .info
    ) -> LogRecord {
        LogRecord(timestamp: when, level: level, label: label, message: message, metadata: metadata)
    }

    func testLogfmtGolden() {
        let line = LogFormat.logfmt.line(for: record("request done", [
            "request_id": "00000000000000ff", "status": "OK", "duration_us": "1234", "path": "/v1/suggest",
        ]))
        XCTAssertEqual(line,
            #"ts=2026-11-29T13:00:00.123Z level=info logger=node msg="request done" duration_us=1234 "#
            + #"path=/v1/suggest request_id=00000000000000ff status=OK"#)
    }

    func testJSONLinesGolden() {
        let line = LogFormat.jsonLines.line(for: record("request done", ["status": "OK", "duration_us": "1234"]))
        XCTAssertEqual(line,
            #"{"ts":"2026-11-29T13:00:00.123Z","level":"info","logger":"node","msg":"request done","#
            + #""duration_us":"1234","status":"OK"}"#)
    }

    func testLogfmtQuotesOnlyWhenNeeded() {
        let values: [(String, String)] = [
            ("plain", "plain"),
            ("", #""""#),
            ("two words", #""two words""#),
            ("a=b", #""a=b""#),
            (#"say "hi""#, #""say \"hi\"""#),
            (#"C:\dir"#, #""C:\\dir""#),
            ("line1\nline2", #""line1\nline2""#),
            ("cr\rtab\t", #""cr\rtab\t""#),
            ("bell\u{7}del\u{7F}", #""bell\u0007del\u007f""#),
            ("c1\u{85}ls\u{2028}", #""c1\u0085ls\u2028""#),
            ("Straße→日本語", "Straße→日本語"),
            ("emoji👍🏽", "emoji👍🏽"),
        ]
        for (value, expected) in values {
            let line = LogFormat.logfmt.line(for: record("m", ["k": value]))
            XCTAssertEqual(line, "ts=2026-11-29T13:00:00.123Z level=info logger=node msg=m k=\(expected)",
                           "value \(value.debugDescription)")
        }
    }

    func testJSONEscaping() {
        let message = "quote \" backslash \\ newline \n cr \r tab \t nul \u{0} esc \u{1B} c1 \u{9F} ps \u{2029} é 日本 👍"
        let line = LogFormat.jsonLines.line(for: record(message))
        XCTAssertEqual(line,
            #"{"ts":"2026-11-29T13:00:00.123Z","level":"info","logger":"node","#
            + #""msg":"quote \" backslash \\ newline \n cr \r tab \t nul \u0000 esc \u001b c1 \u009f ps \u2029 é 日本 👍"}"#)
        // And a real JSON parser agrees on every character.
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        XCTAssertEqual(object?["msg"], message)
        XCTAssertFalse(line.contains("\n"))
    }

    func testKeysAreSanitisedAndReservedKeysPrefixed() {
        let r = record("m", ["msg": "shadow", "bad key=\"x\"": "v", "": "empty", "level": "x"])
        XCTAssertEqual(LogFormat.logfmt.line(for: r),
            #"ts=2026-11-29T13:00:00.123Z level=info logger=node msg=m _=empty bad_key__x_=v _level=x _msg=shadow"#)
        XCTAssertEqual(LogFormat.jsonLines.line(for: r),
            #"{"ts":"2026-11-29T13:00:00.123Z","level":"info","logger":"node","msg":"m","":"empty","#
            + #""bad key=\"x\"":"v","_level":"x","_msg":"shadow"}"#)
    }

    func testLabelIsEscapedLikeAValue() {
        XCTAssertEqual(LogFormat.logfmt.line(for: record("m", label: "my node")),
                       #"ts=2026-11-29T13:00:00.123Z level=info logger="my node" msg=m"#)
    }

    func testTimestamps() {
        func ts(_ seconds: Double) -> String {
            var out: [UInt8] = []
            LogEncoding.appendTimestamp(Date(timeIntervalSince1970: seconds), into: &out)
            return String(decoding: out, as: UTF8.self)
        }
        XCTAssertEqual(ts(0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(ts(-1), "1969-12-31T23:59:59.000Z")
        XCTAssertEqual(ts(-0.001), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(ts(951_782_400.5), "2000-02-29T00:00:00.500Z")
        XCTAssertEqual(ts(1_795_957_200.999_9), "2026-11-29T13:00:00.999Z")
        XCTAssertEqual(ts(253_402_300_799), "9999-12-31T23:59:59.000Z")
    }

    func testEveryLevelName() {
        XCTAssertEqual(Logger.Level.allCases.map(\.description),
                       ["trace", "debug", "info", "notice", "warning", "error", "critical"])
    }
}
