import Catalog
import Foundation
import Index
import XCTest
@testable import Wire
import WireConversions

final class ConversionTests: XCTestCase {
    // MARK: Requests

    func testAbsentFieldsTakeTheAPIDefaults() throws {
        XCTAssertEqual(try SuggestRequest(Typeahead_V1_SuggestRequest()), SuggestRequest(text: ""))
        XCTAssertEqual(try SearchRequest(Typeahead_V1_SearchRequest()), SearchRequest(text: ""))
        // Partly set limits keep the other defaults; explicit zero and false are honoured.
        let request = try SuggestRequest(Typeahead_V1_SuggestRequest(limits: .init(categories: 0), dedupe: false))
        XCTAssertEqual(request.limits, SuggestLimits(entries: 10, categories: 0, completions: 5))
        XCTAssertFalse(request.dedupe)
        XCTAssertFalse(try SearchRequest(Typeahead_V1_SearchRequest(facets: false)).facets)
        XCTAssertEqual(try SearchRequest(Typeahead_V1_SearchRequest(sort: .weight, typos: .off)).sort, .weight)
    }

    func testRequestsRoundTripThroughTheWire() throws {
        let suggest = SuggestRequest(text: "red sh", tokens: [.category("Shoes"), .category("Sale")],
                                     limits: SuggestLimits(entries: 0, categories: 100, completions: 7), typos: .off, dedupe: false)
        let message = Typeahead_V1_SuggestRequest(suggest, session: "tab-1", revision: 9)
        let decoded = try Typeahead_V1_SuggestRequest(serializedBytes: message.serializedBytes())
        XCTAssertEqual(try SuggestRequest(decoded), suggest)
        XCTAssertEqual(decoded.session, "tab-1")
        XCTAssertEqual(decoded.revision, 9)

        let search = SearchRequest(text: "knife", tokens: [.category("Kitchen")], pageSize: 100, pageToken: "AQID",
                                   sort: .weight, facets: false, typos: .off)
        let wire = try Typeahead_V1_SearchRequest(serializedBytes: Typeahead_V1_SearchRequest(search).serializedBytes())
        XCTAssertEqual(try SearchRequest(wire), search)
    }

    func testInvalidRequestsNameTheField() {
        func assertInvalid(_ message: Typeahead_V1_SuggestRequest, _ expected: String, line: UInt = #line) {
            XCTAssertThrowsError(try SuggestRequest(message), line: line) { error in
                XCTAssertEqual((error as? IndexError)?.code, .invalidArgument, line: line)
                XCTAssertEqual((error as? IndexError)?.message, expected, line: line)
            }
        }
        // An attribute kind passes the name rule here; whether the collection declares it is the
        // index's check (AttributeTokenTests).
        XCTAssertEqual(try SuggestRequest(.init(tokens: [.init(kind: "color", value: "red")])).tokens,
                       [SearchToken(kind: .init("color"), value: "red")])
        assertInvalid(.init(tokens: [.init(kind: "category", value: "a"), .init(kind: "Color", value: "red")]),
                      "tokens[1].kind: \"Color\" is not a token kind (\"category\", or a filterable attribute: 1 to 64 bytes of [a-z0-9_-])")
        assertInvalid(.init(tokens: [.init(kind: "category", value: "")]), "tokens[0].value: must be 1 to 256 bytes, got 0")
        assertInvalid(.init(tokens: Array(repeating: .init(kind: "category", value: "a"), count: 33)), "tokens: at most 32 tokens, got 33")
        assertInvalid(.init(limits: .init(completions: 101)), "limits.completions: must be 0 to 100, got 101")
        assertInvalid(.init(typos: .unrecognized(3)), "typos: 3 is not a Typos value")
        assertInvalid(.init(text: String(repeating: "a", count: 4097)), "text: at most 4096 bytes, got 4097")
        assertInvalid(.init(session: String(repeating: "s", count: 129)), "session: at most 128 bytes, got 129")

        func assertInvalidSearch(_ message: Typeahead_V1_SearchRequest, _ expected: String, line: UInt = #line) {
            XCTAssertThrowsError(try SearchRequest(message), line: line) { error in
                XCTAssertEqual((error as? IndexError)?.message, expected, line: line)
            }
        }
        assertInvalidSearch(.init(pageSize: 101), "page_size: must be 1 to 100, got 101")
        assertInvalidSearch(.init(sort: .unrecognized(-1)), "sort: -1 is not a Sort value")
        assertInvalidSearch(.init(pageToken: String(repeating: "t", count: 2049)), "page_token: at most 2048 bytes, got 2049")
    }

