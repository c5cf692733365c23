import Catalog
import Foundation
@testable import Index
import Storage
import TestSupport
import XCTest

/// The delta's prefix lists (issue 12): the trie plan reads a non-empty delta's best typo-free
/// matches from them, best-first, and stops early. Every answer is compared with the brute-force
/// reference through batches that move documents up and down, add, delete (base and delta
/// documents) and replace delta documents again; and the trie plan must answer a good share of
/// them with a non-empty delta, so that the lists, not a fallback, are what is being tested.
final class DeltaListsTests: XCTestCase {
    static let limitSets = [SuggestLimits(entries: 10, categories: 3, completions: 5),
                            SuggestLimits(entries: 1, categories: 0, completions: 1),
                            SuggestLimits(entries: 3, categories: 0, completions: 8),
                            SuggestLimits(entries: 0, categories: 0, completions: 3),
                            SuggestLimits(entries: 6, categories: 1, completions: 0)]

    /// Every keystroke of some titles, and the one- to three-letter starts of the vocabulary.
    static func texts(_ reference: ReferenceIndex, _ catalog: RandomCatalog, _ rng: inout SeededGenerator) -> [String] {
        var texts = Set<String>()
        // In id order: the reference's entries are in no fixed order, and the test must repeat.
        let entries = reference.entries.sorted { bytesPrecede($0.id, $1.id) }
        for _ in 0..<8 {
            let title = rng.pick(entries).title
            for end in title.indices where end > title.startIndex { texts.insert(String(title[..<end])) }
        }
        for word in catalog.vocabulary {
            for length in 1...3 where length <= word.count { texts.insert(String(word.prefix(length))) }
        }
        return texts.sorted()
    }

    /// Re-weights (far up and far down, keeping or changing the title), replaces delta documents
    /// again, deletes base and delta documents, adds new ones.
    static func batch(_ reference: ReferenceIndex, _ catalog: inout RandomCatalog, upserted: Set<String>,
                      _ rng: inout SeededGenerator) -> (upserts: [CatalogEntry], deletes: [String]) {
        let current = reference.entries.sorted { bytesPrecede($0.id, $1.id) }
        var (upserts, deletes) = catalog.randomUpdateBatch(&rng, current: current)
        var touched = Set(upserts.map(\.id)).union(deletes)
        for _ in 0..<30 {
            var entry = rng.pick(current)
            // Delta documents again, half the time: their list values must go with them.
            if rng.chance(0.5), let id = upserted.filter({ !touched.contains($0) }).sorted().first(where: { _ in rng.chance(0.3) }),
               let again = current.first(where: { $0.id == id }) {
                entry = again
            }
            guard touched.insert(entry.id).inserted else { continue }
            if rng.chance(0.15) {
                deletes.append(entry.id)
                continue
            }
            entry.weight = rng.chance(0.5) ? UInt64(rng.int(0...3)) : rng.pick([42, 100, 1000, 5000, (1 << 53) - 1])
            if rng.chance(0.2) { entry.title = catalog.randomTitle(&rng, existing: current) }
            upserts.append(entry)
        }
        for _ in 0..<4 { upserts.append(catalog.randomEntry(&rng, existing: current)) }
        return (upserts, deletes)
    }

    /// A shard of `count` random entries and its reference, with the generator and catalog that
    /// made them (for the batches that follow); heavy trie nodes list `listSize` words.
    static func randomShard(seed: UInt64, vocabulary: Int, count: Int, listSize: Int) throws
        -> (rng: SeededGenerator, catalog: RandomCatalog, fixture: ExactnessTests.ShardFixture, reference: ReferenceIndex) {
        var rng = SeededGenerator(seed: seed)
        var catalog = RandomCatalog(vocabularySize: vocabulary, rng: &rng)
        let initial = catalog.randomEntries(count, &rng)
        let fixture = try ExactnessTests.ShardFixture(entries: initial, parameters: IndexParameters(listSize: listSize, heavyThreshold: 4))
        return (rng, catalog, fixture, ReferenceIndex(entries: initial))
    }

