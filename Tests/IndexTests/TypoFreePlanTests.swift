import Catalog
@testable import Index
import TestSupport
import XCTest

/// ``TypoFreePlan`` leaves at once when fewer words start with the partial word than completions
/// are wanted (typo-free matches cannot fill that section), and the answer, from the exact plans,
/// still agrees with the reference: fresh, and after updates that add and remove such words.
final class TypoFreePlanTests: XCTestCase {
    func testFewWordsUnderThePrefixSkipThePlanAndTheAnswerStaysExact() throws {
        var rng = SeededGenerator(seed: 0x7F0E_0001)
        let words = ["dictionary", "dictionaries", "diction", "dictum", "dactyl", "distinct", "edict", "dictate"]
        var entries: [CatalogEntry] = []
        for n in 0..<300 {
            let title = [rng.pick(words), rng.pick(["tools", "common", "data", "reader"])].joined(separator: " ")
            entries.append(CatalogEntry(id: "e\(n)", title: title, categories: ["c\(n % 3)"], weight: UInt64(rng.int(1...10_000))))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        var reference = ReferenceIndex(entries: entries)
        func check(_ phase: String, texts: [String], completions: Int, skips: Bool) {
            let before = TypoFreePlan.skippedForFewWords.load(ordering: .relaxed)
            for text in texts {
                let request = SuggestRequest(text: text, limits: SuggestLimits(entries: 5, categories: 2, completions: completions))
                XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), "\(phase): \"\(text)\" \(completions)")
            }
            let skipped = TypoFreePlan.skippedForFewWords.load(ordering: .relaxed) - before
            if skips { XCTAssertGreaterThan(skipped, 0, "\(phase): the plan must be skipped") } else { XCTAssertEqual(skipped, 0, phase) }
        }
        // "dicti": three words; "dictionar": two; "reade": one, after a complete word.
        check("built", texts: ["dicti", "dictionar", "dictionary reade", "dictum tool"], completions: 5, skips: true)
        check("built, few wanted", texts: ["dicti"], completions: 2, skips: false)
        let updates = [CatalogEntry(id: "new1", title: "dictionnaire data", weight: 50_000),
                       CatalogEntry(id: "new2", title: "dictaphone reader", weight: 3)]
        _ = try fixture.shard.upsert(updates)
        reference.upsert(updates)
        _ = try fixture.shard.delete(ids: ["e0", "e1", "e2"])
        reference.delete(ids: ["e0", "e1", "e2"])
        check("after updates", texts: ["dicti", "dictionar", "dictionn", "dicta"], completions: 5, skips: true)
    }
}
