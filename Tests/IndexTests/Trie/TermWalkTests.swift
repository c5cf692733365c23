// The edit automaton and the term-trie walks against brute force: Analysis's EditDistance
// (written straight from its definition) over random words of a small alphabet, so that shared
// prefixes, transpositions and long runs of one letter are common.

import Analysis
@testable import Index
import Storage
import TestSupport
import XCTest

final class TermWalkTests: XCTestCase {
    static let alphabet: [Character] = ["a", "b", "c", "é", "ж", "字", "𠀋"]

    static func randomWord(_ rng: inout SeededGenerator, length: ClosedRange<Int>) -> String {
        String((0..<rng.int(length)).map { _ in rng.pick(alphabet) })
    }

    /// Distinct random words as sorted UTF-8 terms, as a build gives them to the trie.
    static func randomTerms(_ rng: inout SeededGenerator, count: ClosedRange<Int>, length: ClosedRange<Int>) -> [[UInt8]] {
        Array(Set((0..<rng.int(count)).map { _ in randomWord(&rng, length: length) }))
            .map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The packed trie of `terms`, in turn with child indexes on every node of two children or
    /// more, on none, and as builds write them; with best documents (``bests(_:)``) in every
    /// other round, so that every walk reads both node layouts.
    static func trie(_ terms: [[UInt8]], round: Int) -> [UInt8] {
        PackedTrie.build(terms, bests: round % 2 == 0 ? bests(terms) : nil, indexedFrom: [2, nil, PackedTrie.indexedChildren][round % 3])
    }

    /// A first name posting for each term, fixed by its bytes: numbers past 127 and past 16,383
    /// (varints of two and three bytes) and, for one term in eight, none (`UInt32.max`).
    static func bests(_ terms: [[UInt8]]) -> [UInt32] {
        terms.map { term in
            var hash: UInt32 = 2_166_136_261
            for byte in term { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
            return hash % 8 == 0 ? .max : hash % 70_000
        }
    }

    /// Queries longer than 64 scalars (the automaton's per-scalar position masks do not fit them,
    /// so it compares scalars one by one) agree with EditDistance too, ASCII and not.
    func testLongQueriesAgreeWithEditDistance() {
        var rng = SeededGenerator(seed: 0x10_9A5C)
        for round in 0..<200 {
            let stem = Self.randomWord(&rng, length: 65...80)
            let query = round % 2 == 0 ? String(stem.map { $0 == "é" || $0 == "ж" || $0 == "字" || $0 == "𠀋" ? "c" : $0 }) : stem
            // A word near the query: a few random edits of it, so that distances within budget occur.
            var word = Array(query)
            for _ in 0..<rng.int(0...3) where !word.isEmpty {
                let at = rng.int(0...(word.count - 1))
                switch rng.int(0...2) {
                case 0: word[at] = rng.pick(Self.alphabet)
                case 1: word.remove(at: at)
                default: word.insert(rng.pick(Self.alphabet), at: at)
                }
            }
            let candidate = String(word.prefix(rng.int(60...word.count)))
            let budget = rng.int(0...3)
            for prefixMode in [false, true] {
                var automaton = BandAutomaton(query: query.unicodeScalars.map(\.value), budget: budget, prefixMode: prefixMode)
                Self.assertDistance(&automaton, query, candidate, budget: budget, prefixMode: prefixMode)
            }
        }
    }

    /// The same regions in the same order (prefixes, distances, subtree or not) and, when `terms`
    /// is given, the same terms with the same distances.
    static func assertSameWalk(_ regions: [TermRegion], _ terms: TermList?, as expected: [TermRegion], _ expectedTerms: TermList?,
                               _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(regions.map(\.prefix), expected.map(\.prefix), context, file: file, line: line)
        XCTAssertEqual(regions.map(\.distance), expected.map(\.distance), context, file: file, line: line)
        XCTAssertEqual(regions.map(\.isSubtree), expected.map(\.isSubtree), context, file: file, line: line)
        XCTAssertEqual(regions.map(\.best), expected.map(\.best), context, file: file, line: line)
        guard let terms else { return }
        XCTAssertEqual(terms.map(\.term), expectedTerms?.map(\.term), context, file: file, line: line)
        XCTAssertEqual(terms.map(\.distance), expectedTerms?.map(\.distance), context, file: file, line: line)
    }

    /// `automaton.distance(to: word)` is EditDistance's (prefix or whole word) where the budget
    /// admits it, nil otherwise.
    static func assertDistance(_ automaton: inout BandAutomaton, _ query: String, _ word: String, budget: Int, prefixMode: Bool,
                               file: StaticString = #filePath, line: UInt = #line) {
        let exact = prefixMode ? EditDistance.prefixDistance(query, word) : EditDistance.distance(query, word)
        let expected = EditDistance.admits(exact, budget: budget, query: query, word: word) ? exact : nil
        XCTAssertEqual(automaton.distance(to: Array(word.utf8)), expected,
                       "query \(query) word \(word) budget \(budget) prefix \(prefixMode)", file: file, line: line)
    }

    /// `distance(to:)` equals EditDistance (prefix or whole word) where the budget admits it
    /// (``EditDistance/admits(_:budget:query:word:)``: a second edit needs the query's first letter), nil otherwise,
    /// for every budget the query lengths give and beyond; and `isFinal` never lies: when it holds
    /// after a prefix, every extension has the same prefix distance.
    func testAutomatonAgreesWithEditDistance() {
        var rng = SeededGenerator(seed: 0xA17_0E1A)
        for _ in 0..<3000 {
            let query = Self.randomWord(&rng, length: 1...9)
            let word = Self.randomWord(&rng, length: 0...12)
            let budget = rng.int(0...3)
            for prefixMode in [false, true] {
                var automaton = BandAutomaton(query: query.unicodeScalars.map(\.value), budget: budget, prefixMode: prefixMode)
                Self.assertDistance(&automaton, query, word, budget: budget, prefixMode: prefixMode)
                guard prefixMode else { continue }
                // Push scalar by scalar; where the row is final, every extension keeps the distance.
                automaton.truncate(to: 0)
                var typed = ""
                for scalar in word.unicodeScalars {
                    guard automaton.push(scalar.value) else { break }
                    typed.unicodeScalars.append(scalar)
                    if automaton.isFinal {
                        let d = automaton.distance
                        XCTAssertEqual(d, EditDistance.prefixDistance(query, typed))
                        for _ in 0..<3 {
                            let longer = typed + Self.randomWord(&rng, length: 1...5)
                            XCTAssertEqual(EditDistance.prefixDistance(query, longer), d,
                                           "final after \(typed) for \(query), but \(longer) differs")
                        }
                    }
                }
            }
        }
    }

    /// The packed trie's matches, and its regions expanded into terms, are exactly the terms
    /// within the budget, with their distances.
    func testPackedTrieMatchesAndRegionsAgreeWithBruteForce() throws {
        var rng = SeededGenerator(seed: 0x7E_A1)
        for round in 0..<40 {
            let terms = Self.randomTerms(&rng, count: 1...300, length: 1...8)
            let trie = Self.trie(terms, round: round)
            try Bytes.withView(of: trie) { bytes in
                for _ in 0..<30 {
                    let query = Self.randomWord(&rng, length: 1...7)
                    let budget = rng.int(0...2)
                    let prefixMode = rng.chance(0.7)
                    var expected: [[UInt8]: Int] = [:]
                    for term in terms {
                        let word = String(decoding: term, as: UTF8.self)
                        let d = prefixMode ? EditDistance.prefixDistance(query, word) : EditDistance.distance(query, word)
                        if EditDistance.admits(d, budget: budget, query: query, word: word) { expected[term] = d }
                    }
                    let scalars = query.unicodeScalars.map(\.value)
                    let found = try PackedTrie.matches(bytes, query: scalars, budget: budget, prefixMode: prefixMode)
                    let context = "round \(round) query \(query) budget \(budget) prefix \(prefixMode)"
                    XCTAssertEqual(Dictionary(uniqueKeysWithValues: found.map { (Array($0.term), $0.distance) }), expected, context)
                    XCTAssertEqual(found.map(\.term), found.map(\.term).sorted { $0.lexicographicallyPrecedes($1) }, context)

                    var listed: TermList? = TermList()
                    let regions = try PackedTrie.regions(bytes, query: scalars, budget: budget, prefixMode: prefixMode, terms: &listed)
                    XCTAssertEqual(listed!.map(\.term), found.map(\.term), context)
                    // Regions cover the same terms: each term once, at its region's distance.
                    var covered: [[UInt8]: Int] = [:]
                    for region in regions {
                        let members = region.isSubtree ? terms.filter { $0.starts(with: region.prefix) } : [region.prefix]
                        XCTAssertFalse(members.isEmpty, context)
                        for term in members {
                            XCTAssertNil(covered.updateValue(region.distance, forKey: term), "\(context): covered twice")
                        }
                    }
                    XCTAssertEqual(covered, expected, context)
                    // Each region's best is the first posting of the terms under its prefix (its
                    // node's subtree, a single term's included), or 0 where the trie has none.
                    let bests = Dictionary(uniqueKeysWithValues: zip(terms, Self.bests(terms)))
                    for region in regions {
                        let expectedBest = round % 2 == 0 ? terms.filter { $0.starts(with: region.prefix) }.map { bests[$0]! }.min()! : 0
                        XCTAssertEqual(region.best, expectedBest, "\(context): best of \(region.prefix)")
                    }
                }
            }
        }
    }

    /// The automaton pushed scalar by scalar, past the rows it starts with (words of up to 44
    /// scalars), against brute force: each prefix's distance, no extension matching once it is
    /// dead, and `isFinal` never lying.
    func testBandAutomatonAgreesWithEditDistance() {
        var rng = SeededGenerator(seed: 0xBA_4D)
        for _ in 0..<3000 {
            let query = Self.randomWord(&rng, length: 1...9)
            let word = Self.randomWord(&rng, length: 0...44)
            let budget = rng.int(0...3)
            for prefixMode in [false, true] {
                var automaton = BandAutomaton(query: query.unicodeScalars.map(\.value), budget: budget, prefixMode: prefixMode)
                var typed = ""
                var alive = true
                for scalar in word.unicodeScalars where alive {
                    alive = automaton.push(scalar.value)
                    typed.unicodeScalars.append(scalar)
                    let exact = prefixMode ? EditDistance.prefixDistance(query, typed) : EditDistance.distance(query, typed)
                    let context = "query \(query) word \(typed) budget \(budget) prefix \(prefixMode)"
                    if alive {
                        XCTAssertEqual(automaton.distance, EditDistance.admits(exact, budget: budget, query: query, word: typed) ? exact : nil, context)
                    } else {
                        // Dead: no extension matches.
                        let longer = typed + Self.randomWord(&rng, length: 0...4)
                        let d = prefixMode ? EditDistance.prefixDistance(query, longer) : EditDistance.distance(query, longer)
                        XCTAssertFalse(EditDistance.admits(d, budget: budget, query: query, word: longer), "\(context): \(longer) matches")
                    }
                    if alive, automaton.isFinal {
                        let longer = typed + Self.randomWord(&rng, length: 1...5)
                        XCTAssertEqual(EditDistance.prefixDistance(query, longer), automaton.distance, "\(context): final, but \(longer) differs")
                    }
                }
            }
        }
    }

    /// A walk from the previous keystroke's regions (the query less its last scalar, same budget)
    /// gives exactly what a whole walk gives: the same regions in the same order, the same terms.
    /// Typed words are extended one scalar at a time, as people type them.
    func testWalksFromThePreviousKeystrokeEqualWholeWalks() throws {
        var rng = SeededGenerator(seed: 0x1C_4E)
        var derived = 0
        for round in 0..<40 {
            let terms = Self.randomTerms(&rng, count: 1...400, length: 1...9)
            let trie = Self.trie(terms, round: round)
            try Bytes.withView(of: trie) { bytes in
                for _ in 0..<20 {
                    // Often a stored term typed on, sometimes random scalars.
                    let target = rng.chance(0.6) ? String(decoding: rng.pick(terms), as: UTF8.self) + Self.randomWord(&rng, length: 0...2)
                                                 : Self.randomWord(&rng, length: 2...9)
                    let scalars = target.unicodeScalars.map(\.value)
                    let budget = rng.int(0...2)
                    var previous: [TermRegion]?
                    for length in 1...scalars.count {
                        let typed = Array(scalars.prefix(length))
                        let context = "round \(round) typed \(String(String.UnicodeScalarView(typed.compactMap(Unicode.Scalar.init)))) budget \(budget)"
                        var wholeTerms: TermList? = TermList()
                        let whole = try PackedTrie.regions(bytes, query: typed, budget: budget, prefixMode: true, terms: &wholeTerms)
                        if let previous {
                            for listing in [false, true] {
                                var walker = TrieWalker(query: typed, budget: budget, prefixMode: true, listTerms: listing)
                                XCTAssertTrue(try walker.walk(bytes, within: previous), "\(context): the previous regions fit")
                                Self.assertSameWalk(walker.regions, listing ? walker.found : nil, as: whole, wholeTerms, context)
                            }
                            derived += 1
                        }
                        previous = whole
                    }
                }
            }
        }
        XCTAssertGreaterThan(derived, 1000)
    }

    /// A whole word's matches walked inside its own regions as a partial word (the keystroke
    /// before the space that completes it) equal a whole walk's.
    func testWholeWordMatchesWithinItsPrefixRegionsEqualWholeWalks() throws {
        var rng = SeededGenerator(seed: 0x3A_110)
        var compared = 0
        for round in 0..<40 {
            let terms = Self.randomTerms(&rng, count: 1...400, length: 1...9)
            let trie = Self.trie(terms, round: round)
            try Bytes.withView(of: trie) { bytes in
                for _ in 0..<30 {
                    let word = rng.chance(0.6) ? String(decoding: rng.pick(terms), as: UTF8.self) : Self.randomWord(&rng, length: 1...9)
                    let scalars = word.unicodeScalars.map(\.value)
                    let budget = rng.int(0...2)
                    var none: TermList?
                    let regions = try PackedTrie.regions(bytes, query: scalars, budget: budget, prefixMode: true, terms: &none)
                    var walker = TrieWalker(query: scalars, budget: budget, prefixMode: false, listTerms: true)
                    XCTAssertTrue(try walker.walk(bytes, within: regions))
                    let whole = try PackedTrie.matches(bytes, query: scalars, budget: budget, prefixMode: false)
                    XCTAssertEqual(walker.found!.map(\.term), whole.map(\.term), "round \(round) \(word) budget \(budget)")
                    XCTAssertEqual(walker.found!.map(\.distance), whole.map(\.distance), "round \(round) \(word) budget \(budget)")
                    compared += 1
                }
            }
        }
        XCTAssertEqual(compared, 1200)
    }

    /// Regions from another trie do not fit: the walk notices and walks whole.
    func testForeignRegionsFallBackToAWholeWalk() throws {
        let trie = PackedTrie.build(["apple", "apply", "banana"].map { Array($0.utf8) })
        try Bytes.withView(of: trie) { bytes in
            let query = Array("appl".unicodeScalars.map(\.value))
            var none: TermList?
            let whole = try PackedTrie.regions(bytes, query: query, budget: 1, prefixMode: true, terms: &none)
            let foreign = [TermRegion(prefix: Array("zebra".utf8), distance: 0, isSubtree: true)]
            var walker = TrieWalker(query: query, budget: 1, prefixMode: true, listTerms: false)
            XCTAssertFalse(try walker.walk(bytes, within: foreign))
            XCTAssertTrue(walker.regions.isEmpty)
            let fromForeign = try PackedTrie.regions(bytes, query: query, budget: 1, prefixMode: true, previous: foreign, terms: &none)
            XCTAssertEqual(fromForeign.map(\.prefix), whole.map(\.prefix))
        }
    }

    /// The step to two edits (and beyond) walked from the one-edit regions of the query less its
    /// last scalar (``PackedTrie/regions(_:query:budget:oneEditRegions:terms:)``: the first
    /// scalar's subtree at the budget, the rest within those regions at one edit) gives exactly
    /// what a whole walk gives: the same regions in the same order, the same terms. Over a wide
    /// alphabet, so that most root children are gated, and with queries whose first scalar no
    /// term has.
    func testTheStepToTwoEditsFromOneEditRegionsEqualsAWholeWalk() throws {
        var rng = SeededGenerator(seed: 0x2ED_175)
        let wide: [Character] = Array("abcdefghijklmnopqrstuvwxyzéжшщ字𠀋ñß")
        func word(_ length: ClosedRange<Int>) -> String { String((0..<rng.int(length)).map { _ in rng.pick(wide) }) }
        var compared = 0, matched = 0
        for round in 0..<30 {
            let terms = Array(Set((0..<rng.int(50...600)).map { _ in word(1...9) })).map { Array($0.utf8) }
                .sorted { $0.lexicographicallyPrecedes($1) }
            let trie = Self.trie(terms, round: round)
            try Bytes.withView(of: trie) { bytes in
                for _ in 0..<40 {
                    // Often a stored term with a typo or two, sometimes random scalars.
                    var query = Array(rng.chance(0.7) ? String(decoding: rng.pick(terms), as: UTF8.self) : word(2...9))
                    for _ in 0..<rng.int(0...2) where query.count > 1 { query[rng.int(0...(query.count - 1))] = rng.pick(wide) }
                    if query.count < 2 { query.append(rng.pick(wide)) }
                    let scalars = String(query).unicodeScalars.map(\.value)
                    let budget = rng.int(2...3)
                    let context = "round \(round) query \(String(query)) budget \(budget)"
                    var wholeTerms: TermList? = TermList()
                    let whole = try PackedTrie.regions(bytes, query: scalars, budget: budget, prefixMode: true, terms: &wholeTerms)
                    var none: TermList?
                    let oneEdit = try PackedTrie.regions(bytes, query: Array(scalars.dropLast()), budget: 1, prefixMode: true, terms: &none)
                    for listing in [false, true] {
                        var splitTerms: TermList? = listing ? TermList() : nil
                        let split = try XCTUnwrap(try PackedTrie.regions(bytes, query: scalars, budget: budget, oneEditRegions: oneEdit,
                                                                         terms: &splitTerms), context)
                        Self.assertSameWalk(split, splitTerms, as: whole, wholeTerms, context)
                    }
                    compared += 1
                    matched += whole.count
                }
            }
        }
        XCTAssertEqual(compared, 1200)
        // Not vacuous: the walks matched regions, and typo'd ones too.
        XCTAssertGreaterThan(matched, 5_000)
    }

    /// A whole walk that reads only the root children ``RootFanout`` names finds exactly what a
    /// walk of every root child finds: the same regions and terms, in the same order, for prefix
    /// and whole words at every budget. Over a wide alphabet (many root children, most of them
    /// unreadable for a given query), so that the fanout skips most of the root; and with a
    /// fanout of another trie, which the walk must not use.
    func testWalksThroughTheRootFanoutEqualWholeWalks() throws {
        var rng = SeededGenerator(seed: 0xFA_0717)
        let wide: [Character] = Array("abcdefghijklmnopqrstuvwxyzéжшщ字字𠀋ñßøאבג")
        func word(_ length: ClosedRange<Int>) -> String { String((0..<rng.int(length)).map { _ in rng.pick(wide) }) }
        var skipped = 0, compared = 0
        let other = PackedTrie.build(["apple", "apply", "banana", "cherry", "date", "elder", "fig", "grape", "kiwi"].map { Array($0.utf8) })
        let foreign = try Bytes.withView(of: other) { try $0.withUnsafeBytes { try RootFanout(trie: $0) } }
        XCTAssertNotNil(foreign)
        for round in 0..<30 {
            let terms = Array(Set((0..<rng.int(50...600)).map { _ in word(1...8) })).map { Array($0.utf8) }
                .sorted { $0.lexicographicallyPrecedes($1) }
            let trie = PackedTrie.build(terms, indexedFrom: round % 2 == 0 ? 2 : PackedTrie.indexedChildren)
            try Bytes.withView(of: trie) { bytes in
                let fanout = try bytes.withUnsafeBytes { try RootFanout(trie: $0) }
                for _ in 0..<40 {
                    let query = rng.chance(0.5) ? String(decoding: rng.pick(terms), as: UTF8.self) : word(1...9)
                    let scalars = query.unicodeScalars.map(\.value)
                    let budget = rng.int(0...2)
                    let prefixMode = rng.chance(0.7)
                    let context = "round \(round) query \(query) budget \(budget) prefix \(prefixMode)"
                    var plain = TrieWalker(query: scalars, budget: budget, prefixMode: prefixMode, listTerms: true)
                    try plain.walk(bytes)
                    for (name, used) in [("own", fanout), ("foreign", foreign)] {
                        var walker = TrieWalker(query: scalars, budget: budget, prefixMode: prefixMode, listTerms: true, fanout: used)
                        try walker.walk(bytes)
                        Self.assertSameWalk(walker.regions, walker.found, as: plain.regions, plain.found, "\(context) \(name)")
                        if name == "own" { skipped += walker.rootChildrenSkipped } else { XCTAssertEqual(walker.rootChildrenSkipped, 0, context) }
                    }
                    compared += 1
                }
            }
        }
        XCTAssertEqual(compared, 1200)
        // The fanout did prune: most walks skip most of a root of dozens of children.
        XCTAssertGreaterThan(skipped, 10_000)
    }
}
