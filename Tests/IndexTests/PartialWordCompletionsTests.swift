import Catalog
@testable import Index
import TestSupport
import XCTest

/// A lone partial word's completions from postings (``PartialWordPlan``'s fallback when the
/// region lists cannot prove them): a word one edit away has its best entry at the first of its
/// documents that also has a word starting with the typed text (no typo), which may come long
/// after its first document. Checked against the reference on a catalog where that is common.
final class PartialWordCompletionsTests: XCTestCase {
    /// Words one edit from "grab" (as a prefix), words that start with it, and words near neither.
    static let near = ["grob", "crab", "grub", "gab", "grav", "brab", "grib", "garb", "drab", "gram"]
    static let exact = ["grab", "grabby", "grabens", "grabowski"]
    static let filler = ["pond", "tree", "house", "lake", "stone"]

    func testAFartherWordsBestEntryIsItsFirstTypoFreeDocument() throws {
        var rng = SeededGenerator(seed: 0x6AAB_0001)
        let (near, exact, filler) = (Self.near, Self.exact, Self.filler)
        var entries: [CatalogEntry] = []
        // More typo-free documents than the region path reads as nearer entries
        // (``SuggestContext/nearerEntriesLimit``), and fewer typo-free words than wanted: the
        // completions come from postings.
        for n in 0..<3600 {
            var words = [rng.pick(near) + (rng.chance(0.5) ? String(rng.int(0...30)) : "")]
            // An exact word in some titles only, often behind heavier titles without one.
            if rng.chance(0.35) { words.append(rng.pick(exact)) }
            words.append(rng.pick(filler))
            words.shuffle(using: &rng)
            entries.append(CatalogEntry(id: "e\(n)", title: words.joined(separator: " "), categories: ["c\(n % 4)"],
                                        weight: UInt64(rng.chance(0.2) ? 77 : rng.int(1...100_000)),
                                        aliases: rng.chance(0.05) ? [rng.pick(exact) + " " + rng.pick(near)] : []))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(listSize: 2, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: entries)
        let before = PartialWordPlan.completionsFromPostings.load(ordering: .relaxed)
        let compared = try Self.compareBuiltAndUpdated(fixture, &reference, entries: entries, near: near, exact: exact,
                                                       texts: ["grab", "grob", "crab", "grabo"], completions: [6, 12, 30])
        XCTAssertGreaterThan(PartialWordPlan.completionsFromPostings.load(ordering: .relaxed), before + 4,
                             "the completions must come from postings, the path under test")
        print("[partial word completions from postings] \(compared) answers compared")
    }

    /// The region path's nearer entries (those with a word at a smaller distance, which may be the
    /// best entries of words at this one) are first tested through the forward index: an entry
    /// without a word at the distance is not read. Against the reference, fresh and after updates
    /// and deletions, with entries skipped that way.
    func testNearerEntriesWithoutAWordAtTheDistanceAreNotRead() throws {
        var rng = SeededGenerator(seed: 0x6AAB_0002)
        let near = ["grob", "crab", "grub", "gab", "grav", "brab", "grib", "garb", "drab", "gram"]
        let exact = ["grab", "grabby", "grabens", "grabowski"]
        let filler = ["pond", "tree", "house", "lake", "stone", "field", "river"]
        var entries: [CatalogEntry] = []
        // A few hundred typo-free documents (fewer than ``SuggestContext/nearerEntriesLimit``), few
        // of them with a word one edit away too: most nearer entries have none.
        for n in 0..<1500 {
            var words = [rng.pick(filler), rng.pick(filler)]
            if rng.chance(0.3) { words.append(rng.pick(exact)) }
            if rng.chance(0.3) { words.append(rng.pick(near) + (rng.chance(0.5) ? String(rng.int(0...30)) : "")) }
            words.shuffle(using: &rng)
            entries.append(CatalogEntry(id: "e\(n)", title: words.joined(separator: " "), categories: ["c\(n % 4)"],
                                        weight: UInt64(rng.chance(0.2) ? 77 : rng.int(1...100_000)),
                                        aliases: rng.chance(0.05) ? [rng.pick(near)] : []))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(listSize: 2, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: entries)
        let before = SuggestContext.nearerEntriesSkippedByForward.load(ordering: .relaxed)
        try Self.compareBuiltAndUpdated(fixture, &reference, entries: entries, near: near, exact: exact,
                                           texts: ["grab", "grob", "crab", "grabo", "gram"], completions: [6, 12, 30])
        XCTAssertGreaterThan(SuggestContext.nearerEntriesSkippedByForward.load(ordering: .relaxed), before + 100,
                             "nearer entries must be skipped through the forward index, the path under test")
    }

    /// More nearer entries than ``SuggestContext/nearerEntriesLimit``, but postings one edit away
    /// many times more (``SuggestContext/postingsPerNearerEntry``): the region path reads the
    /// entries anyway, best first, and stops once the words it chose rank before every entry left
    /// (``SuggestContext/nearerEntriesLeftUnread``). Against the reference, fresh and after
    /// updates and deletions.
    func testManyNearerEntriesAreReadUntilTheChosenWordsRankBeforeTheRest() throws {
        var rng = SeededGenerator(seed: 0x6AAB_0004)
        let (near, exact, filler) = (Self.near, Self.exact, Self.filler)
        var entries: [CatalogEntry] = []
        for n in 0..<9_000 {
            // One title in seven has a typo-free word (about 1,300 of them), most of those a word
            // one edit away too; every other title has a word one edit away.
            var words = [rng.pick(filler)]
            if n % 7 == 0 { words.append(rng.pick(exact)) }
            if n % 7 != 0 || rng.chance(0.6) { words.append(rng.pick(near) + (rng.chance(0.5) ? String(rng.int(0...30)) : "")) }
            words.shuffle(using: &rng)
            entries.append(CatalogEntry(id: "e\(n)", title: words.joined(separator: " "), categories: ["c\(n % 4)"],
                                        weight: UInt64(rng.chance(0.2) ? 77 : rng.int(1...100_000))))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(listSize: 2, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: entries)
        let before = SuggestContext.nearerEntriesLeftUnread.load(ordering: .relaxed)
        try Self.compareBuiltAndUpdated(fixture, &reference, entries: entries, near: near, exact: exact,
                                           texts: ["grab", "grabo"], completions: [6, 12, 30])
        XCTAssertGreaterThan(SuggestContext.nearerEntriesLeftUnread.load(ordering: .relaxed), before + 4,
                             "the nearer entries' reading must stop early, the path under test")
    }

    /// The fallback's distance-0 word common enough to have its bitmap kept (``TermBitmaps``):
    /// farther words' postings are tested against that bitmap, not through the forward index.
    /// Against the reference, fresh and after updates and deletions (a new snapshot).
    func testLevelZeroIsTheKeptBitmapOfACommonWord() throws {
        var rng = SeededGenerator(seed: 0x6AAB_0005)
        let entries = (0..<9_000).map { n in
            // "grab" in half the titles (4,500 postings, kept); a word one edit away in every title.
            var words = [rng.pick(Self.near) + String(rng.int(0...40)), rng.pick(Self.filler)]
            if n % 2 == 0 { words.append("grab") }
            words.shuffle(using: &rng)
            return CatalogEntry(id: "e\(n)", title: words.joined(separator: " "), categories: ["c\(n % 4)"],
                                weight: UInt64(rng.chance(0.2) ? 77 : rng.int(1...100_000)))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(listSize: 2, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: entries)
        let fromPostings = PartialWordPlan.completionsFromPostings.load(ordering: .relaxed)
        let hits = { fixture.shard.cacheStatistics().first { $0.name == "term_bitmaps" }?.statistics.hits ?? 0 }
        let hitsBefore = hits()
        try Self.compareBuiltAndUpdated(fixture, &reference, entries: entries, near: Self.near, exact: ["grab"],
                                        texts: ["grab", "grabo"], completions: [6, 12, 30])
        XCTAssertGreaterThan(PartialWordPlan.completionsFromPostings.load(ordering: .relaxed), fromPostings + 2,
                             "the completions must come from postings, the path under test")
        XCTAssertGreaterThan(hits(), hitsBefore + 2, "the distance-0 word's kept bitmap is what is tested")
    }

    /// Words at distance 0 with more postings than ``SuggestContext/forwardLevelPostings``: a
    /// farther word's postings are tested for one through the forward index, until the tests cost
    /// what a bitmap of them would ("drab" is in no title with a "grab…" word, so its postings use
    /// up the tests and the bitmap is built after all, and kept for the prefix: ``TermBitmaps``).
    /// Against the reference, fresh and after updates and deletions.
    func testLevelZeroIsTestedThroughTheForwardIndexWhenItsWordsHaveManyPostings() throws {
        var rng = SeededGenerator(seed: 0x6AAB_0003)
        let near = ["grob", "crab", "grub", "grav", "garb", "gram"]
        let exact = ["grab", "grabby", "grabens"]
        var entries: [CatalogEntry] = []
        for n in 0..<5200 {
            var words = [rng.pick(["pond", "tree", "house", "lake"])]
            if n % 10 == 0 {
                words.append("drab" + String(rng.int(0...9)))
            } else {
                words.append(rng.pick(exact))
                if rng.chance(0.3) { words.append(rng.pick(near)) }
            }
            words.shuffle(using: &rng)
            entries.append(CatalogEntry(id: "e\(n)", title: words.joined(separator: " "), weight: UInt64(rng.int(1...100_000))))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(listSize: 2, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: entries)
        let before = SuggestContext.levelTestsByForward.load(ordering: .relaxed)
        let keptBefore = PartialWordPlan.keptLevelBitmaps.load(ordering: .relaxed)
        try Self.compareBuiltAndUpdated(fixture, &reference, entries: entries, near: near + ["drab"], exact: exact,
                                           texts: ["grab", "drab", "grob"], completions: [8, 20])
        XCTAssertGreaterThan(SuggestContext.levelTestsByForward.load(ordering: .relaxed), before,
                             "documents must be tested through the forward index, the path under test")
        // The bitmap built once the tests ran out is the prefix's, kept: the next answers of the
        // snapshot test against it from the start (and agree with the reference above).
        XCTAssertGreaterThan(PartialWordPlan.keptLevelBitmaps.load(ordering: .relaxed), keptBefore + 2,
                             "the prefix's bitmap is kept and used again")
    }

    /// Compares each of `texts` with each number of `completions` against the reference, built and
    /// then after ``update(_:_:entries:near:exact:)``; returns how many answers were compared.
    @discardableResult
    private static func compareBuiltAndUpdated(_ fixture: ExactnessTests.ShardFixture, _ reference: inout ReferenceIndex,
                                               entries: [CatalogEntry], near: [String], exact: [String],
                                               texts: [String], completions: [Int]) throws -> Int {
        var compared = 0
        func check(_ phase: String, _ reference: ReferenceIndex) {
            for text in texts {
                for completions in completions {
                    let request = SuggestRequest(text: text, limits: SuggestLimits(entries: 5, categories: 0, completions: completions))
                    XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "\(phase): \"\(text)\" \(completions)")
                    compared += 1
                }
            }
        }
        check("built", reference)
        try update(fixture, &reference, entries: entries, near: near, exact: exact)
        check("after updates", reference)
        return compared
    }

    /// Delta documents with both kinds of words, and the best typo-free documents deleted.
    private static func update(_ fixture: ExactnessTests.ShardFixture, _ reference: inout ReferenceIndex, entries: [CatalogEntry],
                               near: [String], exact: [String]) throws {
        let updates = (0..<12).map { n in
            CatalogEntry(id: "new\(n)", title: "\(near[n % near.count]) \(exact[n % exact.count]) pond", categories: ["c1"],
                         weight: UInt64(10 + n * 9_000))
        }
        let deletes = entries.filter { title in exact.contains { title.title.contains($0) } }.sorted { $0.weight > $1.weight }.prefix(6).map(\.id)
        try GeneralPlanTests.update(fixture, &reference, upserting: updates, deleting: Array(deletes))
    }
}
