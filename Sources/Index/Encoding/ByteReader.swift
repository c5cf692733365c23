import Storage

/// Reads the encodings of ``ByteWriter`` from a zero-copy LMDB value.
///
/// Malformed input (a varint running past the end or over 10 bytes, a length past the end) does not
/// trap: it throws ``IndexError/corrupt(_:)``, because a damaged file must give an error, not a crash.
/// Like the `Bytes` it reads, a reader is valid only inside the read transaction that produced it.
struct ByteReader {
    let bytes: Bytes
    private(set) var offset: Int

    init(_ bytes: Bytes, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() throws(IndexError) -> UInt8 {
        guard offset < bytes.count else { throw .corrupt("record ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    // Inlined with a one-byte fast path: document views decode a handful of varints per
    // candidate, and nearly all are lengths and counts under 128.
    @inline(__always)
    mutating func varint() throws(IndexError) -> UInt64 {
        if offset < bytes.count {
            let first = bytes[offset]
            if first < 0x80 {
                offset += 1
                return UInt64(first)
            }
            // Two to four bytes (a sparse posting list's gaps, a long field's length) from one
            // load when four bytes are there: the loop below tests the end and the shift at
            // every byte, and was a tenth of a typo'd multi-word keystroke's samples.
            if offset &+ 4 <= bytes.count {
                let word = UInt32(littleEndian: bytes.loadNative(UInt32.self, at: offset))
                let low = UInt64(word & 0x7F) | UInt64(word >> 1 & 0x3F80)
                if word & 0x8000 == 0 {
                    offset &+= 2
                    return low
                }
                if word & 0x80_0000 == 0 {
                    offset &+= 3
                    return low | UInt64(word >> 2 & 0x1F_C000)
                }
                if word & 0x8000_0000 == 0 {
                    offset &+= 4
                    return low | UInt64(word >> 2 & 0x1F_C000) | UInt64(word >> 3 & 0xFE0_0000)
                }
            }
        }
        return try multiByteVarint()
    }

    private mutating func multiByteVarint() throws(IndexError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 70 else { throw .corrupt("bad varint") }
            let b = bytes[offset]
            offset += 1
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    /// Reads `count` document numbers written by ``ByteWriter/ascendingDeltas(_:)``.
    mutating func ascendingDeltas(count: Int) throws(IndexError) -> [UInt32] {
        var docs: [UInt32] = []
        docs.reserveCapacity(count)
        var doc: UInt32 = 0
        for i in 0..<count {
            let delta = UInt32(truncatingIfNeeded: try varint())
            doc = i == 0 ? delta : doc &+ delta
            docs.append(doc)
        }
        return docs
    }

    @inline(__always)
    mutating func int() throws(IndexError) -> Int {
        let v = try varint()
        guard v <= UInt64(Int32.max) else { throw .corrupt("count out of range") }
        return Int(v)
    }

    /// A sub-view of the next `varint`-prefixed bytes (no copy).
    @inline(__always)
    mutating func slice() throws(IndexError) -> Bytes {
        let count = try int()
        guard count <= bytes.count - offset else { throw .corrupt("length past end of record") }
        defer { offset += count }
        return bytes[range: offset..<(offset + count)]
    }

    mutating func string() throws(IndexError) -> String {
        try slice().string
    }

    @inline(__always)
    mutating func skipSlice() throws(IndexError) {
        let count = try int()
        guard count <= bytes.count - offset else { throw .corrupt("length past end of record") }
        offset += count
    }
}
