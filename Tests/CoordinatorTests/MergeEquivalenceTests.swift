// A cluster's answer must equal a single node's answer over the same catalog.
//
// Each test indexes one catalog once as a single shard and once split into 2, 3 and 5 shards by
// `ShardAssignment`, then compares thousands of keystroke-workload queries: the single shard's
// presented answer against the merge (`SuggestMerge`, `SearchMerge`) of the shards' `shardPart`
// answers, presented with `Presenter` — after a round trip through the Shard API's wire messages,
// exactly the path a coordinator takes. Every field is compared, rank keys included; search is
// paged to the end and page tokens must be byte-identical.
//
// Environment: TYPEAHEAD_SEED=<n> (base seed), TYPEAHEAD_THOROUGH=1 (about 8× more work).

import Analysis
import Catalog
import Cluster
import Coordinator
import Foundation
import Index
import TestSupport
import Wire
import WireConversions
import XCTest

final class MergeEquivalenceTests: XCTestCase {
    static let environment = ProcessInfo.processInfo.environment
    static let thorough = environment["TYPEAHEAD_THOROUGH"] == "1"
    static var baseSeed: UInt64 {
        guard let text = environment["TYPEAHEAD_SEED"] else { return 0xC0_0D1E }
        if text.hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) ?? 0 }
        return UInt64(text) ?? 0
    }
    static func scaled(_ n: Int) -> Int { thorough ? n * 8 : n }
    static let shardCounts = [2, 3, 5]

    // MARK: Fixture

    /// One catalog as a single shard and as every sharding in `shardCounts`.
    final class Layouts {
        let directory = TemporaryDirectory("typeahead-merge")
        let single: Shard
        /// shard count → the shards, indexed by `ShardAssignment`.
        let sharded: [Int: [Shard]]

        init(entries: [CatalogEntry], parameters: IndexParameters) throws {
            let root = directory.path
            single = try Shard(directory: root + "/single")
            try single.build(from: entries, parameters: parameters)
            var sharded: [Int: [Shard]] = [:]
            for count in MergeEquivalenceTests.shardCounts {
                var parts = [[CatalogEntry]](repeating: [], count: count)
                for entry in entries { parts[ShardAssignment.shard(of: entry.id, shardCount: count)].append(entry) }
                sharded[count] = try parts.enumerated().map { index, part in
                    let shard = try Shard(directory: root + "/\(count)-\(index)")
                    try shard.build(from: part, parameters: parameters)
                    return shard
                }
            }
            self.sharded = sharded
        }

        /// Upserts and deletes applied to the single shard and, routed by id, to every sharding.
        func apply(upserts: [CatalogEntry], deletes: [String]) throws {
            if !upserts.isEmpty { _ = try single.upsert(upserts) }
            if !deletes.isEmpty { _ = try single.delete(ids: deletes) }
            for (count, shards) in sharded {
                for (index, shard) in shards.enumerated() {
                    let mine = upserts.filter { ShardAssignment.shard(of: $0.id, shardCount: count) == index }
                    let gone = deletes.filter { ShardAssignment.shard(of: $0, shardCount: count) == index }
                    if !mine.isEmpty { _ = try shard.upsert(mine) }
                    if !gone.isEmpty { _ = try shard.delete(ids: gone) }
                }
            }
        }
    }

    // MARK: The coordinator's path, in process

    /// A shard part as the coordinator receives it: encoded by the node, decoded by the coordinator.
    static func overTheWire(_ part: SuggestResponse) throws -> SuggestResponse {
        let bytes = Typeahead_V1_ShardSuggestResponse(part, generation: 1).serializedBytes()
        let message = try bytes.withUnsafeBytes { try Typeahead_V1_ShardSuggestResponse(serializedBuffer: $0) }
        return try SuggestResponse(message)
    }

    static func overTheWire(_ part: SearchResponse) throws -> SearchResponse {
        let bytes = Typeahead_V1_ShardSearchResponse(part, generation: 1).serializedBytes()
        let message = try bytes.withUnsafeBytes { try Typeahead_V1_ShardSearchResponse(serializedBuffer: $0) }
        return try SearchResponse(message)
    }

    static func mergedSuggest(_ request: SuggestRequest, _ shards: [Shard]) throws -> SuggestResponse {
        var merge = SuggestMerge<EntryHit, QueryCompletion, CategorySuggestion>(request: request)
        for shard in shards { merge.add(try overTheWire(try shard.suggest(request, form: .shardPart))) }
        var response = merge.result()
        var presenter = Presenter(text: request.text, typos: request.typos)
        presenter.present(&response)
        return response
    }

    static func mergedSearch(_ request: SearchRequest, _ shards: [Shard]) throws -> SearchResponse {
        var merge = SearchMerge<EntryHit>(request: request)
        for shard in shards { merge.add(try overTheWire(try shard.search(request, form: .shardPart))) }
        var response = try merge.result()
        var presenter = Presenter(text: request.text, typos: request.typos)
        presenter.present(&response)
        return response
    }

    // MARK: Comparison

    /// Counts compared answers and mismatches; reports the first few in full.
    final class Tally {
        let name: String
        var compared = 0
        var mismatches: [String] = []
        var coverage: [String: Int] = [:]
        init(_ name: String) { self.name = name }

        func check(_ diff: String?, _ context: @autoclosure () -> String) {
            compared += 1
            if let diff {
                mismatches.append(context() + "\n" + diff)
            }
        }

        func note(_ what: String, _ condition: Bool) {
            if condition { coverage[what, default: 0] += 1 }
        }

        func finish(file: StaticString = #filePath, line: UInt = #line) {
            let summary = coverage.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("\(name): \(compared) answers compared, \(mismatches.count) mismatches (\(summary))")
            if !mismatches.isEmpty {
                XCTFail("\(name): \(mismatches.count) of \(compared) merged answers differ from the single node's; first:\n"
                        + mismatches.prefix(3).joined(separator: "\n---\n"), file: file, line: line)
            }
        }
    }

    func compareSuggest(_ request: SuggestRequest, _ layouts: Layouts, _ tally: Tally, _ context: String) {
        let expected: SuggestResponse
        do { expected = try layouts.single.suggest(request) } catch {
            tally.check("single shard threw \(error)", context)
            return
        }
        tally.note("entries", !expected.entries.isEmpty)
        tally.note("typo entries", expected.entries.contains { $0.rank.typos > 0 })
        tally.note("completions", !expected.completions.isEmpty)
        tally.note("categories", !expected.categories.isEmpty)
        tally.note("cut entries", expected.entries.count == request.limits.entries && request.limits.entries > 0)
        for count in Self.shardCounts {
            let label = "\(context), \(count) shards\n\(Render.request(request))"
            do {
                let got = try Self.mergedSuggest(request, layouts.sharded[count]!)
                var diff = suggestDiff(expected: expected, got: got)
                if diff == nil, Typeahead_V1_SuggestResponse(expected).serializedBytes() != Typeahead_V1_SuggestResponse(got).serializedBytes() {
                    diff = "the client messages differ although every field compares equal"
                }
                tally.check(diff, label)
            } catch {
                tally.check("merge threw \(error)", label)
            }
        }
    }

    /// Pages through the single shard and every sharding side by side.
    func compareSearch(_ request: SearchRequest, _ layouts: Layouts, _ tally: Tally, _ context: String) {
        for count in Self.shardCounts {
            let label = "\(context), \(count) shards\n\(Render.request(request))"
            var problems: [String] = []
            var token: String?
            var page = 0
            repeat {
                page += 1
                var paged = request
                paged.pageToken = token
                do {
                    let expected = try layouts.single.search(paged)
                    let got = try Self.mergedSearch(paged, layouts.sharded[count]!)
                    if let d = sectionDiff("page \(page) hits", expected: expected.hits.map(Render.hit), got: got.hits.map(Render.hit)) {
                        problems.append(d)
                    }
                    if expected.totalHits != got.totalHits {
                        problems.append("page \(page): totalHits \(got.totalHits), expected \(expected.totalHits)")
                    }
                    if let d = sectionDiff("page \(page) facets", expected: expected.facets.map(Render.facet), got: got.facets.map(Render.facet)) {
                        problems.append(d)
                    }
                    if expected.nextPageToken != got.nextPageToken {
                        problems.append("page \(page): nextPageToken \(got.nextPageToken ?? "nil"), expected \(expected.nextPageToken ?? "nil")")
                    }
                    tally.note("search pages", true)
                    tally.note("search pages after the first", page > 1)
                    token = expected.nextPageToken
                } catch {
                    problems.append("page \(page) threw \(error)")
                    token = nil
                }
            } while token != nil && problems.isEmpty && page < 25
            tally.check(problems.isEmpty ? nil : problems.joined(separator: "\n"), label)
        }
    }

    // MARK: Random catalogs

    struct Configuration {
        var size: Int
        var vocabulary: Int
        var parameters: IndexParameters
    }

    static let configurations = [
        Configuration(size: 60, vocabulary: 20, parameters: IndexParameters(listSize: 2, heavyThreshold: 2)),
        Configuration(size: 300, vocabulary: 30, parameters: IndexParameters(listSize: 3, heavyThreshold: 4)),
        Configuration(size: 400, vocabulary: 40, parameters: IndexParameters()),
        Configuration(size: 250, vocabulary: 25, parameters: IndexParameters(listSize: 32, heavyThreshold: 2)),
    ]

    /// Ties and duplicates across shards: RandomCatalog repeats titles under other ids, ties
    /// weights, spells words in NFC and NFD, and mixes scripts.
    func testSuggestAndSearchOnRandomCatalogs() throws {
        let tally = Tally("random catalogs")
        for (index, configuration) in Self.configurations.enumerated() {
            let seed = Self.baseSeed &+ UInt64(index)
            var rng = SeededGenerator(seed: seed)
            var generator = RandomCatalog(vocabularySize: configuration.vocabulary, rng: &rng)
            let entries = generator.randomEntries(configuration.size, &rng)
            let layouts = try Layouts(entries: entries, parameters: configuration.parameters)
            let context = "seed \(seed), \(configuration.size) entries, \(configuration.parameters)"
            let suggests = Workload.suggestRequests(entries: entries, categories: generator.categories, vocabulary: generator.vocabulary,
                                                    count: Self.scaled(500), &rng)
            for request in suggests { compareSuggest(request, layouts, tally, context) }
            for request in Workload.searchRequests(from: Array(suggests.shuffled(using: &rng).prefix(Self.scaled(80))), &rng) {
                compareSearch(request, layouts, tally, context)
            }
        }
        tally.finish()
    }

    /// One random batch of upserts and deletes applied to every layout (`recolour`: most upserts
    /// get a random `color`), then some shards merge. Shards fold their deltas in at different
    /// times (each node by its own policy): the cluster's answer must not depend on which shards
    /// have merged. Returns the entries now.
    static func applyRandomBatch(_ layouts: Layouts, _ generator: inout RandomCatalog, _ entries: [CatalogEntry], recolour: Bool,
                                 _ rng: inout SeededGenerator) throws -> [CatalogEntry] {
        var (upserts, deletes) = generator.randomUpdateBatch(&rng, current: entries)
        if recolour {
            for index in upserts.indices where rng.chance(0.6) { upserts[index].attributes["color"] = generator.randomWord(&rng) }
        }
        try layouts.apply(upserts: upserts, deletes: deletes)
        for shard in [layouts.single] + layouts.sharded.values.flatMap({ $0 }) where rng.chance(0.3) { try shard.merge() }
        var byID = Dictionary(entries.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        for entry in upserts { byID[entry.id] = entry }
        for id in deletes { byID[id] = nil }
        return Array(byID.values)
    }

    /// Upserts and deletes routed to their shard keep every sharding equal to the single shard.
    func testUpdatesKeepShardingsEquivalent() throws {
        let tally = Tally("updates")
        let seed = Self.baseSeed &+ 100
        var rng = SeededGenerator(seed: seed)
        var generator = RandomCatalog(vocabularySize: 30, rng: &rng)
        var entries = generator.randomEntries(200, &rng)
        let layouts = try Layouts(entries: entries, parameters: IndexParameters(listSize: 3, heavyThreshold: 4))
        for batch in 0..<Self.scaled(12) {
            entries = try Self.applyRandomBatch(layouts, &generator, entries, recolour: false, &rng)
            let context = "seed \(seed), after batch \(batch + 1)"
            let suggests = Workload.suggestRequests(entries: entries, categories: generator.categories, vocabulary: generator.vocabulary,
                                                    count: 60, &rng)
            for request in suggests { compareSuggest(request, layouts, tally, context) }
            for request in Workload.searchRequests(from: Array(suggests.prefix(8)), &rng) {
                compareSearch(request, layouts, tally, context)
            }
        }
        tally.finish()
    }

    /// Attribute tokens and chips (`color`, `price` declared filterable): every sharding equals
    /// the single shard, through updates and merges at different times per shard.
    func testAttributeTokensKeepShardingsEquivalent() throws {
        let tally = Tally("attribute tokens")
        let seed = Self.baseSeed &+ 200
        var rng = SeededGenerator(seed: seed)
        var generator = RandomCatalog(vocabularySize: 25, rng: &rng)
        var entries = generator.randomEntries(250, &rng)
        for index in entries.indices where rng.chance(0.5) { entries[index].attributes["color"] = generator.randomWord(&rng) }
        let kinds = ["color", "price"]
        let layouts = try Layouts(entries: entries, parameters: IndexParameters(listSize: 3, heavyThreshold: 4, filterableAttributes: kinds))
        for batch in 0..<Self.scaled(4) {
            if batch > 0 { entries = try Self.applyRandomBatch(layouts, &generator, entries, recolour: true, &rng) }
            let context = "seed \(seed), attribute tokens, batch \(batch)"
            let suggests = Workload.withAttributeTokens(Workload.suggestRequests(entries: entries, categories: generator.categories,
                                                                                 vocabulary: generator.vocabulary, count: 120, &rng),
                                                        entries: entries, kinds: kinds, &rng)
            for request in suggests { compareSuggest(request, layouts, tally, context) }
            for request in Workload.searchRequests(from: Array(suggests.prefix(20)), &rng) { compareSearch(request, layouts, tally, context) }
        }
        tally.finish()
    }

    // MARK: Real and synthetic catalogs

    func runSample(_ name: String, entries: [CatalogEntry], suggests: Int, searches: Int, seed: UInt64) throws {
        var categories: [String] = []
        for entry in entries {
            for category in entry.categories where !categories.contains(category) { categories.append(category) }
        }
        let tally = Tally(name)
        var rng = SeededGenerator(seed: seed)
        let layouts = try Layouts(entries: entries, parameters: IndexParameters())
        let context = "seed \(seed), \(name) (\(entries.count) entries)"
        let requests = Workload.suggestRequests(entries: entries, categories: categories, vocabulary: [], count: Self.scaled(suggests), &rng)
        for request in requests { compareSuggest(request, layouts, tally, context) }
        for request in Workload.searchRequests(from: Array(requests.shuffled(using: &rng).prefix(Self.scaled(searches))),
                                               pageSizes: 10...50, &rng) {
            compareSearch(request, layouts, tally, context)
        }
        tally.finish()
    }

    /// Debian packages: hyphenated names, 58 sections, two fifths of the weights 0.
    func testRealDebianSample() throws {
        let path = SharedData.path("debian.jsonl.gz")
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("no real catalog at \(path)") }
        try runSample("debian sample", entries: try SharedData.sample(path: path, count: 3000), suggests: 500, searches: 40,
                      seed: Self.baseSeed &+ 200)
    }

    /// Cities: aliases in many scripts, many towns of one name, ~250 countries as categories.
    func testRealCitiesSample() throws {
        let path = SharedData.path("cities.jsonl.gz")
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("no real catalog at \(path)") }
        try runSample("cities sample", entries: try SharedData.sample(path: path, count: 2000), suggests: 400, searches: 30,
                      seed: Self.baseSeed &+ 201)
    }

    func testSyntheticCatalog() throws {
        let entries = SyntheticCatalog.randomEntries(seed: Self.baseSeed &+ 300, count: 3000, vocabularySize: 60)
        try runSample("synthetic", entries: entries, suggests: 400, searches: 30, seed: Self.baseSeed &+ 301)
    }

    /// Titles and categories that are canonically equivalent (`String` says equal) but differ in
    /// bytes, precomposed "é" against "e" + U+0301: a node dedupes and groups by bytes, so the
    /// merge must not fold them (nor split what is byte-equal).
    func testCanonicallyEquivalentSpellingsStayApart() throws {
        let composed = "Caf\u{E9}", decomposed = "Cafe\u{301}"
        XCTAssertEqual(composed, decomposed, "String compares canonically")
        let entries = (0..<60).map { i in
            let spelling = i % 2 == 0 ? composed : decomposed
            return CatalogEntry(id: "c\(i)", title: "\(spelling) \(["Noir", "Blanc", "Rouge"][i % 3])",
                                categories: ["\(spelling)s", "Drinks"], weight: UInt64(i % 7))
        }
        try runSample("canonically equivalent spellings", entries: entries, suggests: 120, searches: 10, seed: Self.baseSeed &+ 400)
    }

    // MARK: The category limit of shard parts

    /// A shard lists at most `maximumShardCategories` chips and says when it had more; under the
    /// limit it lists every matching chip whatever `limits.categories` says.
    func testShardPartsListEveryCategoryUpToTheLimit() throws {
        let directory = TemporaryDirectory("typeahead-merge-categories")
        let shard = try Shard(directory: directory.path)
        let count = SuggestResponse.maximumShardCategories + 5
        try shard.build(from: (0..<count).map { CatalogEntry(id: "e\($0)", title: "Thing \($0)", categories: ["Cat \($0)"]) })
        var request = SuggestRequest(text: "ca")
        request.limits.categories = 3
        let part = try shard.suggest(request, form: .shardPart)
        XCTAssertEqual(part.categories.count, SuggestResponse.maximumShardCategories)
        XCTAssertTrue(part.categoriesTruncated)
        XCTAssertTrue(part.categories.allSatisfy { $0.replacementText.isEmpty })
        let presented = try shard.suggest(request)
        XCTAssertEqual(presented.categories.count, 3)
        XCTAssertFalse(presented.categoriesTruncated)

        // "10" matches the names "Cat 10", "Cat 100"…"Cat 109" and "Cat 1000"…"Cat 1004": 16 chips,
        // all of them in the shard part, 3 in the presented answer.
        request.text = "10"
        let fewer = try shard.suggest(request, form: .shardPart)
        XCTAssertFalse(fewer.categoriesTruncated)
        XCTAssertEqual(fewer.categories.count, 16)
        XCTAssertEqual(try shard.suggest(request).categories.map(\.name), Array(fewer.categories.prefix(3).map(\.name)))
    }
}
