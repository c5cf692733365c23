/// The fields of a `typeahead.v1.EntryHit`, as the response encoders read them: from a decoded
/// message, or straight from wherever a server keeps them (a node reads its hits from the index's
/// memory map and writes them into the response without making a `String` of any field).
///
/// Text fields are lent as UTF-8 bytes for the duration of a call, which is what lets a
/// conformance lend bytes it does not own. Both encoders, ``ResponseProto`` and ``ResponseJSON``,
/// are generic over this protocol, so every source of hits is written by the same code and a
/// message and a memory-mapped hit with equal fields encode to equal bytes.
///
/// The bodies never fail (they append to an output); a conformance that reads stored records
/// may, with its ``Failure`` (a corrupt record). A message's is `Never`, so encoding one cannot
/// fail and needs no `try`.
public protocol EntryHitFields {
    associatedtype Failure: Error
    func withID(_ body: (UnsafeRawBufferPointer) -> Void) throws(Failure)
    func withTitle(_ body: (UnsafeRawBufferPointer) -> Void) throws(Failure)
    /// In stored order.
    func forEachCategory(_ body: (UnsafeRawBufferPointer) -> Void) throws(Failure)
    var weight: UInt64 { get }
    /// Sorted by the keys' UTF-8 bytes (the deterministic order of a protobuf map), keys distinct.
    func forEachAttribute(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) throws(Failure)
    /// Empty in a shard's part of an answer.
    func withCompletion(_ body: (UnsafeRawBufferPointer) -> Void) throws(Failure)
    /// Sorted, non-overlapping UTF-16 ranges of the title.
    func forEachHighlight(_ body: (_ start: UInt32, _ end: UInt32) -> Void) throws(Failure)
    /// When the hit keeps fields 1–5 (id, title, categories, weight, attributes) already in
    /// protobuf's encoding, exactly as ``ResponseProto`` writes them from the fields: calls `body`
    /// with those bytes, in one or more runs in field order, and returns true, so the encoder
    /// copies them whole. The default: false.
    func withEncodedFields(_ body: (UnsafeRawBufferPointer) -> Void) throws(Failure) -> Bool
}

extension EntryHitFields {
    public func withEncodedFields(_ body: (UnsafeRawBufferPointer) -> Void) throws(Failure) -> Bool { false }
}

/// The texts of a presented Suggest response's completions (`typeahead.v1.QueryCompletion.text`),
/// each lent in two runs written one after the other: a node keeps the field's text before the
/// partial word once and each completed word's spelling in its memory map.
public protocol CompletionTextList {
    associatedtype Failure: Error
    var count: Int { get }
    func withText(at index: Int, _ body: (_ head: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer) -> Void) throws(Failure)
}

extension Array: CompletionTextList where Element == Typeahead_V1_QueryCompletion {
    public func withText(at index: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        var text = self[index].text
        text.withUTF8 { body(UnsafeRawBufferPointer($0), UnsafeRawBufferPointer(start: nil, count: 0)) }
    }
}

/// A list of hits an encoder reads by position (a conformance may build each hit only when it is
/// asked for, inside whatever transaction its bytes live in).
public protocol EntryHitList {
    associatedtype Hit: EntryHitFields
    var count: Int { get }
    func hit(at index: Int) throws(Hit.Failure) -> Hit
}

extension Typeahead_V1_EntryHit: EntryHitFields {
    public typealias Failure = Never

    public func withID(_ body: (UnsafeRawBufferPointer) -> Void) { Self.withUTF8(id, body) }
    public func withTitle(_ body: (UnsafeRawBufferPointer) -> Void) { Self.withUTF8(title, body) }
    public func withCompletion(_ body: (UnsafeRawBufferPointer) -> Void) { Self.withUTF8(completion, body) }

    public func forEachCategory(_ body: (UnsafeRawBufferPointer) -> Void) {
        for category in categories { Self.withUTF8(category, body) }
    }

    public func forEachAttribute(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        for key in ProtoWriter.sortedKeys(attributes) {
            Self.withUTF8(key) { keyBytes in Self.withUTF8(attributes[key]!) { value in body(keyBytes, value) } }
        }
    }

    public func forEachHighlight(_ body: (UInt32, UInt32) -> Void) {
        for highlight in highlights { body(highlight.start, highlight.end) }
    }

    private static func withUTF8(_ text: String, _ body: (UnsafeRawBufferPointer) -> Void) {
        var text = text
        text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}

extension Array: EntryHitList where Element: EntryHitFields {
    public func hit(at index: Int) -> Element { self[index] }
}
