import Catalog
@testable import Index
import TestSupport
import XCTest

/// The general plan's walk settling its completions on the *floor* of what unread candidates can
/// offer (``SuggestAccumulator/unreadCompletionFloor``): after the first pass has read every
/// candidate with a word starting with the typed partial word exactly, the candidates left offer
/// words one edit away at best. "Bra brau" on the synthetic 1M catalog read all 1,940 documents
/// with "bra" for completions alone, since the two words starting "brau" never filled them.
final class CompletionFloorTests: XCTestCase {
    /// Words one edit from "brau" (as a prefix), for the candidates' fill; "bra" itself is one.
    static let nearWords = ["grau", "trauxo", "brai", "bray", "bruk", "beau", "brat", "rauk", "brcu"]

    /// A short common word (no typos: three letters), a few titles with words starting "brau",
    /// the rest with words one edit away and a filler word (``GeneralPlanTests/entry(_:_:category:tiedWeight:aliases:_:)``:
    /// tied and spread weights); then titles where a typo-tolerant complete word ("thorn") is
    /// misspelt, some of them with a rare "brau…" word.
    static func makeEntries(_ rng: inout SeededGenerator) -> [CatalogEntry] {
        var entries: [CatalogEntry] = []
        for n in 0..<240 {
            var words = ["bra"]
            if n % 37 == 5 { words.append(["braustehy", "brauscreek"][n % 2]) }
            words.append(nearWords.randomElement(using: &rng)!)
            if rng.chance(0.5) { words.append("thorn") }
            entries.append(GeneralPlanTests.entry("b\(n)", words, category: "c\(n % 3)", tiedWeight: 100, aliases: [], &rng))
        }
        // The complete word misspelled ("thurn", "thorm") with a word starting "brau" exactly, light:
        // a candidate of "thorn brau" that offers a word at distance 0 with one typo, after the
        // heavier typo-free candidates that offer words one edit away.
        for n in 0..<40 {
            let misspelled = ["thurn", "thorm"][n % 2]
            let rare = n % 8 == 0 ? ["braukelm"] : []
            entries.append(CatalogEntry(id: "t\(n)", title: ([misspelled] + rare + [nearWords[n % nearWords.count]]).joined(separator: " "),
                                        categories: ["c\(n % 3)"], weight: UInt64(1 + n)))
        }
        return entries
    }

    /// Against the reference, typos on and off, before and after delta documents (a new heavy
    /// entry with a word starting "brau", new near words) and the deletion of the best "brau"
    /// titles; the rule is what settled some walks in each phase.
    func testCompletionsSettleOnTheFloorAndMatchTheReference() throws {
        var rng = SeededGenerator(seed: 20261207)
        let entries = Self.makeEntries(&rng)
        let texts = ["bra brau", "bra braus", "bra brauk", "bra grau", "bra bray", "bra brat", "thorn brau", "thorn braus",
                     "thorn bra brau", "bra thorn brau", "bra brai"]
        let updates = (0..<12).map { n in
            CatalogEntry(id: "u\(n)", title: "bra " + (n % 4 == 0 ? "braunew" : Self.nearWords[n % Self.nearWords.count]) + (n % 3 == 0 ? " thorn" : ""),
                         categories: ["c\(n % 3)"], weight: UInt64(n % 2 == 0 ? 90_000 + n : 3 + n))
        }
        let deleted = entries.filter { $0.title.contains("brau") }.sorted { $0.weight > $1.weight }.prefix(2).map(\.id)
        try GeneralPlanTests.compareFreshAndUpdated(
            entries, texts: texts, tokens: [[], [SearchToken.category("c1")]],
            limits: [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 0, categories: 0, completions: 3),
                     SuggestLimits(entries: 2, categories: 0, completions: 8), SuggestLimits(entries: 10, categories: 0, completions: 1)],
            counting: SuggestAccumulator.settledOnCompletionFloor, moreThan: 0, "completions settled on the floor",
            upserting: updates, deleting: deleted)
    }
}
