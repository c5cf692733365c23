// Generations keep documents under integer keys (`docs` is an MDB_INTEGERKEY database) and index
// titles (`titles`); those written before kept documents under big-endian keys compared
// byte-wise and had no title index. Both must answer exactly, through updates, since a node
// upgraded in place serves what the previous version built.

import Analysis
import Catalog
import Foundation
import Storage
import TestSupport
import XCTest
@testable import Index

final class GenerationFormatTests: XCTestCase {
    /// A shard of `entries` in each layout, named "current", "original", "before delta lists"
    /// (the current layout as builds wrote it before the delta's prefix lists, whose delta is
    /// scanned), "before the forward index" (whose candidates are all read) and "before attribute
    /// keys" (layout 3: records write their attribute keys out), each in its own
    /// directory (kept as long as the result is). The last two are of layout 2, whose term tries
    /// record no best documents (so no region is left unread for its best).
    static func shardsInBothLayouts(_ entries: [CatalogEntry], parameters: IndexParameters) throws -> [(String, Shard, TemporaryDirectory)] {
        var shards: [(String, Shard, TemporaryDirectory)] = []
        for (name, format) in [("current", GenerationFormat.current), ("original", .original), ("before delta lists", .beforeDeltaLists),
                               ("before the forward index", .beforeForwardIndex), ("before attribute keys", .beforeAttributeKeys)] {
            let directory = TemporaryDirectory()
            let shard = try Shard(directory: directory.path)
            let info = try shard.buildGeneration(from: entries, parameters: parameters, number: nil, label: nil, format: format)
            try shard.activate(generation: info.number)
            XCTAssertEqual(try shard.current().schema.documentKeys, format.documentKeys, "the generation is read as it was written")
            XCTAssertEqual(try shard.current().schema.titles != nil, format.titles)
            XCTAssertEqual(try shard.current().schema.deltaWordPrefixes != nil, format.deltaLists)
            XCTAssertEqual(try shard.current().schema.forward != nil, format.forwardIndex)
            XCTAssertEqual(try shard.current().schema.layout, format.layout)
            shards.append((name, shard, directory))
        }
        return shards
    }

    func testCurrentAndOriginalLayoutsAnswerLikeTheReferenceThroughUpdates() throws {
        var rng = SeededGenerator(seed: 0xD0C5_4E75)
        var catalog = RandomCatalog(vocabularySize: 30, rng: &rng)
        let initial = catalog.randomEntries(300, &rng)
        let parameters = IndexParameters(listSize: 3, heavyThreshold: 4)
        var reference = ReferenceIndex(entries: initial)
        let shards = try Self.shardsInBothLayouts(initial, parameters: parameters)
        var checked = 0
        for batch in 0...3 {
            if batch > 0 {
                let current = reference.entries.sorted { bytesPrecede($0.id, $1.id) }
                let (upserts, deletes) = catalog.randomUpdateBatch(&rng, current: current)
                for (_, shard, _) in shards {
                    if !upserts.isEmpty { _ = try shard.upsert(upserts) }
                    if !deletes.isEmpty { _ = try shard.delete(ids: deletes) }
                }
                reference.upsert(upserts)
                reference.delete(ids: deletes)
            }
            let now = reference.entries
            let suggests = Workload.suggestRequests(entries: now, categories: catalog.categories,
                                                    vocabulary: catalog.vocabulary, count: 120, &rng)
            let searches = Workload.searchRequests(from: Array(suggests.prefix(40)), &rng)
            for (encoding, shard, _) in shards {
                for request in suggests {
                    if let diff = suggestDiff(shard: shard, reference: reference, request: request) {
                        XCTFail("\(encoding) format, batch \(batch): \(request.text)\n\(diff)")
                        return
                    }
                    checked += 1
                }
                for request in searches {
                    if let diff = searchDiff(shard: shard, reference: reference, request: request) {
                        XCTFail("\(encoding) format, batch \(batch): search \(request.text)\n\(diff)")
                        return
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }

    /// Title keys keep a title's first ``TitleKey/maximumTitleBytes`` bytes: typed text up to that
    /// length is found through them, longer text the way generations without them are read. Both
    /// must rank titles that start with the typed text exactly, including titles cut in a scalar.
    func testTypedTextAroundTheTitleKeyLimit() throws {
        let words = ["pomegranate", "überschall", "kiwi", "ωmega", "fig", "date", "lime", "pear", "plum", "sloe"]
        var entries: [CatalogEntry] = []
        for index in 0..<120 {
            // Long titles sharing long beginnings, so that the typed text stays ambiguous.
            let title = (0..<24).map { words[($0 * 7 + (($0 > 8 ? index : 0) % 5)) % words.count] }.joined(separator: " ")
            entries.append(CatalogEntry(id: "t\(index)", title: title + " \(index)", categories: ["Fruit"], weight: UInt64(index % 7)))
        }
        let directory = TemporaryDirectory()
        let shard = try Shard(directory: directory.path)
        try shard.build(from: entries, parameters: IndexParameters(listSize: 2, heavyThreshold: 2))
        let reference = ReferenceIndex(entries: entries)
        let title = entries[3].title
        var checked = 0
        var lengths: Set<Int> = []
        for end in title.indices where end > title.startIndex {
            let text = String(title[..<end])
            let parsed = Analyzer().parseQuery(text)
            lengths.insert((parsed.completeWords + (parsed.partialWord.map { [$0] } ?? [])).joined(separator: " ").utf8.count)
            for typos in [TypoMode.off, .auto] {
                var request = SuggestRequest(text: text)
                request.typos = typos
                if let diff = suggestDiff(shard: shard, reference: reference, request: request) {
                    XCTFail("\(text.utf8.count) bytes typed, typos \(typos): \(diff)")
                    return
                }
                checked += 1
            }
        }
        // Typed text within the keys' reach and beyond it, both.
        XCTAssertTrue(lengths.contains { $0 <= TitleKey.maximumTitleBytes } && lengths.contains { $0 > TitleKey.maximumTitleBytes }, "\(lengths.sorted())")
        XCTAssertGreaterThan(checked, 300)
    }

    func testIntegerKeysAreReadInNumericOrder() throws {
        let directory = TemporaryDirectory()
        let environment = try Environment(path: directory.path)
        let docs = try environment.database(named: "docs", flags: .integerKey, create: true)
        let numbers: [UInt32] = [0, 1, 255, 256, 65_535, 65_536, 1 << 24, UInt32.max - 1]
        try environment.write { txn in
            for number in numbers.shuffled() { try txn.put(docs, IntegerKey(number), [UInt8(number & 0xFF)]) }
        }
        let read: [UInt32] = try environment.read { txn in
            try txn.withCursor(docs) { cursor in
                var found: [UInt32] = []
                var entry = try cursor.first()
                while let key = entry?.key {
                    found.append(key.loadNative(UInt32.self, at: 0))
                    entry = try cursor.next()
                }
                return found
            }
        }
        XCTAssertEqual(read, numbers)
        let atLeast: UInt32? = try environment.read { txn in
            try txn.withCursor(docs) { cursor in try cursor.seek(atLeast: IntegerKey(300))?.key.loadNative(UInt32.self, at: 0) }
        }
        XCTAssertEqual(atLeast, 65_535)
    }
}
