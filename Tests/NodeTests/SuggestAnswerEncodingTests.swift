import Catalog
import Index
@testable import Node
import TestSupport
import Wire
import XCTest

/// The node writes its Suggest answers straight from the memory map (`SuggestAnswerEncoding`);
/// the bytes must be exactly those of the materialised response encoded by the generated code
/// (protobuf) and by `ResponseJSON` from the message (JSON), over random catalogs and keystrokes.
final class SuggestAnswerEncodingTests: XCTestCase {
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
            for request in requests {
                let session = rng.chance(0.3) ? "s-\(rng.int(0...9))" : ""
                let revision = UInt64(rng.int(0...3))
                let expected = Typeahead_V1_SuggestResponse(try shard.suggest(request), session: session, revision: revision, shards: shards)
                let proto = try shard.suggest(request) { answer in
                    try SuggestAnswerEncoding.encode(answer, format: .protobuf, session: session, revision: revision, shards: shards)
                }
                XCTAssertEqual(proto, expected.serializedBytes(), "protobuf for \(request)")
                let json = try shard.suggest(request) { answer in
                    try SuggestAnswerEncoding.encode(answer, format: .json, session: session, revision: revision, shards: shards)
                }
                XCTAssertEqual(String(decoding: json, as: UTF8.self), String(decoding: ResponseJSON.suggest(expected), as: UTF8.self),
                               "JSON for \(request)")
                checked += 1
            }
        }
        XCTAssertEqual(checked, 900)
    }
}
