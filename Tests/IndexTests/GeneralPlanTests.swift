import Catalog
@testable import Index
import TestSupport
import Synchronization
import XCTest

/// The general plan's paths for big candidate sets (more than 2,048 documents with the complete
/// words, where the plan walks the partial word's typo matches and takes completions from their
/// postings), against the brute-force reference. The random catalogs of `ExactnessTests` are too
/// small to reach them: here one common word is in thousands of titles, beside a family of words
/// near the one being typed, some rare, some common, in titles and aliases, with tied weights,
/// deleted and updated entries (delta documents), and a typo'd twin of the common word.
final class GeneralPlanTests: XCTestCase {
    static let family = ["stoucriagou", "staucriangbru", "stoucia", "ploucriarer", "soucrai", "stucria", "stoucriag",
                         "stroucria", "tsoucria", "stoucr", "stouxria"]
    static let filler = ["adria", "plouait", "jaucro", "tolomcai", "bukorga", "chenamku", "poflo", "camak", "camel", "cambric"]

    static func makeEntries(_ rng: inout SeededGenerator) -> [CatalogEntry] {
        var entries: [CatalogEntry] = []
        for n in 0..<3200 {
            let common = rng.chance(0.85) ? "thou" : (rng.chance(0.5) ? "thom" : "camakee")
            var words = [common]
            // Family words are rare on purpose: most titles have only filler.
            if rng.chance(0.08) { words.append(family.randomElement(using: &rng)!) }
            words.append(filler.randomElement(using: &rng)!)
            if rng.chance(0.3) { words.append(filler.randomElement(using: &rng)!) }
            words.shuffle(using: &rng)
            let aliases = rng.chance(0.05) ? [family.randomElement(using: &rng)! + " " + common] : []
            entries.append(CatalogEntry(id: "e\(n)", title: words.joined(separator: " "), categories: ["c\(n % 5)"],
                                        weight: UInt64(rng.chance(0.3) ? 100 : Int.random(in: 1...10_000, using: &rng)),
                                        aliases: aliases))
        }
        return entries
    }

    func testBigCandidateSetsMatchTheReference() throws {
        var rng = SeededGenerator(seed: 20261202)
        let entries = Self.makeEntries(&rng)
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)

