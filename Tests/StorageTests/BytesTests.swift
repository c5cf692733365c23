import Storage
import XCTest

final class BytesTests: StorageTestCase {
    func testCollectionBasicsAndHelpers() throws {
        let data: [UInt8] = Array("hello, world".utf8)
        Bytes.withView(of: data) { bytes in
            XCTAssertEqual(bytes.count, 12)
            XCTAssertEqual(bytes.startIndex, 0)
            XCTAssertEqual(bytes.endIndex, 12)
            XCTAssertEqual(bytes[0], UInt8(ascii: "h"))
            XCTAssertEqual(bytes[11], UInt8(ascii: "d"))
            XCTAssertEqual(Array(bytes), data)
            XCTAssertEqual(bytes.string, "hello, world")
            XCTAssertEqual(bytes.reversed().first, UInt8(ascii: "d"))

            XCTAssertTrue(bytes.hasPrefix("hello"))
            XCTAssertTrue(bytes.hasPrefix(""))
            XCTAssertTrue(bytes.hasPrefix("hello, world"))
            XCTAssertFalse(bytes.hasPrefix("hello, world!"))
            XCTAssertFalse(bytes.hasPrefix("help"))

            XCTAssertEqual(bytes.compare("hello, world"), 0)
            XCTAssertEqual(bytes.compare("hello"), 1)          // longer sorts after its prefix
            XCTAssertEqual(bytes.compare("hello, world!"), -1)
            XCTAssertEqual(bytes.compare("help"), -1)
            XCTAssertEqual(bytes.compare("a"), 1)
            XCTAssertEqual(bytes.compare(""), 1)

            XCTAssertTrue(bytes.elementsEqual("hello, world"))
            XCTAssertFalse(bytes.elementsEqual("hello, worle"))
            XCTAssertFalse(bytes.elementsEqual("hello"))

            let world = bytes[range: 7..<12]
            XCTAssertEqual(world.startIndex, 0)
            XCTAssertEqual(world.string, "world")
            XCTAssertEqual(world[0], UInt8(ascii: "w"))
            XCTAssertEqual(world[range: 1..<3].string, "or")
            XCTAssertEqual(bytes[range: 12..<12].count, 0)
            XCTAssertEqual(bytes[range: 3..<3].string, "")

            // Collection slicing keeps the parent's indices (the Collection contract).
            let slice = bytes[7..<12]
            XCTAssertEqual(slice.startIndex, 7)
            XCTAssertEqual(String(decoding: slice, as: UTF8.self), "world")

            XCTAssertEqual(bytes, bytes[range: 0..<12])
            XCTAssertNotEqual(bytes, world)
            XCTAssertEqual(bytes.withUnsafeBytes { $0.count }, 12)
            XCTAssertEqual(bytes.description, "Bytes(12: 68 65 6c 6c 6f 2c 20 77 6f 72 6c 64)")
        }
    }

    func testEmptyBytes() {
        Bytes.withView(of: EmptyValue()) { bytes in
            XCTAssertTrue(bytes.isEmpty)
            XCTAssertEqual(bytes.string, "")
            XCTAssertEqual(Array(bytes), [])
            XCTAssertTrue(bytes.hasPrefix([UInt8]()))
            XCTAssertFalse(bytes.hasPrefix("a"))
            XCTAssertEqual(bytes.compare([UInt8]()), 0)
            XCTAssertEqual(bytes.compare("a"), -1)
            XCTAssertTrue(bytes.elementsEqual(EmptyValue()))
            XCTAssertEqual(bytes[range: 0..<0].count, 0)
        }
    }

