import Foundation
import XCTest
@testable import Wire

/// The response encoders that take hits through `EntryHitFields` (how a node writes hits from its
/// memory map) write what the generated code writes for the same message, and `JSONWriter` writes
/// what `JSONValue` specifies.
final class ResponseEncodingTests: XCTestCase {
    func testHitsThroughTheFieldsProtocolEncodeAsTheGeneratedCodeDoes() {
        for seed in 0..<300 as Range<UInt64> {
            var random = Randomizer(seed: 9000 + seed)
            let suggest = random.suggestResponse()
            var rest = suggest
            rest.entries = []
            XCTAssertEqual(ResponseProto.suggest(entries: suggest.entries, rest: rest), suggest.serializedBytes(), "seed \(seed)")
            let search = random.searchResponse()
            var searchRest = search
            searchRest.hits = []
            XCTAssertEqual(ResponseProto.search(hits: search.hits, rest: searchRest), search.serializedBytes(), "seed \(seed)")
        }
    }

    func testAnEmptyResponseIsEmptyBytesAndItsJSONHasEveryField() {
        XCTAssertEqual(ResponseProto.suggest(entries: [Typeahead_V1_EntryHit](), rest: .init()), [])
        XCTAssertEqual(String(decoding: ResponseJSON.suggest(.init()), as: UTF8.self), #"{"entries":[],"categories":[],"completions":[]}"# + "\n")
        XCTAssertEqual(String(decoding: ResponseJSON.search(.init()), as: UTF8.self),
                       #"{"hits":[],"totalHits":0,"facets":[],"nextPageToken":""}"# + "\n")
    }

    func testAnEntryInJSON() {
        let hit = Typeahead_V1_EntryHit(id: "sku-1", title: "Red \"Shoes\"", categories: ["Shoes", ""], weight: 9_007_199_254_740_991,
                                        attributes: ["price": "59.90", "a\u{2028}": "\n"], completion: "Red",
                                        highlights: [.init(start: 0, end: 3)])
        XCTAssertEqual(String(decoding: ResponseJSON.suggest(.init(entries: [hit])), as: UTF8.self),
                       #"{"entries":[{"id":"sku-1","title":"Red \"Shoes\"","categories":["Shoes",""],"weight":9007199254740991,"#
                       + #""attributes":{"a\u2028":"\n","price":"59.90"},"completion":"Red","highlights":[{"start":0,"end":3}]}],"#
                       + #""categories":[],"completions":[]}"# + "\n")
    }

    func testTheWriterPlacesCommasAndEscapesLikeJSONValue() {
        var random = SeededRandom(seed: 77)
        for _ in 0..<500 {
            let value = randomValue(&random, depth: 0)
            var json = JSONWriter()
            value.write(to: &json)
            XCTAssertEqual(String(decoding: json.bytes, as: UTF8.self), value.serialized())
            // And the text is JSON the platform parser reads back to the same value.
            let parsed = try? JSONSerialization.jsonObject(with: Data(json.bytes), options: [.fragmentsAllowed])
            XCTAssertNotNil(parsed, value.serialized())
        }
        var json = JSONWriter()
        json.beginArray()
        for number in [0, 9, 10, 99, 100, Int64.max, Int64.min, -1] { json.integer(number) }
        json.unsigned(UInt64.max)
        json.string(utf8: UnsafeRawBufferPointer(start: nil, count: 0))
        json.endArray()
        XCTAssertEqual(String(decoding: json.bytes, as: UTF8.self),
                       "[0,9,10,99,100,9223372036854775807,-9223372036854775808,-1,18446744073709551615,\"\"]")
    }

    func testEveryControlCharacterAndBothSeparatorsAreEscaped() {
        var text = ""
        for scalar in 0..<0x20 { text.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        text += "\"\\\u{2028}\u{2029}\u{2027}é東\u{1F600}"
        let written = String(decoding: JSONValue.string(text).serialized().utf8, as: UTF8.self)
        XCTAssertFalse(written.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{2029}" })
        let parsed = try? JSONSerialization.jsonObject(with: Data(written.utf8), options: [.fragmentsAllowed]) as? String
        XCTAssertEqual(parsed, text)
        XCTAssertTrue(written.hasSuffix("\\u2028\\u2029\u{2027}é東\u{1F600}\""), written)
    }

    private func randomValue(_ random: inout SeededRandom, depth: Int) -> JSONValue {
        switch random.next() % (depth > 3 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .integer(Int64(bitPattern: random.next()) >> (random.next() % 64))
        case 3: return .unsigned(random.next() >> (random.next() % 64))
        case 4: return .string(randomString(&random))
        case 5: return .array((0..<Int(random.next() % 4)).map { _ in randomValue(&random, depth: depth + 1) })
        default: return .object((0..<Int(random.next() % 4)).map { _ in (randomString(&random), randomValue(&random, depth: depth + 1)) })
        }
    }

    private func randomString(_ random: inout SeededRandom) -> String {
        let alphabet: [Unicode.Scalar] = ["a", "Z", " ", "\"", "\\", "\n", "\u{01}", "\u{1F}", "\u{7F}", "é", "東", "\u{2028}", "\u{2029}", "\u{1F600}"]
        var text = ""
        for _ in 0..<(random.next() % 8) { text.unicodeScalars.append(alphabet[Int(random.next() % UInt64(alphabet.count))]) }
        return text
    }
}


/// The merge-side views of shard answers read what the generated decoder reads, and their hits
/// write what the decoded hits write.
final class ShardResponseViewTests: XCTestCase {
    func testViewsReadWhatTheGeneratedDecoderReads() throws {
        for seed in 0..<300 as Range<UInt64> {
            var random = Randomizer(seed: 7700 + seed)
            let suggest = random.shardSuggestResponse()
            let bytes = suggest.serializedBytes()
            let view = try ShardSuggestResponseView(bytes)
            let decoded = try Typeahead_V1_ShardSuggestResponse(serializedBytes: bytes)
            try withExtendedLifetime(view) {
                XCTAssertEqual(view.generation, decoded.generation)
                XCTAssertEqual(view.categoriesTruncated, decoded.categoriesTruncated)
                XCTAssertEqual(view.categories.map(\.message), decoded.categories)
                XCTAssertEqual(view.completions.map(\.message), decoded.completions)
                try assertSameEntries(view.entries, decoded.entries, seed: seed)
            }

            let search = random.shardSearchResponse()
            let searchBytes = search.serializedBytes()
            let searchView = try ShardSearchResponseView(searchBytes)
            let searchDecoded = try Typeahead_V1_ShardSearchResponse(serializedBytes: searchBytes)
            try withExtendedLifetime(searchView) {
                XCTAssertEqual(searchView.totalHits, searchDecoded.totalHits)
                XCTAssertEqual(searchView.facets, searchDecoded.facets)
                XCTAssertEqual(searchView.nextPageToken, searchDecoded.nextPageToken)
                XCTAssertEqual(searchView.generation, searchDecoded.generation)
                try assertSameEntries(searchView.hits, searchDecoded.hits, seed: seed)
            }
        }
    }

    private func assertSameEntries(_ views: [RankedEntryView], _ decoded: [Typeahead_V1_RankedEntry], seed: UInt64) throws {
        XCTAssertEqual(views.count, decoded.count, "seed \(seed)")
        for (view, entry) in zip(views, decoded) {
            XCTAssertEqual(view.rank?.message, entry.rank, "seed \(seed)")
            XCTAssertEqual(view.hit == nil, entry.hit == nil, "seed \(seed)")
            guard let hit = view.hit, var message = entry.hit else { continue }
            message.unknownFields = ProtoUnknownFields()
            var written = ProtoWriter()
            ResponseProto.writeEntry(hit, field: 1, to: &written)
            var expected = ProtoWriter()
            expected.writeMessage(1, message)
            XCTAssertEqual(written.bytes, expected.bytes, "seed \(seed)")
            XCTAssertEqual(hit.titleString, message.title)
            XCTAssertEqual(hit.categoryStrings, message.categories)
            XCTAssertEqual(hit.weight, message.weight)
        }
    }

    /// Out-of-order and repeated map keys, a repeated singular field, unknown fields: read as a
    /// decoded message reads them.
    func testAHitWrittenOddlyReadsAsDecoded() throws {
        // EntryHit: id "b", id "a" (last wins), attributes z=1, a=2, z=3 (z: last wins, key order),
        // an unknown field 9, a highlight {1, 2}.
        let hit = bytes("0a 01 62 0a 01 61 2a 06 0a 01 7a 12 01 31 2a 06 0a 01 61 12 01 32 2a 06 0a 01 7a 12 01 33 48 05 3a 04 08 01 10 02")
        let ranked: [UInt8] = [0x0A, UInt8(hit.count)] + hit
        let entry: [UInt8] = [0x0A, UInt8(ranked.count)] + ranked
        let view = try ShardSuggestResponseView(entry)
        let decoded = try Typeahead_V1_ShardSuggestResponse(serializedBytes: entry)
        var message = try XCTUnwrap(decoded.entries.first?.hit)
        XCTAssertEqual(message.attributes, ["a": "2", "z": "3"])
        message.unknownFields = ProtoUnknownFields()
        var written = ProtoWriter()
        try withExtendedLifetime(view) { ResponseProto.writeEntry(try XCTUnwrap(view.entries.first?.hit), field: 1, to: &written) }
        var expected = ProtoWriter()
        expected.writeMessage(1, message)
        XCTAssertEqual(written.bytes, expected.bytes)
    }

    /// A hit's fields 1–5 are copied in one run only when they arrived exactly as the encoder
    /// writes them; every other layout is written field by field, so the answer is the decoded
    /// message's encoding either way.
    func testOnlyCanonicalFieldsAreCopiedWhole() throws {
        let cases = [
            "0a 01 61 12 01 74 20 05 3a 04 08 01 10 02",        // id, title, weight, highlight: copied whole
            "0a 01 62 0a 01 61 12 01 74 20 05",                 // id twice: the last wins
            "12 01 74 0a 01 61 20 05",                          // title before id
            "0a 01 61 12 01 74 20 00",                          // weight 0 written out
            "0a 00 12 01 74 20 05",                             // an empty id written out
            "0a 01 61 48 07 12 01 74 20 05",                    // an unknown field between them
            "0a 01 61 12 01 74 1a 01 63 20 05 1a 01 64",        // a category after the weight
        ]
        for (index, text) in cases.enumerated() {
            let hit = bytes(text)
            let ranked: [UInt8] = [0x0A, UInt8(hit.count)] + hit
            let entry: [UInt8] = [0x0A, UInt8(ranked.count)] + ranked
            let view = try ShardSuggestResponseView(entry)
            var message = try XCTUnwrap(try Typeahead_V1_ShardSuggestResponse(serializedBytes: entry).entries.first?.hit)
            message.unknownFields = ProtoUnknownFields()
            var written = ProtoWriter()
            var copied = false
            try withExtendedLifetime(view) {
                let encoded = try XCTUnwrap(view.entries.first?.hit)
                copied = encoded.withEncodedFields { _ in }
                ResponseProto.writeEntry(encoded, field: 1, to: &written)
            }
            var expected = ProtoWriter()
            expected.writeMessage(1, message)
            XCTAssertEqual(written.bytes, expected.bytes, "case \(index): \(text)")
            XCTAssertEqual(copied, index == 0, "case \(index): \(text)")
        }
    }

    func testMalformedHitsAreRefusedAsTheDecoderRefusesThem() {
        // A title that is not UTF-8, and a length past the end.
        for hit in [bytes("12 02 c3 28"), bytes("12 05 61")] {
            let entry: [UInt8] = [0x0A, UInt8(hit.count + 2), 0x0A, UInt8(hit.count)] + hit
            XCTAssertThrowsError(try ShardSuggestResponseView(entry))
            XCTAssertThrowsError(try Typeahead_V1_ShardSuggestResponse(serializedBytes: entry))
        }
    }
}
