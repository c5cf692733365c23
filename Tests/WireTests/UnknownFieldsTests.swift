import XCTest
@testable import Wire

/// A node or client on an older schema passes fields it does not know through unchanged.
final class UnknownFieldsTests: XCTestCase {
    func testUnknownFieldsArePreservedAndReEmitted() throws {
        // text "a", then unknown fields 20 (varint 5), 21 (length-delimited "xy"), 22 (fixed32), 23 (fixed64).
        let unknown = "a0 01 05  aa 01 02 7879  b5 01 01020304  b9 01 0102030405060708"
        let input = bytes("0a 01 61" + unknown)
        let decoded = try Typeahead_V1_SuggestRequest(serializedBytes: input)
        XCTAssertEqual(decoded.text, "a")
        XCTAssertEqual(decoded.unknownFields.bytes, bytes(unknown))
        XCTAssertEqual(decoded.serializedBytes(), input)

        // Written after the known fields, whatever the input order.
        let reordered = try Typeahead_V1_SuggestRequest(serializedBytes: bytes("a0 01 05  0a 01 61"))
        XCTAssertEqual(reordered.serializedBytes(), bytes("0a 01 61  a0 01 05"))
    }

    func testUnknownFieldsInNestedMessagesAndMapEntries() throws {
        // limits {entries: 1, unknown 9: 1}; a token with an unknown field 3.
        let input = bytes("12 05 0a 01 63 18 2a  1a 04 08 01 48 01")
        let decoded = try Typeahead_V1_SuggestRequest(serializedBytes: input)
        XCTAssertEqual(decoded.limits?.entries, 1)
        XCTAssertEqual(decoded.limits?.unknownFields.bytes, bytes("48 01"))
        XCTAssertEqual(decoded.tokens.first?.unknownFields.bytes, bytes("18 2a"))
        XCTAssertEqual(decoded.serializedBytes(), input)
        // Unknown fields inside a map entry are skipped (entries are rebuilt from key and value).
        let hit = try Typeahead_V1_EntryHit(serializedBytes: bytes("2a 08 0a 01 6b 12 01 76 18 01"))
        XCTAssertEqual(hit.attributes, ["k": "v"])
    }

    /// A newer schema's message read by an older one and sent on: the newer reader sees everything.
    func testPassThroughFromANewerSchema() throws {
        // Composite plays the newer schema; Empty the older one, which knows none of its fields.
        var random = Randomizer(seed: 7)
        let newer = random.composite(depth: 2)
        let older = try Wiretest_V1_Empty(serializedBytes: newer.serializedBytes())
        XCTAssertEqual(try Wiretest_V1_Composite(serializedBytes: older.serializedBytes()), newer)
    }

    func testMessagesWithUnknownFieldsAreNotEqualToThoseWithout() throws {
        let plain = Typeahead_V1_SearchToken(kind: "category", value: "x")
        var extended = plain
        extended.unknownFields = try Typeahead_V1_SearchToken(serializedBytes: bytes("18 01")).unknownFields
        XCTAssertNotEqual(plain, extended)
    }
}
