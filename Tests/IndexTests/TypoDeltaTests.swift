import Catalog
import Glibc
@testable import Index
import Synchronization
import TestSupport
import XCTest

/// A lone partial word's delta matches with typos are read from the delta's prefix lists
/// best-first (SuggestContext+TypoDelta.swift), from the walk of the delta's own trie
/// (``DeltaTrie``). Every answer is compared with the brute-force reference, for misspelt and
/// correct partial words over a delta that holds a large share of the entries, through several
/// batches (each a new snapshot, so a new trie); the lists must stop early often, or the test
/// would not be testing their stopping rules.
final class TypoDeltaTests: XCTestCase {
    /// Prefixes (4 scalars and longer) of the vocabulary's words, each also with one substitution,
    /// one deletion and one transposition.
    static func texts(_ catalog: RandomCatalog, _ rng: inout SeededGenerator) -> [String] {
        var texts = Set<String>()
        for word in catalog.vocabulary {
            let scalars = Array(word.lowercased().unicodeScalars)
            guard scalars.count >= 4 else { continue }
            var spellings = [scalars]
            let at = rng.int(1...(scalars.count - 2))
            var substituted = scalars
            substituted[at] = rng.pick(Array("aeiouxz".unicodeScalars))
            var transposed = scalars
            transposed.swapAt(at, at + 1)
            var deleted = scalars
            deleted.remove(at: at)
            spellings += [substituted, transposed, deleted]
            for spelling in spellings where spelling.count >= 4 {
                for length in 4...spelling.count {
                    var text = ""
                    text.unicodeScalars.append(contentsOf: spelling.prefix(length))
                    texts.insert(text)
                }
            }
        }
        return texts.sorted()
    }

    /// The texts come sorted, so a word's longer prefixes follow its shorter ones: the delta's
    /// trie is then walked from the keystroke before's regions (kept by snapshot), which must
    /// give the same answers as a walk from the root.
    func testTypoDeltaMatchesReadFromTheListsEqualTheReference() throws {
        let stoppedBefore = SuggestContext.typoDeltaListsStoppedEarly.load(ordering: .relaxed)
        let fromBefore = Generation.deltaWalksFromKeystrokeBefore.load(ordering: .relaxed)
        var compared = 0
        for seed in UInt64(1)...2 {
            var (rng, catalog, fixture, reference) = try DeltaListsTests.randomShard(seed: 0x7D17_0000 + seed, vocabulary: 22, count: 600,
                                                                                     listSize: seed == 2 ? 3 : 8)
            for round in 0..<3 {
                // Two fifths of the entries re-weighted (far up, far down, ties), a few deleted or new.
                let current = reference.entries.sorted { bytesPrecede($0.id, $1.id) }
                var upserts: [CatalogEntry] = []
                var deletes: [String] = []
                for entry in current where rng.chance(0.4) {
                    if rng.chance(0.05) {
                        deletes.append(entry.id)
                        continue
                    }
                    var moved = entry
                    moved.weight = rng.chance(0.3) ? UInt64(rng.int(0...3)) : UInt64(rng.int(0...1_000_000))
                    upserts.append(moved)
                }
                for _ in 0..<10 { upserts.append(catalog.randomEntry(&rng, existing: current)) }
                try GeneralPlanTests.update(fixture, &reference, upserting: upserts, deleting: deletes)
                for (n, text) in Self.texts(catalog, &rng).enumerated() {
                    for limits in [DeltaListsTests.limitSets[n % DeltaListsTests.limitSets.count],
                                   DeltaListsTests.limitSets[(n + 3) % DeltaListsTests.limitSets.count]] {
                        let request = SuggestRequest(text: text, limits: limits, typos: .auto)
                        if let diff = suggestDiff(shard: fixture.shard, reference: reference, request: request) {
                            return XCTFail("seed \(seed), round \(round): \"\(text)\" \(limits)\n\(diff)")
                        }
                        compared += 1
                    }
                }
            }
        }
        let stopped = SuggestContext.typoDeltaListsStoppedEarly.load(ordering: .relaxed) - stoppedBefore
        print("[typo delta] \(compared) answers compared, \(stopped) lists of typo'd delta matches left before their end")
        XCTAssertGreaterThan(stopped, compared / 20, "the lists stop early, so their stopping rules are what is tested")
        XCTAssertGreaterThan(Generation.deltaWalksFromKeystrokeBefore.load(ordering: .relaxed) - fromBefore, compared / 10,
                             "the delta's walks start from the keystroke before")
    }

