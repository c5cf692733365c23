import Storage

/// One hit of an answer, read in place from the index's memory map: what a server encodes into its
/// response without making a `String` or an array of any field.
///
/// ## Lifetime
/// A `HitView` lends bytes of the read transaction that found it, so it is valid only inside the
/// closure it is handed to (``Shard/suggest(_:form:generation:shouldStop:answer:)``); like
/// `Storage.Bytes` it is deliberately not `Sendable`. To keep a hit, use ``materialized()``.
public struct HitView {
    let doc: DocumentView
    let key: CandidateKey
    /// Which title words are highlighted (none in a ``ResponseForm/shardPart`` answer).
    let highlighted: WordSet
    /// A ``ResponseForm/presented`` hit completes the field to its title; a shard's part has none.
    public let completesToTitle: Bool

    public var weight: UInt64 { doc.weight }

    /// The key this hit was ranked by (materialised: two strings).
    public var rank: RankKey { key.rankKey() }

    /// The rank key's fields, lent without making strings (`sortTitle` and `id` as UTF-8 bytes).
    public func withRank<R>(_ body: (_ typos: Int, _ field: Int, _ exact: Bool, _ startsWith: Bool, _ weight: UInt64,
                                     _ sortTitle: UnsafeRawBufferPointer, _ id: UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try key.withFields(body)
    }

    public func withID<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try doc.id.withUnsafeBytes(body) }
    public func withTitle<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try doc.title.withUnsafeBytes(body) }

    /// The title when ``completesToTitle``, else no bytes.
    public func withCompletion<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        completesToTitle ? try doc.title.withUnsafeBytes(body) : try body(UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// Calls `body` with the protobuf encoding of the hit's `typeahead.v1.EntryHit` fields 1–5 (id,
    /// title, categories, weight, attributes) as the index stores them, in runs in
    /// field order, to be copied whole into a response. False, without calling it, when the
    /// record keeps its fields apart (``DocumentRecord`` version 1).
    public func withEncodedFields(_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        try doc.withEncodedHitFields(body)
    }

    /// Each category's UTF-8 bytes, in stored order.
    public func forEachCategory(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try doc.forEachCategory { category in
            try category.withUnsafeBytes(body)
            return true
        }
    }

    /// Each attribute's key and value, sorted by key bytes (the stored order).
    public func forEachAttribute(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) throws {
        try doc.forEachAttribute(body)
    }

    /// Each highlight's UTF-16 range in the title, in title order.
    public func forEachHighlight(_ body: (_ start: Int, _ end: Int) throws -> Void) throws {
        guard !highlighted.isEmpty else { return }
        var index = 0
        try doc.forEachTitleWordRange { range in
            if highlighted.contains(index) { try body(range.lowerBound, range.upperBound) }
            index += 1
            return index <= highlighted.last
        }
    }

    /// The highlights as values.
    public var highlights: [Highlight] {
        get throws {
            var result: [Highlight] = []
            try forEachHighlight { result.append(Highlight(start: $0, end: $1)) }
            return result
        }
    }

    /// The hit as values that outlive the transaction.
    public func materialized() throws -> EntryHit {
        let title = doc.title.string
        return EntryHit(id: doc.id.string, title: title, categories: try doc.categories, weight: doc.weight,
                        attributes: try doc.attributes(), completion: completesToTitle ? title : "",
                        highlights: try highlights, rank: key.rankKey())
    }
}

/// A set of word positions (a title's highlighted words): a bit mask for the first 64, which
/// every real title fits, and a list past them, so building one allocates nothing in practice.
struct WordSet {
    private var mask: UInt64 = 0
    private var beyond: [Int]?
    /// The largest position in the set (-1 when empty).
    private(set) var last = -1

    var isEmpty: Bool { last < 0 }

    mutating func insert(_ position: Int) {
        if position < 64 {
            mask |= 1 << UInt64(position)
        } else {
            beyond = (beyond ?? []) + [position]
        }
        last = max(last, position)
    }

    func contains(_ position: Int) -> Bool {
        position < 64 ? mask & (1 << UInt64(position)) != 0 : beyond?.contains(position) ?? false
    }
}
