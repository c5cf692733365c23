import XCTest
@testable import Wire

/// Byte vectors worked out by hand from the protobuf encoding spec (each commented field by field),
/// checked in both directions.
final class GoldenBytesTests: XCTestCase {
    private func assertGolden<M: ProtoMessage>(_ message: M, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(hex(message.serializedBytes()), hex(bytes(expected)), "encoding", file: file, line: line)
        XCTAssertEqual(try M(serializedBytes: bytes(expected)), message, "decoding", file: file, line: line)
    }

    func testSuggestRequest() throws {
        let request = Typeahead_V1_SuggestRequest(
            text: "red sh", tokens: [.init(kind: "category", value: "Shoes")], limits: .init(entries: 0),
            typos: .off, dedupe: false, session: "s", revision: 300)
        try assertGolden(request, """
            0a 06 726564207368                                // field 1 (text), wire type 2: key 0x0a, length 6, "red sh"
            12 11 0a 08 63617465676f7279 12 05 53686f6573     // field 2 (tokens), length 17: {1: "category", 2: "Shoes"}
            1a 02 08 00                                       // field 3 (limits), length 2: {1: 0} (optional, so 0 is written)
            20 02                                             // field 4 (typos), varint: TYPOS_OFF = 2
            28 00                                             // field 5 (dedupe): optional false is written
            32 01 73                                          // field 6 (session): "s"
            38 ac 02                                          // field 7 (revision): 300 = 2 × 128 + 44 → 0x80 | 44, 2
            """)
    }

    func testDefaultsAreNotWritten() throws {
        try assertGolden(Typeahead_V1_SuggestRequest(), "")
        try assertGolden(Typeahead_V1_SuggestRequest(typos: .unspecified, dedupe: nil, revision: 0), "")
        // A present but empty sub-message is written: presence is its meaning.
        try assertGolden(Typeahead_V1_SuggestRequest(limits: .init()), "1a 00")
    }

    func testEntryHitWithMapAndHighlights() throws {
        let hit = Typeahead_V1_EntryHit(id: "a", weight: 150, attributes: ["": ""], highlights: [.init(start: 0, end: 3)])
        try assertGolden(hit, """
            0a 01 61          // field 1 (id): "a"
            20 96 01          // field 4 (weight): 150 = 128 + 22 → 0x80 | 22, 1
            2a 04 0a 00 12 00 // field 5 (attributes): one entry {1: "", 2: ""}; entries always carry key and value
            3a 02 10 03       // field 7 (highlights): {2: 3}; start 0 is the default and not written
            """)
    }

    func testScalarEdgeEncodings() throws {
        var scalars = Wiretest_V1_Scalars()
        scalars.fDouble = 1                 // 09 + 3ff0000000000000 little-endian
        scalars.fInt32 = -1                 // 18 + ten bytes: int32 is sign-extended to 64 bits
        scalars.fSint32 = -1                // 38 01: zigzag(-1) = 1
        scalars.fSint64 = -2                // 40 03: zigzag(-2) = 3
        scalars.fFixed32 = 1                // 4d 01000000: key 9 << 3 | 5
        scalars.fBool = true                // 68 01
        scalars.rUint32 = [1, 150]          // key 45 << 3 | 2 = 362 → ea 02; packed length 3: 01 96 01
        scalars.rUnpacked = [1, 2]          // [packed = false]: key 57 << 3 = 456 → c8 03, once per element
        try assertGolden(scalars, """
            09 000000000000f03f
            18 ffffffffffffffffff01
            38 01
            40 03
            4d 01000000
            68 01
            ea02 03 01 9601
            c803 01 c803 02
            """)
    }

    func testNegativeEnumAndHighestFieldNumber() throws {
        var composite = Wiretest_V1_Composite()
        composite.color = .negative         // 20 + -3 as a 10-byte varint: fd ff ff ff ff ff ff ff ff 01
        composite.last = 1                  // field 2^29 − 1: key 0xfffffff8 → f8 ff ff ff 0f
        try assertGolden(composite, "20 fdffffffffffffffff01  f8ffffff0f 01")
    }

    func testLongNestedMessageGetsAMultiByteLength() throws {
        // 200-byte title: the EntryHit is 3 + 200 bytes, so its length needs two varint bytes (cb 01).
        let title = String(repeating: "x", count: 200)
        let response = Typeahead_V1_SearchResponse(hits: [.init(title: title)])
        let expected = "0a cb01 12 c801" + String(repeating: "78", count: 200)
        try assertGolden(response, expected)
    }

    func testHealth() throws {
        try assertGolden(Grpc_Health_V1_HealthCheckResponse(status: .serving), "08 01")
        try assertGolden(Grpc_Health_V1_HealthCheckResponse(status: .unknown), "")
        try assertGolden(Grpc_Health_V1_HealthCheckRequest(service: "typeahead.v1.Typeahead"),
                         "0a 16" + hex(Array("typeahead.v1.Typeahead".utf8)))
        XCTAssertEqual(Grpc_Health_V1_HealthService.check.path, "/grpc.health.v1.Health/Check")
        XCTAssertTrue(Grpc_Health_V1_HealthService.watch.serverStreaming)
        XCTAssertFalse(Grpc_Health_V1_HealthService.watch.clientStreaming)
        XCTAssertEqual(Typeahead_V1_TypeaheadService.paths, ["/typeahead.v1.Typeahead/Suggest", "/typeahead.v1.Typeahead/Search",
                                                          "/typeahead.v1.Typeahead/Describe"])
        XCTAssertTrue(Typeahead_V1_ShardService.buildGeneration.clientStreaming)
    }
}
