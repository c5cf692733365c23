/// A string as a dictionary or set key by its UTF-8 bytes: equal, hashed and ordered by them.
///
/// `String`'s own `==` and hashing follow Unicode canonical equivalence ("é" precomposed equals
/// "e" + U+0301), but a node groups completions and chips and dedupes titles by bytes, so the
/// chip order and the coordinator's merge must too, or a cluster could fold two keys that one
/// node keeps apart. Hashing the bytes in one `combine(bytes:)` also spares the per-byte hashing
/// and the array an `[UInt8]` key costs.
///
/// ```swift
/// var seen = Set<UTF8Key>()
/// seen.insert(UTF8Key("caf\u{E9}"))
/// seen.contains(UTF8Key("cafe\u{301}"))   // false: other bytes
/// ```
/// Hashing and comparing are O(n) in the key's UTF-8 length. (``UTF8Bytes`` is the same key over
/// bytes left in a shard's answer.)
public struct UTF8Key: Hashable, Comparable {
    public let string: String

    public init(_ string: String) {
        self.string = string
    }

    public static func == (a: UTF8Key, b: UTF8Key) -> Bool {
        var x = a.string, y = b.string
        return x.withUTF8 { p in y.withUTF8 { q in p.elementsEqual(q) } }
    }

    public static func < (a: UTF8Key, b: UTF8Key) -> Bool {
        var x = a.string, y = b.string
        return x.withUTF8 { p in y.withUTF8 { q in p.lexicographicallyPrecedes(q) } }
    }

    public func hash(into hasher: inout Hasher) {
        var copy = string   // withUTF8 is mutating (it may make a bridged string contiguous)
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
