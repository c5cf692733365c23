import XCTest
@testable import Wire

final class RoundTripTests: XCTestCase {
    /// Random messages of every type decode to themselves, and re-encode to the same bytes.
    func testRandomMessagesRoundTrip() throws {
        for seed in 0..<300 as Range<UInt64> {
            var random = Randomizer(seed: seed)
            for message in random.apiMessages() {
                let encoded = encode(message)
                XCTAssertTrue(try decodesEqual(message, encoded), "seed \(seed): \(type(of: message)) did not round-trip")
                XCTAssertEqual(try reencode(message), encoded, "seed \(seed): \(type(of: message))")
            }
        }
    }

    /// Nested lengths of 1, 2 and 3 varint bytes, in messages nested two deep.
    func testLongNestedMessages() throws {
        for size in [2, 126, 128, 16_382, 16_384, 140_000] {
            let hit = Typeahead_V1_RankedEntry(hit: .init(title: String(repeating: "é", count: size / 2)), rank: .init(id: "x"))
            let response = Typeahead_V1_ShardSearchResponse(hits: [hit, hit], totalHits: 2)
            let encoded = response.serializedBytes()
            XCTAssertEqual(try Typeahead_V1_ShardSearchResponse(serializedBytes: encoded), response, "\(size)")
            let titleBytes = (size / 2) * 2
            let entryHit = ProtoWriter.varintSize(UInt64(titleBytes)) + 1 + titleBytes
            let ranked = (ProtoWriter.varintSize(UInt64(entryHit)) + 1 + entryHit) + 5   // + rank {6: "x"}
            XCTAssertEqual(encoded.count, 2 * (1 + ProtoWriter.varintSize(UInt64(ranked)) + ranked) + 2, "\(size)")
        }
    }

    /// Repeated numeric fields are written packed and accepted either way.
    func testPackedAndUnpackedBothDecode() throws {
        let packed = bytes("ea02 03 01 9601")            // r_uint32 = [1, 150] packed
        let unpacked = bytes("e802 01 e802 9601")        // the same values, one field each
        let mixed = bytes("e802 01 ea02 02 9601 e802 07") // unpacked, packed run, unpacked: appended in order
        XCTAssertEqual(try Wiretest_V1_Scalars(serializedBytes: packed).rUint32, [1, 150])
        XCTAssertEqual(try Wiretest_V1_Scalars(serializedBytes: unpacked).rUint32, [1, 150])
        XCTAssertEqual(try Wiretest_V1_Scalars(serializedBytes: mixed).rUint32, [1, 150, 7])
        XCTAssertEqual(try Wiretest_V1_Scalars(serializedBytes: unpacked).serializedBytes(), packed)
        // Packed enums and fixed-width values too; an empty packed run is allowed.
        XCTAssertEqual(try Wiretest_V1_Scalars(serializedBytes: bytes("c203 02 01 02")).rColor, [.red, .green])
        XCTAssertEqual(try Wiretest_V1_Scalars(serializedBytes: bytes("8a03 08 01000000 02000000")).rFixed32, [1, 2])
        XCTAssertEqual(try Wiretest_V1_Scalars(serializedBytes: bytes("ea02 00")).rUint32, [])
    }

    /// Proto3: a singular field that appears twice keeps the last value.
    func testLastValueWins() throws {
        XCTAssertEqual(try Typeahead_V1_SuggestRequest(serializedBytes: bytes("0a 01 61 0a 01 62")).text, "b")
        XCTAssertEqual(try Typeahead_V1_SuggestRequest(serializedBytes: bytes("38 01 38 02")).revision, 2)
        // Map entries: the last value of a key wins; a missing key or value takes the default.
        let hit = try Typeahead_V1_EntryHit(serializedBytes: bytes("2a 06 0a 01 6b 12 01 31  2a 06 0a 01 6b 12 01 32  2a 03 12 01 33"))
        XCTAssertEqual(hit.attributes, ["k": "2", "": "3"])
    }

    func testOpenEnumsKeepUnknownValues() throws {
        let decoded = try Typeahead_V1_SuggestRequest(serializedBytes: bytes("20 07"))
        XCTAssertEqual(decoded.typos, .unrecognized(7))
        XCTAssertEqual(decoded.serializedBytes(), bytes("20 07"))
        XCTAssertEqual(Typeahead_V1_Typos.unrecognized(1), .auto)   // equality is by value
        XCTAssertEqual(Typeahead_V1_Typos(rawValue: 2), .off)
        XCTAssertEqual(Typeahead_V1_Typos.knownCases, [.unspecified, .auto, .off])
    }

    func testUInt32FieldsTruncateWideVarints() throws {
        // The spec: a varint wider than the field's type keeps its low bits (what other libraries do).
        XCTAssertEqual(try Typeahead_V1_Highlight(serializedBytes: bytes("08 ffffffff1f")).start, UInt32.max)
        XCTAssertEqual(try Typeahead_V1_Highlight(serializedBytes: bytes("08 8080808010")).start, 0)
    }
}
