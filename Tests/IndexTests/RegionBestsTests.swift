import Catalog
@testable import Index
import TestSupport
import XCTest

/// A typo'd lone partial word reads its regions best first (``TermRegion/best``, from the term
/// trie's best documents): the entries' merge (``RegionMerge``) and the completions' words leave
/// unread the regions whose best comes after what the answer already holds. Checked against the
/// reference, fresh and through updates (a deletion moves a word's first live posting later, so a
/// best stays a bound), in the current layout and in layout 2, whose tries record no bests and so
/// read every region.
final class RegionBestsTests: XCTestCase {
    func testRegionsAreReadBestFirstAndAnswerLikeTheReference() throws {
        var rng = SeededGenerator(seed: 0x8E57_0001)
        // Few letters: every word has many others one edit away, in many small regions.
        let letters = Array("aeinoprstu")
        let vocabulary = Array(Set((0..<700).map { _ in String((0..<rng.int(3...6)).map { _ in rng.pick(letters) }) })).sorted()
        var entries: [CatalogEntry] = []
        for n in 0..<1500 {
            let title = (0..<rng.int(1...3)).map { _ in rng.pick(vocabulary) }.joined(separator: " ")
            // A few popular entries and a long tail of obscure ones, whose regions are the ones left.
            let weight = UInt64(rng.chance(0.03) ? rng.int(1_000_000...9_000_000) : rng.int(1...10_000))
            entries.append(CatalogEntry(id: "e\(n)", title: title, categories: ["c\(n % 3)"], weight: weight))
        }
        let long = vocabulary.filter { $0.count >= 4 }
        var texts: [String] = []
        for _ in 0..<50 {
            var scalars = Array(rng.pick(long))
            scalars = Array(scalars.prefix(rng.int(4...scalars.count)))
            if rng.chance(0.6) { scalars[rng.int(0...(scalars.count - 1))] = rng.pick(letters) }
            texts.append(String(scalars))
        }
        var reference = ReferenceIndex(entries: entries)
        var shards: [(format: GenerationFormat, shard: Shard, directory: TemporaryDirectory)] = []
        for format in [GenerationFormat.current, .beforeTrieBests] {
            let directory = TemporaryDirectory()
            let shard = try Shard(directory: directory.path)
            let info = try shard.buildGeneration(from: entries, parameters: IndexParameters(listSize: 4, heavyThreshold: 6), number: nil,
                                                 label: nil, format: format)
            try shard.activate(generation: info.number)
            shards.append((format, shard, directory))
        }
        var compared = 0
        for phase in ["built", "after updates"] {
            if phase == "after updates" {
                // The best entries of the popular words re-weighted to the bottom (deleted from the
                // base, their bests now stale), some deleted, new ones in the delta.
                let ranked = reference.entries.sorted { $0.weight > $1.weight }
                var updates = ranked.prefix(20).map { entry in
                    var entry = entry
                    entry.weight = 1
                    return entry
                }
                updates += (0..<20).map { n in
                    CatalogEntry(id: "new\(n)", title: "\(rng.pick(vocabulary)) \(rng.pick(vocabulary))", categories: ["c1"],
                                 weight: UInt64(rng.int(1...5_000_000)))
                }
                let deletes = ranked.dropFirst(20).prefix(10).map(\.id)
                for (_, shard, _) in shards {
                    _ = try shard.upsert(updates)
                    _ = try shard.delete(ids: Array(deletes))
                }
                reference.upsert(updates)
                reference.delete(ids: Array(deletes))
            }
            for (format, shard, _) in shards {
                let entriesBefore = PartialWordPlan.regionsLeftUnread.load(ordering: .relaxed)
                let wordsBefore = SuggestContext.regionsLeftUnread.load(ordering: .relaxed)
                for text in texts {
                    for limits in [SuggestLimits(entries: 5, categories: 0, completions: 5), SuggestLimits(entries: 10, categories: 0, completions: 0),
                                   SuggestLimits(entries: 0, categories: 0, completions: 8)] {
                        let request = SuggestRequest(text: text, limits: limits, typos: .auto)
                        XCTAssertNil(suggestDiff(shard: shard, reference: reference, request: request), "layout \(format.layout), \(phase): \"\(text)\" \(limits)")
                        compared += 1
                    }
                }
                let entriesUnread = PartialWordPlan.regionsLeftUnread.load(ordering: .relaxed) - entriesBefore
                let wordsUnread = SuggestContext.regionsLeftUnread.load(ordering: .relaxed) - wordsBefore
                if format.trieBests {
                    XCTAssertGreaterThan(entriesUnread, 20, "\(phase): the entries' merge leaves regions unread")
                    XCTAssertGreaterThan(wordsUnread, 8, "\(phase): the completions leave regions unread")
                } else {
                    XCTAssertEqual(entriesUnread, 0, "\(phase): without bests every region is read")
                    XCTAssertEqual(wordsUnread, 0, "\(phase): without bests every region is read")
                }
                print("[region bests] layout \(format.layout), \(phase): regions left unread: \(entriesUnread) by the entries, \(wordsUnread) by the completions")
            }
        }
        XCTAssertEqual(compared, 2 * 2 * 50 * 3)
    }
}