    /// Long words (two typos allowed): the delta's completions at distance 2 come after those at
    /// distance 1, whose lists must then have been read to their end.
    func testTwoTyposOverTheDelta() throws {
        var rng = SeededGenerator(seed: 0x7D17_00AA)
        let words = ["quarterback", "quarterbacks", "quartzrback", "quarterbeck", "quxrterback", "qiarterbzck",
                     "quartermaster", "quarterfinal", "qwarterfinal", "quadrant", "quasar", "squarterback"]
        var entries: [CatalogEntry] = []
        for index in 0..<240 {
            let title = rng.pick(words) + (rng.chance(0.3) ? " " + rng.pick(words) : "")
            entries.append(CatalogEntry(id: "w\(index)", title: title, categories: [], weight: UInt64(rng.int(0...50))))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(listSize: 4, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: entries)
        for _ in 0..<2 {
            let updates = reference.entries.filter { _ in rng.chance(0.5) }.map { entry -> CatalogEntry in
                var moved = entry
                moved.weight = UInt64(rng.int(0...1000))
                return moved
            }
            try GeneralPlanTests.update(fixture, &reference, upserting: updates, deleting: [])
            // Seven scalars (one edit), then eight (two): the step to two edits over the delta.
            for text in ["quartxr", "quartxrb", "quarterb", "quarterba", "quartxrba", "qaurterbac", "quarterfi", "quarterm", "qiarterb",
                         "quazterback"] {
                for completions in [1, 2, 4, 8, 12] {
                    for entries in [0, 2, 10] {
                        let request = SuggestRequest(text: text, limits: SuggestLimits(entries: entries, categories: 0, completions: completions),
                                                     typos: .auto)
                        XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "\"\(text)\" \(entries) \(completions)")
                    }
                }
            }
        }
    }

