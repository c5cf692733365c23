/// Decodes UTF-8 that is known to be valid (it was produced by the analyser).
enum UTF8Scalars {
    @inline(__always)
    static func forEach<C: Collection>(_ bytes: C, _ body: (UInt32) -> Void) where C.Element == UInt8 {
        var iterator = bytes.makeIterator()
        while let scalar = next(&iterator) { body(scalar) }
    }

    /// The next scalar of `bytes` (nil at the end): one byte for ASCII, the common case; a
    /// sequence cut short by the end gives what it has.
    @inline(__always)
    static func next<I: IteratorProtocol>(_ bytes: inout I) -> UInt32? where I.Element == UInt8 {
        guard let lead = bytes.next() else { return nil }
        let b0 = UInt32(lead)
        if b0 < 0x80 { return b0 }
        var scalar: UInt32
        var extra: Int
        if b0 >= 0xF0 { scalar = b0 & 0x07; extra = 3 } else if b0 >= 0xE0 { scalar = b0 & 0x0F; extra = 2 } else { scalar = b0 & 0x1F; extra = 1 }
        while extra > 0, let byte = bytes.next() {
            scalar = scalar << 6 | (UInt32(byte) & 0x3F)
            extra -= 1
        }
        return scalar
    }

    static func decode<C: Collection>(_ bytes: C) -> [UInt32] where C.Element == UInt8 {
        var out: [UInt32] = []
        forEach(bytes) { out.append($0) }
        return out
    }

    /// The scalar of the `length`-byte sequence starting at `position` (lengths from
    /// ``sequenceLength(_:)``, clipped by the caller at the end of the bytes).
    @inline(__always)
    static func scalar<C: RandomAccessCollection>(in bytes: C, at position: Int, length: Int) -> UInt32
    where C.Index == Int, C.Element == UInt8 {
        let lead = bytes[position]
        var scalar = UInt32(length == 1 ? lead : lead & (0xFF >> (length + 1)))
        for k in 1..<max(length, 1) { scalar = scalar << 6 | UInt32(bytes[position + k] & 0x3F) }
        return scalar
    }

    /// The first byte of a scalar's UTF-8 encoding.
    @inline(__always)
    static func leadByte(of scalar: UInt32) -> UInt8 {
        switch scalar {
        case ..<0x80: return UInt8(scalar)
        case ..<0x800: return UInt8(0xC0 | (scalar >> 6))
        case ..<0x10000: return UInt8(0xE0 | (scalar >> 12))
        default: return UInt8(truncatingIfNeeded: 0xF0 | (scalar >> 18))
        }
    }

    /// Length of the UTF-8 sequence that starts with `byte`.
    @inline(__always)
    static func sequenceLength(_ byte: UInt8) -> Int {
        byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
    }
}

/// A set of byte values (256 bits).
struct LeadByteSet {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    @inline(__always)
    mutating func insert(_ byte: UInt8) {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }
}
