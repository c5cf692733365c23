/// A `typeahead.v1.EntryHit` left in the bytes it arrived in: the positions of its fields in the
/// received message, checked as decoding checks them (UTF-8 strings, well-formed fields), and
/// nothing copied. A coordinator merges the shards' hits this way and writes the winners'
/// fields into its answer straight from the shards' bytes (``EntryHitFields``).
///
/// Equivalent to the decoded message: the fields read the same (a repeated singular field keeps
/// its last value, map entries are put in key order, a repeated key keeps its last value), except
/// that fields this schema does not know are dropped rather than carried.
///
/// Plain pointers into a ``MessageBuffer``, no reference: copying a hit costs no reference
/// counting. Valid while that buffer lives (its lifetime rule).
public struct EncodedEntryHit: EntryHitFields, ProtoDecodable, @unchecked Sendable {
    public typealias Failure = Never

    /// The hit's fields: read once to check them and find the singular ones; the repeated ones
    /// (categories, attributes, highlights) are read again from here when asked for, so a hit
    /// costs no arrays.
    private let content: UnsafeRawBufferPointer
    private var id = UnsafeRawBufferPointer(start: nil, count: 0)
    private var title = UnsafeRawBufferPointer(start: nil, count: 0)
    public private(set) var weight: UInt64 = 0
    private var completion = UnsafeRawBufferPointer(start: nil, count: 0)
    /// False when the attributes arrived out of key order (or with a key repeated), which no
    /// encoder of ours writes: then they are put in map order each time they are read.
    private var attributesInMapOrder = true
    /// Fields 1–5 as one run at the start of the hit, exactly as ``ResponseProto`` writes them
    /// (``withEncodedFields(_:)``), when they arrived so; else empty.
    private var encodedFields = UnsafeRawBufferPointer(start: nil, count: 0)

    /// Reads the hit from `reader`, positioned on the hit's content (inside `readNested`), whose
    /// buffer is owned by a ``MessageBuffer``.
    public init(decoding reader: inout ProtoReader) throws(ProtoError) {
        let start = reader.position
        var lastKey: UnsafeRawBufferPointer?
        // Whether fields 1–5 lead the hit in field order, each singular one once and not at its
        // default (what a node writes, and what the generated encoder would write again), and
        // where they end.
        var canonical = true
        var lastNumber = 0
        var fieldsEnd: Int?
        var sawWeight = false
        while let tag = try reader.nextTag() {
            if tag.number >= 1, tag.number <= 5 {
                let repeatable = tag.number == 3 || tag.number == 5
                if fieldsEnd != nil || tag.number < lastNumber || (tag.number == lastNumber && !repeatable) { canonical = false }
                lastNumber = tag.number
                if tag.number == 4 { sawWeight = true }
            } else if fieldsEnd == nil {
                fieldsEnd = reader.position - Self.keySize(tag)
            }
            switch tag.number {
            case 1: id = try reader.readUTF8Bytes(tag, "id")
            case 2: title = try reader.readUTF8Bytes(tag, "title")
            case 3: _ = try reader.readUTF8Range(tag, "categories")
            case 4: weight = try reader.read(ProtoUInt64.self, tag, "weight")
            case 5:
                let (key, _) = try Self.readAttribute(&reader, tag)
                if let lastKey, !Self.precedes(lastKey, key) { attributesInMapOrder = false }
                lastKey = key
            case 6: completion = try reader.readUTF8Bytes(tag, "completion")
            case 7: _ = try Self.readHighlight(&reader, tag)
            default: try reader.skip(tag)
            }
        }
        content = reader.slice(start..<reader.position)
        // A string field sent empty, or a weight sent as 0, the encoder would leave out.
        let defaultsLeftOut = (id.baseAddress == nil || id.count > 0) && (title.baseAddress == nil || title.count > 0)
            && (!sawWeight || weight != 0)
        if canonical, attributesInMapOrder, defaultsLeftOut {
            encodedFields = UnsafeRawBufferPointer(rebasing: content[..<((fieldsEnd ?? reader.position) - start)])
        }
    }

    /// The bytes of a field key (a tag number under 16 takes one).
    private static func keySize(_ tag: ProtoTag) -> Int {
        ProtoWriter.varintSize(UInt64(tag.number) << 3)
    }

    /// `validate`: check the UTF-8 (the first reading); re-readings of checked bytes skip it.
    private static func readAttribute(_ reader: inout ProtoReader, _ tag: ProtoTag,
                                      validate: Bool = true) throws(ProtoError) -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer) {
        var key = UnsafeRawBufferPointer(start: nil, count: 0)
        var value = key
        try reader.readNested(tag, "attributes") { entry throws(ProtoError) in
            while let field = try entry.nextTag() {
                switch field.number {
                case 1: key = try entry.readUTF8Bytes(field, "key", validate: validate)
                case 2: value = try entry.readUTF8Bytes(field, "value", validate: validate)
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
        var reader = ProtoReader(content)
        do throws(ProtoError) {
            while let tag = try reader.nextTag() { try body(&reader, tag) }
        } catch {
            preconditionFailure("a hit checked when read failed to read again: \(error)")
        }
    }

    /// Map order as a decoded map encodes it: by key bytes, the last entry of a repeated key kept.
    private func attributesInKeyOrder() -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] {
        var entries: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] = []
        forEachField { reader, tag throws(ProtoError) in
            if tag.number == 5 { entries.append(try Self.readAttribute(&reader, tag, validate: false)) } else { try reader.skip(tag) }
        }
        // A stable sort by key keeps a repeated key's entries in arrival order: the last one stays.
        let sorted = entries.enumerated().sorted { a, b in
            let order = compareBytes(a.element.key, b.element.key)
            return order != 0 ? order < 0 : a.offset < b.offset
        }.map(\.element)
        return sorted.indices.filter { $0 + 1 == sorted.count || compareBytes(sorted[$0].key, sorted[$0 + 1].key) != 0 }.map { sorted[$0] }
    }

    private static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        compareBytes(a, b) < 0
    }

    /// Fields 1–5 in one copy, when they arrived as the encoder writes them (a node's hits do).
    public func withEncodedFields(_ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        guard encodedFields.count > 0 else { return false }
        body(encodedFields)
        return true
    }

    public func withID(_ body: (UnsafeRawBufferPointer) -> Void) { body(id) }
    public func withTitle(_ body: (UnsafeRawBufferPointer) -> Void) { body(title) }
    public func withCompletion(_ body: (UnsafeRawBufferPointer) -> Void) { body(completion) }

    public func forEachCategory(_ body: (UnsafeRawBufferPointer) -> Void) {
        forEachField { reader, tag throws(ProtoError) in
            if tag.number == 3 { body(try reader.readUTF8Bytes(tag, "categories", validate: false)) } else { try reader.skip(tag) }
        }
    }

    public func forEachAttribute(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        guard attributesInMapOrder else {
            for entry in attributesInKeyOrder() { body(entry.key, entry.value) }
            return
        }
        forEachField { reader, tag throws(ProtoError) in
            guard tag.number == 5 else { return try reader.skip(tag) }
            let (key, value) = try Self.readAttribute(&reader, tag, validate: false)
            body(key, value)
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
    public var titleString: String { String(decoding: title, as: UTF8.self) }
    /// The categories as `String`s.
    public var categoryStrings: [String] {
        var strings: [String] = []
        forEachCategory { strings.append(String(decoding: $0, as: UTF8.self)) }
        return strings
    }
}