        var texts: [String] = []
        for word in ["stoucriagou", "stouxriagou", "ploucria", "camakee"] {
            for length in 3...word.count { texts.append("thou " + word.prefix(length)) }
        }
        texts += ["thuo stoucria", "thou stoucria", "thom stoucri", "camakee cam", "camakee thou sto", "thou camak", "thou thom stouc"]
        func check(_ phase: String) {
            var compared = 0
            for text in texts {
                for limits in [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 0, categories: 0, completions: 3),
                               SuggestLimits(entries: 2, categories: 0, completions: 1)] {
                    for tokens in [[], [SearchToken.category("c1")]] {
                        let request = SuggestRequest(text: text, tokens: tokens, limits: limits)
                        XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                                     "\(phase): \"\(text)\" \(tokens) \(limits)")
                        compared += 1
                    }
                }
            }
            print("[general plan, big candidate sets] \(phase): \(compared) answers compared")
        }
        check("built")

        // Delta documents and deletions: a new best entry for family words, and the best ones gone.
        var updates: [CatalogEntry] = []
        for (n, word) in Self.family.enumerated() {
            updates.append(CatalogEntry(id: "new\(n)", title: "thou \(word) poflo", categories: ["c1"], weight: UInt64(500 + n * 700)))
        }
        try Self.update(fixture, &reference, upserting: updates,
                        deleting: entries.filter { $0.title.contains("stou") }.sorted { $0.weight > $1.weight }.prefix(5).map(\.id))
        check("after updates")
    }

    /// A typo'd partial word's walk that listed more terms than the cache keeps ("terr" with one
    /// edit: every word under "ter") still leaves its regions cached, without the terms: the next
    /// keystroke ("terri") walks from them instead of from the root, and finds what a whole walk
    /// finds.
    func testAWalkWithTooManyTermsToKeepLeavesItsRegionsCached() throws {
        var rng = SeededGenerator(seed: 20261206)
        let entries = (0..<12_000).map { n in
            CatalogEntry(id: "t\(n)", title: "ter\(String((0..<6).map { _ in rng.pick(Array("abcdefghijklmnopqrstuvwxyz")) })) n\(n)",
                         categories: ["c1"], weight: UInt64(1 + rng.int(0...9_999)))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        let generation = try fixture.shard.generation(nil)
        try generation.environment.read { txn in
            let word = QueryWord("terr", isPartial: true, typos: .auto)
            let key = TermMatchCache.Key(word: word.scalars, budget: word.budget, prefixMode: true)
            var listed: TermList? = TermList()
            let regions = try generation.nameRegions(matching: word, terms: &listed, in: txn)
            XCTAssertGreaterThan(listed!.memoryBytes, TermMatchCache.maximumBytes,
                                 "the walk lists more than the cache keeps")
            let cached = try XCTUnwrap(generation.termRegions.cached(key), "its regions are kept")
            XCTAssertNil(cached.terms?.count, "the terms are not kept")
            XCTAssertEqual(cached.regions.map(\.prefix), regions.map(\.prefix))
            // The next keystroke from them: what a whole walk finds.
            let next = QueryWord("terri", isPartial: true, typos: .auto)
            var none: TermList?
            let fromPrevious = try generation.nameRegions(matching: next, terms: &none, in: txn)
            let trie = try XCTUnwrap(try txn.get(generation.schema.termTrie, PackedTrie.key))
            let whole = try PackedTrie.regions(trie, query: next.scalars, budget: next.budget, prefixMode: true, terms: &none)
            XCTAssertEqual(fromPrevious.map(\.prefix), whole.map(\.prefix))
            XCTAssertEqual(fromPrevious.map(\.distance), whole.map(\.distance))
        }
    }

    /// The plan decides whether a typo'd partial word's words are few from their posting count,
    /// which takes a whole region of the walk from its heavy trie node. That count must be the sum
    /// term by term, base and delta, before and after updates, or the plan would choose on a wrong
    /// figure (its answers stay exact either way, so only this test sees it).
    func testRegionPostingCountsAreTheSumOfTheirTerms() throws {
        var rng = SeededGenerator(seed: 20261203)
        let entries = Self.makeEntries(&rng)
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        func check(_ phase: String) throws {
            let generation = try fixture.shard.generation(nil)
            try generation.environment.read { txn in
                var regionsCounted = 0
                for text in ["thou", "thom", "stoucria", "stou", "camak", "camakee", "plouc", "tolom", "adria", "zzzz"] {
                    let word = QueryWord(text, isPartial: true, typos: .auto)
                    // Regions first (as the plan asks), then terms: the walk that listed them replaces
                    // the cached one that did not, so the next keystroke asking for terms walks no more.
                    _ = try generation.heavyRegionPostings(ofPartial: word, in: txn)
                    let terms = try generation.terms(matching: word, in: txn)
                    let key = TermMatchCache.Key(word: word.scalars, budget: word.budget, prefixMode: true)
                    XCTAssertNotNil(generation.termRegions.cached(key)?.terms, "\(phase): \(text)'s listed walk is cached")
                    let sum = try generation.postingCount(of: terms.lazy.map(\.term), in: txn)
                    var none: TermList? = nil
                    for region in try generation.nameRegions(matching: word, terms: &none, in: txn) where region.isSubtree {
                        if try generation.heavyNode(region.prefix, in: txn) != nil { regionsCounted += 1 }
                    }
                    XCTAssertEqual(try generation.namePostingCount(ofPartial: word, terms: terms, stoppingAfter: .max, in: txn), sum,
                                   "\(phase): \(text)")
                    for limit in [0, sum / 3, sum - 1, sum, sum + 1] where limit >= 0 {
                        let counted = try generation.namePostingCount(ofPartial: word, terms: terms, stoppingAfter: limit, in: txn)
                        XCTAssertEqual(counted <= limit, sum <= limit, "\(phase): \(text) within \(limit)")
                    }
                }
                XCTAssertGreaterThan(regionsCounted, 0, "\(phase): no heavy region was counted whole")
            }
        }
        try check("built")
        let updates = Self.family.enumerated().map { n, word in
            CatalogEntry(id: "new\(n)", title: "thou \(word) poflo", categories: ["c1"], weight: UInt64(500 + n * 700))
        } + [CatalogEntry(id: "e1", title: "thom stoucriagou", categories: ["c2"], weight: 3)]
        _ = try fixture.shard.upsert(updates)
        try check("after updates")
    }

    /// A completion word's best entry when the candidates come in passes by a lower bound of their
    /// typos: the best so far (two typos, from the pass whose bound is one) must still lose to an
    /// earlier document of the next pass with as many typos. "zarbix" (one edit from "zorb") is in
    /// X, which has "zorbak" but "pelamondzz" (two edits from "pelamondra"), and in Y, heavier,
    /// with "pelamondrz" (one edit) and no word starting with "zorb": Y is its best entry.
    func testATiedEntryOfALaterPassIsTheBetterOne() throws {
        var entries = (0..<2600).map { n in
            CatalogEntry(id: "f\(n)", title: "pelamondra " + Self.filler[n % Self.filler.count], categories: ["c"], weight: UInt64(n % 97))
        }
        entries.append(CatalogEntry(id: "x", title: "pelamondzz zorbak zarbix", categories: ["c"], weight: 10))
        entries.append(CatalogEntry(id: "y", title: "pelamondrz zarbix", categories: ["c"], weight: 20))
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        let reference = ReferenceIndex(entries: entries)
        for text in ["pelamondra zorb", "pelamondra zorba"] {
            let request = SuggestRequest(text: text, limits: SuggestLimits(entries: 10, categories: 3, completions: 5))
            XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), text)
        }
        let completions = try fixture.shard.suggest(SuggestRequest(text: "pelamondra zorb")).completions
        XCTAssertEqual(completions.first { $0.term == "zarbix" }?.best.id, "y")
    }

    /// Many titles start with the typed text behind a common word ("san jose …" among "san …"):
    /// the plan lists them by title and stops entering base ones once the entries are full of
    /// them, leaving the rest to the walk in rank order. Delta documents (upserted, not in rank
    /// order) and a deleted best one must still be seen, dedupe must still find enough distinct
    /// displays, and completions must still come from every title, typos on and off.
    func testManyTitlesStartingWithTheTextBehindACommonWord() throws {
        var rng = SeededGenerator(seed: 20261205)
        var entries: [CatalogEntry] = []
        for n in 0..<2400 {
            let filler = Self.filler.randomElement(using: &rng)!
            // Titles that start with "san jose", titles that have "jose" later (matches that do
            // not start with the text, interleaved in rank order), and the rest.
            let rest = rng.chance(0.04) ? "jose " + filler : (rng.chance(0.1) ? filler + " jose" : filler)
            // Identical displays (same title and category) in runs, so dedupe drops some.
            entries.append(CatalogEntry(id: "s\(n)", title: "san " + rest, categories: ["c\(n % 3)"],
                                        weight: UInt64(Int.random(in: 1...5_000, using: &rng)),
                                        aliases: rng.chance(0.1) ? ["sao " + rest] : []))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let texts = ["san j", "san jo", "san jos", "san jose", "san jose ", "san jose p", "san jose cam", "san camak", "sna jose"]
        func check(_ phase: String) {
            for text in texts {
                for typos in [TypoMode.off, .auto] {
                    for limits in [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 3, categories: 0, completions: 8)] {
                        for dedupe in [true, false] {
                            let request = SuggestRequest(text: text, limits: limits, typos: typos, dedupe: dedupe)
                            XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                                         "\(phase): \"\(text)\" \(typos) \(limits) dedupe \(dedupe)")
                        }
                    }
                }
            }
        }
        check("built")
        // Delta documents that outrank every base one, one far down, and the best base ones gone.
        let updates = [CatalogEntry(id: "new-top", title: "san jose zeta", categories: ["c0"], weight: 9_000_000),
                       CatalogEntry(id: "new-low", title: "san jose alpha", categories: ["c1"], weight: 2),
                       CatalogEntry(id: "new-mid", title: "san jose camak", categories: ["c2"], weight: 4_000)]
        try Self.update(fixture, &reference, upserting: updates,
                        deleting: entries.filter { $0.title.hasPrefix("san jose") }.sorted { $0.weight > $1.weight }.prefix(4).map(\.id))
        check("after updates")
    }

    /// Chip counts over long lists: a common word in thousands of titles, and categories each in
    /// thousands of entries, so that the counts go through bitmaps (``DocumentBitmap``: both lists
    /// long and dense), a bitmap tested with a shorter list, and galloping (a rare category).
    /// Against the reference, with tokens, typos on and off, and after updates and deletions (a new
    /// read snapshot: its bitmaps are new too).
    func testChipCountsOverLongListsMatchTheReference() throws {
        var rng = SeededGenerator(seed: 20261206)
        let categories = ["Books", "Baby", "Beauty", "Bags", "Garden"]
        var entries: [CatalogEntry] = []
        for n in 0..<12_000 {
            let common = rng.chance(0.7) ? "thou" : "camakee"
            var words = [common, Self.filler.randomElement(using: &rng)!]
            if rng.chance(0.3) { words.append(Self.family.randomElement(using: &rng)!) }
            // Books and Baby are common (long, dense lists), Beauty less so, Bags rare.
            var chips = [rng.chance(0.5) ? "Books" : (rng.chance(0.6) ? "Baby" : (rng.chance(0.9) ? "Beauty" : "Garden"))]
            if rng.chance(0.01) { chips.append("Bags") }
            entries.append(CatalogEntry(id: "b\(n)", title: words.joined(separator: " "), categories: chips,
                                        weight: UInt64(Int.random(in: 1...100_000, using: &rng))))
        }
        XCTAssertEqual(Set(entries.flatMap(\.categories)), Set(categories))
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let texts = ["thou b", "thou ba", "thou be", "thou bo", "camakee b", "camakee bag", "thou camakee b", "thuo b", "thou g"]
        func check(_ phase: String) throws {
            for text in texts {
                for typos in [TypoMode.off, .auto] {
                    for tokens in [[], [SearchToken.category("Books")], [SearchToken.category("Bags")]] {
                        let request = SuggestRequest(text: text, tokens: tokens, limits: SuggestLimits(entries: 3, categories: 5, completions: 3),
                                                     typos: typos)
                        XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                                     "\(phase): \"\(text)\" \(tokens) \(typos)")
                    }
                }
            }
            // The long lists were counted through their bitmaps.
            let bitmaps = try fixture.shard.generation(nil).filteredBitmaps.statistics()
            XCTAssertGreaterThan(bitmaps.misses, 0, "\(phase): no bitmap was built")
            XCTAssertGreaterThan(bitmaps.hits, 0, "\(phase): no bitmap was reused")
        }
        try check("built")
        let updates = (0..<40).map { n in
            CatalogEntry(id: "new\(n)", title: "thou bagatelle \(Self.filler[n % Self.filler.count])",
                         categories: [categories[n % categories.count]], weight: UInt64(1_000 + n * 3_000))
        }
        try Self.update(fixture, &reference, upserting: updates,
                        deleting: entries.filter { $0.categories.contains("Books") }.sorted { $0.weight > $1.weight }.prefix(30).map(\.id))
        try check("after updates")
    }

    /// A partial word that a complete word's own term matches ("camakee cama", "camakee cakak"):
    /// query words match independently, so when every candidate has that term the partial word
    /// matches them all, and the plan neither narrows by its words nor lists the candidates that
    /// have it exactly. "thou" has a typo'd twin, "thom", so its candidates are not all exact,
    /// and then it must. Against the reference, typos on and off, before and after updates.
    func testAPartialWordThatACompleteWordMatchesNarrowsNothing() throws {
        var rng = SeededGenerator(seed: 20261211)
        let entries = Self.makeEntries(&rng)
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let texts = ["camakee cama", "camakee cakak", "camakee camakee", "camakee camk", "camakee c", "thou tho", "thou thou", "thou thom",
                     "thou thuo", "thom tho", "thou camakee cama", "camakee thou cam", "thuo thou"]
        func check(_ phase: String) {
            Self.compare(fixture, reference, texts: texts, tokens: [[], [SearchToken.category("c2")]],
                         limits: [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 3, categories: 0, completions: 8)],
                         phase: phase)
        }
        check("built")
        let updates = (0..<30).map { n in
            CatalogEntry(id: "v\(n)", title: ["camakee camakee", "thom camak", "thou thomas", "camakie cama"][n % 4] + " " + Self.filler[n % Self.filler.count],
                         categories: ["c\(n % 5)"], weight: UInt64(n % 3 == 0 ? 50_000 + n : 10 + n))
        }
        try Self.update(fixture, &reference, upserting: updates,
                        deleting: entries.filter { $0.title.contains("camakee") }.prefix(20).map(\.id))
        check("after updates")
    }

    /// An exact partial word's postings narrowing a common word's dense documents through their
    /// bitmap (``SuggestContext/narrowed(_:by:walkWouldRead:in:)``): the words under "sa" are in
    /// few of the "thou" titles, so the walk in rank order does not settle within its probe.
    /// Against the reference, with tokens (other filtered lists), typos on and off, and after
    /// updates that add delta documents with and without the common word and delete base ones
    /// that have both (their postings stay; the filtered list leaves them out).
    func testAPartialWordNarrowsADenseCommonWordThroughItsBitmap() throws {
        var rng = SeededGenerator(seed: 20261210)
        let rare = ["sadru", "saplo", "sarkin", "sauvel", "saxo", "sarkinet"]
        let entries = Self.entriesAfterAFiller(6000, &rng) { rng, _ in
            // "thom", one edit from "thou": with typos, the first pass holds fewer candidates
            // than the filtered list, and the narrowing must keep to the pass.
            var words = [rng.chance(0.9) ? (rng.chance(0.85) ? "thou" : "thom") : "camakee"]
            if rng.chance(0.03) { words.append(rare.randomElement(using: &rng)!) }
            return words
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let texts = ["thou s", "thou sa", "thou sar", "thou sark", "thou sakr", "thou srak", "camakee sa", "thou camakee sa", "thou sa "]
        func check(_ phase: String) {
            let before = SuggestContext.prefixNarrowingsByBitmap.load(ordering: .relaxed)
            let typoBefore = SuggestContext.typoNarrowingsByBitmap.load(ordering: .relaxed)
            Self.compare(fixture, reference, texts: texts, tokens: [[], [SearchToken.category("c1")]],
                         limits: [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 2, categories: 0, completions: 1)],
                         phase: phase)
            let narrowed = SuggestContext.prefixNarrowingsByBitmap.load(ordering: .relaxed) - before
            let typoNarrowed = SuggestContext.typoNarrowingsByBitmap.load(ordering: .relaxed) - typoBefore
            print("[general plan, narrowed through a bitmap] \(phase): \(narrowed) by a prefix, \(typoNarrowed) by typo'd words")
            XCTAssertGreaterThan(narrowed, 0, "\(phase): the bitmap path is what is tested")
            XCTAssertGreaterThan(typoNarrowed, 0, "\(phase): the typo'd words' bitmap path is what is tested")
        }
        check("built")
        try Self.updateBehindCommonWords(fixture, &reference, entries: entries, words: rare, deletingWith: " sa")
        check("after updates")
    }

    /// ``TermBitmaps``: a typo'd partial word behind a common complete word is narrowed through
    /// the bitmaps of its words' postings, and "stoucri", in half the titles, has its bitmap kept
    /// per snapshot, so the keystrokes after the first OR it in. Compared with the reference (typos
    /// on and off, with a token), then again once delta documents with the common word are added
    /// and base ones with it deleted: a new snapshot, whose bitmap is built again.
    func testACommonWordsPostingsAreKeptAsABitmapForTheNarrowing() throws {
        let near = ["stoucri", "stuocra", "stoucaz", "steucri", "stoumri"]
        var rng = SeededGenerator(seed: 20261207)
        let entries = Self.entriesAfterAFiller(9000, &rng) { rng, n in
            var words = [rng.chance(0.85) ? "thou" : "camakee"]
            // "stoucri" in half the titles: 4,500 postings, enough to be kept.
            if n % 2 == 0 { words.append("stoucri") } else if rng.chance(0.1) { words.append(rng.pick(near)) }
            return words
        }
        try Self.compareKeepingBitmaps(entries, texts: ["thou stouc", "thou stoucr", "thou stoucri", "thou stuocr", "thou steucr", "camakee stoucr"],
                                       updating: near, deletingWith: "stoucri", counting: SuggestContext.typoNarrowingsByBitmap,
                                       moreThan: 4, "typo'd words' bitmaps", hitsMoreThan: 4)
    }

    /// ``TermBitmaps`` for a prefix: a typo-free partial word behind a common complete word, few of
    /// whose documents have a word under it, is narrowed through the bitmap of every document with
    /// such a word, and "stou", under which a fifth of the titles have a word, has its bitmap kept per
    /// snapshot. Compared with the reference, then again after updates (delta documents under the
    /// prefix, base ones deleted: a new snapshot).
    func testACommonPrefixsDocumentsAreKeptAsABitmapForTheNarrowing() throws {
        let near = ["stoucri", "stuocra", "stoucaz", "stoumri"]
        var rng = SeededGenerator(seed: 20261209)
        // 4,200 titles with "stoucri", enough to be kept, and a candidate list ("thou") more than
        // three times as long as the prefix's postings, so that the walk narrows it rather than
        // testing candidates through the forward index (``SuggestContext/forwardTestsPerPosting``);
        // few candidates match, so the walk's probe finds none and expects to read on.
        let entries = Self.entriesAfterAFiller(21_000, &rng) { rng, n in
            n % 5 == 0 ? ["camakee", "stoucri"] : ["thou"] + (rng.chance(0.003) ? [rng.pick(near)] : [])
        }
        try Self.compareKeepingBitmaps(entries, texts: ["thou stou", "thou stouc", "thou stoum"], updating: near, deletingWith: "stou",
                                       counting: SuggestContext.prefixNarrowingsByBitmap, moreThan: 1, "a prefix's bitmap", hitsMoreThan: 0)
    }

    /// A shard of `entries` compared with the reference
    /// (``compare(_:_:texts:tokens:limits:phase:counting:moreThan:_:)``, with and without a
    /// token), built and then after ``updateBehindCommonWords(_:_:entries:words:deletingWith:)``,
    /// each time with a check that the shard's kept bitmaps (``TermBitmaps``) answered more than
    /// `hitsMoreThan` look-ups meanwhile.
    static func compareKeepingBitmaps(_ entries: [CatalogEntry], texts: [String], updating words: [String], deletingWith part: String,
                                      counting counter: borrowing Atomic<Int>, moreThan least: Int, _ path: String,
                                      hitsMoreThan hitsLeast: UInt64) throws {
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        func hits() -> UInt64 { fixture.shard.cacheStatistics().first { $0.name == "term_bitmaps" }?.statistics.hits ?? 0 }
        for phase in ["built", "after updates"] {
            if phase != "built" { try updateBehindCommonWords(fixture, &reference, entries: entries, words: words, deletingWith: part) }
            let before = hits()
            compare(fixture, reference, texts: texts, tokens: [[], [SearchToken.category("c1")]],
                    limits: [SuggestLimits(entries: 10, categories: 3, completions: 5)], phase: phase, counting: counter, moreThan: least, path)
            XCTAssertGreaterThan(hits() - before, hitsLeast, "\(phase): the kept bitmaps are what is tested")
        }
    }

    /// Words one edit from "wort…": "wo?t…", "w?rt…", "?ort…" (a first-letter typo), "wor?…".
    static let wortFamily: [String] = {
        var family: [String] = []
        for letter in "abcdefghijklmnoprstuvy" where letter != "r" {
            for tail in ["h", "ley", "on", "ing", "a"] {
                family += ["wo\(letter)t\(tail)", "w\(letter)rt\(tail)", "\(letter)ort\(tail)", "wor\(letter)\(tail)"]
            }
        }
        return family
    }()

    /// Compares the answer to each of `texts` with the reference's under three kinds of limits
    /// (entries and completions; completions alone; one of each, with chips); returns how many,
    /// and how much `counter` (the path under test's counter) grew meanwhile.
    static func compareTypoTexts(_ texts: [String], _ fixture: ExactnessTests.ShardFixture, _ reference: ReferenceIndex,
                                 phase: String, counter: () -> Int) -> (compared: Int, counted: Int) {
        let before = counter()
        var compared = 0
        for text in texts {
            for limits in [SuggestLimits(entries: 5, categories: 0, completions: 5), SuggestLimits(entries: 0, categories: 0, completions: 12),
                           SuggestLimits(entries: 1, categories: 2, completions: 1)] {
                let request = SuggestRequest(text: text, limits: limits)
                XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "\(phase): \"\(text)\" \(limits)")
                compared += 1
            }
        }
        return (compared, counter() - before)
    }

    /// Completions of a typo'd partial word with hundreds of words within its budget, behind a
    /// common word: once enough words are noted with the fewest typos possible, the words whose
    /// first posting comes after the worst of them are left unread (and, with a delta, only their
    /// delta documents are read). Against the reference, before and after updates that give
    /// left-out words a better delta entry.
    func testOutrankedTypoWordsAreLeftUnread() throws {
        var rng = SeededGenerator(seed: 20261208)
        let family = Self.wortFamily
        var entries: [CatalogEntry] = []
        for n in 0..<4000 {
            var words = [rng.chance(0.9) ? "fort" : "ford", family.randomElement(using: &rng)!]
            // A word starting with "wort" beside it half the time: the family word's entry then has
            // no typo, which is what lets the words noted outrank the ones not read yet.
            if rng.chance(0.5) { words.append(rng.chance(0.7) ? "worth" : "wortley") }
            if rng.chance(0.3) { words.append(Self.filler.randomElement(using: &rng)!) }
            entries.append(CatalogEntry(id: "w\(n)", title: words.joined(separator: " "), categories: ["c\(n % 3)"],
                                        weight: UInt64(Int.random(in: 1...1_000_000, using: &rng))))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let texts = ["fort wort", "fort worth", "fort wo", "fort wor", "ford wort", "frot wort", "fort wortle", "fort vort"]
        func check(_ phase: String) {
            let (compared, outranked) = Self.compareTypoTexts(texts, fixture, reference, phase: phase) {
                SuggestContext.typoCompletionWordsOutranked.load(ordering: .relaxed)
            }
            print("[general plan, outranked typo words] \(phase): \(compared) answers compared, \(outranked) words left unread")
            XCTAssertGreaterThan(outranked, 100, "\(phase): the words are left unread, so that rule is what is tested")
        }
        check("built")
        // Delta entries without a typo, heavier than any base one, for words whose base postings
        // are left unread.
        let updates = family.filter { $0.hasPrefix("wor") }.prefix(30).enumerated().map { n, word in
            CatalogEntry(id: "d\(n)", title: "fort worth \(word)", categories: ["c0"], weight: UInt64(2_000_000 + n))
        }
        try Self.update(fixture, &reference, upserting: updates,
                        deleting: entries.sorted { $0.weight > $1.weight }.prefix(10).map(\.id))
        check("after updates")
    }

    /// Completions of a typo'd partial word whose hundreds of words are mostly in documents outside
    /// the candidates ("New Terr" on cities): each pass's candidates become a bitmap that the
    /// words' postings are tested against, rather than galloped into, and a word's completion
    /// offers are looked up only at its first candidate. Against the reference, with a typo'd
    /// complete word (two passes), fresh and after updates and deletions.
    func testManyTypoWordsAreTestedAgainstThePassesBitmaps() throws {
        var rng = SeededGenerator(seed: 20261207)
        // Few typo-free matches ("worth" in one title in a hundred), or the typo-free plan would
        // settle the answer without the walk.
        let family = Self.wortFamily.filter { !$0.hasPrefix("wort") }
        var entries: [CatalogEntry] = []
        for n in 0..<7000 {
            // A third of the documents are candidates ("fort", or its typo'd twin "frot"): more than
            // ``SuggestContext/typoWalkAlways``, so the words are listed whatever their postings.
            // The family's words are spread over all of them, so most of their postings are outside.
            let first = rng.chance(0.35) ? (rng.chance(0.8) ? "fort" : "frot") : Self.filler.randomElement(using: &rng)!
            var words = [first, family.randomElement(using: &rng)!]
            if rng.chance(0.01) { words.append("worth") }
            entries.append(CatalogEntry(id: "b\(n)", title: words.joined(separator: " "), categories: ["c\(n % 3)"],
                                        weight: UInt64(Int.random(in: 1...1_000_000, using: &rng)),
                                        aliases: rng.chance(0.1) ? [first + " " + family.randomElement(using: &rng)!.uppercased()] : []))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let texts = ["fort wort", "fort vort", "frot wort", "fort worl", "fort woth", "frot worti"]
        func check(_ phase: String) {
            let (compared, bitmaps) = Self.compareTypoTexts(texts, fixture, reference, phase: phase) {
                SuggestContext.typoCompletionBitmapPasses.load(ordering: .relaxed)
            }
            print("[general plan, typo words against bitmaps] \(phase): \(compared) answers compared, \(bitmaps) pass bitmaps")
            XCTAssertGreaterThan(bitmaps, 10, "\(phase): the passes' bitmaps are used, so that path is what is tested")
        }
        check("built")
        let updates = family.prefix(40).enumerated().map { n, word in
            CatalogEntry(id: "d\(n)", title: "fort \(word)", categories: ["c1"], weight: UInt64(Int.random(in: 1...2_000_000, using: &rng)))
        }
        try Self.update(fixture, &reference, upserting: updates,
                        deleting: entries.filter { $0.title.hasPrefix("fort") }.prefix(20).map(\.id))
        check("after updates")
    }

    /// Once the entries are settled, a candidate whose words under the exact partial word are all
    /// final completions is passed over unread ("r-cr" on Debian: a thousand "r cran …" titles
    /// before the other words starting "cr"). Here most titles pair a common word with "cran",
    /// and rarer words under "cr" (in titles and in aliases, some of them spelling variants a
    /// title word of the same entry hides, so a word met unoffered stays open) are spread down the
    /// rank order, with tied weights; a typo'd twin of the common word makes later passes.
    func testCandidatesWithOnlyFinalWordsArePassedOver() throws {
        var rng = SeededGenerator(seed: 20261206)
        // More words under "cr" than the plan lists to take completions from their postings (256),
        // so the walk in rank order is what completes: most of them only in a few entries without
        // the common word (as "node-lodash-packages" lists hundreds of aliases on Debian).
        let letters = Array("abdeilmnoprstuy")
        var rare = ["crayon", "crul", "crosstalk", "credentials", "crisp", "crumb", "cron", "crane", "cranium", "crab"]
        while rare.count < 400 {
            let word = "cr" + String((0..<Int.random(in: 2...5, using: &rng)).map { _ in letters.randomElement(using: &rng)! })
            if !rare.contains(word), word != "cran" { rare.append(word) }
        }
        var entries: [CatalogEntry] = []
        for n in 0..<3000 {
            var words = [rng.chance(0.9) ? "rlang" : "rlamg"]
            if rng.chance(0.85) { words.append("cran") }
            if rng.chance(0.03) { words.append(rare.randomElement(using: &rng)!) }
            words.append(Self.filler.randomElement(using: &rng)!)
            words.shuffle(using: &rng)
            // "crayons" spells the title's "crayon" another way (not offered); "crimson" is offered.
            var aliases: [String] = []
            if rng.chance(0.03) { aliases.append(rng.chance(0.5) ? "crayons" : "crimson \(words[0])") }
            entries.append(CatalogEntry(id: "r\(n)", title: words.joined(separator: " "), categories: ["c\(n % 4)"],
                                        weight: UInt64(rng.chance(0.3) ? 50 : Int.random(in: 1...100_000, using: &rng)),
                                        aliases: aliases))
        }
        // Read once the entries are settled: "crayons" in A's alias spells A's "crayon" another way,
        // so A does not offer it and it stays open for B, which does.
        for n in 0..<3 {
            entries.append(CatalogEntry(id: "first\(n)", title: "rlang cran \(Self.filler[n])", categories: ["c2"], weight: UInt64(300_000 + n)))
        }
        entries.append(CatalogEntry(id: "A", title: "rlang crayon", categories: ["c2"], weight: 250_000, aliases: ["crayons"]))
        entries.append(CatalogEntry(id: "B", title: "rlang crayons adria", categories: ["c2"], weight: 240_000))
        // A candidate of a later pass may have more typos than the pass's bound: "rlangxyqq" is two
        // edits from "rlangxyzw", in the pass of one, and read before the lighter "rlangxyzq" (one
        // edit), which is the better entry of "crzz" for all that.
        for n in 0..<3 {
            entries.append(CatalogEntry(id: "exact\(n)", title: "rlangxyzw cran \(Self.filler[n])", categories: ["c2"], weight: UInt64(300_000 + n)))
        }
        entries.append(CatalogEntry(id: "D2", title: "rlangxyqq crzz", categories: ["c2"], weight: 280_000))
        entries.append(CatalogEntry(id: "D1", title: "rlangxyzq crzz", categories: ["c2"], weight: 270_000))
        // A typo'd partial word among fewer candidates (no term walk: completions come from the
        // walk), whose matches are mapped to ordinal ranges: "tomlo crayo" matches "crayon",
        // "craxon", "cayo…" within one edit, most of them in many candidates.
        let near = ["crayon", "craxon", "cayol", "crayo", "crxyo", "crayonne", "rayos", "cryaon"]
        for n in 0..<220 {
            var words = ["tomlo", rng.chance(0.8) ? "crayon" : near.randomElement(using: &rng)!]
            if rng.chance(0.3) { words.append(rare.randomElement(using: &rng)!) }
            entries.append(Self.entry("t\(n)", words, category: "c\(n % 3)", tiedWeight: 40,
                                      aliases: rng.chance(0.05) ? ["crayons tomlo"] : [], &rng))
        }
        for n in 0..<8 {
            entries.append(CatalogEntry(id: "many\(n)", title: "bundle \(n)", categories: ["c0"], weight: 7,
                                        aliases: rare.dropFirst(n * 50).prefix(50).map { "bundle \($0)" }))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let texts = ["rlang cr", "rlang cra", "rlang c", "rlang cran c", "rlamg cr", "rlangs cr", "cran rlang cr", "rlang crayo", "rlangxyzw cr"]
        func check(_ phase: String) {
            let before = SuggestContext.candidatesWithFinalWordsPassedOver.load(ordering: .relaxed)
            Self.compare(fixture, reference, texts: texts, tokens: [[], [.category("c2")]],
                         limits: [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 3, categories: 0, completions: 12),
                                  SuggestLimits(entries: 0, categories: 0, completions: 2), SuggestLimits(entries: 1, categories: 1, completions: 1)],
                         phase: phase)
            let passed = SuggestContext.candidatesWithFinalWordsPassedOver.load(ordering: .relaxed) - before
            // The typo'd partial word's walks alone.
            let typoBefore = SuggestContext.candidatesWithFinalWordsPassedOver.load(ordering: .relaxed)
            Self.compare(fixture, reference, texts: ["tomlo crayo", "tomlo craxo", "tomlo cray", "tomlo crayon"], tokens: [[]],
                         limits: [SuggestLimits(entries: 3, categories: 0, completions: 5), SuggestLimits(entries: 1, categories: 1, completions: 8)],
                         phase: phase)
            let typoPassed = SuggestContext.candidatesWithFinalWordsPassedOver.load(ordering: .relaxed) - typoBefore
            print("[general plan, final completion words] \(phase): \(passed) candidates passed over, \(typoPassed) of a typo'd word")
            XCTAssertGreaterThan(passed, 1000, "\(phase): candidates are passed over, so that rule is what is tested")
            XCTAssertGreaterThan(typoPassed, 100, "\(phase): a typo'd word's candidates are passed over too")
        }
        check("built")
        // Delta entries with rare words, heavier than any base one, and the best base ones deleted.
        let updates = rare.prefix(6).enumerated().map { n, word in
            CatalogEntry(id: "d\(n)", title: "rlang \(word) cran", categories: ["c2"], weight: UInt64(200_000 + n))
        }
        try Self.update(fixture, &reference, upserting: updates,
                        deleting: entries.sorted { $0.weight > $1.weight }.prefix(10).map(\.id))
        check("after updates")
    }

    /// A typo'd partial word whose prefix has far more postings than there are candidates: the
    /// candidates with a word starting with it exactly (the first pass) are listed through the
    /// forward index instead of not at all, so the walk's passes tell the one-typo candidates
    /// apart. Here most titles have a word under "blorp", a few have the rare complete word, and
    /// words one edit away ("blarp…", "blorq…", "lorp…") are in titles and aliases.
    func testAPartialWordWithManyPostingsListsItsFirstPassByForward() throws {
        var rng = SeededGenerator(seed: 20261207)
        let under = ["blorpa", "blorpen", "blorpish", "blorp"]
        let near = ["blarp", "blorqe", "lorpy", "bllorp", "blopr", "blarpish"]
        var entries: [CatalogEntry] = []
        for n in 0..<2400 {
            var words: [String] = []
            if rng.chance(0.1) { words.append(rng.chance(0.8) ? "rarew" : "rarex") }
            if rng.chance(0.7) { words.append(under.randomElement(using: &rng)!) }
            if rng.chance(0.3) { words.append(near.randomElement(using: &rng)!) }
            entries.append(Self.entry("b\(n)", words, category: "c\(n % 3)", tiedWeight: 60,
                                      aliases: rng.chance(0.05) ? ["\(near.randomElement(using: &rng)!) rarew"] : [], &rng))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let texts = ["rarew blorp", "rarew blarp", "rarew blor", "rarew blorpi", "rarex blorp", "rarw blorp", "rarew blo"]
        func check(_ phase: String) {
            Self.compare(fixture, reference, texts: texts, tokens: [[], [.category("c1")]],
                         limits: [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 2, categories: 0, completions: 8),
                                  SuggestLimits(entries: 0, categories: 1, completions: 3)],
                         phase: phase, counting: SuggestContext.exactPartialsByForward, moreThan: 10, "first pass listed by forward")
        }
        check("built")
        let updates = (0..<6).map { n in
            CatalogEntry(id: "d\(n)", title: "rarew \(near[n]) \(under[n % under.count])", categories: ["c1"], weight: UInt64(200_000 + n))
        }
        try Self.update(fixture, &reference, upserting: updates,
                        deleting: entries.filter { $0.title.contains("rarew") }.sorted { $0.weight > $1.weight }.prefix(5).map(\.id))
        check("after updates")
    }

    /// The partial word starts a complete word typed before it ("stauner stau"): the candidates
    /// with every complete word spelled exactly are known to be in the first pass's list, and only
    /// the others (a typo'd spelling of the word, "stuaner", "staunerr") are tested for a word
    /// starting with it. Words one edit from the partial word ("stua…", "sau…") are in titles too.
    func testAPartialWordStartingACompleteWordTestsOnlyItsTypoedCandidates() throws {
        var rng = SeededGenerator(seed: 20261208)
        let spellings = ["stauner", "stauner", "stauner", "stuaner", "staunerr", "stainer"]
        let others = ["staumo", "stava", "sauter", "stuat", "plow"]
        var entries: [CatalogEntry] = []
        for n in 0..<1800 {
            var words = [rng.pick(spellings)]
            if rng.chance(0.4) { words.append(rng.pick(others)) }
            entries.append(Self.entry("s\(n)", words, category: "c\(n % 3)", tiedWeight: 70,
                                      aliases: rng.chance(0.05) ? [rng.pick(others)] : [], &rng))
        }
        let updates = (0..<5).map { n in
            CatalogEntry(id: "u\(n)", title: "\(spellings[n]) \(others[n])", categories: ["c2"], weight: UInt64(300_000 + n))
        }
        try Self.compareFreshAndUpdated(
            entries, texts: ["stauner stau", "stauner staun", "stauner stauner", "stauner stua", "stuaner stau", "stauner staum"],
            tokens: [[], [.category("c2")]],
            limits: [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 3, categories: 0, completions: 8)],
            counting: SuggestContext.exactPartialsFromCompleteWords, moreThan: 1, "complete word's candidates known",
            upserting: updates, deleting: entries.filter { $0.title.contains("stauner") }.sorted { $0.weight > $1.weight }.prefix(5).map(\.id))
    }

    /// More titles start with the typed text than are listed up front, and the light ones among
    /// them come last in rank order: the walk reads a probe of candidates, finds the entries not
    /// settled, and lists those titles after all (``SuggestContext/lateStartsWithLimit``). Here
    /// every title has "thou"; 530 light ones start with "thou thou s…"; the others have words
    /// starting with "s" elsewhere.
    func testTitlesStartingWithTheTextAreListedLateWhenTheWalkDoesNotSettle() throws {
        var rng = SeededGenerator(seed: 20261209)
        let tails = ["sable", "sorrel", "stoa", "sunder", "sylph", "scree"]
        var entries: [CatalogEntry] = []
        for n in 0..<9000 {
            let title: String
            let weight: UInt64
            if n % 17 == 0 {
                title = "thou thou \(tails.randomElement(using: &rng)!) \(Self.filler.randomElement(using: &rng)!)"
                weight = UInt64(Int.random(in: 1...50, using: &rng))
            } else {
                title = "\(Self.filler.randomElement(using: &rng)!) thou \(tails.randomElement(using: &rng)!)"
                weight = UInt64(rng.chance(0.2) ? 5_000 : Int.random(in: 100...100_000, using: &rng))
            }
            entries.append(CatalogEntry(id: "s\(n)", title: title, categories: ["c\(n % 4)"], weight: weight))
        }
        let updates = (0..<5).map { n in
            CatalogEntry(id: "d\(n)", title: "thou thou \(tails[n]) new", categories: ["c1"], weight: UInt64(10 + n))
        }
        try Self.compareFreshAndUpdated(
            entries, texts: ["thou thou s", "thou thou so", "thou thou sy", "thou thou ", "thou thou sable"], tokens: [[], [.category("c1")]],
            limits: [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 3, categories: 0, completions: 2)],
            counting: SuggestContext.lateStartsWithListings, moreThan: 4, "titles listed late",
            upserting: updates, deleting: entries.filter { $0.title.hasPrefix("thou thou") }.sorted { $0.weight > $1.weight }.prefix(5).map(\.id))
    }

    /// Compares `texts` (``compare(_:_:texts:tokens:limits:phase:counting:moreThan:_:)``) on a
    /// fresh shard of `entries`, then again after the upserts and deletions, on the shard and the
    /// reference alike, with the path under test taken more than `least` times in each phase.
    static func compareFreshAndUpdated(_ entries: [CatalogEntry], texts: [String], tokens: [[SearchToken]], limits: [SuggestLimits],
                                       counting counter: borrowing Atomic<Int>, moreThan least: Int, _ path: String,
                                       upserting updates: [CatalogEntry], deleting ids: [String]) throws {
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        compare(fixture, reference, texts: texts, tokens: tokens, limits: limits, phase: "built", counting: counter, moreThan: least, path)
        try update(fixture, &reference, upserting: updates, deleting: ids)
        compare(fixture, reference, texts: texts, tokens: tokens, limits: limits, phase: "after updates", counting: counter, moreThan: least, path)
    }

    /// An entry titled `words` and a filler word, shuffled, weighing `tiedWeight` one time in five
    /// (ties broken by title and id) and a random weight otherwise.
    static func entry(_ id: String, _ words: [String], category: String, tiedWeight: UInt64, aliases: [String],
                      _ rng: inout SeededGenerator) -> CatalogEntry {
        var words = words
        words.append(filler.randomElement(using: &rng)!)
        words.shuffle(using: &rng)
        return CatalogEntry(id: id, title: words.joined(separator: " "), categories: [category],
                            weight: rng.chance(0.2) ? tiedWeight : UInt64(Int.random(in: 1...100_000, using: &rng)), aliases: aliases)
    }

    /// The same upserts, then deletions, on the shard and the reference.
    /// Compares the answer to every text, with typos off and on, with each of `tokens` and `limits`,
    /// with the reference's.
    static func compare(_ fixture: ExactnessTests.ShardFixture, _ reference: ReferenceIndex, texts: [String],
                        tokens: [[SearchToken]], limits: [SuggestLimits], phase: String) {
        for text in texts {
            for typos in [TypoMode.off, .auto] {
                for tokens in tokens {
                    for limits in limits {
                        let request = SuggestRequest(text: text, tokens: tokens, limits: limits, typos: typos)
                        XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                                     "\(phase): \"\(text)\" \(tokens) \(typos) \(limits)")
                    }
                }
            }
        }
    }

    /// ``compare(_:_:texts:tokens:limits:phase:)``, then a check that `counter` (a path's count)
    /// moved by more than `least` meanwhile: the path is what the comparisons tested.
    static func compare(_ fixture: ExactnessTests.ShardFixture, _ reference: ReferenceIndex, texts: [String],
                        tokens: [[SearchToken]], limits: [SuggestLimits], phase: String,
                        counting counter: borrowing Atomic<Int>, moreThan least: Int, _ path: String) {
        let before = counter.load(ordering: .relaxed)
        compare(fixture, reference, texts: texts, tokens: tokens, limits: limits, phase: phase)
        let taken = counter.load(ordering: .relaxed) - before
        print("[general plan, \(path)] \(phase): \(taken) times")
        XCTAssertGreaterThan(taken, least, "\(phase): \(path) is what is tested")
    }

    /// Complete words and a typo-free partial word whose delta documents under the prefix are too
    /// many to read whole: the prefix's delta list is walked best-first among the candidates, and
    /// stops once the words noted are final. Against the reference, for several limits, fresh
    /// batches re-weighting base and delta entries.
    func testTheDeltaCompletionsOfALongPrefixListAreWalkedBestFirst() throws {
        var rng = SeededGenerator(seed: 0xDE17_A0C0)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let words: [String] = (0..<40).map { (n: Int) -> String in "be\(letters[n % 26])\(letters[n / 26])x" }
        let base = (0..<300).map { n in
            CatalogEntry(id: "b\(n)", title: "alpha \(words[n % words.count]) \(n % 3 == 0 ? "gamma" : "delta")", categories: [],
                         weight: UInt64(rng.int(0...1_000_000)))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: base, parameters: IndexParameters(listSize: 4, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: base)
        let before = SuggestContext.deltaCompletionWalks.load(ordering: .relaxed)
        for batch in 0..<2 {
            var updates = (0..<900).map { n in
                CatalogEntry(id: "d\(batch)-\(n)", title: "alpha \(words[rng.int(0...(words.count - 1))]) omega", categories: [],
                             weight: UInt64(rng.int(0...1_000_000)))
            }
            updates += base.filter { _ in rng.chance(0.3) }.map { entry -> CatalogEntry in
                var moved = entry
                moved.weight = UInt64(rng.int(0...1_000_000))
                return moved
            }
            try Self.update(fixture, &reference, upserting: updates, deleting: [])
            for text in ["alpha be", "alpha bea", "alpha bec", "alpha b", "alpha beqx"] {
                for completions in [1, 2, 3, 5, 8] {
                    let request = SuggestRequest(text: text, limits: SuggestLimits(entries: 3, categories: 0, completions: completions),
                                                 typos: .off)
                    XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                                 "batch \(batch): \"\(text)\" completions \(completions)")
                }
            }
        }
        XCTAssertGreaterThan(SuggestContext.deltaCompletionWalks.load(ordering: .relaxed), before, "the delta's prefix list was walked")
    }

    /// `count` entries, each titled by a filler word and then `words` of it in a random order, in
    /// four categories, a fifth of them of one weight. The filler first: no title starts with the
    /// text, so the entries do not settle from the titles read up front, and the walk reaches its probe.
    static func entriesAfterAFiller(_ count: Int, _ rng: inout SeededGenerator,
                                    words: (inout SeededGenerator, Int) -> [String]) -> [CatalogEntry] {
        (0..<count).map { n in
            var chosen = words(&rng, n)
            chosen.shuffle(using: &rng)
            let title = ([Self.filler.randomElement(using: &rng)!] + chosen).joined(separator: " ")
            return CatalogEntry(id: "n\(n)", title: title, categories: ["c\(n % 4)"],
                                weight: UInt64(rng.chance(0.2) ? 50 : Int.random(in: 1...100_000, using: &rng)))
        }
    }

    /// Upserts 60 entries, each with a filler word, "camakee" or "thou", and one of `words` (half of
    /// them heavier than any base entry), and deletes 40 base entries with both "thou" and `part`.
    static func updateBehindCommonWords(_ fixture: ExactnessTests.ShardFixture, _ reference: inout ReferenceIndex,
                                        entries: [CatalogEntry], words: [String], deletingWith part: String) throws {
        let updates = (0..<60).map { n in
            CatalogEntry(id: "u\(n)", title: Self.filler[n % Self.filler.count] + (n % 3 == 0 ? " camakee " : " thou ") + words[n % words.count],
                         categories: ["c\(n % 4)"], weight: UInt64(n % 2 == 0 ? 200_000 + n : 60 + n))
        }
        try update(fixture, &reference, upserting: updates,
                   deleting: entries.filter { $0.title.contains("thou") && $0.title.contains(part) }.prefix(40).map(\.id))
    }

    static func update(_ fixture: ExactnessTests.ShardFixture, _ reference: inout ReferenceIndex,
                       upserting updates: [CatalogEntry], deleting ids: [String]) throws {
        _ = try fixture.shard.upsert(updates)
        reference.upsert(updates)
        _ = try fixture.shard.delete(ids: ids)
        reference.delete(ids: ids)
    }
}
