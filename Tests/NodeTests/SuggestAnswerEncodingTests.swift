import Catalog
import Index
import Observability
import RPC
@testable import Node
import TestSupport
import Wire
import WireConversions
import XCTest

/// The node writes its Suggest answers straight from the memory map (`SuggestAnswers`);
/// the bytes must be exactly those of the materialised response encoded by the generated code
/// (protobuf) and by `ResponseJSON` from the message (JSON), over random catalogs and keystrokes.
final class SuggestAnswersTests: XCTestCase {
    func testAnswersWrittenFromTheMapEqualTheMaterialisedResponse() throws {
        var checked = 0
        for seed in 0..<6 as Range<UInt64> {
            var rng = SeededGenerator(seed: 0xE7C0_DE00 + seed)
            var catalog = RandomCatalog(vocabularySize: 24, rng: &rng)
            let entries = catalog.randomEntries(rng.int(1...120), &rng)
            let directory = TemporaryDirectory("typeahead-answer-encoding")
            let shard = try Shard(directory: directory.path)
            try shard.build(from: entries, parameters: IndexParameters())
            let requests = Workload.suggestRequests(entries: entries, categories: catalog.categories,
                                                         vocabulary: catalog.vocabulary, count: 150, &rng)
            let shards = Typeahead_V1_ShardStatus.singleNode(generation: shard.currentGeneration)
            let cached = SuggestAnswers(cacheBytes: 4 << 20, registry: MetricsRegistry())
            let uncached = SuggestAnswers(cacheBytes: 0, registry: MetricsRegistry())
            for request in requests {
                let session = rng.chance(0.3) ? "s-\(rng.int(0...9))" : ""
                let revision = UInt64(rng.int(0...3))
                let expected = Typeahead_V1_SuggestResponse(try shard.suggest(request), session: session, revision: revision, shards: shards)
                let generation = shard.currentGeneration!
                let proto = SuggestAnswers.closing(try SuggestAnswers.opening(request, format: .protobuf, shard: shard, generation: generation,
                                                                              shouldStop: nil),
                                                   format: .protobuf, session: session, revision: revision, shards: shards)
                XCTAssertEqual(proto, expected.serializedBytes(), "protobuf for \(request)")
                let json = SuggestAnswers.closing(try SuggestAnswers.opening(request, format: .json, shard: shard, generation: generation,
                                                                             shouldStop: nil),
                                                  format: .json, session: session, revision: revision, shards: shards)
                XCTAssertEqual(String(decoding: json, as: UTF8.self), String(decoding: ResponseJSON.suggest(expected), as: UTF8.self),
                               "JSON for \(request)")
                // A shard's part of a cluster's answer, cached or not.
                let part = Typeahead_V1_ShardSuggestResponse(try shard.suggest(request, form: .shardPart), generation: UInt64(generation))
                for answers in [uncached, cached] {
                    let written = try answers.shardAnswer(Typeahead_V1_SuggestRequest(request), request, pinned: rng.chance(0.5) ? generation : nil,
                                                          shard: shard, shouldStop: { false })
                    XCTAssertEqual(written, part.serializedBytes(), "shard part for \(request)")
                }
                checked += 1
            }
        }
        XCTAssertEqual(checked, 900)
    }
}

