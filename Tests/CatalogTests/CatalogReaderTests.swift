import Catalog
import Foundation
import XCTest

/// Reads everything; returns entries and errors in order.
func readAll(_ reader: CatalogReader) throws -> (entries: [CatalogEntry], errors: [CatalogLineError]) {
    var entries: [CatalogEntry] = []
    var errors: [CatalogLineError] = []
    while let result = try reader.next() {
        switch result {
        case .success(let entry): entries.append(entry)
        case .failure(let error): errors.append(error)
        }
    }
    return (entries, errors)
}

/// A fresh temporary file holding `bytes`, removed when the test ends.
func temporaryFile(_ bytes: [UInt8], _ test: XCTestCase) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString).jsonl")
    try Data(bytes).write(to: url)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url.path
}

/// The repository's root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// `../shared/data/<name>` next to the repository (or under $TYPEAHEAD_SHARED_DATA), decompressed
/// into a temporary file with /bin/zcat. Skips the test when the file is not there.
func sharedDataFile(_ name: String, _ test: XCTestCase) throws -> String {
    let directory = ProcessInfo.processInfo.environment["TYPEAHEAD_SHARED_DATA"]
        ?? repositoryRoot.appendingPathComponent("../shared/data").standardizedFileURL.path
    let compressed = directory + "/" + name + ".gz"
    guard FileManager.default.fileExists(atPath: compressed) else { throw XCTSkip("\(compressed) is not there") }
    guard FileManager.default.isExecutableFile(atPath: "/bin/zcat") else { throw XCTSkip("/bin/zcat is not there") }
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)")
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: output) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/zcat")
    process.arguments = [compressed]
    process.standardOutput = try FileHandle(forWritingTo: output)
    try process.run()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "zcat \(compressed)")
    return output.path
}

final class CatalogReaderTests: XCTestCase {
    func testLinesBlankLinesAndSummary() throws {
        let text = "\n" + #"{"id":"a","title":"A","extra":1}"# + "\n  \n" + #"{"id":"b","title":"B"}"# + "\n"
        let reader = CatalogReader(bytes: Array(text.utf8))
        let (entries, errors) = try readAll(reader)
        XCTAssertEqual(entries.map(\.id), ["a", "b"])
        XCTAssertEqual(errors, [])
        XCTAssertEqual(reader.summary, CatalogSummary(lines: 4, entries: 2, invalid: 0, unknownFields: 1, bytes: text.utf8.count))
        XCTAssertNil(try reader.next())  // stays at the end
    }

