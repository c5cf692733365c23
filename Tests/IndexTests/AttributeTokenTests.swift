// Attribute tokens (Semantics.md, "Tokens"): a generation built with filterable attributes takes
// tokens of those kinds, filters by them exactly as by categories, and offers their values as
// chips beside the categories. The index must answer exactly like the reference, including after
// upserts, deletes and merges; kinds it was not given are refused.

import Catalog
import Foundation
import Index
import XCTest
import TestSupport

final class AttributeTokenTests: XCTestCase {
    /// "color" holds vocabulary words (so chips meet typed words); "price" digits ("12.99").
    static let filterable = ["color", "price"]

    static func parameters(listSize: Int = 2, heavyThreshold: Int = 3) -> IndexParameters {
        IndexParameters(listSize: listSize, heavyThreshold: heavyThreshold, filterableAttributes: filterable)
    }

    /// Random catalogs with updates and merges: every suggest and search equals the reference's.
    func testAttributeTokensAndChipsMatchTheReference() throws {
        var reporter = ExactnessTests.Reporter(name: "attributes")
        var attributeChips = 0, attributeFiltered = 0
        for index in 0..<3 {
            let seed = ExactnessTests.baseSeed &+ UInt64(index) &* 9_000_011 &+ 13
            var rng = SeededGenerator(seed: seed)
            let configuration = ExactnessTests.Configuration(size: [60, 120, 180][index], vocabulary: [15, 25, 30][index],
                                                             listSize: [2, 3, 32][index], heavyThreshold: [3, 4, 32][index])
            var (entries, catalog) = ExactnessTests.makeCatalog(configuration, seed: seed, rng: &rng)
            // More entries with attributes than the random catalog gives, so chips compete.
            for i in entries.indices where rng.chance(0.5) {
                entries[i].attributes["color"] = catalog.randomWord(&rng)
            }
            let parameters = Self.parameters(listSize: configuration.listSize, heavyThreshold: configuration.heavyThreshold)
            var reference = ReferenceIndex(entries: entries, filterable: Self.filterable)
            let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: parameters)
            for batch in 0...3 {
                if batch > 0 {
                    let current = reference.entries.sorted { bytesPrecede($0.id, $1.id) }
                    var (upserts, deletes) = catalog.randomUpdateBatch(&rng, current: current)
                    for i in upserts.indices where rng.chance(0.6) { upserts[i].attributes["color"] = catalog.randomWord(&rng) }
                    _ = try fixture.shard.upsert(upserts)
                    reference.upsert(upserts)
                    _ = try fixture.shard.delete(ids: deletes)
                    reference.delete(ids: deletes)
                    if batch == 2 {
                        XCTAssertNotNil(try fixture.shard.merge(), "the delta is merged")
                    }
                }
                let now = reference.entries.sorted { bytesPrecede($0.id, $1.id) }
                let context = "seed 0x\(String(seed, radix: 16)), catalog \(index): \(configuration.label), after batch \(batch)"
                let suggests = Workload.withAttributeTokens(Workload.suggestRequests(entries: now, categories: catalog.categories,
                                                                                 vocabulary: catalog.vocabulary, count: 100, &rng),
                                                        entries: now, kinds: Self.filterable, &rng)
                for request in suggests {
                    reporter.check(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                                   context: context + "\n" + Render.request(request))
                    let expected = reference.suggest(request)
                    attributeChips += expected.categories.filter { !$0.token.kind.isCategory }.count
                    if request.tokens.contains(where: { !$0.kind.isCategory }), !expected.entries.isEmpty { attributeFiltered += 1 }
                }
                for request in Workload.searchRequests(from: Array(suggests.prefix(60)), &rng) {
                    reporter.check(searchDiff(shard: fixture.shard, reference: reference, request: request),
                                   context: context + "\n" + Render.request(request))
                }
            }
        }
        reporter.finish()
        // The comparisons above mean something only if attributes took part.
        XCTAssertGreaterThan(attributeChips, 50, "attribute chips were offered")
        XCTAssertGreaterThan(attributeFiltered, 20, "attribute tokens kept some entries")
    }

    /// A chip list holds both kinds, in the one order, and choosing an attribute chip filters.
    func testOneChipListHoldsCategoriesAndAttributeValues() throws {
        let entries = [
            CatalogEntry(id: "1", title: "Red shirt", categories: ["Shirts"], weight: 5, attributes: ["color": "Red"]),
            CatalogEntry(id: "2", title: "Red shoes", categories: ["Reading"], weight: 4, attributes: ["color": "Red"]),
            CatalogEntry(id: "3", title: "Blue shoes", categories: ["Shoes"], weight: 3, attributes: ["color": "Blue", "size": "42"]),
            CatalogEntry(id: "4", title: "Reed mat", categories: ["Red"], weight: 2),
        ]
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(filterableAttributes: ["color"]))
        let chips = try fixture.shard.suggest(SuggestRequest(text: "re", limits: SuggestLimits(categories: 10))).categories
        // "Red" the colour has 2 entries, "Red" the category 1, "Reading" 1: count first, then kind
        // ("category" < "color") and name.
        XCTAssertEqual(chips.map { "\($0.token.kind):\($0.name):\($0.count)" }, ["color:Red:2", "category:Reading:1", "category:Red:1"])
        XCTAssertEqual(chips[0].token, SearchToken(kind: .init("color"), value: "Red"))
        let filtered = try fixture.shard.search(SearchRequest(text: "", tokens: [chips[0].token]))
        XCTAssertEqual(filtered.hits.map(\.id).sorted(), ["1", "2"])
        // A chip already among the tokens is not offered again.
        let again = try fixture.shard.suggest(SuggestRequest(text: "re", tokens: [chips[0].token], limits: SuggestLimits(categories: 10)))
        XCTAssertFalse(again.categories.contains { $0.token == chips[0].token })
    }

    /// Kinds neither "category" nor declared are refused, with a message naming the known ones; a
    /// generation built without a declaration takes categories only.
    func testUndeclaredKindsAreRefused() throws {
        let entries = [CatalogEntry(id: "1", title: "Red shirt", categories: ["Shirts"], weight: 5, attributes: ["color": "red", "size": "m"])]
        let declared = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(filterableAttributes: ["color"]))
        let size = SearchToken(kind: .init("size"), value: "m")
        for shard in [declared.shard] {
            XCTAssertThrowsError(try shard.suggest(SuggestRequest(text: "r", tokens: [size]))) { error in
                XCTAssertEqual((error as? IndexError)?.code, .invalidArgument)
                XCTAssertTrue("\(error)".contains("\"size\" is not a token kind of this collection"), "\(error)")
                XCTAssertTrue("\(error)".contains("\"category\", \"color\""), "\(error)")
            }
            XCTAssertThrowsError(try shard.search(SearchRequest(text: "r", tokens: [size])))
        }
        XCTAssertEqual(try declared.shard.search(SearchRequest(text: "", tokens: [SearchToken(kind: .init("color"), value: "red")])).totalHits, 1)
        let undeclared = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        XCTAssertThrowsError(try undeclared.shard.search(SearchRequest(text: "", tokens: [SearchToken(kind: .init("color"), value: "red")])))
        XCTAssertEqual(try undeclared.shard.suggest(SuggestRequest(text: "r", limits: SuggestLimits(categories: 10))).categories.map(\.name),
                       [], "no attribute chips without a declaration")
        // Declarations are checked when building.
        for bad in [["category"], ["Color"], [""], [String(repeating: "a", count: 65)]] {
            XCTAssertThrowsError(try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(filterableAttributes: bad)), "\(bad)")
        }
    }
}
