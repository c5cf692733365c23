import Storage

/// ``RankKey`` as it is compared while evaluating a query: the same order, but its strings are
/// zero-copy views into the read transaction, so ranking a candidate allocates nothing.
struct CandidateKey {
    var typos: Int
    var field: Int
    var exact = false
    var startsWith: Bool
    var weight: UInt64
    /// Nil for search (which has no title tiebreak).
    var sortTitle: Bytes?
    var id: Bytes

    /// Same order as `RankKey.<`.
    static func < (a: CandidateKey, b: CandidateKey) -> Bool {
        if a.typos != b.typos { return a.typos < b.typos }
        if a.field != b.field { return a.field < b.field }
        if a.exact != b.exact { return a.exact }
        if a.startsWith != b.startsWith { return a.startsWith }
        if a.weight != b.weight { return a.weight > b.weight }
        if let x = a.sortTitle, let y = b.sortTitle {
            let order = x.compare(y)
            if order != 0 { return order < 0 }
        }
        return a.id.compare(b.id) < 0
    }

    /// The fields as ``HitView/withRank(_:)`` lends them (an absent `sortTitle` as no bytes).
    func withFields<R>(_ body: (_ typos: Int, _ field: Int, _ exact: Bool, _ startsWith: Bool, _ weight: UInt64,
                                _ sortTitle: UnsafeRawBufferPointer, _ id: UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try id.withUnsafeBytes { id in
            guard let sortTitle else { return try body(typos, field, exact, startsWith, weight, UnsafeRawBufferPointer(start: nil, count: 0), id) }
            return try sortTitle.withUnsafeBytes { try body(typos, field, exact, startsWith, weight, $0, id) }
        }
    }

    func rankKey() -> RankKey {
        RankKey(typos: typos, field: field, exact: exact, startsWith: startsWith, weight: weight,
                sortTitle: sortTitle?.string ?? "", id: id.string)
    }

    /// Compares with a materialised key (a page token's), in the same order.
    func isAfter(_ key: RankKey) -> Bool {
        if typos != key.typos { return typos > key.typos }
        if field != key.field { return field > key.field }
        if exact != key.exact { return !exact }
        if startsWith != key.startsWith { return !startsWith }
        if weight != key.weight { return weight < key.weight }
        if let title = sortTitle {
            let order = title.compare(key.sortTitle)
            if order != 0 { return order > 0 }
        }
        return id.compare(key.id) > 0
    }
}

/// The best `limit` candidates by key, optionally keeping only the best of the entries displayed
/// identically (same title, same categories: the person could not tell them apart).
///
/// A sorted array: inserting is O(limit) but a candidate worse than the current last is rejected
/// after one comparison, which is the common case. Dedupe is exact: a title displaced off the end
/// had `limit` better distinct displays ahead of it, so it could never return.
struct TopCandidates {
    struct Item {
        var key: CandidateKey
        /// The document as it was read: the answer is written from it without reading it again.
        var doc: DocumentView
        /// ``DocumentView/categoryList``: with the title, what the person sees.
        var categories: Bytes
        var docnum: UInt32 { doc.docnum }
        var title: Bytes { doc.title }
    }
    let limit: Int
    let dedupe: Bool
    private(set) var items: [Item] = []

    /// - Parameter reserving: room for `limit + 1` items up front (one allocation) instead of
    ///   growing by doubling; false for a list that usually stays empty (``reserve()`` later).
    init(limit: Int, dedupe: Bool, reserving: Bool = true) {
        self.limit = limit
        self.dedupe = dedupe
        if reserving { items.reserveCapacity(limit + 1) }
    }

    /// Room for `limit + 1` items in a buffer of this list's own: a copy of a shared list (the
    /// exact tier, which every plan's accumulator starts from) is then made once, at full size,
    /// rather than by its first insert at the size it has, and again each time it doubles.
    mutating func reserve() {
        items.reserveCapacity(limit + 1)
    }

    var isFull: Bool { items.count >= limit }
    var worst: CandidateKey? { items.last?.key }

    /// The categories are read only for a candidate that enters (most are rejected by one comparison).
    /// A document already listed is not listed twice: the exact tier's documents are entered before
    /// a plan runs (``SuggestContext/newAccumulator(countCategories:in:)``), and the plan meets them
    /// again in its own order, with the same key.
    mutating func insert(_ key: CandidateKey, _ doc: DocumentView) throws {
        guard limit > 0 else { return }
        if items.count >= limit, let last = items.last, !(key < last.key) { return }
        if items.contains(where: { $0.docnum == doc.docnum }) { return }
        let categories = try doc.categoryList
        let title = doc.title
        if dedupe, let existing = items.firstIndex(where: { $0.title.compare(title) == 0 && $0.categories.compare(categories) == 0 }) {
            if !(key < items[existing].key) { return }
            items.remove(at: existing)
        }
        var low = 0, high = items.count
        while low < high {
            let mid = (low + high) / 2
            if items[mid].key < key { low = mid + 1 } else { high = mid }
        }
        items.insert(Item(key: key, doc: doc, categories: categories), at: low)
        if items.count > limit { items.removeLast() }
    }
}