    /// The delta's matches and regions are kept per read snapshot: a word an update brings into
    /// the delta is matched by the next query, one it takes out no longer is, for complete and
    /// partial words, typo'd and not, asked before and after each update.
    func testTheDeltasWalksAreKeptPerSnapshot() throws {
        let titles = ["Harbor view", "Harbour lights", "Garden gate", "Meadow lane", "Zebra crossing", "Fish market",
                      "Garden of fish", "Zebra garden", "Lights of the harbor", "Market garden"]
        let entries = titles.enumerated().map { CatalogEntry(id: "t\($0.offset)", title: $0.element, categories: [], weight: UInt64(10 + $0.offset)) }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(listSize: 2, heavyThreshold: 2))
        var reference = ReferenceIndex(entries: entries)
        let texts = ["zebrafosh", "zebrafosh g", "zebrafis", "zebrafash garden", "gardne zebrafis", "zebrafishe", "zebrafissh g"]
        func check(_ step: String) {
            for text in texts {
                let request = SuggestRequest(text: text, limits: SuggestLimits(entries: 5, categories: 0, completions: 5), typos: .auto)
                XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "\(step): \"\(text)\"")
            }
        }
        // A delta without the word, then with it (a new entry and a renamed one), then without.
        try GeneralPlanTests.update(fixture, &reference, upserting: [CatalogEntry(id: "t3", title: "Meadow lane", categories: [], weight: 99)],
                                    deleting: [])
        check("before")
        try GeneralPlanTests.update(fixture, &reference, upserting: [CatalogEntry(id: "n1", title: "Zebrafish garden", categories: [], weight: 5),
                                                                     CatalogEntry(id: "t4", title: "Zebrafish crossing", categories: [], weight: 1)],
                                    deleting: [])
        check("added")
        try GeneralPlanTests.update(fixture, &reference, upserting: [CatalogEntry(id: "t4", title: "Zebra crossing", categories: [], weight: 1)],
                                    deleting: ["n1"])
        check("removed")
    }

    /// A delta too large for a query to build its trie: the first queries walk `delta_terms`
    /// while a utility thread builds the trie, and the queries after read the trie; both exact.
    func testALargeDeltasTrieIsBuiltInTheBackground() throws {
        var (rng, catalog, fixture, reference) = try DeltaListsTests.randomShard(seed: 0x7D17_00BB, vocabulary: 22, count: 300, listSize: 8)
        var added: [CatalogEntry] = []
        let current = reference.entries
        for index in 0..<3_000 {
            var entry = catalog.randomEntry(&rng, existing: current, id: "big\(index)")
            entry.aliases = [catalog.randomTitle(&rng, existing: current), catalog.randomTitle(&rng, existing: current)]
            entry.description = catalog.randomTitle(&rng, existing: current) + " " + catalog.randomTitle(&rng, existing: current)
            added.append(entry)
        }
        try GeneralPlanTests.update(fixture, &reference, upserting: added, deleting: [])
        let generation = try fixture.shard.current()
        let (postings, snapshot) = try generation.environment.read { txn in (try txn.count(generation.schema.deltaTerms), txn.snapshotID) }
        XCTAssertGreaterThan(postings, DeltaTrie.inlineBuildLimit, "a delta the queries do not build the trie of")
        let texts = Self.texts(catalog, &rng)
        func compareAll(_ phase: String) {
            // Every third text (the reference ranks 3,300 entries by brute force for each).
            for (n, text) in texts.enumerated() where n % 3 == 0 {
                let request = SuggestRequest(text: text, limits: DeltaListsTests.limitSets[n / 3 % DeltaListsTests.limitSets.count], typos: .auto)
                XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "\(phase): \"\(text)\"")
            }
        }
        XCTAssertFalse(generation.deltaTrie.isBuilt(for: snapshot))
        compareAll("while the trie is built")
        let deadline = ContinuousClock.now + .seconds(30)
        while !generation.deltaTrie.isBuilt(for: snapshot), ContinuousClock.now < deadline { usleep(10_000) }
        XCTAssertTrue(generation.deltaTrie.isBuilt(for: snapshot), "the background build finished")
        compareAll("from the trie")
        let statistics = try XCTUnwrap(fixture.shard.deltaTrieStatistics())
        XCTAssertEqual(statistics.queryBuilds, 0)
        XCTAssertGreaterThanOrEqual(statistics.backgroundBuilds, 1)
        XCTAssertGreaterThan(statistics.doneWithout, 0, "keystrokes walked the delta's terms while the trie was built")
        XCTAssertGreaterThan(statistics.bytes, 0)
    }

    /// More typo-free delta documents than are read whole for the completions at a distance: the
    /// completions come from every typo'd match instead, and are still exact.
    func testManyTypoFreeDeltaDocumentsFallBackToEveryMatch() throws {
        // The base: words one edit from "zqax", some re-weighted into the delta too.
        let base = (0..<60).map { CatalogEntry(id: "r\($0)", title: "zqbx\($0 % 9) zqa\($0 % 4)", categories: [], weight: UInt64(5 * $0)) }
        let fixture = try ExactnessTests.ShardFixture(entries: base, parameters: IndexParameters(listSize: 4, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: base)
        // The delta: 1,100 new entries with "zqax", and a third of the base moved.
        var updates = (0..<1100).map { CatalogEntry(id: "q\($0)", title: "zqax \($0 % 13)", categories: [], weight: UInt64(($0 * 7919) % 10_007)) }
        updates += base.filter { $0.weight % 3 == 0 }.map { entry -> CatalogEntry in
            var moved = entry
            moved.weight = (entry.weight &* 31) % 101
            return moved
        }
        try GeneralPlanTests.update(fixture, &reference, upserting: updates, deleting: [])
        let before = SuggestContext.typoDeltaCompletionsFromEveryMatch.load(ordering: .relaxed)
        for text in ["zqax", "zqbx", "zqab", "zqxa"] {
            for completions in [1, 3, 5, 8] {
                let request = SuggestRequest(text: text, limits: SuggestLimits(entries: 3, categories: 0, completions: completions), typos: .auto)
                XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "\"\(text)\" \(completions)")
            }
        }
        XCTAssertGreaterThan(SuggestContext.typoDeltaCompletionsFromEveryMatch.load(ordering: .relaxed), before,
                             "\"zqax\" has 1,100 typo-free delta documents: past the limit")
    }

    /// A typo'd partial word whose delta subtree has many documents and few words ("zqax" within
    /// one edit of "zqbx…": 600 delta documents, three words, one of them only in light ones):
    /// its list is left once every word under the subtree has been met, and the answer is exact.
    func testASubtreeListIsLeftOnceEveryWordIsMet() throws {
        let base = (0..<40).map { CatalogEntry(id: "b\($0)", title: "zqbxy base\($0 % 5)", categories: [], weight: UInt64(7 * $0)) }
        let fixture = try ExactnessTests.ShardFixture(entries: base, parameters: IndexParameters(listSize: 4, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: base)
        var updates = (0..<600).map { n -> CatalogEntry in
            // "zqbxw" only in light documents, far down the list; an alias that spells "zqbxy" another way.
            let word = n % 97 == 0 ? "zqbxw" : (n % 2 == 0 ? "zqbxy" : "zqbxz")
            let weight = n % 97 == 0 ? UInt64(n % 5) : UInt64(100 + (n * 7919) % 10_007)
            return CatalogEntry(id: "d\(n)", title: "\(word) item\(n % 11)", categories: [], weight: weight,
                                aliases: n % 7 == 0 ? ["zqbxyy"] : [])
        }
        updates += base.filter { $0.weight % 3 == 0 }.map { entry -> CatalogEntry in
            var moved = entry
            moved.weight = (entry.weight &* 31) % 1_001
            return moved
        }
        try GeneralPlanTests.update(fixture, &reference, upserting: updates, deleting: ["b5", "b8"])
        let before = SuggestContext.typoDeltaListsFinishedByWords.load(ordering: .relaxed)
        for text in ["zqax", "zqxb", "zqbv", "zqbxa", "zqab"] {
            for completions in [1, 3, 5, 8] {
                for entries in [0, 3] {
                    let request = SuggestRequest(text: text, limits: SuggestLimits(entries: entries, categories: 0, completions: completions),
                                                 typos: .auto)
                    XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                                 "\"\(text)\" entries \(entries) completions \(completions)")
                }
            }
        }
        XCTAssertGreaterThan(SuggestContext.typoDeltaListsFinishedByWords.load(ordering: .relaxed), before,
                             "lists left once their words were met")
    }
}
