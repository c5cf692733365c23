import XCTest
@testable import Wire

/// Every way the reader refuses input, with the message a client would see.
final class MalformedInputTests: XCTestCase {
    private func assertRejects<M: ProtoMessage>(_ type: M.Type, _ input: String, _ kind: ProtoError.Kind, _ message: String,
                                                maximumDepth: Int = ProtoReader.defaultMaximumDepth,
                                                file: StaticString = #filePath, line: UInt = #line) {
        do {
            let decoded = try M(serializedBytes: bytes(input), maximumDepth: maximumDepth)
            XCTFail("decoded \(decoded)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.kind, kind, file: file, line: line)
            XCTAssertEqual(error.message, message, file: file, line: line)
        }
    }

    func testTruncatedVarint() {
        assertRejects(Typeahead_V1_SuggestRequest.self, "38 ac", .truncated,
                      "field 7 (revision): varint runs past the end of the message")
        assertRejects(Typeahead_V1_SuggestRequest.self, "b8", .truncated, "varint runs past the end of the message")
    }

    func testElevenByteVarint() {
        assertRejects(Typeahead_V1_SuggestRequest.self, "38 ffffffffffffffffff ff 01", .varintTooLong,
                      "field 7 (revision): varint is longer than 10 bytes")
        // Ten bytes are fine (the largest uint64).
        XCTAssertEqual(try Typeahead_V1_SuggestRequest(serializedBytes: bytes("38 ffffffffffffffffff01")).revision, .max)
    }

    func testLengthPastTheEnd() {
        assertRejects(Typeahead_V1_SuggestRequest.self, "1a 8407" + String(repeating: "00", count: 40), .lengthPastEnd,
                      "field 3 (limits): length 900 runs past the end of the message (40 bytes left)")
        // A length that only runs past the enclosing message (not the buffer) is caught too.
        assertRejects(Typeahead_V1_SuggestRequest.self, "12 02 0a 05 6162636465", .lengthPastEnd,
                      "field 2 (tokens) > field 1 (kind): length 5 runs past the end of the message (0 bytes left)")
        // Absurd lengths do not overflow.
        assertRejects(Typeahead_V1_SuggestRequest.self, "0a ffffffffffffffffff01", .lengthPastEnd,
                      "field 1 (text): length 18446744073709551615 runs past the end of the message (0 bytes left)")
    }

    func testTruncatedFixedWidth() {
        assertRejects(Wiretest_V1_Scalars.self, "09 0000f0", .truncated,
                      "field 1 (f_double): a 64-bit value needs 8 bytes, 3 left in the message")
        assertRejects(Wiretest_V1_Scalars.self, "4d 01", .truncated,
                      "field 9 (f_fixed32): a 32-bit value needs 4 bytes, 1 left in the message")
        // A packed run whose last value is cut by the run's own length.
        assertRejects(Wiretest_V1_Scalars.self, "ea02 02 01 96", .truncated,
                      "field 45 (r_uint32): varint runs past the end of the message")
    }

    func testInvalidUTF8() {
        assertRejects(Typeahead_V1_SuggestRequest.self, "0a 02 c328", .invalidUTF8,
                      "field 1 (text): a string of 2 bytes is not valid UTF-8")
        assertRejects(Typeahead_V1_SuggestRequest.self, "0a 03 eda080", .invalidUTF8,   // an encoded surrogate
                      "field 1 (text): a string of 3 bytes is not valid UTF-8")
        assertRejects(Typeahead_V1_EntryHit.self, "2a 05 0a 01 61 12 00 2a 04 0a 00 12 01", .lengthPastEnd,
                      "field 5 (attributes) > field 2 (value): length 1 runs past the end of the message (0 bytes left)")
        assertRejects(Typeahead_V1_EntryHit.self, "2a 05 0a 01 ff 12 00", .invalidUTF8,
                      "field 5 (attributes) > field 1 (key): a string of 1 bytes is not valid UTF-8")
        // Past the eight-byte ASCII fast path: a bad byte after eight good ones, in the last word,
        // and a valid multi-byte character after ASCII.
        assertRejects(Typeahead_V1_SuggestRequest.self, "0a 09 6162636465666768ff", .invalidUTF8,
                      "field 1 (text): a string of 9 bytes is not valid UTF-8")
        assertRejects(Typeahead_V1_SuggestRequest.self, "0a 10 61626364656667686162636465666780", .invalidUTF8,
                      "field 1 (text): a string of 16 bytes is not valid UTF-8")
        XCTAssertEqual(try Typeahead_V1_SuggestRequest(serializedBytes: bytes("0a 0b 6162636465666768 c3a9 21")).text, "abcdefghé!")
        XCTAssertEqual(try Typeahead_V1_SuggestRequest(serializedBytes: bytes("0a 08 6162636465666768")).text, "abcdefgh")
        // `bytes` fields take anything.
        XCTAssertEqual(try Wiretest_V1_Scalars(serializedBytes: bytes("7a 02 c328")).fBytes, [0xC3, 0x28])
    }

    func testDeepNesting() {
        // Inner.children nests without bound in the schema; 40 levels is past the default limit of 32.
        var inner = Wiretest_V1_Composite.Inner(label: "leaf")
        for _ in 0..<40 { inner = .init(children: [inner]) }
        let encoded = Wiretest_V1_Composite(inner: inner).serializedBytes()
        XCTAssertThrowsError(try Wiretest_V1_Composite(serializedBytes: encoded)) { error in
            let error = error as! ProtoError
            XCTAssertEqual(error.kind, .tooDeep)
            XCTAssertTrue(error.message.hasSuffix("field 2 (children): messages are nested more than 32 deep"), error.message)
            XCTAssertTrue(error.message.hasPrefix("field 1 (inner) > field 2 (children) > "), error.message)
        }
        // 31 levels below the top is within the limit.
        var shallow = Wiretest_V1_Composite.Inner(label: "leaf")
        for _ in 0..<30 { shallow = .init(children: [shallow]) }
        XCTAssertNoThrow(try Wiretest_V1_Composite(serializedBytes: Wiretest_V1_Composite(inner: shallow).serializedBytes()))
        // The limit is the caller's: SuggestRequest → tokens is one level.
        assertRejects(Typeahead_V1_SuggestRequest.self, "12 00", .tooDeep,
                      "field 2 (tokens): messages are nested more than 0 deep", maximumDepth: 0)
    }

    func testWrongWireTypeForKnownField() {
        assertRejects(Typeahead_V1_SuggestRequest.self, "18 01", .wireTypeMismatch,
                      "field 3 (limits): wire type 0 (varint) where its type needs wire type 2 (length-delimited)")
        assertRejects(Typeahead_V1_SuggestRequest.self, "0d 00000000", .wireTypeMismatch,
                      "field 1 (text): wire type 5 (32-bit) where its type needs wire type 2 (length-delimited)")
        assertRejects(Typeahead_V1_SuggestRequest.self, "3a 00", .wireTypeMismatch,
                      "field 7 (revision): wire type 2 (length-delimited) where its type needs wire type 0 (varint)")
        assertRejects(Wiretest_V1_Scalars.self, "09 01", .truncated,   // double with wire type 1 and no room
                      "field 1 (f_double): a 64-bit value needs 8 bytes, 1 left in the message")
        assertRejects(Wiretest_V1_Scalars.self, "08 01", .wireTypeMismatch,
                      "field 1 (f_double): wire type 0 (varint) where its type needs wire type 1 (64-bit)")
    }

    func testGroupsAreRefused() {
        assertRejects(Typeahead_V1_SuggestRequest.self, "4b 4c", .groupNotSupported,   // unknown field 9, start group
                      "field 9: wire type 3 (start group) is a proto2 group, which this API does not use")
        assertRejects(Typeahead_V1_SuggestRequest.self, "0c", .groupNotSupported,
                      "field 1: wire type 4 (end group) is a proto2 group, which this API does not use")
    }

    func testInvalidTags() {
        assertRejects(Typeahead_V1_SuggestRequest.self, "02 00", .invalidTag,
                      "field number 0 at byte 0 is outside 1...536870911")
        assertRejects(Typeahead_V1_SuggestRequest.self, "0e", .invalidTag, "field 1: wire type 6 does not exist")
        assertRejects(Typeahead_V1_SuggestRequest.self, "80 80 80 80 10", .invalidTag,  // key 2^32: field 2^29
                      "field number 536870912 at byte 0 is outside 1...536870911")
    }

    func testErrorsNameTheOffset() {
        XCTAssertThrowsError(try Typeahead_V1_SuggestRequest(serializedBytes: bytes("0a 01 61 1a 05 08"))) { error in
            XCTAssertEqual((error as! ProtoError).offset, 4)
        }
    }
}
