import Wire

/// ``UTF8Key`` over bytes left in a shard's answer (a ``MessageBuffer``, whose lifetime rule
/// applies): equal, hashed and ordered by the bytes, with no `String` made. Hashes as a
/// ``UTF8Key`` of the same text does.
public struct UTF8Bytes: Hashable, Comparable {
    public let bytes: UnsafeRawBufferPointer

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    public static func == (a: UTF8Bytes, b: UTF8Bytes) -> Bool { a.bytes.count == b.bytes.count && compareBytes(a.bytes, b.bytes) == 0 }
    public static func < (a: UTF8Bytes, b: UTF8Bytes) -> Bool { compareBytes(a.bytes, b.bytes) < 0 }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes: bytes) }
}