    // MARK: Responses and updates, end to end over a real shard

    private func shard() throws -> (Shard, String) {
        let directory = NSTemporaryDirectory() + "wire-conversion-\(UUID().uuidString)"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        let shard = try Shard(directory: directory)
        try shard.build(from: [
            CatalogEntry(id: "1", title: "Red Shoes", categories: ["Shoes", "Sale"], weight: 50, aliases: ["Trainers"],
                         description: "Road shoes", attributes: ["price": "59.90", "colour": "red", "ä": "x"]),
            CatalogEntry(id: "2", title: "Red Shirt", categories: ["Clothing"], weight: 80),
            CatalogEntry(id: "3", title: "Shoe Rack", categories: ["Furniture"], weight: 10),
        ])
        return (shard, directory)
    }

    func testShardAnswersSurviveTheWireExactly() throws {
        let (shard, _) = try shard()
        for text in ["red sh", "sh", "rde", ""] {
            let request = try SuggestRequest(Typeahead_V1_SuggestRequest(text: text, limits: .init(entries: 5)))
            // The Shard API carries shard parts (facts without presentation), exactly.
            let response = try shard.suggest(request, form: .shardPart)
            let message = Typeahead_V1_ShardSuggestResponse(response, generation: 1)
            let decoded = try Typeahead_V1_ShardSuggestResponse(serializedBytes: message.serializedBytes())
            XCTAssertEqual(try SuggestResponse(decoded), response, text)
            XCTAssertEqual(decoded.generation, 1)
        }
        let search = try shard.search(SearchRequest(text: "red", pageSize: 1), form: .shardPart)
        XCTAssertNotNil(search.nextPageToken)
        let page = try Typeahead_V1_ShardSearchResponse(serializedBytes: Typeahead_V1_ShardSearchResponse(search, generation: 2).serializedBytes())
        XCTAssertEqual(try SearchResponse(page), search)
        // The page token still works after the trip.
        let next = try shard.search(SearchRequest(Typeahead_V1_SearchRequest(text: "red", pageSize: 1, pageToken: page.nextPageToken)))
        XCTAssertEqual(next.hits.map(\.id), ["1"])
    }

    func testClientResponseCarriesTheEchoAndDropsRankKeys() throws {
        let (shard, _) = try shard()
        let response = try shard.suggest(SuggestRequest(text: "red sh"))
        let message = Typeahead_V1_SuggestResponse(response, session: "s", revision: 4, shards: .singleNode(generation: 1))
        XCTAssertEqual(message.entries.map(\.id), response.entries.map(\.id))
        XCTAssertEqual(message.entries.first?.attributes, [:])
        XCTAssertEqual(message.session, "s")
        XCTAssertEqual(message.revision, 4)
        XCTAssertEqual(message.shards?.succeeded, 1)
        let shoes = try XCTUnwrap(try shard.search(SearchRequest(text: "shoes")).hits.first { $0.id == "1" })
        XCTAssertEqual(Typeahead_V1_EntryHit(shoes).attributes, ["price": "59.90", "colour": "red", "ä": "x"])
        // Attributes come back in the index's order (key bytes), whatever the dictionary's order.
        let back = try EntryHit(Typeahead_V1_RankedEntry(shoes))
        XCTAssertEqual(back.attributes.map(\.key), ["colour", "price", "ä"])
        XCTAssertEqual(back, shoes)
    }

