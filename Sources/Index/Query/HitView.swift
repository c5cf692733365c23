import Storage

/// One hit of an answer, read in place from the index's memory map: what a server encodes into its
/// response without making a `String` of any field.
///
/// ## Lifetime
/// A `HitView` lends bytes of the read transaction that found it, so it is valid only inside the
/// closure it is handed to (``Shard/suggest(_:form:generation:shouldStop:answer:)``); like
/// `Storage.Bytes` it is deliberately not `Sendable`. To keep a hit, use ``materialized()``.
public struct HitView {
    let doc: DocumentView
    let key: CandidateKey
    /// Empty in a ``ResponseForm/shardPart`` answer.
    public let highlights: [Highlight]
    /// A ``ResponseForm/presented`` hit completes the field to its title; a shard's part has none.
    public let completesToTitle: Bool

    public var weight: UInt64 { doc.weight }

    /// The key this hit was ranked by (materialised: two strings).
    public var rank: RankKey { key.rankKey() }

    public func withID<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try doc.id.withUnsafeBytes(body) }
    public func withTitle<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try doc.title.withUnsafeBytes(body) }

    /// The title when ``completesToTitle``, else no bytes.
    public func withCompletion<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        completesToTitle ? try doc.title.withUnsafeBytes(body) : try body(UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// Each category's UTF-8 bytes, in stored order.
    public func forEachCategory(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try doc.forEachCategory { category in
            try category.withUnsafeBytes(body)
            return true
        }
    }

    /// Each attribute's key and value, sorted by key bytes (the stored order).
    public func forEachAttribute(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void) throws {
        try doc.forEachAttribute { key, value in
            try key.withUnsafeBytes { key in try value.withUnsafeBytes { value in try body(key, value) } }
        }
    }

    /// The hit as values that outlive the transaction.
    public func materialized() throws -> EntryHit {
        let title = doc.title.string
        return EntryHit(id: doc.id.string, title: title, categories: try doc.categories, weight: doc.weight,
                        attributes: try doc.attributes(), completion: completesToTitle ? title : "",
                        highlights: highlights, rank: key.rankKey())
    }
}