    func testLastLineWithoutNewline() throws {
        let reader = CatalogReader(bytes: Array((#"{"id":"a","title":"A"}"# + "\n" + #"{"id":"b","title":"B"}"#).utf8))
        XCTAssertEqual(try readAll(reader).entries.map(\.id), ["a", "b"])
        XCTAssertEqual(reader.summary.lines, 2)
    }

    func testEmptyInput() throws {
        let reader = CatalogReader(bytes: [])
        XCTAssertNil(try reader.next())
        XCTAssertEqual(reader.summary, CatalogSummary())
    }

    func testCRLFLineEndings() throws {
        let text = "{\"id\":\"a\",\"title\":\"A\"}\r\n\r\n{\"id\":\"b\",\"title\":\"B\"}\r\n{\"title\":\"C\"}\r\n"
        let (entries, errors) = try readAll(CatalogReader(bytes: Array(text.utf8)))
        XCTAssertEqual(entries, [CatalogEntry(id: "a", title: "A"), CatalogEntry(id: "b", title: "B")])
        XCTAssertEqual(errors, [CatalogLineError(line: 4, reason: #"missing required field "id""#)])
    }

    func testByteOrderMarkOnFirstLine() throws {
        let text = [0xEF, 0xBB, 0xBF] + Array(#"{"id":"a","title":"A"}"#.utf8)
        XCTAssertEqual(try readAll(CatalogReader(bytes: text)).entries.map(\.id), ["a"])
    }

    /// An export as Windows tools write it, read from a file (read(2) in chunks, not in memory):
    /// a byte-order mark, CRLF everywhere but after the last line. Line numbers of errors and
    /// warnings count CRLF lines as an editor does, and nothing of the "\r" or the mark is kept.
    func testCRLFFileWithAByteOrderMarkAndNoNewlineAtTheEnd() throws {
        let lines = [#"{"id":"a","title":"A","category":""}"#, "", #"{"id":"b","title":"B","weight":"7"}"#,
                     #"{"id":"c","title":"C","weight":-1}"#, #"{"id":"d","title":"D","aliases":["x",""]}"#]
        let path = try temporaryFile([0xEF, 0xBB, 0xBF] + Array(lines.joined(separator: "\r\n").utf8), self)
        let reader = try CatalogReader(path: path)
        let (entries, errors) = try readAll(reader)
        XCTAssertEqual(entries, [CatalogEntry(id: "a", title: "A"), CatalogEntry(id: "b", title: "B", weight: 7),
                                 CatalogEntry(id: "d", title: "D", aliases: ["x"])])
        XCTAssertEqual(errors, [CatalogLineError(line: 4, reason: #"field "weight": expected a non-negative integer (or a string holding one), got -1"#)])
        XCTAssertEqual(reader.summary.lines, 5)
        XCTAssertEqual(reader.summary.notices.warnings, [
            #"1 line has "category": "" (read as no category): line 1"#,
            #"1 line has "" in "aliases" (left out): line 5"#,
            #"1 line has "weight" as a string (read as the number): line 3"#,
        ])
    }

    /// The mark is only skipped at the start of the file: one on a later line is a JSON error.
    func testByteOrderMarkOnALaterLineIsAnError() throws {
        let text = Array((#"{"id":"a","title":"A"}"# + "\r\n").utf8) + [0xEF, 0xBB, 0xBF] + Array(#"{"id":"b","title":"B"}"#.utf8)
        let (entries, errors) = try readAll(CatalogReader(bytes: text))
        XCTAssertEqual(entries.map(\.id), ["a"])
        XCTAssertEqual(errors.map(\.line), [2])
        XCTAssertTrue(errors.first?.reason.hasPrefix("invalid JSON") ?? false, "\(errors)")
    }

    func testDuplicateIds() throws {
        let lines = [
            #"{"id":"abc","title":"first"}"#, #"{"id":"x","title":"x"}"#, "", #"{"id":"abc","title":"second"}"#,
            #"{"id":"abc","title":"third"}"#,
        ]
        let reader = CatalogReader(bytes: Array(lines.joined(separator: "\n").utf8))
        let (entries, errors) = try readAll(reader)
        XCTAssertEqual(entries.map(\.title), ["first", "x"])
        XCTAssertEqual(errors, [
            CatalogLineError(line: 4, reason: #"duplicate id "abc" (first seen on line 1)"#),
            CatalogLineError(line: 5, reason: #"duplicate id "abc" (first seen on line 1)"#),
        ])
        XCTAssertEqual(errors[0].description, #"line 4: duplicate id "abc" (first seen on line 1)"#)
        XCTAssertEqual(reader.summary.invalid, 2)
        XCTAssertEqual(reader.summary.entries, 2)
    }

    func testInvalidLinesDoNotRegisterIds() throws {
        let lines = [#"{"id":"a","title":"x","weight":-1}"#, #"{"id":"a","title":"y"}"#]
        let (entries, errors) = try readAll(CatalogReader(bytes: Array(lines.joined(separator: "\n").utf8)))
        XCTAssertEqual(entries.map(\.title), ["y"])
        XCTAssertEqual(errors.map(\.line), [1])
    }

    /// The line over the limit is reported with its number, and the lines after it still parse with
    /// theirs: from a file (streamed, the long line never fully buffered) and from memory.
    func testOversizedLineFollowedByValidLine() throws {
        let longTitle = String(repeating: "a", count: 3 << 20)
        let long = #"{"id":"big","title":"\#(longTitle)"}"#
        let text = #"{"id":"a","title":"A"}"# + "\n" + long + "\n\n" + #"{"id":"b","title":"B"}"# + "\n"
        let expectedError = CatalogLineError(
            line: 2,
            reason: "line is \(long.utf8.count) bytes long, over the limit of 1048576; "
                + "split the entry's text (a fixed limit of the catalog format)")
        for reader in [try CatalogReader(path: try temporaryFile(Array(text.utf8), self)), CatalogReader(bytes: Array(text.utf8))] {
            let first = try reader.next()
            XCTAssertEqual(try first?.get().id, "a")
            XCTAssertEqual(try reader.next(), .failure(expectedError))
            guard case .success(let entry)? = try reader.next() else { return XCTFail("expected entry b") }
            XCTAssertEqual(entry.id, "b")
            XCTAssertNil(try reader.next())
            XCTAssertEqual(reader.summary, CatalogSummary(lines: 4, entries: 2, invalid: 1, unknownFields: 0, bytes: text.utf8.count))
        }
    }

    func testOversizedLastLineWithoutNewline() throws {
        let text = #"{"id":"a","title":"A"}"# + "\n" + String(repeating: "x", count: 5 << 20)
        let reader = try CatalogReader(path: try temporaryFile(Array(text.utf8), self))
        let (entries, errors) = try readAll(reader)
        XCTAssertEqual(entries.map(\.id), ["a"])
        XCTAssertEqual(errors.map(\.line), [2])
        XCTAssertTrue(errors[0].reason.hasPrefix("line is 5242880 bytes long"), errors[0].reason)
    }

    /// Batches parsed on several threads give exactly what reading line by line gives: the same
    /// entries and errors in the same order, the same line numbers and summary, over a file that
    /// mixes every kind of line (a byte-order mark, CRLF, blank lines, invalid JSON and UTF-8,
    /// duplicate ids, an over-long line, unknown fields, blank optional fields) and straddles the
    /// reader's chunks, with batches of every size from one line up.
    func testBatchesParsedInParallelEqualReadingLineByLine() throws {
        var lines: [[UInt8]] = [[0xEF, 0xBB, 0xBF] + Array(#"{"id":"bom","title":"First"}"#.utf8)]
        var random = SplitMix64(seed: 7)
        for index in 0..<6000 {
            let line: String
            switch index == 2500 || index == 4100 ? 99 : random.next() % 12 {
            case 0: line = ""
            case 1: line = #"{"id":"\#(index)","title":"#
            case 2: line = #"{"id":"\#(index / 2)","title":"again \#(index)"}"#
            case 3: line = #"{"id":"\#(index)","title":"blank fields","category":"","weight":"12","aliases":[""]}"#
            case 4: line = #"{"id":"\#(index)","title":"unknown","colour":"red"}"#
            case 99: line = #"{"id":"\#(index)","title":""# + String(repeating: "z", count: (1 << 20) + 10) + #""}"#
            default: line = #"{"id":"\#(index)","title":"entry \#(index) "# + String(repeating: "w", count: Int(random.next() % 300)) + #""}"#
            }
            var bytes = Array(line.utf8)
            if index % 997 == 3 { bytes.insert(0xFF, at: bytes.count / 2) }
            lines.append(bytes)
        }
        var text: [UInt8] = []
        for (index, line) in lines.enumerated() { text += line + (index % 5 == 0 ? [0x0D, 0x0A] : [0x0A]) }
        let path = try temporaryFile(text, self)
        let lineByLine = try CatalogReader(path: path)
        let expected = try readAll(lineByLine)
        XCTAssertGreaterThan(expected.entries.count, 3000)
        XCTAssertGreaterThan(expected.errors.count, 500)
        XCTAssertEqual(expected.errors.filter { $0.reason.hasPrefix("line is") }.count, 2)
        for (maximumLines, threads) in [(1, 2), (7, 3), (300, 2), (8192, 2), (8192, 1)] {
            let batched = try CatalogReader(path: path)
            var entries: [CatalogEntry] = [], errors: [CatalogLineError] = []
            while let batch = try batched.nextBatch(maximumLines: maximumLines, threads: threads) {
                XCTAssertLessThanOrEqual(batch.count, maximumLines)
                for result in batch {
                    switch result {
                    case .success(let entry): entries.append(entry)
                    case .failure(let error): errors.append(error)
                    }
                }
            }
            XCTAssertEqual(entries, expected.entries, "\(maximumLines) lines a batch on \(threads) threads")
            XCTAssertEqual(errors, expected.errors, "\(maximumLines) lines a batch on \(threads) threads")
            XCTAssertEqual(batched.summary, lineByLine.summary)
        }
    }

    /// Lines that straddle the reader's 1 MiB chunks are reassembled.
    func testLinesAcrossChunkBoundaries() throws {
        var text = ""
        var expected: [String] = []
        var index = 0
        while text.utf8.count < 5 << 20 {
            let padding = String(repeating: "p", count: (index * 7919) % 200_000)
            text += #"{"id":"\#(index)","title":"t","padding":"\#(padding)"}"# + (index % 3 == 0 ? "\r\n" : "\n")
            expected.append(String(index))
            index += 1
        }
        let reader = try CatalogReader(path: try temporaryFile(Array(text.utf8), self))
        let (entries, errors) = try readAll(reader)
        XCTAssertEqual(errors, [])
        XCTAssertEqual(entries.map(\.id), expected)
        XCTAssertEqual(reader.summary.bytes, text.utf8.count)
    }

    func testOpenErrors() {
        XCTAssertThrowsError(try CatalogReader(path: "/nonexistent/shop.jsonl")) { error in
            XCTAssertEqual("\(error)", "cannot open catalog /nonexistent/shop.jsonl: No such file or directory")
            XCTAssertEqual((error as? CatalogIOError)?.errno, ENOENT)
        }
        XCTAssertThrowsError(try CatalogReader(path: NSTemporaryDirectory())) { error in
            XCTAssertEqual("\(error)", "cannot open catalog \(NSTemporaryDirectory()): Is a directory")
        }
    }

    // MARK: - loadCatalog

    func testLoadCatalogPolicies() throws {
        var lines: [String] = []
        for index in 1...40 {
            lines.append(index % 3 == 0 ? #"{"id":"\#(index)","weight":1}"# : #"{"id":"\#(index)","title":"t\#(index)"}"#)
        }
        let path = try temporaryFile(Array(lines.joined(separator: "\n").utf8), self)

        let lenient = try loadCatalog(path: path, policy: .skipInvalid)
        XCTAssertEqual(lenient.entries.count, 27)
        XCTAssertEqual(lenient.errors.count, 13)
        XCTAssertEqual(lenient.errors.first, CatalogLineError(line: 3, reason: #"missing required field "title""#))
        XCTAssertEqual(lenient.summary, CatalogSummary(lines: 40, entries: 27, invalid: 13, unknownFields: 0, bytes: lenient.summary.bytes))

        XCTAssertThrowsError(try loadCatalog(path: path, policy: .strict, maximumReported: 2)) { error in
            guard let error = error as? CatalogValidationError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.totalErrors, 13)
            XCTAssertEqual(error.errors.map(\.line), [3, 6])
            XCTAssertEqual(error.description, """
                catalog has 13 invalid lines:
                  line 3: missing required field "title"
                  line 6: missing required field "title"
                  … and 11 more
                """)
        }
        XCTAssertThrowsError(try loadCatalog(path: path, policy: .strict)) { error in
            XCTAssertEqual((error as? CatalogValidationError)?.errors.count, 13)
        }

        let good = try temporaryFile(Array(#"{"id":"a","title":"A"}"#.utf8), self)
        let strict = try loadCatalog(path: good, policy: .strict)
        XCTAssertEqual(strict.entries, [CatalogEntry(id: "a", title: "A")])
        XCTAssertEqual(strict.errors, [])
        XCTAssertThrowsError(try loadCatalog(path: "/nonexistent", policy: .skipInvalid))
    }

    func testValidationErrorDescriptionSingular() {
        XCTAssertEqual(
            CatalogValidationError(errors: [CatalogLineError(line: 2, reason: "x")], totalErrors: 1).description,
            "catalog has 1 invalid line:\n  line 2: x")
    }

    // MARK: - Real catalogs

    func testBundledSampleCatalog() throws {
        let path = repositoryRoot.appendingPathComponent("deploy/catalog/sample.jsonl").path
        let (entries, errors, summary) = try loadCatalog(path: path, policy: .strict)
        XCTAssertEqual(errors, [])
        XCTAssertTrue((1500...3000).contains(entries.count), "\(entries.count)")
        XCTAssertEqual(summary.unknownFields, 0)
        let titles = Set(entries.map(\.title))
        for title in ["Red Running Shoes", "Crème Brûlée Torch", "Zürich Travel Guide", "東京 Guidebook", "Кофеварка"] {
            XCTAssertTrue(titles.contains(title), title)
        }
        // The README's example queries have answers.
        func words(_ title: String) -> [Substring] { title.lowercased().split(separator: " ") }
        XCTAssertTrue(titles.contains { let w = words($0); return w.contains("red") && w.contains { $0.hasPrefix("sh") } })
        XCTAssertTrue(titles.contains { words($0).contains { $0.hasPrefix("gard") } })
        XCTAssertTrue(titles.contains { let w = words($0); return w.contains("kitchen") && w.contains { $0.hasPrefix("tow") } })
    }

    func testDebianCatalog() throws {
        let path = try sharedDataFile("debian.jsonl", self)
        let (entries, errors, summary) = try loadCatalog(path: path, policy: .strict)
        XCTAssertEqual(entries.count, 63_681)
        XCTAssertEqual(errors.count, 0)
        XCTAssertEqual(summary.lines, 63_681)
        XCTAssertEqual(summary.invalid, 0)
        XCTAssertEqual(entries[0].id, "0ad")
        XCTAssertEqual(entries[0].categories, ["games"])
    }

    /// Parse rate on GeoNames cities. Prints only with TYPEAHEAD_BENCH=1 (and is only meaningful
    /// in a release build).
    func testBenchmarkCities() throws {
        guard ProcessInfo.processInfo.environment["TYPEAHEAD_BENCH"] == "1" else {
            throw XCTSkip("set TYPEAHEAD_BENCH=1 to run")
        }
        let path = try sharedDataFile("cities.jsonl", self)
        for _ in 0..<3 {
            let start = Date()
            let reader = try CatalogReader(path: path)
            var count = 0
            while let result = try reader.next() {
                if case .success = result { count += 1 }
            }
            let seconds = Date().timeIntervalSince(start)
            XCTAssertEqual(reader.summary.invalid, 0)
            print("catalog parse: \(count) entries in \(String(format: "%.3f", seconds)) s = \(Int(Double(count) / seconds)) entries/s")
        }
    }
}
