import Catalog
import Storage

/// The attribute keys a generation's records name by number instead of spelling them out
/// (``DocumentRecord`` version 3), stored once in `meta` (``MetaKey/attributeKeys``).
///
/// Real catalogs repeat the same few keys on every entry ("price", "brand"; cities'
/// `country_code`, `admin1`, `lat`, `lon`; Debian's `priority`, `version`, `installed_size_kb`),
/// and version 2 records wrote each one out, with its protobuf framing, in every record: a sixth
/// of the cities' records. A number is one byte.
///
/// **Which keys.** A build numbers the keys of its first ``sampleSize`` entries (in input order:
/// the same catalog always gives the same table, whatever the batch sizes or memory budget), the
/// ``maximumCount`` most frequent of them, each at most ``maximumKeyBytes`` long, numbered 1... in
/// byte order. Any other key, in a later entry or an upsert, is written out in its record (number
/// 0), so a table never changes once written: an update needs no new one, and a reader holds it
/// for the generation's life.
///
/// Encoding (the `meta` value): `varint n, n × (varint length, key bytes)`, keys in ascending byte
/// order, each non-empty and unique.
///
/// ```swift
/// let keys = AttributeKeys(keys: [Array("lat".utf8), Array("lon".utf8)])
/// keys.number(of: "lon")  // 2
/// keys.number(of: "ele")  // nil: written out as number 0
/// ```
///
/// Thread-safety: immutable after `init` (its raw buffers too), shared by every reader of its
/// generation; hence `@unchecked Sendable`.
final class AttributeKeys: @unchecked Sendable {
    /// Entries whose keys decide the table.
    static let sampleSize = 4096
    /// Keys a table holds at most: numbers up to 127 take one byte.
    static let maximumCount = 127
    /// Longer keys are always written out (a long key is rare, and the table stays small).
    static let maximumKeyBytes = 64

    /// Each key's bytes, by number − 1.
    let keys: [[UInt8]]
    /// Each key's protobuf framing inside an `EntryHit.attributes` map entry (``HitFields``):
    /// `0x0A, length, key, 0x12` (the value's tag), what a hit's encoded fields carry between an
    /// entry's length and its value's length; all of them in one buffer owned by the table, the
    /// key at offset 2 of its framing (a key is under 128 bytes: its length is one byte). Raw
    /// memory, so that a hit written from the map copies its keys through plain pointers, with no
    /// reference count or closure per hit.
    let framings: UnsafeRawBufferPointer
    /// Where each key's framing ends in ``framings`` (it starts where the one before ends).
    let framingEnds: UnsafeBufferPointer<Int>
    /// The longest framing (at least 7: a key written out adds at most that much).
    let maximumFraming: Int
    /// Numbers by key; a `String` key may name several (canonically equivalent, different bytes).
    private let numbers: [String: [Int]]

    static let empty = AttributeKeys(keys: [])