/// The answer cache serves exactly what a fresh query answers: across repeats, sessions,
/// revisions and both formats, and after every write (upserts and deletes move the data version).
final class SuggestAnswerCacheTests: XCTestCase {
    func testCachedAnswersEqualFreshOnesAcrossWrites() throws {
        var rng = SeededGenerator(seed: 0xCAC4E)
        var catalog = RandomCatalog(vocabularySize: 20, rng: &rng)
        var entries = catalog.randomEntries(80, &rng)
        let directory = TemporaryDirectory("typeahead-answer-cache")
        let shard = try Shard(directory: directory.path)
        try shard.build(from: entries, parameters: IndexParameters())
        let registry = MetricsRegistry()
        let answers = SuggestAnswers(cacheBytes: 8 << 20, registry: registry)
        let uncached = SuggestAnswers(cacheBytes: 0, registry: MetricsRegistry())
        // A small pool of requests, asked again and again, so most asks are repeats.
        let pool = Workload.suggestRequests(entries: entries, categories: catalog.categories, vocabulary: catalog.vocabulary,
                                            count: 40, &rng)
        var writes = 0
        for round in 0..<600 {
            if round % 50 == 49 {
                let (upserts, deletes) = catalog.randomUpdateBatch(&rng, current: entries)
                if !upserts.isEmpty { _ = try shard.upsert(upserts) }
                if !deletes.isEmpty { _ = try shard.delete(ids: deletes) }
                var byID = Dictionary(entries.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
                for entry in upserts { byID[entry.id] = entry }
                for id in deletes { byID[id] = nil }
                entries = Array(byID.values)
                writes += 1
            }
            let request = rng.pick(pool)
            var message = Typeahead_V1_SuggestRequest(request)
            message.session = rng.chance(0.5) ? "session-\(rng.int(0...5))" : ""
            message.revision = UInt64(rng.int(0...9))
            let format: WireFormat = rng.chance(0.5) ? .protobuf : .json
            let cached = try answers.answer(message, request, format: format, shard: shard, shouldStop: { false })
            let fresh = try uncached.answer(message, request, format: format, shard: shard, shouldStop: { false })
            XCTAssertEqual(cached, fresh, "round \(round), \(format), \(request)")
        }
        XCTAssertGreaterThan(writes, 0)
        let exposition = registry.exposition()
        let hits = exposition.split(separator: "\n").first { $0.hasPrefix("typeahead_answer_cache_hits_total ") }
        let count = hits.flatMap { Double($0.split(separator: " ")[1]) } ?? 0
        // 50 asks per data version over 80 keys (40 requests, 2 formats): about a quarter repeat.
        XCTAssertGreaterThan(count, 100, "asks repeat earlier ones: \(exposition)")
        // A write retires what the versions before it kept: the cache holds at most the last
        // version's 80 keys, not the 12 versions' (up to 600 answers).
        func value(_ name: String) -> Double {
            exposition.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) } ?? -1
        }
        XCTAssertLessThanOrEqual(value("typeahead_answer_cache_entries"), 80, exposition)
        XCTAssertGreaterThan(value("typeahead_answer_cache_retired_total"), 100, exposition)
    }
}

/// A hit's fields 1–5 are kept in the index already encoded (`DocumentRecord` versions 2 and 3) and
/// copied into answers: they must be the bytes the generated encoder writes for the same fields,
/// including what random catalogs rarely hold (zero weights, no categories, attribute entries and
/// titles of 128 bytes and more, whose lengths take two varint bytes, empty attribute values), with
/// attribute keys numbered by the build's table and written out (a key past the table's length
/// limit; a key an upsert brings).
final class StoredHitFieldsTests: XCTestCase {
    func testStoredHitFieldsEqualTheGeneratedEncoding() throws {
        let long = String(repeating: "Größe ", count: 40)
        let entries = [
            CatalogEntry(id: "a", title: "Plain", categories: [], weight: 0),
            CatalogEntry(id: "b", title: "Plain " + long, categories: ["Books", "Ünïcode", "Books 2"], weight: 1 << 40,
                         attributes: ["price": "19.9", "long": long, "empty": "", "Größe": "42", "a": "1"]),
            CatalogEntry(id: String(repeating: "i", count: 200), title: "Plain 東京 👍", categories: ["x"], weight: 127,
                         aliases: ["Alias"], description: "described", attributes: [String(repeating: "k", count: 130): "v"]),
        ]
        let directory = TemporaryDirectory("typeahead-hit-fields")
        let shard = try Shard(directory: directory.path)
        try shard.build(from: entries, parameters: IndexParameters())
        _ = try shard.upsert([CatalogEntry(id: "u", title: "Plain upserted", categories: [], weight: 3,
                                           attributes: ["fresh key": String(repeating: "v", count: 200), "price": "2"])])
        let request = SuggestRequest(text: "plain", limits: SuggestLimits(entries: 10, categories: 0, completions: 0))
        let checked = try shard.suggest(request) { answer in
            for view in answer.hits {
                var written = ProtoWriter()
                try ResponseProto.writeEntry(StoredHit(view: view), field: 1, to: &written)
                let hit = try view.materialized()
                var expected = ProtoWriter()
                expected.writeMessage(1, Typeahead_V1_EntryHit(hit))
                XCTAssertEqual(written.bytes, expected.bytes, hit.id)
                XCTAssertTrue(try view.withEncodedFields { _ in }, "a new build keeps the fields encoded")
            }
            return answer.hits.count
        }
        XCTAssertEqual(checked, 4)
    }
}
