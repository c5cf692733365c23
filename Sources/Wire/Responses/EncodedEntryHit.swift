/// A `typeahead.v1.EntryHit` left in the bytes it arrived in: the positions of its fields in the
/// received message, checked as decoding checks them (UTF-8 strings, well-formed fields), and
/// nothing copied. A coordinator merges the shards' hits this way and writes the winners'
/// fields into its answer straight from the shards' bytes (``EntryHitFields``).
///
/// Equivalent to the decoded message: the fields read the same (a repeated singular field keeps
/// its last value, map entries are put in key order, a repeated key keeps its last value), except
/// that fields this schema does not know are dropped rather than carried.
public struct EncodedEntryHit: EntryHitFields, Sendable {
    public typealias Failure = Never

    /// The whole received message the ranges point into (shared, not copied).
    private let storage: [UInt8]
    /// The hit's fields: read once to check them and find the singular ones; the repeated ones
    /// (categories, attributes, highlights) are read again from here when asked for, so a hit
    /// costs no arrays unless its attributes came out of key order.
    private let content: Range<Int>
    private var id = 0..<0
    private var title = 0..<0
    public private(set) var weight: UInt64 = 0
    private var completion = 0..<0
    /// Set only when the attributes arrived out of key order (or with a key repeated): then they
    /// are kept here in map order.
    private var sortedAttributes: [(key: Range<Int>, value: Range<Int>)]?

    /// Reads the hit from `reader`, positioned on the hit's content (inside `readNested`), whose
    /// buffer holds `storage`'s bytes.
    public init(decoding reader: inout ProtoReader, storage: [UInt8]) throws(ProtoError) {
        self.storage = storage
        let start = reader.position
        var unsorted = false
        var lastKey: Range<Int>?
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: id = try reader.readUTF8Range(tag, "id")
            case 2: title = try reader.readUTF8Range(tag, "title")
            case 3: _ = try reader.readUTF8Range(tag, "categories")
            case 4: weight = try reader.read(ProtoUInt64.self, tag, "weight")
            case 5:
                let (key, _) = try Self.readAttribute(&reader, tag)
                if let lastKey, !Self.precedes(lastKey, key, in: storage) { unsorted = true }
                lastKey = key
            case 6: completion = try reader.readUTF8Range(tag, "completion")
            case 7: _ = try Self.readHighlight(&reader, tag)
            default: try reader.skip(tag)
            }
        }
        content = start..<reader.position
        if unsorted { sortedAttributes = sortAttributes() }
    }

    /// `validate`: check the UTF-8 (the first reading); re-readings of checked bytes skip it.
    private static func readAttribute(_ reader: inout ProtoReader, _ tag: ProtoTag, validate: Bool = true) throws(ProtoError) -> (Range<Int>, Range<Int>) {
        var key = 0..<0
        var value = 0..<0
        try reader.readNested(tag, "attributes") { entry throws(ProtoError) in
            while let field = try entry.nextTag() {
                switch field.number {
                case 1: key = try entry.readUTF8Range(field, "key", validate: validate)
                case 2: value = try entry.readUTF8Range(field, "value", validate: validate)
                default: try entry.skip(field)
                }
            }
        }
        return (key, value)
    }

    private static func readHighlight(_ reader: inout ProtoReader, _ tag: ProtoTag) throws(ProtoError) -> (UInt32, UInt32) {
        var highlight: (UInt32, UInt32) = (0, 0)
        try reader.readNested(tag, "highlights") { fields throws(ProtoError) in
            while let field = try fields.nextTag() {
                switch field.number {
                case 1: highlight.0 = try fields.read(ProtoUInt32.self, field, "start")
                case 2: highlight.1 = try fields.read(ProtoUInt32.self, field, "end")
                default: try fields.skip(field)
                }
            }
        }
        return highlight
    }

    /// Reads the hit's fields again (checked once already, so reading cannot fail), calling
    /// `body` with each tag and the reader positioned on its value; `body` must read or skip it.
    private func forEachField(_ body: (inout ProtoReader, ProtoTag) throws(ProtoError) -> Void) {
        storage.withUnsafeBytes { buffer in
            var reader = ProtoReader(buffer, range: content)
            do throws(ProtoError) {
                while let tag = try reader.nextTag() { try body(&reader, tag) }
            } catch {
                preconditionFailure("a hit checked when read failed to read again: \(error)")
            }
        }
    }

    /// Map order as a decoded map encodes it: by key bytes, the last entry of a repeated key kept.
    private func sortAttributes() -> [(key: Range<Int>, value: Range<Int>)] {
        var entries: [(key: Range<Int>, value: Range<Int>)] = []
        forEachField { reader, tag throws(ProtoError) in
            if tag.number == 5 { entries.append(try Self.readAttribute(&reader, tag, validate: false)) } else { try reader.skip(tag) }
        }
        var byKey: [ArraySlice<UInt8>: Int] = [:]
        for (index, entry) in entries.enumerated() { byKey[storage[entry.key]] = index }
        let storage = self.storage
        return byKey.values.sorted().map { entries[$0] }.sorted { Self.precedes($0.key, $1.key, in: storage) }
    }

    private static func precedes(_ a: Range<Int>, _ b: Range<Int>, in storage: [UInt8]) -> Bool {
        storage[a].lexicographicallyPrecedes(storage[b])
    }

    private func with(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Void) {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    public func withID(_ body: (UnsafeRawBufferPointer) -> Void) { with(id, body) }
    public func withTitle(_ body: (UnsafeRawBufferPointer) -> Void) { with(title, body) }
    public func withCompletion(_ body: (UnsafeRawBufferPointer) -> Void) { with(completion, body) }

    public func forEachCategory(_ body: (UnsafeRawBufferPointer) -> Void) {
        forEachField { reader, tag throws(ProtoError) in
            if tag.number == 3 { with(try reader.readUTF8Range(tag, "categories", validate: false), body) } else { try reader.skip(tag) }
        }
    }

    public func forEachAttribute(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        if let sortedAttributes {
            for entry in sortedAttributes { with(entry.key) { key in with(entry.value) { value in body(key, value) } } }
            return
        }
        forEachField { reader, tag throws(ProtoError) in
            guard tag.number == 5 else { return try reader.skip(tag) }
            let (key, value) = try Self.readAttribute(&reader, tag, validate: false)
            with(key) { key in with(value) { value in body(key, value) } }
        }
    }

    public func forEachHighlight(_ body: (UInt32, UInt32) -> Void) {
        forEachField { reader, tag throws(ProtoError) in
            guard tag.number == 7 else { return try reader.skip(tag) }
            let (start, end) = try Self.readHighlight(&reader, tag)
            body(start, end)
        }
    }

    /// The title as a `String` (validated UTF-8 when read).
    public var titleString: String { String(decoding: storage[title], as: UTF8.self) }
    /// The categories as `String`s.
    public var categoryStrings: [String] {
        var strings: [String] = []
        forEachCategory { strings.append(String(decoding: $0, as: UTF8.self)) }
        return strings
    }
}
