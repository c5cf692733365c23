import Catalog
@testable import Index
import TestSupport
import XCTest

/// A typo'd partial word is matched against the chips' words held in memory per snapshot
/// (``ChipWordList``): the chips equal the reference's, the list is built for the snapshot the
/// query reads, and a category an upsert adds is matched at once (the next snapshot's list).
final class ChipWordListTests: XCTestCase {
    func testTypoedWordsMatchTheChipsOfTheirSnapshot() throws {
        var rng = SeededGenerator(seed: 0xC41F_0001)
        let countries = ["Central African Republic", "Centralia", "South Africa", "Afghanistan", "Albania", "Aland Islands",
                         "Cental Mountains", "Saint Lucia", "Santa Lucia Range", "Lucerne"]
        var entries: [CatalogEntry] = []
        for n in 0..<400 {
            entries.append(CatalogEntry(id: "e\(n)", title: "\(rng.pick(["cent", "africa", "lucia", "alban"])) \(rng.pick(["town", "city", "village"]))",
                                        categories: [rng.pick(countries)], weight: UInt64(rng.int(1...10_000))))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        let texts = ["centrl", "centra", "afirca", "lucai", "albnia", "souht afr", "saint luc", "lucern"]
        func check(_ phase: String) throws {
            for text in texts {
                let request = SuggestRequest(text: text, limits: SuggestLimits(entries: 3, categories: 5, completions: 2))
                XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "\(phase): \"\(text)\"")
            }
            let generation = try fixture.shard.current()
            let snapshot = try generation.environment.read { $0.snapshotID }
            XCTAssertTrue(generation.chipWords.isBuilt(for: snapshot), "\(phase): the words of the snapshot read are held")
        }
        try check("built")
        let added = [CatalogEntry(id: "new", title: "lucia harbour", categories: ["Lucania Coast"], weight: 50_000)]
        _ = try fixture.shard.upsert(added)
        reference.upsert(added)
        try check("after an upsert adding a category")
        let answer = try fixture.shard.suggest(SuggestRequest(text: "lucana", limits: SuggestLimits(entries: 3, categories: 5, completions: 2)))
        XCTAssertTrue(answer.categories.contains { $0.token == .category("Lucania Coast") }, "\(answer.categories)")
    }

    /// The list's walk (one automaton along the sorted words, as over a trie) gives every pair
    /// the distance ``QueryWord/distance(to:)`` gives its word, partial and complete, at every
    /// budget: over random words that share prefixes, with repeated words and non-ASCII scalars.
    func testTheSortedWalkGivesEachWordsOwnDistance() {
        var rng = SeededGenerator(seed: 0xC41F_0002)
        let alphabet = ["a", "b", "e", "l", "n", "r", "s", "é", "ø", "ß", "д", "香"]
        func randomWord(_ length: Int) -> String { (0..<length).map { _ in rng.pick(alphabet) }.joined() }
        for round in 0..<40 {
            // Words grown from a few stems, so that neighbours share prefixes of every length.
            let stems = (0..<6).map { _ in randomWord(rng.int(1...4)) }
            var words = Set<String>()
            for _ in 0..<rng.int(1...120) { words.insert(rng.pick(stems) + randomWord(rng.int(0...6))) }
            let sorted = words.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
            var pairs: [(word: [UInt8], value: [UInt8])] = []
            for word in sorted {
                for value in 0..<rng.int(1...3) { pairs.append((word, Array("\(String(decoding: word, as: UTF8.self))#\(value)".utf8))) }
            }
            let half = pairs.count / 2
            let list = ChipWordList(categoryPairs: Array(pairs[..<half]), attributePairs: Array(pairs[half...]))
            for _ in 0..<30 {
                let typed = rng.chance(0.5) ? String(String(decoding: rng.pick(sorted), as: UTF8.self).prefix(rng.int(1...12)))
                                            : randomWord(rng.int(1...10))
                for isPartial in [true, false] {
                    for typos in [TypoMode.auto, .off] {
                        var word = QueryWord(typed, isPartial: isPartial, typos: typos)
                        var expected: [String] = []
                        for (index, pair) in pairs.enumerated() {
                            if let distance = word.distance(to: pair.word) {
                                expected.append("\(index < half) \(String(decoding: pair.value, as: UTF8.self)) \(distance)")
                            }
                        }
                        var found: [String] = []
                        list.forEachMatch(of: word) { value, distance, isCategory in
                            found.append("\(isCategory) \(String(decoding: value, as: UTF8.self)) \(distance)")
                        }
                        XCTAssertEqual(found, expected, "round \(round): \"\(typed)\" partial \(isPartial) \(typos)")
                    }
                }
            }
        }
    }
}
