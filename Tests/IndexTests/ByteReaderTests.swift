@testable import Index
import Storage
import XCTest

/// ``ByteReader``'s varints against ``ByteWriter``'s: every encoded length from one byte to ten,
/// each at every position from the buffer's start to its very end (so both the four-byte load
/// and the byte-at-a-time loop read it), and malformed ones (cut short, over ten bytes) refused.
final class ByteReaderTests: XCTestCase {
    func testVarintsOfEveryLengthAtEveryPositionReadBackAsWritten() throws {
        var values: [UInt64] = [0, 1, 0x7F, 0x80, 0xFF, 0x3FFF, 0x4000, 0x1F_FFFF, 0x20_0000, 0xFFF_FFFF, 0x1000_0000,
                                UInt64(UInt32.max), 1 << 35, 1 << 49, 1 << 56, UInt64.max]
        var generator = SystemRandomNumberGenerator()
        values += (0..<200).map { _ in UInt64.random(in: 0...UInt64.max, using: &generator) >> UInt64.random(in: 0...63, using: &generator) }
        for value in values {
            var one = ByteWriter()
            one.varint(value)
            for padding in 0..<6 {
                for trailing in 0..<6 {
                    let buffer = [UInt8](repeating: 0xAA, count: padding) + one.bytes + [UInt8](repeating: 0x81, count: trailing)
                    try Bytes.withView(of: buffer) { bytes in
                        var reader = ByteReader(bytes, offset: padding)
                        XCTAssertEqual(try reader.varint(), value, "\(value) after \(padding), \(trailing) bytes after it")
                        XCTAssertEqual(reader.offset, padding + one.bytes.count)
                    }
                }
            }
        }
    }

    func testMalformedVarintsAreRefused() throws {
        // Cut short at every length (the last byte still says "more"), and eleven bytes that all do.
        for length in 1...4 {
            let cut = [UInt8](repeating: 0x80, count: length)
            try Bytes.withView(of: cut) { bytes in
                var reader = ByteReader(bytes)
                XCTAssertThrowsError(try reader.varint(), "\(length) bytes, unterminated")
            }
        }
        try Bytes.withView(of: [UInt8](repeating: 0xFF, count: 11) + [0x01]) { bytes in
            var reader = ByteReader(bytes)
            XCTAssertThrowsError(try reader.varint(), "over ten bytes")
        }
    }
}
