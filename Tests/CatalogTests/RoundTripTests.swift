import Catalog
import XCTest

final class RoundTripTests: XCTestCase {
    func assertRoundTrips(_ entry: CatalogEntry, file: StaticString = #filePath, line: UInt = #line) {
        let text = entry.jsonLine()
        XCTAssertFalse(text.contains("\n"), "a line must not contain a newline", file: file, line: line)
        switch parseCatalogLine(text.utf8, line: 1) {
        case .success(let parsed)?: XCTAssertEqual(parsed, entry, text, file: file, line: line)
        case .failure(let error)?: XCTFail("\(error) for \(text)", file: file, line: line)
        case nil: XCTFail("blank", file: file, line: line)
        }
    }

    func testCanonicalForm() {
        let entry = CatalogEntry(
            id: "7", title: "Crème \"Brûlée\" \\ Torch", categories: ["Kitchen", "Tools"], weight: 42,
            aliases: ["torch"], description: "a\nb\u{1}", attributes: ["price": "9.99", "image": "x.jpg", "b": "2"])
        XCTAssertEqual(
            entry.jsonLine(),
            #"{"id":"7","title":"Crème \"Brûlée\" \\ Torch","categories":["Kitchen","Tools"],"weight":42,"aliases":["torch"],"description":"a\nb\u0001","attributes":{"b":"2","image":"x.jpg","price":"9.99"}}"#)
        XCTAssertEqual(CatalogEntry(id: "a", title: "b").jsonLine(), #"{"id":"a","title":"b"}"#)
        XCTAssertEqual(CatalogEntry(id: "a", title: "b", description: "").jsonLine(), #"{"id":"a","title":"b","description":""}"#)
        assertRoundTrips(entry)
    }

    func testEscapingEveryControlCharacter() {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) } + [0x7F], as: UTF8.self)
        let entry = CatalogEntry(id: controls, title: "x" + controls, attributes: [controls: controls])
        XCTAssertTrue(entry.jsonLine().hasPrefix(#"{"id":"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e"#))
        assertRoundTrips(entry)
    }

    func testRandomEntriesRoundTrip() {
        for seed in 0..<20 as Range<UInt64> {
            for entry in SyntheticCatalog.randomEntries(seed: seed, count: 200) {
                assertRoundTrips(entry)
            }
        }
    }

    func testRandomEntriesAreDeterministicAndShaped() {
        let entries = SyntheticCatalog.randomEntries(seed: 9, count: 500)
        XCTAssertEqual(entries, SyntheticCatalog.randomEntries(seed: 9, count: 500))
        XCTAssertNotEqual(entries, SyntheticCatalog.randomEntries(seed: 10, count: 500))
        XCTAssertEqual(Set(entries.map(\.id)).count, 500)
        let words = Set(entries.flatMap { $0.title.split(separator: " ") })
        XCTAssertLessThanOrEqual(words.count, 30)
        XCTAssertLessThan(Set(entries.map(\.title)).count, 450, "titles repeat")
        XCTAssertLessThan(Set(entries.map(\.weight)).count, 10, "weights tie")
        XCTAssertLessThanOrEqual(
            Set(SyntheticCatalog.randomEntries(seed: 1, count: 2000, vocabularySize: 100).flatMap { $0.title.split(separator: " ") }).count, 100)
    }

    func testSyntheticCatalogIsDeterministic() {
        let first = SyntheticCatalog(seed: 42, count: 20_000)
        let second = SyntheticCatalog(seed: 42, count: 20_000)
        XCTAssertEqual(Array(first), Array(second))
        XCTAssertEqual(first[12_345], Array(second)[12_345])  // random access = sequential
        XCTAssertNotEqual(Array(SyntheticCatalog(seed: 43, count: 100)), Array(first.prefix(100)))
        XCTAssertEqual(Array(first.entries).count, 20_000)
    }

    func testSyntheticCatalogShape() {
        let entries = Array(SyntheticCatalog(seed: 1, count: 20_000))
        XCTAssertEqual(entries.map(\.id), (0..<20_000).map { "s\($0)" })
        XCTAssertEqual(Set(entries.map(\.id)).count, entries.count)
        func fraction(_ predicate: (CatalogEntry) -> Bool) -> Double {
            Double(entries.filter(predicate).count) / Double(entries.count)
        }
        XCTAssertEqual(fraction { !$0.aliases.isEmpty }, 0.3, accuracy: 0.03)
        XCTAssertEqual(fraction { $0.description != nil }, 0.5, accuracy: 0.03)
        XCTAssertEqual(fraction { $0.weight == 0 }, 0.35, accuracy: 0.03)
        XCTAssertEqual(fraction { $0.attributes["price"] != nil }, 0.35, accuracy: 0.03)
        XCTAssertGreaterThan(entries.map(\.weight).max()!, 100_000)
        XCTAssertEqual(Set(entries.flatMap(\.categories)).count, 40)
        XCTAssertLessThan(Set(entries.map(\.title)).count, entries.count, "some titles repeat")
        let wordCounts = entries.map { $0.title.split(separator: " ").count }
        XCTAssertEqual(wordCounts.min(), 1)
        XCTAssertEqual(wordCounts.max(), 5)
        XCTAssertGreaterThan(fraction { $0.title.unicodeScalars.contains { !$0.isASCII } }, 0.05)
        XCTAssertTrue(entries.contains { $0.title.unicodeScalars.contains { (0x0400...0x04FF).contains($0.value) } }, "Cyrillic")
        XCTAssertTrue(entries.contains { $0.title.unicodeScalars.contains { (0x0370...0x03FF).contains($0.value) } }, "Greek")
        XCTAssertTrue(entries.contains { $0.title.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) } }, "CJK")
        XCTAssertTrue(entries.contains { $0.title.first!.isUppercase } && entries.contains { $0.title.first!.isLowercase })
        for entry in entries.prefix(3000) { assertRoundTrips(entry) }
    }

    /// The generated catalog is valid as a whole, through the reader.
    func testSyntheticCatalogReadsBack() throws {
        let catalog = SyntheticCatalog(seed: 5, count: 5000)
        let text = catalog.map { $0.jsonLine() }.joined(separator: "\n")
        let reader = CatalogReader(bytes: Array(text.utf8))
        let (entries, errors) = try readAll(reader)
        XCTAssertEqual(errors, [])
        XCTAssertEqual(entries, Array(catalog))
    }
}
