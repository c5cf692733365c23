/// Appends the index's binary encodings to a byte buffer.
///
/// Encodings used throughout the index (documented once, here):
/// - `varint`: unsigned LEB128, 7 bits per byte, least significant group first, at most 10 bytes.
/// - `u32be`: four bytes, big-endian, so that LMDB's byte order of keys is numeric order.
/// - `string`: a varint byte count followed by the UTF-8 bytes.
struct ByteWriter {
    private(set) var bytes: [UInt8]

    init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func varint<T: BinaryInteger>(_ value: T) {
        var v = UInt64(value)
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// An ascending list of document numbers as varint deltas (the first one absolute), the form
    /// of every document list in the index. The count is written by the caller.
    mutating func ascendingDeltas(_ docs: [UInt32]) {
        var previous: UInt32 = 0
        for (i, doc) in docs.enumerated() {
            varint(i == 0 ? doc : doc - previous)
            previous = doc
        }
    }

    mutating func u32be(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// Four bytes, little-endian: offsets read in place with a plain load (the term trie's child
    /// index).
    mutating func u32le(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    /// Overwrites the four bytes at `offset` (written before, e.g. as a placeholder) with `value`,
    /// little-endian: for tables whose entries are known only after what follows them is written.
    mutating func patchU32le(at offset: Int, _ value: UInt32) {
        for byte in 0..<4 { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
    }

    mutating func u64be(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    mutating func string(_ value: String) {
        varint(value.utf8.count)
        bytes.appendUTF8(value)
    }

    mutating func raw<C: Collection>(_ value: C) where C.Element == UInt8 {
        bytes.append(contentsOf: value)
    }

    mutating func lengthPrefixed<C: Collection>(_ value: C) where C.Element == UInt8 {
        varint(value.count)
        bytes.append(contentsOf: value)
    }

    /// What `body` writes, preceded by its byte count as a varint: the same bytes as
    /// ``lengthPrefixed(_:)`` of a separate writer's, without that writer's buffer (three
    /// allocations a document record). The body is written in place and moved up by the prefix,
    /// a few dozen bytes.
    mutating func lengthPrefixed(_ body: (inout ByteWriter) -> Void) {
        let start = bytes.count
        body(&self)
        let count = bytes.count - start
        if count < 0x80 {
            bytes.insert(UInt8(count), at: start)
        } else {
            var prefix = ByteWriter(capacity: 10)
            prefix.varint(count)
            bytes.insert(contentsOf: prefix.bytes, at: start)
        }
    }
}

extension [UInt8] {
    /// Appends `text`'s UTF-8 in one copy (`+= text.utf8` goes byte by byte).
    mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}

extension UInt32 {
    /// The four big-endian bytes of the value: keys in this form sort numerically in LMDB.
    var bigEndianBytes: [UInt8] {
        [UInt8(truncatingIfNeeded: self >> 24), UInt8(truncatingIfNeeded: self >> 16),
         UInt8(truncatingIfNeeded: self >> 8), UInt8(truncatingIfNeeded: self)]
    }
}
