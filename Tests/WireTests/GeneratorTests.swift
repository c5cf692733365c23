import Foundation
import XCTest

/// `scripts/protogen.py`: the committed generated code is what the generator makes of `proto/`
/// today, and the generator refuses what it does not support with a message naming the line.
final class GeneratorTests: XCTestCase {
    func testCommittedGeneratedCodeIsUpToDate() throws {
        let result = try runGenerator(["--check"])
        XCTAssertEqual(result.status, 0, "run `python3 scripts/protogen.py` and commit the result:\n\(result.errors)")
    }

    func testRefusesWhatItDoesNotSupport() throws {
        let cases: [(String, String)] = [
            ("message M { oneof choice { string a = 1; } }", "m.proto:3: `oneof` is not supported by this generator"),
            ("message M { M self_ = 1; }", "singular message fields form a cycle (t.M -> t.M)"),
            ("message M { map<bool, string> m = 1; }", "m.proto:3: map keys of type bool are not supported"),
            ("enum E { E_ONE = 1; }", "m.proto:3: the first value of enum E must be 0 (proto3)"),
            ("message M { string a = 1; string b = 1; }", "m.proto:3: field number 1 is used twice in M"),
            ("message M { Missing a = 1; }", "m.proto:3: unknown type Missing"),
            ("message M { string a = 0; }", "m.proto:3: field number 0 is not allowed"),
        ]
        for (body, expected) in cases {
            let root = try temporaryDirectory()
            try "syntax = \"proto3\";\npackage t;\n\(body)\n".write(toFile: root + "/m.proto", atomically: true, encoding: .utf8)
            let result = try runGenerator(["--root", root, "--out", root + "/out"])
            XCTAssertEqual(result.status, 2, body)
            XCTAssertTrue(result.errors.contains(expected), "\(body): \(result.errors)")
        }
    }

    func testDocumentationCommentsAndNamesCarryOver() throws {
        let root = try temporaryDirectory()
        try """
            syntax = "proto3";
            package shop.v2;
            // A basket.
            message Basket {
              // What is in it.
              repeated string item_names = 1;  // at most 10
              /* Block comment. */
              Kind kind = 2;
              enum Kind { KIND_UNSPECIFIED = 0; KIND_GIFT_WRAPPED = 1; }
            }
            """.write(toFile: root + "/b.proto", atomically: true, encoding: .utf8)
        let result = try runGenerator(["--root", root, "--out", root + "/out"])
        XCTAssertEqual(result.status, 0, result.errors)
        let swift = try String(contentsOfFile: root + "/out/b.pb.swift", encoding: .utf8)
        for expected in ["/// A basket.\npublic struct Shop_V2_Basket: ProtoMessage {",
                         "    /// What is in it.\n    /// at most 10\n    ///\n    /// `repeated string item_names = 1`\n    public var itemNames: [String] = []",
                         "/// Block comment.", "public var kind: Shop_V2_Basket.Kind = .unspecified", "case giftWrapped",
                         "import Wire"] {
            XCTAssertTrue(swift.contains(expected), "missing:\n\(expected)\nin:\n\(swift)")
        }
    }

    private func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("protogen-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    private func runGenerator(_ arguments: [String]) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", repositoryRoot + "/scripts/protogen.py"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
