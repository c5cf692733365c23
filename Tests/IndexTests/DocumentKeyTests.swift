// Generations keep documents under integer keys (`docs` is an MDB_INTEGERKEY database); those
// written before kept them under big-endian keys compared byte-wise. Both must answer exactly,
// through updates, since a node upgraded in place serves what the previous version built.

import Catalog
import Foundation
import Storage
import TestSupport
import XCTest
@testable import Index

final class DocumentKeyTests: XCTestCase {
    func testBothDocumentKeyEncodingsAnswerLikeTheReferenceThroughUpdates() throws {
        var rng = SeededGenerator(seed: 0xD0C5_4E75)
        var catalog = RandomCatalog(vocabularySize: 30, rng: &rng)
        let initial = catalog.randomEntries(300, &rng)
        let parameters = IndexParameters(listSize: 3, heavyThreshold: 4)
        var reference = ReferenceIndex(entries: initial)
        var shards: [(DocumentKey.Encoding, Shard, TemporaryDirectory)] = []
        for encoding in [DocumentKey.Encoding.native, .bigEndian] {
            let directory = TemporaryDirectory()
            let shard = try Shard(directory: directory.path)
            let info = try shard.buildGeneration(from: initial, parameters: parameters, number: nil, label: nil, documentKeys: encoding)
            try shard.activate(generation: info.number)
            XCTAssertEqual(try shard.current().schema.documentKeys, encoding, "the generation is read as it was written")
            shards.append((encoding, shard, directory))
        }
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
                        XCTFail("\(encoding) keys, batch \(batch): \(request.text)\n\(diff)")
                        return
                    }
                    checked += 1
                }
                for request in searches {
                    if let diff = searchDiff(shard: shard, reference: reference, request: request) {
                        XCTFail("\(encoding) keys, batch \(batch): search \(request.text)\n\(diff)")
                        return
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
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
