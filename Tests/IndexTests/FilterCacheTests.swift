import Analysis
import Catalog
@testable import Index
import TestSupport
import XCTest

/// What is kept per read snapshot — the filtered documents of complete words and tokens
/// (``FilterCache``), a partial word's typo-tolerant walk of the category words — must never
/// outlive a write: the same query asked before and after every kind of write still agrees with
/// the brute-force reference, and a repeated query is served from the cache.
final class FilterCacheTests: XCTestCase {
    func testWritesNeverServeAnOlderSnapshotsDocuments() throws {
        var entries: [CatalogEntry] = []
        for n in 0..<40 {
            entries.append(CatalogEntry(id: "r\(n)", title: "red apple \(["box", "bag", "bar", "tree"][n % 4]) \(n)",
                                        categories: [n % 2 == 0 ? "Fruit" : "Garden"], weight: UInt64(10 + n)))
        }
        for n in 0..<20 { entries.append(CatalogEntry(id: "g\(n)", title: "green apple \(n)", weight: UInt64(n))) }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let suggests = ["red apple ba", "red apple b", "red aple ba", "red apple banana ", "apple", "red apple "].map {
            SuggestRequest(text: $0, limits: .init(entries: 3, categories: 2, completions: 3))
        } + [SuggestRequest(text: "apple b", tokens: [.category("Fruit")], limits: .init(entries: 3, categories: 2, completions: 3))]
        let searches = [SearchRequest(text: "red apple", pageSize: 5), SearchRequest(text: "red apple banana", pageSize: 5)]

        func checkAll(_ phase: String) {
            for request in suggests {
                // Twice: the second is a cache hit.
                for round in 0..<2 {
                    XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                                 "\(phase), round \(round): \"\(request.text)\"")
                }
            }
            for request in searches {
                XCTAssertNil(searchDiff(shard: fixture.shard, reference: reference, request: request), "\(phase): \"\(request.text)\"")
            }
        }
        checkAll("built")
        let generation = try fixture.shard.current()
        XCTAssertGreaterThan(generation.filtered.statistics().hits, 0, "repeated multi-word queries are served from the cache")

        let banana = CatalogEntry(id: "new", title: "red apple banana", categories: ["Fruit"], weight: 1_000)
        _ = try fixture.shard.upsert([banana])
        reference.upsert([banana])
        checkAll("after an upsert")

        _ = try fixture.shard.delete(ids: ["r0", "r1", "r2", "new"])
        reference.delete(ids: ["r0", "r1", "r2", "new"])
        checkAll("after deletes")

