// The exact tier (Semantics.md, `exact`): an entry whose whole analysed title is the typed text
// ranks before every other typo-free match. No plan reads candidates in that order (trie lists,
// regions and passes follow static rank), so the tier's entries are entered first from the
// `titles` index, or from the first word's postings in generations written without it. These
// tests put exact titles where each plan would miss them: below a heavy node's truncated lists,
// past the first pass of the general plan, in the delta, deleted, behind tokens, more of them
// than the entries wanted, and longer than a title key.

import Catalog
import Foundation
import TestSupport
import XCTest
@testable import Index

final class ExactTierTests: XCTestCase {
    /// The case, as a person types it: "koba" is the town, not the more popular towns
    /// whose names start with it. Suggest and search agree, through the cluster's wire form.
    func testTheTitleThatIsTheTypedTextComesFirst() throws {
        let entries = [
            CatalogEntry(id: "kobanya", title: "Kőbánya", categories: ["Hungary"], weight: 130_000),
            CatalogEntry(id: "kobakma", title: "Kobakma", categories: ["Indonesia"], weight: 40_000),
            CatalogEntry(id: "koba", title: "Koba", categories: ["Indonesia"], weight: 1_200),
            CatalogEntry(id: "koba-bay", title: "Koba Bay", categories: ["Indonesia"], weight: 90_000),
        ]
        let directory = TemporaryDirectory()
        let shard = try Shard(directory: directory.path)
        try shard.build(from: entries)
        let reference = ReferenceIndex(entries: entries)

        let typing = try shard.suggest(SuggestRequest(text: "koba"))
        XCTAssertEqual(typing.entries.map(\.id), ["koba", "kobanya", "koba-bay", "kobakma"])
        XCTAssertEqual(typing.entries.map(\.rank.exact), [true, false, false, false])
        // The completions keep their order: the tier ranks entries, not words.
        XCTAssertEqual(typing.completions.map(\.term), ["kobanya", "koba", "kobakma"])
        XCTAssertFalse(typing.completions.contains { $0.best.exact })
        // Typed as a complete word, the same; "koba b" is exactly "Koba Bay" only once complete.
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "Koba ")).entries.first?.id, "koba")
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "koba bay")).entries.first?.id, "koba-bay")
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "koba b")).entries.map(\.rank.exact), [false])
        // A one-edit typo is not the title: no tier.
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "kova ")).entries.map(\.rank.exact), [false, false])
        // Tokens still filter it.
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "koba", tokens: [.category("Hungary")])).entries.map(\.id), ["kobanya"])

        let search = try shard.search(SearchRequest(text: "koba"))
        XCTAssertEqual(search.hits.map(\.id), ["koba", "kobanya", "koba-bay", "kobakma"])
        XCTAssertEqual(try shard.search(SearchRequest(text: "koba", sort: .weight)).hits.map(\.id),
                       ["kobanya", "koba-bay", "kobakma", "koba"], "the weight order has no tiers")
        for text in ["k", "ko", "kob", "koba", "koba ", "kobak", "koba b", "koba bay", "kova", "kőbánya"] {
            for typos in [TypoMode.auto, .off] {
                XCTAssertNil(suggestDiff(shard: shard, reference: reference, request: SuggestRequest(text: text, typos: typos)), text)
                XCTAssertNil(searchDiff(shard: shard, reference: reference, request: SearchRequest(text: text, pageSize: 1, typos: typos)), text)
            }
        }
    }

    /// Exact titles hidden from every list a plan reads first: far down the static order below a
    /// heavy prefix with tiny lists, in the delta, deleted and replaced, more of them than the
    /// entries wanted (deduplicated by what is displayed), and longer than a title key keeps.
    /// Every prefix of every title, with and without tokens, equals the reference, in both
    /// layouts, through updates.
    func testHiddenExactTitlesAnswerLikeTheReferenceInBothLayoutsThroughUpdates() throws {
        // Over 128 bytes analysed, of three-letter words (no typos: cheap to check by brute force).
        let long = (0..<40).map { "w" + String(format: "%02d", $0) }.joined(separator: " ")
        var entries: [CatalogEntry] = []
        // Heavy titles that start with every exact one's words.
        for index in 0..<60 {
            entries.append(CatalogEntry(id: "heavy-\(index)", title: ["Spring", "Spring Field", "Koba", long][index % 4] + " extra \(index)",
                                        categories: [index % 2 == 0 ? "Place" : "Park"], weight: UInt64(10_000 + index)))
        }
        // Exact titles, light; "Spring" ×14 in two categories, more than the 10 entries wanted.
        for index in 0..<14 {
            entries.append(CatalogEntry(id: "spring-\(index)", title: "Spring", categories: [index % 3 == 0 ? "Park" : "Place"],
                                        weight: UInt64(index)))
        }
        entries.append(CatalogEntry(id: "spring-field", title: "Spring field", categories: ["Place"], weight: 3))
        entries.append(CatalogEntry(id: "koba", title: "Koba", categories: ["Place"], weight: 1))
        entries.append(CatalogEntry(id: "long-a", title: long, categories: ["Place"], weight: 2))
        entries.append(CatalogEntry(id: "long-b", title: long + " more", categories: ["Place"], weight: 9))
        let parameters = IndexParameters(listSize: 2, heavyThreshold: 2)
        var reference = ReferenceIndex(entries: entries)

        let shards = try GenerationFormatTests.shardsInBothLayouts(entries, parameters: parameters)
        let updates: [(upserts: [CatalogEntry], deletes: [String])] = [
            ([], []),
            // Into the delta: a new exact title, a heavy one re-weighted, an exact one made heavy.
            ([CatalogEntry(id: "koba-2", title: "KOBA", categories: ["Park"], weight: 0),
              CatalogEntry(id: "spring-3", title: "Spring", categories: ["Place"], weight: 50_000),
              CatalogEntry(id: "heavy-1", title: "Spring Field extra", categories: ["Park"], weight: 5)],
             ["koba", "spring-12"]),
            // Replaced again (a delta document removed outright), and a deleted delta document.
            ([CatalogEntry(id: "spring-3", title: "Spring", categories: ["Park"], weight: 1)], ["koba-2"]),
        ]
        var texts = Set<String>()
        for entry in entries + updates.flatMap(\.upserts) {
            // Every prefix of a short title; a long one (forty words: slow to check by brute force)
            // whole, and cut in its last word.
            let title = entry.title
            for end in title.indices.dropFirst() + [title.endIndex] where title.count < 40 || title.distance(from: end, to: title.endIndex) < 2 {
                texts.insert(String(title[..<end]))
            }
            texts.insert(title + " ")
        }
        var checked = 0
        for (upserts, deletes) in updates {
            for (_, shard, _) in shards {
                if !upserts.isEmpty { _ = try shard.upsert(upserts) }
                if !deletes.isEmpty { _ = try shard.delete(ids: deletes) }
            }
            reference.upsert(upserts)
            reference.delete(ids: deletes)
            for text in texts.sorted() {
                // One reference answer, compared with both layouts.
                for (tokens, typos) in [([], TypoMode.auto), ([], .off), ([SearchToken.category("Park")], .auto)] {
                    let request = SuggestRequest(text: text, tokens: tokens, limits: .init(entries: 10, categories: 2, completions: 3),
                                                 typos: typos)
                    let expected = reference.suggest(request)
                    for (name, shard, _) in shards {
                        if let diff = suggestDiff(expected: expected, got: try shard.suggest(request)) {
                            return XCTFail("\(name) layout, after \(upserts.map(\.id)) − \(deletes): \"\(text)\" \(tokens)\n\(diff)")
                        }
                        checked += 1
                    }
                }
                // Search evaluates every match whatever the tiers: one page of the first layout.
                let search = SearchRequest(text: text, pageSize: 10)
                let hits = Array(try reference.searchAll(search).hits.prefix(10))
                if let diff = sectionDiff("hits", expected: hits.map(Render.hit), got: try shards[0].1.search(search).hits.map(Render.hit)) {
                    return XCTFail("search \"\(text)\"\n\(diff)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 2000)
        // The exact tier was what decided: the light exact "Spring"s outrank 15 heavier startsWith titles.
        let spring = try shards[0].1.suggest(SuggestRequest(text: "spring"))
        XCTAssertEqual(spring.entries.prefix(2).map(\.rank.exact), [true, true])
        XCTAssertEqual(spring.entries.filter(\.rank.exact).count, 2, "deduplicated: two displays, Park and Place")
    }

    /// A search page token carries the tier (a page that ends on an exact hit must continue after
    /// it, not after a startsWith hit of its weight), and reads the tokens written before it: their
    /// startsWith byte is the tiers byte with the exact bit clear.
    func testPageTokensCarryTheTierAndReadTokensWrittenBeforeIt() throws {
        for (exact, startsWith) in [(true, true), (false, true), (false, false)] {
            let key = RankKey(typos: 0, field: 0, exact: exact, startsWith: startsWith, weight: 12, sortTitle: "", id: "koba")
            for collection in [nil, "", "products"] {
                let token = try PageToken(decoding: PageToken(sort: .relevance, fingerprint: 0xFEED, after: key, collection: collection).encoded())
                XCTAssertEqual(token.after, key)
                XCTAssertEqual(token.collection, collection)
            }
        }
        // Version, sort, fingerprint, typos 0, field 0, then the tiers byte, weight 12, id "k".
        func token(tiers: UInt8) -> String {
            let bytes: [UInt8] = [1, 0] + [UInt8](repeating: 0, count: 8) + [0, 0, tiers, 12, 1, 0x6B]
            return Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
        }
        XCTAssertEqual(try PageToken(decoding: token(tiers: 1)).after,
                       RankKey(typos: 0, field: 0, exact: false, startsWith: true, weight: 12, sortTitle: "", id: "k"))
        XCTAssertEqual(try PageToken(decoding: token(tiers: 3)).after.exact, true)
        XCTAssertNil(try PageToken(decoding: token(tiers: 3)).collection, "a version 1 token names no collection")
        XCTAssertThrowsError(try PageToken(decoding: token(tiers: 4)))
    }
}