    func testLoadBigEndianUnaligned() {
        let data: [UInt8] = [0xFF, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x80]
        Bytes.withView(of: data) { bytes in
            XCTAssertEqual(bytes.loadBigEndian(UInt8.self, at: 0), 0xFF)
            XCTAssertEqual(bytes.loadBigEndian(UInt16.self, at: 1), 0x0102)
            XCTAssertEqual(bytes.loadBigEndian(UInt32.self, at: 1), 0x0102_0304)      // odd offset
            XCTAssertEqual(bytes.loadBigEndian(UInt32.self, at: 6), 0x0607_0880)      // last 4 bytes
            XCTAssertEqual(bytes.loadBigEndian(UInt64.self, at: 1), 0x0102_0304_0506_0708)
            XCTAssertEqual(bytes.loadBigEndian(UInt64.self, at: 2), 0x0203_0405_0607_0880)
            XCTAssertEqual(bytes.loadBigEndian(Int8.self, at: 0), -1)
            XCTAssertEqual(bytes.loadBigEndian(Int16.self, at: 0), Int16(bitPattern: 0xFF01))
            XCTAssertEqual(bytes.loadBigEndian(Int32.self, at: 0), Int32(bitPattern: 0xFF01_0203))
        }
    }

    func testIntegerKeysRoundTripThroughLoadBigEndian() {
        for value: UInt32 in [0, 1, 0x1234_5678, .max] {
            XCTAssertEqual(Bytes.withView(of: value) { $0.loadBigEndian(UInt32.self, at: 0) }, value)
            XCTAssertEqual(Bytes.withView(of: value) { Array($0) }.count, 4)
        }
        XCTAssertEqual(Bytes.withView(of: UInt32(0x0102_0304)) { Array($0) }, [1, 2, 3, 4])
        XCTAssertEqual(Bytes.withView(of: UInt64(0x0102_0304_0506_0708)) { Array($0) }, [1, 2, 3, 4, 5, 6, 7, 8])
        // Byte order of the encoding = numeric order.
        XCTAssertEqual(Bytes.withView(of: UInt32(255)) { $0.compare(UInt32(256)) }, -1)
        XCTAssertEqual(Bytes.withView(of: UInt64(1 << 32)) { $0.compare(UInt64(7)) }, 1)
    }

    func testStringEncodings() {
        XCTAssertEqual(Bytes.withView(of: "é") { Array($0) }, [0xC3, 0xA9])
        let text = "one two"
        XCTAssertEqual(Bytes.withView(of: text.split(separator: " ")[1]) { $0.string }, "two")
        XCTAssertEqual(Bytes.withView(of: [UInt8]([1, 2, 3])[1...]) { Array($0) }, [2, 3])
        XCTAssertEqual(Bytes.withView(of: "abc") { $0.string }, "abc")
        // Invalid UTF-8 decodes with replacement characters instead of failing.
        XCTAssertEqual(Bytes.withView(of: [UInt8]([0x61, 0xFF])) { $0.string }, "a\u{FFFD}")
    }

    func testVarintDecodingOverStoredBytes() throws {
        // The hot path other modules will write: decode LEB128 varints with the subscript.
        func decode(_ bytes: Bytes) -> [UInt64] {
            var out: [UInt64] = []
            var i = 0
            while i < bytes.count {
                var value: UInt64 = 0
                var shift: UInt64 = 0
                while true {
                    let byte = bytes[i]; i += 1
                    value |= UInt64(byte & 0x7F) << shift
                    if byte & 0x80 == 0 { break }
                    shift += 7
                }
                out.append(value)
            }
            return out
        }
        func encode(_ values: [UInt64]) -> [UInt8] {
            var out: [UInt8] = []
            for var v in values {
                while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
                out.append(UInt8(v))
            }
            return out
        }
        let values: [UInt64] = [0, 1, 127, 128, 300, 16_384, 1 << 35, .max]
        let env = try makeEnvironment()
        let db = try env.database(named: "postings", create: true)
        try env.write { try $0.put(db, "t", encode(values)) }
        XCTAssertEqual(try env.read { txn in try txn.get(db, "t").map(decode) }, values)
    }
}