        let moved = CatalogEntry(id: "r3", title: "red apple bark", categories: ["Fruit"], weight: 500)
        _ = try fixture.shard.upsert([moved])
        reference.upsert([moved])
        checkAll("after an upsert that changes a title and a category")
    }

    func testCategoriesAddedByAnUpsertAreSuggestedAtOnce() throws {
        var entries: [CatalogEntry] = []
        for n in 0..<30 { entries.append(CatalogEntry(id: "p\(n)", title: "garden hose \(n)", categories: ["Patio"], weight: UInt64(n))) }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        // Typo-tolerant partial words (five letters and more), so the category walk is kept.
        let requests = ["gardn", "patoi", "orchad", "garden orchad"].map { SuggestRequest(text: $0, limits: .init(entries: 2, categories: 5, completions: 2)) }
        func checkAll(_ phase: String) {
            for request in requests {
                for round in 0..<2 {
                    XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                                 "\(phase), round \(round): \"\(request.text)\"")
                }
            }
        }
        checkAll("built")
        XCTAssertGreaterThan(try fixture.shard.current().categoryMatches.statistics().hits, 0)
        let added = [CatalogEntry(id: "o1", title: "garden orchard ladder", categories: ["Orchard Supplies"], weight: 99),
                     CatalogEntry(id: "o2", title: "garden gnome", categories: ["Garden Decor"], weight: 98)]
        _ = try fixture.shard.upsert(added)
        reference.upsert(added)
        checkAll("after an upsert with new categories")
        _ = try fixture.shard.delete(ids: ["o1", "o2"])
        reference.delete(ids: ["o1", "o2"])
        checkAll("after deleting them")
    }

    /// The cache keeps a word in half the base, whatever the base's size: at ten million
    /// documents, "camakee"'s 2.5 million were decoded again on every keystroke after it (10 ms)
    /// when a stripe held 4 MiB. A list of more than half the base is not kept.
    /// A chip count's key hashes its filter once (the caller's `filterHash`), but is equal to
    /// another only with the same filter and the same chip: a count is never served for another
    /// chip or another filter, even one whose hash the caller got wrong.
    func testAChipCountsKeyIsItsFilterAndItsChip() {
        let red = FilterCache.Key(snapshot: 7, words: [QueryWord("red", isPartial: false, typos: .auto)], tokens: [], includeDescription: false)
        let blue = FilterCache.Key(snapshot: 7, words: [QueryWord("blue", isPartial: false, typos: .auto)], tokens: [], includeDescription: false)
        let fruit = Schema.tokenTerm(.category("Fruit")), garden = Schema.tokenTerm(.category("Garden"))
        let key = FilterCache.CategoryCountKey(filter: red, filterHash: red.hashValue, category: fruit)
        XCTAssertEqual(key, FilterCache.CategoryCountKey(filter: red, filterHash: red.hashValue, category: fruit))
        XCTAssertEqual(key.hashValue, FilterCache.CategoryCountKey(filter: red, filterHash: red.hashValue, category: fruit).hashValue)
        XCTAssertNotEqual(key, FilterCache.CategoryCountKey(filter: red, filterHash: red.hashValue, category: garden))
        XCTAssertNotEqual(key, FilterCache.CategoryCountKey(filter: blue, filterHash: blue.hashValue, category: fruit))
        XCTAssertNotEqual(key, FilterCache.CategoryCountKey(filter: blue, filterHash: red.hashValue, category: fruit))
        var counts: [FilterCache.CategoryCountKey: Int] = [key: 3]
        counts[FilterCache.CategoryCountKey(filter: red, filterHash: red.hashValue, category: garden)] = 5
        XCTAssertEqual(counts[FilterCache.CategoryCountKey(filter: red, filterHash: red.hashValue, category: fruit)], 3)
        XCTAssertNil(counts[FilterCache.CategoryCountKey(filter: blue, filterHash: red.hashValue, category: fruit)])
    }

    func testAListOfHalfTheBaseIsKeptAtEverySize() {
        for documents in [1_000, 1_000_000, 10_000_000] {
            let cache = FilterCache.make(documents: documents)
            let key = FilterCache.Key(snapshot: 7, words: [QueryWord("camakee", isPartial: false, typos: .off)], tokens: [],
                                      includeDescription: false)
            for (count, kept) in [(documents / 2, true), (max(documents, 2_000_000) + 1, false)] {
                var computed = 0
                for _ in 0..<2 {
                    let value = cache.value(key) {
                        computed += 1
                        return FilterCache.Value(docs: Array(0..<UInt32(count)), nearest: [0])
                    }
                    XCTAssertEqual(value.docs?.count, count)
                }
                XCTAssertEqual(computed, kept ? 1 : 2, "\(documents) documents, a list of \(count)")
                cache.removeAll()
            }
        }
    }

    /// Each filter of a query with several is kept on its own, so a new pair of complete words
    /// that shares a common one reads only the other's postings; and the pair's list, an
    /// intersection of kept lists, agrees with the reference across writes (the test above).
    func testEachFilterOfSeveralIsKeptOnItsOwn() throws {
        var entries: [CatalogEntry] = []
        for n in 0..<30 {
            entries.append(CatalogEntry(id: "e\(n)", title: "\(["red", "green", "blue"][n % 3]) apple \(["box", "tree"][n % 2])",
                                        categories: [n % 2 == 0 ? "Fruit" : "Garden"], weight: UInt64(n)))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        let reference = ReferenceIndex(entries: entries)
        let generation = try fixture.shard.current()
        let request = SuggestRequest(text: "red apple t", tokens: [.category("Fruit")], limits: .init(entries: 3, categories: 2, completions: 3),
                                     typos: .off)
        XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request))
        let snapshot = try generation.environment.read { txn in txn.snapshotID }
        let words = try PreparedQuery(text: "red apple t", tokens: [], typos: .off, analyzer: Analyzer()).complete
        XCTAssertEqual(words.map { $0.text }, ["red", "apple"])
        func kept(_ words: [QueryWord], _ tokens: [SearchToken]) -> [UInt32]? {
            generation.filtered.cached(FilterCache.Key(snapshot: snapshot, words: words, tokens: tokens, includeDescription: false))?.docs
        }
        let red = try XCTUnwrap(kept([words[0]], [])), apple = try XCTUnwrap(kept([words[1]], []))
        let fruit = try XCTUnwrap(kept([], [.category("Fruit")]))
        XCTAssertEqual(red.count, 10)
        XCTAssertEqual(apple.count, 30)
        XCTAssertEqual(fruit.count, 15)
        XCTAssertEqual(kept(words, [.category("Fruit")]), intersect(intersect(red, apple), fruit))
        // A new pair with a kept word: the other word's list is the only one computed (typos off:
        // no typo-free variant of the words is asked for besides).
        let misses = generation.filtered.statistics().misses
        XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference,
                                 request: SuggestRequest(text: "green apple b", limits: .init(entries: 3, categories: 0, completions: 3),
                                                         typos: .off)))
        XCTAssertEqual(generation.filtered.statistics().misses - misses, 2, "the pair and \"green\"; \"apple\" was kept")
        // A word typed twice filters once, and the answer is the reference's (words match
        // independently: one title word can be both).
        for text in ["apple apple t", "red red apple ", "apple red apple b"] {
            XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference,
                                     request: SuggestRequest(text: text, limits: .init(entries: 3, categories: 2, completions: 3))), text)
        }
    }

    /// Two long lists, the longer dense: intersected through the longer one's bitmap (kept per
    /// snapshot beside the lists), with the reference's answers, before and after an upsert and a
    /// delete (a new snapshot keys a new bitmap).
    func testALongDenseFilterIsIntersectedThroughItsBitmap() throws {
        var rng = SeededGenerator(seed: 20261208)
        var entries: [CatalogEntry] = []
        for n in 0..<6_000 {
            var words = ["w\(n % 97)"]
            if rng.chance(0.8) { words.append("common") }
            if rng.chance(0.25) { words.append("rare") }
            if rng.chance(0.1) { words.append("rarer") }
            words.shuffle(using: &rng)
            entries.append(CatalogEntry(id: "e\(n)", title: words.joined(separator: " "), categories: [n % 3 == 0 ? "A" : "B"],
                                        weight: UInt64(rng.next() % 1000)))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let texts = ["rare common ", "common rare ", "rarer common w1", "common rare rarer ", "rare common w", "common rarer "]
        func check(_ label: String) throws {
            for text in texts {
                for typos in [TypoMode.off, .auto] {
                    XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference,
                                             request: SuggestRequest(text: text, limits: .init(entries: 10, categories: 3, completions: 5),
                                                                     typos: typos)), "\(label): \(text) \(typos)")
                }
            }
            let generation = try fixture.shard.current()
            let snapshot = try generation.environment.read { txn in txn.snapshotID }
            let common = try PreparedQuery(text: "common ", tokens: [], typos: .off, analyzer: Analyzer()).complete
            let key = FilterCache.Key(snapshot: snapshot, words: common, tokens: [], includeDescription: false)
            XCTAssertNotNil(generation.filteredBitmaps.cached(key), "\(label): the dense word's bitmap is kept")
        }
        try check("fresh")
        let changed = (0..<300).map { n in
            CatalogEntry(id: "e\(n * 7)", title: n % 2 == 0 ? "common rare new\(n)" : "rare w\(n)", categories: ["B"], weight: UInt64(2000 + n))
        }
        _ = try fixture.shard.upsert(changed)
        _ = try fixture.shard.delete(ids: (0..<100).map { "e\($0 * 11 + 1)" })
        reference.upsert(changed)
        reference.delete(ids: (0..<100).map { "e\($0 * 11 + 1)" })
        try check("updated")
    }
}