    func testTriePlanReadsTheDeltaListsExactly() throws {
        var viaTrieWithDelta = 0, comparedWithDelta = 0
        for seed in UInt64(1)...2 {
            var (rng, catalog, fixture, reference) = try Self.randomShard(seed: 0x1212_0000 + seed, vocabulary: 24, count: 500,
                                                                          listSize: seed == 2 ? 3 : 8)
            var upserted = Set<String>()
            for round in 0..<4 {
                let (upserts, deletes) = Self.batch(reference, &catalog, upserted: upserted, &rng)
                try GeneralPlanTests.update(fixture, &reference, upserting: upserts, deleting: deletes)
                upserted.formUnion(upserts.map(\.id))
                upserted.subtract(deletes)
                let generation = try fixture.shard.current()
                XCTAssertNotNil(try generation.environment.read { try generation.deltaLists(in: $0) }, "a build's lists are kept complete")
                for (n, text) in Self.texts(reference, catalog, &rng).enumerated() {
                    // Two of the limit sets a text, in turn (every set meets every kind of text).
                    for limits in [Self.limitSets[n % Self.limitSets.count], Self.limitSets[(n + 2) % Self.limitSets.count]] {
                        for typos in TypoMode.allCases {
                            let request = SuggestRequest(text: text, limits: limits, typos: typos)
                            if let diff = suggestDiff(shard: fixture.shard, reference: reference, request: request) {
                                XCTFail("seed \(seed), batch \(round): \"\(text)\" \(limits) \(typos)\n\(diff)")
                                return
                            }
                            comparedWithDelta += 1
                            if try fixture.shard.suggest(request, answer: { $0.plan }) == .trie { viaTrieWithDelta += 1 }
                        }
                    }
                }
            }
        }
        print("[delta lists] \(comparedWithDelta) answers compared with a non-empty delta, \(viaTrieWithDelta) proven by the trie plan")
        XCTAssertGreaterThan(viaTrieWithDelta, comparedWithDelta / 10, "the trie plan answers a good share with a delta")
    }

    /// Every prefix that ends at a scalar boundary, each once, whatever the words share.
    func testPrefixesOfWordsEndAtScalarsAndAreListedOnce() {
        let words = ["zürich", "zug", "zu", "zürich", "zé", "a"].map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        var prefixes: [String] = []
        DeltaLists.forEachPrefix(of: words) { prefixes.append(String(decoding: $0, as: UTF8.self)) }
        XCTAssertEqual(prefixes.sorted(), ["a", "z", "zu", "zug", "zé", "zü", "zür", "züri", "züric", "zürich"].sorted())
    }