    func testMalformedShardAnswersAreRefused() throws {
        XCTAssertThrowsError(try SuggestResponse(Typeahead_V1_ShardSuggestResponse(entries: [.init(hit: .init())]))) { error in
            XCTAssertEqual((error as? IndexError)?.message, "entries[0].rank: is missing")
        }
        XCTAssertThrowsError(try SuggestResponse(Typeahead_V1_ShardSuggestResponse(
            categories: [.init(suggestion: .init(name: "x", token: .init(kind: "", value: "x")))]))) { error in
            XCTAssertEqual((error as? IndexError)?.message,
                           "categories[0].suggestion.token.kind: \"\" is not a token kind (\"category\", or a filterable attribute: 1 to 64 bytes of [a-z0-9_-])")
        }
        XCTAssertThrowsError(try SuggestResponse(Typeahead_V1_ShardSuggestResponse(
            categories: [.init(suggestion: .init(name: "x", token: .init(kind: "size", value: "y")))]))) { error in
            XCTAssertEqual((error as? IndexError)?.message,
                           "categories[0].suggestion.token: is not the chip's own token (its value is not the chip's name)")
        }
        // An attribute chip keeps its kind through the wire.
        let chip = try SuggestResponse(Typeahead_V1_ShardSuggestResponse(
            categories: [.init(suggestion: .init(name: "m", token: .init(kind: "size", value: "m")))])).categories
        XCTAssertEqual(chip.map(\.token), [SearchToken(kind: .init("size"), value: "m")])
    }

    func testUpdatesAndGenerations() throws {
        let (shard, _) = try shard()
        let entry = CatalogEntry(id: "4", title: "Blue Shoes", categories: ["Shoes"], weight: 5, aliases: ["Sneakers"],
                                 description: nil, attributes: ["size": "42"])
        let upsert = try Typeahead_V1_UpsertRequest(serializedBytes: Typeahead_V1_UpsertRequest(entries: [.init(entry)]).serializedBytes())
        XCTAssertEqual(try upsert.catalogEntries(), [entry])
        let summary = try shard.upsert(try upsert.catalogEntries())
        XCTAssertEqual(UpdateSummary(Typeahead_V1_UpdateSummary(summary)), summary)
        XCTAssertEqual(Typeahead_V1_UpdateSummary(summary).inserted, 1)
        XCTAssertEqual(try Typeahead_V1_DeleteRequest(ids: ["4", "nope"]).validatedIDs(), ["4", "nope"])

        XCTAssertThrowsError(try Typeahead_V1_UpsertRequest().catalogEntries()) { error in
            XCTAssertEqual((error as? IndexError)?.message, "entries: must hold 1 to 1000 entries, got 0")
        }
        XCTAssertThrowsError(try Typeahead_V1_DeleteRequest(ids: ["ok", ""]).validatedIDs()) { error in
            XCTAssertEqual((error as? IndexError)?.message, "ids[1]: must be 1 to 256 bytes, got 0")
        }

        let info = try shard.buildGeneration(from: [entry])
        let message = Typeahead_V1_GenerationInfo(info)
        XCTAssertEqual(message.state, .staged)
        XCTAssertEqual(message.number, UInt64(info.number))
        XCTAssertEqual(message.build?.entries, 1)
        XCTAssertEqual(try shard.generations().map { Typeahead_V1_GenerationInfo($0).state }.sorted { $0.rawValue < $1.rawValue },
                       [.current, .staged])
        XCTAssertEqual(IndexParameters(Typeahead_V1_IndexParameters()), IndexParameters())
        XCTAssertEqual(IndexParameters(Typeahead_V1_IndexParameters(IndexParameters(listSize: 8, heavyThreshold: 64))),
                       IndexParameters(listSize: 8, heavyThreshold: 64))
    }
}
