// Records of layout 4 number their attribute keys by a table the build chooses from its first
// entries (`AttributeKeys`); keys the table lacks (later entries, upserts, long keys) are written
// out. Either way an entry must come back exactly as it went in, and its hit's encoded fields be
// protobuf's (the node tests compare them with the generated encoder).

import Catalog
import Foundation
import Storage
import TestSupport
import XCTest
@testable import Index

final class AttributeKeysTests: XCTestCase {
    func testTheTableHoldsTheSampleMostFrequentShortKeysInByteOrder() throws {
        var sample: [CatalogEntry] = []
        for index in 0..<(AttributeKeys.sampleSize + 50) {
            var attributes = ["price": "\(index)", "b\(index % 200)": "x"]
            if index % 3 == 0 { attributes["Größe"] = "42" }
            if index == 0 { attributes[String(repeating: "k", count: AttributeKeys.maximumKeyBytes + 1)] = "long" }
            // Past the sample: never counted, however often.
            if index >= AttributeKeys.sampleSize { attributes["late"] = "1" }
            sample.append(CatalogEntry(id: "e\(index)", title: "T", categories: [], weight: 1, attributes: attributes))
        }
        let keys = AttributeKeys.choose(from: sample)
        XCTAssertEqual(keys.keys.count, AttributeKeys.maximumCount)
        // "price" (every entry), "Größe" (a third), then 125 of the 200 "bN" keys (each about 20
        // times): the most frequent first, ties in byte order.
        let counted = sample.prefix(AttributeKeys.sampleSize)
        var frequencies: [(key: String, count: Int)] = []
        for n in 0..<200 {
            let key = "b\(n)"
            frequencies.append((key, counted.filter { $0.attributes[key] != nil }.count))
        }
        frequencies.sort { a, b in a.count != b.count ? a.count > b.count : a.key.utf8.lexicographicallyPrecedes(b.key.utf8) }
        let expectedB: [String] = frequencies.prefix(AttributeKeys.maximumCount - 2).map { $0.key }
        let names: [String] = ["price", "Größe"] + expectedB
        let expected: [[UInt8]] = names.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        XCTAssertEqual(keys.keys, expected)
        XCTAssertNil(keys.number(of: "late"))
        XCTAssertNil(keys.number(of: String(repeating: "k", count: AttributeKeys.maximumKeyBytes + 1)))
        XCTAssertEqual(keys.number(of: "Größe").map { keys.keys[$0 - 1] }, Array("Größe".utf8))
        // Each framing is what protobuf writes between a map entry's length and its value's.
        let price = keys.number(of: "price")!
        XCTAssertEqual(keys.framing(price), [0x0A, 5] + Array("price".utf8) + [0x12])

        let decoded = try Bytes.withView(of: keys.encoded) { try AttributeKeys(decoding: $0) }
        XCTAssertEqual(decoded.keys, keys.keys)
        for bad: [UInt8] in [[2, 1, 0x62, 1, 0x61],          // out of order
                             [1, 1, 0x61, 0],                // trailing bytes
                             [1, 0],                         // an empty key
                             [0x80, 0x01]] {                 // 128 keys
            XCTAssertThrowsError(try Bytes.withView(of: bad) { try AttributeKeys(decoding: $0) }, "\(bad)")
        }
    }

    /// A catalog longer than the sample, whose later entries and upserts bring keys the table
    /// lacks: every entry comes back whole, in both layouts, and the numbered layout is smaller.
    func testEntriesComeBackWholeWithNumberedAndWrittenOutKeys() throws {
        var entries: [CatalogEntry] = []
        for index in 0..<(AttributeKeys.sampleSize + 200) {
            var attributes = ["country_code": index % 2 == 0 ? "SA" : "", "lat": "\(index).5"]
            if index >= AttributeKeys.sampleSize { attributes["elevation"] = "\(index)" }
            if index % 1000 == 7 { attributes[String(repeating: "k", count: 130)] = "long key" }
            entries.append(CatalogEntry(id: "e\(index)", title: "Place \(index)", categories: ["C\(index % 5)"], weight: UInt64(index),
                                        attributes: attributes))
        }
        // The same key composed and decomposed: equal as Swift strings, not as bytes.
        let composed = "Gr\u{F6}\u{DF}e", decomposed = "Gr\u{6F}\u{308}\u{DF}e"
        for index in 0..<300 { entries[index].attributes[index % 3 == 0 ? decomposed : composed] = "\(index)" }
        let upserts = [CatalogEntry(id: "e3", title: "Place three", categories: [], weight: 9,
                                    attributes: ["fresh": "new", "lat": "1", decomposed: "d"]),
                       CatalogEntry(id: "new", title: "New place", categories: ["C1"], weight: 5, attributes: ["lon": "2"])]
        var sizes: [Int] = []
        for format in [GenerationFormat.current, .beforeAttributeKeys] {
            let directory = TemporaryDirectory("typeahead-attribute-keys")
            let shard = try Shard(directory: directory.path)
            let info = try shard.buildGeneration(from: entries, parameters: IndexParameters(), number: nil, label: nil, format: format)
            try shard.activate(generation: info.number)
            let generation = try shard.current()
            XCTAssertEqual(generation.attributeKeys.keys, format.numbersAttributeKeys
                           ? [Array(decomposed.utf8), Array(composed.utf8), Array("country_code".utf8), Array("lat".utf8)] : [])
            _ = try shard.upsert(upserts)
            var expected = Dictionary(uniqueKeysWithValues: entries.map { ($0.id, $0) })
            for entry in upserts { expected[entry.id] = entry }
            for (id, entry) in expected {
                let stored = try XCTUnwrap(try shard.entry(id: id))
                XCTAssertEqual(stored, entry, "\(format.layout): \(id)")
                // `==` on the keys is canonical equivalence: compare their bytes too.
                XCTAssertEqual(stored.attributes.keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) },
                               entry.attributes.keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }, "\(id)")
            }
            sizes.append(try generation.environment.read { txn in
                var total = 0
                try txn.withCursor(generation.schema.docs) { cursor in
                    var next = try cursor.first()
                    while let (_, value) = next {
                        total += value.count
                        next = try cursor.next()
                    }
                }
                return total
            })
        }
        // Two numbered keys of 12 and 3 bytes save their bytes and framing in every record.
        XCTAssertLessThan(sizes[0], sizes[1] - 20 * entries.count, "\(sizes)")
    }
}