    /// A prefix with fewer words than wanted and many documents ("python3" in Debian): the
    /// completions' walk stops once every delta word under it has been met, and not before: a
    /// rare word in the last, lightest document must still be found.
    func testCompletionsOfAPrefixWithFewWordsAndManyDocuments() throws {
        var entries = (0..<40).map { CatalogEntry(id: "b\($0)", title: "base \($0 % 7)", categories: [], weight: UInt64($0)) }
        entries += (0..<30).map { CatalogEntry(id: "z\($0)", title: "zqa \($0 % 5)", categories: [], weight: UInt64(100 + $0)) }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(listSize: 4, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: entries)
        // The whole family moves to the delta, and one rare word comes with the lightest of it.
        var updates = (2..<30).map { CatalogEntry(id: "z\($0)", title: "zqa \($0 % 5)", categories: [], weight: UInt64(200 + $0 * 3)) }
        updates += [CatalogEntry(id: "z0", title: "zqa zqb", categories: [], weight: 1),
                    CatalogEntry(id: "z1", title: "other", categories: [], weight: 0, aliases: ["zqc zqa"])]
        try GeneralPlanTests.update(fixture, &reference, upserting: updates, deleting: [])
        for text in ["z", "zq", "zqa", "zqb", "zqc"] {
            for completions in [1, 2, 3, 5] {
                for typos in TypoMode.allCases {
                    let request = SuggestRequest(text: text, limits: SuggestLimits(entries: 2, categories: 0, completions: completions), typos: typos)
                    XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "\"\(text)\" \(completions) \(typos)")
                }
            }
        }
        let request = SuggestRequest(text: "zq", limits: SuggestLimits(entries: 2, categories: 0, completions: 5), typos: .off)
        XCTAssertEqual(try fixture.shard.suggest(request, answer: { $0.plan }), .trie)
    }

    /// A prefix whose many delta documents share few words, one of them only in light documents
    /// far down the prefix's list: past ``SuggestContext/deltaDocumentsBeforeWords`` documents the
    /// completions are finished word by word. The words include one that is a prefix of another
    /// ("pyt" of "pyth…"), words whose heaviest documents have them only as an alias spelling a
    /// title word another way (not offered), ties of weight, words with many documents and with few, and
    /// deleted delta documents. Against the reference, typos on and off.
    func testCompletionsOfAPrefixWithFewWordsAreFinishedWordByWord() throws {
        var rng = SeededGenerator(seed: 20261210)
        let family = ["pythonic", "pytango", "pytest", "pyth", "pythia"]
        var entries = (0..<200).map { CatalogEntry(id: "b\($0)", title: "base \($0 % 7)", categories: [], weight: UInt64($0)) }
        entries += (0..<400).map { n in
            // "python3 …" everywhere, heavy; the family words in few, light documents.
            let rare = n % 40 == 0 ? " " + family[(n / 40) % family.count] : ""
            return CatalogEntry(id: "p\(n)", title: "python3 x\(n % 13)" + rare, categories: [],
                                weight: UInt64(rare.isEmpty ? 1_000 + n : 1 + n % 3))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(listSize: 4, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: entries)
        // The whole family moves to the delta, re-weighted, with ties; a variant-only word ("pythôn"
        // folds to "python", a title word's spelling), and a few delta documents deleted again.
        var updates = entries[200...].map { entry in
            var moved = entry
            moved.weight = entry.title.split(separator: " ").count > 2 ? UInt64(rng.int(1...4)) : UInt64(5_000 + rng.int(0...60) * 10)
            return moved
        }
        // Heavy documents that have a word only as an alias spelling their title's word another
        // way (not offered): the word's best is a lighter document. "pytangu" has few documents
        // (read whole), "pythia" many (its prefix list read best-first).
        updates.append(CatalogEntry(id: "v0", title: "pytango zz", categories: [], weight: 9_000_000, aliases: ["pytangu"]))
        updates.append(CatalogEntry(id: "v1", title: "pytangu", categories: [], weight: 3))
        updates.append(CatalogEntry(id: "v2", title: "pythiq", categories: [], weight: 8_000_000, aliases: ["pythia"]))
        updates += (0..<20).map { CatalogEntry(id: "w\($0)", title: "pythia k\($0)", categories: [], weight: UInt64(2 + $0 % 3)) }
        try GeneralPlanTests.update(fixture, &reference, upserting: updates, deleting: [])
        try GeneralPlanTests.update(fixture, &reference, upserting: [], deleting: ["p40", "p7", "p8"])
        let before = SuggestContext.deltaCompletionsByWord.load(ordering: .relaxed)
        var compared = 0
        for text in ["p", "py", "pyt", "pyth", "pytho", "pyta", "pyte", "pytan", "pythi"] {
            for completions in [1, 3, 5, 10] {
                for typos in TypoMode.allCases {
                    let request = SuggestRequest(text: text, limits: SuggestLimits(entries: 2, categories: 0, completions: completions), typos: typos)
                    XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "\"\(text)\" \(completions) \(typos)")
                    compared += 1
                }
            }
        }
        let byWord = SuggestContext.deltaCompletionsByWord.load(ordering: .relaxed) - before
        print("[delta lists] few words, many documents: \(compared) answers compared, \(byWord) finished word by word")
        XCTAssertGreaterThan(byWord, 10, "the prefixes are finished word by word, so that is what is tested")
    }

    /// Lists that are not complete are not read: a generation built before them, and one whose
    /// delta was written by a version that did not maintain them (its `next_document` moved past
    /// ``MetaKey/deltaListsThrough``). Both scan the delta and answer exactly; a merge gives
    /// complete (empty) lists again.
    func testIncompleteListsAreNotReadAndAMergeRestoresThem() throws {
        var rng = SeededGenerator(seed: 0x1212_00FF)
        var catalog = RandomCatalog(vocabularySize: 20, rng: &rng)
        let initial = catalog.randomEntries(300, &rng)
        let parameters = IndexParameters(listSize: 4, heavyThreshold: 4)
        let before = TemporaryDirectory()
        let old = try Shard(directory: before.path)
        try old.activate(generation: old.buildGeneration(from: initial, parameters: parameters, number: nil, label: nil,
                                                         format: .beforeDeltaLists).number)
        let fixture = try ExactnessTests.ShardFixture(entries: initial, parameters: parameters)
        var reference = ReferenceIndex(entries: initial)
        for round in 0..<3 {
            let (upserts, deletes) = Self.batch(reference, &catalog, upserted: [], &rng)
            for shard in [old, fixture.shard] {
                _ = try shard.upsert(upserts)
                _ = try shard.delete(ids: deletes)
            }
            reference.upsert(upserts)
            reference.delete(ids: deletes)
            if round == 0 {
                // As a batch by a version without the lists leaves them: behind `next_document`.
                let generation = try fixture.shard.current()
                try generation.environment.write { txn in try txn.put(generation.schema.meta, MetaKey.deltaListsThrough, UInt32(1)) }
            }
            for shard in [old, fixture.shard] {
                let generation = try shard.current()
                XCTAssertNil(try generation.environment.read { try generation.deltaLists(in: $0) })
                for text in Self.texts(reference, catalog, &rng) {
                    for typos in TypoMode.allCases {
                        let request = SuggestRequest(text: text, limits: Self.limitSets[round % Self.limitSets.count], typos: typos)
                        XCTAssertNil(suggestDiff(shard: shard, reference: reference, request: request), "round \(round): \"\(text)\" \(typos)")
                    }
                }
            }
        }
        XCTAssertNotNil(try fixture.shard.merge())
        let merged = try fixture.shard.current()
        XCTAssertNotNil(try merged.environment.read { try merged.deltaLists(in: $0) }, "a merge starts complete lists")
        let (upserts, deletes) = Self.batch(reference, &catalog, upserted: [], &rng)
        try GeneralPlanTests.update(fixture, &reference, upserting: upserts, deleting: deletes)
        XCTAssertNotNil(try merged.environment.read { try merged.deltaLists(in: $0) })
        for text in Self.texts(reference, catalog, &rng) {
            let request = SuggestRequest(text: text, limits: SuggestLimits(entries: 10, categories: 3, completions: 5), typos: .auto)
            XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "after the merge: \"\(text)\"")
        }
    }
}
