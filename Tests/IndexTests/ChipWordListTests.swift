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
}