    /// `keys` must be in strictly ascending byte order, non-empty, at most ``maximumCount`` of at
    /// most ``maximumKeyBytes``.
    init(keys: [[UInt8]]) {
        precondition(keys.count <= Self.maximumCount && keys.allSatisfy { $0.count <= Self.maximumKeyBytes }, "too many or long keys")
        self.keys = keys
        var writer = ByteWriter(capacity: keys.reduce(0) { $0 + $1.count + 3 })
        var ends: [Int] = []
        for key in keys {
            writer.byte(HitFields.entryKeyTag)
            writer.lengthPrefixed(key)
            writer.byte(HitFields.entryValueTag)
            ends.append(writer.bytes.count)
        }
        let framings = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, writer.bytes.count), alignment: 1)
        framings.copyBytes(from: writer.bytes)
        self.framings = UnsafeRawBufferPointer(rebasing: framings[..<writer.bytes.count])
        let framingEnds = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(1, ends.count))
        _ = framingEnds.initialize(from: ends)
        self.framingEnds = UnsafeBufferPointer(rebasing: framingEnds[..<ends.count])
        maximumFraming = max(7, keys.map { $0.count + 3 }.max() ?? 0)
        var numbers: [String: [Int]] = [:]
        for (index, key) in keys.enumerated() { numbers[String(decoding: key, as: UTF8.self), default: []].append(index + 1) }
        self.numbers = numbers
    }

    deinit {
        UnsafeMutableRawPointer(mutating: framings.baseAddress!).deallocate()
        UnsafeMutablePointer(mutating: framingEnds.baseAddress!).deallocate()
    }

    /// Where key `number` (1...)'s framing lies in the framings whose ends are `ends`
    /// (``framingEnds``), or nil when the table has no such key.
    @inline(__always)
    static func framingRange(_ number: Int, ends: UnsafeBufferPointer<Int>) -> Range<Int>? {
        guard number >= 1, number <= ends.count else { return nil }
        return (number == 1 ? 0 : ends[number - 2])..<ends[number - 1]
    }

    /// Where the key itself lies within its framing's `range`: after the key's tag and one-byte
    /// length, before the value's tag.
    @inline(__always)
    static func keyRange(inFraming range: Range<Int>) -> Range<Int> { (range.lowerBound + 2)..<(range.upperBound - 1) }

    /// Key `number`'s framing.
    func framing(_ number: Int) -> [UInt8]? { Self.framingRange(number, ends: framingEnds).map { Array(framings[$0]) } }

    var isEmpty: Bool { keys.isEmpty }

    /// The number a record writes for `key` (1...), or nil when it is written out. The key's bytes
    /// must be the table's: Swift's `String` equality is canonical equivalence, under which a
    /// decomposed "Größe" equals the composed one, whose bytes it must not come back as.
    func number(of key: String) -> Int? {
        numbers[key]?.first { key.utf8.elementsEqual(keys[$0 - 1]) }
    }

    /// The table for a build whose input starts with `sample` (its first ``sampleSize`` entries
    /// are read): the most frequent keys, ties in byte order, then sorted by bytes.
    static func choose(from sample: some Sequence<CatalogEntry>) -> AttributeKeys {
        // Counted by bytes (canonically equivalent keys are different keys here, as in records).
        var counts: [[UInt8]: Int] = [:]
        for entry in sample.prefix(sampleSize) {
            for key in entry.attributes.keys where !key.isEmpty && key.utf8.count <= maximumKeyBytes {
                counts[Array(key.utf8), default: 0] += 1
            }
        }
        let chosen = counts.sorted { a, b in
            a.value != b.value ? a.value > b.value : a.key.lexicographicallyPrecedes(b.key)
        }.prefix(maximumCount).map(\.key)
        return AttributeKeys(keys: chosen.sorted { $0.lexicographicallyPrecedes($1) })
    }

    /// The `meta` value.
    var encoded: [UInt8] {
        var writer = ByteWriter(capacity: 1 + keys.reduce(0) { $0 + $1.count + 1 })
        writer.varint(keys.count)
        for key in keys { writer.lengthPrefixed(key) }
        return writer.bytes
    }

    /// Reads a `meta` value, checking what ``init(keys:)`` assumes: a corrupt table is refused
    /// when the generation opens, not misread later.
    convenience init(decoding value: Bytes) throws(IndexError) {
        var reader = ByteReader(value)
        let count = try reader.int()
        guard count <= Self.maximumCount else { throw .corrupt("attribute key table of \(count) keys") }
        var keys: [[UInt8]] = []
        keys.reserveCapacity(count)
        for _ in 0..<count {
            let key = Array(try reader.slice())
            guard !key.isEmpty, key.count <= Self.maximumKeyBytes,
                  keys.last.map({ $0.lexicographicallyPrecedes(key) }) ?? true else {
                throw .corrupt("attribute key table out of order")
            }
            keys.append(key)
        }
        guard reader.isAtEnd else { throw .corrupt("attribute key table has trailing bytes") }
        self.init(keys: keys)
    }
}
